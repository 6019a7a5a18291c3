// SPDX-License-Identifier: GPL-2.0
/*
 * Converter sample, module cnv_group: its timers. hello_timer and
 * hold_timer are handed to cnv_group_timer_value(), which is also handed
 * the delayed_work's timer: they stay timer_list with the helper and their
 * callbacks, listed (all converted or all listed). tick_timer, declared
 * after an #endif's neighbour, is converted whole.
 */
#include <linux/jiffies.h>
#include "cnv_group.h"

unsigned long cnv_group_timer_value(const struct timer_list *timer)
{
	return timer_pending(timer) ? timer->expires - jiffies : 0;
}

static void cnv_group_hello_fn(struct timer_list *t)
{
	struct cnv_group *g = from_timer(g, t, hello_timer);

	spin_lock(&g->lock);
	g->ticks++;
	spin_unlock(&g->lock);
	mod_timer(&g->hello_timer, jiffies + HZ);
}

static void cnv_group_hold_fn(struct timer_list *t)
{
	struct cnv_group *g = from_timer(g, t, hold_timer);

	g->ticks = 0;
}

static void cnv_group_tick_fn(struct timer_list *t)
{
	struct cnv_group *g = from_timer(g, t, tick_timer);

	g->ticks += 2;
	mod_timer(&g->tick_timer, jiffies + HZ);
}

void cnv_group_timers_init(struct cnv_group *g)
{
	timer_setup(&g->hello_timer, cnv_group_hello_fn, 0);
	timer_setup(&g->hold_timer, cnv_group_hold_fn, 0);
	timer_setup(&g->tick_timer, cnv_group_tick_fn, 0);
	mod_timer(&g->hello_timer, jiffies + HZ);
	mod_timer(&g->tick_timer, jiffies + HZ);
}

void cnv_group_timers_stop(struct cnv_group *g)
{
	timer_shutdown_sync(&g->hello_timer);
	timer_shutdown_sync(&g->hold_timer);
	timer_shutdown_sync(&g->tick_timer);
}
