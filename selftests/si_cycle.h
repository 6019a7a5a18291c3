/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cycle of waits across executors, made on purpose: si_timer_race_test
 * checks the run-time refusal, si_lockdep_test (report=cycle) what lockdep
 * says. T1's soft-interruptible callback (CPU A) runs a tasklet (its
 * local_bh_enable()) that sync-cancels T2, whose callback (CPU B)
 * sync-cancels T1. With timer_list the tasklet could not start inside
 * T1's callback and both cancels return; with si_timer the wait that would
 * close the cycle is refused (-EDEADLK, one WARN per load) and the other
 * one waits and returns. Each side holds on until the other's wait is
 * published (tracepoint si_timer_cancel_wait), so the order is chosen: the
 * callback's cancel first (then the tasklet's is refused), the tasklet's
 * first (then the callback's is), or no cycle (T2's callback cancels
 * nothing: the tasklet's wait is legal and must not be refused).
 * Include from one source file per module, after si_test.h and si_trace.h.
 */
#ifndef _SI_CYCLE_H
#define _SI_CYCLE_H

#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/interrupt.h>
#include <linux/tracepoint.h>

enum cycle_order { CYCLE_CALLBACK_FIRST, CYCLE_TASKLET_FIRST, CYCLE_NONE };

struct cycle {
	struct si_timer t1, t2;
	struct tasklet_struct tasklet;
	enum cycle_order order;
	int cpu_a, cpu_b;
	atomic_t t1_in_cb, t2_started, t1_done, t2_done;
	/* si_timer_cancel_wait: a wait holds up A's callback, B's */
	atomic_t a_held_up, b_held_up;
	bool tasklet_inside;	/* the tasklet ran on A's executor, inside T1's callback */
	bool window;		/* the second wait was made while the first was published */
	int tasklet_ret, t2_ret;
};

#define CYCLE_WAIT_MS	5000

/* Busy-wait in a callback (no sleeping there) for @cond, up to CYCLE_WAIT_MS. */
#define cycle_spin_until(cond)						\
	({								\
		u64 __end = ktime_get_ns() + CYCLE_WAIT_MS * NSEC_PER_MSEC; \
		bool __ok;						\
									\
		while (!(__ok = (cond)) && ktime_get_ns() < __end)	\
			cpu_relax();					\
		__ok;							\
	})

/* A wait published, holding up the callback of CPU @held_up's executor. */
static void cycle_wait_probe(void *data, struct si_timer *timer, int held_up, bool refused)
{
	struct cycle *c = data;

	if (refused || (timer != &c->t1 && timer != &c->t2))
		return;
	if (held_up == c->cpu_a)
		atomic_set(&c->a_held_up, 1);
	else if (held_up == c->cpu_b)
		atomic_set(&c->b_held_up, 1);
}

static void cycle_tasklet_fn(struct tasklet_struct *tl)
{
	struct cycle *c = from_tasklet(c, tl, tasklet);

	c->tasklet_inside = atomic_read(&c->t1_in_cb) && si_test_softirq_on_executor();
	if (c->tasklet_inside)
		c->tasklet_ret = si_timer_delete_sync(&c->t2);
}

static void cycle_t1_fn(struct si_timer *t)
{
	struct cycle *c = si_timer_container_of(c, t, t1);

	atomic_set(&c->t1_in_cb, 1);
	cycle_spin_until(atomic_read(&c->t2_started));
	if (c->order == CYCLE_CALLBACK_FIRST)
		c->window = cycle_spin_until(atomic_read(&c->b_held_up));
	tasklet_schedule(&c->tasklet);
	local_bh_disable();
	local_bh_enable();	/* runs the tasklet here, on both flavours */
	atomic_set(&c->t1_in_cb, 0);
	atomic_set(&c->t1_done, 1);
}

static void cycle_t2_fn(struct si_timer *t)
{
	struct cycle *c = si_timer_container_of(c, t, t2);

	atomic_set(&c->t2_started, 1);
	cycle_spin_until(atomic_read(&c->t1_in_cb));
	if (c->order != CYCLE_CALLBACK_FIRST)
		c->window = cycle_spin_until(atomic_read(&c->a_held_up));
	if (c->order != CYCLE_NONE)
		c->t2_ret = si_timer_delete_sync(&c->t1);
	atomic_set(&c->t2_done, 1);
}

/*
 * Run one round in @order, T1 on @cpu_a, T2 on @cpu_b; false if the
 * callbacks did not return (a deadlock never returns at all: the boot
 * times out, a failure too) or the probe could not be registered.
 */
static bool cycle_run(struct cycle *c, enum cycle_order order, int cpu_a, int cpu_b)
{
	bool returned;

	memset(c, 0, sizeof(*c));
	c->order = order;
	c->cpu_a = cpu_a;
	c->cpu_b = cpu_b;
	if (register_trace_si_timer_cancel_wait(cycle_wait_probe, c))
		return false;
	tasklet_setup(&c->tasklet, cycle_tasklet_fn);
	si_test_timer_setup(&c->t1, cycle_t1_fn, SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_PINNED);
	si_test_timer_setup(&c->t2, cycle_t2_fn, SI_TIMER_PINNED);
	c->t1.expires = jiffies + 2;
	c->t2.expires = c->t1.expires;
	si_add_timer_on(&c->t1, cpu_a);
	si_add_timer_on(&c->t2, cpu_b);
	returned = si_wait_until(atomic_read(&c->t1_done) && atomic_read(&c->t2_done),
				 4 * CYCLE_WAIT_MS);
	tasklet_kill(&c->tasklet);
	si_timer_shutdown_sync(&c->t1);
	si_timer_shutdown_sync(&c->t2);
	unregister_trace_si_timer_cancel_wait(cycle_wait_probe, c);
	tracepoint_synchronize_unregister();
	return returned;
}

/* What the tasklet's cancel and T2's callback's must return in @order. */
static inline int cycle_expected_tasklet(enum cycle_order order)
{
	return order == CYCLE_CALLBACK_FIRST ? -EDEADLK : 0;
}

static inline int cycle_expected_t2(enum cycle_order order)
{
	return order == CYCLE_TASKLET_FIRST ? -EDEADLK : 0;
}

#endif /* _SI_CYCLE_H */
