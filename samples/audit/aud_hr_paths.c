// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: what real drivers with soft hrtimers do that a reading of
 * locks alone misses (mvpp2, mac80211_hwsim, f_ncm, snd-aloop):
 *   aud_hp_txdone_cb - per_cpu_ptr() of the running CPU (its number
 *                      from smp_processor_id()), as ndo_start_xmit
 *                      updates it: BH exclusion is its lock      keep_compatible
 *   aud_hp_iter_cb   - hands a function to an iterator, which runs
 *                      it there and then: that function takes a
 *                      lock the transmit path takes              needs_bh
 *   aud_hp_kick_cb   - calls the transmit routine itself         needs_bh
 *   aud_hp_guard_fn  - scoped_guard(spinlock, ...) of a lock a
 *                      tasklet takes                             needs_bh
 *   aud_hp_canrx_cb  - cancelled synchronously by a CAN receive
 *                      handler (NET_RX), as j1939's timers are   review
 */
#include <linux/module.h>
#include <linux/can/core.h>
#include <linux/cleanup.h>
#include <linux/hrtimer.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct aud_hp_pcpu {
	unsigned int count;
};

struct aud_hp {
	spinlock_t radio_lock, guard_lock;
	struct aud_hp_pcpu __percpu *pcpu;
	struct hrtimer txdone, iter, kick, canrx;
	struct timer_list guard_timer;
	struct tasklet_struct tasklet;
	struct net_device *ndev;
	struct idr radios;
	unsigned long n;
};

static struct aud_hp aud_hp;

static unsigned int aud_hp_thread(unsigned int cpu)
{
	return cpu % 4;
}

/* Completion of sent frames, on the CPU's own queue. */
static void aud_hp_tx_done(struct aud_hp *h, unsigned int thread)
{
	struct aud_hp_pcpu *q = per_cpu_ptr(h->pcpu, thread);

	q->count = 0;
}

static enum hrtimer_restart aud_hp_txdone_cb(struct hrtimer *t)
{
	struct aud_hp *h = container_of(t, struct aud_hp, txdone);

	aud_hp_tx_done(h, aud_hp_thread(smp_processor_id()));
	return HRTIMER_NORESTART;
}

static int aud_hp_radio_tx(int id, void *p, void *data)
{
	struct aud_hp *h = data;

	spin_lock(&h->radio_lock);
	h->n++;
	spin_unlock(&h->radio_lock);
	return 0;
}

static netdev_tx_t aud_hp_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct aud_hp *h = &aud_hp;
	unsigned int thread = aud_hp_thread(smp_processor_id());
	struct aud_hp_pcpu *q = per_cpu_ptr(h->pcpu, thread);

	q->count++;
	spin_lock(&h->radio_lock);
	h->n++;
	spin_unlock(&h->radio_lock);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops aud_hp_ops = {
	.ndo_start_xmit = aud_hp_start_xmit,
};

static enum hrtimer_restart aud_hp_iter_cb(struct hrtimer *t)
{
	struct aud_hp *h = container_of(t, struct aud_hp, iter);

	idr_for_each(&h->radios, aud_hp_radio_tx, h);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart aud_hp_kick_cb(struct hrtimer *t)
{
	struct aud_hp *h = container_of(t, struct aud_hp, kick);

	if (h->ndev)
		h->ndev->netdev_ops->ndo_start_xmit(NULL, h->ndev);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart aud_hp_canrx_cb(struct hrtimer *t)
{
	struct aud_hp *h = container_of(t, struct aud_hp, canrx);

	WRITE_ONCE(h->n, 0);
	return HRTIMER_NORESTART;
}

static void aud_hp_can_rcv(struct sk_buff *skb, void *data)
{
	struct aud_hp *h = data;

	hrtimer_cancel(&h->canrx);
}

static void aud_hp_tasklet_fn(struct tasklet_struct *tl)
{
	struct aud_hp *h = from_tasklet(h, tl, tasklet);

	spin_lock(&h->guard_lock);
	h->n++;
	spin_unlock(&h->guard_lock);
}

static void aud_hp_guard_fn(struct timer_list *t)
{
	struct aud_hp *h = from_timer(h, t, guard_timer);

	scoped_guard(spinlock, &h->guard_lock)
		h->n++;
}

static int __init aud_init(void)
{
	struct aud_hp *h = &aud_hp;

	h->pcpu = alloc_percpu(struct aud_hp_pcpu);
	if (!h->pcpu)
		return -ENOMEM;
	spin_lock_init(&h->radio_lock);
	spin_lock_init(&h->guard_lock);
	idr_init(&h->radios);
	if (h->ndev)
		h->ndev->netdev_ops = &aud_hp_ops;
	tasklet_setup(&h->tasklet, aud_hp_tasklet_fn);
	hrtimer_init(&h->txdone, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
	h->txdone.function = aud_hp_txdone_cb;
	hrtimer_init(&h->iter, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	h->iter.function = aud_hp_iter_cb;
	hrtimer_init(&h->kick, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	h->kick.function = aud_hp_kick_cb;
	hrtimer_init(&h->canrx, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	h->canrx.function = aud_hp_canrx_cb;
	timer_setup(&h->guard_timer, aud_hp_guard_fn, 0);
	return can_rx_register(&init_net, NULL, 0, 0, aud_hp_can_rcv, h, "aud_hp", NULL);
}

static void __exit aud_exit(void)
{
	struct aud_hp *h = &aud_hp;

	hrtimer_cancel(&h->txdone);
	hrtimer_cancel(&h->iter);
	hrtimer_cancel(&h->kick);
	can_rx_unregister(&init_net, NULL, 0, 0, aud_hp_can_rcv, h);
	hrtimer_cancel(&h->canrx);
	timer_shutdown_sync(&h->guard_timer);
	tasklet_kill(&h->tasklet);
	idr_destroy(&h->radios);
	free_percpu(h->pcpu);
}

module_init(aud_init);
module_exit(aud_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: paths of real drivers' soft hrtimer callbacks");
