// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/si_timer/: executor state for whoever debugs a
 * converted driver. "executors" has a line per CPU.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "si_timer_internal.h"
#include "vecmask.h"

static struct dentry *si_debugfs_dir;

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
DEFINE_SHOW_ATTRIBUTE(si_executors);

void si_debugfs_init(void)
{
	si_debugfs_dir = debugfs_create_dir("si_timer", NULL);
	debugfs_create_file("executors", 0444, si_debugfs_dir, NULL,
			    &si_executors_fops);
}

void si_debugfs_exit(void)
{
	debugfs_remove_recursive(si_debugfs_dir);
}
