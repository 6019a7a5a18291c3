// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately sloppy user of si_timer: its exit leaves timers armed,
 * queued and running, some re-arming themselves, in module data and in
 * memory it allocated and leaks. si_timer must cancel them when the module
 * goes (module/unload.c), with no crash and one report line per timer.
 *
 * Its KTAP document checks that each timer is where it should be when
 * module_init returns, and announces the line expected for it:
 *	# SI_UNLOAD_EXPECT <state|state...> <callback> <function that armed it>
 * The harness (init.sh) then unloads it and checks that each announced
 * line was printed once and no other, and that si_timer unloads cleanly.
 */
#include <linux/module.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <si_hrtimer.h>
#include "si_test.h"

/* The blocking callback returns this long after the exit ran, at most. */
#define BLOCK_AFTER_EXIT_MS	1000
#define BLOCK_MAX_MS		10000

/* Module data. */
static struct si_timer static_armed, blocker_static, periodic, tidy;
/* Allocated and never freed: still valid memory after the module went. */
static struct si_timer *heap_armed, *blocker_heap;

static atomic_t blockers_started = ATOMIC_INIT(0);
static struct si_timer *blocker_running;
static atomic_t periodic_runs = ATOMIC_INIT(0);
static struct si_hrtimer *hr_armed, *hr_periodic;
static atomic_t hr_periodic_runs = ATOMIC_INIT(0);
static u64 loaded_ns;		/* 0 until module_init returned */
static u64 exit_ns;		/* 0 until the exit ran */

static void static_armed_fn(struct si_timer *t)
{
}

static void heap_armed_fn(struct si_timer *t)
{
}

static void tidy_fn(struct si_timer *t)
{
}

/*
 * The report names the caller of the arming call (its return address): a
 * tail call would make that its caller's caller, so the arming functions
 * below end with a barrier after the call.
 */
static void periodic_fn(struct si_timer *t)
{
	atomic_inc(&periodic_runs);
	si_mod_timer(t, jiffies + 1);
	barrier();
}

/*
 * Both blockers expire together on one CPU: the first to run keeps that
 * executor until the module is going, so the other waits queued behind
 * it; then it re-arms itself, as the module goes. Should the exit never
 * come, it stops BLOCK_MAX_MS after module_init returned (before that,
 * after it started): the harness has that long to unload us, and RCU
 * does not call it a stall (21 s).
 */
static void blocker_fn(struct si_timer *t)
{
	u64 start = ktime_get_ns();

	if (atomic_inc_return(&blockers_started) != 1)
		return;
	WRITE_ONCE(blocker_running, t);
	for (;;) {
		/*
		 * The stamps before the clock: read the other way round, one
		 * written in between is later than now, and now minus it
		 * wraps to "long past" (KCSAN's delays on these reads made
		 * that window wide enough: the blocker quit as init returned).
		 */
		u64 exited = READ_ONCE(exit_ns), loaded = READ_ONCE(loaded_ns);
		s64 now = ktime_get_ns();

		if (exited && now - (s64)exited > BLOCK_AFTER_EXIT_MS * NSEC_PER_MSEC)
			break;
		if (now - (s64)(loaded ?: start) > BLOCK_MAX_MS * NSEC_PER_MSEC)
			break;
		cpu_relax();
	}
	si_mod_timer(t, jiffies + 1);
}

static enum hrtimer_restart hr_armed_fn(struct si_hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart hr_periodic_fn(struct si_hrtimer *t)
{
	atomic_inc(&hr_periodic_runs);
	si_hrtimer_forward_now(t, ms_to_ktime(1));
	return HRTIMER_RESTART;
}

static noinline void sloppy_start_hr(struct si_hrtimer *t, ktime_t in)
{
	si_hrtimer_start(t, in, HRTIMER_MODE_REL);
	barrier();
}

/* The arming call sites that the report names. */
static noinline void sloppy_arm_far(struct si_timer *t)
{
	si_mod_timer(t, jiffies + 600 * HZ);
	barrier();
}

static noinline void sloppy_arm_blockers(int cpu)
{
	unsigned long expires = jiffies + 2;

	blocker_static.expires = expires;
	blocker_heap->expires = expires;
	si_add_timer_on(&blocker_static, cpu);
	si_add_timer_on(blocker_heap, cpu);
	barrier();
}

static void expect(const char *states, const char *callback, const char *armed_by)
{
	si_diag("SI_UNLOAD_EXPECT %s %s %s", states, callback, armed_by);
}

SI_CHECKED(t_armed_in_module_data)
{
	si_timer_setup(&static_armed, static_armed_fn, 0);
	sloppy_arm_far(&static_armed);
	if (SI_CHECK(si_timer_pending(&static_armed), "not pending once armed"))
		expect("armed", "static_armed_fn", "sloppy_arm_far");
}

SI_CHECKED(t_armed_in_leaked_memory)
{
	heap_armed = kzalloc(sizeof(*heap_armed), GFP_KERNEL);
	if (!SI_CHECK(heap_armed, "kzalloc failed"))
		return;
	si_timer_setup(heap_armed, heap_armed_fn, SI_TIMER_SOFTINTERRUPTIBLE);
	sloppy_arm_far(heap_armed);
	if (SI_CHECK(si_timer_pending(heap_armed), "not pending once armed"))
		expect("armed", "heap_armed_fn", "sloppy_arm_far");
}

/* One blocker runs and re-arms itself as the module goes, one is queued. */
SI_CHECKED(t_running_and_queued)
{
	struct si_timer *queued;
	int cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());

	if (cpu >= nr_cpu_ids) {
		si_skip("one CPU online: no other CPU to block");
		return;
	}
	blocker_heap = kzalloc(sizeof(*blocker_heap), GFP_KERNEL);
	if (!SI_CHECK(blocker_heap, "kzalloc failed"))
		return;
	si_timer_setup(&blocker_static, blocker_fn, 0);
	si_timer_setup(blocker_heap, blocker_fn, 0);
	sloppy_arm_blockers(cpu);
	/*
	 * Spin, not sleep: while a blocker holds its CPU, that CPU's timer
	 * softirq is held off (BH disabled, or on RT the BH lock held), and a
	 * sleeper's wake-up timer may be one it expires (6.12's timer
	 * migration hands idle CPUs' timers to busy ones).
	 */
	if (!SI_CHECK(si_spin_until(READ_ONCE(blocker_running), 10000),
		      "no blocker ran on CPU %d within 10 s", cpu))
		return;
	queued = blocker_running == blocker_heap ? &blocker_static : blocker_heap;
	/* Expired (collected from the wheel) but not run: queued. */
	si_spin_until(!si_in_wheel(queued) && si_timer_pending(queued), 2000);
	si_diag("blocker in %s memory runs on CPU %d, the other is %s",
		blocker_running == blocker_heap ? "allocated" : "module",
		cpu, si_timer_pending(queued) ? "pending" : "not pending");
	expect("running", "blocker_fn", "sloppy_arm_blockers");
	if (SI_CHECK(atomic_read(&blockers_started) == 1 && si_timer_pending(queued) &&
		     !si_in_wheel(queued),
		     "the second blocker is not queued: %d started, pending %d, in the wheel %d",
		     atomic_read(&blockers_started), si_timer_pending(queued),
		     si_in_wheel(queued)))
		expect("queued", "blocker_fn", "sloppy_arm_blockers");
}

/* Re-arms itself every jiffy: in any state when the module goes. */
SI_CHECKED(t_rearming_itself)
{
	si_timer_setup(&periodic, periodic_fn, SI_TIMER_SOFTINTERRUPTIBLE);
	si_mod_timer(&periodic, jiffies + 1);
	if (SI_CHECK(si_wait_until(atomic_read(&periodic_runs) >= 3, 10000),
		     "%d runs in 10 s", atomic_read(&periodic_runs)))
		expect("armed|queued|running", "periodic_fn", "periodic_fn");
}

/* si_hrtimers: armed far ahead, and one restarting every ms (leaked memory). */
SI_CHECKED(t_hrtimers_armed_and_restarting)
{
	hr_armed = kzalloc(sizeof(*hr_armed), GFP_KERNEL);
	hr_periodic = kzalloc(sizeof(*hr_periodic), GFP_KERNEL);
	if (!SI_CHECK(hr_armed && hr_periodic, "kzalloc failed"))
		return;
	si_hrtimer_setup(hr_armed, hr_armed_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL, 0);
	si_hrtimer_setup(hr_periodic, hr_periodic_fn, CLOCK_BOOTTIME, HRTIMER_MODE_REL,
			 SI_TIMER_SOFTINTERRUPTIBLE);
	sloppy_start_hr(hr_armed, ktime_set(600, 0));
	if (SI_CHECK(si_hrtimer_is_queued(hr_armed), "not queued once started"))
		expect("armed", "hr_armed_fn", "sloppy_start_hr");
	sloppy_start_hr(hr_periodic, ms_to_ktime(1));
	if (SI_CHECK(si_wait_until(atomic_read(&hr_periodic_runs) >= 3, 10000),
		     "%d runs in 10 s", atomic_read(&hr_periodic_runs)))
		expect("armed|queued|running", "hr_periodic_fn", "sloppy_start_hr");
}

/* Cancelled by the exit, as it should be: no report. */
SI_CHECKED(t_tidy_not_reported)
{
	si_timer_setup(&tidy, tidy_fn, 0);
	si_mod_timer(&tidy, jiffies + 600 * HZ);
	SI_CHECK(si_timer_pending(&tidy), "not pending once armed");
}

static const struct si_test tests[] = {
	SI_TEST(t_armed_in_module_data),
	SI_TEST(t_armed_in_leaked_memory),
	SI_TEST(t_rearming_itself),
	SI_TEST(t_hrtimers_armed_and_restarting),
	SI_TEST(t_running_and_queued),
	SI_TEST(t_tidy_not_reported),
};

static int __init sloppy_init(void)
{
	int ret = si_ktap_run(tests, ARRAY_SIZE(tests));

	WRITE_ONCE(loaded_ns, ktime_get_ns());
	return ret;
}
module_init(sloppy_init);

static void __exit sloppy_exit(void)
{
	si_timer_delete_sync(&tidy);
	WRITE_ONCE(exit_ns, ktime_get_ns());
}
module_exit(sloppy_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer test: a module that unloads with its timers pending and running (KTAP)");
