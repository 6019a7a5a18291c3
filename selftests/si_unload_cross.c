// SPDX-License-Identifier: GPL-2.0
/*
 * A sloppy module whose timers' callbacks lie in another module: it uses
 * only the library si_unload_lib (not si_timer), keeps a static si_timer
 * (DEFINE_SI_TIMER) with the library's callback, an si_timer and an
 * si_hrtimer in its .bss set up by the library's functions, has the
 * library arm all three, and unloads without cancelling them. Each
 * re-arms itself every SI_UNLOAD_LIB_PERIOD_MS. Unload safety must find
 * them by their memory, which goes with this module first (the library
 * cannot go while this module uses it), report each once and cancel it.
 *
 * As si_unload_sloppy, its KTAP document announces the line expected for
 * each timer, here with the callback's module:
 *	# SI_UNLOAD_EXPECT <state|...> <callback> <armed by|...> si_unload_lib
 * The harness (init.sh) loads the library first, unloads this module,
 * checks the report, waits several periods (a timer missed would fire in
 * freed memory meanwhile) and only then unloads the library.
 */
#include <linux/module.h>
#include "si_test.h"
#include "si_unload_lib.h"

/* Module data, none of it set up or armed by this module's own calls. */
static DEFINE_SI_TIMER(static_timer, si_unload_lib_fn);
static struct si_timer bss_timer;
static struct si_hrtimer bss_hrtimer;

/* Does this module use @name (resolved symbols of it)? */
static bool uses_module(const char *name)
{
	struct module_use *use;

	list_for_each_entry(use, &THIS_MODULE->target_list, target_list)
		if (!strcmp(use->target->name, name))
			return true;
	return false;
}

static void expect(const char *callback, const char *armed_by)
{
	si_diag("SI_UNLOAD_EXPECT armed|queued|running %s %s si_unload_lib", callback, armed_by);
}

/*
 * The case the unload must handle: none of this module's timers was set
 * up by it, and it has no si_timer symbol of its own to be known by.
 */
SI_CHECKED(t_uses_the_library_not_si_timer)
{
	SI_CHECK(uses_module("si_unload_lib") && !uses_module("si_timer"),
		 "uses si_unload_lib %d, si_timer %d: want 1, 0",
		 uses_module("si_unload_lib"), uses_module("si_timer"));
}

SI_CHECKED(t_static_timer_library_callback)
{
	si_unload_lib_arm(&static_timer);
	if (SI_CHECK(si_unload_lib_pending(&static_timer), "not pending once armed"))
		expect("si_unload_lib_fn", "si_unload_lib_arm|si_unload_lib_fn");
}

SI_CHECKED(t_bss_timer_set_up_by_library)
{
	si_unload_lib_setup(&bss_timer);
	si_unload_lib_arm(&bss_timer);
	if (SI_CHECK(si_unload_lib_pending(&bss_timer), "not pending once armed"))
		expect("si_unload_lib_setup_fn", "si_unload_lib_arm|si_unload_lib_setup_fn");
}

SI_CHECKED(t_bss_hrtimer_set_up_by_library)
{
	si_unload_lib_hr_setup(&bss_hrtimer);
	si_unload_lib_hr_start(&bss_hrtimer);
	if (SI_CHECK(si_unload_lib_pending(&bss_hrtimer.base), "not queued once started"))
		expect("si_unload_lib_hr_fn", "si_unload_lib_hr_start");
}

/*
 * They fire and re-arm: a timer the unload missed would run again within
 * a period of the module's memory being freed.
 */
SI_CHECKED(t_they_rearm)
{
	SI_CHECK(si_wait_until(si_unload_lib_runs() >= 4 && si_unload_lib_hr_runs() >= 2, 10000),
		 "in 10 s: %d runs of the si_timers, %d of the si_hrtimer; want 4, 2",
		 si_unload_lib_runs(), si_unload_lib_hr_runs());
	SI_CHECK(si_unload_lib_pending(&static_timer) && si_unload_lib_pending(&bss_timer) &&
		 si_unload_lib_pending(&bss_hrtimer.base), "one is no longer pending");
}

static const struct si_test tests[] = {
	SI_TEST(t_uses_the_library_not_si_timer),
	SI_TEST(t_static_timer_library_callback),
	SI_TEST(t_bss_timer_set_up_by_library),
	SI_TEST(t_bss_hrtimer_set_up_by_library),
	SI_TEST(t_they_rearm),
};

static int __init cross_init(void)
{
	return si_ktap_run(tests, ARRAY_SIZE(tests));
}
module_init(cross_init);

/* Sloppy on purpose: the timers are left to unload safety. */
static void __exit cross_exit(void)
{
}
module_exit(cross_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer test: a module unloading with timers whose callbacks lie in a library module (KTAP)");
