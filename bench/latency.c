// SPDX-License-Identifier: GPL-2.0
/*
 * Latency benchmarks on bench_cpu:
 * B1/B2/B8 bottom-half work (and a SOFT hrtimer) while a long timer callback
 *          of each peer runs 20 ms every 50 ms;
 * B4       expiry latency of each peer, idle and with B1's device load;
 * B7       (RT) expiry latency under a bottom-half flood at SCHED_FIFO 50,
 *          and on the same CPU idle.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "bench.h"

#define ALL_PEERS	(BIT(NR_PEERS) - 1)
#define TIMER_PEERS	(ALL_PEERS & ~BIT(P_BASELINE))

/* Run order: the baseline first, so that a warm-up effect hurts it. */
static const enum bench_peer run_order[] = {
	P_BASELINE, P_CLASSIC, P_COMPAT, P_SI, P_KDW, P_DW,
};

/* --- the long timer: 20 ms busy every 50 ms --- */

struct bench_long {
	struct bench_timer bt;
	bool stop;
	unsigned int busy_us, period_ms;
};

static void bench_long_fn(struct bench_timer *bt)
{
	struct bench_long *l = container_of(bt, struct bench_long, bt);

	if (READ_ONCE(l->stop))
		return;
	bench_timer_arm(bt, jiffies + msecs_to_jiffies(l->period_ms));
	bench_busy_us(l->busy_us);
}

static void bench_long_start(struct bench_long *l, enum bench_peer p)
{
	l->stop = false;
	l->busy_us = 20000;
	l->period_ms = 50;
	bench_timer_init(&l->bt, p, bench_long_fn);
	bench_timer_arm(&l->bt, jiffies + 1);
}

static void bench_long_stop(struct bench_long *l)
{
	WRITE_ONCE(l->stop, true);
	bench_timer_cancel_sync(&l->bt);
	/* A callback that re-armed just before the flag: cancel once more. */
	bench_timer_cancel_sync(&l->bt);
}

/* B8's user-space half: the long timer runs while the module is loaded. */
static struct bench_long *bench_held;

int bench_hold_start(enum bench_peer p)
{
	if (p == P_BASELINE)
		return 0;
	bench_held = kzalloc(sizeof(*bench_held), GFP_KERNEL);
	if (!bench_held)
		return -ENOMEM;
	bench_long_start(bench_held, p);
	return 0;
}

void bench_hold_stop(void)
{
	if (!bench_held)
		return;
	bench_long_stop(bench_held);
	kfree(bench_held);
	bench_held = NULL;
}

/* --- a SOFT hrtimer every ms (what user-space timers use on RT) --- */

struct bench_soft {
	struct hrtimer hr;
	struct bench_samples *lat;
	bool stop;
};

static enum hrtimer_restart bench_soft_fn(struct hrtimer *h)
{
	struct bench_soft *s = container_of(h, struct bench_soft, hr);
	struct bench_samples *lat = READ_ONCE(s->lat);

	if (lat)
		bench_samples_add(lat, ktime_get_ns() -
				  ktime_to_ns(hrtimer_get_softexpires(h)));
	if (READ_ONCE(s->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(h, ns_to_ktime(NSEC_PER_MSEC));
	return HRTIMER_RESTART;
}

static void bench_soft_start_here(void *data)
{
	struct bench_soft *s = data;

	hrtimer_start(&s->hr, ns_to_ktime(NSEC_PER_MSEC), HRTIMER_MODE_REL_PINNED_SOFT);
}

/* Fallible allocations of arrays of samples, one per peer. */
static int bench_alloc_peers(struct bench_samples *s, unsigned int have,
			     unsigned int cap)
{
	int p;

	for (p = 0; p < NR_PEERS; p++)
		if ((have & BIT(p)) && bench_samples_alloc(&s[p], cap))
			return -ENOMEM;
	return 0;
}

static void bench_free_peers(struct bench_samples *s)
{
	int p;

	for (p = 0; p < NR_PEERS; p++)
		bench_samples_free(&s[p]);
}

void bench_b1_b2(void)
{
	unsigned int run_ms = bench_quick ? 300 : 4000;
	unsigned int cap = run_ms * 3;
	struct bench_samples *lat, *blk, *soft;
	struct bench_dev *dev;
	struct bench_long *l;
	struct bench_soft *hs;
	bool rt = IS_ENABLED(CONFIG_PREEMPT_RT);
	int i;

	lat = kcalloc(3 * NR_PEERS, sizeof(*lat), GFP_KERNEL);
	dev = vzalloc(sizeof(*dev));
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!lat || !dev || !l || !hs)
		goto out;
	blk = lat + NR_PEERS;
	soft = blk + NR_PEERS;
	if (bench_alloc_peers(lat, ALL_PEERS, cap) ||
	    bench_alloc_peers(blk, ALL_PEERS, cap) ||
	    bench_alloc_peers(soft, ALL_PEERS, cap))
		goto out;
	if (bench_dev_start(dev, 1000))
		goto out;
	hrtimer_setup(&hs->hr, bench_soft_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_SOFT);
	smp_call_function_single(bench_cpu, bench_soft_start_here, hs, 1);
	msleep(100);
	for (i = 0; i < ARRAY_SIZE(run_order); i++) {
		enum bench_peer p = run_order[i];

		if (p != P_BASELINE)
			bench_long_start(l, p);
		WRITE_ONCE(hs->lat, &soft[p]);
		bench_dev_record(dev, &lat[p], rt ? &blk[p] : NULL);
		msleep(run_ms);
		bench_dev_record(dev, NULL, NULL);
		WRITE_ONCE(hs->lat, NULL);
		if (p != P_BASELINE)
			bench_long_stop(l);
		msleep(60);
	}
	WRITE_ONCE(hs->stop, true);
	hrtimer_cancel(&hs->hr);
	bench_dev_stop(dev);

	bench_lat_lines("B1", "bh", lat, ALL_PEERS);
	for (i = 0; i < NR_PEERS; i++)
		bench_cdf("B1", "load", i, &lat[i]);
	if (rt)
		bench_lat_lines("B2", "bh_disable_block", blk, ALL_PEERS);
	bench_lat_lines("B8", "soft_hrtimer", soft, ALL_PEERS);
out:
	if (lat)
		for (i = 0; i < 3 * NR_PEERS; i++)
			bench_samples_free(&lat[i]);
	kfree(hs);
	kfree(l);
	vfree(dev);
	kfree(lat);
}

/* --- expiry latency of a one-shot timer --- */

struct bench_shot {
	struct bench_timer bt;
	struct completion done;
	s64 started;
	/* B7: when the due time's timer interrupt came (its tick's) */
	struct hrtimer irq_probe;
	s64 due, irq_at;
};

static void bench_shot_fn(struct bench_timer *bt)
{
	struct bench_shot *s = container_of(bt, struct bench_shot, bt);

	s->started = ktime_get_ns();
	complete(&s->done);
}

/*
 * A HARD hrtimer due at the edge, as the tick is, runs in the interrupt
 * that runs the tick (and si_timer's wake-up, 1 us later): the time it
 * reads is when bench_cpu learned the timer was due. Under TCG that
 * interrupt can come milliseconds late, for every peer alike; measuring
 * from it leaves what the peer did with the CPU once it knew.
 */
static enum hrtimer_restart bench_irq_probe_fn(struct hrtimer *h)
{
	struct bench_shot *s = container_of(h, struct bench_shot, irq_probe);

	WRITE_ONCE(s->irq_at, ktime_get_ns());
	return HRTIMER_NORESTART;
}

static void bench_irq_probe_start(void *data)
{
	struct bench_shot *s = data;

	hrtimer_start(&s->irq_probe, ns_to_ktime(s->due), HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * @n samples of callback start minus due time: armed right after a jiffies
 * edge J with expires J + 2. The wheel rounds every expiry up by one
 * jiffy (calc_index(): a timer never fires early, wherever in its jiffy
 * it was armed), so the tick that runs it, its due time, comes 3 ticks
 * after the edge, for every peer. Returns the samples taken.
 */
static unsigned int bench_expiry(struct bench_shot *s, enum bench_peer p,
				 struct bench_samples *out, struct bench_samples *from_irq,
				 unsigned int n)
{
	unsigned int i;

	bench_timer_init(&s->bt, p, bench_shot_fn);
	for (i = 0; i < n; i++) {
		unsigned long j;
		s64 due;

		reinit_completion(&s->done);
		due = bench_jiffy_edge(&j) + 3 * TICK_NSEC;
		bench_timer_arm(&s->bt, j + 2);
		if (from_irq) {
			s->due = due;
			WRITE_ONCE(s->irq_at, 0);
			smp_call_function_single(bench_cpu, bench_irq_probe_start, s, 1);
		}
		if (!wait_for_completion_timeout(&s->done, 5 * HZ)) {
			pr_warn("SI_BENCH_WARN %s timer did not fire in 5 s\n",
				bench_peer_key[p]);
			bench_timer_cancel_sync(&s->bt);
			break;
		}
		bench_samples_add(out, s->started - due);
		if (from_irq) {
			hrtimer_cancel(&s->irq_probe);
			if (READ_ONCE(s->irq_at))
				bench_samples_add(from_irq, s->started - s->irq_at);
		}
	}
	bench_timer_cancel_sync(&s->bt);
	return i;
}

void bench_b4(void)
{
	unsigned int n = bench_quick ? 10 : 400;
	struct bench_samples *idle = NULL, *load;
	struct bench_dev *dev = NULL;
	struct bench_shot *s;
	int i, p;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	idle = kcalloc(2 * NR_PEERS, sizeof(*idle), GFP_KERNEL);
	dev = vzalloc(sizeof(*dev));
	if (!s || !idle || !dev)
		goto out;
	load = idle + NR_PEERS;
	init_completion(&s->done);
	if (bench_alloc_peers(idle, TIMER_PEERS, n) ||
	    bench_alloc_peers(load, TIMER_PEERS, n))
		goto out;
	/* Armed from bench_cpu, as a driver on that CPU would. */
	bench_bind(bench_cpu);
	for (i = 1; i < ARRAY_SIZE(run_order); i++)
		bench_expiry(s, run_order[i], &idle[run_order[i]], NULL, n);
	if (!bench_dev_start(dev, 1000)) {
		for (i = 1; i < ARRAY_SIZE(run_order); i++)
			bench_expiry(s, run_order[i], &load[run_order[i]], NULL, n);
		bench_dev_stop(dev);
	}
	bench_bind(-1);
	bench_lat_lines("B4", "idle", idle, TIMER_PEERS);
	bench_lat_lines("B4", "load", load, TIMER_PEERS);
	for (p = 0; p < NR_PEERS; p++) {
		if (!(TIMER_PEERS & BIT(p)))
			continue;
		bench_cdf("B4", "idle", p, &idle[p]);
		bench_cdf("B4", "load", p, &load[p]);
	}
out:
	if (idle)
		for (i = 0; i < 2 * NR_PEERS; i++)
			bench_samples_free(&idle[i]);
	vfree(dev);
	kfree(idle);
	kfree(s);
}

/* --- B7: a bottom-half flood at SCHED_FIFO 50 --- */

struct bench_flood {
	struct task_struct *thread;
	struct tasklet_struct tasklet;
	unsigned int section_us, tasklet_us, gap_us;
};

static void bench_flood_tasklet(struct tasklet_struct *t)
{
	struct bench_flood *f = from_tasklet(f, t, tasklet);

	bench_busy_us(f->tasklet_us);
}

/*
 * A threaded irq that never catches up: bottom halves disabled for
 * section_us, a tasklet, then a short sleep (RT throttling must not be
 * what ends a wait).
 */
static int bench_flood_thread(void *data)
{
	struct bench_flood *f = data;

	while (!kthread_should_stop()) {
		local_bh_disable();
		bench_busy_us(f->section_us);
		tasklet_schedule(&f->tasklet);
		local_bh_enable();
		usleep_range(f->gap_us, f->gap_us + 50);
	}
	return 0;
}

/* B7's sample sets: from the edge and from the interrupt, flooded and idle */
#define B7_SETS	4

void bench_b7(void)
{
	static const enum bench_peer peers[] = { P_CLASSIC, P_COMPAT, P_SI };
	static const enum bench_peer idle_peers[] = { P_CLASSIC, P_SI };
	/* p99 is the 20th-worst of 2,000: one stall of the host no longer sets it */
	unsigned int n = bench_quick ? 10 : 2000, have = 0, have_idle = 0;
	struct bench_samples *lat, *from_irq, *idle, *idle_irq;
	struct bench_flood *f;
	struct bench_shot *s;
	int i;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		return;
	lat = kcalloc(B7_SETS * NR_PEERS, sizeof(*lat), GFP_KERNEL);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!lat || !f || !s)
		goto out;
	from_irq = lat + NR_PEERS;
	idle = from_irq + NR_PEERS;
	idle_irq = idle + NR_PEERS;
	for (i = 0; i < ARRAY_SIZE(peers); i++)
		have |= BIT(peers[i]);
	for (i = 0; i < ARRAY_SIZE(idle_peers); i++)
		have_idle |= BIT(idle_peers[i]);
	if (bench_alloc_peers(lat, have, n) || bench_alloc_peers(from_irq, have, n) ||
	    bench_alloc_peers(idle, have_idle, n) || bench_alloc_peers(idle_irq, have_idle, n))
		goto out;
	init_completion(&s->done);
	hrtimer_setup(&s->irq_probe, bench_irq_probe_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_PINNED_HARD);
	f->section_us = 2000;
	f->tasklet_us = 200;
	f->gap_us = 100;
	tasklet_setup(&f->tasklet, bench_flood_tasklet);
	f->thread = kthread_create(bench_flood_thread, f, "si_bench_flood/%d",
				   bench_cpu);
	if (IS_ERR(f->thread))
		goto out;
	kthread_bind(f->thread, bench_cpu);
	sched_set_fifo(f->thread);
	/*
	 * The flood owns bench_cpu: arm from CPU 0 (idle timers only). The
	 * same expiries on the idle CPU first, in this boot: what the flood
	 * adds to them, measured side by side.
	 */
	bench_bind(0);
	for (i = 0; i < ARRAY_SIZE(idle_peers); i++)
		bench_expiry(s, idle_peers[i], &idle[idle_peers[i]], &idle_irq[idle_peers[i]], n);
	wake_up_process(f->thread);
	for (i = 0; i < ARRAY_SIZE(peers); i++)
		bench_expiry(s, peers[i], &lat[peers[i]], &from_irq[peers[i]], n);
	bench_bind(-1);
	kthread_stop(f->thread);
	tasklet_kill(&f->tasklet);
	bench_lat_lines("B7", "flood_expiry", lat, have);
	bench_lat_lines("B7", "flood_from_irq", from_irq, have);
	bench_lat_lines("B7", "idle_expiry", idle, have_idle);
	bench_lat_lines("B7", "idle_from_irq", idle_irq, have_idle);
	for (i = 0; i < ARRAY_SIZE(peers); i++)
		bench_cdf("B7", "flood", peers[i], &lat[peers[i]]);
out:
	if (lat)
		for (i = 0; i < B7_SETS; i++)
			bench_free_peers(lat + i * NR_PEERS);
	kfree(s);
	kfree(f);
	kfree(lat);
}
