// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: two timers of a qdisc take its root lock through a local
 * pointer (root_lock = qdisc_lock(...); spin_lock(root_lock)), as
 * sch_pie.c and sch_sfq.c do. The NET_TX softirq takes that lock: sharing
 * it between the two timers does not make it safe.
 * Verdicts: aud_qdisc_adapt_fn needs_bh, aud_qdisc_perturb_fn needs_bh.
 */
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

struct aud_qdisc_data {
	struct timer_list adapt_timer;
	struct timer_list perturb_timer;
	struct Qdisc *sch;
	u32 prob;
	u32 perturbation;
};

static void aud_qdisc_adapt_fn(struct timer_list *t)
{
	struct aud_qdisc_data *q = from_timer(q, t, adapt_timer);
	struct Qdisc *sch = q->sch;
	spinlock_t *root_lock;	/* the qdisc tree's root lock */

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(sch));
	spin_lock(root_lock);
	q->prob /= 2;
	spin_unlock(root_lock);
	rcu_read_unlock();
	mod_timer(&q->adapt_timer, jiffies + HZ / 10);
}

static void aud_qdisc_perturb_fn(struct timer_list *t)
{
	struct aud_qdisc_data *q = from_timer(q, t, perturb_timer);
	spinlock_t *root_lock;	/* the qdisc tree's root lock */

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(q->sch));
	spin_lock(root_lock);
	q->perturbation++;
	spin_unlock(root_lock);
	rcu_read_unlock();
	mod_timer(&q->perturb_timer, jiffies + HZ);
}

static int aud_qdisc_init(struct Qdisc *sch, struct nlattr *opt,
			  struct netlink_ext_ack *extack)
{
	struct aud_qdisc_data *q = qdisc_priv(sch);

	q->sch = sch;
	timer_setup(&q->adapt_timer, aud_qdisc_adapt_fn, 0);
	timer_setup(&q->perturb_timer, aud_qdisc_perturb_fn, TIMER_DEFERRABLE);
	mod_timer(&q->adapt_timer, jiffies + HZ / 10);
	mod_timer(&q->perturb_timer, jiffies + HZ);
	return 0;
}

static void aud_qdisc_destroy(struct Qdisc *sch)
{
	struct aud_qdisc_data *q = qdisc_priv(sch);

	timer_shutdown_sync(&q->adapt_timer);
	timer_shutdown_sync(&q->perturb_timer);
}

static int aud_qdisc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			     struct sk_buff **to_free)
{
	return qdisc_enqueue_tail(skb, sch);
}

static struct Qdisc_ops aud_qdisc_ops __read_mostly = {
	.id = "aud_qdisc",
	.priv_size = sizeof(struct aud_qdisc_data),
	.enqueue = aud_qdisc_enqueue,
	.dequeue = qdisc_dequeue_head,
	.peek = qdisc_peek_head,
	.init = aud_qdisc_init,
	.destroy = aud_qdisc_destroy,
	.owner = THIS_MODULE,
};

static int __init aud_init(void)
{
	return register_qdisc(&aud_qdisc_ops);
}

static void __exit aud_exit(void)
{
	unregister_qdisc(&aud_qdisc_ops);
}

module_init(aud_init);
module_exit(aud_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: qdisc root lock through a local pointer");
