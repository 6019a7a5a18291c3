// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/si_timer/: executor state for whoever debugs a
 * converted driver.
 *   executors  a line per CPU: queues, callbacks run, the running one
 *   stats      a line per CPU: callbacks per mode, the longest callback,
 *              softirqs of each vector that ran on that CPU during
 *              soft-interruptible callbacks, timer vectors the mask deferred
 *   timers     every pending timer: home, state, expiry, flags, callback,
 *              where it was armed; past 10,000 lines, how many more
 */
#include <linux/debugfs.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/seq_file.h>
#include "si_timer_internal.h"
#include "vecmask.h"

static struct dentry *si_debugfs_dir;

/*
 * DEFINE_SHOW_ATTRIBUTE() with read_iter instead of read, so that
 * kernel_read() works (the tests read these files from a module); created
 * without debugfs's full proxy, which has no read_iter: .owner keeps
 * si_timer loaded while one is open.
 */
#define SI_DEBUGFS_FOPS(__name)						\
static int __name ## _open(struct inode *inode, struct file *file)	\
{									\
	return single_open(file, __name ## _show, inode->i_private);	\
}									\
static const struct file_operations __name ## _fops = {			\
	.owner		= THIS_MODULE,					\
	.open		= __name ## _open,				\
	.read_iter	= seq_read_iter,				\
	.llseek		= seq_lseek,					\
	.release	= single_release,				\
}

/* The kernel's softirq_to_name[] is not exported. */
static const char * const si_softirq_names[NR_SOFTIRQS] = {
	[HI_SOFTIRQ] = "HI", [TIMER_SOFTIRQ] = "TIMER", [NET_TX_SOFTIRQ] = "NET_TX",
	[NET_RX_SOFTIRQ] = "NET_RX", [BLOCK_SOFTIRQ] = "BLOCK",
	[IRQ_POLL_SOFTIRQ] = "IRQ_POLL", [TASKLET_SOFTIRQ] = "TASKLET",
	[SCHED_SOFTIRQ] = "SCHED", [HRTIMER_SOFTIRQ] = "HRTIMER", [RCU_SOFTIRQ] = "RCU",
};

static int si_executors_show(struct seq_file *m, void *v)
{
	unsigned int cpu;

	seq_printf(m, "vector mask emulation: %s\n",
		   si_vecmask_available() ? "active" :
		   "inactive (soft-interruptible callbacks run in compatible mode)");
	seq_puts(m, "cpu parked queued_compat queued_soft ran_compat ran_soft running\n");
	for_each_possible_cpu(cpu)
		si_executor_show(m, cpu);
	return 0;
}

SI_DEBUGFS_FOPS(si_executors);

static int si_stats_show(struct seq_file *m, void *v)
{
	unsigned long softirqs[NR_SOFTIRQS], ran[SI_NR_QUEUES];
	const void *longest_fn;
	unsigned int cpu;
	u64 longest_ns;
	int i;

	/* The function last: "%ps" of a module's adds " [module]". */
	seq_puts(m, "cpu ran_compat ran_soft");
	for (i = 0; i < NR_SOFTIRQS; i++)
		seq_printf(m, " soft_%s", si_softirq_names[i] ?: "?");
	seq_puts(m, " masked_TIMER masked_HRTIMER longest_us longest_fn\n");
	for_each_possible_cpu(cpu) {
		struct si_executor *e = si_executor_of(cpu);

		raw_spin_lock_irq(&e->lock);
		memcpy(ran, e->ran, sizeof(ran));
		memcpy(softirqs, e->soft_softirqs, sizeof(softirqs));
		longest_ns = si_clock_to_ns(e->longest);
		longest_fn = e->longest_cb;
		raw_spin_unlock_irq(&e->lock);

		seq_printf(m, "%u %lu %lu", cpu, ran[SI_Q_COMPAT],
			   ran[SI_Q_SOFT] + ran[SI_Q_SOFT_HRMASKED]);
		for (i = 0; i < NR_SOFTIRQS; i++)
			seq_printf(m, " %lu", softirqs[i]);
		seq_printf(m, " %lu %lu %llu ", si_vecmask_skips(cpu, TIMER_SOFTIRQ),
			   si_vecmask_skips(cpu, HRTIMER_SOFTIRQ),
			   div_u64(longest_ns, NSEC_PER_USEC));
		if (longest_fn)
			seq_printf(m, "%ps\n", longest_fn);
		else
			seq_puts(m, "-\n");
	}
	return 0;
}

SI_DEBUGFS_FOPS(si_stats);

/*
 * timers. The file used to be printed whole under each executor's lock:
 * with 1,000,000 timers armed, interrupts stayed off for seconds on the
 * reading CPU (and on any CPU spinning on that lock meanwhile). Now a
 * seq_file iterator walks each executor's lists a few timers per hold of
 * its lock, copies their fields and prints them once the lock is dropped;
 * past SI_TIMERS_MAX_LINES lines the rest is only counted, up to
 * SI_TIMERS_COUNT_HOLD timers per hold, a longer list not to its end. A
 * walk that resumes in the middle of a list skips what it listed of it
 * already: no pointer into a list survives the lock, as a timer may be
 * cancelled and freed once it is dropped, and nothing on the arming path
 * is spent on keeping a cursor valid. So a hold looks at an executor's
 * list heads and at most SI_TIMERS_MAX_LINES + SI_TIMERS_CHUNK or
 * SI_TIMERS_COUNT_HOLD timers, whatever the number armed, and a read
 * prints at most SI_TIMERS_MAX_LINES timers. Each line is true of its
 * timer when copied; the file as a whole is not a snapshot: a timer armed
 * or cancelled meanwhile may be missed or listed twice.
 */
#define SI_TIMERS_CHUNK		16	/* timers copied per hold while listing */
#define SI_TIMERS_COUNT_HOLD	10000	/* timers counted per hold at most */

/* An executor's lists of pending timers: its wheels', hr_armed, its queues. */
#define SI_TIMERS_WHEEL_LISTS	(SI_NR_WHEELS * SI_WHEEL_LISTS)
#define SI_TIMERS_LISTS		(SI_TIMERS_WHEEL_LISTS + 1 + SI_NR_QUEUES)

static struct hlist_head *si_timers_list(struct si_executor *e, unsigned int i, bool *queued)
{
	*queued = false;
	if (i < SI_TIMERS_WHEEL_LISTS)
		return si_wheel_list(&e->wheel[i / SI_WHEEL_LISTS], i % SI_WHEEL_LISTS);
	if (i == SI_TIMERS_WHEEL_LISTS)
		return &e->hr_armed;
	*queued = true;
	return &e->queue[i - SI_TIMERS_WHEEL_LISTS - 1].head;
}

/* A pending timer's line, copied under its home's lock. */
struct si_timer_copy {
	long long	expires;
	long long	timeout;
	const void	*function;
	unsigned long	armed_at;
	unsigned int	flags;
	bool		queued;
};

enum si_timers_record {
	SI_TIMERS_HEADER,	/* the column names */
	SI_TIMERS_LINES,	/* up to SI_TIMERS_CHUNK timers of one executor */
	SI_TIMERS_MORE,		/* how many more are pending, past the cap */
	SI_TIMERS_END,
};

/*
 * The seq_file record at @pos (one per ->next) and where the walk is.
 * seq_file calls ->start() again with the same position after a record
 * did not fit its buffer and on each read(): the record held is then
 * printed again, nothing walked again.
 */
struct si_timers_iter {
	loff_t			pos;
	enum si_timers_record	record;
	unsigned int		cpu;	/* the executor walked; nr_cpu_ids: done */
	unsigned int		list;	/* its list (si_timers_list()) */
	unsigned int		offset;	/* timers of that list listed already */
	unsigned long		listed;
	unsigned long		more;	/* past the cap: counted */
	bool			more_at_least;	/* a list too long to count whole */
	unsigned int		copy_cpu;	/* the home of copy[] */
	unsigned int		n;
	struct si_timer_copy	copy[SI_TIMERS_CHUNK];
};

/* An si_hrtimer's expires and timeout are its HARD hrtimer's, in ns. */
static void si_timer_copy_fields(struct si_timer_copy *c, struct si_timer *timer, bool queued)
{
	c->expires = timer->expires;
	c->timeout = (long)(timer->expires - jiffies);
	if (timer->flags & SI_TIMER_HR) {
		struct hrtimer *hw = &si_hrtimer_of(timer)->hw;

		c->expires = ktime_to_ns(hrtimer_get_expires(hw));
		c->timeout = ktime_to_ns(hrtimer_expires_remaining(hw));
	}
	c->function = si_callback_of(timer);
	c->armed_at = timer->armed_at;
	c->flags = timer->flags;
	c->queued = queued;
}

static void si_timers_next_executor(struct si_timers_iter *it)
{
	it->cpu = cpumask_next(it->cpu, cpu_possible_mask);
	it->list = 0;
	it->offset = 0;
}

/*
 * Copy the next timers of the executor walked, in one hold of its lock:
 * up to SI_TIMERS_CHUNK, after skipping the it->offset of their list
 * listed already (fewer than SI_TIMERS_MAX_LINES).
 */
static void si_timers_copy_chunk(struct si_timers_iter *it)
{
	struct si_executor *e = si_executor_of(it->cpu);
	unsigned int want = min_t(unsigned long, SI_TIMERS_CHUNK,
				  SI_TIMERS_MAX_LINES - it->listed);

	it->copy_cpu = it->cpu;
	raw_spin_lock_irq(&e->lock);
	while (it->list < SI_TIMERS_LISTS && it->n < want) {
		unsigned int skip = it->offset;
		struct hlist_head *head;
		struct si_timer *timer;
		bool ended = true;
		bool queued;

		head = si_timers_list(e, it->list, &queued);
		hlist_for_each_entry(timer, head, node) {
			if (skip) {
				skip--;
				continue;
			}
			if (it->n == want) {
				ended = false;
				break;
			}
			si_timer_copy_fields(&it->copy[it->n++], timer, queued);
			it->offset++;
		}
		if (ended) {
			it->list++;
			it->offset = 0;
		}
	}
	raw_spin_unlock_irq(&e->lock);
	it->listed += it->n;
	if (it->list == SI_TIMERS_LISTS)
		si_timers_next_executor(it);
}

/*
 * Count the timers not listed, from where the listing stopped, in holds
 * of up to SI_TIMERS_COUNT_HOLD timers. A list longer than that is not
 * counted to its end (that would need a cursor into it across holds):
 * the count is then a lower bound.
 */
static void si_timers_count_rest(struct si_timers_iter *it)
{
	while (it->cpu < nr_cpu_ids) {
		struct si_executor *e = si_executor_of(it->cpu);
		unsigned int walked = 0;

		raw_spin_lock_irq(&e->lock);
		while (it->list < SI_TIMERS_LISTS && walked < SI_TIMERS_COUNT_HOLD) {
			unsigned int len = 0, budget = SI_TIMERS_COUNT_HOLD - walked;
			struct hlist_node *node;
			bool queued;

			hlist_for_each(node, si_timers_list(e, it->list, &queued))
				if (++len == budget)
					break;
			/* too long for what is left of this hold: in a hold of its own */
			if (len == budget && node->next && walked)
				break;
			/* more than that, and more than was listed of it */
			if (len == budget && node->next) {
				it->more_at_least = true;
				len++;
			}
			it->more += len - min(len, it->offset);
			walked += len;
			it->list++;
			it->offset = 0;
		}
		raw_spin_unlock_irq(&e->lock);
		if (it->list == SI_TIMERS_LISTS)
			si_timers_next_executor(it);
		cond_resched();
	}
}

/* Make the record after the one held the one held. */
static void si_timers_advance(struct si_timers_iter *it)
{
	it->pos++;
	it->n = 0;
	if (it->record == SI_TIMERS_MORE || it->record == SI_TIMERS_END) {
		it->record = SI_TIMERS_END;
	} else if (it->cpu >= nr_cpu_ids) {
		it->record = SI_TIMERS_END;
	} else if (it->listed < SI_TIMERS_MAX_LINES) {
		it->record = SI_TIMERS_LINES;
		si_timers_copy_chunk(it);
	} else {
		it->record = SI_TIMERS_MORE;
		si_timers_count_rest(it);
	}
}

static void *si_timers_start(struct seq_file *m, loff_t *pos)
{
	struct si_timers_iter *it = m->private;

	/* from the top (lseek() and pread() restart there too) */
	if (!*pos || *pos < it->pos) {
		memset(it, 0, sizeof(*it));
		it->cpu = cpumask_first(cpu_possible_mask);
	}
	while (it->pos < *pos && it->record != SI_TIMERS_END) {
		si_timers_advance(it);
		cond_resched();
	}
	return it->record == SI_TIMERS_END ? NULL : it;
}

static void *si_timers_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct si_timers_iter *it = v;

	si_timers_advance(it);
	*pos = it->pos;
	return it->record == SI_TIMERS_END ? NULL : it;
}

static void si_timers_stop(struct seq_file *m, void *v)
{
}

static int si_timers_show(struct seq_file *m, void *v)
{
	struct si_timers_iter *it = v;
	/* not "at_least": a macro of 7.x's compiler_types.h */
	const char *bound = it->more_at_least ? "at least " : "";
	unsigned int i;

	switch (it->record) {
	case SI_TIMERS_HEADER:
		seq_puts(m, "home state expires timeout flags function armed_at\n");
		break;
	case SI_TIMERS_LINES:
		for (i = 0; i < it->n; i++) {
			struct si_timer_copy *c = &it->copy[i];

			seq_printf(m, "%u %s %lld %lld %#x %ps %pS\n", it->copy_cpu,
				   c->queued ? "queued" : "armed", c->expires, c->timeout,
				   c->flags, c->function, (void *)c->armed_at);
		}
		break;
	case SI_TIMERS_MORE:
		if (it->more || it->more_at_least)
			seq_printf(m, "... and %s%lu more pending timers (%s%lu in all)\n",
				   bound, it->more, bound, it->listed + it->more);
		break;
	case SI_TIMERS_END:
		break;
	}
	return 0;
}

static const struct seq_operations si_timers_seq_ops = {
	.start	= si_timers_start,
	.next	= si_timers_next,
	.stop	= si_timers_stop,
	.show	= si_timers_show,
};

static int si_timers_open(struct inode *inode, struct file *file)
{
	return seq_open_private(file, &si_timers_seq_ops, sizeof(struct si_timers_iter));
}

/* As SI_DEBUGFS_FOPS() makes them, for an iterator of its own. */
static const struct file_operations si_timers_fops = {
	.owner		= THIS_MODULE,
	.open		= si_timers_open,
	.read_iter	= seq_read_iter,
	.llseek		= seq_lseek,
	.release	= seq_release_private,
};

void si_debugfs_init(void)
{
	si_debugfs_dir = debugfs_create_dir("si_timer", NULL);
	debugfs_create_file_unsafe("executors", 0444, si_debugfs_dir, NULL,
				   &si_executors_fops);
	debugfs_create_file_unsafe("stats", 0444, si_debugfs_dir, NULL, &si_stats_fops);
	debugfs_create_file_unsafe("timers", 0444, si_debugfs_dir, NULL, &si_timers_fops);
}

void si_debugfs_exit(void)
{
	debugfs_remove_recursive(si_debugfs_dir);
}
