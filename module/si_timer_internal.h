/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SI_TIMER_INTERNAL_H
#define _SI_TIMER_INTERNAL_H

#include <si_timer.h>
#include <linux/spinlock.h>
#include "compat.h"

/* Callbacks waiting on an executor, by the mode they run in. */
enum si_queue {
	SI_Q_COMPAT,	/* in softirq-serving state, BH disabled */
	SI_Q_SOFT,	/* BH enabled, timer vectors masked */
	SI_NR_QUEUES,
};

/*
 * One per CPU. @lock (raw: taken from the timer softirq, also on RT) guards
 * the queues, @parked, and the queued_on/running_on members of the timers
 * queued here. @cb_lock is held across each callback and nothing else:
 * a canceller that must wait for a running callback takes it, which on
 * PREEMPT_RT sleeps and boosts the executor (rt_mutex), as the kernel's
 * timer expiry_lock does.
 */
struct si_executor {
	raw_spinlock_t		lock;
	struct list_head	queue[SI_NR_QUEUES];
	bool			parked;
	unsigned int		cpu;
	spinlock_t		cb_lock;	/* held across each callback */
	struct si_timer		*running;
	unsigned long		ran[SI_NR_QUEUES];
};

int si_executors_init(int prio);
void si_executors_exit(void);
void si_executor_queue(struct si_timer *timer);
int si_executor_dequeue(struct si_timer *timer);
int si_executor_try_dequeue(struct si_timer *timer);
int si_executor_wait_running(struct si_timer *timer);
bool si_executor_running_self(const struct si_timer *timer);

struct seq_file;
void si_executor_show(struct seq_file *m, unsigned int cpu);
void si_debugfs_init(void);
void si_debugfs_exit(void);

#endif /* _SI_TIMER_INTERNAL_H */
