// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: locks reached through helpers. One callback takes the
 * ring lock through a helper that gets the lock as a parameter, the other
 * through a getter that returns it; the NAPI poll takes the same lock
 * directly. A third callback takes the lock with spin_lock_bh() through
 * the same helper's _bh twin, a fourth only a lock shared with another
 * timer callback.
 * Verdicts: aud_helper_param_fn needs_bh, aud_helper_getter_fn needs_bh,
 * aud_helper_bh_fn safe, aud_helper_stats_fn safe.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct aud_ring {
	spinlock_t ring_lock;	/* head; poll and timers */
	spinlock_t stats_lock;	/* kicks; the timers only */
	struct napi_struct napi;
	struct net_device *ndev;
	struct timer_list param_timer;
	struct timer_list getter_timer;
	struct timer_list bh_timer;
	struct timer_list stats_timer;
	unsigned int head;
	unsigned int kicks;
};

static struct aud_ring *aud_ring;

static void aud_take(spinlock_t *l)
{
	spin_lock(l);
}

static void aud_take_bh(spinlock_t *l)
{
	spin_lock_bh(l);
}

static spinlock_t *aud_ring_lockp(struct aud_ring *r)
{
	return &r->ring_lock;
}

static int aud_helper_poll(struct napi_struct *napi, int budget)
{
	struct aud_ring *r = container_of(napi, struct aud_ring, napi);

	spin_lock(&r->ring_lock);
	r->head++;
	spin_unlock(&r->ring_lock);
	napi_complete_done(napi, 0);
	return 0;
}

static void aud_helper_param_fn(struct timer_list *t)
{
	struct aud_ring *r = from_timer(r, t, param_timer);

	aud_take(&r->ring_lock);
	r->head = 0;
	spin_unlock(&r->ring_lock);
}

static void aud_helper_getter_fn(struct timer_list *t)
{
	struct aud_ring *r = from_timer(r, t, getter_timer);

	spin_lock(aud_ring_lockp(r));
	r->head = 0;
	spin_unlock(aud_ring_lockp(r));
	spin_lock(&r->stats_lock);
	r->kicks = 0;
	spin_unlock(&r->stats_lock);
}

static void aud_helper_bh_fn(struct timer_list *t)
{
	struct aud_ring *r = from_timer(r, t, bh_timer);

	aud_take_bh(&r->ring_lock);
	r->head = 0;
	spin_unlock_bh(&r->ring_lock);
}

static void aud_helper_stats_fn(struct timer_list *t)
{
	struct aud_ring *r = from_timer(r, t, stats_timer);

	spin_lock(&r->stats_lock);
	r->kicks++;
	spin_unlock(&r->stats_lock);
	aud_take(&r->stats_lock);
	r->kicks++;
	spin_unlock(&r->stats_lock);
}

static int __init aud_init(void)
{
	aud_ring = kzalloc(sizeof(*aud_ring), GFP_KERNEL);
	if (!aud_ring)
		return -ENOMEM;
	spin_lock_init(&aud_ring->ring_lock);
	spin_lock_init(&aud_ring->stats_lock);
	aud_ring->ndev = alloc_netdev_dummy(0);
	if (!aud_ring->ndev) {
		kfree(aud_ring);
		return -ENOMEM;
	}
	netif_napi_add(aud_ring->ndev, &aud_ring->napi, aud_helper_poll);
	timer_setup(&aud_ring->param_timer, aud_helper_param_fn, 0);
	timer_setup(&aud_ring->getter_timer, aud_helper_getter_fn, 0);
	timer_setup(&aud_ring->bh_timer, aud_helper_bh_fn, 0);
	timer_setup(&aud_ring->stats_timer, aud_helper_stats_fn, 0);
	return 0;
}

static void __exit aud_exit(void)
{
	timer_shutdown_sync(&aud_ring->param_timer);
	timer_shutdown_sync(&aud_ring->getter_timer);
	timer_shutdown_sync(&aud_ring->bh_timer);
	timer_shutdown_sync(&aud_ring->stats_timer);
	netif_napi_del(&aud_ring->napi);
	free_netdev(aud_ring->ndev);
	kfree(aud_ring);
}

module_init(aud_init);
module_exit(aud_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: locks through helpers");
