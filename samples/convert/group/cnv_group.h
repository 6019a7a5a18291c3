/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Converter sample (net/bridge's shape): a timer member right after an
 * #endif, a helper taking const struct timer_list * that is handed the
 * driver's timers and a delayed_work's (kernel-owned) timer.
 */
#ifndef CNV_GROUP_H
#define CNV_GROUP_H

#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

struct cnv_group {
	spinlock_t lock;	/* ticks */
#ifdef CONFIG_PROVE_LOCKING
	unsigned int checks;
#endif
	struct timer_list hello_timer;	/* right after #endif */
	struct timer_list hold_timer;
	struct timer_list tick_timer;	/* never handed to the helper */
	struct delayed_work gc_work;
	unsigned long ticks;
};

unsigned long cnv_group_timer_value(const struct timer_list *timer);
void cnv_group_timers_init(struct cnv_group *g);
void cnv_group_timers_stop(struct cnv_group *g);

#endif
