/* SPDX-License-Identifier: GPL-2.0 */
/*
 * si_hrtimer: the twin of an HRTIMER_MODE_SOFT hrtimer whose callback runs
 * on the si_timer executors instead of in the HRTIMER softirq, in
 * compatible or soft-interruptible mode (SI_TIMER_* flags, as for an
 * si_timer). Same clocks, modes, return values and HRTIMER_RESTART
 * semantics as an hrtimer; see Documentation/hrtimers.md.
 *
 * It expires through a HARD hrtimer of its own (the kernel's timerqueue,
 * O(log n) as for any hrtimer), whose interrupt-time handler only queues
 * it on the executor of its CPU: no soft hrtimer, and so no HRTIMER
 * softirq, is involved.
 */
#ifndef _SI_HRTIMER_H
#define _SI_HRTIMER_H

#include <linux/hrtimer.h>
#include <si_timer.h>

struct si_hrtimer;
typedef enum hrtimer_restart (*si_hrtimer_func_t)(struct si_hrtimer *timer);

/**
 * struct si_hrtimer - a soft-interruptible capable high-resolution timer
 * @function: the callback, set by si_hrtimer_setup()
 *
 * The other members are private to the si_timer module.
 */
struct si_hrtimer {
	/* private: queued and run by the executors as an si_timer */
	struct si_timer		base;
	struct hrtimer		hw;	/* HARD: its expiry queues @base */
	/* public: */
	si_hrtimer_func_t	function;
};

void si_hrtimer_setup_key(struct si_hrtimer *timer, si_hrtimer_func_t function,
			  clockid_t clock_id, enum hrtimer_mode mode, unsigned int flags,
			  const char *name, struct lock_class_key *key);
void si_hrtimer_setup_on_stack_key(struct si_hrtimer *timer, si_hrtimer_func_t function,
				   clockid_t clock_id, enum hrtimer_mode mode,
				   unsigned int flags, const char *name,
				   struct lock_class_key *key);
void si_destroy_hrtimer_on_stack(struct si_hrtimer *timer);

/**
 * si_hrtimer_setup - prepare an si_hrtimer for first use
 * @timer: the timer
 * @function: called as function(timer) when it expires
 * @clock_id: CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME or CLOCK_TAI
 * @mode: HRTIMER_MODE_ABS or _REL, optionally _PINNED; a _SOFT bit is
 *	  accepted (it is what the timer replaces), a _HARD one refused
 * @flags: SI_TIMER_SOFTINTERRUPTIBLE, SI_TIMER_MASK_HRTIMER
 *
 * As hrtimer_setup(). Each call site gets its own lockdep class.
 */
#ifdef CONFIG_LOCKDEP
#define __si_hrtimer_setup(_init, timer, function, clock_id, mode, flags)	\
	do {									\
		static struct lock_class_key __key;				\
		_init((timer), (function), (clock_id), (mode), (flags), #timer,	\
		      &__key);							\
	} while (0)
#else
#define __si_hrtimer_setup(_init, timer, function, clock_id, mode, flags)	\
	_init((timer), (function), (clock_id), (mode), (flags), NULL, NULL)
#endif
#define si_hrtimer_setup(timer, function, clock_id, mode, flags)		\
	__si_hrtimer_setup(si_hrtimer_setup_key, timer, function, clock_id, mode, flags)

/**
 * si_hrtimer_setup_on_stack - prepare an on-stack si_hrtimer
 * @timer: the timer
 * @function: the callback
 * @clock_id: the clock
 * @mode: the mode
 * @flags: SI_TIMER_* flags
 *
 * As hrtimer_setup_on_stack(); balance with si_destroy_hrtimer_on_stack().
 */
#define si_hrtimer_setup_on_stack(timer, function, clock_id, mode, flags)	\
	__si_hrtimer_setup(si_hrtimer_setup_on_stack_key, timer, function,	\
			   clock_id, mode, flags)

void si_hrtimer_start_range_ns(struct si_hrtimer *timer, ktime_t tim, u64 range_ns,
			       enum hrtimer_mode mode);
int si_hrtimer_try_to_cancel(struct si_hrtimer *timer);
int si_hrtimer_cancel(struct si_hrtimer *timer);
bool si_hrtimer_active(const struct si_hrtimer *timer);
bool si_hrtimer_callback_running(const struct si_hrtimer *timer);

/**
 * si_hrtimer_start - (re)arm an si_hrtimer
 * @timer: the timer
 * @tim: expiry, absolute or relative to now as @mode says
 * @mode: HRTIMER_MODE_ABS or _REL, optionally _PINNED (and _SOFT)
 *
 * As hrtimer_start(): a pending timer is re-armed. The callback runs on
 * the executor of the CPU that armed it.
 */
static inline void si_hrtimer_start(struct si_hrtimer *timer, ktime_t tim,
				    enum hrtimer_mode mode)
{
	si_hrtimer_start_range_ns(timer, tim, 0, mode);
}

/*
 * The queries and accessors below, like si_hrtimer_active(), warn once and
 * answer 0 (or do nothing) on a NULL timer (__si_timer_null_query()).
 */

/**
 * si_hrtimer_is_queued - armed, or expired with its callback not started?
 * @timer: the timer
 *
 * As hrtimer_is_queued() for a SOFT hrtimer, which stays queued until the
 * softirq runs it; unserialised.
 */
static inline bool si_hrtimer_is_queued(const struct si_hrtimer *timer)
{
	if (__si_timer_null_query(timer))
		return false;
	return si_timer_pending(&timer->base);
}

/**
 * si_hrtimer_forward - forward the expiry past @now by whole @interval
 * @timer: the timer, not queued (in its callback, or idle)
 * @now: the time to forward past
 * @interval: the period
 *
 * Return: the number of overruns, as hrtimer_forward().
 */
static inline u64 si_hrtimer_forward(struct si_hrtimer *timer, ktime_t now,
				     ktime_t interval)
{
	if (__si_timer_null_query(timer))
		return 0;
	return hrtimer_forward(&timer->hw, now, interval);
}

/* As hrtimer_forward_now(), on the timer's clock. */
static inline u64 si_hrtimer_forward_now(struct si_hrtimer *timer, ktime_t interval)
{
	if (__si_timer_null_query(timer))
		return 0;
	return hrtimer_forward_now(&timer->hw, interval);
}

/* The expiry of the timer (hrtimer_get_expires()). */
static inline ktime_t si_hrtimer_get_expires(const struct si_hrtimer *timer)
{
	if (__si_timer_null_query(timer))
		return 0;
	return hrtimer_get_expires(&timer->hw);
}

/* The time now on the timer's clock (hrtimer_cb_get_time()). */
static inline ktime_t si_hrtimer_cb_get_time(struct si_hrtimer *timer)
{
	if (__si_timer_null_query(timer))
		return 0;
	return hrtimer_cb_get_time(&timer->hw);
}

/* Set the expiry without arming, for a restart (hrtimer_set_expires()). */
static inline void si_hrtimer_set_expires(struct si_hrtimer *timer, ktime_t time)
{
	if (__si_timer_null_query(timer))
		return;
	hrtimer_set_expires(&timer->hw, time);
}

#endif /* _SI_HRTIMER_H */
