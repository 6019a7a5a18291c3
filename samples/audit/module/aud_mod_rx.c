// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample, module aud_mod: the receive handler (packet_type .func,
 * NET_RX softirq) takes br->lock with plain spin_lock(), as br_stp_rcv()
 * does in net/bridge/br_stp_bpdu.c.
 */
#include <linux/skbuff.h>
#include "aud_mod.h"

int aud_mod_rcv(struct sk_buff *skb, struct net_device *dev,
		struct packet_type *pt, struct net_device *orig_dev);

int aud_mod_rcv(struct sk_buff *skb, struct net_device *dev,
		struct packet_type *pt, struct net_device *orig_dev)
{
	struct aud_mod_br *br = &aud_mod_br;

	spin_lock(&br->lock);
	br->state = 1;
	spin_unlock(&br->lock);
	kfree_skb(skb);
	return NET_RX_SUCCESS;
}
