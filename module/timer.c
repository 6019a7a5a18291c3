// SPDX-License-Identifier: GPL-2.0
/*
 * The life of an si_timer, and the timer_list-compatible API over it.
 *
 * An armed si_timer waits in the wheel of its "home" executor (wheel.h)
 * until it is due, then on that executor's queue until its thread runs
 * the callback (executor.c). The kernel's timer wheel is not used: its expiry runs in
 * the TIMER softirq, behind every other bottom half of the CPU (on
 * PREEMPT_RT behind the BH lock), which soft-interruptible timers exist to
 * get away from, and handing each expired timer over from there to an
 * executor cost a second lock on every arm, cancel and expiry.
 *
 * One lock. As kernel/time/timer.c keeps a timer_list's state under the
 * lock of the base that timer->flags names, an si_timer's whole state is
 * under the lock of the executor that timer->state names, its home:
 *
 *   SI_STATE_ARMED     in home's wheel: in the bucket the state names, or
 *                      collected from it onto an expired list (wheel.h)
 *   SI_STATE_QUEUED    due, on home's queue, its callback not started
 *   SI_STATE_HRARMED   an si_hrtimer's HARD hrtimer armed, on home's
 *                      hr_armed list (module/hrtimer.c): its wheel
 *   home->running      the timer whose callback home's executor runs
 *   SI_STATE_SHUTDOWN  arming calls are no-ops until set up again
 *
 *   idle --arm--> ARMED --collected when due--> QUEUED --executor--> running
 *                   |                                                 ^
 *                   +------------- taken when due (expiry.c) ---------+
 *
 * ARMED and QUEUED exclude each other; either is "pending": re-arming or
 * cancelling takes the timer back to ARMED or idle and returns 1, exactly
 * as for a timer_list still in the wheel. A running timer may be pending
 * again (re-armed), even queued behind itself.
 *
 * Invariants that every call below relies on:
 * 1. Only code holding home's lock changes the state, or puts the timer in
 *    a wheel or a queue or takes it out. Each API call does its work in one
 *    such critical section (two for a change of home, see 3), so calls are
 *    atomic with respect to each other and to expiry, as their timer_list
 *    twins are under the base lock. The exception is theirs too: a delete
 *    that reads the timer idle returns 0 without the lock, ordered before
 *    any arming that races with it.
 * 2. Expiry is one step under home's lock (expiry.c): the wake-up of
 *    home's wheel (a HARD hrtimer, wheel.h) moves a due timer from the
 *    wheel to the queue, or, when it left many, the executor takes one
 *    from the wheel to run it. No timer is ever between two places.
 * 3. Arming puts the timer in the wheel of the arming CPU's executor (of
 *    the given CPU for si_add_timer_on()), as mod_timer() moves a timer to
 *    the local base. When that changes its home, the timer is taken off the
 *    old home under its lock, SI_STATE_MIGRATING while no lock is held,
 *    which every caller waits out (as for TIMER_MIGRATING) and lockless
 *    readers count as pending (as timer_pending() stays true for a
 *    timer_list migrating), and armed under the new home's lock.
 * 4. A running timer keeps its home: re-armed, wherever from, it waits in
 *    the same executor's wheel, so it never runs on two CPUs at once and a
 *    canceller finds it running where it looks (timer_list keeps a running
 *    timer on its base for the same reasons). The other change of home: a
 *    CPU going down moves its wheels and queues to a live executor (both
 *    locked).
 * 5. Nothing touches a timer after its callback returned: the executor
 *    clears home->running, its own memory, and holds a copy of the lockdep
 *    map (callbacks may free their timer, as call_timer_fn() allows). It
 *    clears it as the callback returns, without the lock (a release that
 *    cancellers read with an acquire): set under the lock, it names a
 *    callback that may run, never one that returned.
 *
 * Unload safety (unload.c): every pending timer is in a wheel, on a
 * queue or (HRARMED) on the hr_armed list of its home, and on its owner's
 * list of that home; a running one is home->running; so that the timers of
 * a module that goes can be found and cancelled without a look at the
 * others. Each arming call records its caller for the report.
 *
 * Synchronous cancel: under the lock, disarm and look at home->running. If
 * the callback runs, wait for it on home's cb_lock (held by the executor
 * across a batch, which a waiter ends) and start over, so that a callback
 * that re-armed itself is disarmed again after it returned. Where that wait
 * could never end, the call refuses instead (si_wait_refused()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/hardirq.h>
#include <linux/interrupt.h>
#include <linux/sched.h>
#include "si_timer_internal.h"
#include "debugobjects.h"
#include "si_trace.h"
#include "home.h"

/*
 * Arm at @expires, for the caller at @ip, in home's wheel; @state not
 * pending. Due one jiffy after @expires, as the kernel's wheel rounds up
 * (a timer armed late in a jiffy must not fire early): si_timer_due().
 */
static __always_inline void si_hook(struct si_executor *home, struct si_timer *timer,
				    u32 state, unsigned long expires, unsigned long ip)
{
	si_debug_activate(timer);
	timer->expires = expires;
	timer->armed_at = ip;
	si_wheel_hook(home, timer, state, expires);
	trace_si_timer_start(timer, home->cpu);
}

/*
 * Arming a timer whose home is not the executor it must wait on (invariant
 * 3). @home locked; returns the executor locked now, the timer's home.
 */
static __always_inline struct si_executor *__si_arm_moving(struct si_executor *home,
							   struct si_timer *timer,
							   unsigned int cpu,
							   unsigned long expires,
							   unsigned long ip)
{
	struct si_executor *to;
	u32 state;

	to = si_move_for_arming(home, timer, cpu, &state);
	si_hook(to, timer, state, expires, ip);
	return to;
}

/* Out of line for si_mod_timer() and co, where a change of home is rare. */
static noinline struct si_executor *si_arm_moving(struct si_executor *home,
						  struct si_timer *timer, unsigned int cpu,
						  unsigned long expires, unsigned long ip)
{
	return __si_arm_moving(home, timer, cpu, expires, ip);
}

/*
 * Re-arming an armed timer into the bucket it is in (timer.c's shortcut
 * for the same index): only its expiry changes, and the bucket's due
 * jiffy with it does not. Not for one collected from its bucket onto an
 * expired list: that one's due jiffy is before the clock. Home locked.
 */
static __always_inline bool si_rearm_in_place(struct si_executor *home, struct si_timer *timer,
					      u32 state, unsigned long expires, unsigned long ip)
{
	struct si_wheel *w = &home->wheel[si_wheel_kind_of(timer)];
	unsigned long bucket_due;

	si_wheel_forward(w, jiffies);
	if (time_before(timer->due, w->clk) ||
	    si_wheel_bucket_of(w, expires, &bucket_due) !=
	    (state & SI_STATE_BUCKET) >> SI_STATE_BUCKET_SHIFT)
		return false;
	timer->expires = expires;
	timer->due = si_timer_due(expires);
	timer->armed_at = ip;
	trace_si_timer_start(timer, home->cpu);
	return true;
}

/*
 * Arm @timer at @expires on the executor of @cpu, for the caller at @ip,
 * superseding whatever expiry it had. @*home locked, and on return the
 * timer's home, locked. Returns 1 if the timer was pending. @move_inline:
 * a change of home inline (si_add_timer_on(), whose usual case it is).
 */
static __always_inline int si_arm(struct si_executor **home, struct si_timer *timer,
				  unsigned int cpu, unsigned long expires, unsigned long ip,
				  bool move_inline)
{
	struct si_executor *e = *home;
	u32 state = timer->state;

	if (state & SI_STATE_SHUTDOWN)
		return 0;
	if (likely((e->cpu == cpu && !e->parked) || READ_ONCE(e->running) == timer)) {
		if (!(state & SI_STATE_PENDING)) {
			/* idle: nothing to undo (an idle state names no bucket) */
			si_owner_add(e, timer);
			si_hook(e, timer, state, expires, ip);
			return 0;
		}
		if ((state & SI_STATE_ARMED) && si_rearm_in_place(e, timer, state, expires, ip))
			return 1;
		si_hook(e, timer, si_unhook(e, timer, state), expires, ip);
		return 1;
	}
	if (move_inline)
		*home = __si_arm_moving(e, timer, cpu, expires, ip);
	else
		*home = si_arm_moving(e, timer, cpu, expires, ip);
	return !!(state & SI_STATE_PENDING);
}

/*
 * The module that owns @timer goes with it pending (unload.c): cancel it
 * and keep it off. Home locked.
 */
void si_timer_evict(struct si_executor *home, struct si_timer *timer)
{
	si_disarm(home, timer);
	si_state_set(timer, timer->state | SI_STATE_SHUTDOWN);
}

/* @flags, its unknown bits refused with a warning (they are ours, too). */
static unsigned int si_timer_flags_checked(unsigned int flags, si_timer_func_t func)
{
	WARN_ONCE(flags & ~SI_TIMER_FLAGS_VALID,
		  "si_timer: invalid flags %#x for %ps ignored\n",
		  flags & ~SI_TIMER_FLAGS_VALID, func);
	return flags & SI_TIMER_FLAGS_VALID;
}

/* @flags checked; an si_hrtimer's base (SI_TIMER_HR) has its function set. */
void si_timer_prepare(struct si_timer *timer, si_timer_func_t func, unsigned int flags,
		      const char *name, struct lock_class_key *key, bool on_stack,
		      unsigned long caller)
{
	si_debug_init(timer, on_stack);
	timer->function = func;
	timer->flags = flags;
	timer->state = raw_smp_processor_id();
	INIT_HLIST_NODE(&timer->node);
	timer->owner = si_owner_of(timer, caller);
	lockdep_init_map(&timer->lockdep_map, name, key, 0);
	trace_si_timer_init(timer);
}

void si_init_timer_key(struct si_timer *timer, si_timer_func_t func,
		       unsigned int flags, const char *name,
		       struct lock_class_key *key)
{
	si_timer_prepare(timer, func, si_timer_flags_checked(flags, func), name, key, false,
			 _RET_IP_);
}
EXPORT_SYMBOL_GPL(si_init_timer_key);

void si_init_timer_on_stack_key(struct si_timer *timer, si_timer_func_t func,
				unsigned int flags, const char *name,
				struct lock_class_key *key)
{
	si_timer_prepare(timer, func, si_timer_flags_checked(flags, func), name, key, true,
			 _RET_IP_);
}
EXPORT_SYMBOL_GPL(si_init_timer_on_stack_key);

/*
 * The end of an on-stack timer's life, which must not be pending (with
 * debugobjects, one that is gets reported and cancelled).
 */
void si_destroy_timer_on_stack(struct si_timer *timer)
{
	WARN_ONCE(si_timer_pending(timer), "si_timer: on-stack timer %ps destroyed pending\n",
		  si_callback_of(timer));
	si_debug_free(timer);
}
EXPORT_SYMBOL_GPL(si_destroy_timer_on_stack);

/**
 * si_timer_pending - is the timer armed, or expired with its callback not started?
 * @timer: the timer
 *
 * Return: 1 if pending, 0 if not (unserialised, as timer_pending()); 0 with
 * a warning on a NULL timer.
 */
int si_timer_pending(const struct si_timer *timer)
{
	if (__si_timer_null_query(timer))
		return 0;
	/* A re-arm moving it between homes: pending before and after. */
	return !!(READ_ONCE(timer->state) & (SI_STATE_PENDING | SI_STATE_MIGRATING));
}
EXPORT_SYMBOL_GPL(si_timer_pending);

/**
 * si_mod_timer - modify a timer's timeout, arming it if needed
 * @timer: the timer
 * @expires: new expiry in jiffies
 *
 * As mod_timer(). A timer shut down by si_timer_shutdown*() stays off.
 *
 * Return: 0 if the timer was inactive, 1 if it was pending, -EINVAL on a
 * NULL or never set up timer.
 */
int si_mod_timer(struct si_timer *timer, unsigned long expires)
{
	struct si_executor *home;
	unsigned long flags;
	int ret;

	if (si_timer_misused(timer))
		return -EINVAL;
	/* mod_timer()'s shortcut, as racy as theirs. */
	if ((READ_ONCE(timer->state) & SI_STATE_ARMED) && READ_ONCE(timer->expires) == expires)
		return 1;
	home = si_lock_home(timer, &flags);
	ret = si_arm(&home, timer, raw_smp_processor_id(), expires, _RET_IP_, false);
	si_unlock_home(home, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(si_mod_timer);

/**
 * si_mod_timer_pending - modify the timeout of a pending timer only
 * @timer: the timer
 * @expires: new expiry in jiffies
 *
 * Return: as mod_timer_pending(); -EINVAL on misuse.
 */
int si_mod_timer_pending(struct si_timer *timer, unsigned long expires)
{
	struct si_executor *home;
	unsigned long flags;
	int ret = 0;

	if (si_timer_misused(timer))
		return -EINVAL;
	home = si_lock_home(timer, &flags);
	if (timer->state & SI_STATE_PENDING)
		ret = si_arm(&home, timer, raw_smp_processor_id(), expires, _RET_IP_, false);
	si_unlock_home(home, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(si_mod_timer_pending);

/**
 * si_timer_reduce - modify a timer's timeout if that makes it earlier
 * @timer: the timer
 * @expires: new expiry in jiffies
 *
 * A timer that has expired and whose callback has not started is due
 * already: it is left as it is.
 *
 * Return: as timer_reduce(); -EINVAL on misuse.
 */
int si_timer_reduce(struct si_timer *timer, unsigned long expires)
{
	struct si_executor *home;
	unsigned long flags;
	int ret = 1;

	if (si_timer_misused(timer))
		return -EINVAL;
	home = si_lock_home(timer, &flags);
	if (timer->state & SI_STATE_ARMED) {
		if (time_before(si_timer_due(expires), timer->due))
			si_arm(&home, timer, raw_smp_processor_id(), expires, _RET_IP_, false);
	} else if (!(timer->state & SI_STATE_QUEUED)) {
		ret = si_arm(&home, timer, raw_smp_processor_id(), expires, _RET_IP_, false);
	}
	si_unlock_home(home, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(si_timer_reduce);

/*
 * si_add_timer() and si_add_timer_on(): arm an inactive timer on @cpu, or
 * locally if < 0, for the caller at @ip.
 */
static __always_inline bool si_add(struct si_timer *timer, int cpu, unsigned long ip)
{
	struct si_executor *home;
	unsigned long flags;
	u32 state;

	home = si_lock_home(timer, &flags);
	state = timer->state;
	if (!(state & (SI_STATE_PENDING | SI_STATE_SHUTDOWN)))
		si_arm(&home, timer, cpu < 0 ? raw_smp_processor_id() : cpu,
		       timer->expires, ip, cpu >= 0);
	si_unlock_home(home, flags);
	return !(state & SI_STATE_PENDING);
}

/**
 * si_add_timer - arm an inactive timer at @timer->expires
 * @timer: the timer, with expires set
 *
 * Arming a pending timer is a bug: warned about once and ignored.
 */
void si_add_timer(struct si_timer *timer)
{
	if (si_timer_misused(timer))
		return;
	WARN_ONCE(!si_add(timer, -1, _RET_IP_), "si_timer: %s() on pending timer %ps\n",
		  __func__, timer->function);
}
EXPORT_SYMBOL_GPL(si_add_timer);

/**
 * si_add_timer_on - arm an inactive timer on a given CPU
 * @timer: the timer, with expires set
 * @cpu: the CPU whose executor runs its callback, unless that callback is
 *	 running now: then it stays where that one runs, so that it never runs
 *	 on two CPUs at once
 *
 * As add_timer_on(), @cpu need not be online: its executor takes timers
 * from the CPU's prepare step on (executor.c), so a driver's
 * CPUHP_BP_PREPARE_DYN callback may arm a timer on the CPU coming up; it
 * runs there once the executor thread does. On a CPU that is neither
 * online nor being brought up, the timer goes to a live executor, as do
 * the timers of a CPU going down, where add_timer_on() would leave it on
 * the dead CPU until that returns. A CPU that is not possible is refused
 * with a warning.
 */
void si_add_timer_on(struct si_timer *timer, int cpu)
{
	if (si_timer_misused(timer))
		return;
	if (WARN_ONCE(cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu),
		      "si_timer: %s() for %ps on CPU %d, not a possible CPU\n",
		      __func__, timer->function, cpu))
		return;
	WARN_ONCE(!si_add(timer, cpu, _RET_IP_), "si_timer: %s() on pending timer %ps\n",
		  __func__, timer->function);
}
EXPORT_SYMBOL_GPL(si_add_timer_on);

/* si_timer_delete() and si_timer_shutdown(). */
static __always_inline int si_delete(struct si_timer *timer, bool shutdown)
{
	struct si_executor *home;
	unsigned long flags;
	int ret;

	home = si_lock_home(timer, &flags);
	ret = si_disarm(home, timer);
	if (shutdown)
		si_state_set(timer, timer->state | SI_STATE_SHUTDOWN);
	si_unlock_home(home, flags);
	return ret;
}

/**
 * si_timer_delete - deactivate a timer
 * @timer: the timer
 *
 * A callback already running is not waited for (see si_timer_delete_sync()).
 *
 * Return: 1 if the timer was pending, 0 if not, -EINVAL on misuse.
 */
int si_timer_delete(struct si_timer *timer)
{
	if (si_timer_misused(timer))
		return -EINVAL;
	/*
	 * Idle: nothing to undo, no lock needed (as timer_delete()). Moving
	 * between homes counts as pending, as timer_pending() stays true while
	 * a timer_list migrates: the move's re-arm returns 1.
	 */
	if (!(READ_ONCE(timer->state) & (SI_STATE_PENDING | SI_STATE_MIGRATING)))
		return 0;
	return si_delete(timer, false);
}
EXPORT_SYMBOL_GPL(si_timer_delete);

/**
 * si_timer_shutdown - deactivate a timer and keep it off
 * @timer: the timer
 *
 * Later arming calls are silent no-ops until si_timer_setup() again.
 *
 * Return: 1 if the timer was pending, 0 if not, -EINVAL on misuse.
 */
int si_timer_shutdown(struct si_timer *timer)
{
	if (si_timer_misused(timer))
		return -EINVAL;
	return si_delete(timer, true);
}
EXPORT_SYMBOL_GPL(si_timer_shutdown);

/**
 * si_try_to_del_timer_sync - deactivate a timer unless its callback runs
 * @timer: the timer
 *
 * Return: -1 if the callback is running (the timer is left alone), else as
 * si_timer_delete().
 */
int si_try_to_del_timer_sync(struct si_timer *timer)
{
	struct si_executor *home;
	unsigned long flags;
	int ret = -1;

	if (si_timer_misused(timer))
		return -EINVAL;
	home = si_lock_home(timer, &flags);
	/* acquire: cleared without the lock once the callback returned */
	if (smp_load_acquire(&home->running) != timer)
		ret = si_disarm(home, timer);
	trace_si_timer_cancel_sync(timer, ret < 0);
	si_unlock_home(home, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(si_try_to_del_timer_sync);

/*
 * A synchronous cancel from the callback itself (-EINVAL), or from a
 * softirq that runs inside it on its executor (-EDEADLK: non-RT irq exit,
 * or local_bh_enable() in the callback), would wait for itself.
 */
static int si_cancel_from_own_callback(struct si_timer *timer)
{
	struct si_executor *e = si_executor_current();

	if (!e || READ_ONCE(e->running) != timer)
		return 0;
	return e->running_soft && in_serving_softirq() ? -EDEADLK : -EINVAL;
}

/*
 * Home locked, its executor running @timer's callback: may we wait for it?
 * On PREEMPT_RT a caller that holds this CPU's BH lock would wait for a
 * soft-interruptible callback that may need that lock (any BH section).
 * Without the BH lock (6.18+, PREEMPT_RT_NEEDS_BH_LOCK off) a callback's
 * BH section never waits, and the wait is as safe as timer_delete_sync()'s.
 */
static int si_wait_refused(struct si_executor *home)
{
	if (SI_RT_BH_LOCK && softirq_count() &&
	    home->cpu == smp_processor_id())
		return -EDEADLK;
	return 0;
}

/*
 * Waits that hold up a callback, and the cycles they could close.
 *
 * A timer_list callback never waits for anything a softirq of its CPU
 * does: the softirq cannot start inside it. A soft-interruptible callback
 * can be held up by a softirq that runs inside it, and on PREEMPT_RT with
 * the BH lock by whoever holds its CPU's BH lock. So a synchronous cancel
 * made there, from a tasklet say, that waits for a callback on another
 * executor which is itself waiting, directly or along a chain, for the
 * callback it interrupted, would wait forever where timer_list's would
 * return. Every such wait is published in the slot of the executor whose
 * callback it holds up (enum si_wait_slot), then the chain of waits from
 * the callback to be waited for is followed: if it comes back, the wait
 * would close a cycle and is refused. Both sides publish before they look
 * (a full barrier between), so of two waits closing one cycle at least one
 * sees the other. An edge is only followed while the callback it waits for
 * still runs where it waits, so a wait that has ended but not yet been
 * unpublished is not taken for one in progress.
 */
#define SI_WAIT_CHAIN_MAX	8	/* executors a chain is followed through */

/* The slot our wait would be published in, and its executor; NULL if none. */
static struct si_wait *si_wait_slot(struct si_executor **held_up)
{
	struct si_executor *e = si_executor_current();

	if (e) {
		*held_up = e;
		return &e->waits[SI_WAIT_THREAD];
	}
	/* RT's local_bh_disable() keeps us on this CPU */
	if (SI_RT_BH_LOCK && softirq_count()) {
		e = si_executor_of(raw_smp_processor_id());
		*held_up = e;
		return &e->waits[SI_WAIT_BH_HOLDER];
	}
	return NULL;
}

/* Do the waits published from @x, whose callback is waited for, lead to @to? */
static bool si_waits_lead_to(const struct si_executor *x, const struct si_executor *to,
			     unsigned int depth)
{
	int s;

	if (x == to)
		return true;
	if (!depth--)
		return false;
	for (s = 0; s < SI_NR_WAIT_SLOTS; s++) {
		const struct si_executor *next = READ_ONCE(x->waits[s].on);

		/* the BH lock's holder holds up a soft-interruptible callback only */
		if (s == SI_WAIT_BH_HOLDER && !READ_ONCE(x->running_soft))
			continue;
		if (next && READ_ONCE(next->running) == READ_ONCE(x->waits[s].timer) &&
		    si_waits_lead_to(next, to, depth))
			return true;
	}
	return false;
}

/*
 * About to wait for @timer's callback on @home: publish the wait in @slot
 * (of @held_up) and return 0, or -EDEADLK, unpublished, if it would close
 * a cycle.
 */
static int si_wait_publish(struct si_wait *slot, struct si_executor *held_up,
			   struct si_executor *home, const struct si_timer *timer)
{
	WRITE_ONCE(slot->timer, timer);
	WRITE_ONCE(slot->on, home);
	smp_mb();	/* publish, then look: pairs with the other side's */
	if (!si_waits_lead_to(home, held_up, SI_WAIT_CHAIN_MAX))
		return 0;
	WRITE_ONCE(slot->on, NULL);
	return -EDEADLK;
}

/*
 * Tell lockdep that we wait for the callback, as timer_delete_sync() does,
 * so that a lock held here and taken by the callback is reported: also
 * with bottom halves disabled on RT, where a soft-interruptible callback
 * that enters a BH section on its CPU waits for that CPU's BH lock, whose
 * holder may want a lock held here or be cancelling such a timer on our
 * CPU in turn (lockdep's one class for all CPUs' BH locks is right there).
 *
 * A soft-interruptible callback holds its map with softirqs enabled, so a
 * cancel from a softirq must not record the map as taken in softirq: the
 * only softirq that could wait for the callback it interrupted is refused
 * (-EDEADLK, si_cancel_from_own_callback()), and lockdep would report the
 * legal cancel from another CPU's tasklet as an inconsistent usage, then
 * switch itself off. The dependencies on the locks held here are still
 * recorded, and one taken in softirq is still checked against the callback
 * holding the map with softirqs on (a softirq on the callback's CPU may
 * want it). A no-op on RT, where lockdep does not track softirq context.
 */
static void si_lockdep_cancel_waits(struct si_timer *timer)
{
	bool hide_softirq = (timer->flags & SI_TIMER_SOFTINTERRUPTIBLE) &&
			    lockdep_softirq_context(current);
	unsigned long flags;

	/* irqs off: record no "enabled" irq usage, as timer_delete_sync() */
	local_irq_save(flags);
	if (hide_softirq)
		lockdep_softirq_exit();
	lock_acquire_exclusive(&timer->lockdep_map, si_lockdep_subclass(timer), 0, NULL,
			       _THIS_IP_);
	lock_map_release(&timer->lockdep_map);
	if (hide_softirq)
		lockdep_softirq_enter();
	local_irq_restore(flags);
}

/*
 * si_timer_delete_sync(), si_timer_shutdown_sync() and si_hrtimer_cancel():
 * an si_hrtimer's cancel also waits out its HARD hrtimer's handler, which
 * may still look at it (hrtimer.c), as hrtimer_cancel() would.
 */
int si_timer_cancel_sync(struct si_timer *timer, bool shutdown)
{
	struct si_executor *home, *held_up = NULL;
	bool running, looked = false, hw_running;
	int ret = 0, own, refused;
	struct si_wait *slot;
	unsigned long flags;

	if (WARN_ONCE(in_hardirq(),
		      "si_timer: synchronous delete of %ps from hard interrupt context\n",
		      si_callback_of(timer)))
		return -EINVAL;
	own = si_cancel_from_own_callback(timer);
	if (WARN_ONCE(own == -EINVAL,
		      "si_timer: synchronous delete of %ps from its own callback\n",
		      si_callback_of(timer)))
		return -EINVAL;
	if (!own)
		si_lockdep_cancel_waits(timer);

	for (;;) {
		home = si_lock_home(timer, &flags);
		ret |= si_disarm(home, timer);
		if (shutdown)
			si_state_set(timer, timer->state | SI_STATE_SHUTDOWN);
		/* acquire: cleared without the lock once the callback returned */
		running = smp_load_acquire(&home->running) == timer;
		/* One event per call: whether it had to wait at all. */
		if (!looked)
			trace_si_timer_cancel_sync(timer, running);
		looked = true;
		refused = 0;
		if (running)
			refused = own ?: si_wait_refused(home);
		hw_running = !running && unlikely(timer->flags & SI_TIMER_HR) &&
			     !si_hrtimer_hw_cancel(timer);
		si_unlock_home(home, flags);
		/*
		 * An si_hrtimer's HARD hrtimer handler in flight, on another CPU
		 * waiting for home's lock: wait it out, and take its hrtimer off
		 * again (hrtimer.c).
		 */
		if (hw_running) {
			cpu_relax();
			continue;
		}

		if (refused == own && own)
			WARN_ONCE(1, "si_timer: synchronous delete of %ps from a softirq that interrupted its callback: deactivated, not waited for\n",
				  si_callback_of(timer));
		else if (refused)
			WARN_ONCE(1, "si_timer: synchronous delete of %ps with bottom halves disabled on the CPU where its soft-interruptible callback runs: deactivated, not waited for\n",
				  si_callback_of(timer));
		if (refused)
			return refused;
		if (!running)
			return ret;
		slot = si_wait_slot(&held_up);
		refused = slot ? si_wait_publish(slot, held_up, home, timer) : 0;
		trace_si_timer_cancel_wait(timer, slot ? held_up->cpu : -1, refused);
		if (refused) {
			WARN_ONCE(1, "si_timer: synchronous delete of %ps from CPU %u would wait for a callback that waits for %ps, the callback it holds up: deactivated, not waited for\n",
				  si_callback_of(timer), held_up->cpu,
				  READ_ONCE(held_up->running) ? held_up->running_cb : NULL);
			return refused;
		}
		si_executor_wait_callback(home);
		if (slot)
			WRITE_ONCE(slot->on, NULL);
	}
}

/**
 * si_timer_delete_sync - deactivate a timer and wait for its callback
 * @timer: the timer
 *
 * On return the callback is neither pending nor running anywhere, unless
 * someone else than the callback re-armed it meanwhile; a callback that
 * re-arms itself is deactivated again once it returned. Must not be called
 * from hard interrupt context nor from the timer's own callback, nor while
 * holding a lock the callback takes (lockdep reports that). May sleep on
 * PREEMPT_RT.
 *
 * Where waiting could never end, the timer is deactivated as by
 * si_timer_delete(), its running callback is not waited for, and -EDEADLK
 * is returned with a warning: from a softirq that runs inside the running
 * soft-interruptible callback (on its executor); on PREEMPT_RT, with
 * bottom halves disabled on the CPU where that callback runs; and when the
 * callback waited for waits, directly or along a chain of such waits, for
 * the callback this call holds up (the caller is a callback, a softirq run
 * inside one, or on RT the holder of that callback's CPU's BH lock).
 *
 * Return: 1 if the timer was pending, 0 if not, -EINVAL on misuse,
 * -EDEADLK as above.
 */
int si_timer_delete_sync(struct si_timer *timer)
{
	if (si_timer_misused(timer))
		return -EINVAL;
	return si_timer_cancel_sync(timer, false);
}
EXPORT_SYMBOL_GPL(si_timer_delete_sync);

/**
 * si_timer_shutdown_sync - si_timer_shutdown() and wait for the callback
 * @timer: the timer
 *
 * Return: as si_timer_delete_sync().
 */
int si_timer_shutdown_sync(struct si_timer *timer)
{
	if (si_timer_misused(timer))
		return -EINVAL;
	return si_timer_cancel_sync(timer, true);
}
EXPORT_SYMBOL_GPL(si_timer_shutdown_sync);
