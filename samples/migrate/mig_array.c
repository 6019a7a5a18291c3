// SPDX-License-Identifier: GPL-2.0
/*
 * Migration sample: an array of timers, one per queue, deferrable. Each
 * callback counts in a per-CPU statistic that the device's NAPI poll also
 * updates with this_cpu_inc(): soft-interruptible, the poll could run in
 * the middle of the callback's update (audit verdict: keep compatible).
 * The queues' stats lock is taken by the timers only, which never
 * interrupt each other.
 */
#include <linux/module.h>
#include <linux/jiffies.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#define MIG_QUEUES 4

struct mig_queue {
	struct timer_list timer;
	int index;
};

struct mig_nic {
	struct mig_queue queues[MIG_QUEUES];
	struct net_device *ndev;
	struct napi_struct napi;
	spinlock_t stats_lock;	/* kicks; taken by the queue timers only */
	unsigned long kicks;
};

static struct mig_nic nic;
static DEFINE_PER_CPU(unsigned long, mig_packets);
static int fired;
module_param(fired, int, 0444);
static int want = MIG_QUEUES;
module_param(want, int, 0444);
static char ran_on[TASK_COMM_LEN];
module_param_string(ran_on, ran_on, sizeof(ran_on), 0444);

static int mig_poll(struct napi_struct *napi, int budget)
{
	this_cpu_inc(mig_packets);
	napi_complete_done(napi, 0);
	return 0;
}

static void mig_queue_fn(struct timer_list *t)
{
	struct mig_queue *q = from_timer(q, t, timer);

	get_task_comm(ran_on, current);
	this_cpu_inc(mig_packets);
	spin_lock(&nic.stats_lock);
	nic.kicks |= BIT(q->index);
	WRITE_ONCE(fired, hweight_long(nic.kicks));
	spin_unlock(&nic.stats_lock);
}

static int __init mig_init(void)
{
	int i;

	spin_lock_init(&nic.stats_lock);
	/* never registered: only a home for the NAPI context (any kernel) */
	nic.ndev = alloc_netdev(0, "mig%d", NET_NAME_UNKNOWN, ether_setup);
	if (!nic.ndev)
		return -ENOMEM;
	netif_napi_add(nic.ndev, &nic.napi, mig_poll);
	napi_enable(&nic.napi);
	for (i = 0; i < MIG_QUEUES; i++) {
		nic.queues[i].index = i;
		timer_setup(&nic.queues[i].timer, mig_queue_fn, TIMER_DEFERRABLE);
		mod_timer(&nic.queues[i].timer, jiffies + msecs_to_jiffies(20 + 5 * i));
	}
	return 0;
}

static void __exit mig_exit(void)
{
	int i;

	for (i = 0; i < MIG_QUEUES; i++) {
		timer_delete(&nic.queues[i].timer);
		timer_shutdown_sync(&nic.queues[i].timer);
	}
	napi_disable(&nic.napi);
	netif_napi_del(&nic.napi);
	free_netdev(nic.ndev);
}

module_init(mig_init);
module_exit(mig_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("migration sample: an array of deferrable timers");
