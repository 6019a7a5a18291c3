/* SPDX-License-Identifier: GPL-2.0 */
/*
 * si_timer_torture's hrtimer part, included by si_timer_torture.c after its
 * violation counters and callback bookkeeping:
 *
 * - a SOFT hrtimer per CPU, every 0.5-1 ms in the background: it may run
 *   in the middle of a soft-interruptible callback of its CPU (the TIMER
 *   vector alone is masked, as in the seed series), never in a compatible
 *   one or one with SI_TIMER_MASK_HRTIMER, and no si_timer callback starts
 *   in the middle of it (callbacks_of_a_cpu_never_interleave);
 * - a pool of si_hrtimers that threads of every CPU start, restart from
 *   the callback, try to cancel and cancel, one operation per timer at a
 *   time (its mutex), the callback the only other party: never early (than
 *   the earliest arming since none was pending: which one a callback runs
 *   for is not known when a start and a cancel came between its expiry and
 *   its run), never concurrent with itself, nothing after a cancel returned until the
 *   next start, the callback context of its mode, return values in range.
 */
#ifndef _SI_TORTURE_HR_H
#define _SI_TORTURE_HR_H

#include <si_hrtimer.h>

#define TT_HR_SLOTS	16

/* Per CPU: soft hrtimer callbacks, soft and MASK_HRTIMER si callbacks in progress. */
static atomic_t *tt_in_softhr, *tt_in_soft, *tt_in_hrmasked;
static struct hrtimer *tt_softhr;
static bool tt_softhr_ready;	/* tt_softhr set up */
static atomic_long_t tt_softhr_runs, tt_softhr_in_soft;
/* soft callbacks that returned with a soft hrtimer callback of their CPU half done */
static atomic_long_t tt_softhr_outlived;

/* Called by every si_timer and si_hrtimer callback as it starts and ends. */
static void tt_si_cb_enter(int cpu, bool soft, bool hrmasked)
{
	if (atomic_read(&tt_in_softhr[cpu]))
		tt_violation(V_INTERLEAVE,
			     "an si_timer callback started on CPU %d inside a soft hrtimer callback",
			     cpu);
	if (soft)
		atomic_inc(hrmasked ? &tt_in_hrmasked[cpu] : &tt_in_soft[cpu]);
}

static void tt_si_cb_exit(int cpu, bool soft, bool hrmasked)
{
	if (!soft)
		return;
	/* the window of the next callback starting in the middle of it */
	if (atomic_read(&tt_in_softhr[cpu]))
		atomic_long_inc(&tt_softhr_outlived);
	atomic_dec(hrmasked ? &tt_in_hrmasked[cpu] : &tt_in_soft[cpu]);
}

static enum hrtimer_restart tt_softhr_fn(struct hrtimer *h)
{
	int cpu = raw_smp_processor_id();

	atomic_inc(&tt_in_softhr[cpu]);
	if (atomic_read(&tt_in_compat[cpu]) || atomic_read(&tt_in_hrmasked[cpu]))
		tt_violation(V_INTERLEAVE,
			     "a soft hrtimer ran on CPU %d inside a callback that masks HRTIMER (compatible %d, MASK_HRTIMER %d)",
			     cpu, atomic_read(&tt_in_compat[cpu]),
			     atomic_read(&tt_in_hrmasked[cpu]));
	if (atomic_read(&tt_in_soft[cpu]))
		atomic_long_inc(&tt_softhr_in_soft);
	atomic_long_inc(&tt_softhr_runs);
	tt_busy(20);
	atomic_dec(&tt_in_softhr[cpu]);
	if (READ_ONCE(tt_stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(h, ns_to_ktime((500 + get_random_u32_below(500)) * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void tt_softhr_start_here(void *unused)
{
	hrtimer_start(&tt_softhr[smp_processor_id()], ms_to_ktime(1),
		      HRTIMER_MODE_REL_PINNED_SOFT);
}

/* --- the si_hrtimer pool --- */

struct tt_hr {
	struct si_hrtimer t;
	struct mutex owner;		/* one operation at a time */
	spinlock_t restart_lock;	/* a start against the callback's forward */
	atomic_t running;
	bool quiet;			/* cancelled: nothing until the next start */
	int restarts;
	bool outstanding;		/* armings since none was pending ... */
	ktime_t min_soft;		/* ... their earliest soft expiry (restart_lock) */
};

static void tt_hr_armed(struct tt_hr *h)
{
	ktime_t soft = hrtimer_get_softexpires(&h->t.hw);

	if (!h->outstanding || ktime_before(soft, h->min_soft))
		h->min_soft = soft;
	h->outstanding = true;
}

static struct tt_hr *tt_hrs;
static struct task_struct **tt_hr_tasks;
static int tt_hr_nthreads;
static atomic_long_t tt_hr_runs, tt_hr_busy;

static enum hrtimer_restart tt_hr_fn(struct si_hrtimer *t)
{
	struct tt_hr *h = container_of(t, struct tt_hr, t);
	bool hrmasked = t->base.flags & SI_TIMER_MASK_HRTIMER;
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	ktime_t now;
	bool soft;
	int cpu;

	if (atomic_inc_return(&h->running) != 1)
		tt_violation(V_SELF, "si_hrtimer %ld runs on two CPUs at once",
			     (long)(h - tt_hrs));
	soft = tt_check_context(&t->base);
	cpu = tt_cb_enter(!soft);
	tt_si_cb_enter(cpu, soft, hrmasked);
	if (READ_ONCE(h->quiet))
		tt_violation(V_AFTER_SYNC, "si_hrtimer %ld ran after a cancel returned",
			     (long)(h - tt_hrs));
	atomic_long_inc(&tt_hr_runs);
	tt_busy(get_random_u32_below(cb_max_us / 4 + 1));

	spin_lock_bh(&h->restart_lock);
	now = si_hrtimer_cb_get_time(t);
	if (!h->outstanding)
		tt_violation(V_DOUBLE, "si_hrtimer %ld ran with no arming made since it last ran",
			     (long)(h - tt_hrs));
	else if (ktime_before(now, h->min_soft))
		tt_violation(V_EARLY, "si_hrtimer %ld ran %lld ns early", (long)(h - tt_hrs),
			     ktime_to_ns(ktime_sub(h->min_soft, now)));
	if (!si_hrtimer_is_queued(t))
		h->outstanding = false;
	if (h->restarts > 0 && !si_hrtimer_is_queued(t)) {
		h->restarts--;
		si_hrtimer_forward_now(t, ns_to_ktime((50 + get_random_u32_below(500)) *
						     NSEC_PER_USEC));
		tt_hr_armed(h);
		ret = HRTIMER_RESTART;
	}
	spin_unlock_bh(&h->restart_lock);
	tt_si_cb_exit(cpu, soft, hrmasked);
	tt_cb_exit(cpu, !soft);
	atomic_dec(&h->running);
	return ret;
}

static void tt_hr_op(struct tt_hr *h)
{
	u32 r = get_random_u32_below(8);
	int ret;

	mutex_lock(&h->owner);
	switch (r) {
	case 0 ... 3:
		spin_lock_bh(&h->restart_lock);
		h->restarts = r == 0 ? get_random_u32_below(8) : 0;
		WRITE_ONCE(h->quiet, false);
		si_hrtimer_start_range_ns(&h->t,
					  ns_to_ktime(get_random_u32_below(2000) * NSEC_PER_USEC),
					  r == 1 ? 100 * NSEC_PER_USEC : 0,
					  r == 2 ? HRTIMER_MODE_REL_PINNED : HRTIMER_MODE_REL);
		tt_hr_armed(h);
		spin_unlock_bh(&h->restart_lock);
		atomic_long_inc(&tt_opcount[OP_HR_START]);
		break;
	case 4 ... 5:
		ret = si_hrtimer_try_to_cancel(&h->t);
		if (ret < -1 || ret > 1)
			tt_violation(V_RETVAL, "si_hrtimer_try_to_cancel returned %d", ret);
		if (ret < 0)
			atomic_long_inc(&tt_hr_busy);
		atomic_long_inc(&tt_opcount[OP_HR_TRY_CANCEL]);
		break;
	default:
		ret = si_hrtimer_cancel(&h->t);
		if (ret < 0 || ret > 1)
			tt_violation(V_RETVAL, "si_hrtimer_cancel returned %d", ret);
		WRITE_ONCE(h->quiet, true);
		if (atomic_read(&h->running) || si_hrtimer_active(&h->t))
			tt_violation(V_AFTER_SYNC,
				     "si_hrtimer %ld active after its cancel returned",
				     (long)(h - tt_hrs));
		atomic_long_inc(&tt_opcount[OP_HR_CANCEL]);
		break;
	}
	mutex_unlock(&h->owner);
}

static int tt_hr_thread_fn(void *unused)
{
	while (!READ_ONCE(tt_stop) && !kthread_should_stop()) {
		tt_hr_op(&tt_hrs[get_random_u32_below(TT_HR_SLOTS)]);
		if (!get_random_u32_below(8))
			usleep_range(50, 500);
		else
			cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int tt_hr_init(void)
{
	static const clockid_t clocks[] = {
		CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME, CLOCK_TAI,
	};
	static const unsigned int modes[] = {
		0, SI_TIMER_SOFTINTERRUPTIBLE,
		SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_MASK_HRTIMER,
	};
	int cpu, i;

	tt_in_softhr = kcalloc(nr_cpu_ids, sizeof(*tt_in_softhr), GFP_KERNEL);
	tt_in_soft = kcalloc(nr_cpu_ids, sizeof(*tt_in_soft), GFP_KERNEL);
	tt_in_hrmasked = kcalloc(nr_cpu_ids, sizeof(*tt_in_hrmasked), GFP_KERNEL);
	tt_softhr = kcalloc(nr_cpu_ids, sizeof(*tt_softhr), GFP_KERNEL);
	tt_hrs = kcalloc(TT_HR_SLOTS, sizeof(*tt_hrs), GFP_KERNEL);
	tt_hr_tasks = kcalloc(nr_cpu_ids, sizeof(*tt_hr_tasks), GFP_KERNEL);
	if (!tt_in_softhr || !tt_in_soft || !tt_in_hrmasked || !tt_softhr || !tt_hrs ||
	    !tt_hr_tasks)
		return -ENOMEM;
	for (i = 0; i < TT_HR_SLOTS; i++) {
		mutex_init(&tt_hrs[i].owner);
		spin_lock_init(&tt_hrs[i].restart_lock);
		si_hrtimer_setup(&tt_hrs[i].t, tt_hr_fn, clocks[i % ARRAY_SIZE(clocks)],
				 HRTIMER_MODE_REL, modes[i % ARRAY_SIZE(modes)]);
	}
	for_each_possible_cpu(cpu)
		hrtimer_setup(&tt_softhr[cpu], tt_softhr_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_SOFT);
	tt_softhr_ready = true;
	cpus_read_lock();
	for_each_online_cpu(cpu)
		smp_call_function_single(cpu, tt_softhr_start_here, NULL, 1);
	cpus_read_unlock();
	for (i = 0; i < num_online_cpus(); i++) {
		tt_hr_tasks[i] = kthread_run(tt_hr_thread_fn, NULL, "si_tt_hr/%d", i);
		if (IS_ERR(tt_hr_tasks[i]))
			break;
		tt_hr_nthreads++;
	}
	return 0;
}

/* After tt_stop is set. Partial set-ups (an -ENOMEM) too. */
static void tt_hr_exit(void)
{
	int cpu, i;

	for (i = 0; i < tt_hr_nthreads; i++)
		kthread_stop(tt_hr_tasks[i]);
	tt_hr_nthreads = 0;
	if (tt_hrs)
		for (i = 0; i < TT_HR_SLOTS; i++)
			if (tt_hrs[i].t.base.function)
				si_hrtimer_cancel(&tt_hrs[i].t);
	if (tt_softhr_ready)
		for_each_possible_cpu(cpu)
			hrtimer_cancel(&tt_softhr[cpu]);
	tt_softhr_ready = false;
	kfree(tt_hr_tasks);
	kfree(tt_hrs);
	kfree(tt_softhr);
	kfree(tt_in_hrmasked);
	kfree(tt_in_soft);
	kfree(tt_in_softhr);
	tt_hr_tasks = NULL;
	tt_hrs = NULL;
	tt_softhr = NULL;
	tt_in_hrmasked = NULL;
	tt_in_soft = NULL;
	tt_in_softhr = NULL;
}

#endif /* _SI_TORTURE_HR_H */
