// SPDX-License-Identifier: GPL-2.0
/*
 * A module that depends on si_timer, built against the installed si_timer
 * only (its header and Module.symvers, through si_timer.mk): what a driver
 * packaged with DKMS next to si_timer looks like. On load it arms a timer
 * that fires three times, re-arming itself; /sys/module/si_timer_sample/
 * parameters/fired counts the runs and ran_on names the executor thread.
 */
#include <linux/module.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <si_timer.h>

#define SAMPLE_RUNS 3

static struct si_timer sample_timer;
static int fired;
module_param(fired, int, 0444);
MODULE_PARM_DESC(fired, "times the sample timer's callback ran");
static char ran_on[TASK_COMM_LEN];
module_param_string(ran_on, ran_on, sizeof(ran_on), 0444);
MODULE_PARM_DESC(ran_on, "thread the last callback ran in");

static void sample_fn(struct si_timer *t)
{
	get_task_comm(ran_on, current);
	WRITE_ONCE(fired, fired + 1);
	pr_info("si_timer_sample: timer fired (%d) in %s\n", fired, ran_on);
	if (fired < SAMPLE_RUNS)
		si_mod_timer(t, jiffies + msecs_to_jiffies(20));
}

static int __init sample_init(void)
{
	si_timer_setup(&sample_timer, sample_fn, 0);
	si_mod_timer(&sample_timer, jiffies + msecs_to_jiffies(20));
	return 0;
}

static void __exit sample_exit(void)
{
	si_timer_shutdown_sync(&sample_timer);
}

module_init(sample_init);
module_exit(sample_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer sample dependent module (DKMS)");
