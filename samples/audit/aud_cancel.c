// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: the -EDEADLK case. The callback itself takes no lock, but
 * the timer is cancelled synchronously from the NAPI poll and, elsewhere,
 * inside a spin_lock_bh() section, then freed. Opted in, on PREEMPT_RT
 * si_timer_delete_sync() refuses to wait there when the callback runs on
 * the same CPU (-EDEADLK), and the free would race the running callback.
 * The flush timer is cancelled from process context only.
 * Verdicts: aud_cancel_fn review, aud_cancel_flush_fn safe.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct aud_req {
	struct timer_list timer;
	unsigned int tries;
};

struct aud_cancel {
	spinlock_t lock;	/* req */
	struct aud_req *req;
	struct napi_struct napi;
	struct net_device *ndev;
	struct timer_list flush_timer;
};

static struct aud_cancel aud_cancel;

static void aud_cancel_fn(struct timer_list *t)
{
	struct aud_req *req = from_timer(req, t, timer);

	WRITE_ONCE(req->tries, req->tries + 1);
}

static void aud_cancel_flush_fn(struct timer_list *t)
{
	WRITE_ONCE(aud_cancel.req, NULL);
}

static int aud_cancel_poll(struct napi_struct *napi, int budget)
{
	struct aud_req *req = xchg(&aud_cancel.req, NULL);

	if (req) {
		del_timer_sync(&req->timer);
		kfree(req);
	}
	napi_complete_done(napi, 0);
	return 0;
}

static void aud_cancel_reset(struct aud_cancel *c)
{
	struct aud_req *req;

	spin_lock_bh(&c->lock);
	req = c->req;
	c->req = NULL;
	if (req && timer_delete_sync(&req->timer) >= 0)
		kfree(req);
	spin_unlock_bh(&c->lock);
}

static int __init aud_init(void)
{
	struct aud_req *req = kzalloc(sizeof(*req), GFP_KERNEL);

	if (!req)
		return -ENOMEM;
	spin_lock_init(&aud_cancel.lock);
	aud_cancel.ndev = alloc_netdev_dummy(0);
	if (!aud_cancel.ndev) {
		kfree(req);
		return -ENOMEM;
	}
	netif_napi_add(aud_cancel.ndev, &aud_cancel.napi, aud_cancel_poll);
	timer_setup(&req->timer, aud_cancel_fn, 0);
	timer_setup(&aud_cancel.flush_timer, aud_cancel_flush_fn, 0);
	aud_cancel.req = req;
	mod_timer(&req->timer, jiffies + HZ);
	return 0;
}

static void __exit aud_exit(void)
{
	aud_cancel_reset(&aud_cancel);
	timer_shutdown_sync(&aud_cancel.flush_timer);
	netif_napi_del(&aud_cancel.napi);
	free_netdev(aud_cancel.ndev);
}

module_init(aud_init);
module_exit(aud_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: synchronous cancels from softirq and BH-off code");
