/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each executor's own timer wheels, where its armed si_timers wait, under
 * its lock (the one lock of timer.c's design).
 *
 * Why not the kernel's wheel: its expiry runs in the TIMER softirq, on
 * PREEMPT_RT under the BH lock, so an si_timer could not fire while bottom
 * halves are busy on its CPU, and every expiry had to be passed on to an
 * executor under a second lock, taken by every arm and cancel too (benchmarks.md:
 * B3, B5, B7). Here arming and cancelling are an hlist operation under the
 * lock those calls take anyway, and one HARD hrtimer per executor (a
 * deferrable timer_list for deferrable timers: they keep not waking an
 * idle CPU) collects what is due and wakes the thread (expiry.c).
 *
 * The wheel is laid out as kernel/time/timer.c's (non-cascading, since
 * 4.8), so that it costs the same as the kernel's whatever the number of
 * timers armed: SI_WHEEL_LEVELS levels of 64 buckets, level n with a
 * granularity of 8^n jiffies. A timer goes into the level its distance
 * from @clk picks, its expiry rounded up to that level's granularity,
 * never down, so that it never fires early:
 *
 *   level  granularity      range (HZ=250)
 *     0      1 jiffy   4 ms     0 - 252 ms
 *     1      8 jiffies 32 ms    252 ms - 2 s
 *     2     64         256 ms   2 s - 16 s
 *     3    512         2 s      16 s - 2 min
 *     4   4096         16 s     2 min - 17 min
 *     5  32768         2 min    17 min - 2.3 h
 *     6  262144        17 min   2.3 h - 18 h
 *     7  2097152       2.3 h    18 h - 6 days
 *     8  16777216      18 h     6 days - 48 days (longer: capped there)
 *
 * so a timer in level n > 0 fires up to 1/8 (12.5%) of its timeout late,
 * exactly as a timer_list armed with the same expiry from the same clk
 * would. Arming, cancelling and collecting a due bucket are O(1); finding
 * the next due bucket is one bitmap search per level. A due bucket is
 * collected whole (every timer in it is due) onto the wheel's @expired
 * list of its level, where the executor takes its timers from; the
 * timers keep the state ARMED and their bucket number until then (a
 * cancel there finds their bucket empty or refilled, both consistent).
 */
#ifndef _SI_WHEEL_H
#define _SI_WHEEL_H

#include <linux/bitmap.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <si_timer.h>

#define SI_WHEEL_LVL_BITS	6
#define SI_WHEEL_LVL_SIZE	BIT(SI_WHEEL_LVL_BITS)
#define SI_WHEEL_LVL_MASK	(SI_WHEEL_LVL_SIZE - 1)
/* Each level is 8 times coarser than the one below. */
#define SI_WHEEL_CLK_SHIFT	3
#define SI_WHEEL_CLK_MASK	((1UL << SI_WHEEL_CLK_SHIFT) - 1)
#define SI_WHEEL_LVL_SHIFT(n)	((n) * SI_WHEEL_CLK_SHIFT)
#define SI_WHEEL_LVL_GRAN(n)	(1UL << SI_WHEEL_LVL_SHIFT(n))
/* The first distance from clk that level n (> 0) holds. */
#define SI_WHEEL_LVL_START(n)	((SI_WHEEL_LVL_SIZE - 1) << SI_WHEEL_LVL_SHIFT((n) - 1))
/* As timer.c: one level more where the ticks are short. */
#if HZ > 100
#define SI_WHEEL_LEVELS		9
#else
#define SI_WHEEL_LEVELS		8
#endif
#define SI_WHEEL_BUCKETS	(SI_WHEEL_LEVELS * SI_WHEEL_LVL_SIZE)
/* Bits of a bucket number, kept in the timer's state (si_timer_internal.h) */
#define SI_WHEEL_BITS		10
static_assert(BIT(SI_WHEEL_BITS) >= SI_WHEEL_BUCKETS);
/* Timers armed further out are capped at the wheel's reach, as timer.c's. */
#define SI_WHEEL_CUTOFF		SI_WHEEL_LVL_START(SI_WHEEL_LEVELS)
#define SI_WHEEL_MAX_DELTA	(SI_WHEEL_CUTOFF - SI_WHEEL_LVL_GRAN(SI_WHEEL_LEVELS - 1))

enum si_wheel_kind {
	SI_WHEEL_NORMAL,	/* woken by a HARD hrtimer */
	SI_WHEEL_DEFERRABLE,	/* woken by a deferrable timer_list */
	SI_NR_WHEELS,
};

/*
 * @clk: the next jiffy whose buckets are still to be collected; @next:
 * the earliest jiffy a bucket is due in, and the one the wake-up is set
 * for, while @wake_set (any bucket pending). A removal leaves @next as it
 * was, early: that costs at most one wake-up that finds nothing due,
 * which makes it exact again (timer.c recomputes it eagerly instead).
 * @stale: the hard interrupt collected a due jiffy and left finding the
 * next one to the thread, idle then and woken by it (expiry.c:
 * si_timer_collect()), as the tick leaves the kernel's wheel to the
 * TIMER softirq (expiry.c): @next is @clk, a lower bound, no wake-up is
 * set, and the executor's overdue flag is, until the thread
 * recalculates @next and sets the wake-up. @expired: the buckets
 * collected at clk - 1, one list per level; @expired_levels: which of
 * them may be non-empty.
 */
struct si_wheel {
	unsigned long		clk;
	unsigned long		next;
	bool			wake_set;
	bool			stale;
	unsigned int		expired_levels;
	DECLARE_BITMAP(pending, SI_WHEEL_BUCKETS);
	struct hlist_head	expired[SI_WHEEL_LEVELS];
	struct hlist_head	bucket[SI_WHEEL_BUCKETS];
};

/* The jiffy a timer that expires at @expires is due in: as timer_list's. */
static inline unsigned long si_timer_due(unsigned long expires)
{
	return expires + 1;
}

static inline enum si_wheel_kind si_wheel_kind_of(const struct si_timer *timer)
{
	return timer->flags & SI_TIMER_DEFERRABLE ? SI_WHEEL_DEFERRABLE : SI_WHEEL_NORMAL;
}

static __always_inline unsigned int si_wheel_index(unsigned long expires, unsigned int lvl,
						   unsigned long *bucket_due)
{
	/* rounded up to the level's granularity: never early */
	expires = (expires >> SI_WHEEL_LVL_SHIFT(lvl)) + 1;
	*bucket_due = expires << SI_WHEEL_LVL_SHIFT(lvl);
	return lvl * SI_WHEEL_LVL_SIZE + (expires & SI_WHEEL_LVL_MASK);
}

/*
 * The bucket of a timer that expires at @expires (due in the jiffy after
 * it), from @w's clk, and the jiffy that bucket is due in.
 */
static __always_inline unsigned int si_wheel_bucket_of(const struct si_wheel *w,
						       unsigned long expires,
						       unsigned long *bucket_due)
{
	unsigned long delta = expires - w->clk;

	/*
	 * A chain of constant compares, as timer.c's calc_wheel_index(): a
	 * loop over the levels cost every arm a dozen instructions more (B3).
	 */
	if (delta < SI_WHEEL_LVL_START(1))
		return si_wheel_index(expires, 0, bucket_due);
	if (delta < SI_WHEEL_LVL_START(2))
		return si_wheel_index(expires, 1, bucket_due);
	if (delta < SI_WHEEL_LVL_START(3))
		return si_wheel_index(expires, 2, bucket_due);
	if (delta < SI_WHEEL_LVL_START(4))
		return si_wheel_index(expires, 3, bucket_due);
	if (delta < SI_WHEEL_LVL_START(5))
		return si_wheel_index(expires, 4, bucket_due);
	if (delta < SI_WHEEL_LVL_START(6))
		return si_wheel_index(expires, 5, bucket_due);
	if (delta < SI_WHEEL_LVL_START(7))
		return si_wheel_index(expires, 6, bucket_due);
	if (SI_WHEEL_LEVELS > 8 && delta < SI_WHEEL_LVL_START(8))
		return si_wheel_index(expires, 7, bucket_due);
	if ((long)delta < 0) {
		/* due already: the next bucket collected */
		*bucket_due = w->clk;
		return w->clk & SI_WHEEL_LVL_MASK;
	}
	if (delta >= SI_WHEEL_CUTOFF)
		expires = w->clk + SI_WHEEL_MAX_DELTA;
	return si_wheel_index(expires, SI_WHEEL_LEVELS - 1, bucket_due);
}

/*
 * Before arming: bring @clk up to @now if nothing is due before, so that a
 * wheel idle for long arms with the granularity of the distance from now
 * (timer.c: forward_timer_base()).
 */
static __always_inline void si_wheel_forward(struct si_wheel *w, unsigned long now)
{
	if ((long)(now - w->clk) < 1)
		return;
	w->clk = !w->wake_set || time_after(w->next, now) ? now : w->next;
}

/*
 * Put @timer, expiring at @expires, in its bucket of @w; its number in
 * *@b. Returns true if the wake-up must be set (for @w->next, now that
 * bucket's).
 */
static __always_inline bool si_wheel_add(struct si_wheel *w, struct si_timer *timer,
					 unsigned long expires, unsigned int *b)
{
	unsigned long bucket_due;

	si_wheel_forward(w, jiffies);
	*b = si_wheel_bucket_of(w, expires, &bucket_due);
	__set_bit(*b, w->pending);
	hlist_add_head(&timer->node, &w->bucket[*b]);
	if (w->wake_set && !time_before(bucket_due, w->next))
		return false;
	w->next = bucket_due;
	w->wake_set = true;
	return true;
}

/* Take @timer out of bucket @b of @w, or of the expired list it is on. */
static __always_inline void si_wheel_del(struct si_wheel *w, struct si_timer *timer,
					 unsigned int b)
{
	__hlist_del(&timer->node);
	if (hlist_empty(&w->bucket[b]))
		__clear_bit(b, w->pending);
}

/*
 * The first timer of @w's expired lists, or NULL; the lists found empty
 * on the way are forgotten. All of them are due.
 */
static __always_inline struct si_timer *si_wheel_expired_first(struct si_wheel *w)
{
	while (w->expired_levels) {
		unsigned int lvl = __ffs(w->expired_levels);
		struct hlist_node *first = w->expired[lvl].first;

		if (first)
			return hlist_entry(first, struct si_timer, node);
		w->expired_levels &= ~BIT(lvl);
	}
	return NULL;
}

/* Every list of @w that holds armed timers: the buckets, then the expired. */
#define SI_WHEEL_LISTS		(SI_WHEEL_BUCKETS + SI_WHEEL_LEVELS)

static inline struct hlist_head *si_wheel_list(struct si_wheel *w, unsigned int i)
{
	return i < SI_WHEEL_BUCKETS ? &w->bucket[i] : &w->expired[i - SI_WHEEL_BUCKETS];
}

/* expiry.c */
void si_wheel_init(struct si_wheel *w, unsigned long now);
bool si_wheel_collect(struct si_wheel *w, unsigned long now);
bool si_wheel_collect_due(struct si_wheel *w, unsigned long now);
bool si_wheel_empty(const struct si_wheel *w);

#endif /* _SI_WHEEL_H */
