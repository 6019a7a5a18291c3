// SPDX-License-Identifier: GPL-2.0
/*
 * si_bench_empty (B9): a module that does nothing and uses nothing of
 * si_timer, whose unload bench/si_bench_modtime times while another
 * module's timers are armed: what those timers cost every module's unload.
 */
#include <linux/module.h>

static int __init empty_init(void)
{
	return 0;
}
module_init(empty_init);

static void __exit empty_exit(void)
{
}
module_exit(empty_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer benchmark B9: an unrelated module to unload");
