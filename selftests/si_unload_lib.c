// SPDX-License-Identifier: GPL-2.0
/*
 * A library module of si_timer's users, for si_unload_cross: it uses
 * si_timer and exports callbacks and the calls that set up and arm timers
 * with them, so that a module using only this library (not si_timer
 * itself) keeps si_timers in its own memory whose callbacks lie here. Each
 * callback re-arms its timer every SI_UNLOAD_LIB_PERIOD_MS: pending
 * whenever that module goes, and due again within the period, so that a
 * timer unload safety missed is collected from its wheel and run in freed
 * memory (the harness waits several periods before unloading the library).
 * Not a test module: the harness loads it before the modules that use it.
 */
#include <linux/module.h>
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include "si_unload_lib.h"

static atomic_t runs = ATOMIC_INIT(0), hr_runs = ATOMIC_INIT(0);

/*
 * The report names the arming call's caller: no tail calls (barrier()).
 * One callback for a static timer, one for those si_unload_lib_setup()
 * sets up: the report tells them apart.
 */
void si_unload_lib_fn(struct si_timer *t)
{
	atomic_inc(&runs);
	si_mod_timer(t, jiffies + msecs_to_jiffies(SI_UNLOAD_LIB_PERIOD_MS));
	barrier();
}
EXPORT_SYMBOL_GPL(si_unload_lib_fn);

static void si_unload_lib_setup_fn(struct si_timer *t)
{
	atomic_inc(&runs);
	si_mod_timer(t, jiffies + msecs_to_jiffies(SI_UNLOAD_LIB_PERIOD_MS));
	barrier();
}

noinline void si_unload_lib_setup(struct si_timer *t)
{
	si_timer_setup(t, si_unload_lib_setup_fn, 0);
}
EXPORT_SYMBOL_GPL(si_unload_lib_setup);

noinline void si_unload_lib_arm(struct si_timer *t)
{
	si_mod_timer(t, jiffies + msecs_to_jiffies(SI_UNLOAD_LIB_PERIOD_MS));
	barrier();
}
EXPORT_SYMBOL_GPL(si_unload_lib_arm);

bool si_unload_lib_pending(const struct si_timer *t)
{
	return si_timer_pending(t);
}
EXPORT_SYMBOL_GPL(si_unload_lib_pending);

enum hrtimer_restart si_unload_lib_hr_fn(struct si_hrtimer *t)
{
	atomic_inc(&hr_runs);
	si_hrtimer_forward_now(t, ms_to_ktime(SI_UNLOAD_LIB_PERIOD_MS));
	return HRTIMER_RESTART;
}
EXPORT_SYMBOL_GPL(si_unload_lib_hr_fn);

noinline void si_unload_lib_hr_setup(struct si_hrtimer *t)
{
	si_hrtimer_setup(t, si_unload_lib_hr_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL, 0);
}
EXPORT_SYMBOL_GPL(si_unload_lib_hr_setup);

noinline void si_unload_lib_hr_start(struct si_hrtimer *t)
{
	si_hrtimer_start(t, ms_to_ktime(SI_UNLOAD_LIB_PERIOD_MS), HRTIMER_MODE_REL);
	barrier();
}
EXPORT_SYMBOL_GPL(si_unload_lib_hr_start);

int si_unload_lib_runs(void)
{
	return atomic_read(&runs);
}
EXPORT_SYMBOL_GPL(si_unload_lib_runs);

int si_unload_lib_hr_runs(void)
{
	return atomic_read(&hr_runs);
}
EXPORT_SYMBOL_GPL(si_unload_lib_hr_runs);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer test library: callbacks and setup for timers in another module's memory");
