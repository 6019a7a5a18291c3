// SPDX-License-Identifier: GPL-2.0
/*
 * Converter sample, module cnv_group: what reads the timers' values, as
 * net/bridge's br_netlink.c does with br_timer_value().
 */
#include <linux/module.h>
#include "cnv_group.h"

static struct cnv_group cnv_group;

static void cnv_group_gc(struct work_struct *work)
{
}

static int __init cnv_group_init(void)
{
	spin_lock_init(&cnv_group.lock);
	INIT_DELAYED_WORK(&cnv_group.gc_work, cnv_group_gc);
	cnv_group_timers_init(&cnv_group);
	pr_info("cnv_group: %lu %lu %lu\n", cnv_group_timer_value(&cnv_group.hello_timer),
		cnv_group_timer_value(&cnv_group.hold_timer),
		cnv_group_timer_value(&cnv_group.gc_work.timer));
	return 0;
}

static void __exit cnv_group_exit(void)
{
	cancel_delayed_work_sync(&cnv_group.gc_work);
	cnv_group_timers_stop(&cnv_group);
}

module_init(cnv_group_init);
module_exit(cnv_group_exit);
MODULE_DESCRIPTION("si_timer converter sample: a timer helper's group");
MODULE_LICENSE("GPL");
