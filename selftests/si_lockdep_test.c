// SPDX-License-Identifier: GPL-2.0
/*
 * Lockdep sees an si_timer callback as it sees a timer_list callback, and
 * tells the truth about what opting in changes:
 *
 * - a lock held across si_timer_delete_sync() that the callback also takes
 *   is a deadlock (the callback may be running, waiting for that lock,
 *   while the deleter waits for the callback), reported even when it does
 *   not happen; also with bottom halves disabled around the cancel on RT;
 * - off RT, an opted-in callback runs with softirqs enabled: a lock it
 *   takes with plain spin_lock() that a softirq also takes is reported (a
 *   softirq on its CPU may spin on it), as for any task;
 * - a cycle of synchronous cancels across executors, through a tasklet
 *   run inside a soft-interruptible callback (si_cycle.h), is reported
 *   (off RT as an irq lock inversion between the two timers' maps, on RT
 *   as their circular dependency), also where the run time refuses the
 *   wait that would close it (-EDEADLK);
 * - legal use is quiet: a tasklet cancelling a soft-interruptible timer, a
 *   compatible callback sharing a plain lock with a tasklet.
 *
 * Lockdep switches itself off after its first report, so a boot provokes
 * one, chosen by the parameter report= (held, softirq, bh, cycle; the
 * matrix boots NAME-lockdep-CASE for the last three), after the quiet cases.
 * This module is the last of Kbuild's si_tests. On
 * kernels without CONFIG_LOCKDEP (Debian's) every case is skipped.
 */
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <si_timer.h>
#include "si_test.h"
#include "vecmask.h"
#include "si_trace.h"
#include "si_cycle.h"

static char *report = "held";
module_param(report, charp, 0444);
MODULE_PARM_DESC(report, "the one lockdep report to provoke: held, softirq, bh, cycle");

static DEFINE_SPINLOCK(taken_by_callback);
static DEFINE_SPINLOCK(not_taken_by_callback);
static DEFINE_SPINLOCK(taken_under_bh);
static DEFINE_SPINLOCK(shared_with_tasklet);
static DEFINE_SPINLOCK(compat_shared_with_tasklet);
static int runs;

static void lt_fn(struct si_timer *t)
{
	spin_lock(&taken_by_callback);
	WRITE_ONCE(runs, runs + 1);
	spin_unlock(&taken_by_callback);
}

/*
 * Off RT it enables softirqs while its map is held: the usage a tasklet's
 * cancel met. On RT a callback that enters BH sections, cancelled under BH
 * from another CPU, can deadlock (that CPU's BH holder may be cancelling
 * one of ours in turn), which lockdep reports; so it does not there.
 */
static void lt_bh_fn(struct si_timer *t)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		spin_lock_bh(&taken_under_bh);
	WRITE_ONCE(runs, runs + 1);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		spin_unlock_bh(&taken_under_bh);
}

static void lt_shared_fn(struct si_timer *t)
{
	spin_lock(&shared_with_tasklet);
	WRITE_ONCE(runs, runs + 1);
	spin_unlock(&shared_with_tasklet);
}

static void lt_compat_shared_fn(struct si_timer *t)
{
	spin_lock(&compat_shared_with_tasklet);
	WRITE_ONCE(runs, runs + 1);
	spin_unlock(&compat_shared_with_tasklet);
}

static int lt_other_cpu(void)
{
	int cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());

	return cpu < nr_cpu_ids ? cpu : raw_smp_processor_id();
}

/* Let the callback run once on another CPU, so that lockdep knows what it takes. */
static bool lt_run_once(struct si_timer *t)
{
	WRITE_ONCE(runs, 0);
	t->expires = jiffies + 1;
	si_add_timer_on(t, lt_other_cpu());
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
 * Let a timer's callback run once, then delete the timer synchronously
 * while holding @lock, with bottom halves disabled first if @bh.
 */
static void lt_delete_sync_holding(spinlock_t *lock, unsigned int flags, bool bh)
{
	struct si_timer t;

	si_timer_setup_on_stack(&t, lt_fn, flags | SI_TIMER_PINNED);
	SI_CHECK(lt_run_once(&t), "callback did not run");
	if (bh)
		local_bh_disable();
	spin_lock(lock);
	si_timer_delete_sync(&t);
	spin_unlock(lock);
	if (bh)
		local_bh_enable();
	si_destroy_timer_on_stack(&t);
}

/* A tasklet that runs @fn(@t) once; the caller waits for it. */
struct lt_tasklet {
	struct tasklet_struct tasklet;
	void (*fn)(struct si_timer *t);
	struct si_timer *t;
	bool done;
};

static void lt_tasklet_fn(struct tasklet_struct *tl)
{
	struct lt_tasklet *lt = from_tasklet(lt, tl, tasklet);

	lt->fn(lt->t);
	WRITE_ONCE(lt->done, true);
}

static bool lt_in_tasklet(void (*fn)(struct si_timer *t), struct si_timer *t)
{
	struct lt_tasklet lt = { .fn = fn, .t = t };

	tasklet_setup(&lt.tasklet, lt_tasklet_fn);
	tasklet_schedule(&lt.tasklet);
	si_wait_until(READ_ONCE(lt.done), 2000);
	tasklet_kill(&lt.tasklet);
	return READ_ONCE(lt.done);
}

static void lt_cancel(struct si_timer *t)
{
	si_timer_delete_sync(t);
}

/* ---- quiet: what lockdep must not report --------------------------- */

/* The control: a lock the callback does not take is fine. */
SI_CHECKED(t_unrelated_lock_across_delete_sync_is_quiet)
{
	if (lt_skip())
		return;
	lt_delete_sync_holding(&not_taken_by_callback, SI_TIMER_SOFTINTERRUPTIBLE, false);
	SI_CHECK(debug_locks, "lockdep reported a lock the callback does not take");
}

/*
 * The callback held its map with softirqs enabled (it left a BH section);
 * a tasklet on another CPU cancelling it is legal, and the one softirq
 * that could wait for the callback it interrupted is refused at run time.
 */
SI_CHECKED(t_tasklet_cancel_of_si_timer_is_quiet)
{
	struct si_timer t;

	if (lt_skip())
		return;
	si_timer_setup_on_stack(&t, lt_bh_fn, SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_PINNED);
	SI_CHECK(lt_run_once(&t), "callback did not run");
	SI_CHECK(lt_in_tasklet(lt_cancel, &t), "the tasklet did not run");
	si_timer_delete_sync(&t);
	si_destroy_timer_on_stack(&t);
	SI_CHECK(debug_locks, "lockdep reported the cancel from a tasklet");
}

static void lt_take_compat_shared(struct si_timer *unused)
{
	spin_lock(&compat_shared_with_tasklet);
	spin_unlock(&compat_shared_with_tasklet);
}

/* A compatible callback runs with bottom halves disabled, as timer_list's. */
SI_CHECKED(t_compat_callback_plain_lock_shared_with_tasklet_is_quiet)
{
	struct si_timer t;

	if (lt_skip())
		return;
	si_timer_setup_on_stack(&t, lt_compat_shared_fn, SI_TIMER_PINNED);
	SI_CHECK(lt_run_once(&t), "callback did not run");
	SI_CHECK(lt_in_tasklet(lt_take_compat_shared, NULL), "the tasklet did not run");
	si_timer_delete_sync(&t);
	si_destroy_timer_on_stack(&t);
	SI_CHECK(debug_locks, "lockdep reported a compatible callback's plain lock");
}

/* ---- reported: one per boot ---------------------------------------- */

static void t_held_lock(void)
{
	si_expect_warn("possible circular locking dependency detected");
	lt_delete_sync_holding(&taken_by_callback, SI_TIMER_SOFTINTERRUPTIBLE, false);
	SI_CHECK(!debug_locks,
		 "lockdep did not report the lock held across si_timer_delete_sync()");
}

static void lt_take_shared(struct si_timer *unused)
{
	spin_lock(&shared_with_tasklet);
	spin_unlock(&shared_with_tasklet);
}

/*
 * Off RT, the deadlock a migrated callback brings: it takes with plain
 * spin_lock() a lock a softirq takes, and runs with softirqs enabled now.
 * On RT it is none (both sleep on the lock, in tasks), and lockdep does
 * not track softirq context there.
 */
static void t_softirq_lock(void)
{
	struct si_timer t;

	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		si_skip("PREEMPT_RT: softirqs run in tasks, the lock sleeps; not a deadlock there");
		return;
	}
	/* the title; "inconsistent {SOFTIRQ-ON-W} -> {IN-SOFTIRQ-W} usage." follows */
	si_expect_warn("WARNING: inconsistent lock state");
	si_timer_setup_on_stack(&t, lt_shared_fn, SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_PINNED);
	SI_CHECK(lt_run_once(&t), "callback did not run");
	SI_CHECK(lt_in_tasklet(lt_take_shared, NULL), "the tasklet did not run");
	si_timer_delete_sync(&t);
	si_destroy_timer_on_stack(&t);
	SI_CHECK(!debug_locks,
		 "lockdep did not report an opted-in callback's plain lock that a softirq takes");
}

/* the same deadlock as "held", with bottom halves disabled around it */
static void t_bh_cancel(void)
{
	si_expect_warn("possible circular locking dependency detected");
	lt_delete_sync_holding(&taken_by_callback, SI_TIMER_SOFTINTERRUPTIBLE, true);
	SI_CHECK(!debug_locks,
		 "lockdep did not report the lock held across si_timer_delete_sync() under BH");
}

/*
 * A tasklet inside T1's callback cancels T2, whose callback cancels T1:
 * refused at run time (the tasklet's wait, which comes second), and
 * reported by lockdep, on RT and off.
 */
static struct cycle lt_cycle;

static void t_cycle(void)
{
	int a = lt_other_cpu(), b = cpumask_next(a, cpu_online_mask);
	struct cycle *c = &lt_cycle;

	if (b >= nr_cpu_ids)
		b = cpumask_first(cpu_online_mask);
	if (b == a || !si_vecmask_available()) {
		si_skip("needs two other CPUs and the vector mask");
		return;
	}
	/*
	 * Off RT the tasklet's cancel makes T2's map a softirq-taken one that
	 * leads to T1's, held with softirqs on; RT lockdep has no softirq
	 * states, and sees the two maps' cycle.
	 */
	si_expect_warn(IS_ENABLED(CONFIG_PREEMPT_RT) ?
		       "possible circular locking dependency detected" :
		       "possible irq lock inversion dependency detected");
	si_expect_warn("would wait for a callback that waits for");
	SI_CHECK(cycle_run(c, CYCLE_CALLBACK_FIRST, CYCLE_VIA_TASKLET, a, b),
		 "callbacks did not return");
	si_diag("tasklet inside T1's callback %d, window %d, tasklet's cancel %d, T2's %d",
		c->holder_inside, c->window, c->holder_ret, c->t2_ret);
	SI_CHECK(c->holder_inside && c->window, "window not reached");
	SI_CHECK(c->holder_ret == -EDEADLK && !c->t2_ret,
		 "tasklet's cancel returned %d, T2's %d", c->holder_ret, c->t2_ret);
	SI_CHECK(!debug_locks, "lockdep did not report the cycle of cancels");
}

static const struct {
	const char *name;
	void (*fn)(void);
} reports[] = {
	{ "held", t_held_lock },
	{ "softirq", t_softirq_lock },
	{ "bh", t_bh_cancel },
	{ "cycle", t_cycle },
};

SI_CHECKED(t_the_chosen_deadlock_is_reported)
{
	unsigned int i;

	if (lt_skip())
		return;
	for (i = 0; i < ARRAY_SIZE(reports); i++) {
		if (!strcmp(report, reports[i].name)) {
			si_diag("provoking: %s", report);
			reports[i].fn();
			return;
		}
	}
	si_fail("unknown report=%s (held, softirq, bh, cycle)", report);
}

static const struct si_test tests[] = {
	SI_TEST(t_unrelated_lock_across_delete_sync_is_quiet),
	SI_TEST(t_tasklet_cancel_of_si_timer_is_quiet),
	SI_TEST(t_compat_callback_plain_lock_shared_with_tasklet_is_quiet),
	SI_TEST(t_the_chosen_deadlock_is_reported),
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
MODULE_DESCRIPTION("si_timer: lockdep sees si_timer callbacks like timer callbacks, truthfully");
