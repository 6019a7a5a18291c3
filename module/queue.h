/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An executor's queue of due timers, first in first out, under its lock.
 *
 * An hlist with a pointer to its last node rather than a list_head: every
 * expiry adds a timer to a queue and takes it off again, and
 * CONFIG_DEBUG_LIST (on in Debian's kernels) checks each list_head
 * operation out of line, which cost a 10,000-timer expiry (B5) half again
 * the time of the classic wheel's. The timer's node is the one its wheel
 * bucket used (a timer is in at most one of them).
 */
#ifndef _SI_QUEUE_H
#define _SI_QUEUE_H

#include <linux/list.h>
#include <si_timer.h>

struct si_fifo {
	struct hlist_head	head;
	struct hlist_node	*last;	/* NULL when empty */
};

static inline void si_fifo_init(struct si_fifo *f)
{
	INIT_HLIST_HEAD(&f->head);
	f->last = NULL;
}

static inline bool si_fifo_empty(const struct si_fifo *f)
{
	return hlist_empty(&f->head);
}

static __always_inline void si_fifo_add(struct si_fifo *f, struct si_timer *timer)
{
	if (f->last)
		hlist_add_behind(&timer->node, f->last);
	else
		hlist_add_head(&timer->node, &f->head);
	f->last = &timer->node;
}

/* Take @timer, which is on @f, off it. */
static __always_inline void si_fifo_del(struct si_fifo *f, struct si_timer *timer)
{
	struct hlist_node *n = &timer->node;

	/* pprev points at the head's first or at the previous node's next */
	if (f->last == n)
		f->last = n->pprev == &f->head.first ? NULL :
			  container_of(n->pprev, struct hlist_node, next);
	__hlist_del(n);
}

static __always_inline struct si_timer *si_fifo_first(const struct si_fifo *f)
{
	return hlist_entry_safe(f->head.first, struct si_timer, node);
}

/* Move what is on @from to the end of @to. */
static inline void si_fifo_splice_tail(struct si_fifo *from, struct si_fifo *to)
{
	struct hlist_node *first = from->head.first;

	if (!first)
		return;
	if (to->last) {
		to->last->next = first;
		first->pprev = &to->last->next;
	} else {
		to->head.first = first;
		first->pprev = &to->head.first;
	}
	to->last = from->last;
	si_fifo_init(from);
}

#define si_fifo_for_each(timer, f) hlist_for_each_entry(timer, &(f)->head, node)

#endif /* _SI_QUEUE_H */
