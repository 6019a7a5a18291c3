// SPDX-License-Identifier: GPL-2.0
/* Stub, replaced by the executor implementation. */
#include "si_timer_internal.h"

int si_executors_init(int prio)
{
	return 0;
}

void si_executors_exit(void)
{
}
