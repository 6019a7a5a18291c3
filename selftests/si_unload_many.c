// SPDX-License-Identifier: GPL-2.0
/*
 * A module that arms `count` (default 1,000,000) si_timers far ahead,
 * spread over the online CPUs, in memory it allocated, and unloads with
 * them armed (the memory leaked, still valid), or with tidy=1 cancels
 * them in its exit as it should. The harness (init.sh) times the unload of
 * both and checks that unload safety reports the first timers on a line
 * each and all of them on one summary line, takes at most twice as long as
 * the module cancelling them itself, and misses none while CPUs go
 * offline and online during the unload.
 */
#include <linux/module.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include "si_test.h"

/*
 * A million where it matters, the kernels users run. The debug kernels
 * track each armed timer as a debugobject and shadow its memory (KASAN),
 * several times slower under TCG: a tenth there, the same checks.
 */
#if IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS) || IS_ENABLED(CONFIG_KASAN)
#define SI_MANY_DEFAULT	100000
#else
#define SI_MANY_DEFAULT	1000000
#endif
static unsigned int count = SI_MANY_DEFAULT;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "timers armed (default 1,000,000; 100,000 on debug kernels)");
static bool tidy;
module_param(tidy, bool, 0444);
MODULE_PARM_DESC(tidy, "cancel them in the exit (default: leave them to unload safety)");

static struct si_timer *timers;

static void many_fn(struct si_timer *t)
{
}

/* The report names the arming call's caller: no tail call (barrier()). */
static noinline void many_arm(struct si_timer *t, int cpu)
{
	si_add_timer_on(t, cpu);
	barrier();
}

SI_CHECKED(t_arm_many)
{
	unsigned long expires = jiffies + 3600 * HZ;
	unsigned int i, pending = 0;
	int cpu = cpumask_first(cpu_online_mask);
	u64 t0 = ktime_get_ns();

	timers = kvcalloc(count, sizeof(*timers), GFP_KERNEL);
	if (!SI_CHECK(timers, "kvcalloc of %u timers failed", count))
		return;
	for (i = 0; i < count; i++) {
		struct si_timer *t = &timers[i];

		si_timer_setup(t, many_fn, 0);
		t->expires = expires + i % 64;
		many_arm(t, cpu);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		if (!(i % 1024))
			cond_resched();
	}
	for (i = 0; i < count; i++)
		pending += si_timer_pending(&timers[i]);
	si_diag("%u timers armed on %u CPUs in %llu ms; tidy=%d",
		pending, num_online_cpus(), (ktime_get_ns() - t0) / NSEC_PER_MSEC, tidy);
	SI_CHECK(pending == count, "%u of %u pending", pending, count);
}

static const struct si_test tests[] = {
	SI_TEST(t_arm_many),
};

static int __init many_init(void)
{
	return si_ktap_run(tests, ARRAY_SIZE(tests));
}
module_init(many_init);

static void __exit many_exit(void)
{
	unsigned int i;

	if (!tidy || !timers)
		return;		/* leaked, armed: unload safety's */
	for (i = 0; i < count; i++) {
		si_timer_delete_sync(&timers[i]);
		if (!(i % 1024))
			cond_resched();
	}
	kvfree(timers);
}
module_exit(many_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer test: a module that unloads with a million timers armed, or cancels them (KTAP)");
