// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/si_timer/ read back: "timers" lists a pending timer
 * with its callback and arming site and forgets it once cancelled; "stats"
 * has the longest callback, the softirqs that ran inside a
 * soft-interruptible callback and the timer vectors the mask deferred;
 * with 1,000,000 timers armed, reading "timers" (and the others) keeps
 * interrupts off on the reading CPU for no more than a bounded chunk, lists
 * the first SI_TIMERS_MAX_LINES timers whole and says how many more there are.
 */
#include <linux/module.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
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
	/*
	 * The executor times callbacks by the cycle counter, calibrated
	 * against local_clock() once at load: a few percent off on a busy
	 * host (29153 us for this 30 ms on 7.x-rt-arm64 once).
	 */
	SI_CHECK(longest >= SLOW_US * 9 / 10 && !strcmp(fn, "si_dbg_slow_fn"),
		 "longest %llu us by %s, want >= %u us by si_dbg_slow_fn", longest, fn,
		 SLOW_US * 9 / 10);
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

/*
 * Many timers armed far ahead; "timers" (and "executors", "stats") read
 * whole from one CPU while a HARD hrtimer on each CPU fires every ms and
 * records how late it ran: on the reading CPU, the longest stretch with
 * interrupts off that the reads caused (the whole listing of an
 * executor's 250,000 timers under its lock held them off for seconds).
 * Timer i expires at mass_base + i, which identifies it in a line, on the
 * (i % mass_ncpus)-th CPU of mass_cpus[].
 */
/* Debug kernels (KASAN, KCSAN, debugobjects, lockdep) arm a tenth: minutes there. */
#if IS_ENABLED(CONFIG_KASAN) || IS_ENABLED(CONFIG_KCSAN) || \
	IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS) || IS_ENABLED(CONFIG_LOCKDEP)
#define MASS_N		100000
#else
#define MASS_N		1000000
#endif
#define MASS_FLAGS	SI_TIMER_SOFTINTERRUPTIBLE
#define LAT_PERIOD_NS	NSEC_PER_MSEC
/*
 * Gross: TCG and a busy host add ms (10 ms on every CPU seen on 6.12-rt);
 * the old listing held them off for seconds.
 */
#define LAT_MAX_US	50000LL
/* Read sizes: a big one, and one that makes seq_file stop and restart often. */
#define READ_BIG	BUF_SIZE
#define READ_SMALL	777
/*
 * One list longer than debugfs.c counts in a hold (SI_TIMERS_COUNT_HOLD,
 * 10,000): all in one bucket of level 5, whose 32768 jiffies they share.
 */
#define LONG_N		20000
#define LONG_LVL_GRAN	32768

static struct si_timer *mass;
static unsigned long mass_base, mass_n;
static unsigned int mass_cpus[NR_CPUS], mass_ncpus;

struct lat_probe {
	struct hrtimer	hr;
	s64		max_late;
	unsigned long	samples;
};

static DEFINE_PER_CPU(struct lat_probe, lat_probe);
static bool lat_stop;

static enum hrtimer_restart lat_fn(struct hrtimer *hr)
{
	struct lat_probe *p = container_of(hr, struct lat_probe, hr);
	s64 late = ktime_to_ns(ktime_sub(ktime_get(), hrtimer_get_expires(hr)));

	p->max_late = max(p->max_late, late);
	p->samples++;
	if (READ_ONCE(lat_stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(hr, ns_to_ktime(LAT_PERIOD_NS));
	return HRTIMER_RESTART;
}

/* On each CPU, by IPI: a HARD hrtimer pinned there. */
static void lat_start_here(void *unused)
{
	struct lat_probe *p = this_cpu_ptr(&lat_probe);

	p->max_late = 0;
	p->samples = 0;
	hrtimer_start(&p->hr, ns_to_ktime(LAT_PERIOD_NS), HRTIMER_MODE_REL_PINNED_HARD);
}

/* From here to lat_end(), on @reader, its lateness measured. */
static void lat_begin(unsigned int reader)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_setup(&per_cpu(lat_probe, cpu).hr, lat_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_HARD);
	set_cpus_allowed_ptr(current, cpumask_of(reader));
	WRITE_ONCE(lat_stop, false);
	on_each_cpu(lat_start_here, NULL, 1);
}

/* The reading CPU's lateness bounded, beyond what the other CPUs saw. */
static void lat_end(unsigned int reader)
{
	s64 late_reader = 0, late_other = 0;
	unsigned long samples = 0;
	unsigned int cpu;

	WRITE_ONCE(lat_stop, true);
	for_each_possible_cpu(cpu) {
		struct lat_probe *p = &per_cpu(lat_probe, cpu);

		hrtimer_cancel(&p->hr);
		if (cpu == reader) {
			late_reader = p->max_late;
			samples = p->samples;
		} else {
			late_other = max(late_other, p->max_late);
		}
	}
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	si_diag("reading CPU %u: %lu ticks of 1 ms, the latest %lld us late (other CPUs: %lld us)",
		reader, samples, late_reader / NSEC_PER_USEC, late_other / NSEC_PER_USEC);
	/* the window: the reads ran with the reading CPU's tick sampling them */
	SI_CHECK(samples >= 10, "the reading CPU's hrtimer ran %lu times during the reads",
		 samples);
	/*
	 * A stall of the host (under single-threaded TCG: of every vCPU)
	 * makes each CPU's hrtimer late alike.
	 */
	SI_CHECK(late_reader / NSEC_PER_USEC < LAT_MAX_US + late_other / NSEC_PER_USEC,
		 "interrupts held off up to %lld us on the reading CPU, want < %lld us + the other CPUs' %lld us",
		 late_reader / NSEC_PER_USEC, LAT_MAX_US, late_other / NSEC_PER_USEC);
}

static void si_dbg_mass_fn(struct si_timer *t)
{
}

static noinline void si_dbg_mass_arm(struct si_timer *t, unsigned int cpu)
{
	si_add_timer_on(t, cpu);
	barrier();
}

/* Set up and arm mass[0..n-1] (see above); false without memory. */
static bool mass_arm(unsigned long n, unsigned long base)
{
	unsigned long i;
	u64 t0;

	mass = kvcalloc(n, sizeof(*mass), GFP_KERNEL);
	if (!mass)
		return false;
	mass_n = n;
	mass_base = base;
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		si_timer_setup(&mass[i], si_dbg_mass_fn, MASS_FLAGS);
		mass[i].expires = base + i;
		si_dbg_mass_arm(&mass[i], mass_cpus[i % mass_ncpus]);
		if (!(i & 0xfff))
			cond_resched();
	}
	si_diag("%lu timers armed on %u CPUs in %llu ms", n, mass_ncpus,
		(ktime_get_ns() - t0) / NSEC_PER_MSEC);
	return true;
}

static void mass_free(void)
{
	unsigned long i;

	for (i = 0; mass && i < mass_n; i++) {
		si_timer_delete(&mass[i]);
		if (!(i & 0xfff))
			cond_resched();
	}
	kvfree(mass);
	mass = NULL;
}

/* What a whole read of "timers" said. */
struct mass_read {
	unsigned long	lines, ours, foreign, bad, dups, after_more;
	unsigned long	more, total, min_i;
	bool		header, more_line, lower_bound;
	unsigned long	*seen;		/* MASS_N bits: timers listed */
	char		first[192], first_bad[192];
};

static void mass_line(struct mass_read *r, const char *line)
{
	long long expires, timeout;
	unsigned int home, flags;
	char state[16], fn[64];
	unsigned long i;

	if (!r->lines++) {
		r->header = !strcmp(line, "home state expires timeout flags function armed_at");
		return;
	}
	if (r->more_line) {
		r->after_more++;
		return;
	}
	if (!strncmp(line, "... ", 4)) {
		r->more_line = true;
		if (sscanf(line, "... and at least %lu more pending timers (at least %lu in all)",
			   &r->more, &r->total) == 2)
			r->lower_bound = true;
		else if (sscanf(line, "... and %lu more pending timers (%lu in all)",
				&r->more, &r->total) != 2)
			goto bad;
		return;
	}
	if (sscanf(line, "%u %15s %lld %lld %x %63s", &home, state, &expires, &timeout, &flags,
		   fn) != 6)
		goto bad;
	if (strcmp(fn, "si_dbg_mass_fn")) {
		r->foreign++;
		return;
	}
	i = (unsigned long)expires - mass_base;
	if (i >= mass_n || home != mass_cpus[i % mass_ncpus] || strcmp(state, "armed") ||
	    flags != MASS_FLAGS || timeout <= 0 || !strstr(line, " si_dbg_mass_arm"))
		goto bad;
	if (!r->ours++)
		strscpy(r->first, line, sizeof(r->first));
	if (__test_and_set_bit(i, r->seen))
		r->dups++;
	r->min_i = min(r->min_i, i);
	return;
bad:
	if (!r->bad++)
		strscpy(r->first_bad, line, sizeof(r->first_bad));
}

/* Read "timers" whole, @size bytes per read(), into @r line by line. */
static int mass_read_timers(struct mass_read *r, size_t size)
{
	size_t have = 0;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	memset(r, 0, offsetof(struct mass_read, seen));
	r->min_i = ULONG_MAX;
	bitmap_zero(r->seen, MASS_N);
	f = filp_open(DIR "timers", O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	while ((n = kernel_read(f, buf + have, min(size, BUF_SIZE - 1 - have), &pos)) > 0) {
		char *line = buf, *nl;

		have += n;
		buf[have] = '\0';
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			mass_line(r, line);
			line = nl + 1;
		}
		have -= line - buf;
		memmove(buf, line, have);
		if (have == BUF_SIZE - 1) {
			n = -E2BIG;	/* a line longer than the buffer */
			break;
		}
		cond_resched();
	}
	filp_close(f, NULL);
	return n < 0 ? n : 0;
}

/*
 * The first SI_TIMERS_MAX_LINES listed once each, as armed, then how
 * many more: exactly, or (!@want_exact) at least one and no more than
 * there are.
 */
static void mass_check(struct mass_read *r, size_t size, bool want_exact)
{
	unsigned long rest = mass_n - min_t(unsigned long, r->ours, mass_n);

	si_diag("read by %zu bytes: %lu lines; first: %s", size, r->lines, r->first);
	SI_CHECK(r->header, "no header line first");
	SI_CHECK(!r->bad, "%lu lines not as listed, the first: %s", r->bad, r->first_bad);
	SI_CHECK(!r->foreign, "%lu pending timers not ours listed", r->foreign);
	SI_CHECK(r->ours == SI_TIMERS_MAX_LINES && !r->dups,
		 "%lu of our timers listed (%lu twice), want the first %u", r->ours, r->dups,
		 SI_TIMERS_MAX_LINES);
	if (!SI_CHECK(r->more_line && !r->after_more,
		      "no \"... and N more\" line last (%lu lines after it)", r->after_more))
		return;
	si_diag("... and %s%lu more pending timers (%s%lu in all)",
		r->lower_bound ? "at least " : "", r->more, r->lower_bound ? "at least " : "",
		r->total);
	if (want_exact)
		SI_CHECK(!r->lower_bound && r->more == rest && r->total == mass_n,
			 "want exactly %lu more, %lu in all", rest, mass_n);
	else
		SI_CHECK(r->lower_bound && r->more >= 1 && r->more <= rest &&
			 r->total == r->ours + r->more,
			 "want at least 1 more, at most %lu", rest);
}

SI_CHECKED(t_timers_million_bounded)
{
	unsigned int cpu, reader = cpumask_last(cpu_online_mask);
	struct mass_read *r;
	u64 t0, t_big = 0, t_small = 0, t_other;
	bool exact;
	int ret;

	mass_ncpus = 0;
	for_each_online_cpu(cpu)
		mass_cpus[mass_ncpus++] = cpu;
	/*
	 * Counted exactly when no list of an executor holds more than a hold
	 * counts (SI_TIMERS_COUNT_HOLD, 10,000): timer i due in jiffy
	 * mass_base + i, 10 min on, the coarsest bucket used (of level 5,
	 * 32768 jiffies, at HZ 250 or 1000) holds 32768 / ncpus per executor.
	 */
	exact = mass_ncpus >= 4;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (r)
		r->seen = bitmap_zalloc(MASS_N, GFP_KERNEL);
	if (!SI_CHECK(r && r->seen && mass_arm(MASS_N, jiffies + 600 * HZ),
		      "no memory for %u timers", MASS_N))
		goto out;

	lat_begin(reader);
	t0 = ktime_get_ns();
	ret = mass_read_timers(r, READ_BIG);
	t_big = ktime_get_ns() - t0;
	if (SI_CHECK(!ret, "read timers: %d", ret))
		mass_check(r, READ_BIG, exact);
	/* again, in short reads, unless the first was no listing at all */
	if (!ret && !r->bad && r->more_line) {
		t0 = ktime_get_ns();
		ret = mass_read_timers(r, READ_SMALL);
		t_small = ktime_get_ns() - t0;
		if (SI_CHECK(!ret, "read timers: %d", ret))
			mass_check(r, READ_SMALL, exact);
	}
	t0 = ktime_get_ns();
	ret = read_file("executors");
	SI_CHECK(!ret && strlen(buf), "read executors: %d", ret);
	ret = read_file("stats");
	SI_CHECK(!ret && strlen(buf), "read stats: %d", ret);
	t_other = ktime_get_ns() - t0;
	lat_end(reader);
	si_diag("read timers in %llu ms (by %u bytes: %llu ms), executors and stats in %llu ms",
		t_big / NSEC_PER_MSEC, READ_SMALL, t_small / NSEC_PER_MSEC,
		t_other / NSEC_PER_MSEC);
out:
	mass_free();
	if (r)
		bitmap_free(r->seen);
	kfree(r);
}

/*
 * 20,000 timers in one list of one executor: the listing resumes in its
 * middle 625 times (the last holds skip 9,984 timers listed already) and
 * must list the newest 10,000 (the list is newest first) once each; the
 * rest, too long to count in one hold, is said to be at least 1 more.
 */
SI_CHECKED(t_timers_long_list)
{
	unsigned int reader = cpumask_last(cpu_online_mask);
	struct mass_read *r;
	u64 t0, t_read;
	int ret;

	mass_ncpus = 1;
	mass_cpus[0] = cpumask_first(cpu_online_mask);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (r)
		r->seen = bitmap_zalloc(MASS_N, GFP_KERNEL);
	/* 20 min on, past level 5's start: every expiry in one of its buckets */
	if (!SI_CHECK(r && r->seen &&
		      mass_arm(LONG_N, round_up(jiffies + 300000, LONG_LVL_GRAN)),
		      "no memory for %u timers", LONG_N))
		goto out;

	lat_begin(reader);
	t0 = ktime_get_ns();
	ret = mass_read_timers(r, READ_BIG);
	t_read = ktime_get_ns() - t0;
	lat_end(reader);
	si_diag("read timers in %llu ms", t_read / NSEC_PER_MSEC);
	if (SI_CHECK(!ret, "read timers: %d", ret)) {
		mass_check(r, READ_BIG, false);
		SI_CHECK(r->min_i == LONG_N - SI_TIMERS_MAX_LINES,
			 "listed from timer %lu, want the newest %u (from %u)", r->min_i,
			 SI_TIMERS_MAX_LINES, LONG_N - SI_TIMERS_MAX_LINES);
	}
out:
	mass_free();
	if (r)
		bitmap_free(r->seen);
	kfree(r);
}

/*
 * executors counts each queue up to 1,000 under the lock. 1,050 timers
 * queued at once on an executor make its queued_compat read ">1000" (the
 * old count walked the whole queue): due behind a busy callback of their
 * executor, 21 in each of 50 consecutive buckets of the wheel's level 1
 * (8 jiffies each), so that each wake-up queues all that is due (up to
 * 64: a wake-up up to two buckets late still does) and the next wake-up
 * is set; queued, they wait for the busy callback to return.
 */
#define QUEUE_PER_BUCKET	21
#define QUEUE_BUCKETS		50
#define QUEUE_N			(QUEUE_PER_BUCKET * QUEUE_BUCKETS)
#define QUEUE_SHOWN_MAX		1000	/* executor.c's SI_SHOW_QUEUED_MAX */

static bool queue_release;
static DECLARE_COMPLETION(queue_blocking);
static atomic_t queue_ran;

/* Busy until released, 5 s at most. */
static void si_dbg_block_fn(struct si_timer *t)
{
	unsigned int ms;

	complete(&queue_blocking);
	for (ms = 0; ms < 5000 && !READ_ONCE(queue_release); ms++)
		si_test_busy_us(1000);
}

static void si_dbg_queued_fn(struct si_timer *t)
{
	atomic_inc(&queue_ran);
}

/*
 * One round: the blocking callback and the queued timers armed on @cpu,
 * executors read every 5 ms until more than QUEUE_SHOWN_MAX are queued
 * there (its column copied to @col), or until all were due long ago.
 * Returns whether that many were; the most read before in @max_seen.
 */
static bool queue_round(unsigned int cpu, struct si_timer *q, char *col, size_t size,
			unsigned long *max_seen, unsigned int *polls, int *ret)
{
	unsigned long j0, base, last_due;
	bool reached = false;
	unsigned int i;

	*max_seen = 0;
	*polls = 0;
	WRITE_ONCE(queue_release, false);
	atomic_set(&queue_ran, 0);
	reinit_completion(&queue_blocking);
	si_timer_setup(&timer, si_dbg_block_fn, 0);
	for (i = 0; i < QUEUE_N; i++)
		si_timer_setup(&q[i], si_dbg_queued_fn, 0);
	j0 = jiffies;
	timer.expires = j0 + 1;
	si_add_timer_on(&timer, cpu);
	/* 80 to 480 jiffies on: level 1 (63 to 503), bucket by bucket */
	base = round_up(j0 + 80, 8);
	for (i = 0; i < QUEUE_N; i++) {
		q[i].expires = base + 8 * (i / QUEUE_PER_BUCKET);
		si_add_timer_on(&q[i], cpu);
	}
	last_due = base + 8 * QUEUE_BUCKETS;
	if (SI_CHECK(wait_for_completion_timeout(&queue_blocking, 2 * HZ),
		     "the blocking callback did not start")) {
		while (!reached && time_before(jiffies, last_due + 40)) {
			unsigned long v;

			*ret = read_file("executors");
			if (*ret)
				break;
			(*polls)++;
			stats_value(cpu, 2, col, size);
			if (kstrtoul(col, 10, &v))
				v = 0;
			/* more queued than shown: capped, or (the old count) not */
			reached = col[0] == '>' || v > QUEUE_SHOWN_MAX;
			if (!reached)
				*max_seen = max(*max_seen, v);
			usleep_range(4000, 5000);
		}
	}
	WRITE_ONCE(queue_release, true);
	SI_CHECK(si_wait_until(atomic_read(&queue_ran) == QUEUE_N, 10000),
		 "%d of %u queued callbacks ran", atomic_read(&queue_ran), QUEUE_N);
	si_timer_delete_sync(&timer);
	for (i = 0; i < QUEUE_N; i++)
		si_timer_delete_sync(&q[i]);
	return reached;
}

/*
 * The window needs every wake-up of the executor to come less than two
 * buckets (64 ms) late, else one finds more than it queues at once and
 * leaves the rest to the (busy) thread. Once (6.1) the queue stopped
 * growing at 253 instead, which that does not explain (it would leave
 * 316); hence up to QUEUE_ROUNDS rounds, each one reported.
 */
#define QUEUE_ROUNDS	3

SI_CHECKED(t_executors_queue_capped)
{
	unsigned int cpu = cpumask_first(cpu_online_mask), polls, round;
	unsigned long max_seen;
	struct si_timer *q;
	bool reached = false;
	char col[16] = "";
	int ret = 0;

	q = kvcalloc(QUEUE_N, sizeof(*q), GFP_KERNEL);
	if (!SI_CHECK(q, "no memory"))
		return;
	/* away from the blocked CPU */
	set_cpus_allowed_ptr(current, cpumask_of(cpumask_last(cpu_online_mask)));
	for (round = 1; round <= QUEUE_ROUNDS && !reached && !ret; round++) {
		reached = queue_round(cpu, q, col, sizeof(col), &max_seen, &polls, &ret);
		si_diag("round %u: CPU %u queued_compat read %s at poll %u (the most before: %lu)",
			round, cpu, col, polls, max_seen);
	}
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	kvfree(q);
	SI_CHECK(!ret, "read executors: %d", ret);
	si_diag("window reached in %u of %u rounds", reached, round - 1);
	if (SI_CHECK(reached, "window not reached: queued_compat never over %u", QUEUE_SHOWN_MAX))
		SI_CHECK(!strcmp(col, ">" __stringify(QUEUE_SHOWN_MAX)),
			 "queued_compat read %s, want >%u", col, QUEUE_SHOWN_MAX);
}

static const struct si_test tests[] = {
	SI_TEST(t_timers_lists_pending),
	SI_TEST(t_stats),
	SI_TEST(t_timers_million_bounded),
	SI_TEST(t_timers_long_list),
	SI_TEST(t_executors_queue_capped),
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
