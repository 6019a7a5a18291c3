// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample, module aud_mod: registration and module init/exit.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include "aud_mod.h"

int aud_mod_rcv(struct sk_buff *skb, struct net_device *dev,
		struct packet_type *pt, struct net_device *orig_dev);

struct aud_mod_br aud_mod_br;

static struct packet_type aud_mod_ptype __read_mostly = {
	.type = cpu_to_be16(0x88b6),
	.func = aud_mod_rcv,
};

static int __init aud_mod_init(void)
{
	spin_lock_init(&aud_mod_br.lock);
	aud_mod_br.dev = dev_get_by_name(&init_net, "lo");
	if (!aud_mod_br.dev)
		return -ENODEV;
	aud_mod_timers_init(&aud_mod_br);
	dev_add_pack(&aud_mod_ptype);
	return 0;
}

static void __exit aud_mod_exit(void)
{
	dev_remove_pack(&aud_mod_ptype);
	aud_mod_timers_stop(&aud_mod_br);
	dev_put(aud_mod_br.dev);
}

module_init(aud_mod_init);
module_exit(aud_mod_exit);
MODULE_DESCRIPTION("si_timer audit sample: one module of three files");
MODULE_LICENSE("GPL");
