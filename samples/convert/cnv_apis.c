// SPDX-License-Identifier: GPL-2.0
/*
 * Converter sample: add_timer_local(), add_timer_global() and
 * __TIMER_INITIALIZER() have si_timer twins; a timer's .function set by
 * hand is listed for the author; <linux/timer.h> comes through other
 * headers only, the last of them inside an #ifdef, so the converter must
 * add <si_timer.h> at top level. This comment names struct timer_list and
 * setup_timer(), which must not be listed.
 */
#include <linux/module.h>
#include <linux/jiffies.h>
#include <linux/smp.h>
#ifdef CONFIG_DEBUG_OBJECTS_TIMERS
#include <linux/debugobjects.h>
#endif

static void cnv_local_fn(struct timer_list *t);
static void cnv_global_fn(struct timer_list *t);

static struct timer_list cnv_local = __TIMER_INITIALIZER(cnv_local_fn, TIMER_PINNED);
static struct timer_list cnv_global = __TIMER_INITIALIZER(cnv_global_fn, TIMER_DEFERRABLE);
static struct timer_list cnv_manual;
static unsigned int cnv_runs;

static void cnv_local_fn(struct timer_list *t)
{
	cnv_runs++;
}

static void cnv_global_fn(struct timer_list *t)
{
	cnv_runs++;
}

static int __init cnv_init(void)
{
	cnv_local.expires = jiffies + HZ;
	add_timer_local(&cnv_local);
	cnv_global.expires = jiffies + HZ;
	add_timer_global(&cnv_global);
	timer_setup(&cnv_manual, cnv_local_fn, 0);
	cnv_manual.function = cnv_global_fn;	/* set by hand: listed */
	return 0;
}

static void __exit cnv_exit(void)
{
	timer_shutdown_sync(&cnv_local);
	timer_shutdown_sync(&cnv_global);
	timer_shutdown_sync(&cnv_manual);
}

module_init(cnv_init);
module_exit(cnv_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("converter sample: add_timer_local/global, __TIMER_INITIALIZER");
