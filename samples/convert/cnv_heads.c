// SPDX-License-Identifier: GPL-2.0
/*
 * Converter sample: a #define whose body opens a block. Counting braces
 * in the text, the kit's old reader saw every function after it one level
 * deep, no definition: it missed that cnv_hd_left() is handed the socket's
 * timer, converted the driver's hd_timer and the helper's parameter with
 * it, and the file did not compile. The parser reads the definitions: the
 * helper and the timer handed to it stay a timer_list, together, listed.
 */
#include <linux/module.h>
#include <linux/timer.h>
#include <net/sock.h>

struct cnv_hd_dev {
	struct timer_list hd_timer;	/* handed to cnv_hd_left(): kept */
	struct sock *sk;
	unsigned int polls;
};

static struct cnv_hd_dev cnv_hd_dev0;

/* A macro that opens a block: its brace is no function's. */
#define CNV_HD_IF_SOCK(dev) if ((dev)->sk) {

/* Takes any timer: the driver's and the socket's. */
static unsigned long cnv_hd_left(struct timer_list *t)
{
	return timer_pending(t) ? t->expires - jiffies : 0;
}

static void cnv_hd_poll(struct timer_list *t)
{
	struct cnv_hd_dev *dev = from_timer(dev, t, hd_timer);

	dev->polls++;
	CNV_HD_IF_SOCK(dev)
		if (cnv_hd_left(&dev->sk->sk_timer) > HZ)
			mod_timer(&dev->hd_timer, jiffies + HZ);
	}
}

static unsigned long cnv_hd_status(struct cnv_hd_dev *dev)
{
	return cnv_hd_left(&dev->hd_timer);
}

static int __init cnv_hd_init(void)
{
	timer_setup(&cnv_hd_dev0.hd_timer, cnv_hd_poll, 0);
	return cnv_hd_status(&cnv_hd_dev0) ? -EBUSY : 0;
}

static void __exit cnv_hd_exit(void)
{
	timer_shutdown_sync(&cnv_hd_dev0.hd_timer);
}

module_init(cnv_hd_init);
module_exit(cnv_hd_exit);
MODULE_DESCRIPTION("si_timer converter sample: a #define that opens a block");
MODULE_LICENSE("GPL");
