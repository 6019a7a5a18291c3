/* SPDX-License-Identifier: GPL-2.0 */
#ifndef AUD_MOD_H
#define AUD_MOD_H

#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct aud_mod_br {
	spinlock_t lock;	/* state; STP-like receive handler and timers */
	struct net_device *dev;
#ifdef CONFIG_PROVE_LOCKING
	unsigned int lock_checks;
#endif
	struct timer_list hello_timer;	/* declared right after #endif */
	struct timer_list kick_timer;
	u32 state;
};

extern struct aud_mod_br aud_mod_br;

void aud_mod_timers_init(struct aud_mod_br *br);
void aud_mod_timers_stop(struct aud_mod_br *br);

#endif
