/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cycle of waits across executors, made on purpose: si_timer_race_test
 * checks the run-time refusal, si_lockdep_test (report=cycle) what lockdep
 * says. T1's soft-interruptible callback (CPU A) is held up by a "holder"
 * that sync-cancels T2, whose callback (CPU B) sync-cancels T1:
 *
 * - CYCLE_VIA_TASKLET: the holder is a tasklet that T1's callback runs
 *   inside itself (its local_bh_enable()), on every kernel;
 * - CYCLE_VIA_BH_LOCK: on PREEMPT_RT with the BH lock, a SCHED_FIFO thread
 *   on CPU A that holds A's BH lock (local_bh_disable()) while T1's
 *   callback runs; the callback then enters a BH section and waits for it.
 *
 * With timer_list neither holder could hold the callback up and both
 * cancels return; with si_timer the wait that would close the cycle is
 * refused (-EDEADLK, one WARN per load) and the other one waits and
 * returns. Each side holds on until the other's wait is published
 * (tracepoint si_timer_cancel_wait), so the order is chosen: the callback's
 * cancel first (then the holder's is refused), the holder's first (then
 * the callback's is), or no cycle (T2's callback cancels nothing: the
 * holder's wait is legal and must not be refused).
 * Include from one source file per module, after si_test.h and si_trace.h.
 */
#ifndef _SI_CYCLE_H
#define _SI_CYCLE_H

#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/interrupt.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>

enum cycle_order { CYCLE_CALLBACK_FIRST, CYCLE_HOLDER_FIRST, CYCLE_NONE };
enum cycle_via { CYCLE_VIA_TASKLET, CYCLE_VIA_BH_LOCK };

struct cycle {
	struct si_timer t1, t2;
	struct tasklet_struct tasklet;
	struct si_ktap_cpu_work bh_holder;
	enum cycle_order order;
	enum cycle_via via;
	int cpu_a, cpu_b;
	atomic_t t1_in_cb, t2_started, t1_done, t2_done, holder_has_bh;
	/* si_timer_cancel_wait: a wait holds up A's callback, B's */
	atomic_t a_held_up, b_held_up;
	bool holder_inside;	/* the holder held T1's callback up, as meant */
	bool window;		/* the second wait was made while the first was published */
	int holder_ret, t2_ret;
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

	c->holder_inside = atomic_read(&c->t1_in_cb) && si_test_softirq_on_executor();
	if (c->holder_inside)
		c->holder_ret = si_timer_delete_sync(&c->t2);
}

/* On CPU A, above the executor: it preempts T1's callback, sleeps to wait. */
static void cycle_bh_holder_fn(void *arg)
{
	struct cycle *c = arg;

	si_wait_until(atomic_read(&c->t1_in_cb) && atomic_read(&c->t2_started), CYCLE_WAIT_MS);
	if (c->order == CYCLE_CALLBACK_FIRST)
		c->window = si_wait_until(atomic_read(&c->b_held_up), CYCLE_WAIT_MS);
	local_bh_disable();
	atomic_set(&c->holder_has_bh, 1);
	c->holder_inside = atomic_read(&c->t1_in_cb);
	c->holder_ret = si_timer_delete_sync(&c->t2);
	local_bh_enable();
}

static void cycle_t1_fn(struct si_timer *t)
{
	struct cycle *c = si_timer_container_of(c, t, t1);

	atomic_set(&c->t1_in_cb, 1);
	cycle_spin_until(atomic_read(&c->t2_started));
	if (c->via == CYCLE_VIA_BH_LOCK) {
		/* held up for real: the BH lock is the holder's until its wait ends */
		cycle_spin_until(atomic_read(&c->holder_has_bh));
	} else {
		if (c->order == CYCLE_CALLBACK_FIRST)
			c->window = cycle_spin_until(atomic_read(&c->b_held_up));
		tasklet_schedule(&c->tasklet);
	}
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
 * Run one round in @order through @via, T1 on @cpu_a, T2 on @cpu_b; false
 * if the callbacks did not return (a deadlock never returns at all: the
 * boot times out, a failure too) or the round could not be set up.
 */
static bool cycle_run(struct cycle *c, enum cycle_order order, enum cycle_via via,
		      int cpu_a, int cpu_b)
{
	bool returned;

	memset(c, 0, sizeof(*c));
	c->order = order;
	c->via = via;
	c->cpu_a = cpu_a;
	c->cpu_b = cpu_b;
	if (via == CYCLE_VIA_BH_LOCK) {
		if (si_ktap_cpu_work_create(&c->bh_holder, cpu_a, cycle_bh_holder_fn, c, false))
			return false;
		sched_set_fifo(c->bh_holder.task);
	}
	if (register_trace_si_timer_cancel_wait(cycle_wait_probe, c)) {
		if (via == CYCLE_VIA_BH_LOCK)
			kthread_stop(c->bh_holder.task);
		return false;
	}
	tasklet_setup(&c->tasklet, cycle_tasklet_fn);
	si_test_timer_setup(&c->t1, cycle_t1_fn, SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_PINNED);
	si_test_timer_setup(&c->t2, cycle_t2_fn, SI_TIMER_PINNED);
	c->t1.expires = jiffies + 2;
	c->t2.expires = c->t1.expires;
	si_add_timer_on(&c->t1, cpu_a);
	si_add_timer_on(&c->t2, cpu_b);
	if (via == CYCLE_VIA_BH_LOCK)
		wake_up_process(c->bh_holder.task);
	returned = si_wait_until(atomic_read(&c->t1_done) && atomic_read(&c->t2_done),
				 4 * CYCLE_WAIT_MS);
	if (via == CYCLE_VIA_BH_LOCK)
		si_ktap_cpu_work_finish(&c->bh_holder, 0);
	tasklet_kill(&c->tasklet);
	si_timer_shutdown_sync(&c->t1);
	si_timer_shutdown_sync(&c->t2);
	unregister_trace_si_timer_cancel_wait(cycle_wait_probe, c);
	tracepoint_synchronize_unregister();
	return returned;
}

/* What the holder's cancel and T2's callback's must return in @order. */
static inline int cycle_expected_holder(enum cycle_order order)
{
	return order == CYCLE_CALLBACK_FIRST ? -EDEADLK : 0;
}

static inline int cycle_expected_t2(enum cycle_order order)
{
	return order == CYCLE_HOLDER_FIRST ? -EDEADLK : 0;
}

#endif /* _SI_CYCLE_H */
