// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: ops tables whose context the audit knows.
 * - mac80211's ieee80211_ops .tx runs in the transmit path (NET_TX softirq,
 *   bottom halves off): a lock it takes plainly makes aud_ops_beacon_fn
 *   needs_bh (as mac80211_hwsim's hwsim_radio_lock);
 * - proto_ops .sendmsg/.recvmsg and file_operations run from system calls:
 *   process context, so aud_ops_sock_fn is safe (as tun's tun_sendmsg());
 * - a callback set up on a kernel-owned timer (struct sock's sk_timer)
 *   cannot opt in: aud_ops_sk_fn is reported kernel_owned, no verdict.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <net/mac80211.h>
#include <net/sock.h>

struct aud_ops_radio {
	spinlock_t radio_lock;	/* beacons and TX */
	spinlock_t sock_lock;	/* socket calls and the socket timer */
	struct timer_list beacon;
	struct timer_list sock_timer;
	struct sock *sk;
	unsigned long tx, beacons, sent;
};

static struct aud_ops_radio aud_ops_radio;

static void aud_ops_tx(struct ieee80211_hw *hw, struct ieee80211_tx_control *control,
		       struct sk_buff *skb)
{
	struct aud_ops_radio *r = &aud_ops_radio;

	spin_lock(&r->radio_lock);
	r->tx++;
	spin_unlock(&r->radio_lock);
	ieee80211_free_txskb(hw, skb);
}

static const struct ieee80211_ops aud_ops_mac80211 __maybe_unused = {
	.tx = aud_ops_tx,
};

static void aud_ops_beacon_fn(struct timer_list *t)
{
	struct aud_ops_radio *r = from_timer(r, t, beacon);

	spin_lock(&r->radio_lock);
	r->beacons++;
	spin_unlock(&r->radio_lock);
}

static int aud_ops_sendmsg(struct socket *sock, struct msghdr *m, size_t len)
{
	struct aud_ops_radio *r = &aud_ops_radio;

	spin_lock(&r->sock_lock);
	r->sent += len;
	spin_unlock(&r->sock_lock);
	return len;
}

static int aud_ops_recvmsg(struct socket *sock, struct msghdr *m, size_t len, int flags)
{
	struct aud_ops_radio *r = &aud_ops_radio;

	spin_lock(&r->sock_lock);
	r->sent = 0;
	spin_unlock(&r->sock_lock);
	return 0;
}

static const struct proto_ops aud_ops_sock_ops __maybe_unused = {
	.family = PF_UNSPEC,
	.sendmsg = aud_ops_sendmsg,
	.recvmsg = aud_ops_recvmsg,
};

static ssize_t aud_ops_read(struct file *f, char __user *buf, size_t n, loff_t *pos)
{
	struct aud_ops_radio *r = &aud_ops_radio;

	spin_lock(&r->sock_lock);
	r->sent = 0;
	spin_unlock(&r->sock_lock);
	return 0;
}

static const struct file_operations aud_ops_fops __maybe_unused = {
	.owner = THIS_MODULE,
	.read = aud_ops_read,
};

static void aud_ops_sock_fn(struct timer_list *t)
{
	struct aud_ops_radio *r = from_timer(r, t, sock_timer);

	spin_lock(&r->sock_lock);
	r->sent = 0;
	spin_unlock(&r->sock_lock);
}

static void aud_ops_sk_fn(struct timer_list *t)
{
	struct sock *sk = from_timer(sk, t, sk_timer);

	sock_put(sk);
}

static int __init aud_ops_init(void)
{
	spin_lock_init(&aud_ops_radio.radio_lock);
	spin_lock_init(&aud_ops_radio.sock_lock);
	timer_setup(&aud_ops_radio.beacon, aud_ops_beacon_fn, 0);
	timer_setup(&aud_ops_radio.sock_timer, aud_ops_sock_fn, 0);
	if (aud_ops_radio.sk)
		timer_setup(&aud_ops_radio.sk->sk_timer, aud_ops_sk_fn, 0);
	return 0;
}

static void __exit aud_ops_exit(void)
{
	timer_shutdown_sync(&aud_ops_radio.beacon);
	timer_shutdown_sync(&aud_ops_radio.sock_timer);
}

module_init(aud_ops_init);
module_exit(aud_ops_exit);
MODULE_DESCRIPTION("si_timer audit sample: ops tables of known context, a kernel-owned timer");
MODULE_LICENSE("GPL");
