/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SI_TIMER_INTERNAL_H
#define _SI_TIMER_INTERNAL_H

#include <si_timer.h>
#include "compat.h"

int si_executors_init(int prio);
void si_executors_exit(void);

#endif /* _SI_TIMER_INTERNAL_H */
