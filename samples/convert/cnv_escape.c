// SPDX-License-Identifier: GPL-2.0
/*
 * Converter sample: callbacks whose address escapes to a function of the
 * kernel (net/dccp's timer.c): inet_csk_init_xmit_timers() sets up struct
 * inet_connection_sock's timers, timer_lists, with them, so they keep their
 * struct timer_list * parameter and are listed, and so does the driver's
 * own timer set up with one of them (a timer, its users and its callbacks
 * are decided together). The driver's other timer is converted.
 */
#include <linux/module.h>
#include <linux/timer.h>
#include <net/inet_connection_sock.h>

struct cnv_esc_dev {
	struct timer_list scan_timer;	/* the driver's own: converted */
	struct timer_list kick_timer;	/* set up with a kernel's callback: kept */
	struct sock *sk;
	unsigned int polls;
};

static unsigned int cnv_esc_kicks;

/* A prototype: kept with the definition. */
static void cnv_esc_write_fn(struct timer_list *t);

static void cnv_esc_write_fn(struct timer_list *t)
{
	struct inet_connection_sock *icsk = from_timer(icsk, t, icsk_retransmit_timer);

	sock_put(&icsk->icsk_inet.sk);
}

static void cnv_esc_delack_fn(struct timer_list *t)
{
	struct inet_connection_sock *icsk = from_timer(icsk, t, icsk_delack_timer);

	sock_put(&icsk->icsk_inet.sk);
}

/* Handed to the kernel and set up on the driver's kick_timer. */
static void cnv_esc_kick_fn(struct timer_list *t)
{
	cnv_esc_kicks++;
}

static void cnv_esc_scan_fn(struct timer_list *t)
{
	struct cnv_esc_dev *dev = from_timer(dev, t, scan_timer);

	dev->polls++;
	mod_timer(&dev->scan_timer, jiffies + HZ);
}

static void cnv_esc_init_sock(struct sock *sk)
{
	inet_csk_init_xmit_timers(sk, &cnv_esc_write_fn, cnv_esc_delack_fn,
				  (cnv_esc_kick_fn));
}

static void cnv_esc_start(struct cnv_esc_dev *dev)
{
	timer_setup(&dev->scan_timer, cnv_esc_scan_fn, 0);
	timer_setup(&dev->kick_timer, cnv_esc_kick_fn, 0);
	mod_timer(&dev->scan_timer, jiffies + HZ);
	mod_timer(&dev->kick_timer, jiffies + 2 * HZ);
	if (dev->sk)
		cnv_esc_init_sock(dev->sk);
}

static void cnv_esc_stop(struct cnv_esc_dev *dev)
{
	timer_shutdown_sync(&dev->scan_timer);
	timer_shutdown_sync(&dev->kick_timer);
}

static struct cnv_esc_dev *cnv_esc;

static int __init cnv_esc_init(void)
{
	if (cnv_esc)
		cnv_esc_start(cnv_esc);
	return 0;
}

static void __exit cnv_esc_exit(void)
{
	if (cnv_esc)
		cnv_esc_stop(cnv_esc);
}

module_init(cnv_esc_init);
module_exit(cnv_esc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("converter sample: callbacks handed to the kernel keep their type");
