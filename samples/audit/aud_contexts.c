// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: softirq code beyond NAPI polls and tasklets. Each timer
 * callback takes, with plain spin_lock(), one lock that one other handler
 * takes too:
 *   aud_ctx_urb_fn   - a USB completion (usb_fill_bulk_urb())      needs_bh
 *   aud_ctx_rcu_fn   - an RCU callback (call_rcu())                needs_bh
 *   aud_ctx_bhwq_fn  - a work item queued on system_bh_wq         needs_bh
 *   aud_ctx_blk_fn   - a block completion (blk_mq_ops .complete)  needs_bh
 *   aud_ctx_hrt_fn   - a soft hrtimer (HRTIMER_MODE_REL_SOFT)     mask_hrtimer
 *   aud_ctx_work_timer_fn - a work item on system_wq (process)     safe
 *   aud_ctx_unk_fn   - a function handed to a registration the audit
 *                      does not know (possibly softirq)            review
 * The soft hrtimer runs in the HRTIMER softirq, which a soft-interruptible
 * callback masks only with SI_TIMER_MASK_HRTIMER. Its callback,
 * aud_ctx_hrt_cb, is audited too (the converter makes it an si_hrtimer):
 * it shares its lock with a timer callback only, safe.
 */
#include <linux/module.h>
#include <linux/blk-mq.h>
#include <linux/hrtimer.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/reboot.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/usb.h>
#include <linux/workqueue.h>

struct aud_ctx {
	spinlock_t urb_lock, rcu_lock, bhwq_lock, blk_lock, hrt_lock, work_lock, unk_lock;
	struct timer_list urb_timer, rcu_timer, bhwq_timer, blk_timer, hrt_timer, work_timer,
			  unk_timer;
	struct urb *urb;
	struct rcu_head rcu;
	struct work_struct bh_work, work;
	struct hrtimer hrt;
	struct notifier_block nb;
	struct blk_mq_tag_set tags;
	unsigned long n;
};

static struct aud_ctx aud_ctx;

static void aud_ctx_urb_complete(struct urb *urb)
{
	struct aud_ctx *c = urb->context;

	spin_lock(&c->urb_lock);
	c->n++;
	spin_unlock(&c->urb_lock);
}

static void aud_ctx_rcu_cb(struct rcu_head *head)
{
	struct aud_ctx *c = container_of(head, struct aud_ctx, rcu);

	spin_lock(&c->rcu_lock);
	c->n++;
	spin_unlock(&c->rcu_lock);
}

static void aud_ctx_bh_work_fn(struct work_struct *w)
{
	struct aud_ctx *c = container_of(w, struct aud_ctx, bh_work);

	spin_lock(&c->bhwq_lock);
	c->n++;
	spin_unlock(&c->bhwq_lock);
}

static void aud_ctx_blk_complete(struct request *rq)
{
	struct aud_ctx *c = &aud_ctx;

	spin_lock(&c->blk_lock);
	c->n++;
	spin_unlock(&c->blk_lock);
	blk_mq_end_request(rq, BLK_STS_OK);
}

static const struct blk_mq_ops aud_ctx_mq_ops = {
	.complete = aud_ctx_blk_complete,
};

static enum hrtimer_restart aud_ctx_hrt_cb(struct hrtimer *h)
{
	struct aud_ctx *c = container_of(h, struct aud_ctx, hrt);

	spin_lock(&c->hrt_lock);
	c->n++;
	spin_unlock(&c->hrt_lock);
	return HRTIMER_NORESTART;
}

static void aud_ctx_work_fn(struct work_struct *w)
{
	struct aud_ctx *c = container_of(w, struct aud_ctx, work);

	spin_lock(&c->work_lock);
	c->n++;
	spin_unlock(&c->work_lock);
}

static int aud_ctx_notify(struct notifier_block *nb, unsigned long action, void *data)
{
	struct aud_ctx *c = container_of(nb, struct aud_ctx, nb);

	spin_lock(&c->unk_lock);
	c->n++;
	spin_unlock(&c->unk_lock);
	return NOTIFY_DONE;
}

static void aud_ctx_urb_fn(struct timer_list *t)
{
	struct aud_ctx *c = from_timer(c, t, urb_timer);

	spin_lock(&c->urb_lock);
	c->n++;
	spin_unlock(&c->urb_lock);
}

static void aud_ctx_rcu_fn(struct timer_list *t)
{
	struct aud_ctx *c = from_timer(c, t, rcu_timer);

	spin_lock(&c->rcu_lock);
	c->n++;
	spin_unlock(&c->rcu_lock);
}

static void aud_ctx_bhwq_fn(struct timer_list *t)
{
	struct aud_ctx *c = from_timer(c, t, bhwq_timer);

	spin_lock(&c->bhwq_lock);
	c->n++;
	spin_unlock(&c->bhwq_lock);
}

static void aud_ctx_blk_fn(struct timer_list *t)
{
	struct aud_ctx *c = from_timer(c, t, blk_timer);

	spin_lock(&c->blk_lock);
	c->n++;
	spin_unlock(&c->blk_lock);
}

static void aud_ctx_hrt_fn(struct timer_list *t)
{
	struct aud_ctx *c = from_timer(c, t, hrt_timer);

	spin_lock(&c->hrt_lock);
	c->n++;
	spin_unlock(&c->hrt_lock);
}

static void aud_ctx_work_timer_fn(struct timer_list *t)
{
	struct aud_ctx *c = from_timer(c, t, work_timer);

	spin_lock(&c->work_lock);
	c->n++;
	spin_unlock(&c->work_lock);
}

static void aud_ctx_unk_fn(struct timer_list *t)
{
	struct aud_ctx *c = from_timer(c, t, unk_timer);

	spin_lock(&c->unk_lock);
	c->n++;
	spin_unlock(&c->unk_lock);
}

static int __init aud_init(void)
{
	struct aud_ctx *c = &aud_ctx;

	spin_lock_init(&c->urb_lock);
	spin_lock_init(&c->rcu_lock);
	spin_lock_init(&c->bhwq_lock);
	spin_lock_init(&c->blk_lock);
	spin_lock_init(&c->hrt_lock);
	spin_lock_init(&c->work_lock);
	spin_lock_init(&c->unk_lock);
	c->urb = usb_alloc_urb(0, GFP_KERNEL);
	if (!c->urb)
		return -ENOMEM;
	usb_fill_bulk_urb(c->urb, NULL, 0, NULL, 0, aud_ctx_urb_complete, c);
	INIT_WORK(&c->bh_work, aud_ctx_bh_work_fn);
	INIT_WORK(&c->work, aud_ctx_work_fn);
	hrtimer_init(&c->hrt, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	c->hrt.function = aud_ctx_hrt_cb;
	c->nb.notifier_call = aud_ctx_notify;
	c->tags.ops = &aud_ctx_mq_ops;
	register_reboot_notifier(&c->nb);
	timer_setup(&c->urb_timer, aud_ctx_urb_fn, 0);
	timer_setup(&c->rcu_timer, aud_ctx_rcu_fn, 0);
	timer_setup(&c->bhwq_timer, aud_ctx_bhwq_fn, 0);
	timer_setup(&c->blk_timer, aud_ctx_blk_fn, 0);
	timer_setup(&c->hrt_timer, aud_ctx_hrt_fn, 0);
	timer_setup(&c->work_timer, aud_ctx_work_timer_fn, 0);
	timer_setup(&c->unk_timer, aud_ctx_unk_fn, 0);
	queue_work(system_bh_wq, &c->bh_work);
	queue_work(system_wq, &c->work);
	call_rcu(&c->rcu, aud_ctx_rcu_cb);
	hrtimer_start(&c->hrt, ms_to_ktime(10), HRTIMER_MODE_REL_SOFT);
	return 0;
}

static void __exit aud_exit(void)
{
	struct aud_ctx *c = &aud_ctx;

	unregister_reboot_notifier(&c->nb);
	hrtimer_cancel(&c->hrt);
	cancel_work_sync(&c->bh_work);
	cancel_work_sync(&c->work);
	timer_shutdown_sync(&c->urb_timer);
	timer_shutdown_sync(&c->rcu_timer);
	timer_shutdown_sync(&c->bhwq_timer);
	timer_shutdown_sync(&c->blk_timer);
	timer_shutdown_sync(&c->hrt_timer);
	timer_shutdown_sync(&c->work_timer);
	timer_shutdown_sync(&c->unk_timer);
	rcu_barrier();
	usb_free_urb(c->urb);
}

module_init(aud_init);
module_exit(aud_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: softirq code beyond NAPI and tasklets");
