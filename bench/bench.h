/* SPDX-License-Identifier: GPL-2.0 */
/*
 * si_timer_bench: `make bench` measures si_timer against the timers a
 * driver author would pick instead, all on one CPU of one boot. See
 * Documentation/benchmarks.md for what each benchmark does.
 *
 * Output, one kernel log line per figure, completed by scripts/bench.py:
 *	SI_BENCH <id> <metric> <peer>=<value> ...
 *	SI_BENCH_CDF <id> <condition> <peer> <v0> <v1> ... (BENCH_CDF_Q quantiles)
 * Values are integers in the unit the metric's name ends with.
 */
#ifndef _SI_BENCH_H
#define _SI_BENCH_H

#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <si_timer.h>
#include "compat.h"

/* The facilities compared, in the order of the output lines. */
enum bench_peer {
	P_SI,		/* si_timer, SI_TIMER_SOFTINTERRUPTIBLE */
	P_COMPAT,	/* si_timer, compatible mode */
	P_CLASSIC,	/* timer_list */
	P_KDW,		/* kthread_delayed_work, kthread_worker at SCHED_FIFO 1 */
	P_DW,		/* delayed_work on system_wq */
	P_BASELINE,	/* no long timer at all */
	NR_PEERS,
};

/*
 * B10's peers (bench/hrtimer.c): the hrtimers a driver would use, against
 * si_hrtimer, in the order of the output lines.
 */
enum bench_hr_peer {
	H_SI,		/* si_hrtimer, SI_TIMER_SOFTINTERRUPTIBLE */
	H_COMPAT,	/* si_hrtimer, compatible mode */
	H_SOFT,		/* hrtimer, HRTIMER_MODE_SOFT */
	H_HARD,		/* hrtimer, HRTIMER_MODE_HARD */
	H_BASELINE,	/* no long callback at all */
	NR_HR_PEERS,
};

/* The most peers of any set: the size of per-peer arrays in common.c. */
#define BENCH_MAX_PEERS	8
static_assert(NR_PEERS <= BENCH_MAX_PEERS && NR_HR_PEERS <= BENCH_MAX_PEERS);

extern const char *const bench_peer_key[NR_PEERS];
extern const char *const bench_hr_peer_key[NR_HR_PEERS];
extern bool bench_quick;
extern int bench_cpu;
extern struct kthread_worker *bench_worker;

/* Samples in ns, and their order statistics. */
struct bench_samples {
	s64 *v;
	unsigned int n, cap;
	unsigned long dropped;
};

int bench_samples_alloc(struct bench_samples *s, unsigned int cap);
void bench_samples_free(struct bench_samples *s);
void bench_samples_add(struct bench_samples *s, s64 ns);
void bench_samples_sort(struct bench_samples *s);
/* The @permille-th quantile (0..1000) of sorted samples, 0 if none. */
s64 bench_pct(const struct bench_samples *s, unsigned int permille);

/* One result line; peers whose bit is clear in @have are left out. */
void bench_line(const char *id, const char *metric, const s64 *val,
		unsigned int have);
void bench_cdf(const char *id, const char *cond, enum bench_peer peer,
	       const struct bench_samples *s);
/* p50/p99/max lines (in us) of @s[peer] for the peers in @have. */
void bench_lat_lines(const char *id, const char *what,
		     struct bench_samples *s, unsigned int have);
/* The same for another set of @nr peers, named by @keys (B10's). */
void bench_line_keys(const char *id, const char *metric, const char *const *keys,
		     unsigned int nr, const s64 *val, unsigned int have);
void bench_cdf_key(const char *id, const char *cond, const char *key,
		   const struct bench_samples *s);
void bench_lat_lines_keys(const char *id, const char *what, const char *const *keys,
			  unsigned int nr, struct bench_samples *s, unsigned int have);

/* Bind the caller to @cpu, or (-1) to every CPU again. */
void bench_bind(int cpu);

/* A timer of any peer kind, on bench_cpu. */
struct bench_timer {
	enum bench_peer peer;
	void (*fn)(struct bench_timer *bt);
	union {
		struct si_timer si;
		struct timer_list tl;
		struct kthread_delayed_work kdw;
		struct delayed_work dw;
	};
};

void bench_timer_init(struct bench_timer *bt, enum bench_peer peer,
		      void (*fn)(struct bench_timer *bt));
/*
 * Arm at @expires (jiffies) to run on bench_cpu. On bench_cpu it re-arms a
 * pending timer; from another CPU only an idle one.
 */
void bench_timer_arm(struct bench_timer *bt, unsigned long expires);
void bench_timer_cancel_sync(struct bench_timer *bt);

/*
 * The device of B1: a HARD hrtimer on bench_cpu every @period_us raises
 * bottom-half work (a tasklet and a NAPI poll); non-RT from hardirq, RT
 * from a SCHED_FIFO 50 "threaded irq" kthread inside local_bh_disable().
 * While @lat is set, each raise adds raise-to-both-done to it, and (RT)
 * the time local_bh_disable() blocked to @bh_block.
 */
#define BENCH_RING	4096
struct bench_dev {
	struct hrtimer irq;
	ktime_t period;
	struct task_struct *irq_thread;
	bool irq_pending;
	struct tasklet_struct tasklet;
	struct net_device *ndev;
	struct napi_struct napi;
	bool stopping;

	/*
	 * Interrupt times, written in hardirq, consumed in BH on bench_cpu:
	 * events so far, those handed to the bottom halves (raised), those
	 * each bottom half has seen, those both have (done).
	 */
	s64 raised_at[BENCH_RING];
	unsigned long events, raised, tasklet_cov, napi_cov, done;
	struct bench_samples *lat, *bh_block;
	void (*extra_work)(struct bench_dev *d);	/* in the tasklet */
};

int bench_dev_start(struct bench_dev *d, unsigned int period_us);
void bench_dev_stop(struct bench_dev *d);
/* Start or stop recording into @lat and @bh_block (may be NULL). */
void bench_dev_record(struct bench_dev *d, struct bench_samples *lat,
		      struct bench_samples *bh_block);

/* Busy-wait by the clock (udelay() is miscalibrated under TCG). */
static inline void bench_busy_us(unsigned int us)
{
	u64 end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

/*
 * Spin until jiffies changes to *@j; the time that jiffy began, in ns
 * (common.c: bench_learn_jiffy_edges() at load).
 */
s64 bench_jiffy_edge(unsigned long *j);
void bench_learn_jiffy_edges(void);

/* The benchmarks; each prints its lines. */
void bench_b1_b2(void);
void bench_b3(void);
void bench_b4(void);
void bench_b5(void);
void bench_b5_icount(void);
void bench_b7(void);
void bench_b10(void);
/* B9 leaves its timers armed until bench_b9_release(), at unload. */
void bench_b9(void);
void bench_b9_release(void);
/* Keep a long timer of @p running until bench_hold_stop() (B8, user space). */
int bench_hold_start(enum bench_peer p);
void bench_hold_stop(void);

#endif /* _SI_BENCH_H */
