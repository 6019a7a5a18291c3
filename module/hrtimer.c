// SPDX-License-Identifier: GPL-2.0
/*
 * si_hrtimer: an hrtimer whose callback runs on the executors.
 *
 * An si_hrtimer is an si_timer (its base, which the executor queues and
 * runs as any other, through si_hrtimer_run()) plus a HARD hrtimer (hw)
 * that stands in for the wheel: the kernel's timerqueue keeps the expiry,
 * its clock and mode, forwarding and range. Its state is the base's, under
 * home's lock, with one more way of being pending:
 *
 *   SI_STATE_HRARMED  hw armed for this arming; base on home->hr_armed
 *   SI_STATE_QUEUED   hw fired: on home's queue, its callback not started
 *   home->running     its callback runs (it returns HRTIMER_RESTART to be
 *                     armed again at the expiry it left, as __run_hrtimer())
 *
 * hw's handler runs in hard interrupt context (also on PREEMPT_RT) on the
 * CPU hw was armed on, which is home's but for a re-arm while the callback
 * runs elsewhere or a CPU going down; it only moves the base from HRARMED
 * to QUEUED under home's lock and wakes the executor. Every arming and
 * disarming of hw is done under home's lock, so the handler tells a stale
 * expiry (hw disarmed, or armed again, since it fired) by the state and by
 * hw being queued again. Lock order: home's lock, then the hrtimer base's
 * (the handler runs without the latter). A canceller that took hw off
 * while its handler ran does not return before the handler has: it may
 * still look at the timer (si_hrtimer_hw_cancel()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/hrtimer.h>
#include "si_timer_internal.h"
#include "si_trace.h"
#include "home.h"

#define SI_HRTIMER_FLAGS_VALID	(SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_MASK_HRTIMER)

/* hw's handler: due, onto home's queue. */
static enum hrtimer_restart si_hrtimer_fire(struct hrtimer *hw)
{
	struct si_hrtimer *hr = container_of(hw, struct si_hrtimer, hw);
	struct si_timer *timer = &hr->base;
	struct si_executor *home;
	unsigned long flags;
	bool kick = false;

	trace_si_hrtimer_expire(hr);
	home = si_lock_home(timer, &flags);
	if ((timer->state & SI_STATE_HRARMED) && !hrtimer_is_queued(hw)) {
		/* as si_executor_expire(): a busy executor looks again */
		kick = si_executor_idle(home);
		__hlist_del(&timer->node);
		si_fifo_add(&home->queue[si_queue_of(timer)], timer);
		si_state_set(timer, (timer->state & ~SI_STATE_HRARMED) | SI_STATE_QUEUED);
		trace_si_timer_queue(timer, home->cpu);
	}
	si_unlock_home(home, flags);
	if (kick)
		si_executor_kick(home);
	return HRTIMER_NORESTART;
}

/* hw's mode: the caller's ABS/REL, on this CPU, expiring in hardirq. */
static enum hrtimer_mode si_hw_mode(enum hrtimer_mode mode)
{
	return (mode & HRTIMER_MODE_REL) | HRTIMER_MODE_PINNED | HRTIMER_MODE_HARD;
}

/* Armed, for the caller at @ip, on @home (locked); @state not pending. */
static void si_hrtimer_hook(struct si_executor *home, struct si_hrtimer *hr, u32 state,
			    ktime_t tim, u64 range_ns, enum hrtimer_mode mode,
			    unsigned long ip)
{
	struct si_timer *timer = &hr->base;

	si_debug_activate(timer);
	timer->armed_at = ip;
	hlist_add_head(&timer->node, &home->hr_armed);
	si_state_set(timer, state | SI_STATE_HRARMED);
	hrtimer_start_range_ns(&hr->hw, tim, range_ns, si_hw_mode(mode));
	trace_si_hrtimer_start(hr, home->cpu);
}

/*
 * Home locked: hw taken off, whatever the state says (while its handler
 * ran, a start may have queued it again and a disarm since found it
 * running: hrtimer_try_to_cancel() leaves it queued then, the handler takes
 * it for stale). False if its handler runs: it may still look at the
 * timer, and a canceller must not return before it did.
 */
bool si_hrtimer_hw_cancel(struct si_timer *timer)
{
	return hrtimer_try_to_cancel(&si_hrtimer_of(timer)->hw) >= 0;
}

/*
 * si_unhook() of an HRARMED timer: off home's list, hw disarmed unless its
 * handler runs (the cancels deal with that). Home locked.
 */
void si_hrtimer_unhook(struct si_executor *home, struct si_timer *timer)
{
	__hlist_del(&timer->node);
	si_hrtimer_hw_cancel(timer);
}

/*
 * A CPU goes down: up to @budget of its HRARMED timers are homed on @to
 * (both locked); returns the budget left, not 0 only once none is left.
 * Their HARD hrtimers stay where they are, until the kernel migrates them
 * with the CPU's hrtimer base: one that fires before its timer moved
 * queues it on @from, whose queues the hand-over moves too.
 */
unsigned int si_hrtimer_move(struct si_executor *from, struct si_executor *to,
			     unsigned int budget)
{
	struct si_timer *timer;

	for (; budget && !hlist_empty(&from->hr_armed); budget--) {
		timer = hlist_entry(from->hr_armed.first, struct si_timer, node);
		__hlist_del(&timer->node);
		hlist_add_head(&timer->node, &to->hr_armed);
		si_timer_rehome(timer, to);
	}
	return budget;
}

/*
 * The base's callback, on the executor: the user's, then, for
 * HRTIMER_RESTART, the timer armed again at the expiry the callback left
 * (si_hrtimer_forward()), unless it was armed or shut down meanwhile. Only
 * then is the timer touched after the callback: one that returns
 * HRTIMER_RESTART is alive.
 */
void si_hrtimer_run(struct si_timer *timer)
{
	struct si_hrtimer *hr = si_hrtimer_of(timer);
	struct si_executor *home;
	unsigned long flags;

	if (hr->function(hr) == HRTIMER_NORESTART)
		return;
	home = si_lock_home(timer, &flags);
	if (!(timer->state & (SI_STATE_PENDING | SI_STATE_SHUTDOWN))) {
		si_owner_add(home, timer);
		si_hrtimer_hook(home, hr, timer->state, hrtimer_get_softexpires(&hr->hw),
				ktime_to_ns(hrtimer_get_expires(&hr->hw)) -
				ktime_to_ns(hrtimer_get_softexpires(&hr->hw)),
				HRTIMER_MODE_ABS, timer->armed_at);
	}
	si_unlock_home(home, flags);
}

static bool si_clock_supported(clockid_t clock_id)
{
	return clock_id == CLOCK_MONOTONIC || clock_id == CLOCK_BOOTTIME ||
	       clock_id == CLOCK_REALTIME || clock_id == CLOCK_TAI;
}

static void si_hrtimer_init(struct si_hrtimer *hr, si_hrtimer_func_t function,
			    clockid_t clock_id, enum hrtimer_mode mode, unsigned int flags,
			    const char *name, struct lock_class_key *key, bool on_stack,
			    unsigned long caller)
{
	WARN_ONCE(flags & ~SI_HRTIMER_FLAGS_VALID,
		  "si_timer: invalid si_hrtimer flags %#x for %ps ignored\n",
		  flags & ~SI_HRTIMER_FLAGS_VALID, function);
	WARN_ONCE(mode & HRTIMER_MODE_HARD,
		  "si_timer: si_hrtimer %ps set up in HARD mode: it runs on an executor\n",
		  function);
	if (WARN_ONCE(!si_clock_supported(clock_id),
		      "si_timer: si_hrtimer %ps: clock %d not supported, CLOCK_MONOTONIC used\n",
		      function, clock_id))
		clock_id = CLOCK_MONOTONIC;
	hr->function = function;
	si_timer_prepare(&hr->base, si_hrtimer_run,
			 (flags & SI_HRTIMER_FLAGS_VALID) | SI_TIMER_HR, name, key, on_stack,
			 caller);
	/* REL matters here: hrtimer_setup() takes CLOCK_REALTIME to MONOTONIC */
	if (on_stack)
		hrtimer_setup_on_stack(&hr->hw, si_hrtimer_fire, clock_id, si_hw_mode(mode));
	else
		hrtimer_setup(&hr->hw, si_hrtimer_fire, clock_id, si_hw_mode(mode));
}

void si_hrtimer_setup_key(struct si_hrtimer *hr, si_hrtimer_func_t function,
			  clockid_t clock_id, enum hrtimer_mode mode, unsigned int flags,
			  const char *name, struct lock_class_key *key)
{
	si_hrtimer_init(hr, function, clock_id, mode, flags, name, key, false, _RET_IP_);
}
EXPORT_SYMBOL_GPL(si_hrtimer_setup_key);

void si_hrtimer_setup_on_stack_key(struct si_hrtimer *hr, si_hrtimer_func_t function,
				   clockid_t clock_id, enum hrtimer_mode mode,
				   unsigned int flags, const char *name,
				   struct lock_class_key *key)
{
	si_hrtimer_init(hr, function, clock_id, mode, flags, name, key, true, _RET_IP_);
}
EXPORT_SYMBOL_GPL(si_hrtimer_setup_on_stack_key);

/**
 * si_destroy_hrtimer_on_stack - the end of an on-stack si_hrtimer's life
 * @hr: the timer, not active (with debugobjects, one that is gets reported
 *	and cancelled)
 */
void si_destroy_hrtimer_on_stack(struct si_hrtimer *hr)
{
	si_destroy_timer_on_stack(&hr->base);
	destroy_hrtimer_on_stack(&hr->hw);
}
EXPORT_SYMBOL_GPL(si_destroy_hrtimer_on_stack);

/* A timer set up by si_hrtimer_setup()? Warned about once otherwise. */
#define si_hrtimer_misused(hr)							\
	({									\
		const struct si_hrtimer *__hr = (hr);				\
		si_timer_misused(__hr ? &__hr->base : NULL) ||			\
		WARN_ONCE(!(__hr->base.flags & SI_TIMER_HR),			\
			  "si_timer: %s() on an si_timer\n", __func__);	\
	})

/**
 * si_hrtimer_start_range_ns - (re)arm an si_hrtimer with slack
 * @hr: the timer
 * @tim: expiry, absolute or relative to now as @mode says
 * @range_ns: how much later it may expire
 * @mode: HRTIMER_MODE_ABS or _REL, optionally _PINNED (and _SOFT)
 *
 * As hrtimer_start_range_ns(). The callback runs on the executor of the
 * calling CPU, or, while it runs, where it runs (it never runs on two
 * CPUs at once). A timer shut down by unload safety stays off.
 */
void si_hrtimer_start_range_ns(struct si_hrtimer *hr, ktime_t tim, u64 range_ns,
			       enum hrtimer_mode mode)
{
	struct si_timer *timer = &hr->base;
	struct si_executor *home;
	unsigned long flags;
	unsigned int cpu;
	u32 state;

	if (si_hrtimer_misused(hr))
		return;
	WARN_ONCE(mode & HRTIMER_MODE_HARD,
		  "si_timer: si_hrtimer %ps started in HARD mode: it runs on an executor\n",
		  hr->function);
	home = si_lock_home(timer, &flags);
	state = timer->state;
	if (state & SI_STATE_SHUTDOWN)
		goto out;
	cpu = smp_processor_id();
	if ((home->cpu == cpu && !home->parked) || READ_ONCE(home->running) == timer) {
		if (!(state & SI_STATE_PENDING))
			si_owner_add(home, timer);
		state = si_unhook(home, timer, state);
	} else {
		home = si_move_for_arming(home, timer, cpu, &state);
	}
	si_hrtimer_hook(home, hr, state, tim, range_ns, mode, _RET_IP_);
out:
	si_unlock_home(home, flags);
}
EXPORT_SYMBOL_GPL(si_hrtimer_start_range_ns);

/**
 * si_hrtimer_try_to_cancel - deactivate an si_hrtimer unless its callback runs
 * @hr: the timer
 *
 * Return: as hrtimer_try_to_cancel(): 0 if it was not active, 1 if it was
 * pending and is not any more, -1 if its callback runs (left alone).
 */
int si_hrtimer_try_to_cancel(struct si_hrtimer *hr)
{
	struct si_timer *timer = &hr->base;
	struct si_executor *home;
	unsigned long flags;
	int ret = -1;

	if (si_hrtimer_misused(hr))
		return 0;
	home = si_lock_home(timer, &flags);
	/*
	 * acquire: cleared without the lock once the callback returned. hw
	 * first: a handler in flight (or one that starts now) answers -1 under
	 * hw's base lock, and then the state is left as it is.
	 */
	if (smp_load_acquire(&home->running) != timer && si_hrtimer_hw_cancel(timer))
		ret = si_disarm(home, timer);
	trace_si_timer_cancel_sync(timer, ret < 0);
	si_unlock_home(home, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(si_hrtimer_try_to_cancel);

/**
 * si_hrtimer_cancel - deactivate an si_hrtimer and wait for its callback
 * @hr: the timer
 *
 * As hrtimer_cancel(), with si_timer_delete_sync()'s rules: not from the
 * callback itself nor hard interrupt context (-EINVAL), may sleep on
 * PREEMPT_RT, and where waiting could never end -EDEADLK with a warning.
 *
 * Return: 1 if the timer was pending, 0 if not, or the errors above.
 */
int si_hrtimer_cancel(struct si_hrtimer *hr)
{
	if (si_hrtimer_misused(hr))
		return 0;
	return si_timer_cancel_sync(&hr->base, false);
}
EXPORT_SYMBOL_GPL(si_hrtimer_cancel);

/**
 * si_hrtimer_callback_running - does the callback run now?
 * @hr: the timer
 *
 * Unserialised, as hrtimer_callback_running(); false with a warning on a
 * NULL timer.
 */
bool si_hrtimer_callback_running(const struct si_hrtimer *hr)
{
	const struct si_timer *timer;
	u32 state;

	if (__si_timer_null_query(hr))
		return false;
	timer = &hr->base;
	state = READ_ONCE(timer->state);
	if (state & SI_STATE_MIGRATING)
		return false;
	return READ_ONCE(si_executor_of(state & SI_STATE_CPUMASK)->running) == timer;
}
EXPORT_SYMBOL_GPL(si_hrtimer_callback_running);

/**
 * si_hrtimer_active - pending, or its callback running?
 * @hr: the timer
 *
 * As hrtimer_active(): true if the timer is armed, expired with its
 * callback not started, or its callback runs; never false in between
 * (the executor takes a timer off its queue, then marks it running, and
 * re-arms it from the callback before it clears that): read under home's
 * lock, as the kernel's reads a seqcount. False with a warning on a NULL
 * timer.
 */
bool si_hrtimer_active(const struct si_hrtimer *hr)
{
	struct si_timer *timer;
	struct si_executor *home;
	unsigned long flags;
	bool active;

	if (__si_timer_null_query(hr))
		return false;
	timer = (struct si_timer *)&hr->base;
	home = si_lock_home(timer, &flags);
	active = (timer->state & SI_STATE_PENDING) || READ_ONCE(home->running) == timer;
	si_unlock_home(home, flags);
	return active;
}
EXPORT_SYMBOL_GPL(si_hrtimer_active);
