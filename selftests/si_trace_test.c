// SPDX-License-Identifier: GPL-2.0
/*
 * si_timer's tracepoints, read back through tracefs: init.sh enables
 * events/si_timer before loading this module, which takes one timer
 * through a known sequence (set up, armed on a CPU, expired and run there,
 * armed again, cancelled) and announces the events its callback's name
 * must have in the trace, in order:
 *	# SI_TRACE_EXPECT <function> <event>[:<text on its line>]...
 * init.sh then checks the trace against it.
 */
#include <linux/module.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/smp.h>
#include <si_timer.h>
#include "si_test.h"

static struct si_timer timer;
static DECLARE_COMPLETION(ran);
static bool ran_soft;

static void si_trace_fn(struct si_timer *t)
{
	ran_soft = !softirq_count();
	complete(&ran);
}

SI_CHECKED(t_known_sequence)
{
	unsigned int cpu = cpumask_last(cpu_online_mask);
	static char expected[320];
	const char *mode;

	si_timer_setup(&timer, si_trace_fn, SI_TIMER_SOFTINTERRUPTIBLE);
	timer.expires = jiffies + 2;
	si_add_timer_on(&timer, cpu);
	if (!SI_CHECK(wait_for_completion_timeout(&ran, 10 * HZ),
		      "callback did not run within 10 s")) {
		si_timer_delete_sync(&timer);
		return;
	}
	/*
	 * Not pending: cancel_sync only. The callback may not have returned
	 * yet (complete() wakes us first), so running is known only for the
	 * second one.
	 */
	si_timer_delete_sync(&timer);
	si_timer_delete_sync(&timer);
	si_mod_timer(&timer, jiffies + 600 * HZ);
	SI_CHECK(si_timer_delete(&timer) == 1, "the re-armed timer was not pending");
	mode = ran_soft ? "soft-interruptible" : "compatible";
	snprintf(expected, sizeof(expected),
		 "si_trace_fn si_timer_init:flags=SOFTINTERRUPTIBLE si_timer_start:cpu=%u %s%u %s%s %s%s %s %s",
		 cpu, "si_timer_queue:executor=", cpu, "si_timer_expire_entry:mode=", mode,
		 "si_timer_expire_exit:mode=", mode,
		 "si_timer_cancel_sync si_timer_cancel_sync:running=0",
		 "si_timer_start si_timer_cancel");
	si_diag("SI_TRACE_EXPECT %s", expected);
}

static const struct si_test tests[] = {
	SI_TEST(t_known_sequence),
};

static int __init trace_test_init(void)
{
	return si_ktap_run(tests, ARRAY_SIZE(tests));
}
module_init(trace_test_init);

static void __exit trace_test_exit(void)
{
}
module_exit(trace_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer test: tracepoints of a known sequence, checked through tracefs (KTAP)");
