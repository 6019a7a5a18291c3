// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: C that a reader of text gets wrong and Coccinelle's parser
 * reads right. Every callback takes a lock that softirq code also takes,
 * plainly: all three are needs_bh.
 *
 * - aud_prs_else_fn takes the lock with spin_lock_bh() when
 *   CONFIG_AUD_PRS_BH is set, plainly otherwise (#else): the text reader
 *   kept the first branch of each #if, saw spin_lock_bh() only, and called
 *   the callback safe. The parser reads every branch.
 * - aud_prs_hdr_fn shares its lock with a packet receive handler that
 *   declares a struct ethhdr pointer before the struct holding the lock:
 *   the text reader's search for the type of "r" read "struct ethhd" + "r",
 *   took the handler's lock for another struct's, and called the callback
 *   safe. The parser gives each local its type.
 * - aud_prs_fnptr_fn takes the lock through a helper whose first
 *   parameter is a function pointer: the text reader lost that parameter,
 *   bound the lock parameter to the function, and could not resolve the
 *   lock (review). The parser gives the parameters in order.
 */
#include <linux/module.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct aud_prs {
	spinlock_t else_lock;		/* else timer, tasklet */
	spinlock_t hdr_lock;		/* hdr timer, packet receive */
	spinlock_t ptr_lock;		/* fnptr timer, tasklet */
	struct timer_list else_timer;
	struct timer_list hdr_timer;
	struct timer_list ptr_timer;
	struct tasklet_struct tasklet;
	unsigned long events;
	unsigned long frames;
};

static struct aud_prs aud_prs;

static void aud_prs_tasklet_fn(struct tasklet_struct *t)
{
	struct aud_prs *p = from_tasklet(p, t, tasklet);

	spin_lock(&p->else_lock);
	p->events++;
	spin_unlock(&p->else_lock);
	spin_lock(&p->ptr_lock);
	p->events++;
	spin_unlock(&p->ptr_lock);
}

static void aud_prs_else_fn(struct timer_list *t)
{
	struct aud_prs *p = from_timer(p, t, else_timer);

#ifdef CONFIG_AUD_PRS_BH
	spin_lock_bh(&p->else_lock);
#else
	spin_lock(&p->else_lock);
#endif
	p->events = 0;
#ifdef CONFIG_AUD_PRS_BH
	spin_unlock_bh(&p->else_lock);
#else
	spin_unlock(&p->else_lock);
#endif
}

static int aud_prs_rcv(struct sk_buff *skb, struct net_device *dev,
		       struct packet_type *pt, struct net_device *orig_dev)
{
	const struct ethhdr *eh = eth_hdr(skb);
	struct aud_prs *r = &aud_prs;

	spin_lock(&r->hdr_lock);
	if (is_multicast_ether_addr(eh->h_dest))
		r->frames++;
	spin_unlock(&r->hdr_lock);
	kfree_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type aud_prs_pt __maybe_unused = {
	.type = cpu_to_be16(ETH_P_ALL),
	.func = aud_prs_rcv,
};

static void aud_prs_hdr_fn(struct timer_list *t)
{
	struct aud_prs *r = from_timer(r, t, hdr_timer);

	spin_lock(&r->hdr_lock);
	r->frames = 0;
	spin_unlock(&r->hdr_lock);
}

static void aud_prs_count(struct aud_prs *p)
{
	p->events++;
}

static void aud_prs_locked(void (*fn)(struct aud_prs *p),
			   struct aud_prs *p,
			   spinlock_t *l)
{
	spin_lock(l);
	fn(p);
	spin_unlock(l);
}

static void aud_prs_fnptr_fn(struct timer_list *t)
{
	struct aud_prs *p = from_timer(p, t, ptr_timer);

	aud_prs_locked(aud_prs_count, p, &p->ptr_lock);
}

static int __init aud_prs_init(void)
{
	spin_lock_init(&aud_prs.else_lock);
	spin_lock_init(&aud_prs.hdr_lock);
	spin_lock_init(&aud_prs.ptr_lock);
	tasklet_setup(&aud_prs.tasklet, aud_prs_tasklet_fn);
	timer_setup(&aud_prs.else_timer, aud_prs_else_fn, 0);
	timer_setup(&aud_prs.hdr_timer, aud_prs_hdr_fn, 0);
	timer_setup(&aud_prs.ptr_timer, aud_prs_fnptr_fn, 0);
	return 0;
}

static void __exit aud_prs_exit(void)
{
	timer_shutdown_sync(&aud_prs.else_timer);
	timer_shutdown_sync(&aud_prs.hdr_timer);
	timer_shutdown_sync(&aud_prs.ptr_timer);
	tasklet_kill(&aud_prs.tasklet);
}

module_init(aud_prs_init);
module_exit(aud_prs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: C a text reader misreads");
