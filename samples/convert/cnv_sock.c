// SPDX-License-Identifier: GPL-2.0
/*
 * Converter sample: a protocol's own timer, in its own socket struct, armed
 * and stopped with struct sock's helpers sk_reset_timer() and
 * sk_stop_timer[_sync](), which take a timer_list: the converter open-codes
 * them on the si_timer (as include/net/sock.h does). The socket's sk_timer
 * stays the kernel's.
 */
#include <linux/module.h>
#include <linux/timer.h>
#include <net/sock.h>

struct cnv_sock {
	struct sock sk;		/* first: sk_alloc()'s object */
	struct timer_list retry_timer;
	unsigned int retries;
};

static void cnv_retry_fn(struct timer_list *t)
{
	struct cnv_sock *cs = from_timer(cs, t, retry_timer);

	cs->retries++;
	sock_put(&cs->sk);
}

static void cnv_sock_arm(struct cnv_sock *cs)
{
	timer_setup(&cs->retry_timer, cnv_retry_fn, 0);
	sk_reset_timer(&cs->sk, &cs->retry_timer, jiffies + HZ);
}

static void cnv_sock_stop(struct cnv_sock *cs)
{
	sk_stop_timer(&cs->sk, &cs->retry_timer);
}

static void cnv_sock_stop_sync(struct cnv_sock *cs)
{
	sk_stop_timer_sync(&cs->sk, &cs->retry_timer);
	sk_stop_timer_sync(&cs->sk, &cs->sk.sk_timer);
}

static struct cnv_sock *cnv_cs;

static int __init cnv_init(void)
{
	if (cnv_cs) {
		cnv_sock_arm(cnv_cs);
		cnv_sock_stop(cnv_cs);
	}
	return 0;
}

static void __exit cnv_exit(void)
{
	if (cnv_cs)
		cnv_sock_stop_sync(cnv_cs);
}

module_init(cnv_init);
module_exit(cnv_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("converter sample: sk_reset_timer() on a protocol's own timer");
