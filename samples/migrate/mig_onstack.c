// SPDX-License-Identifier: GPL-2.0
/*
 * Migration sample: an on-stack timer waited for with a completion, as
 * drivers wait for a device with a timeout (timer_container_of() is the
 * 6.16 name of from_timer(): the converter takes both). The callback reads
 * in_serving_softirq() to pick its path (audit verdict: keep compatible).
 */
#include <linux/module.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/timer.h>

static int fired;
module_param(fired, int, 0444);
static int want = 1;
module_param(want, int, 0444);
static char ran_on[TASK_COMM_LEN];
module_param_string(ran_on, ran_on, sizeof(ran_on), 0444);
static int in_softirq_ctx;
module_param(in_softirq_ctx, int, 0444);

struct mig_wait {
	struct timer_list timer;
	struct completion done;
};

static void mig_onstack_fn(struct timer_list *t)
{
	struct mig_wait *w = timer_container_of(w, t, timer);

	get_task_comm(ran_on, current);
	/* Compatible mode keeps this true, as in the TIMER softirq. */
	in_softirq_ctx = !!in_serving_softirq();
	WRITE_ONCE(fired, fired + 1);
	complete(&w->done);
}

static int __init mig_init(void)
{
	struct mig_wait w;

	init_completion(&w.done);
	timer_setup_on_stack(&w.timer, mig_onstack_fn, 0);
	mod_timer(&w.timer, jiffies + msecs_to_jiffies(20));
	if (!wait_for_completion_timeout(&w.done, 10 * HZ))
		pr_warn("mig_onstack: timer did not fire within 10 s\n");
	timer_shutdown_sync(&w.timer);
	destroy_timer_on_stack(&w.timer);
	return 0;
}

static void __exit mig_exit(void)
{
}

module_init(mig_init);
module_exit(mig_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("migration sample: on-stack timer");
