// SPDX-License-Identifier: GPL-2.0
/*
 * Expiry: how the due timers of an executor's wheels (wheel.h) get to its
 * thread (executor.c), which runs their callbacks. The states and
 * invariants are timer.c's; everything here runs under the executor's lock.
 *
 * A wake-up of a wheel (a HARD hrtimer; a deferrable timer_list for the
 * deferrable wheel) queues what is due, up to SI_EXPIRE_IRQ (executor.c), so
 * that a callback runs soon after a timer is due even behind a long one
 * (QUEUED: si_timer_pending() and cancelling see it as they see an armed
 * timer). A wake-up that leaves due timers behind sets e->overdue, and
 * the thread takes those straight from their buckets as it runs them,
 * with no stop on a queue: for thousands due in one jiffy, that insertion
 * and deletion cost as much as the rest of an expiry (B5).
 */
#include <linux/bitmap.h>
#include "si_timer_internal.h"
#include "si_trace.h"
#include "take.h"

static __always_inline void si_queue_due(struct si_executor *e, struct si_wheel *w,
					 struct si_timer *timer, unsigned int b)
{
	si_take_from_bucket(e, w, timer, b, &e->queue[si_queue_of(timer)]);
}

/*
 * Queue the timers of bucket @b of @w that are due at @now, at most
 * *@budget of them. Returns true if the budget ran out first; otherwise
 * what is left in the bucket is not due and earliest[b] says when it is.
 */
static bool si_collect_bucket(struct si_executor *e, struct si_wheel *w, unsigned int b,
			      unsigned long now, unsigned int *budget)
{
	unsigned long earliest = 0;
	struct si_timer *timer;
	struct hlist_node *tmp;
	bool left = false;

	hlist_for_each_entry_safe(timer, tmp, &w->bucket[b], node) {
		if (time_after(timer->due, now)) {
			if (!left || time_before(timer->due, earliest))
				earliest = timer->due;
			left = true;
			continue;
		}
		/* earliest[b] stays early: the rest is still due */
		if (!*budget)
			return true;
		(*budget)--;
		si_queue_due(e, w, timer, b);
	}
	if (left)
		w->earliest[b] = earliest;
	return false;
}

/* Set the wake-up of @e's wheel @k for @due if it is set for later. */
static void si_wake_by(struct si_executor *e, enum si_wheel_kind k, unsigned long due)
{
	struct si_wheel *w = &e->wheel[k];

	if (w->wake_set && !time_before(due, w->wake_at))
		return;
	w->wake_at = due;
	w->wake_set = true;
	si_executor_set_wake(e, k);
}

/*
 * Set the wake-up of @e's wheel @k for its earliest bucket that is not
 * due at @now; with @mark_due, the due ones are marked in w->due for the
 * executor to take from (si_take_due()). Returns true if any is due.
 */
static bool si_wheel_plan(struct si_executor *e, enum si_wheel_kind k,
			  unsigned long now, bool mark_due)
{
	struct si_wheel *w = &e->wheel[k];
	unsigned long next = 0;
	bool any = false, due = false;
	unsigned int b;

	for_each_set_bit(b, w->busy, SI_WHEEL_BUCKETS) {
		if (!time_after(w->earliest[b], now)) {
			due = true;
			if (mark_due)
				__set_bit(b, w->due);
			continue;
		}
		if (!any || time_before(w->earliest[b], next))
			next = w->earliest[b];
		any = true;
	}
	w->wake_set = false;
	if (any)
		si_wake_by(e, k, next);
	return due;
}

/*
 * A wake-up of @e's wheel @k: queue its due timers, at most @budget of
 * them, so that the section with interrupts off stays short (a HARD
 * hrtimer calls this, on PREEMPT_RT too), and set the wake-up for the
 * rest. @e locked. Returns true if due timers are left: the executor
 * takes them itself (si_timer_take_next()).
 */
bool si_timer_collect(struct si_executor *e, enum si_wheel_kind k, unsigned int budget)
{
	struct si_wheel *w = &e->wheel[k];
	unsigned long now = jiffies;
	unsigned int b;

	for_each_set_bit(b, w->busy, SI_WHEEL_BUCKETS) {
		if (!time_after(w->earliest[b], now) &&
		    si_collect_bucket(e, w, b, now, &budget))
			return true;
	}
	si_wheel_plan(e, k, now, false);
	return false;
}

/*
 * How many timers one look into the wheels queues, at most: those due in
 * a bucket whose first timer is not due, and due timers of the other
 * queue met on the way (that queue's batch takes its own straight from
 * the wheels: a few are queued so that mixed buckets need no batch each).
 */
#define SI_COLLECT_BATCH	256
#define SI_COLLECT_OTHER	16

/*
 * A due timer of queue @q taken straight from a bucket of @e's wheels
 * marked due, or NULL. Due timers of the other queue met on the way are
 * queued there (a few, then NULL), and so are those of a bucket whose
 * first timer is not due. @e locked.
 */
static struct si_timer *si_take_due(struct si_executor *e, enum si_queue q)
{
	unsigned int other = SI_COLLECT_OTHER;
	unsigned long now = jiffies;
	int k;

	for (k = 0; k < SI_NR_WHEELS; k++) {
		struct si_wheel *w = &e->wheel[k];
		unsigned int b, budget;

		while ((b = find_first_bit(w->due, SI_WHEEL_BUCKETS)) < SI_WHEEL_BUCKETS) {
			struct si_timer *timer;

			timer = hlist_entry_safe(w->bucket[b].first, struct si_timer, node);
			if (!timer) {
				__clear_bit(b, w->due);
				continue;
			}
			if (time_after(timer->due, now)) {
				budget = SI_COLLECT_BATCH;
				if (si_collect_bucket(e, w, b, now, &budget))
					return NULL;	/* the queues have work */
				__clear_bit(b, w->due);
				if (test_bit(b, w->busy))
					si_wake_by(e, k, w->earliest[b]);
				if (!si_fifo_empty(&e->queue[q]))
					return NULL;
				continue;
			}
			if (si_queue_of(timer) != q) {
				if (!other--)
					return NULL;
				si_queue_due(e, w, timer, b);
				continue;
			}
			si_take_from_bucket(e, w, timer, b, NULL);
			return timer;
		}
	}
	return NULL;
}

static bool si_wheels_marked_due(const struct si_executor *e)
{
	return !bitmap_empty(e->wheel[SI_WHEEL_NORMAL].due, SI_WHEEL_BUCKETS) ||
	       !bitmap_empty(e->wheel[SI_WHEEL_DEFERRABLE].due, SI_WHEEL_BUCKETS);
}

/* si_timer_take_next() when neither of its quick looks found a timer. */
noinline struct si_timer *si_take_next_slow(struct si_executor *e, enum si_queue q)
{
	struct si_timer *timer;
	bool due;
	int k;

	for (;;) {
		timer = si_take_queued(e, q);
		if (timer || !e->overdue)
			return timer;
		timer = si_take_due(e, q);
		if (timer)
			return timer;
		if (!si_fifo_empty(&e->queue[q]))
			continue;
		/* The rest is the other queue's, or waits for the next round. */
		if (si_wheels_marked_due(e))
			return NULL;
		due = false;
		for (k = 0; k < SI_NR_WHEELS; k++)
			due |= si_wheel_plan(e, k, jiffies, true);
		if (!due) {
			WRITE_ONCE(e->overdue, false);
			return NULL;
		}
	}
}

/* A queued timer moves to @to with its queue (both executors locked). */
void si_timer_rehome(struct si_timer *timer, struct si_executor *to)
{
	si_state_set(timer, (timer->state & ~SI_STATE_CPUMASK) | to->cpu);
}

/*
 * A CPU goes down: the armed timers of @from move to the wheels of @to,
 * their expiries unchanged (both executors locked).
 */
void si_timer_move_wheels(struct si_executor *from, struct si_executor *to)
{
	int k;

	for (k = 0; k < SI_NR_WHEELS; k++) {
		struct si_wheel *w = &from->wheel[k];
		unsigned int b;

		for_each_set_bit(b, w->busy, SI_WHEEL_BUCKETS) {
			struct si_timer *timer;
			struct hlist_node *tmp;

			hlist_for_each_entry_safe(timer, tmp, &w->bucket[b], node) {
				u32 state = timer->state;

				__hlist_del(&timer->node);
				state &= ~(SI_STATE_CPUMASK | SI_STATE_ARMED | SI_STATE_BUCKET);
				si_wheel_hook(to, timer, state | to->cpu, timer->due);
			}
		}
		bitmap_zero(w->busy, SI_WHEEL_BUCKETS);
		bitmap_zero(w->due, SI_WHEEL_BUCKETS);
		w->wake_set = false;
	}
}
