// SPDX-License-Identifier: GPL-2.0
/*
 * si_timer's tracepoints, read back through tracefs: init.sh enables
 * events/si_timer before loading this module, which takes one timer
 * through a known sequence (set up, armed on a CPU, expired and run there,
 * armed again, cancelled) and announces the events its callback's name
 * must have in the trace, in order:
 *	# SI_TRACE_EXPECT <function> <event>[:<text on its line>]...
 * init.sh then checks the trace against it. Then the same for an
 * si_hrtimer, whose events name its callback too, not the trampoline.
 */
#include <linux/module.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/smp.h>
#include <si_hrtimer.h>
#include "si_test.h"
#include "si_trace.h"

/*
 * The callback goes on this long after waking the test, so that the first
 * synchronous cancel finds it running and waits: one event all the same.
 */
#define SI_TRACE_LINGER_MS	50

static struct si_timer timer;
static DECLARE_COMPLETION(ran);
static bool ran_soft;
static atomic_t cancel_looks_running = ATOMIC_INIT(0);

static void si_trace_fn(struct si_timer *t)
{
	ran_soft = !softirq_count();
	complete(&ran);
	mdelay(SI_TRACE_LINGER_MS);
}

static void si_trace_saw_cancel_sync(void *data, struct si_timer *t, bool running)
{
	if (t == &timer && running)
		atomic_inc(&cancel_looks_running);
}

SI_CHECKED(t_known_sequence)
{
	unsigned int cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	static char expected[320];
	const char *mode;
	bool waited;

	if (cpu >= nr_cpu_ids)
		cpu = raw_smp_processor_id();
	if (!SI_CHECK(!register_trace_si_timer_cancel_sync(si_trace_saw_cancel_sync, NULL),
		      "cannot attach to si_timer_cancel_sync"))
		return;
	si_timer_setup(&timer, si_trace_fn, SI_TIMER_SOFTINTERRUPTIBLE);
	timer.expires = jiffies + 2;
	si_add_timer_on(&timer, cpu);
	if (!SI_CHECK(wait_for_completion_timeout(&ran, 10 * HZ),
		      "callback did not run within 10 s")) {
		si_timer_delete_sync(&timer);
		goto out;
	}
	/*
	 * Not pending: cancel_sync only, once per call. The first one most
	 * likely waits for the lingering callback (running=1, unless this
	 * thread ran late); the second cannot find it running.
	 */
	si_timer_delete_sync(&timer);
	waited = atomic_read(&cancel_looks_running);
	si_diag("the first delete_sync %s", waited ?
		"found the callback running and waited (window reached)" :
		"came after the callback returned (window not reached)");
	si_timer_delete_sync(&timer);
	si_mod_timer(&timer, jiffies + 600 * HZ);
	SI_CHECK(si_timer_delete(&timer) == 1, "the re-armed timer was not pending");
	mode = ran_soft ? "soft-interruptible" : "compatible";
	/* A first cancel that waited comes before the callback's exit. */
	snprintf(expected, sizeof(expected),
		 "si_trace_fn si_timer_init:flags=SOFTINTERRUPTIBLE si_timer_start:cpu=%u %s%u %s%s%s %s%s%s %s %s",
		 cpu, "si_timer_queue:executor=", cpu, "si_timer_expire_entry:mode=", mode,
		 waited ? " si_timer_cancel_sync:running=1" : "",
		 "si_timer_expire_exit:mode=", mode,
		 waited ? "" : " si_timer_cancel_sync:running=0",
		 "si_timer_cancel_sync:running=0", "si_timer_start si_timer_cancel");
	si_diag("SI_TRACE_EXPECT %s", expected);
out:
	unregister_trace_si_timer_cancel_sync(si_trace_saw_cancel_sync, NULL);
	tracepoint_synchronize_unregister();
}

static struct si_hrtimer hr;
static DECLARE_COMPLETION(hr_ran);

static enum hrtimer_restart si_trace_hr_fn(struct si_hrtimer *t)
{
	complete(&hr_ran);
	return HRTIMER_NORESTART;
}

static void si_trace_hr_start(void *in)
{
	si_hrtimer_start(&hr, *(ktime_t *)in, HRTIMER_MODE_REL_PINNED);
}

SI_CHECKED(t_hrtimer_sequence)
{
	unsigned int cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	ktime_t soon = ms_to_ktime(2), far = ktime_set(600, 0);
	static char expected[400];
	int ret;

	if (cpu >= nr_cpu_ids)
		cpu = raw_smp_processor_id();
	si_hrtimer_setup(&hr, si_trace_hr_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL, 0);
	si_ktap_run_on_cpu(cpu, si_trace_hr_start, &soon, false, 0);
	if (!SI_CHECK(wait_for_completion_timeout(&hr_ran, 10 * HZ),
		      "callback did not run within 10 s")) {
		si_hrtimer_cancel(&hr);
		return;
	}
	ret = si_hrtimer_cancel(&hr);
	SI_CHECK(ret == 0, "cancel after the callback returned %d", ret);
	si_ktap_run_on_cpu(cpu, si_trace_hr_start, &far, false, 0);
	ret = si_hrtimer_try_to_cancel(&hr);
	SI_CHECK(ret == 1, "try_to_cancel of the armed timer returned %d", ret);
	snprintf(expected, sizeof(expected),
		 "si_trace_hr_fn si_timer_init:flags=HRTIMER si_hrtimer_start:cpu=%u si_hrtimer_expire %s%u %s %s %s si_hrtimer_start:cpu=%u si_timer_cancel %s",
		 cpu, "si_timer_queue:executor=", cpu, "si_timer_expire_entry:mode=compatible",
		 "si_timer_expire_exit:mode=compatible", "si_timer_cancel_sync:running=0", cpu,
		 "si_timer_cancel_sync:running=0");
	si_diag("SI_TRACE_EXPECT %s", expected);
}

static const struct si_test tests[] = {
	SI_TEST(t_known_sequence),
	SI_TEST(t_hrtimer_sequence),
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
