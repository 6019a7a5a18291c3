// SPDX-License-Identifier: GPL-2.0
/* Placeholder test module. */
#include <linux/module.h>
#include <si_timer.h>

static int __init smoke_init(void)
{
	return 0;
}
module_init(smoke_init);
MODULE_LICENSE("GPL");
