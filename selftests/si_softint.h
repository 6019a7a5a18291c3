/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scenario si_timer exists for, shared by si_softint_test (which
 * asserts on it) and si_timer_demo (which shows it): an si_timer callback
 * on CPU @cpu stays busy for @cb_ms, and @raise_ms into it a device on the
 * same CPU wants its bottom halves (a tasklet and a NAPI poll) to run.
 *
 * The device interrupt is a pinned HARD hrtimer. On non-RT it schedules
 * both from hardirq context, as a NIC's handler does: irq_exit() runs them
 * at once unless the CPU is serving softirqs. On PREEMPT_RT softirqs
 * raised in hardirq context go to ksoftirqd, and drivers' handlers are
 * threads, so it wakes a SCHED_FIFO 50 kthread bound to the CPU that
 * schedules both between local_bh_disable() and local_bh_enable(); the
 * latter runs them there, unless another task holds the CPU's BH lock.
 *
 * Times are in ns since the callback started; -1 means "did not happen".
 */
#ifndef _SI_SOFTINT_H
#define _SI_SOFTINT_H

#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <si_timer.h>
#include "compat.h"

struct si_softint {
	int cpu;
	unsigned int cb_ms, raise_ms;
	/*
	 * If set, the callback stays busy past @cb_ms until both bottom
	 * halves ran, up to @hold_ms: a host stall of the virtual CPU must not
	 * let the callback end before they had their chance.
	 */
	unsigned int hold_ms;

	struct si_timer timer;
	struct hrtimer irq;
	struct task_struct *irq_thread;	/* PREEMPT_RT only */
	bool irq_pending;
	struct tasklet_struct tasklet;
	struct net_device *ndev;
	struct napi_struct napi;
	struct completion done;

	bool busy;			/* the callback runs */
	ktime_t cb_start;
	s64 cb_end, raised, bh_taken, tasklet_at, napi_at;
	int cb_cpu, tasklet_cpu, napi_cpu;
	bool tasklet_in_cb, napi_in_cb;
};

static inline s64 si_softint_now(const struct si_softint *s)
{
	return ktime_to_ns(ktime_sub(ktime_get(), s->cb_start));
}

static bool si_softint_bh_ran(const struct si_softint *s)
{
	return READ_ONCE(s->tasklet_at) >= 0 && READ_ONCE(s->napi_at) >= 0;
}

static bool si_softint_busy_until(const struct si_softint *s)
{
	s64 now = si_softint_now(s);

	return now < s->cb_ms * NSEC_PER_MSEC ||
	       (now < s->hold_ms * NSEC_PER_MSEC && !si_softint_bh_ran(s));
}

static void si_softint_timer_fn(struct si_timer *t)
{
	struct si_softint *s = si_timer_container_of(s, t, timer);

	s->cb_start = ktime_get();
	s->cb_cpu = raw_smp_processor_id();
	WRITE_ONCE(s->busy, true);
	hrtimer_start(&s->irq, ms_to_ktime(s->raise_ms),
		      HRTIMER_MODE_REL_PINNED_HARD);
	while (si_softint_busy_until(s))
		cpu_relax();
	WRITE_ONCE(s->busy, false);
	s->cb_end = si_softint_now(s);
	complete(&s->done);
}

/* What a NIC's interrupt handler does: hand the work to bottom halves. */
static void si_softint_raise(struct si_softint *s)
{
	tasklet_schedule(&s->tasklet);
	napi_schedule(&s->napi);
}

static enum hrtimer_restart si_softint_irq_fn(struct hrtimer *h)
{
	struct si_softint *s = container_of(h, struct si_softint, irq);

	s->raised = si_softint_now(s);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		si_softint_raise(s);
		return HRTIMER_NORESTART;
	}
	WRITE_ONCE(s->irq_pending, true);
	wake_up_process(s->irq_thread);
	return HRTIMER_NORESTART;
}

static int si_softint_irq_thread(void *data)
{
	struct si_softint *s = data;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		if (!xchg(&s->irq_pending, false)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		local_bh_disable();
		s->bh_taken = si_softint_now(s);
		si_softint_raise(s);
		local_bh_enable();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void si_softint_tasklet_fn(struct tasklet_struct *t)
{
	struct si_softint *s = from_tasklet(s, t, tasklet);

	s->tasklet_in_cb = READ_ONCE(s->busy);
	s->tasklet_cpu = raw_smp_processor_id();
	WRITE_ONCE(s->tasklet_at, si_softint_now(s));
}

static int si_softint_poll(struct napi_struct *napi, int budget)
{
	struct si_softint *s = container_of(napi, struct si_softint, napi);

	s->napi_in_cb = READ_ONCE(s->busy);
	s->napi_cpu = raw_smp_processor_id();
	WRITE_ONCE(s->napi_at, si_softint_now(s));
	napi_complete_done(napi, 0);
	return 0;
}

static inline void si_softint_exit(struct si_softint *s)
{
	si_timer_shutdown_sync(&s->timer);
	hrtimer_cancel(&s->irq);
	if (s->irq_thread)
		kthread_stop(s->irq_thread);
	if (s->ndev) {
		napi_disable(&s->napi);
		netif_napi_del(&s->napi);
		free_netdev(s->ndev);
	}
	tasklet_kill(&s->tasklet);
}

/* The cpu= module parameter: -1 picks the last online CPU. */
static inline int si_softint_cpu(int cpu)
{
	if (cpu < 0)
		return cpumask_last(cpu_online_mask);
	if (cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		pr_err("%s: cpu=%d is not online\n", KBUILD_MODNAME, cpu);
		return -EINVAL;
	}
	return cpu;
}

static inline int si_softint_init(struct si_softint *s, int cpu)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->cb_ms = 60;
	s->raise_ms = 20;
	init_completion(&s->done);
	si_timer_setup(&s->timer, si_softint_timer_fn, 0);
	hrtimer_setup(&s->irq, si_softint_irq_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_HARD);
	tasklet_setup(&s->tasklet, si_softint_tasklet_fn);
	/* A NAPI context needs a device; a dummy one is never registered. */
	s->ndev = alloc_netdev_dummy(0);
	if (!s->ndev)
		return -ENOMEM;
	netif_napi_add(s->ndev, &s->napi, si_softint_poll);
	napi_enable(&s->napi);
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		s->irq_thread = kthread_create(si_softint_irq_thread, s,
					       "si_irq/%d", cpu);
		if (IS_ERR(s->irq_thread)) {
			int ret = PTR_ERR(s->irq_thread);

			s->irq_thread = NULL;
			si_softint_exit(s);
			return ret;
		}
		kthread_bind(s->irq_thread, cpu);
		sched_set_fifo(s->irq_thread);	/* FIFO 50, as irq threads */
		wake_up_process(s->irq_thread);
	}
	return 0;
}

/*
 * Run the scenario once with a callback of @flags (SI_TIMER_PINNED added);
 * wait for the callback, the tasklet and the poll. 0, or -ETIMEDOUT.
 */
static inline int si_softint_run(struct si_softint *s, unsigned int flags)
{
	unsigned long deadline;

	si_timer_setup(&s->timer, si_softint_timer_fn, flags | SI_TIMER_PINNED);
	reinit_completion(&s->done);
	s->cb_end = -1;
	s->raised = -1;
	s->bh_taken = -1;
	s->cb_cpu = -1;
	s->tasklet_cpu = -1;
	s->napi_cpu = -1;
	WRITE_ONCE(s->tasklet_at, -1);
	WRITE_ONCE(s->napi_at, -1);
	s->timer.expires = jiffies + 1;
	si_add_timer_on(&s->timer, s->cpu);
	if (!wait_for_completion_timeout(&s->done, 2 * HZ + msecs_to_jiffies(s->hold_ms)))
		return -ETIMEDOUT;
	deadline = jiffies + 2 * HZ;
	while (!si_softint_bh_ran(s)) {
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		usleep_range(1000, 2000);
	}
	return 0;
}

#endif /* _SI_SOFTINT_H */
