// SPDX-License-Identifier: GPL-2.0
/*
 * Converter sample: includes cnv_frag.h, touches no timer.
 */
#include <linux/module.h>
#include "cnv_frag.h"

static struct cnv_frag cnv_frag;

static int __init cnv_init(void)
{
	cnv_frag.resets = 0;
	return 0;
}

module_init(cnv_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("converter sample: a header converted without includes");
