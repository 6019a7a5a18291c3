// SPDX-License-Identifier: GPL-2.0
/*
 * si_timer_bench: runs the benchmarks named by only= at load, prints their
 * SI_BENCH lines and SI_BENCH_DONE, and returns; rmmod it afterwards.
 */
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include "vecmask.h"
#include "bench.h"

bool bench_quick;
module_param_named(quick, bench_quick, bool, 0444);
MODULE_PARM_DESC(quick, "run each benchmark briefly (a smoke test: the figures mean nothing)");

static char *only = "B1,B3,B4,B5,B10";
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "comma-separated benchmarks to run: B1 (with B2, B8), B3, B4, B5, B5i (the same-jiffy part of B5, for -icount), B7, B9 (with scale_peer= and scale_n=; its timers stay armed until unload), B10 (si_hrtimer against hrtimers)");

int bench_cpu = -1;
module_param_named(cpu, bench_cpu, int, 0444);
MODULE_PARM_DESC(cpu, "CPU the benchmarks load (default: the last online one, never 0)");

static char *hold = "";
module_param(hold, charp, 0444);
MODULE_PARM_DESC(hold, "run no benchmark: keep a long timer of this peer (si, compat, classic, kdw, dw, baseline = none) running on cpu= until unloaded (B8's user-space client measures meanwhile)");

struct kthread_worker *bench_worker;

static bool bench_selected(const char *id)
{
	const char *p = only;
	size_t len = strlen(id);

	while ((p = strstr(p, id))) {
		if ((p == only || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

/* @alone: runs on bench_cpu only, so that a single-CPU guest will do. */
static const struct {
	const char *id;
	void (*run)(void);
	bool alone;
} benches[] = {
	{ "B1", bench_b1_b2 }, { "B3", bench_b3, true }, { "B4", bench_b4 },
	{ "B5", bench_b5 }, { "B5i", bench_b5_icount, true }, { "B7", bench_b7 },
	{ "B9", bench_b9, true }, { "B10", bench_b10 },
};

/*
 * The others were written for a bench_cpu beside CPU 0 (B7 arms from CPU 0
 * while its flood owns bench_cpu): CPU 0 itself will do only when none of
 * them runs (bench.py's single-vCPU -icount boot, for the kernels that hang
 * bringing up a second vCPU under -icount).
 */
static bool bench_cpu0_will_do(void)
{
	int i;

	if (*hold)
		return false;
	for (i = 0; i < ARRAY_SIZE(benches); i++)
		if (bench_selected(benches[i].id) && !benches[i].alone)
			return false;
	return true;
}

static int __init bench_init(void)
{
	int i;

	if (bench_cpu < 0)
		bench_cpu = cpumask_last(cpu_online_mask);
	if (bench_cpu < 0 || bench_cpu >= nr_cpu_ids || !cpu_online(bench_cpu) ||
	    (bench_cpu == 0 && !bench_cpu0_will_do())) {
		pr_err("si_timer_bench: cpu=%d: need an online CPU other than 0 for only=%s\n",
		       bench_cpu, only);
		return -EINVAL;
	}
	/*
	 * Bound by kthread_bind() before its first run: since 6.14 a kthread
	 * that is not applies its preferred (node) affinity as it starts, and
	 * set_cpus_allowed_ptr() on a created worker left it on any CPU on 7.x
	 * (B8's kdw at the baseline there).
	 */
	bench_worker = si_kthread_create_worker_on_cpu(bench_cpu, "si_bench_kdw/%u");
	if (IS_ERR(bench_worker))
		return PTR_ERR(bench_worker);
	sched_set_fifo_low(bench_worker->task);

	if (*hold) {
		int p = match_string(bench_peer_key, NR_PEERS, hold);

		if (p < 0 || bench_hold_start(p)) {
			kthread_destroy_worker(bench_worker);
			return -EINVAL;
		}
		return 0;
	}
	pr_info("SI_BENCH_INFO release=%s cpu=%d cpus=%u hz=%d rt=%d vecmask=%d quick=%d only=%s\n",
		init_utsname()->release, bench_cpu, num_online_cpus(), HZ,
		IS_ENABLED(CONFIG_PREEMPT_RT), si_vecmask_available(), bench_quick,
		only);
	bench_learn_jiffy_edges();
	for (i = 0; i < ARRAY_SIZE(benches); i++) {
		if (!bench_selected(benches[i].id))
			continue;
		pr_info("SI_BENCH_START %s\n", benches[i].id);
		benches[i].run();
	}
	pr_info("SI_BENCH_DONE %s\n", only);
	return 0;
}
module_init(bench_init);

static void __exit bench_exit(void)
{
	bench_hold_stop();
	bench_b9_release();
	kthread_destroy_worker(bench_worker);
}
module_exit(bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer benchmarks against timer_list, kthread_delayed_work and delayed_work");
