// SPDX-License-Identifier: GPL-2.0
/*
 * Migration sample: a timer embedded in a kzalloc'ed device structure,
 * written against timer_list. Its callback takes the device lock with
 * spin_lock(), and so does the device's tasklet: soft-interruptible, the
 * tasklet could interrupt the callback holding the lock (audit verdict:
 * needs _bh locking).
 */
#include <linux/module.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#define MIG_RUNS 3

struct mig_dev {
	spinlock_t lock;	/* events; timer and tasklet */
	struct timer_list timer;
	struct tasklet_struct tasklet;
	unsigned int events;
};

static struct mig_dev *mig;
static int fired;
module_param(fired, int, 0444);
static int want = MIG_RUNS;
module_param(want, int, 0444);
static char ran_on[TASK_COMM_LEN];
module_param_string(ran_on, ran_on, sizeof(ran_on), 0444);

static void mig_tasklet_fn(struct tasklet_struct *t)
{
	struct mig_dev *dev = from_tasklet(dev, t, tasklet);

	spin_lock(&dev->lock);
	dev->events++;
	spin_unlock(&dev->lock);
}

static void mig_timer_fn(struct timer_list *t)
{
	struct mig_dev *dev = from_timer(dev, t, timer);

	get_task_comm(ran_on, current);
	spin_lock(&dev->lock);
	dev->events++;
	spin_unlock(&dev->lock);
	tasklet_schedule(&dev->tasklet);
	WRITE_ONCE(fired, fired + 1);
	if (fired < MIG_RUNS)
		mod_timer(&dev->timer, jiffies + msecs_to_jiffies(20));
}

static int __init mig_init(void)
{
	mig = kzalloc(sizeof(*mig), GFP_KERNEL);
	if (!mig)
		return -ENOMEM;
	spin_lock_init(&mig->lock);
	tasklet_setup(&mig->tasklet, mig_tasklet_fn);
	timer_setup(&mig->timer, mig_timer_fn, 0);
	mod_timer(&mig->timer, jiffies + msecs_to_jiffies(20));
	/* An earlier expiry wins; a later one is ignored. */
	timer_reduce(&mig->timer, jiffies + msecs_to_jiffies(10));
	if (!timer_pending(&mig->timer))
		pr_warn("mig_embedded: timer not pending after mod_timer\n");
	return 0;
}

static void __exit mig_exit(void)
{
	del_timer_sync(&mig->timer);
	/* No longer pending: mod_timer_pending() must not re-arm it. */
	mod_timer_pending(&mig->timer, jiffies + HZ);
	timer_shutdown_sync(&mig->timer);
	tasklet_kill(&mig->tasklet);
	kfree(mig);
}

module_init(mig_init);
module_exit(mig_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("migration sample: timer in a kzalloc'ed struct");
