// SPDX-License-Identifier: GPL-2.0
/*
 * The debugobjects descriptor of si_timer and its fixups, after
 * kernel/time/timer.c's for timer_list. Built only with
 * CONFIG_DEBUG_OBJECTS_TIMERS (Kbuild); debugobjects.h says where the
 * state changes are reported.
 */
#include <linux/debugobjects.h>
#include <linux/preempt.h>
#include "si_timer_internal.h"
#include "debugobjects.h"

static void *si_debug_hint(void *addr)
{
	return (void *)si_callback_of(addr);
}

/* DEFINE_SI_TIMER() marks its node, as __TIMER_INITIALIZER() does. */
static bool si_debug_is_static_object(void *addr)
{
	struct si_timer *timer = addr;

	return !timer->node.pprev && timer->node.next == TIMER_ENTRY_STATIC;
}

/*
 * Take a pending timer off its executor before its memory is reused, and
 * wait for its callback where that may sleep, as timer.c's fixups do with
 * timer_delete_sync(). Not from the callback itself (it would wait for
 * itself) nor where waiting is not allowed: the report says what was
 * wrong, and the timer at least is off the wheel.
 */
static void si_debug_cancel(struct si_timer *timer)
{
	struct si_executor *e = si_executor_current();

	if (preemptible() && !(e && READ_ONCE(e->running) == timer))
		si_timer_delete_sync(timer);
	else
		si_timer_delete(timer);
}

/* An active (pending) timer initialised again. */
static bool si_debug_fixup_init(void *addr, enum debug_obj_state state)
{
	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	si_debug_cancel(addr);
	debug_object_init(addr, &si_timer_debug_descr);
	return true;
}

/*
 * Armed, untracked and not static: an API call's si_debug_assert_init()
 * would have set it up already, so only a path that arms without one gets
 * here. Home locked: track it as the pending timer it now is.
 */
static bool si_debug_fixup_activate(void *addr, enum debug_obj_state state)
{
	if (state != ODEBUG_STATE_NOTAVAILABLE)
		return false;
	debug_object_init(addr, &si_timer_debug_descr);
	debug_object_activate(addr, &si_timer_debug_descr);
	return true;
}

/* The memory of a pending timer is freed, or an on-stack one destroyed. */
static bool si_debug_fixup_free(void *addr, enum debug_obj_state state)
{
	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	si_debug_cancel(addr);
	debug_object_free(addr, &si_timer_debug_descr);
	return true;
}

/*
 * An API call on a timer that has a callback but was never set up (copied,
 * or its memory set by hand): set it up now, as timer.c does, keeping its
 * callback and flags. Nothing can have armed it: arming asserts first.
 */
static bool si_debug_fixup_assert_init(void *addr, enum debug_obj_state state)
{
	static struct lock_class_key key;
	struct si_timer *timer = addr;

	if (state != ODEBUG_STATE_NOTAVAILABLE)
		return false;
	si_timer_prepare(timer, timer->function,
			 timer->flags & (SI_TIMER_FLAGS_VALID | SI_TIMER_HR),
			 "si_timer_fixed_up", &key, false, _RET_IP_);
	return true;
}

const struct debug_obj_descr si_timer_debug_descr = {
	.name			= "si_timer",
	.debug_hint		= si_debug_hint,
	.is_static_object	= si_debug_is_static_object,
	.fixup_init		= si_debug_fixup_init,
	.fixup_activate		= si_debug_fixup_activate,
	.fixup_free		= si_debug_fixup_free,
	.fixup_assert_init	= si_debug_fixup_assert_init,
};
