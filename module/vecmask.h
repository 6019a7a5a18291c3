/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU softirq disabled mask, emulated from a module (the seed series'
 * local_softirq_disabled()). A masked vector that is raised stays pending,
 * is neither run nor lost, and runs once the mask is cleared.
 */
#ifndef _SI_VECMASK_H
#define _SI_VECMASK_H

#include <linux/interrupt.h>

#define SI_TIMER_VECTORS	(BIT(TIMER_SOFTIRQ) | BIT(HRTIMER_SOFTIRQ))

int si_vecmask_init(void);
void si_vecmask_exit(void);
bool si_vecmask_available(void);
/* Caller is pinned to this CPU (executor kthread); nests like the seed's. */
void si_vecmask_disable(unsigned long mask);
void si_vecmask_enable(unsigned long mask);

#endif /* _SI_VECMASK_H */
