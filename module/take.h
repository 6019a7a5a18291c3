/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the executor takes the next timer to run (expiry.c has the rest):
 * inline in its run loop, since it runs once per callback and a call with
 * its frame cost a tenth of the classic wheel's whole expiry (B5).
 * Include after si_trace.h.
 */
#ifndef _SI_TAKE_H
#define _SI_TAKE_H

#include <linux/bitops.h>
#include "si_timer_internal.h"

/*
 * Due: off its wheel's expired list, onto queue @onto or, if NULL,
 * straight to the thread to run it. @e locked.
 */
static __always_inline void si_take_expired(struct si_executor *e, struct si_timer *timer,
					    struct si_fifo *onto)
{
	__hlist_del(&timer->node);
	if (onto)
		si_fifo_add(onto, timer);
	else
		si_owner_del(timer);
	si_state_set(timer, (timer->state & ~(SI_STATE_ARMED | SI_STATE_BUCKET)) |
		     (onto ? SI_STATE_QUEUED : 0));
	trace_si_timer_queue(timer, e->cpu);
}

/* The first timer of queue @q, taken off it. */
static __always_inline struct si_timer *si_take_queued(struct si_executor *e, enum si_queue q)
{
	struct si_timer *timer = si_fifo_first(&e->queue[q]);

	if (timer) {
		si_fifo_del(&e->queue[q], timer);
		si_owner_del(timer);
		si_state_set(timer, timer->state & ~SI_STATE_QUEUED);
	}
	return timer;
}

struct si_timer *si_take_next_slow(struct si_executor *e, enum si_queue q);

/*
 * The executor takes the next timer to run a callback of queue @q, or
 * NULL: the first of that queue, else, while e->overdue says that a
 * wake-up left due timers in the wheels, one of those. Once per callback:
 * the two usual cases are looked at first, in few instructions (B5). @e
 * locked; @e is the timer's home (invariant 4 keeps it so while it runs).
 */
static __always_inline struct si_timer *si_timer_take_next(struct si_executor *e, enum si_queue q)
{
	struct si_wheel *w = &e->wheel[SI_WHEEL_NORMAL];
	struct si_timer *timer;

	timer = si_take_queued(e, q);
	if (timer || !e->overdue)
		return timer;
	/*
	 * The first expired timer of the normal wheel: the first step of
	 * si_take_next_slow(), repeated here without the slow path's frame
	 * for the common case of many due in one jiffy (B5).
	 */
	if (w->expired_levels) {
		timer = hlist_entry_safe(w->expired[__ffs(w->expired_levels)].first,
					 struct si_timer, node);
		if (likely(timer && si_queue_of(timer) == q)) {
			si_take_expired(e, timer, NULL);
			return timer;
		}
	}
	return si_take_next_slow(e, q);
}

#endif /* _SI_TAKE_H */
