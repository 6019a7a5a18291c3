/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each executor's own timer wheel, where its armed si_timers wait, under
 * its lock (the one lock of timer.c's design).
 *
 * Why not the kernel's wheel: its expiry runs in the TIMER softirq, on
 * PREEMPT_RT under the BH lock, so an si_timer could not fire while bottom
 * halves are busy on its CPU, and every expiry had to be passed on to an
 * executor under a second lock, taken by every arm and cancel too (README:
 * B3, B5, B7). Here arming and cancelling are an hlist operation under the
 * lock those calls take anyway, and one HARD hrtimer per executor (a
 * deferrable timer_list for deferrable timers: they keep not waking an
 * idle CPU) moves what is due to the executor's queue and wakes it
 * (expiry.c). The buckets the executor still has to take due timers from
 * are marked in a second bitmap.
 *
 * SI_WHEEL_BUCKETS buckets, hashed by due jiffy, each with the earliest due
 * jiffy it holds; a bitmap of the non-empty ones. A removal leaves the
 * earliest as it was, early: that costs at most one wake-up that finds
 * nothing due, after which expiry has made it exact again. A
 * timer more than SI_WHEEL_BUCKETS jiffies away shares its bucket with
 * nearer ones, and is looked at (not expired) when they expire.
 */
#ifndef _SI_WHEEL_H
#define _SI_WHEEL_H

#include <linux/bitmap.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <si_timer.h>

/* One word of buckets: the first marked due is one __ffs() (take.h, B5). */
#define SI_WHEEL_BUCKETS	BITS_PER_LONG
#define SI_WHEEL_BITS		(BITS_PER_LONG == 64 ? 6 : 5)
static_assert(BIT(SI_WHEEL_BITS) == SI_WHEEL_BUCKETS);

enum si_wheel_kind {
	SI_WHEEL_NORMAL,	/* woken by a HARD hrtimer */
	SI_WHEEL_DEFERRABLE,	/* woken by a deferrable timer_list */
	SI_NR_WHEELS,
};

struct si_wheel {
	DECLARE_BITMAP(busy, SI_WHEEL_BUCKETS);
	/* Buckets the executor takes due timers from (timer.c: si_take_due()) */
	DECLARE_BITMAP(due, SI_WHEEL_BUCKETS);
	/* The jiffy the wake-up is set for, if wake_set. */
	unsigned long		wake_at;
	bool			wake_set;
	unsigned long		earliest[SI_WHEEL_BUCKETS];
	struct hlist_head	bucket[SI_WHEEL_BUCKETS];
};

/* The jiffy a timer that expires at @expires is due in: as timer_list's. */
static inline unsigned long si_timer_due(unsigned long expires)
{
	return expires + 1;
}

static inline unsigned int si_wheel_bucket_of(unsigned long due)
{
	return due & (SI_WHEEL_BUCKETS - 1);
}

static inline enum si_wheel_kind si_wheel_kind_of(const struct si_timer *timer)
{
	return timer->flags & SI_TIMER_DEFERRABLE ? SI_WHEEL_DEFERRABLE : SI_WHEEL_NORMAL;
}

/*
 * Put @timer in bucket @b of @w, due in jiffy @due. Returns true if the
 * wake-up must be set (for @w->wake_at, now @due) for it.
 */
static __always_inline bool si_wheel_add(struct si_wheel *w, struct si_timer *timer,
					 unsigned int b, unsigned long due)
{
	if (!__test_and_set_bit(b, w->busy) || time_before(due, w->earliest[b]))
		w->earliest[b] = due;
	hlist_add_head(&timer->node, &w->bucket[b]);
	if (w->wake_set && !time_before(due, w->wake_at))
		return false;
	w->wake_at = due;
	w->wake_set = true;
	return true;
}

/* Take @timer out of bucket @b of @w. */
static __always_inline void si_wheel_del(struct si_wheel *w, struct si_timer *timer,
					 unsigned int b)
{
	__hlist_del(&timer->node);
	if (hlist_empty(&w->bucket[b]))
		__clear_bit(b, w->busy);
}

#endif /* _SI_WHEEL_H */
