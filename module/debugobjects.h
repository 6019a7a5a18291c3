/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugobjects for si_timer, as kernel/time/timer.c has them for
 * timer_list: object type "si_timer", active while the timer is pending
 * (armed, or expired with its callback not started). Freeing the memory
 * of a pending timer, initialising a pending one again, or an API call on
 * one never set up is reported and fixed up (debugobjects.c).
 *
 * The one place that depends on CONFIG_DEBUG_OBJECTS_TIMERS: without it
 * (Debian's kernels, where debug_object_*() are not even exported) these
 * are empty and debugobjects.c is not built, so that the hot paths cost
 * nothing.
 */
#ifndef _SI_DEBUGOBJECTS_H
#define _SI_DEBUGOBJECTS_H

#include <si_timer.h>

#ifdef CONFIG_DEBUG_OBJECTS_TIMERS
#include <linux/debugobjects.h>

extern const struct debug_obj_descr si_timer_debug_descr;

static inline void si_debug_init(struct si_timer *timer, bool on_stack)
{
	if (on_stack)
		debug_object_init_on_stack(timer, &si_timer_debug_descr);
	else
		debug_object_init(timer, &si_timer_debug_descr);
}

/* Pending from now on. Home locked, as the state. */
static inline void si_debug_activate(struct si_timer *timer)
{
	debug_object_activate(timer, &si_timer_debug_descr);
}

/* Not pending any more: cancelled, or taken to run its callback. */
static inline void si_debug_deactivate(struct si_timer *timer)
{
	debug_object_deactivate(timer, &si_timer_debug_descr);
}

static inline void si_debug_assert_init(const struct si_timer *timer)
{
	debug_object_assert_init((void *)timer, &si_timer_debug_descr);
}

static inline void si_debug_free(struct si_timer *timer)
{
	debug_object_free(timer, &si_timer_debug_descr);
}
#else
static inline void si_debug_init(struct si_timer *timer, bool on_stack) { }
static inline void si_debug_activate(struct si_timer *timer) { }
static inline void si_debug_deactivate(struct si_timer *timer) { }
static inline void si_debug_assert_init(const struct si_timer *timer) { }
static inline void si_debug_free(struct si_timer *timer) { }
#endif

#endif /* _SI_DEBUGOBJECTS_H */
