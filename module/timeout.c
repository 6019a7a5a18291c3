// SPDX-License-Identifier: GPL-2.0
/*
 * si_schedule_timeout*(): schedule_timeout() whose wake-up timer is
 * soft-interruptible (the seed series' patch 007 as a library call). Waking
 * a task needs no bottom-half exclusion, so this callback is audited.
 */
#include <linux/export.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include "si_timer_internal.h"

struct si_process_timer {
	struct si_timer timer;
	struct task_struct *task;
};

static void si_process_timeout(struct si_timer *t)
{
	struct si_process_timer *timeout = si_timer_container_of(timeout, t, timer);

	wake_up_process(timeout->task);
}

/**
 * si_schedule_timeout - sleep until timeout, with a soft-interruptible timer
 * @timeout: timeout in jiffies, or MAX_SCHEDULE_TIMEOUT
 *
 * As schedule_timeout(): set the task state first.
 *
 * Return: 0 when the timer expired, else the jiffies that remained.
 */
signed long si_schedule_timeout(signed long timeout)
{
	struct si_process_timer timer;
	unsigned long expire;

	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		schedule();
		return timeout;
	}
	if (timeout < 0) {
		pr_err("%s: wrong timeout value %lx\n", __func__, timeout);
		dump_stack();
		__set_current_state(TASK_RUNNING);
		return 0;
	}

	expire = timeout + jiffies;
	timer.task = current;
	si_timer_setup_on_stack(&timer.timer, si_process_timeout,
				SI_TIMER_SOFTINTERRUPTIBLE);
	si_mod_timer(&timer.timer, expire);
	schedule();
	si_timer_delete_sync(&timer.timer);
	si_destroy_timer_on_stack(&timer.timer);

	timeout = expire - jiffies;
	return timeout < 0 ? 0 : timeout;
}
EXPORT_SYMBOL_GPL(si_schedule_timeout);

signed long si_schedule_timeout_interruptible(signed long timeout)
{
	__set_current_state(TASK_INTERRUPTIBLE);
	return si_schedule_timeout(timeout);
}
EXPORT_SYMBOL_GPL(si_schedule_timeout_interruptible);

signed long si_schedule_timeout_uninterruptible(signed long timeout)
{
	__set_current_state(TASK_UNINTERRUPTIBLE);
	return si_schedule_timeout(timeout);
}
EXPORT_SYMBOL_GPL(si_schedule_timeout_uninterruptible);
