// SPDX-License-Identifier: GPL-2.0
/*
 * Converter sample: timers the kernel owns next to the driver's own. The
 * driver's timer (struct cnv_dev) is converted; struct usb_hcd's rh_timer,
 * struct sock's sk_timer (both in kernel headers) and a delayed_work's
 * timer are left timer_list, with their calls and the callback set up on
 * sk_timer, and are listed with what to do. The driver's second timer has
 * the name of usb_hcd's: the types, not the name, tell them apart.
 */
#include <linux/module.h>
#include <linux/timer.h>
#include <linux/usb.h>
#include <linux/usb/hcd.h>
#include <linux/workqueue.h>
#include <net/sock.h>

struct cnv_dev {
	struct timer_list poll_timer;	/* the driver's own */
	struct timer_list rh_timer;	/* the driver's own, usb_hcd's name */
	struct delayed_work dwork;
	struct usb_hcd *hcd;
	struct sock *sk;
	unsigned int polls;
};

/* A prototype without the parameter's name (net/netrom's nr_timer.c). */
static void cnv_sk_timer_fn(struct timer_list *);

static void cnv_poll_fn(struct timer_list *t)
{
	struct cnv_dev *dev = from_timer(dev, t, poll_timer);

	dev->polls++;
	/* Kick the root hub's polling early: a kernel-owned timer. */
	if (dev->hcd && timer_pending(&dev->hcd->rh_timer))
		mod_timer(&dev->hcd->rh_timer, jiffies);
	mod_timer(&dev->poll_timer, jiffies + HZ);
}

static void cnv_rh_fn(struct timer_list *t)
{
	struct cnv_dev *dev = from_timer(dev, t, rh_timer);

	dev->polls = 0;
}

static void cnv_sk_timer_fn(struct timer_list *t)
{
	struct sock *sk = from_timer(sk, t, sk_timer);

	sock_put(sk);
}

static void cnv_work_fn(struct work_struct *w)
{
}

static void cnv_start(struct cnv_dev *dev)
{
	timer_setup(&dev->poll_timer, cnv_poll_fn, 0);
	timer_setup(&dev->rh_timer, cnv_rh_fn, 0);
	INIT_DELAYED_WORK(&dev->dwork, cnv_work_fn);
	mod_timer(&dev->poll_timer, jiffies + HZ);
	if (dev->sk)
		timer_setup(&dev->sk->sk_timer, cnv_sk_timer_fn, 0);
}

static void cnv_stop(struct cnv_dev *dev)
{
	timer_shutdown_sync(&dev->poll_timer);
	timer_shutdown_sync(&dev->rh_timer);
	/* Not how to cancel a delayed_work; a kernel-owned timer anyway. */
	del_timer_sync(&dev->dwork.timer);
	if (dev->sk)
		del_timer_sync(&dev->sk->sk_timer);
}

static struct cnv_dev cnv_dev;

static int __init cnv_init(void)
{
	cnv_start(&cnv_dev);
	return 0;
}

static void __exit cnv_exit(void)
{
	cnv_stop(&cnv_dev);
}

module_init(cnv_init);
module_exit(cnv_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("converter sample: kernel-owned timers are left alone");
