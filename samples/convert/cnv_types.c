// SPDX-License-Identifier: GPL-2.0
/*
 * Converter sample: a timer's owner decided from types as a C parser reads
 * them (scripts/c_facts.py, on Coccinelle's parser), not from the text.
 *
 * - net_timer is declared inside an #ifdef block and timer right after the
 *   #endif: both are members of struct cnv_ty_dev, converted with their
 *   callbacks and calls.
 * - In cnv_ty_arm_pair(), n is the second declarator of one declaration.
 *   The text scanner missed that declaration and took the type of the last
 *   n it had seen, cnv_ty_hold()'s struct neighbour *n: it called &n->timer
 *   the kernel's (struct neighbour has a timer_list named timer) and left
 *   mod_timer() on the driver's converted timer, which did not compile.
 */
#include <linux/module.h>
#include <linux/timer.h>
#include <net/neighbour.h>

struct cnv_ty_dev {
	unsigned long count;
#ifdef CONFIG_NET
	struct timer_list net_timer;	/* inside an #ifdef block */
#endif
	struct timer_list timer;	/* right after an #endif */
};

static struct cnv_ty_dev cnv_ty_devs[2];

static void cnv_ty_fn(struct timer_list *t)
{
	struct cnv_ty_dev *dev = from_timer(dev, t, timer);

	dev->count++;
}

#ifdef CONFIG_NET
static void cnv_ty_net_fn(struct timer_list *t)
{
	struct cnv_ty_dev *dev = from_timer(dev, t, net_timer);

	dev->count++;
	mod_timer(&dev->net_timer, jiffies + HZ);
}
#endif

/* A neighbour entry the driver only holds: this n is a struct neighbour. */
static struct neighbour *cnv_ty_hold(struct neighbour *n)
{
	return neigh_clone(n);
}

static void cnv_ty_arm_pair(struct cnv_ty_dev *x, struct cnv_ty_dev *y)
{
	struct cnv_ty_dev *a, *n;	/* this n is the driver's */

	a = x;
	n = y;
	mod_timer(&a->timer, jiffies + HZ);
	mod_timer(&n->timer, jiffies + 2 * HZ);
}

static int __init cnv_ty_init(void)
{
	int i;

	if (cnv_ty_hold(NULL))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(cnv_ty_devs); i++) {
		timer_setup(&cnv_ty_devs[i].timer, cnv_ty_fn, 0);
#ifdef CONFIG_NET
		timer_setup(&cnv_ty_devs[i].net_timer, cnv_ty_net_fn, 0);
#endif
	}
	cnv_ty_arm_pair(&cnv_ty_devs[0], &cnv_ty_devs[1]);
	return 0;
}

static void __exit cnv_ty_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cnv_ty_devs); i++) {
		timer_shutdown_sync(&cnv_ty_devs[i].timer);
#ifdef CONFIG_NET
		timer_shutdown_sync(&cnv_ty_devs[i].net_timer);
#endif
	}
}

module_init(cnv_ty_init);
module_exit(cnv_ty_exit);
MODULE_DESCRIPTION("si_timer converter sample: types from a parser");
MODULE_LICENSE("GPL");
