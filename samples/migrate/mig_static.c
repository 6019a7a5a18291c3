// SPDX-License-Identifier: GPL-2.0
/*
 * Migration sample: a static DEFINE_TIMER armed by setting .expires and
 * calling add_timer(), plus a pinned timer started with add_timer_on().
 * The callbacks only touch atomics (audit verdict: safe). It gets
 * <linux/timer.h> through other headers: the converter adds <si_timer.h>.
 */
#include <linux/module.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/sched.h>

static int fired;
module_param(fired, int, 0444);
static int want = 2;
module_param(want, int, 0444);
static char ran_on[TASK_COMM_LEN];
module_param_string(ran_on, ran_on, sizeof(ran_on), 0444);
static atomic_t mig_static_runs = ATOMIC_INIT(0);
static struct timer_list mig_pinned;

static void mig_static_fn(struct timer_list *t)
{
	get_task_comm(ran_on, current);
	atomic_inc(&mig_static_runs);
	WRITE_ONCE(fired, atomic_read(&mig_static_runs));
}

static DEFINE_TIMER(mig_static_timer, mig_static_fn);

static int __init mig_init(void)
{
	mig_static_timer.expires = jiffies + msecs_to_jiffies(20);
	add_timer(&mig_static_timer);
	timer_setup(&mig_pinned, mig_static_fn, TIMER_PINNED);
	mig_pinned.expires = jiffies + msecs_to_jiffies(30);
	add_timer_on(&mig_pinned, cpumask_first(cpu_online_mask));
	return 0;
}

static void __exit mig_exit(void)
{
	while (try_to_del_timer_sync(&mig_static_timer) < 0)
		cpu_relax();
	timer_delete_sync(&mig_static_timer);
	del_timer(&mig_pinned);
	timer_shutdown(&mig_pinned);
	timer_delete_sync(&mig_pinned);
}

module_init(mig_init);
module_exit(mig_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("migration sample: static DEFINE_TIMER and add_timer_on");
