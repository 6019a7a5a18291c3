// SPDX-License-Identifier: GPL-2.0
/* Stub: the arch-neutral vecmask front end (issue 4). */
#include "vecmask.h"

int si_vecmask_init(void)
{
	return 0;
}

void si_vecmask_exit(void)
{
}

bool si_vecmask_available(void)
{
	return false;
}

void si_vecmask_disable(unsigned long mask)
{
}

void si_vecmask_enable(unsigned long mask)
{
}
