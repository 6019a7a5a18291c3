// SPDX-License-Identifier: GPL-2.0
/*
 * si_timer: soft-interruptible timers for unmodified kernels.
 * Module entry: parameters, load order, unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include "si_timer_internal.h"
#include "symbols.h"
#include "vecmask.h"

/*
 * PREEMPT_RT runs timer softirqs in ktimers/N at SCHED_FIFO 1; the executor
 * takes the same place so converted timers keep their standing against
 * RT tasks. On non-RT the timer softirq preempts every task; FIFO 1 is the
 * closest a thread gets without starving RT tasks.
 */
static int prio = 1;
/* Set while the executors run; guarded by the parameter lock. */
static bool si_started;

/* Writable at run time: applied to every executor, and to those to come. */
static int si_prio_set(const char *val, const struct kernel_param *kp)
{
	int v, ret = kstrtoint(val, 0, &v);

	if (ret)
		return ret;
	if (v < 0 || v > 99) {
		pr_err("prio=%d out of range 0-99\n", v);
		return -EINVAL;
	}
	if (si_started) {
		ret = si_executors_set_prio(v);
		if (ret)
			return ret;
	}
	prio = v;
	return 0;
}

static const struct kernel_param_ops si_prio_ops = {
	.set = si_prio_set,
	.get = param_get_int,
};
module_param_cb(prio, &si_prio_ops, &prio, 0644);
MODULE_PARM_DESC(prio, "executor SCHED_FIFO priority, 1-99; 0 = SCHED_OTHER (default 1, as ktimers); writable");

static void si_stop_executors(void)
{
	kernel_param_lock(THIS_MODULE);
	si_started = false;
	kernel_param_unlock(THIS_MODULE);
	si_executors_exit();
}

static int __init si_timer_init(void)
{
	int ret;

	/* prio was range-checked by si_prio_set(), at insmod too. */
	ret = si_symbols_init();
	if (ret)
		return ret;
	ret = si_vecmask_init();
	if (ret)
		return ret;
	/* A write to prio meanwhile waits, then applies to every executor. */
	kernel_param_lock(THIS_MODULE);
	ret = si_executors_init(prio);
	si_started = !ret;
	kernel_param_unlock(THIS_MODULE);
	if (ret) {
		si_vecmask_exit();
		return ret;
	}
	ret = si_unload_init();
	if (ret) {
		si_stop_executors();
		si_vecmask_exit();
		return ret;
	}
	si_debugfs_init();
	pr_info("version %s loaded, executors at %s %d\n", SI_TIMER_VERSION,
		prio ? "SCHED_FIFO" : "SCHED_OTHER", prio);
	return 0;
}

static void __exit si_timer_exit(void)
{
	si_debugfs_exit();
	si_unload_exit();
	si_stop_executors();
	si_vecmask_exit();
	pr_info("unloaded\n");
}

module_init(si_timer_init);
module_exit(si_timer_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(SI_TIMER_VERSION);
MODULE_DESCRIPTION("Soft-interruptible timers: timer_list callbacks run by per-CPU executors that other softirqs may interrupt");
MODULE_AUTHOR("si_timer developers");
