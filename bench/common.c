// SPDX-License-Identifier: GPL-2.0
/*
 * si_timer_bench: samples and their statistics, the output lines, one
 * timer type over every peer, and the device that raises bottom halves.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include "bench.h"

const char *const bench_peer_key[NR_PEERS] = {
	[P_SI] = "si", [P_COMPAT] = "compat", [P_CLASSIC] = "classic",
	[P_KDW] = "kdw", [P_DW] = "dw", [P_BASELINE] = "baseline",
};

/*
 * Due times are jiffy edges, and a CPU that spins on jiffies sees one
 * only after the tick that made it, by up to a TCG time slice: more than
 * 100 us was seen, which made a whole peer's latencies look that much
 * shorter (B4's negative p50s, B5's classic callbacks "before" their due
 * time). The edges themselves are exact: the tick keeps them at multiples
 * of TICK_NSEC of CLOCK_MONOTONIC (tick_init_jiffy_update()), so jiffies
 * minus the ticks of the clock is a constant. Seeing an edge late only
 * makes it smaller: the largest of a few samples is the one.
 */
#define BENCH_EDGE_SAMPLES	8

static unsigned long bench_jiffies_offset;

static s64 bench_jiffy_seen(unsigned long *j)
{
	unsigned long j0 = jiffies;

	while (READ_ONCE(jiffies) == j0)
		cpu_relax();
	*j = READ_ONCE(jiffies);
	return ktime_get_ns();
}

void bench_learn_jiffy_edges(void)
{
	unsigned long j[BENCH_EDGE_SAMPLES], off;
	s64 seen[BENCH_EDGE_SAMPLES], lag = 0;
	int i;

	for (i = 0; i < BENCH_EDGE_SAMPLES; i++) {
		seen[i] = bench_jiffy_seen(&j[i]);
		off = j[i] - div_u64(seen[i], TICK_NSEC);
		if (!i || time_after(off, bench_jiffies_offset))
			bench_jiffies_offset = off;
	}
	for (i = 0; i < BENCH_EDGE_SAMPLES; i++)
		lag = max(lag, seen[i] - (s64)(j[i] - bench_jiffies_offset) * TICK_NSEC);
	pr_info("SI_BENCH_INFO jiffy edges seen up to %lld us after they began\n",
		lag / NSEC_PER_USEC);
}

s64 bench_jiffy_edge(unsigned long *j)
{
	bench_jiffy_seen(j);
	return (s64)(*j - bench_jiffies_offset) * TICK_NSEC;
}

int bench_samples_alloc(struct bench_samples *s, unsigned int cap)
{
	s->v = vmalloc(array_size(cap, sizeof(*s->v)));
	s->n = 0;
	s->cap = cap;
	s->dropped = 0;
	return s->v ? 0 : -ENOMEM;
}

void bench_samples_free(struct bench_samples *s)
{
	vfree(s->v);
	s->v = NULL;
}

void bench_samples_add(struct bench_samples *s, s64 ns)
{
	if (s->n < s->cap)
		s->v[s->n++] = ns;
	else
		s->dropped++;
}

static int bench_cmp(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

void bench_samples_sort(struct bench_samples *s)
{
	sort(s->v, s->n, sizeof(*s->v), bench_cmp, NULL);
}

s64 bench_pct(const struct bench_samples *s, unsigned int permille)
{
	if (!s->n)
		return 0;
	return s->v[min_t(u64, (u64)s->n * permille / 1000, s->n - 1)];
}

void bench_line_keys(const char *id, const char *metric, const char *const *keys,
		     unsigned int nr, const s64 *val, unsigned int have)
{
	char buf[256];
	int len = 0, p;

	for (p = 0; p < nr; p++)
		if (have & BIT(p))
			len += scnprintf(buf + len, sizeof(buf) - len, " %s=%lld",
					 keys[p], val[p]);
	pr_info("SI_BENCH %s %s%s\n", id, metric, buf);
}

void bench_line(const char *id, const char *metric, const s64 *val,
		unsigned int have)
{
	bench_line_keys(id, metric, bench_peer_key, NR_PEERS, val, have);
}

/* Quantiles of a CDF line, in permille; scripts/bench.py has the same list. */
static const unsigned int bench_cdf_q[] = {
	0, 50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 950, 980,
	990, 995, 999, 1000,
};

void bench_cdf_key(const char *id, const char *cond, const char *key,
		   const struct bench_samples *s)
{
	char buf[320];
	int len = 0, i;

	for (i = 0; i < ARRAY_SIZE(bench_cdf_q); i++)
		len += scnprintf(buf + len, sizeof(buf) - len, " %lld",
				 bench_pct(s, bench_cdf_q[i]) / NSEC_PER_USEC);
	pr_info("SI_BENCH_CDF %s %s %s%s\n", id, cond, key, buf);
}

void bench_cdf(const char *id, const char *cond, enum bench_peer peer,
	       const struct bench_samples *s)
{
	bench_cdf_key(id, cond, bench_peer_key[peer], s);
}

void bench_lat_lines_keys(const char *id, const char *what, const char *const *keys,
			  unsigned int nr, struct bench_samples *s, unsigned int have)
{
	static const struct { const char *name; unsigned int permille; } q[] = {
		{ "p50", 500 }, { "p99", 990 }, { "max", 1000 },
	};
	s64 val[BENCH_MAX_PEERS] = {}, n[BENCH_MAX_PEERS] = {};
	char metric[64];
	int p, i;

	if (WARN_ON_ONCE(nr > BENCH_MAX_PEERS))
		return;
	for (p = 0; p < nr; p++) {
		if (!(have & BIT(p)))
			continue;
		bench_samples_sort(&s[p]);
		n[p] = s[p].n;
	}
	for (i = 0; i < ARRAY_SIZE(q); i++) {
		for (p = 0; p < nr; p++)
			if (have & BIT(p))
				val[p] = bench_pct(&s[p], q[i].permille) / NSEC_PER_USEC;
		snprintf(metric, sizeof(metric), "%s_%s_us", what, q[i].name);
		bench_line_keys(id, metric, keys, nr, val, have);
	}
	snprintf(metric, sizeof(metric), "%s_samples", what);
	bench_line_keys(id, metric, keys, nr, n, have);
}

void bench_lat_lines(const char *id, const char *what,
		     struct bench_samples *s, unsigned int have)
{
	bench_lat_lines_keys(id, what, bench_peer_key, NR_PEERS, s, have);
}

void bench_bind(int cpu)
{
	set_cpus_allowed_ptr(current, cpu < 0 ? cpu_possible_mask : cpumask_of(cpu));
}

/* --- one timer type over every peer --- */

static void bench_si_fn(struct si_timer *t)
{
	struct bench_timer *bt = si_timer_container_of(bt, t, si);

	bt->fn(bt);
}

static void bench_tl_fn(struct timer_list *t)
{
	struct bench_timer *bt = timer_container_of(bt, t, tl);

	bt->fn(bt);
}

static void bench_kdw_fn(struct kthread_work *w)
{
	struct bench_timer *bt = container_of(w, struct bench_timer, kdw.work);

	bt->fn(bt);
}

static void bench_dw_fn(struct work_struct *w)
{
	struct bench_timer *bt = container_of(w, struct bench_timer, dw.work);

	bt->fn(bt);
}

void bench_timer_init(struct bench_timer *bt, enum bench_peer peer,
		      void (*fn)(struct bench_timer *bt))
{
	bt->peer = peer;
	bt->fn = fn;
	switch (peer) {
	case P_SI:
		si_timer_setup(&bt->si, bench_si_fn,
			       SI_TIMER_PINNED | SI_TIMER_SOFTINTERRUPTIBLE);
		break;
	case P_COMPAT:
		si_timer_setup(&bt->si, bench_si_fn, SI_TIMER_PINNED);
		break;
	case P_CLASSIC:
		timer_setup(&bt->tl, bench_tl_fn, TIMER_PINNED);
		break;
	case P_KDW:
		kthread_init_delayed_work(&bt->kdw, bench_kdw_fn);
		break;
	case P_DW:
		INIT_DELAYED_WORK(&bt->dw, bench_dw_fn);
		break;
	default:
		break;
	}
}

void bench_timer_arm(struct bench_timer *bt, unsigned long expires)
{
	bool here = raw_smp_processor_id() == bench_cpu;
	long delay = max_t(long, (long)(expires - jiffies), 0);

	switch (bt->peer) {
	case P_SI:
	case P_COMPAT:
		if (here) {
			si_mod_timer(&bt->si, expires);
		} else {
			bt->si.expires = expires;
			si_add_timer_on(&bt->si, bench_cpu);
		}
		break;
	case P_CLASSIC:
		if (here) {
			mod_timer(&bt->tl, expires);
		} else {
			bt->tl.expires = expires;
			add_timer_on(&bt->tl, bench_cpu);
		}
		break;
	case P_KDW:
		kthread_mod_delayed_work(bench_worker, &bt->kdw, delay);
		break;
	case P_DW:
		mod_delayed_work_on(bench_cpu, system_wq, &bt->dw, delay);
		break;
	default:
		break;
	}
}

void bench_timer_cancel_sync(struct bench_timer *bt)
{
	switch (bt->peer) {
	case P_SI:
	case P_COMPAT:
		si_timer_delete_sync(&bt->si);
		break;
	case P_CLASSIC:
		timer_delete_sync(&bt->tl);
		break;
	case P_KDW:
		kthread_cancel_delayed_work_sync(&bt->kdw);
		break;
	case P_DW:
		cancel_delayed_work_sync(&bt->dw);
		break;
	default:
		break;
	}
}

/* --- the device --- */

/* Both bottom halves ran since raise i: record the raises they covered. */
static void bench_dev_complete(struct bench_dev *d)
{
	unsigned long covered = min(READ_ONCE(d->tasklet_cov), READ_ONCE(d->napi_cov));
	struct bench_samples *lat = READ_ONCE(d->lat);
	s64 now = ktime_get_ns();

	for (; d->done < covered; d->done++) {
		if (covered - d->done > BENCH_RING) {
			if (lat)
				lat->dropped++;
			continue;
		}
		if (lat)
			bench_samples_add(lat, now - d->raised_at[d->done % BENCH_RING]);
	}
}

static void bench_dev_tasklet(struct tasklet_struct *t)
{
	struct bench_dev *d = from_tasklet(d, t, tasklet);

	WRITE_ONCE(d->tasklet_cov, READ_ONCE(d->raised));
	bench_dev_complete(d);
	if (d->extra_work)
		d->extra_work(d);
}

static int bench_dev_poll(struct napi_struct *napi, int budget)
{
	struct bench_dev *d = container_of(napi, struct bench_dev, napi);

	WRITE_ONCE(d->napi_cov, READ_ONCE(d->raised));
	bench_dev_complete(d);
	napi_complete_done(napi, 0);
	return 0;
}

/* The device interrupt: one event, whose bottom-half work is now due. */
static void bench_dev_event(struct bench_dev *d, s64 at)
{
	d->raised_at[d->events % BENCH_RING] = at;
	/* pairs with bench_dev_raise(): the time is there before the count */
	smp_store_release(&d->events, d->events + 1);
}

/* Hand every event so far to the bottom halves (hardirq, or RT's thread). */
static void bench_dev_raise(struct bench_dev *d)
{
	/* pairs with bench_dev_event() */
	WRITE_ONCE(d->raised, smp_load_acquire(&d->events));
	tasklet_schedule(&d->tasklet);
	napi_schedule(&d->napi);
}

static enum hrtimer_restart bench_dev_irq(struct hrtimer *h)
{
	struct bench_dev *d = container_of(h, struct bench_dev, irq);

	if (READ_ONCE(d->stopping))
		return HRTIMER_NORESTART;
	bench_dev_event(d, ktime_get_ns());
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		bench_dev_raise(d);
	} else {
		WRITE_ONCE(d->irq_pending, true);
		wake_up_process(d->irq_thread);
	}
	hrtimer_forward_now(h, d->period);
	return HRTIMER_RESTART;
}

static int bench_dev_thread(void *data)
{
	struct bench_dev *d = data;

	for (;;) {
		struct bench_samples *blk;
		s64 t0;

		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		if (!xchg(&d->irq_pending, false)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		t0 = ktime_get_ns();
		local_bh_disable();
		blk = READ_ONCE(d->bh_block);
		if (blk)
			bench_samples_add(blk, ktime_get_ns() - t0);
		bench_dev_raise(d);
		local_bh_enable();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void bench_dev_irq_start(void *data)
{
	struct bench_dev *d = data;

	hrtimer_start(&d->irq, d->period, HRTIMER_MODE_REL_PINNED_HARD);
}

void bench_dev_record(struct bench_dev *d, struct bench_samples *lat,
		      struct bench_samples *bh_block)
{
	WRITE_ONCE(d->lat, lat);
	WRITE_ONCE(d->bh_block, bh_block);
}

int bench_dev_start(struct bench_dev *d, unsigned int period_us)
{
	int ret;

	d->period = ns_to_ktime((u64)period_us * NSEC_PER_USEC);
	d->ndev = alloc_netdev_dummy(0);
	if (!d->ndev)
		return -ENOMEM;
	netif_napi_add(d->ndev, &d->napi, bench_dev_poll);
	napi_enable(&d->napi);
	tasklet_setup(&d->tasklet, bench_dev_tasklet);
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		d->irq_thread = kthread_create(bench_dev_thread, d, "si_bench_irq/%d",
					       bench_cpu);
		if (IS_ERR(d->irq_thread)) {
			ret = PTR_ERR(d->irq_thread);
			d->irq_thread = NULL;
			bench_dev_stop(d);
			return ret;
		}
		kthread_bind(d->irq_thread, bench_cpu);
		sched_set_fifo(d->irq_thread);	/* FIFO 50, as irq threads */
		wake_up_process(d->irq_thread);
	}
	hrtimer_setup(&d->irq, bench_dev_irq, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_HARD);
	/* Pinned: start it on bench_cpu. */
	return smp_call_function_single(bench_cpu, bench_dev_irq_start, d, 1);
}

void bench_dev_stop(struct bench_dev *d)
{
	WRITE_ONCE(d->stopping, true);
	hrtimer_cancel(&d->irq);
	bench_dev_record(d, NULL, NULL);
	if (d->irq_thread)
		kthread_stop(d->irq_thread);
	d->irq_thread = NULL;
	if (d->ndev) {
		napi_disable(&d->napi);
		netif_napi_del(&d->napi);
		free_netdev(d->ndev);
		d->ndev = NULL;
	}
	tasklet_kill(&d->tasklet);
}
