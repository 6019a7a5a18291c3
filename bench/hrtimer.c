// SPDX-License-Identifier: GPL-2.0
/*
 * B10: si_hrtimer against the hrtimers it stands in for, on bench_cpu.
 *
 * - B1/B2's scenario with an hrtimer callback busy 20 ms every 50 ms: a
 *   SOFT hrtimer (HRTIMER_MODE_REL_PINNED_SOFT), an si_hrtimer in
 *   compatible mode, a soft-interruptible one, and none (the baseline),
 *   while B1's device measures its bottom halves (and, on RT, how long its
 *   threaded irq's local_bh_disable() blocked);
 * - the expiry latency of a 1 ms periodic timer (now minus its soft expiry
 *   at callback entry) of a SOFT and a HARD hrtimer and of both si_hrtimer
 *   modes, idle and with B1's device load.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <si_hrtimer.h>
#include "bench.h"

const char *const bench_hr_peer_key[NR_HR_PEERS] = {
	[H_SI] = "si", [H_COMPAT] = "compat", [H_SOFT] = "soft", [H_HARD] = "hard",
	[H_BASELINE] = "baseline",
};

/* Run order: the baseline first, so that a warm-up effect hurts it. */
static const enum bench_hr_peer long_order[] = { H_BASELINE, H_SOFT, H_COMPAT, H_SI };
static const enum bench_hr_peer expiry_order[] = { H_SOFT, H_HARD, H_COMPAT, H_SI };

#define LONG_PEERS	(BIT(H_BASELINE) | BIT(H_SOFT) | BIT(H_COMPAT) | BIT(H_SI))
#define EXPIRY_PEERS	(BIT(H_SOFT) | BIT(H_HARD) | BIT(H_COMPAT) | BIT(H_SI))

/*
 * A periodic timer of one peer on bench_cpu. Not a union: each kind keeps
 * its own memory, so that debugobjects never sees one reused as the other.
 */
struct bench_hr {
	enum bench_hr_peer peer;
	struct hrtimer hr;
	struct si_hrtimer si;
	ktime_t period;
	unsigned int busy_us;		/* the callback busy-waits so long */
	struct bench_samples *lat;	/* expiry latencies, until @until of them */
	unsigned int until;
	struct completion full;
	bool stop;
};

/* Either kind's callback, due at @expires; false: do not restart. */
static bool bench_hr_expired(struct bench_hr *h, ktime_t expires)
{
	struct bench_samples *lat = h->lat;

	if (lat) {
		bench_samples_add(lat, ktime_get_ns() - ktime_to_ns(expires));
		if (lat->n >= h->until) {
			complete(&h->full);
			return false;
		}
	}
	if (READ_ONCE(h->stop))
		return false;
	if (h->busy_us)
		bench_busy_us(h->busy_us);
	return true;
}

static enum hrtimer_restart bench_hr_fn(struct hrtimer *t)
{
	struct bench_hr *h = container_of(t, struct bench_hr, hr);

	if (!bench_hr_expired(h, hrtimer_get_softexpires(t)))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, h->period);
	return HRTIMER_RESTART;
}

/* Started with no slack: its expiry is its soft expiry. */
static enum hrtimer_restart bench_si_hr_fn(struct si_hrtimer *t)
{
	struct bench_hr *h = container_of(t, struct bench_hr, si);

	if (!bench_hr_expired(h, si_hrtimer_get_expires(t)))
		return HRTIMER_NORESTART;
	si_hrtimer_forward_now(t, h->period);
	return HRTIMER_RESTART;
}

/*
 * Start @h as peer @p on bench_cpu, first due in 1 ms, then every
 * @period_us, busy @busy_us in each callback; records expiry latencies into
 * @lat (if set) until it holds @until, then stops and completes @h->full.
 */
static void bench_hr_start(struct bench_hr *h, enum bench_hr_peer p,
			   unsigned int period_us, unsigned int busy_us,
			   struct bench_samples *lat, unsigned int until)
{
	ktime_t first = ns_to_ktime(NSEC_PER_MSEC);
	enum hrtimer_mode mode;

	h->peer = p;
	h->period = ns_to_ktime((u64)period_us * NSEC_PER_USEC);
	h->busy_us = busy_us;
	h->lat = lat;
	h->until = until;
	h->stop = false;
	init_completion(&h->full);
	/* Armed from bench_cpu, as a driver on that CPU would. */
	bench_bind(bench_cpu);
	switch (p) {
	case H_SOFT:
	case H_HARD:
		mode = p == H_SOFT ? HRTIMER_MODE_REL_PINNED_SOFT : HRTIMER_MODE_REL_PINNED_HARD;
		hrtimer_setup(&h->hr, bench_hr_fn, CLOCK_MONOTONIC, mode);
		hrtimer_start(&h->hr, first, mode);
		break;
	case H_COMPAT:
	case H_SI:
		si_hrtimer_setup(&h->si, bench_si_hr_fn, CLOCK_MONOTONIC,
				 HRTIMER_MODE_REL_PINNED_SOFT,
				 p == H_SI ? SI_TIMER_SOFTINTERRUPTIBLE : 0);
		si_hrtimer_start(&h->si, first, HRTIMER_MODE_REL_PINNED_SOFT);
		break;
	default:
		break;
	}
	bench_bind(-1);
}

static void bench_hr_stop(struct bench_hr *h)
{
	WRITE_ONCE(h->stop, true);
	switch (h->peer) {
	case H_SOFT:
	case H_HARD:
		hrtimer_cancel(&h->hr);
		break;
	case H_COMPAT:
	case H_SI:
		/* waits for the callback, and disarms what it re-armed */
		si_hrtimer_cancel(&h->si);
		break;
	default:
		break;
	}
}

static int bench_hr_alloc(struct bench_samples *s, unsigned int have, unsigned int cap)
{
	int p;

	for (p = 0; p < NR_HR_PEERS; p++)
		if ((have & BIT(p)) && bench_samples_alloc(&s[p], cap))
			return -ENOMEM;
	return 0;
}

static void bench_hr_free(struct bench_samples *s, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		bench_samples_free(&s[i]);
}

/*
 * B1/B2 with a long hrtimer callback: 20 ms busy every 50 ms, 4 s per
 * peer, in turns of 1 s (as bench_hr_expiries()).
 */
static void bench_b10_long(struct bench_hr *h)
{
	unsigned int run_ms = bench_quick ? 300 : 4000, rounds = bench_quick ? 1 : 4;
	unsigned int cap = run_ms * 3, r;
	bool rt = IS_ENABLED(CONFIG_PREEMPT_RT);
	struct bench_samples *lat, *blk;
	struct bench_dev *dev;
	int i;

	lat = kcalloc(2 * NR_HR_PEERS, sizeof(*lat), GFP_KERNEL);
	dev = vzalloc(sizeof(*dev));
	if (!lat || !dev)
		goto out;
	blk = lat + NR_HR_PEERS;
	if (bench_hr_alloc(lat, LONG_PEERS, cap) || bench_hr_alloc(blk, LONG_PEERS, cap))
		goto out;
	if (bench_dev_start(dev, 1000))
		goto out;
	msleep(100);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < ARRAY_SIZE(long_order); i++) {
			enum bench_hr_peer p = long_order[i];

			if (p != H_BASELINE)
				bench_hr_start(h, p, 50 * USEC_PER_MSEC, 20 * USEC_PER_MSEC,
					       NULL, 0);
			bench_dev_record(dev, &lat[p], rt ? &blk[p] : NULL);
			msleep(run_ms / rounds);
			bench_dev_record(dev, NULL, NULL);
			if (p != H_BASELINE)
				bench_hr_stop(h);
			msleep(60);
		}
	}
	bench_dev_stop(dev);

	bench_lat_lines_keys("B10", "bh", bench_hr_peer_key, NR_HR_PEERS, lat, LONG_PEERS);
	for (i = 0; i < ARRAY_SIZE(long_order); i++)
		bench_cdf_key("B10", "load", bench_hr_peer_key[long_order[i]],
			      &lat[long_order[i]]);
	if (rt)
		bench_lat_lines_keys("B10", "bh_disable_block", bench_hr_peer_key,
				     NR_HR_PEERS, blk, LONG_PEERS);
out:
	if (lat)
		bench_hr_free(lat, 2 * NR_HR_PEERS);
	vfree(dev);
	kfree(lat);
}

/*
 * @n more expiry latencies of a 1 ms periodic timer of peer @p into @out;
 * false if they did not come in time (reported).
 */
static bool bench_hr_expiry(struct bench_hr *h, enum bench_hr_peer p,
			    struct bench_samples *out, unsigned int n)
{
	unsigned int ms = 10 * n + 5000;
	bool late;

	bench_hr_start(h, p, USEC_PER_MSEC, 0, out, out->n + n);
	late = !wait_for_completion_timeout(&h->full, msecs_to_jiffies(ms));
	bench_hr_stop(h);
	if (late)
		pr_warn("SI_BENCH_WARN B10 %s: %u of %u expiries in %u ms\n",
			bench_hr_peer_key[p], out->n, out->cap, ms);
	return !late;
}

/*
 * The peers take turns, @rounds of @n / @rounds expiries each: a stall of
 * a shared host (which sets the p99s under TCG) then falls on every peer
 * alike, not on the one that happened to run then.
 */
static void bench_hr_expiries(struct bench_hr *h, struct bench_samples *s,
			      unsigned int n, unsigned int rounds)
{
	unsigned int r;
	int i;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < ARRAY_SIZE(expiry_order); i++)
			if (!bench_hr_expiry(h, expiry_order[i], &s[expiry_order[i]],
					     n / rounds))
				return;
}

static void bench_b10_expiry(struct bench_hr *h)
{
	/* p99 is the 20th-worst of 2,000 */
	unsigned int n = bench_quick ? 50 : 2000, rounds = bench_quick ? 2 : 10;
	struct bench_samples *idle, *load;
	struct bench_dev *dev;
	int i;

	idle = kcalloc(2 * NR_HR_PEERS, sizeof(*idle), GFP_KERNEL);
	dev = vzalloc(sizeof(*dev));
	if (!idle || !dev)
		goto out;
	load = idle + NR_HR_PEERS;
	if (bench_hr_alloc(idle, EXPIRY_PEERS, n) || bench_hr_alloc(load, EXPIRY_PEERS, n))
		goto out;
	bench_hr_expiries(h, idle, n, rounds);
	if (!bench_dev_start(dev, 1000)) {
		msleep(100);
		bench_hr_expiries(h, load, n, rounds);
		bench_dev_stop(dev);
	}
	bench_lat_lines_keys("B10", "expiry_idle", bench_hr_peer_key, NR_HR_PEERS, idle,
			     EXPIRY_PEERS);
	bench_lat_lines_keys("B10", "expiry_load", bench_hr_peer_key, NR_HR_PEERS, load,
			     EXPIRY_PEERS);
	for (i = 0; i < ARRAY_SIZE(expiry_order); i++) {
		enum bench_hr_peer p = expiry_order[i];

		bench_cdf_key("B10", "expiry_idle", bench_hr_peer_key[p], &idle[p]);
		bench_cdf_key("B10", "expiry_load", bench_hr_peer_key[p], &load[p]);
	}
out:
	if (idle)
		bench_hr_free(idle, 2 * NR_HR_PEERS);
	vfree(dev);
	kfree(idle);
}

void bench_b10(void)
{
	struct bench_hr *h = kzalloc(sizeof(*h), GFP_KERNEL);

	if (!h)
		return;
	bench_b10_long(h);
	bench_b10_expiry(h);
	kfree(h);
}
