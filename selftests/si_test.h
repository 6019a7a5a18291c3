/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Non-returning assertions on top of si_ktap.h, for every test module: a
 * test that arms timers must always reach its clean-up (an early return
 * would leave a timer armed in freed memory), so a failed check records
 * the failure and carries on. Include from one source file per module.
 *
 *	SI_CHECKED(t_example)
 *	{
 *		int ret = read_something();
 *
 *		if (!SI_CHECK(ret == 0, "read_something: %d", ret))
 *			return;		// nothing armed yet: the rest is moot
 *		si_mod_timer(&t, jiffies + 1);
 *		SI_CHECK(wait(...), "did not fire after %d ms", ms);
 *		si_timer_delete_sync(&t);
 *	}
 *	static const struct si_test tests[] = { SI_TEST(t_example), ... };
 *	... si_ktap_run(tests, ARRAY_SIZE(tests));
 *
 * A failed SI_CHECK() prints the condition and the message, which should
 * give the measured values; it evaluates to the condition, so that a test
 * can stop where going on would be meaningless or unsafe (then returning
 * only once nothing is left armed). To skip, call si_skip("reason") and
 * return.
 * A test is reported "not ok" if any SI_CHECK() failed, else "ok # SKIP"
 * if it called si_skip(), else "ok". The module must not define pr_fmt
 * (see si_ktap.h).
 */
#ifndef _SI_TEST_H
#define _SI_TEST_H

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/stdarg.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <si_timer.h>
#include "si_ktap.h"
#include "si_timer_internal.h"

/*
 * Tests keep timers both on the stack and in static or allocated memory:
 * debugobjects (the debug kernel) wants the on-stack initialiser exactly
 * for the former. Stack frames here end with no timer active, so the
 * tracked objects go away with the stack (debug_check_no_obj_freed()).
 * Like si_timer_setup(), each call site gets its own lockdep class.
 */
/*
 * The per-CPU kernel thread @name/@cpu ("si_timer", "cpuhp"), with a
 * reference, or NULL.
 */
static inline __maybe_unused struct task_struct *si_test_kthread_of(const char *name, int cpu)
{
	char comm[TASK_COMM_LEN];
	struct task_struct *p, *found = NULL;

	snprintf(comm, sizeof(comm), "%s/%d", name, cpu);
	rcu_read_lock();
	for_each_process(p) {
		if ((p->flags & PF_KTHREAD) && !strcmp(p->comm, comm)) {
			found = get_task_struct(p);
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * Armed and not yet due: waiting in its home executor's wheel. Once due it
 * is queued (pending, not in the wheel) until its callback starts.
 */
static inline __maybe_unused bool si_in_wheel(const struct si_timer *timer)
{
	return READ_ONCE(timer->state) & SI_STATE_ARMED;
}

static inline void si_test_timer_init(struct si_timer *timer, si_timer_func_t fn,
				      unsigned int flags, const char *name,
				      struct lock_class_key *key)
{
	if (object_is_on_stack(timer))
		si_init_timer_on_stack_key(timer, fn, flags, name, key);
	else
		si_init_timer_key(timer, fn, flags, name, key);
}

#ifdef CONFIG_LOCKDEP
#define si_test_timer_setup(timer, fn, flags)				\
	do {								\
		static struct lock_class_key __key;			\
									\
		si_test_timer_init((timer), (fn), (flags), #timer, &__key); \
	} while (0)
#else
#define si_test_timer_setup(timer, fn, flags)				\
	si_test_timer_init((timer), (fn), (flags), NULL, NULL)
#endif

static bool si_test_failed;
static char si_test_skip_reason[128];

#define si_diag(fmt, ...)	si_ktap_diag(fmt, ##__VA_ARGS__)
#define si_expect_warn(substr)	si_ktap_expect_warn(substr)

/* Record a failure, with where and the measured values. */
#define si_fail(fmt, ...)						\
	do {								\
		si_test_failed = true;					\
		si_ktap_diag("FAIL %s:%d: " fmt, __func__, __LINE__,	\
			     ##__VA_ARGS__);				\
	} while (0)

/* Check @cond, recording a failure if false; evaluates to @cond. */
#define SI_CHECK(cond, fmt, ...)					\
	({								\
		bool __si_ok = !!(cond);				\
		if (!__si_ok)						\
			si_fail("expected %s: " fmt, #cond, ##__VA_ARGS__); \
		__si_ok;						\
	})

/* Report the current test as skipped, with a reason (unless it failed). */
static __printf(1, 2) __maybe_unused void si_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(si_test_skip_reason, sizeof(si_test_skip_reason), fmt, ap);
	va_end(ap);
}

static inline int si_test_result(void)
{
	int r = si_test_failed ? SI_FAIL :
		si_test_skip_reason[0] ? SI_SKIP : SI_PASS;

	if (r == SI_SKIP)
		si_ktap_why = si_test_skip_reason;
	si_test_failed = false;
	return r;
}

static inline void si_test_begin(void)
{
	si_test_failed = false;
	si_test_skip_reason[0] = '\0';
}

/*
 * Sleep-poll @cond for up to @ms milliseconds; evaluates to its last value.
 * The clock is read before @cond, so that a host stall in between cannot
 * end the wait with @cond not tested after it came true.
 */
#define si_wait_until(cond, ms)						\
	({								\
		unsigned long __end = jiffies + msecs_to_jiffies(ms) + 1; \
		bool __ok, __last;					\
									\
		for (;;) {						\
			__last = !time_before(jiffies, __end);		\
			__ok = (cond);					\
			if (__ok || __last)				\
				break;					\
			usleep_range(100, 200);				\
		}							\
		__ok;							\
	})

/*
 * Spin on @cond for up to @ms milliseconds, by the clock (for windows too
 * tight for a sleep); true if it became true.
 */
#define si_spin_until(cond, ms)						\
	({								\
		u64 __end = ktime_get_ns() + (u64)(ms) * NSEC_PER_MSEC;	\
		bool __ok;						\
									\
		while (!(__ok = (cond)) && ktime_get_ns() < __end)	\
			cpu_relax();					\
		__ok;							\
	})

/*
 * CPU hotplug tests: the CPU they take down and bring back, the highest
 * online one other than @home; -1 without CONFIG_HOTPLUG_CPU or a second
 * CPU.
 */
static inline __maybe_unused int si_test_hotplug_target(int home)
{
	int cpu, target = -1;

	if (IS_ENABLED(CONFIG_HOTPLUG_CPU)) {
		for_each_online_cpu(cpu)
			if (cpu != home)
				target = cpu;
	}
	return target;
}

/* @cpu back online unless it is; a failed check if it cannot be. */
static inline __maybe_unused bool si_test_cpu_up(int cpu)
{
	int ret;

	if (cpu_online(cpu))
		return true;
	ret = add_cpu(cpu);
	return SI_CHECK(!ret && cpu_online(cpu), "add_cpu(%d) returned %d", cpu, ret);
}

static inline int si_test_no_hotplug_target(void)
{
	si_ktap_why = "needs a second online CPU and CONFIG_HOTPLUG_CPU";
	return SI_SKIP;
}

/* @tests, or one skipped case where no CPU can be taken down (@target < 0). */
static inline __maybe_unused void si_test_run_hotplug(const struct si_test *tests,
						      unsigned int n, int target)
{
	static const struct si_test skipped[] = {
		SI_TEST(si_test_no_hotplug_target),
	};

	if (target < 0)
		si_ktap_run(skipped, ARRAY_SIZE(skipped));
	else
		si_ktap_run(tests, n);
}

/* A softirq run by an executor thread (its local_bh_enable(), its irq exit). */
static inline __maybe_unused bool si_test_softirq_on_executor(void)
{
	return in_serving_softirq() && !strncmp(current->comm, "si_timer/", 9);
}

/* The next online CPU after @cpu (-1: none), where a test puts its partners. */
static inline int si_test_next_cpu(int cpu)
{
	unsigned int next = cpu < 0 ? nr_cpu_ids : cpumask_next(cpu, cpu_online_mask);

	return next < nr_cpu_ids ? next : -1;
}

/*
 * Busy-wait @us microseconds by the clock, in callbacks that must not
 * sleep. Not udelay(): under QEMU TCG the secondary CPUs' delay loop
 * calibration can come out 100x short (Debian 6.1-rt printed "Total of 4
 * processors activated (5287.20 BogoMIPS)" for four 2.6 GHz vCPUs), and
 * udelay() there returns early.
 */
static inline void si_test_busy_us(unsigned int us)
{
	u64 end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

/* Open si_timer's module parameter @name; a failure fails the test: NULL. */
static inline __maybe_unused struct file *si_test_open_param(const char *name, int flags)
{
	char path[96];
	struct file *f;

	snprintf(path, sizeof(path), "/sys/module/si_timer/parameters/%s", name);
	if (si_ktap_root.mnt)	/* in a kthread of si_ktap_run_on_cpu() */
		f = file_open_root(&si_ktap_root, path + 1, flags, 0);
	else
		f = filp_open(path, flags, 0);
	if (IS_ERR(f)) {
		si_fail("opening %s: %ld", path, PTR_ERR(f));
		return NULL;
	}
	return f;
}

/*
 * Read si_timer's module parameter @name (/sys/module/si_timer/parameters/)
 * into @buf, without the newline. A failure fails the test: false.
 */
static inline __maybe_unused bool si_test_read_param(const char *name, char *buf,
						     size_t len)
{
	struct file *f = si_test_open_param(name, O_RDONLY);
	loff_t pos = 0;
	ssize_t n;

	if (!f)
		return false;
	n = kernel_read(f, buf, len - 1, &pos);
	filp_close(f, NULL);
	if (n < 0) {
		si_fail("reading parameter %s: %zd", name, n);
		return false;
	}
	buf[n] = '\0';
	strim(buf);
	return true;
}

/* Write @val to si_timer's module parameter @name. A failure fails the test: false. */
static inline __maybe_unused bool si_test_write_param(const char *name, const char *val)
{
	struct file *f = si_test_open_param(name, O_WRONLY);
	loff_t pos = 0;
	ssize_t n;

	if (!f)
		return false;
	n = kernel_write(f, val, strlen(val), &pos);
	filp_close(f, NULL);
	if (n != strlen(val)) {
		si_fail("writing '%s' to parameter %s: %zd", val, name, n);
		return false;
	}
	return true;
}

/* Define test @fn as a void body using SI_CHECK(), runnable by si_ktap_run(). */
#define SI_CHECKED(fn)							\
	static void fn##_body(void);					\
	static int fn(void)						\
	{								\
		si_test_begin();					\
		fn##_body();						\
		return si_test_result();				\
	}								\
	static void fn##_body(void)

#endif /* _SI_TEST_H */
