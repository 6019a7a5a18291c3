// SPDX-License-Identifier: GPL-2.0
/*
 * What si_timer's load parameters promise, read back from sysfs and
 * checked against what callbacks see. The harness runs this module with
 * si_timer loaded with its defaults and once more with each non-default
 * setting (selftests/init.sh, document si_timer_params):
 *
 * - prio: every executor runs callbacks at SCHED_FIFO prio, or
 *   SCHED_OTHER for prio=0;
 * - soft_prio (written at run time): on PREEMPT_RT soft-interruptible
 *   batches run at it, compatible ones at prio;
 * - vecmask, vecmask_test_fail_hook: the vector mask emulation is active
 *   with vecmask=on, never with vecmask=off, and with auto exactly when
 *   it has a back end (si_vecmask_backend(): x86-64 or arm64 with an
 *   ftrace that can redirect a function) and no hook failed on purpose;
 *   vecmask_active and si_vecmask_available() say so;
 * - soft-interruptible callbacks run with bottom halves enabled where the
 *   emulation is active, and in compatible mode (serving a softirq, bottom
 *   halves disabled) where it is not; compatible callbacks always run so.
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <uapi/linux/sched.h>
#include "vecmask.h"
#include "si_test.h"

/* What a callback saw of its context. */
struct pt_run {
	struct si_timer timer;
	struct completion done;
	int cpu;
	unsigned int policy, rt_priority;
	bool serving_softirq;
	unsigned long softirq_cnt;
	char comm[TASK_COMM_LEN];
};

static void pt_fn(struct si_timer *t)
{
	struct pt_run *r = si_timer_container_of(r, t, timer);

	r->cpu = raw_smp_processor_id();
	r->policy = current->policy;
	r->rt_priority = current->rt_priority;
	r->serving_softirq = in_serving_softirq();
	r->softirq_cnt = softirq_count();
	get_task_comm(r->comm, current);
	complete(&r->done);
}

/* Run a callback with @flags on @cpu; false (a failure) if it did not run. */
static bool pt_run_on(struct pt_run *r, int cpu, unsigned int flags)
{
	bool ran;

	memset(r, 0, sizeof(*r));
	init_completion(&r->done);
	si_test_timer_setup(&r->timer, pt_fn, flags);
	r->timer.expires = jiffies + 1;
	si_add_timer_on(&r->timer, cpu);
	ran = wait_for_completion_timeout(&r->done, 10 * HZ);
	si_timer_delete_sync(&r->timer);
	return SI_CHECK(ran, "CPU %d: callback (flags %#x) did not run in 10 s", cpu, flags);
}

static struct pt_run r;
static char pt_mode[16], pt_active[8], pt_fail_hook[64];
static int pt_prio = -1;

SI_CHECKED(t_params_readable)
{
	char prio[16];

	if (!si_test_read_param("prio", prio, sizeof(prio)) ||
	    !si_test_read_param("vecmask", pt_mode, sizeof(pt_mode)) ||
	    !si_test_read_param("vecmask_active", pt_active, sizeof(pt_active)) ||
	    !si_test_read_param("vecmask_test_fail_hook", pt_fail_hook,
				sizeof(pt_fail_hook)))
		return;
	si_diag("prio=%s vecmask=%s vecmask_active=%s vecmask_test_fail_hook='%s'",
		prio, pt_mode, pt_active, pt_fail_hook);
	SI_CHECK(!kstrtoint(prio, 10, &pt_prio) && pt_prio >= 0 && pt_prio <= 99,
		 "prio '%s'", prio);
}

/* Every executor runs callbacks of both kinds at the policy prio= asks. */
SI_CHECKED(t_executor_policy)
{
	unsigned int want = pt_prio ? SCHED_FIFO : SCHED_NORMAL;
	unsigned int flags[] = { 0, SI_TIMER_SOFTINTERRUPTIBLE };
	int cpu, i;

	if (pt_prio < 0) {
		si_skip("prio unknown");
		return;
	}
	for_each_online_cpu(cpu) {
		for (i = 0; i < ARRAY_SIZE(flags); i++) {
			if (!pt_run_on(&r, cpu, flags[i]))
				continue;
			SI_CHECK(r.policy == want && r.rt_priority == pt_prio,
				 "CPU %d, flags %#x: %s ran at policy %u priority %u, want %u %d",
				 cpu, flags[i], r.comm, r.policy, r.rt_priority, want,
				 pt_prio);
		}
	}
	si_diag("executors at %s %d", pt_prio ? "SCHED_FIFO" : "SCHED_OTHER", pt_prio);
}

/*
 * soft_prio=0 (writable): on PREEMPT_RT soft-interruptible callbacks run at
 * SCHED_OTHER, compatible ones at prio=; elsewhere it changes nothing.
 * (init.sh checks that out-of-range values are refused.)
 */
SI_CHECKED(t_soft_prio)
{
	bool rt = IS_ENABLED(CONFIG_PREEMPT_RT);
	int cpu = raw_smp_processor_id();
	unsigned int want;

	if (pt_prio <= 0) {
		si_skip("prio %d: soft_prio=0 would change nothing", pt_prio);
		return;
	}
	if (!SI_CHECK(si_test_write_param("soft_prio", "0"), "soft_prio=0 refused"))
		return;
	want = rt ? SCHED_NORMAL : SCHED_FIFO;
	if (pt_run_on(&r, cpu, SI_TIMER_SOFTINTERRUPTIBLE) && si_vecmask_available())
		SI_CHECK(r.policy == want && r.rt_priority == (rt ? 0 : pt_prio),
			 "soft-interruptible callback at policy %u priority %u, want %u",
			 r.policy, r.rt_priority, want);
	if (pt_run_on(&r, cpu, 0))
		SI_CHECK(r.policy == SCHED_FIFO && r.rt_priority == pt_prio,
			 "compatible callback at policy %u priority %u, want FIFO %d",
			 r.policy, r.rt_priority, pt_prio);
	si_test_write_param("soft_prio", "-1");
	/* and back at prio= once its batch is over */
	if (pt_run_on(&r, cpu, SI_TIMER_SOFTINTERRUPTIBLE))
		SI_CHECK(r.policy == SCHED_FIFO && r.rt_priority == pt_prio,
			 "soft_prio=-1: soft-interruptible callback at policy %u priority %u",
			 r.policy, r.rt_priority);
}

/* The emulation is active exactly when the parameters say it can be. */
SI_CHECKED(t_vecmask_active_as_asked)
{
	bool can = si_vecmask_backend();
	bool active = pt_active[0] == 'Y';
	bool want;

	if (!pt_mode[0]) {
		si_skip("parameters unknown");
		return;
	}
	if (!strcmp(pt_mode, "off"))
		want = false;
	else if (!strcmp(pt_mode, "on"))
		want = true;	/* else it must have refused to load */
	else
		want = can && !pt_fail_hook[0];
	SI_CHECK(active == want,
		 "vecmask=%s vecmask_test_fail_hook='%s' back end %s: vecmask_active=%s",
		 pt_mode, pt_fail_hook, si_vecmask_backend() ?: "none", pt_active);
	SI_CHECK(si_vecmask_available() == active,
		 "si_vecmask_available() %d, vecmask_active=%s",
		 si_vecmask_available(), pt_active);
}

/* Soft-interruptible callbacks: BH enabled with the emulation, else compatible. */
SI_CHECKED(t_callback_context)
{
	bool active = si_vecmask_available();
	int cpu;

	for_each_online_cpu(cpu) {
		if (pt_run_on(&r, cpu, 0))
			SI_CHECK(r.serving_softirq && r.softirq_cnt,
				 "CPU %d: compatible callback: in_serving_softirq %d, softirq_count %#lx",
				 cpu, r.serving_softirq, r.softirq_cnt);
		if (!pt_run_on(&r, cpu, SI_TIMER_SOFTINTERRUPTIBLE))
			continue;
		if (active)
			SI_CHECK(!r.serving_softirq && !r.softirq_cnt,
				 "CPU %d: soft-interruptible callback with the mask: in_serving_softirq %d, softirq_count %#lx",
				 cpu, r.serving_softirq, r.softirq_cnt);
		else
			SI_CHECK(r.serving_softirq && r.softirq_cnt,
				 "CPU %d: soft-interruptible callback without the mask: in_serving_softirq %d, softirq_count %#lx",
				 cpu, r.serving_softirq, r.softirq_cnt);
	}
	si_diag("soft-interruptible callbacks run %s",
		active ? "with bottom halves enabled" : "in compatible mode");
}

static const struct si_test tests[] = {
	SI_TEST(t_params_readable),
	SI_TEST(t_executor_policy),
	SI_TEST(t_soft_prio),
	SI_TEST(t_vecmask_active_as_asked),
	SI_TEST(t_callback_context),
};

static int __init pt_init(void)
{
	return si_ktap_run(tests, ARRAY_SIZE(tests));
}
module_init(pt_init);

static void __exit pt_exit(void)
{
}
module_exit(pt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer: what its load parameters promise");
