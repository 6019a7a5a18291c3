// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample, module aud_mod (Kbuild): the timers of the module, in a
 * file of their own, as net/bridge/br_stp_timer.c. Audited alone
 * (make audit FILE=aud_mod_timer.c), this file shows no softirq code: the
 * receive handler that takes br->lock is in aud_mod_rx.c.
 * Verdicts: aud_mod_hello_fn needs_bh (aud_mod_rcv() in aud_mod_rx.c takes
 * br->lock too); aud_mod_kick_fn review (the net_device's tx_global_lock is
 * declared in no file of the module: its other takers are not read).
 */
#include <linux/jiffies.h>
#include "aud_mod.h"

static void aud_mod_hello_fn(struct timer_list *t)
{
	struct aud_mod_br *br = from_timer(br, t, hello_timer);

	spin_lock(&br->lock);
	br->state++;
	spin_unlock(&br->lock);
	mod_timer(&br->hello_timer, jiffies + HZ);
}

static void aud_mod_kick_fn(struct timer_list *t)
{
	struct aud_mod_br *br = from_timer(br, t, kick_timer);
	struct net_device *ndev = br->dev;

	spin_lock(&ndev->tx_global_lock);
	br->state = 0;
	spin_unlock(&ndev->tx_global_lock);
}

void aud_mod_timers_init(struct aud_mod_br *br)
{
	timer_setup(&br->hello_timer, aud_mod_hello_fn, 0);
	timer_setup(&br->kick_timer, aud_mod_kick_fn, 0);
	mod_timer(&br->hello_timer, jiffies + HZ);
}

void aud_mod_timers_stop(struct aud_mod_br *br)
{
	timer_shutdown_sync(&br->hello_timer);
	timer_shutdown_sync(&br->kick_timer);
}
