// SPDX-License-Identifier: GPL-2.0
/*
 * Lockdep sees an si_timer callback as it sees a timer_list callback: a
 * lock held across si_timer_delete_sync() that the callback also takes is
 * a deadlock (the callback may be running, waiting for that lock, while
 * the deleter waits for the callback) and must be reported even when it
 * does not happen. The executor holds the timer's lockdep map across the
 * callback; si_timer_delete_sync() acquires the same map.
 *
 * Lockdep turns itself off after its first report, so this module is the
 * last in the list (Kbuild's si_tests) and reports it only once per boot.
 * On kernels without CONFIG_LOCKDEP (Debian's) both cases are skipped.
 */
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <si_timer.h>
#include "si_test.h"

static DEFINE_SPINLOCK(taken_by_callback);
static DEFINE_SPINLOCK(not_taken_by_callback);
static int runs;

static void lt_fn(struct si_timer *t)
{
	spin_lock(&taken_by_callback);
	WRITE_ONCE(runs, runs + 1);
	spin_unlock(&taken_by_callback);
}

/* Let the callback run once, so that lockdep knows what it takes. */
static bool lt_run_once(struct si_timer *t)
{
	WRITE_ONCE(runs, 0);
	si_mod_timer(t, jiffies + 1);
	si_wait_until(READ_ONCE(runs), 2000);
	return READ_ONCE(runs) == 1;
}

static bool lt_skip(void)
{
	if (!IS_ENABLED(CONFIG_LOCKDEP)) {
		si_skip("kernel without CONFIG_LOCKDEP");
		return true;
	}
	if (!debug_locks) {
		si_fail("lockdep is already off (an earlier report?)");
		return true;
	}
	return false;
}

/*
 * Let a timer's callback run once, so that lockdep knows what it takes,
 * then delete the timer synchronously while holding @lock.
 */
static void lt_delete_sync_holding(spinlock_t *lock)
{
	struct si_timer t;

	si_timer_setup_on_stack(&t, lt_fn, 0);
	SI_CHECK(lt_run_once(&t), "callback did not run");
	spin_lock(lock);
	si_timer_delete_sync(&t);
	spin_unlock(lock);
	si_destroy_timer_on_stack(&t);
}

/* The control: a lock the callback does not take is fine. */
SI_CHECKED(t_unrelated_lock_across_delete_sync_is_quiet)
{
	if (lt_skip())
		return;
	lt_delete_sync_holding(&not_taken_by_callback);
	SI_CHECK(debug_locks, "lockdep reported a lock the callback does not take");
}

SI_CHECKED(t_callback_lock_across_delete_sync_is_reported)
{
	if (lt_skip())
		return;
	si_expect_warn("possible circular locking dependency detected");
	lt_delete_sync_holding(&taken_by_callback);
	SI_CHECK(!debug_locks,
		 "lockdep did not report the lock held across si_timer_delete_sync()");
}

static const struct si_test tests[] = {
	SI_TEST(t_unrelated_lock_across_delete_sync_is_quiet),
	SI_TEST(t_callback_lock_across_delete_sync_is_reported),
};

static int __init lt_init(void)
{
	return si_ktap_run(tests, ARRAY_SIZE(tests));
}
module_init(lt_init);

static void __exit lt_exit(void)
{
}
module_exit(lt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer: lockdep sees si_timer callbacks like timer callbacks");
