// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: per-CPU data, matched by the per-CPU pointer, not by the
 * variable that holds the device. The first callback updates the per-CPU
 * stats through dev->stats, which the NAPI poll updates through
 * priv->stats; the second touches per-CPU data of its own through the
 * same priv the poll uses.
 * Verdicts: aud_pcpu_stats_fn keep_compatible, aud_pcpu_own_fn safe.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/timer.h>

struct aud_pcpu_stats {
	u64 packets;
	u64 timeouts;
};

struct aud_pcpu {
	struct aud_pcpu_stats __percpu *stats;
	unsigned long __percpu *timer_runs;
	struct napi_struct napi;
	struct net_device *ndev;
	struct timer_list stats_timer;
	struct timer_list own_timer;
};

static struct aud_pcpu aud_pcpu;

static int aud_pcpu_poll(struct napi_struct *napi, int budget)
{
	struct aud_pcpu *priv = container_of(napi, struct aud_pcpu, napi);

	this_cpu_ptr(priv->stats)->packets++;
	napi_complete_done(napi, 0);
	return 0;
}

static void aud_pcpu_stats_fn(struct timer_list *t)
{
	struct aud_pcpu *dev = from_timer(dev, t, stats_timer);
	struct aud_pcpu_stats *s = this_cpu_ptr(dev->stats);

	s->timeouts++;
}

static void aud_pcpu_own_fn(struct timer_list *t)
{
	struct aud_pcpu *priv = from_timer(priv, t, own_timer);

	__this_cpu_inc(*priv->timer_runs);
}

static int __init aud_init(void)
{
	aud_pcpu.stats = alloc_percpu(struct aud_pcpu_stats);
	aud_pcpu.timer_runs = alloc_percpu(unsigned long);
	aud_pcpu.ndev = alloc_netdev_dummy(0);
	if (!aud_pcpu.stats || !aud_pcpu.timer_runs || !aud_pcpu.ndev)
		goto fail;
	netif_napi_add(aud_pcpu.ndev, &aud_pcpu.napi, aud_pcpu_poll);
	timer_setup(&aud_pcpu.stats_timer, aud_pcpu_stats_fn, 0);
	timer_setup(&aud_pcpu.own_timer, aud_pcpu_own_fn, 0);
	return 0;
fail:
	free_netdev(aud_pcpu.ndev);
	free_percpu(aud_pcpu.timer_runs);
	free_percpu(aud_pcpu.stats);
	return -ENOMEM;
}

static void __exit aud_exit(void)
{
	timer_shutdown_sync(&aud_pcpu.stats_timer);
	timer_shutdown_sync(&aud_pcpu.own_timer);
	netif_napi_del(&aud_pcpu.napi);
	free_netdev(aud_pcpu.ndev);
	free_percpu(aud_pcpu.timer_runs);
	free_percpu(aud_pcpu.stats);
}

module_init(aud_init);
module_exit(aud_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: per-CPU data keyed by its pointer");
