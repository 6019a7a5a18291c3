// SPDX-License-Identifier: GPL-2.0
/*
 * The life of an si_timer, and the timer_list-compatible API over it.
 *
 * Each si_timer embeds a timer_list, the "wheel" timer, so that jiffies
 * granularity, NOHZ, deferrable and pinned timers and their migration come
 * from the kernel. Its expiry function, si_timer_wheel_fn(), does not call
 * the callback: it hands the timer over to a per-CPU executor thread
 * (executor.c), which runs it.
 *
 * One lock. As kernel/time/timer.c keeps a timer_list's state under the
 * lock of the base that timer->flags names, an si_timer's whole state is
 * under the lock of the executor that timer->state names, its "home":
 *
 *   SI_STATE_ARMED     the wheel timer is armed, or has just expired and
 *                      si_timer_wheel_fn() has not handed it over yet;
 *                      on home's armed list
 *   SI_STATE_QUEUED    on home's queue, its callback not started
 *   home->running      the timer whose callback home's executor runs
 *   SI_STATE_SHUTDOWN  arming calls are no-ops until set up again
 *
 *   idle --arm--> ARMED --expiry--> QUEUED --executor--> running --> idle
 *
 * ARMED and QUEUED exclude each other; either is "pending": re-arming or
 * cancelling takes the timer back to ARMED or idle and returns 1, exactly
 * as for a timer_list still in the wheel. A running timer may be pending
 * again (re-armed), even queued behind itself.
 *
 * Invariants that every call below relies on:
 * 1. Only code holding home's lock changes the state, arms or disarms the
 *    wheel timer, or puts the timer on a queue or takes it off. Each API
 *    call does its work in one such critical section, so calls are atomic
 *    with respect to each other and to expiry, as their timer_list twins
 *    are under the base lock. The exception is theirs too: a delete that
 *    reads the timer idle returns 0 without the lock, ordered before any
 *    arming that races with it (a handover in progress is still ARMED).
 * 2. The wheel timer is pending only while ARMED. The converse fails only
 *    for a handover: from the moment the wheel detaches the expired timer
 *    until si_timer_wheel_fn() has the lock.
 * 3. The wheel timer is TIMER_IRQSAFE: its expiry function runs with
 *    interrupts off, so a handover is never preempted and lasts
 *    microseconds. A synchronous cancel that finds one in progress
 *    (timer_delete_sync_try() < 0) drops the lock and spins; it never
 *    returns while the expiry function may still touch the timer.
 * 4. A handover decides under the lock whether it is still current: not
 *    ARMED (cancelled meanwhile) or the wheel timer pending again
 *    (re-armed meanwhile) means it was superseded, and it does nothing.
 * 5. A running timer keeps its home: if its callback re-armed it, its next
 *    expiry is queued behind it on the same executor, wherever it expired,
 *    so it never runs on two CPUs at once and a canceller finds it running
 *    where it looks (timer_list keeps a running timer on its base for the
 *    same reasons). Home changes only when the expiry of a timer that is
 *    not running is queued on another CPU's executor (SI_STATE_MIGRATING
 *    meanwhile, which others wait out, as for TIMER_MIGRATING), and when a
 *    CPU going down moves its queue (both executors locked).
 * 6. Nothing touches a timer after its callback returned: the executor
 *    clears home->running, its own memory, and holds a copy of the lockdep
 *    map (callbacks may free their timer, as call_timer_fn() allows).
 *
 * Unload safety (unload.c): every pending timer is on a list of its home,
 * the armed list or a queue, and a running one is home->running, so that
 * the timers of a module that goes can be found and cancelled. Keeping
 * the armed list costs arming and cancelling an hlist insertion or
 * removal under the lock they take anyway (no poisoning: the node is
 * rewritten before any further use), and each arming call records its
 * caller for the report.
 *
 * Synchronous cancel: under the lock, disarm and look at home->running. If
 * the callback runs, wait for it on home's cb_lock (held by the executor
 * across a batch, which a waiter ends) and start over, so that a callback that re-armed
 * itself is disarmed again after it returned. Where that wait could never
 * end, the call refuses instead (si_wait_refused()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/hardirq.h>
#include <linux/interrupt.h>
#include <linux/sched.h>
#include "si_timer_internal.h"
#include "si_trace.h"

/* A macro, so that every API entry point warns once on its own. */
#define si_timer_misused(timer)						\
	({								\
		const struct si_timer *__t = (timer);			\
		WARN_ONCE(!__t || !__t->function,			\
			  "si_timer: %s() on %s timer\n", __func__,	\
			  __t ? "a never set up" : "a NULL");		\
	})

/* Every wheel timer is in one lockdep class: its expiry only queues. */
static struct lock_class_key si_wheel_lock_key;

static void si_state_set(struct si_timer *timer, u32 state)
{
	/* Read locklessly by si_lock_home() and si_timer_pending(). */
	WRITE_ONCE(timer->state, state);
}

/*
 * Lock the timer's home executor, waiting out a migration. Inline, its
 * flags never in memory: every API call takes it, and B3 (bench/cost.c)
 * counts its instructions.
 */
static __always_inline struct si_executor *si_lock_home(struct si_timer *timer,
							unsigned long *flags)
	__acquires(home->lock)
{
	for (;;) {
		u32 state = READ_ONCE(timer->state);
		struct si_executor *home;

		if (likely(!(state & SI_STATE_MIGRATING))) {
			home = si_executor_of(state & SI_STATE_CPUMASK);
			raw_spin_lock_irqsave(&home->lock, *flags);
			if (likely((READ_ONCE(timer->state) &
				    (SI_STATE_CPUMASK | SI_STATE_MIGRATING)) ==
				   (state & SI_STATE_CPUMASK)))
				return home;
			raw_spin_unlock_irqrestore(&home->lock, *flags);
		}
		cpu_relax();
	}
}

static void si_unlock_home(struct si_executor *home, unsigned long flags)
	__releases(home->lock)
{
	raw_spin_unlock_irqrestore(&home->lock, flags);
}

/*
 * Arm the wheel timer at @expires, for the caller at @ip. An expiry queued
 * or being handed over is superseded, as mod_timer() supersedes a pending
 * one. @home locked. Returns 1 if the timer was pending.
 */
static __always_inline int si_arm(struct si_executor *home, struct si_timer *timer,
				  unsigned long expires, unsigned long ip)
{
	u32 state = timer->state;

	if (state & SI_STATE_SHUTDOWN)
		return 0;
	if (state & SI_STATE_QUEUED)
		list_del(&timer->entry);
	if (!(state & SI_STATE_ARMED))
		hlist_add_head(&timer->armed_node, &home->armed);
	timer->expires = expires;
	timer->armed_at = ip;
	mod_timer(&timer->wheel, expires);
	si_state_set(timer, (state & ~SI_STATE_QUEUED) | SI_STATE_ARMED);
	trace_si_timer_start(timer, timer->wheel.flags & TIMER_CPUMASK);
	return !!(state & SI_STATE_PENDING);
}

/*
 * Back to idle, off home's armed list or queue (a handover in progress
 * will see it). Home locked.
 */
static __always_inline int si_disarm(struct si_timer *timer)
{
	u32 state = timer->state;

	if (!(state & SI_STATE_PENDING))
		return 0;
	if (state & SI_STATE_ARMED) {
		timer_delete(&timer->wheel);
		__hlist_del(&timer->armed_node);
	} else {
		list_del_init(&timer->entry);
	}
	si_state_set(timer, state & ~SI_STATE_PENDING);
	trace_si_timer_cancel(timer);
	return 1;
}

/*
 * The module that owns @timer goes with it pending (unload.c): cancel it
 * and keep it off. Home locked. A handover in progress may still read the
 * timer: the caller waits it out with si_timer_shutdown_sync().
 */
void si_timer_evict(struct si_timer *timer)
{
	si_disarm(timer);
	si_state_set(timer, timer->state | SI_STATE_SHUTDOWN);
}

/*
 * The wheel timer's expiry (TIMER_IRQSAFE: interrupts off): queue the timer
 * on the executor of this CPU, or behind its running callback.
 */
void si_timer_wheel_fn(struct timer_list *wheel)
{
	struct si_timer *timer = container_of(wheel, struct si_timer, wheel);
	struct si_executor *home, *to;
	unsigned long flags;
	bool kick;
	u32 state;

	home = si_lock_home(timer, &flags);
	state = timer->state;
	if (!(state & SI_STATE_ARMED) || timer_pending(wheel)) {
		si_unlock_home(home, flags);
		return;
	}
	/* Off home's armed list; unload.c waits out a migration (RCU). */
	__hlist_del(&timer->armed_node);
	to = home;
	if (home->running != timer &&
	    (home->cpu != raw_smp_processor_id() || home->parked)) {
		si_state_set(timer, state | SI_STATE_MIGRATING);
		raw_spin_unlock(&home->lock);
		to = si_executor_lock_live(raw_smp_processor_id());
		state = (state & ~SI_STATE_CPUMASK) | to->cpu;
	}
	/*
	 * Only the first callback queued wakes the executor: one that finds
	 * the queue busy comes after the wake-up of the one that made it so,
	 * and the executor looks at its queue before it sleeps.
	 */
	kick = si_executor_idle(to);
	list_add_tail(&timer->entry, &to->queue[si_queue_of(timer)]);
	si_state_set(timer, (state & ~SI_STATE_ARMED) | SI_STATE_QUEUED);
	trace_si_timer_queue(timer, to->cpu);
	raw_spin_unlock_irqrestore(&to->lock, flags);
	if (kick)
		si_executor_kick(to);
}
EXPORT_SYMBOL_GPL(si_timer_wheel_fn);

/*
 * The executor takes the first timer of its queue @q to run its callback.
 * @e locked; @e is the timer's home (invariant 5 keeps it so while it runs).
 */
struct si_timer *si_timer_take_queued(struct si_executor *e, enum si_queue q)
{
	struct si_timer *timer;

	timer = list_first_entry_or_null(&e->queue[q], struct si_timer, entry);
	if (timer) {
		list_del_init(&timer->entry);
		si_state_set(timer, timer->state & ~SI_STATE_QUEUED);
	}
	return timer;
}

/* A queued timer moves to @to with its queue (both executors locked). */
void si_timer_rehome(struct si_timer *timer, struct si_executor *to)
{
	si_state_set(timer, (timer->state & ~SI_STATE_CPUMASK) | to->cpu);
}

static void si_timer_init(struct si_timer *timer, si_timer_func_t func,
			  unsigned int flags, const char *name,
			  struct lock_class_key *key, bool on_stack)
{
	unsigned int wheel_flags;

	WARN_ONCE(flags & ~SI_TIMER_FLAGS_VALID,
		  "si_timer: invalid flags %#x for %ps ignored\n",
		  flags & ~SI_TIMER_FLAGS_VALID, func);
	timer->function = func;
	timer->flags = flags & SI_TIMER_FLAGS_VALID;
	timer->state = raw_smp_processor_id();
	INIT_LIST_HEAD(&timer->entry);
	lockdep_init_map(&timer->lockdep_map, name, key, 0);
	/* Invariant 3: TIMER_IRQSAFE. */
	wheel_flags = (timer->flags & (TIMER_PINNED | TIMER_DEFERRABLE)) | TIMER_IRQSAFE;
	if (on_stack)
		init_timer_on_stack_key(&timer->wheel, si_timer_wheel_fn, wheel_flags,
					"si_timer_wheel", &si_wheel_lock_key);
	else
		init_timer_key(&timer->wheel, si_timer_wheel_fn, wheel_flags,
			       "si_timer_wheel", &si_wheel_lock_key);
	trace_si_timer_init(timer);
}

void si_init_timer_key(struct si_timer *timer, si_timer_func_t func,
		       unsigned int flags, const char *name,
		       struct lock_class_key *key)
{
	si_timer_init(timer, func, flags, name, key, false);
}
EXPORT_SYMBOL_GPL(si_init_timer_key);

void si_init_timer_on_stack_key(struct si_timer *timer, si_timer_func_t func,
				unsigned int flags, const char *name,
				struct lock_class_key *key)
{
	si_timer_init(timer, func, flags, name, key, true);
}
EXPORT_SYMBOL_GPL(si_init_timer_on_stack_key);

void si_destroy_timer_on_stack(struct si_timer *timer)
{
	timer_destroy_on_stack(&timer->wheel);
}
EXPORT_SYMBOL_GPL(si_destroy_timer_on_stack);

/**
 * si_timer_pending - is the timer armed, or expired with its callback not started?
 * @timer: the timer
 *
 * Return: 1 if pending, 0 if not (unserialised, as timer_pending()).
 */
int si_timer_pending(const struct si_timer *timer)
{
	return !!(READ_ONCE(timer->state) & SI_STATE_PENDING);
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
	/* mod_timer()'s shortcut: the wheel timer pending implies ARMED. */
	if (timer_pending(&timer->wheel) && timer->wheel.expires == expires)
		return 1;
	home = si_lock_home(timer, &flags);
	ret = si_arm(home, timer, expires, _RET_IP_);
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
		ret = si_arm(home, timer, expires, _RET_IP_);
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
		/*
		 * timer_reduce() arms a wheel timer that is not pending: this
		 * one expired meanwhile and is due already, so undo that
		 * arming, which would supersede the expiry (invariant 4).
		 */
		if (!timer_reduce(&timer->wheel, expires)) {
			timer_delete(&timer->wheel);
		} else if (timer->expires != timer->wheel.expires) {
			timer->expires = timer->wheel.expires;
			timer->armed_at = _RET_IP_;
			trace_si_timer_start(timer, timer->wheel.flags & TIMER_CPUMASK);
		}
	} else if (!(timer->state & SI_STATE_QUEUED)) {
		ret = si_arm(home, timer, expires, _RET_IP_);
	}
	si_unlock_home(home, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(si_timer_reduce);

/*
 * si_add_timer() and si_add_timer_on(): arm an inactive timer on @cpu, or
 * locally if < 0, for the caller at @ip.
 */
static bool si_add(struct si_timer *timer, int cpu, unsigned long ip)
{
	struct si_executor *home;
	unsigned long flags;
	u32 state;

	home = si_lock_home(timer, &flags);
	state = timer->state;
	if (!(state & (SI_STATE_PENDING | SI_STATE_SHUTDOWN))) {
		if (cpu < 0) {
			si_arm(home, timer, timer->expires, ip);
		} else {
			hlist_add_head(&timer->armed_node, &home->armed);
			timer->armed_at = ip;
			timer->wheel.expires = timer->expires;
			add_timer_on(&timer->wheel, cpu);
			si_state_set(timer, state | SI_STATE_ARMED);
			trace_si_timer_start(timer, cpu);
		}
	}
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
 * @cpu: the CPU it expires on; its callback runs there too
 */
void si_add_timer_on(struct si_timer *timer, int cpu)
{
	if (si_timer_misused(timer))
		return;
	if (WARN_ONCE(cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu),
		      "si_timer: %s() for %ps on CPU %d, not online\n",
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
	ret = si_disarm(timer);
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
	/* Idle: nothing to undo, no lock needed (as timer_delete()). */
	if (!(READ_ONCE(timer->state) & SI_STATE_PENDING))
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
 * Return: -1 if the callback is running or the wheel is handing the timer
 * over to its executor (the timer is left alone), else as si_timer_delete().
 */
int si_try_to_del_timer_sync(struct si_timer *timer)
{
	struct si_executor *home;
	unsigned long flags;
	int ret = -1;

	if (si_timer_misused(timer))
		return -EINVAL;
	home = si_lock_home(timer, &flags);
	if (home->running != timer && timer_delete_sync_try(&timer->wheel) >= 0)
		ret = si_disarm(timer);
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
 */
static int si_wait_refused(struct si_executor *home)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && softirq_count() &&
	    home->cpu == smp_processor_id())
		return -EDEADLK;
	return 0;
}

/*
 * Tell lockdep that we wait for the callback, as timer_delete_sync() does,
 * so that a lock held here and taken by the callback is reported. Not on
 * RT with BH disabled for a soft-interruptible timer: lockdep would tie
 * this CPU's BH lock to the callback's, a cycle it cannot tell apart from
 * the safe cross-CPU case, and the same-CPU case is refused at run time.
 */
static void si_lockdep_cancel_waits(struct si_timer *timer)
{
	unsigned long flags;

	if (IS_ENABLED(CONFIG_PREEMPT_RT) && softirq_count() &&
	    (timer->flags & SI_TIMER_SOFTINTERRUPTIBLE))
		return;
	/* irqs off: record no "enabled" irq usage, as timer_delete_sync() */
	local_irq_save(flags);
	lock_acquire_exclusive(&timer->lockdep_map, si_lockdep_subclass(timer), 0, NULL,
			       _THIS_IP_);
	lock_map_release(&timer->lockdep_map);
	local_irq_restore(flags);
}

static int si_delete_sync(struct si_timer *timer, bool shutdown)
{
	struct si_executor *home;
	bool running, handover;
	int ret = 0, own, refused;
	unsigned long flags;

	if (WARN_ONCE(in_hardirq(),
		      "si_timer: synchronous delete of %ps from hard interrupt context\n",
		      timer->function))
		return -EINVAL;
	own = si_cancel_from_own_callback(timer);
	if (WARN_ONCE(own == -EINVAL,
		      "si_timer: synchronous delete of %ps from its own callback\n",
		      timer->function))
		return -EINVAL;
	if (!own)
		si_lockdep_cancel_waits(timer);

	for (;;) {
		home = si_lock_home(timer, &flags);
		handover = timer_delete_sync_try(&timer->wheel) < 0;
		ret |= si_disarm(timer);
		if (shutdown)
			si_state_set(timer, timer->state | SI_STATE_SHUTDOWN);
		running = home->running == timer;
		refused = 0;
		if (running)
			refused = own ?: si_wait_refused(home);
		si_unlock_home(home, flags);

		if (refused == own && own)
			WARN_ONCE(1, "si_timer: synchronous delete of %ps from a softirq that interrupted its callback: deactivated, not waited for\n",
				  timer->function);
		else if (refused)
			WARN_ONCE(1, "si_timer: synchronous delete of %ps with bottom halves disabled on the CPU where its soft-interruptible callback runs: deactivated, not waited for\n",
				  timer->function);
		if (refused)
			return refused;
		if (running)
			si_executor_wait_callback(home);
		else if (handover)
			cpu_relax();
		else
			return ret;
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
 * soft-interruptible callback (on its executor), and, on PREEMPT_RT, with
 * bottom halves disabled on the CPU where that callback runs.
 *
 * Return: 1 if the timer was pending, 0 if not, -EINVAL on misuse,
 * -EDEADLK as above.
 */
int si_timer_delete_sync(struct si_timer *timer)
{
	if (si_timer_misused(timer))
		return -EINVAL;
	return si_delete_sync(timer, false);
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
	return si_delete_sync(timer, true);
}
EXPORT_SYMBOL_GPL(si_timer_shutdown_sync);
