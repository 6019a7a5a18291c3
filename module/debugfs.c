// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/si_timer/: executor state for whoever debugs a
 * converted driver.
 *   executors  a line per CPU: queues, callbacks run, the running one
 *   stats      a line per CPU: callbacks per mode, the longest callback,
 *              softirqs of each vector that ran on that CPU during
 *              soft-interruptible callbacks, timer vectors the mask deferred
 *   timers     every pending timer: home, state, expiry, flags, callback,
 *              where it was armed
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

/* An si_hrtimer's expires and timeout are its HARD hrtimer's, in ns. */
static void si_timer_line(struct seq_file *m, unsigned int cpu, const char *state,
			  struct si_timer *timer)
{
	long long expires = timer->expires, timeout = (long)(timer->expires - jiffies);

	if (timer->flags & SI_TIMER_HR) {
		struct hrtimer *hw = &si_hrtimer_of(timer)->hw;

		expires = ktime_to_ns(hrtimer_get_expires(hw));
		timeout = ktime_to_ns(hrtimer_expires_remaining(hw));
	}
	seq_printf(m, "%u %s %lld %lld %#x %ps %pS\n", cpu, state, expires, timeout,
		   timer->flags, si_callback_of(timer), (void *)timer->armed_at);
}

/*
 * Printed under the executor's lock, irqs off: a debugging aid, to be read
 * with a few thousand timers at most.
 */
static int si_timers_show(struct seq_file *m, void *v)
{
	struct si_timer *timer;
	unsigned int cpu, i;
	int k, q;

	seq_puts(m, "home state expires timeout flags function armed_at\n");
	for_each_possible_cpu(cpu) {
		struct si_executor *e = si_executor_of(cpu);

		raw_spin_lock_irq(&e->lock);
		for (k = 0; k < SI_NR_WHEELS; k++)
			for (i = 0; i < SI_WHEEL_LISTS; i++)
				hlist_for_each_entry(timer, si_wheel_list(&e->wheel[k], i), node)
					si_timer_line(m, cpu, "armed", timer);
		hlist_for_each_entry(timer, &e->hr_armed, node)
			si_timer_line(m, cpu, "armed", timer);
		for (q = 0; q < SI_NR_QUEUES; q++)
			si_fifo_for_each(timer, &e->queue[q])
				si_timer_line(m, cpu, "queued", timer);
		raw_spin_unlock_irq(&e->lock);
	}
	return 0;
}

SI_DEBUGFS_FOPS(si_timers);

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
