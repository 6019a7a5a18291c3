/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A timer's home executor, locked, and the steps that take a timer out of
 * it (module/timer.c has the design): shared by timer.c and hrtimer.c.
 * Include after si_trace.h.
 */
#ifndef _SI_HOME_H
#define _SI_HOME_H

#include <linux/bug.h>
#include "si_timer_internal.h"
#include "debugobjects.h"

/*
 * A macro, so that every API entry point warns once on its own. A timer
 * with a callback is then asserted set up (debugobjects.h), as timer.c's
 * calls do.
 */
#define si_timer_misused(timer)						\
	({								\
		const struct si_timer *__t = (timer);			\
		bool __bad = WARN_ONCE(!__t || !__t->function,		\
				       "si_timer: %s() on %s timer\n",	\
				       __func__,			\
				       __t ? "a never set up" : "a NULL"); \
		if (!__bad)						\
			si_debug_assert_init(__t);			\
		__bad;							\
	})

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
 * Out of home's wheel, queue or (si_hrtimer) the hrtimer base: returns the
 * state with nothing pending.
 */
static __always_inline u32 si_unhook(struct si_executor *home, struct si_timer *timer,
				     u32 state)
{
	if (state & SI_STATE_PENDING)
		si_debug_deactivate(timer);
	if (state & SI_STATE_ARMED)
		si_wheel_del(&home->wheel[si_wheel_kind_of(timer)], timer,
			     (state & SI_STATE_BUCKET) >> SI_STATE_BUCKET_SHIFT);
	else if (state & SI_STATE_QUEUED)
		si_fifo_del(&home->queue[si_queue_of(timer)], timer);
	else if (state & SI_STATE_HRARMED)
		si_hrtimer_unhook(home, timer);
	return state & ~(SI_STATE_PENDING | SI_STATE_BUCKET);
}

/* Back to idle, out of home's wheel or queue. Home locked. */
static __always_inline int si_disarm(struct si_executor *home, struct si_timer *timer)
{
	u32 state = timer->state;

	if (!(state & SI_STATE_PENDING))
		return 0;
	si_owner_del(timer);
	si_state_set(timer, si_unhook(home, timer, state));
	trace_si_timer_cancel(timer);
	return 1;
}

/*
 * Arming @timer for the executor of @cpu while its home is another
 * (invariant 3): taken off @home (locked), MIGRATING while no lock is held,
 * then owned by the executor it goes to. Returns that executor, locked,
 * its home now; *@state is the state to arm it with (not pending).
 */
static __always_inline struct si_executor *si_move_for_arming(struct si_executor *home,
							      struct si_timer *timer,
							      unsigned int cpu, u32 *state)
{
	u32 s = timer->state;
	struct si_executor *to;

	if (s & SI_STATE_PENDING)
		si_owner_del(timer);
	s = si_unhook(home, timer, s);
	si_state_set(timer, s | SI_STATE_MIGRATING);
	raw_spin_unlock(&home->lock);
	/* the executor of @cpu, unless it is parked (si_executor_lock_live()) */
	to = si_executor_of(cpu);
	raw_spin_lock(&to->lock);
	if (unlikely(to->parked)) {
		raw_spin_unlock(&to->lock);
		to = si_executor_lock_live(cpu);
	}
	*state = (s & ~SI_STATE_CPUMASK) | to->cpu;
	si_owner_add(to, timer);
	return to;
}

#endif /* _SI_HOME_H */
