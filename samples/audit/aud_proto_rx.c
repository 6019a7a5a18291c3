// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: a timer callback takes, with plain spin_lock(), the lock
 * that the protocol's packet receive handler (packet_type .func, NET_RX
 * softirq) takes too. Soft-interruptible, the receive handler could run on
 * the callback's CPU while it holds the lock.
 * Verdict: aud_proto_timer_fn needs_bh.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct aud_proto {
	spinlock_t lock;	/* seq; receive handler and timer */
	struct timer_list timer;
	u32 seq;
};

static struct aud_proto aud_proto;

static int aud_proto_rcv(struct sk_buff *skb, struct net_device *dev,
			 struct packet_type *pt, struct net_device *orig_dev)
{
	struct aud_proto *p = &aud_proto;

	spin_lock(&p->lock);
	p->seq++;
	spin_unlock(&p->lock);
	kfree_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type aud_proto_ptype __read_mostly = {
	.type = cpu_to_be16(0x88b5),
	.func = aud_proto_rcv,
};

static void aud_proto_timer_fn(struct timer_list *t)
{
	struct aud_proto *p = from_timer(p, t, timer);

	spin_lock(&p->lock);
	p->seq = 0;
	spin_unlock(&p->lock);
	mod_timer(&p->timer, jiffies + HZ);
}

static int __init aud_init(void)
{
	spin_lock_init(&aud_proto.lock);
	timer_setup(&aud_proto.timer, aud_proto_timer_fn, 0);
	dev_add_pack(&aud_proto_ptype);
	mod_timer(&aud_proto.timer, jiffies + HZ);
	return 0;
}

static void __exit aud_exit(void)
{
	dev_remove_pack(&aud_proto_ptype);
	timer_shutdown_sync(&aud_proto.timer);
}

module_init(aud_init);
module_exit(aud_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: lock shared with a packet receive handler");
