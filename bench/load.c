// SPDX-License-Identifier: GPL-2.0
/*
 * si_bench_load (B6): a softirq-heavy workload that uses no si_timer, to
 * measure what merely having si_timer loaded costs. It needs nothing from
 * si_timer, so it also runs with si_timer not loaded. At load it times, on
 * the last online CPU, a tasklet ping-pong (TASKLET softirq, never hooked)
 * and a chain of SOFT hrtimers re-armed 1 ns out (HRTIMER softirq, whose
 * handler si_timer's vector mask probes), and prints
 *	SI_BENCH_B6 <state> <metric> <ns per round>
 * meant for -icount, where the clock counts instructions.
 */
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include "compat.h"

static bool quick;
module_param(quick, bool, 0444);
MODULE_PARM_DESC(quick, "a few rounds only (smoke test)");

static char *state = "unknown";
module_param(state, charp, 0444);
MODULE_PARM_DESC(state, "how si_timer is loaded, echoed in the output line");

struct b6 {
	struct tasklet_struct ping, pong;
	struct hrtimer hr;
	unsigned int left;
	struct completion done;
};

static void b6_ping(struct tasklet_struct *t)
{
	struct b6 *b = from_tasklet(b, t, ping);

	if (--b->left)
		tasklet_schedule(&b->pong);
	else
		complete(&b->done);
}

static void b6_pong(struct tasklet_struct *t)
{
	struct b6 *b = from_tasklet(b, t, pong);

	tasklet_schedule(&b->ping);
}

static enum hrtimer_restart b6_hr(struct hrtimer *h)
{
	struct b6 *b = container_of(h, struct b6, hr);

	if (!--b->left) {
		complete(&b->done);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(h, 1);
	return HRTIMER_RESTART;
}

static void b6_start_tasklet(void *data)
{
	tasklet_schedule(&((struct b6 *)data)->ping);
}

static void b6_start_hr(void *data)
{
	hrtimer_start(&((struct b6 *)data)->hr, 1, HRTIMER_MODE_REL_PINNED_SOFT);
}

struct b6_start {
	smp_call_func_t fn;
	struct b6 *b;
};

static int b6_start_on_cpu(void *arg)
{
	struct b6_start *s = arg;

	s->fn(s->b);
	return 0;
}

/* ns per round of @start's chain on @cpu, best of 3. */
static s64 b6_time(struct b6 *b, int cpu, smp_call_func_t start, unsigned int rounds)
{
	s64 best = S64_MAX;
	int run;

	for (run = 0; run < 3; run++) {
		u64 t0;

		b->left = rounds;
		reinit_completion(&b->done);
		t0 = ktime_get_ns();
		/*
		 * From a thread on @cpu, not an IPI: PREEMPT_RT WARNs on a
		 * softirq raised by an SMP function call that idle flushes
		 * (do_softirq_post_smp_call_flush(), seen on kcsan-rt).
		 */
		smp_call_on_cpu(cpu, b6_start_on_cpu, &(struct b6_start){ start, b }, false);
		if (!wait_for_completion_timeout(&b->done, 60 * HZ))
			return -1;
		best = min_t(s64, best, (ktime_get_ns() - t0) / rounds);
	}
	return best;
}

static int __init b6_init(void)
{
	unsigned int rounds = quick ? 100 : 20000;
	int cpu = cpumask_last(cpu_online_mask);
	s64 tasklet_ns, hr_ns;
	struct b6 *b;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	init_completion(&b->done);
	tasklet_setup(&b->ping, b6_ping);
	tasklet_setup(&b->pong, b6_pong);
	hrtimer_setup(&b->hr, b6_hr, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
	tasklet_ns = b6_time(b, cpu, b6_start_tasklet, rounds);
	hr_ns = b6_time(b, cpu, b6_start_hr, rounds);
	hrtimer_cancel(&b->hr);
	tasklet_kill(&b->ping);
	tasklet_kill(&b->pong);
	kfree(b);
	pr_info("SI_BENCH_B6 %s tasklet_pingpong_ns %lld\n", state, tasklet_ns);
	pr_info("SI_BENCH_B6 %s soft_hrtimer_chain_ns %lld\n", state, hr_ns);
	return 0;
}
module_init(b6_init);

static void __exit b6_exit(void)
{
}
module_exit(b6_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer benchmark B6: a softirq workload that uses no si_timer");
