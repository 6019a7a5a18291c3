// SPDX-License-Identifier: GPL-2.0
/*
 * Expiry: how the due timers of an executor's wheels (wheel.h) get to its
 * thread (executor.c), which runs their callbacks. The states and
 * invariants are timer.c's; everything here runs under the executor's lock.
 *
 * A wake-up of a wheel (a HARD hrtimer; a deferrable timer_list for the
 * deferrable wheel) collects the due buckets onto the wheel's expired
 * lists and queues up to SI_EXPIRE_IRQ (executor.c) of their timers, so
 * that a callback runs soon after a timer is due even behind a long one
 * (QUEUED: si_timer_pending() and cancelling see it as they see an armed
 * timer). Its work with interrupts off is bounded whatever the number of
 * timers armed: collecting a bucket moves a list head, finding the next
 * due bucket is a bitmap search per level, which the normal wheel's
 * wake-up leaves to the thread when it wakes it from idle (the wheel
 * stale meanwhile: wheel.h, si_timer_unstale()). A wake-up that leaves expired
 * timers sets e->overdue, and the thread takes those straight from the
 * expired lists as it runs them, with no stop on a queue: for thousands due
 * in one jiffy, that insertion and deletion cost as much as the rest of an
 * expiry (B5).
 */
#include <linux/bitmap.h>
#include "si_timer_internal.h"
#include "si_trace.h"
#include "take.h"

void si_wheel_init(struct si_wheel *w, unsigned long now)
{
	memset(w, 0, sizeof(*w));
	w->clk = now;
}

bool si_wheel_empty(const struct si_wheel *w)
{
	unsigned int lvl;

	for (lvl = 0; lvl < SI_WHEEL_LEVELS; lvl++)
		if (!hlist_empty(&w->expired[lvl]))
			return false;
	return bitmap_empty(w->pending, SI_WHEEL_BUCKETS);
}

/*
 * How many buckets of level @lvl from its bucket @slot (wrapping) to the
 * first pending one, or -1 if none is.
 */
static int si_wheel_distance(const struct si_wheel *w, unsigned int lvl, unsigned int slot)
{
	unsigned int first = lvl * SI_WHEEL_LVL_SIZE, end = first + SI_WHEEL_LVL_SIZE;
	unsigned int b = find_next_bit(w->pending, end, first + slot);

	if (b < end)
		return b - first - slot;
	b = find_next_bit(w->pending, first + slot, first);
	return b < first + slot ? b - first + SI_WHEEL_LVL_SIZE - slot : -1;
}

/*
 * @w->next and @w->wake_set, exact again: the earliest jiffy a pending
 * bucket is due in, from @w->clk. Level by level, each level's clock
 * rounded up where the one below has not wrapped yet, as timer.c's
 * next_timer_interrupt(); a level's bucket due before the next level's
 * first can be ends the search.
 */
static void si_wheel_recalc(struct si_wheel *w)
{
	unsigned long clk = w->clk, next = 0;
	bool found = false;
	unsigned int lvl;

	for (lvl = 0; lvl < SI_WHEEL_LEVELS; lvl++) {
		unsigned long below = clk & SI_WHEEL_CLK_MASK;
		int d = si_wheel_distance(w, lvl, clk & SI_WHEEL_LVL_MASK);

		if (d >= 0) {
			unsigned long at = (clk + d) << SI_WHEEL_LVL_SHIFT(lvl);

			if (!found || time_before(at, next))
				next = at;
			found = true;
			if (d <= ((SI_WHEEL_CLK_MASK + 1 - below) & SI_WHEEL_CLK_MASK))
				break;
		}
		clk = (clk >> SI_WHEEL_CLK_SHIFT) + !!below;
	}
	w->wake_set = found;
	w->stale = false;
	if (found)
		w->next = next;
}

/*
 * Collect the buckets of jiffy @w->next, due, onto @w's expired lists,
 * which must be empty; @w->clk after it.
 */
static void si_wheel_take_due(struct si_wheel *w)
{
	unsigned long clk = w->next;
	unsigned int lvl;

	w->clk = clk;
	for (lvl = 0; lvl < SI_WHEEL_LEVELS; lvl++) {
		unsigned int b = lvl * SI_WHEEL_LVL_SIZE + (clk & SI_WHEEL_LVL_MASK);

		if (__test_and_clear_bit(b, w->pending)) {
			hlist_move_list(&w->bucket[b], &w->expired[lvl]);
			w->expired_levels |= BIT(lvl);
		}
		/* a level's bucket ends with the last of the level below */
		if (clk & SI_WHEEL_CLK_MASK)
			break;
		clk >>= SI_WHEEL_CLK_SHIFT;
	}
	w->clk++;
}

/*
 * If a bucket of @w is due at @now: collect the buckets of its jiffy, the
 * earliest one due, onto @w's expired lists, which must be empty, and
 * return true. O(levels), whatever the number of timers.
 */
bool si_wheel_collect(struct si_wheel *w, unsigned long now)
{
	if (unlikely(w->stale))
		si_wheel_recalc(w);
	if (!w->wake_set || time_before(now, w->next))
		return false;
	si_wheel_take_due(w);
	si_wheel_recalc(w);
	return true;
}

/*
 * The hard interrupt's collect (the normal wheel's wake-up): as
 * si_wheel_collect(), but if it collected timers, finding the next due
 * jiffy, a bitmap search over every level, and setting the wake-up for it
 * are left to the thread, which runs anyway to run them: @w is then stale
 * and true returned. With interrupts off, only the due buckets are moved,
 * as the tick only raises the TIMER softirq for the kernel's wheel (B9).
 */
bool si_wheel_collect_due(struct si_wheel *w, unsigned long now)
{
	if (w->stale || !w->wake_set || time_before(now, w->next))
		return false;
	si_wheel_take_due(w);
	if (!w->expired_levels) {
		/* nothing there (cancelled): no thread to wake for it */
		si_wheel_recalc(w);
		return false;
	}
	w->next = w->clk;
	w->stale = true;
	return true;
}

static __always_inline void si_queue_due(struct si_executor *e, struct si_timer *timer)
{
	si_take_expired(e, timer, &e->queue[si_queue_of(timer)]);
}

/*
 * A wake-up of @e's wheel @k: queue its due timers, at most @budget of
 * them, so that the section with interrupts off stays short (a HARD
 * hrtimer calls this, on PREEMPT_RT too), and set the wake-up for the
 * rest. @lazy (the normal wheel's wake-up, its thread idle, about to be
 * woken): finding the next due jiffy is left to the thread, the wheel
 * stale meanwhile, which the thread makes good before its first callback
 * (si_timer_unstale()): what comes due behind a long callback is queued
 * on time by the wake-ups as before. @e locked. Returns true if due timers are left, or
 * the wheel was left stale: the executor takes them itself
 * (si_timer_take_next()) and then sets the wake-up (si_take_next_slow()).
 */
bool si_timer_collect(struct si_executor *e, enum si_wheel_kind k, unsigned int budget,
		      bool lazy)
{
	struct si_wheel *w = &e->wheel[k];
	unsigned long now = jiffies;
	struct si_timer *timer;

	do {
		while ((timer = si_wheel_expired_first(w))) {
			if (!budget--)
				return true;
			si_queue_due(e, timer);
		}
		if (lazy && si_wheel_collect_due(w, now)) {
			while (budget && (timer = si_wheel_expired_first(w))) {
				si_queue_due(e, timer);
				budget--;
			}
			return true;
		}
	} while (si_wheel_collect(w, now));
	if (w->wake_set)
		si_executor_set_wake(e, k);
	return false;
}

/*
 * How many due timers of the other queue one look into the wheels queues,
 * at most, before it lets that queue's batch take the rest straight from
 * the wheels: a few, so that mixed lists need no batch each.
 */
#define SI_COLLECT_OTHER	16

/*
 * si_timer_take_next() when neither of its quick looks found a timer: a
 * due timer of queue @q taken straight from @e's wheels, collecting due
 * buckets as it goes, or NULL. Due timers of the other queue met on the
 * way are queued there (a few, then NULL). Once nothing is due, the
 * wake-ups are set for what is left (a stale wheel's next due jiffy found
 * first, by si_wheel_collect()) and e->overdue cleared. @e locked.
 */
noinline struct si_timer *si_take_next_slow(struct si_executor *e, enum si_queue q)
{
	unsigned int other = SI_COLLECT_OTHER;
	unsigned long now = jiffies;
	struct si_timer *timer;
	int k;

	timer = si_take_queued(e, q);
	if (timer || !e->overdue)
		return timer;
	for (k = 0; k < SI_NR_WHEELS; k++) {
		struct si_wheel *w = &e->wheel[k];

		do {
			while ((timer = si_wheel_expired_first(w))) {
				if (si_queue_of(timer) == q) {
					si_take_expired(e, timer, NULL);
					return timer;
				}
				if (!other--)
					return NULL;	/* the other queue's batch next */
				si_queue_due(e, timer);
			}
		} while (si_wheel_collect(w, now));
	}
	for (k = 0; k < SI_NR_WHEELS; k++)
		if (e->wheel[k].wake_set)
			si_executor_set_wake(e, k);
	WRITE_ONCE(e->overdue, false);
	return NULL;
}

/*
 * The thread, before it runs callbacks: a stale normal wheel's next due
 * jiffy found and its wake-up set (wheel.h), so that what comes due
 * behind a long callback is queued on time. @e locked.
 */
void si_timer_unstale(struct si_executor *e)
{
	struct si_wheel *w = &e->wheel[SI_WHEEL_NORMAL];

	si_wheel_recalc(w);
	if (w->wake_set)
		si_executor_set_wake(e, SI_WHEEL_NORMAL);
}

/* A queued timer moves to @to with its queue (both executors locked). */
void si_timer_rehome(struct si_timer *timer, struct si_executor *to)
{
	si_owner_del(timer);
	si_owner_add(to, timer);
	si_state_set(timer, (timer->state & ~SI_STATE_CPUMASK) | to->cpu);
}

/* An armed timer, off its list of @from's wheel, into @to's, its expiry unchanged. */
static void si_timer_move_armed(struct si_timer *timer, struct si_executor *to)
{
	u32 state = timer->state & ~(SI_STATE_CPUMASK | SI_STATE_ARMED | SI_STATE_BUCKET);

	si_owner_del(timer);
	si_owner_add(to, timer);
	si_wheel_hook(to, timer, state | to->cpu, timer->due - 1);
}

/*
 * A CPU goes down: up to @budget armed timers of @from move to the wheels
 * of @to, their expiries unchanged (both executors locked); returns the
 * budget left, which is not 0 only once @from's wheels are empty. The due
 * ones first (the expired lists), then the buckets, the nearest levels
 * first. Each is taken from the head of its list and the bucket's pending
 * bit cleared as it empties, so that between two calls @from's wheels are
 * as consistent as after a cancel: a cancel or a wake-up of @from in
 * between finds what is left where its state says (a removal leaves
 * w->next early, which costs at most a wake-up that finds nothing due).
 * Finding the next list is a bitmap search, whatever the number of timers.
 */
unsigned int si_timer_move_wheels(struct si_executor *from, struct si_executor *to,
				  unsigned int budget)
{
	int k;

	for (k = 0; k < SI_NR_WHEELS; k++) {
		struct si_wheel *w = &from->wheel[k];
		struct si_timer *timer;
		unsigned int b;

		while (budget && (timer = si_wheel_expired_first(w))) {
			__hlist_del(&timer->node);
			si_timer_move_armed(timer, to);
			budget--;
		}
		while (budget && (b = find_first_bit(w->pending, SI_WHEEL_BUCKETS)) <
				 SI_WHEEL_BUCKETS) {
			timer = hlist_entry(w->bucket[b].first, struct si_timer, node);
			si_wheel_del(w, timer, b);
			si_timer_move_armed(timer, to);
			budget--;
		}
		if (!budget)
			return 0;
		/* empty: as new, so that a wake-up set for what left finds nothing */
		si_wheel_init(w, jiffies);
	}
	return budget;
}
