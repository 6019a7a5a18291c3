// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/si_timer/ read back: "timers" lists a pending timer
 * with its callback and arming site and forgets it once cancelled; "stats"
 * has the longest callback, the softirqs that ran inside a
 * soft-interruptible callback and the timer vectors the mask deferred.
 */
#include <linux/module.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <si_timer.h>
#include "si_test.h"

#define DIR		"/sys/kernel/debug/si_timer/"
#define BUF_SIZE	65536
#define SLOW_US		30000

static char *buf;
static struct si_timer timer;
static DECLARE_COMPLETION(ran);
static bool ran_soft;
static struct tasklet_struct tasklet;
static bool tasklet_ran;

/* The whole file, NUL-terminated, or an error. */
static int read_file(const char *name)
{
	char path[64];
	struct file *f;
	loff_t pos = 0;
	size_t total = 0;
	ssize_t n;

	snprintf(path, sizeof(path), DIR "%s", name);
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	while (total < BUF_SIZE - 1 &&
	       (n = kernel_read(f, buf + total, BUF_SIZE - 1 - total, &pos)) > 0)
		total += n;
	buf[total] = '\0';
	filp_close(f, NULL);
	return 0;
}

/* The line of buf starting with "<cpu> ", or NULL. */
static char *cpu_line(unsigned int cpu)
{
	char want[16], *p = buf;

	snprintf(want, sizeof(want), "%u ", cpu);
	while (p && *p) {
		if (!strncmp(p, want, strlen(want)))
			return p;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* The 0-based column of @name in the stats header line, or -1. */
static int stats_column(const char *name)
{
	char *p = buf;
	int col = 0;

	while (*p && *p != '\n') {
		size_t len = strcspn(p, "\n ");

		if (len == strlen(name) && !strncmp(p, name, len))
			return col;
		p += len;
		if (*p == ' ')
			p++;
		col++;
	}
	return -1;
}

/* Column @col of CPU @cpu's stats line: copied to @word, or as a number. */
static unsigned long long stats_value(unsigned int cpu, int col, char *word, size_t size)
{
	char *p = cpu_line(cpu), number[24];
	unsigned long long v = 0;

	while (p && col-- > 0) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p)
		return 0;
	if (!word) {
		word = number;
		size = sizeof(number);
	}
	strscpy(word, p, min(size, strcspn(p, "\n ") + 1));
	if (word == number && kstrtoull(number, 10, &v))
		v = 0;
	return v;
}

static void si_dbg_listed_fn(struct si_timer *t)
{
}

static noinline void si_dbg_arm(struct si_timer *t)
{
	si_mod_timer(t, jiffies + 600 * HZ);
	barrier();
}

SI_CHECKED(t_timers_lists_pending)
{
	int ret;

	si_timer_setup(&timer, si_dbg_listed_fn, 0);
	si_dbg_arm(&timer);
	ret = read_file("timers");
	if (SI_CHECK(!ret, "read timers: %d", ret)) {
		char *line = strstr(buf, " si_dbg_listed_fn ");

		SI_CHECK(line, "no line for the armed timer in:\n%s", buf);
		if (line) {
			while (line > buf && line[-1] != '\n')
				line--;
			si_diag("%.*s", (int)strcspn(line, "\n"), line);
			/* si_dbg_arm, or a clone of it (.constprop) */
			SI_CHECK(strstr(line, " armed ") && strstr(line, " si_dbg_arm") &&
				 strstr(line, " 0x0 "),
				 "want state armed, flags 0x0, armed at si_dbg_arm");
		}
	}
	si_timer_delete_sync(&timer);
	ret = read_file("timers");
	if (SI_CHECK(!ret, "read timers: %d", ret))
		SI_CHECK(!strstr(buf, " si_dbg_listed_fn "), "still listed once cancelled");
}

static void si_dbg_tasklet_fn(struct tasklet_struct *t)
{
	WRITE_ONCE(tasklet_ran, true);
}

/* Slow; when soft-interruptible, a tasklet runs inside it. */
static void si_dbg_slow_fn(struct si_timer *t)
{
	ran_soft = !softirq_count();
	if (ran_soft) {
		local_bh_disable();
		tasklet_schedule(&tasklet);
		local_bh_enable();
	}
	si_test_busy_us(SLOW_US);
	complete(&ran);
}

SI_CHECKED(t_stats)
{
	unsigned int cpu = cpumask_last(cpu_online_mask);
	unsigned long long longest, tasklets, masked = 0, masked_hr = 0;
	unsigned int other, tries;
	char fn[64] = "";
	int ret;

	tasklet_setup(&tasklet, si_dbg_tasklet_fn);
	si_timer_setup(&timer, si_dbg_slow_fn, SI_TIMER_SOFTINTERRUPTIBLE);
	timer.expires = jiffies + 1;
	si_add_timer_on(&timer, cpu);
	ret = wait_for_completion_timeout(&ran, 10 * HZ);
	si_timer_delete_sync(&timer);
	tasklet_kill(&tasklet);
	if (!SI_CHECK(ret, "callback did not run within 10 s"))
		return;
	/*
	 * delete_sync returns once the callback has; the executor records it
	 * after that, at the end of its batch (6.1-rt read the line before).
	 */
	for (tries = 0; tries < 100; tries++) {
		ret = read_file("stats");
		if (ret || (cpu_line(cpu) &&
			    stats_value(cpu, stats_column("ran_soft"), NULL, 0) +
			    stats_value(cpu, stats_column("ran_compat"), NULL, 0)))
			break;
		msleep(20);
	}
	if (!SI_CHECK(!ret, "read stats: %d", ret))
		return;
	si_diag("%.*s", (int)strcspn(buf, "\n"), buf);
	si_diag("%.*s", (int)strcspn(cpu_line(cpu) ?: "", "\n"), cpu_line(cpu) ?: "");
	if (!SI_CHECK(cpu_line(cpu), "no line for CPU %u", cpu))
		return;
	longest = stats_value(cpu, stats_column("longest_us"), NULL, 0);
	stats_value(cpu, stats_column("longest_fn"), fn, sizeof(fn));
	SI_CHECK(longest >= SLOW_US && !strcmp(fn, "si_dbg_slow_fn"),
		 "longest %llu us by %s, want >= %u us by si_dbg_slow_fn", longest, fn, SLOW_US);
	if (!ran_soft) {
		si_skip("vector mask inactive: soft-interruptible callbacks run compatible");
		return;
	}
	tasklets = stats_value(cpu, stats_column("soft_TASKLET"), NULL, 0);
	SI_CHECK(tasklet_ran && tasklets >= 1,
		 "tasklet ran %d, %llu TASKLET softirqs counted inside callbacks",
		 tasklet_ran, tasklets);
	/*
	 * A vector due while the callback runs is not deterministic (on RT
	 * ktimers waits behind the executor at the same priority); the
	 * load-time self-check of the mask defers each timer vector once.
	 */
	for_each_online_cpu(other) {
		masked += stats_value(other, stats_column("masked_TIMER"), NULL, 0);
		masked_hr += stats_value(other, stats_column("masked_HRTIMER"), NULL, 0);
	}
	SI_CHECK(masked >= 1 && masked_hr >= 1,
		 "deferred by the mask: TIMER %llu, HRTIMER %llu; the self-check defers each once",
		 masked, masked_hr);
}

static const struct si_test tests[] = {
	SI_TEST(t_timers_lists_pending),
	SI_TEST(t_stats),
};

static int __init debugfs_test_init(void)
{
	buf = kmalloc(BUF_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	si_ktap_run(tests, ARRAY_SIZE(tests));
	kfree(buf);
	return 0;
}
module_init(debugfs_test_init);

static void __exit debugfs_test_exit(void)
{
}
module_exit(debugfs_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer test: debugfs timers list and statistics (KTAP)");
