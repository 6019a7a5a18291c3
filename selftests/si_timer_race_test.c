// SPDX-License-Identifier: GPL-2.0
/*
 * Regression tests for races between si_timer calls, expiry and callbacks:
 * each test makes its race happen on purpose and reports how often it did.
 *
 * The windows are microseconds wide, and single-threaded TCG switches
 * vCPUs every few milliseconds at best, so the tests widen them: a probe
 * on one of si_timer's tracepoints, which fire under the home executor's
 * lock inside the step they name (si_trace.h), holds the caller there,
 * interrupts off and the lock held, until a partner on another CPU has
 * started its move, then for a grace period. The move needs the same lock,
 * so in a correct implementation it waits and cannot complete meanwhile:
 * a test fails if it did (the partner got inside the victim's step).
 *
 * A broken implementation that drops the lock in the middle of a step
 * would let the waiting partner in there. So that the partner's move then
 * also completes and settles before the victim goes on, the hold goes on
 * at the victim's next moment with interrupts enabled (an irq_work raised
 * inside the hold): the middle of the step in a broken implementation,
 * after it in a correct one, where it only delays the victim.
 *
 * "Window reached" below means: the partner's move started while the
 * victim was held inside the step.
 *
 * The tests run in a kthread on the first online CPU ("home"); callbacks
 * and partners run on the next ones ("other", "third").
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include <si_timer.h>
#include "compat.h"
#include "vecmask.h"
#include "si_test.h"
#include "si_trace.h"
#include "si_cycle.h"

#define ROUNDS		20
/* How long a held victim waits for its partner's move to complete. */
#define GRACE_NS	(20 * NSEC_PER_MSEC)
#define HOLD_CAP_NS	(500 * NSEC_PER_MSEC)
#define SPIN_CAP_MS	2000
/* When a callback re-arms itself during its synchronous delete. */
#define REARM_MS	200
/*
 * How long a canceller stays held after the callback re-armed, for the
 * callback to return and its executor to let go of it: longer than a
 * single-threaded TCG time slice (100 ms), which a held vCPU spinning
 * with interrupts off may use up before the callback's vCPU runs again.
 */
#define SETTLE_NS	(120 * NSEC_PER_MSEC)

static int home_cpu;
static int other_cpu = -1;
static int third_cpu = -1;

/* ---------------------------------------------------------------------- */
/* Holding a victim inside a step of si_timer: a one-shot tracepoint probe. */

/* The tracepoints a hold is registered on (si_trace.h). */
#define SI_TP_START		BIT(0)	/* arming: hooked into home's wheel */
#define SI_TP_CANCEL		BIT(1)	/* a pending timer deactivated */
#define SI_TP_CANCEL_SYNC	BIT(2)	/* a synchronous cancel looks at the callback */
#define SI_TP_QUEUE		BIT(3)	/* expiry: collected onto the executor's queue */

struct si_hold {
	const char *name;
	unsigned int points;		/* SI_TP_*: held at whichever fires first */
	unsigned int registered;
	struct irq_work spill;		/* the hold going on once interrupts are on */
	/* who is held: this task, or (task NULL) the executor of cpu */
	struct task_struct *task;
	int cpu;
	const struct si_timer *timer;	/* and for this timer only, if set */
	u64 settle_ns;			/* held on this long after partner_done */
	atomic_t armed;
	atomic_t holding;
	atomic_t partner_started;
	atomic_t partner_done;
	unsigned int held_at;		/* the SI_TP_* it held at */
	bool reached;
	bool breached;			/* the partner's move completed while held */
};

static const char *si_tp_name(unsigned int point)
{
	switch (point) {
	case SI_TP_START:
		return "si_timer_start";
	case SI_TP_CANCEL:
		return "si_timer_cancel";
	case SI_TP_CANCEL_SYNC:
		return "si_timer_cancel_sync";
	case SI_TP_QUEUE:
		return "si_timer_queue";
	}
	return "-";
}

/*
 * Inside the step, the executor's lock held and interrupts off: until the
 * partner's move has completed and settled (which a correct one cannot
 * while we hold the lock it needs), or GRACE_NS after it started, or for
 * HOLD_CAP_NS in all. A partner still waiting then is waited for on.
 */
static void si_hold_here(struct si_hold *h, unsigned int point)
{
	u64 start = ktime_get_mono_fast_ns(), partner = 0, done = 0, now;

	h->held_at = point;
	atomic_set(&h->holding, 1);
	for (;;) {
		now = ktime_get_mono_fast_ns();
		if (!done && atomic_read(&h->partner_done))
			done = now;
		if (done && now - done >= h->settle_ns)
			break;
		if (!partner && atomic_read(&h->partner_started))
			partner = now;
		if (partner && now - partner > GRACE_NS)
			break;
		if (now - start > HOLD_CAP_NS)
			break;
		cpu_relax();
	}
	h->reached = partner || done;
	h->breached = done;
	atomic_set(&h->holding, 0);
	if (partner && !done)
		irq_work_queue(&h->spill);
}

/*
 * The victim has interrupts on again (it dropped the lock): held on until
 * the partner that waited for it has made its move, and settle_ns more.
 */
static void si_hold_spill(struct irq_work *work)
{
	struct si_hold *h = container_of(work, struct si_hold, spill);
	u64 start = ktime_get_mono_fast_ns(), done = 0, now;

	for (;;) {
		now = ktime_get_mono_fast_ns();
		if (!done && atomic_read(&h->partner_done))
			done = now;
		if (done && now - done >= h->settle_ns)
			break;
		if (now - start > HOLD_CAP_NS)
			break;
		cpu_relax();
	}
}

static bool si_hold_mine(struct si_hold *h, const struct si_timer *timer)
{
	if (h->task ? current != h->task : raw_smp_processor_id() != h->cpu)
		return false;
	if (!atomic_read(&h->armed))
		return false;
	smp_rmb();	/* armed before the filter, as si_hold_arm() wrote them */
	return !h->timer || timer == h->timer;
}

static void si_hold_at(struct si_hold *h, const struct si_timer *timer, unsigned int point)
{
	if (si_hold_mine(h, timer) && atomic_xchg(&h->armed, 0))
		si_hold_here(h, point);
}

static void si_hold_start(void *data, struct si_timer *timer, unsigned int cpu)
{
	si_hold_at(data, timer, SI_TP_START);
}

static void si_hold_cancel(void *data, struct si_timer *timer)
{
	si_hold_at(data, timer, SI_TP_CANCEL);
}

static void si_hold_cancel_sync(void *data, struct si_timer *timer, bool running)
{
	si_hold_at(data, timer, SI_TP_CANCEL_SYNC);
}

/* Expiry: @timer collected onto the queue of the executor of @cpu, on that CPU. */
static void si_hold_queue(void *data, struct si_timer *timer, unsigned int cpu)
{
	struct si_hold *h = data;

	if (cpu == h->cpu)
		si_hold_at(h, timer, SI_TP_QUEUE);
}

static void si_hold_unregister(struct si_hold *h)
{
	if (h->registered & SI_TP_START)
		unregister_trace_si_timer_start(si_hold_start, h);
	if (h->registered & SI_TP_CANCEL)
		unregister_trace_si_timer_cancel(si_hold_cancel, h);
	if (h->registered & SI_TP_CANCEL_SYNC)
		unregister_trace_si_timer_cancel_sync(si_hold_cancel_sync, h);
	if (h->registered & SI_TP_QUEUE)
		unregister_trace_si_timer_queue(si_hold_queue, h);
	h->registered = 0;
}

static int si_hold_register(struct si_hold *h)
{
	int ret = 0;

	if (h->points & SI_TP_START) {
		ret = register_trace_si_timer_start(si_hold_start, h);
		h->registered |= ret ? 0 : SI_TP_START;
	}
	if (!ret && (h->points & SI_TP_CANCEL)) {
		ret = register_trace_si_timer_cancel(si_hold_cancel, h);
		h->registered |= ret ? 0 : SI_TP_CANCEL;
	}
	if (!ret && (h->points & SI_TP_CANCEL_SYNC)) {
		ret = register_trace_si_timer_cancel_sync(si_hold_cancel_sync, h);
		h->registered |= ret ? 0 : SI_TP_CANCEL_SYNC;
	}
	if (!ret && (h->points & SI_TP_QUEUE)) {
		ret = register_trace_si_timer_queue(si_hold_queue, h);
		h->registered |= ret ? 0 : SI_TP_QUEUE;
	}
	if (ret)
		si_hold_unregister(h);
	return ret;
}

/* Arm for one hold of @task (or of the executor of @cpu), on @timer if set. */
static void si_hold_arm(struct si_hold *h, struct task_struct *task, int cpu,
			const struct si_timer *timer)
{
	h->task = task;
	h->cpu = cpu;
	h->timer = timer;
	h->held_at = 0;
	h->reached = false;
	h->breached = false;
	atomic_set(&h->partner_started, 0);
	atomic_set(&h->partner_done, 0);
	smp_wmb();	/* the above before armed */
	atomic_set(&h->armed, 1);
}

static void si_hold_disarm(struct si_hold *h)
{
	atomic_set(&h->armed, 0);
	/* a probe past its armed check finishes (probes run non-preemptible) */
	synchronize_rcu();
	irq_work_sync(&h->spill);
}

/* The steps of si_timer these tests widen. */
static struct si_hold hold_start = {
	.name = "si_timer_start",
	.points = SI_TP_START,
	.spill = IRQ_WORK_INIT_HARD(si_hold_spill),
};

/*
 * A synchronous delete: its deactivation of the pending timer, or (the
 * timer idle) its look at the callback, both under the one lock.
 */
static struct si_hold hold_cancel_sync = {
	.name = "si_timer_cancel/si_timer_cancel_sync",
	.points = SI_TP_CANCEL | SI_TP_CANCEL_SYNC,
	.spill = IRQ_WORK_INIT_HARD(si_hold_spill),
};

static struct si_hold hold_queue = {
	.name = "si_timer_queue",
	.points = SI_TP_QUEUE,
	.spill = IRQ_WORK_INIT_HARD(si_hold_spill),
};

static struct si_hold * const holds[] = { &hold_start, &hold_cancel_sync, &hold_queue };

/* ---------------------------------------------------------------------- */
/* Helpers. */

/*
 * The end of a loop of rounds: none went wrong, and the window was reached
 * in at least half of them (a loop stopped early by bad rounds counts the
 * rounds it made).
 */
static void race_verdict(const char *how, int rounds, const char *window, int reached,
			 const char *wrong, int bad)
{
	si_diag("%s: %d rounds, %s: %d", how, rounds, window, reached);
	SI_CHECK(!bad, "%s: %d rounds %s", how, bad, wrong);
	SI_CHECK(reached >= (rounds + 1) / 2, "%s: window reached %d of %d rounds",
		 how, reached, rounds);
}

/* The partner's move completed while the victim held the lock it needs. */
static bool breached(const struct si_hold *h, const char *how, int round)
{
	if (h->breached)
		si_diag("%s round %d: the partner's move completed inside the victim's step (%s)",
			how, round, si_tp_name(h->held_at));
	return h->breached;
}

static bool need_other_cpu(void)
{
	if (other_cpu < 0)
		si_skip("needs a second online CPU");
	return other_cpu >= 0;
}

static bool need_third_cpu(void)
{
	if (third_cpu < 0)
		si_skip("needs three online CPUs");
	return third_cpu >= 0;
}

/* A victim: counts its runs, records when. */
struct victim {
	struct si_timer timer;
	atomic_t runs;
	unsigned long ran_at;
};

static void victim_fn(struct si_timer *t)
{
	struct victim *v = si_timer_container_of(v, t, timer);

	v->ran_at = jiffies;
	atomic_inc(&v->runs);
}

/* Is @t expired and queued behind a busy executor (not in the wheel)? */
static bool queued(struct si_timer *t)
{
	return si_timer_pending(t) && !si_in_wheel(t);
}

/*
 * A timer stays queued only behind a callback its executor runs. Two
 * timers due in the same jiffy on one executor are collected onto its
 * queue together; the callback of whichever runs first keeps the executor
 * busy until released (the batch ends after it: it outlasts batch_us), and
 * the other waits on the queue.
 */
struct queued_pair;

struct pair_timer {
	struct si_timer timer;
	struct queued_pair *pair;
	atomic_t runs;
	atomic_t runs_parking;	/* while its executor was asked to park */
};

struct queued_pair {
	struct pair_timer t[2];
	struct pair_timer *busy;	/* whose callback ran first */
	struct pair_timer *queued;	/* the other */
	atomic_t started;
	bool release;
};

static void pair_fn(struct si_timer *t)
{
	struct pair_timer *pt = si_timer_container_of(pt, t, timer);
	struct queued_pair *qp = pt->pair;

	if (kthread_should_park())
		atomic_inc(&pt->runs_parking);
	atomic_inc(&pt->runs);
	if (atomic_inc_return(&qp->started) == 1) {
		WRITE_ONCE(qp->busy, pt);
		si_spin_until(READ_ONCE(qp->release), 10000);
	}
}

/* Start @qp on @cpu: one callback running there, the other timer queued behind it. */
static bool queued_pair_start(struct queued_pair *qp, int cpu)
{
	unsigned long expires = jiffies + 2;
	struct pair_timer *busy;
	int i;

	memset(qp, 0, sizeof(*qp));
	for (i = 0; i < 2; i++) {
		qp->t[i].pair = qp;
		si_test_timer_setup(&qp->t[i].timer, pair_fn, SI_TIMER_PINNED);
	}
	for (i = 0; i < 2; i++) {
		qp->t[i].timer.expires = expires;
		si_add_timer_on(&qp->t[i].timer, cpu);
	}
	if (!SI_CHECK(si_wait_until(READ_ONCE(qp->busy), 5000),
		      "no callback started on CPU %d", cpu))
		return false;
	busy = READ_ONCE(qp->busy);
	qp->queued = &qp->t[busy == &qp->t[0]];
	return SI_CHECK(si_wait_until(queued(&qp->queued->timer), 5000),
			"expiry not queued behind the running callback (in the wheel %d, runs %d)",
			si_in_wheel(&qp->queued->timer), atomic_read(&qp->queued->runs));
}

static void queued_pair_stop(struct queued_pair *qp)
{
	int i;

	WRITE_ONCE(qp->release, true);
	for (i = 0; i < 2; i++)
		si_timer_shutdown_sync(&qp->t[i].timer);
}

/* ---------------------------------------------------------------------- */
/*
 * 1. A synchronous delete while the callback re-arms itself. The delete is
 * held inside its locked step, where a broken one has deactivated the
 * timer but not yet looked at the running callback, while the callback
 * re-arms the timer and returns. In odd rounds the callback has re-armed
 * itself once already when the delete starts, so that the hold is in the
 * deactivation of the pending timer (si_timer_cancel), before the look; in
 * even rounds the timer is idle and the hold is at the look
 * (si_timer_cancel_sync), the step that fires in every round of the
 * delete. The re-arm needs the lock the delete holds: it must wait, then
 * land, and the callback return, before the delete goes on (the hold's
 * spill-over, for SETTLE_NS). On return the timer must be idle and never
 * run again.
 */

struct rearmer {
	struct si_timer timer;
	atomic_t runs;
	atomic_t in_callback;
	bool prearm;	/* re-arm first thing: the delete finds it pending */
	bool rearm;
};

static void rearmer_fn(struct si_timer *t)
{
	struct rearmer *r = si_timer_container_of(r, t, timer);
	struct si_hold *h = &hold_cancel_sync;

	atomic_inc(&r->runs);
	if (READ_ONCE(r->prearm)) {
		WRITE_ONCE(r->prearm, false);
		si_mod_timer(t, jiffies + 10 * HZ);
	}
	atomic_set(&r->in_callback, 1);
	if (READ_ONCE(r->rearm)) {
		/* Wait until the canceller is held inside its delete. */
		si_spin_until(atomic_read(&h->holding), SPIN_CAP_MS);
		atomic_set(&h->partner_started, 1);
		WRITE_ONCE(r->rearm, false);
		/*
		 * Due well after the canceller goes on, so that a broken
		 * delete returns with the expiry still pending rather than
		 * already run.
		 */
		si_mod_timer(t, jiffies + msecs_to_jiffies(REARM_MS));
		atomic_set(&h->partner_done, 1);
	}
	atomic_set(&r->in_callback, 0);
}

static void delete_sync_vs_rearm(unsigned int flags, bool shutdown,
				 const char *how)
{
	int round, reached = 0, bad = 0, ret, n, in_cancel = 0;
	struct si_hold *h = &hold_cancel_sync;
	struct rearmer r;

	for (round = 0; round < ROUNDS && bad < 3; round++) {
		bool prearm = round & 1;

		memset(&r, 0, sizeof(r));
		si_test_timer_setup(&r.timer, rearmer_fn, flags | SI_TIMER_PINNED);
		r.prearm = prearm;
		r.rearm = true;
		r.timer.expires = jiffies + 1;
		si_add_timer_on(&r.timer, other_cpu);
		if (!si_spin_until(atomic_read(&r.in_callback), SPIN_CAP_MS)) {
			si_fail("%s round %d: callback did not start", how, round);
			si_timer_shutdown_sync(&r.timer);
			break;
		}
		h->settle_ns = SETTLE_NS;
		si_hold_arm(h, current, 0, &r.timer);
		ret = shutdown ? si_timer_shutdown_sync(&r.timer) :
				 si_timer_delete_sync(&r.timer);
		si_hold_disarm(h);
		h->settle_ns = 0;
		/* Held in the step this round is for. */
		reached += h->reached &&
			   h->held_at == (prearm ? SI_TP_CANCEL : SI_TP_CANCEL_SYNC);
		in_cancel += h->reached && h->held_at == SI_TP_CANCEL;
		n = atomic_read(&r.runs);
		if (ret < 0 || ret > 1 || si_timer_pending(&r.timer) ||
		    atomic_read(&r.in_callback) || breached(h, how, round)) {
			si_diag("%s round %d: returned %d, pending %d, callback running %d",
				how, round, ret, si_timer_pending(&r.timer),
				atomic_read(&r.in_callback));
			bad++;
		}
		msleep(REARM_MS + 30);
		if (atomic_read(&r.runs) != n) {
			si_diag("%s round %d: %d runs after the delete returned",
				how, round, atomic_read(&r.runs) - n);
			bad++;
		}
		si_timer_shutdown_sync(&r.timer);
	}
	si_diag("%s: held in the deactivation of the pending timer %d times", how, in_cancel);
	race_verdict(how, round, "re-armed inside the delete", reached,
		     "left the timer armed or running", bad);
}

SI_CHECKED(t_delete_sync_vs_self_rearm)
{
	if (!need_other_cpu())
		return;
	delete_sync_vs_rearm(0, false, "compatible/delete_sync");
	delete_sync_vs_rearm(SI_TIMER_SOFTINTERRUPTIBLE, false, "soft/delete_sync");
	delete_sync_vs_rearm(SI_TIMER_SOFTINTERRUPTIBLE, true, "soft/shutdown_sync");
}

/* ---------------------------------------------------------------------- */
/*
 * 2. A callback that frees its timer. Instead of kfree() it poisons the
 * memory and leaves it allocated, so that a later write by si_timer shows;
 * a marker callback queued behind it on the same executor proves the
 * executor is done with it before the poison is checked. Half the rounds
 * really kfree() it, for KASAN kernels.
 */
#define POISON	0x6b

struct freeing {
	struct si_timer timer;
	bool really_free;
	atomic_t *ran;
};

static void freeing_fn(struct si_timer *t)
{
	struct freeing *f = si_timer_container_of(f, t, timer);
	atomic_t *ran = f->ran;

	if (f->really_free)
		kfree(f);
	else
		memset(f, POISON, sizeof(*f));
	atomic_inc(ran);
}

static int poisoned_bytes_changed(const void *p, size_t len)
{
	const u8 *b = p;
	size_t i;
	int changed = 0;

	for (i = 0; i < len; i++)
		changed += b[i] != POISON;
	return changed;
}

SI_CHECKED(t_callback_frees_its_timer)
{
	int round, changed = 0, checked = 0;
	atomic_t ran = ATOMIC_INIT(0);
	struct victim marker;

	if (!need_other_cpu())
		return;
	for (round = 0; round < 2 * ROUNDS; round++) {
		unsigned int flags = (round & 2 ? SI_TIMER_SOFTINTERRUPTIBLE : 0) |
				     SI_TIMER_PINNED;
		struct freeing *f = kzalloc(sizeof(*f), GFP_KERNEL);
		bool really_free = round & 1;
		int c;

		if (!SI_CHECK(f, "out of memory"))
			break;
		f->really_free = really_free;
		f->ran = &ran;
		si_test_timer_setup(&f->timer, freeing_fn, flags);
		memset(&marker, 0, sizeof(marker));
		si_test_timer_setup(&marker.timer, victim_fn, flags);
		f->timer.expires = jiffies + 1;
		si_add_timer_on(&f->timer, other_cpu);
		if (!SI_CHECK(si_wait_until(atomic_read(&ran) == round + 1, 5000),
			      "round %d: the freeing callback did not run", round)) {
			si_timer_shutdown_sync(&marker.timer);
			break;
		}
		/*
		 * Armed only now: were both due in one wake-up, the marker
		 * could be queued first (its bucket wrapped round to 0).
		 */
		marker.timer.expires = jiffies;
		si_add_timer_on(&marker.timer, other_cpu);
		if (!SI_CHECK(si_wait_until(atomic_read(&marker.runs), 5000),
			      "round %d: the marker did not run", round)) {
			si_timer_shutdown_sync(&marker.timer);
			break;
		}
		si_timer_shutdown_sync(&marker.timer);
		if (really_free)
			continue;
		c = poisoned_bytes_changed(f, sizeof(*f));
		if (c)
			si_diag("round %d: %d bytes of the freed timer written after its callback",
				round, c);
		changed += !!c;
		checked++;
		kfree(f);
	}
	si_diag("%d timers freed by their callback, %d checked for later writes",
		round, checked);
	SI_CHECK(!changed, "%d freed timers were written to after their callback", changed);
	SI_CHECK(checked >= ROUNDS / 2, "only %d checked", checked);
}

/* ---------------------------------------------------------------------- */
/*
 * 3. A synchronous delete with bottom halves disabled. On PREEMPT_RT a
 * SCHED_FIFO thread on the callback's CPU, inside local_bh_disable(),
 * holds that CPU's BH lock: waiting for a soft-interruptible callback that
 * then enters a BH section would deadlock, so it must be refused
 * (-EDEADLK) and the callback must go on. From another CPU the same wait
 * is safe and must be done.
 */
static DEFINE_SPINLOCK(bh_lock);

struct bh_race {
	struct si_timer timer;
	atomic_t started, finished, canceller_done;
	bool bh_section_done;
	int ret;
	int canceller_cpu;
	bool canceller_bh, callback_was_running, callback_done_at_return;
};

static void bh_race_fn(struct si_timer *t)
{
	struct bh_race *b = si_timer_container_of(b, t, timer);

	atomic_set(&b->started, 1);
	si_spin_until(atomic_read(&b->canceller_done), SPIN_CAP_MS);
	/* still running when a canceller on another CPU looks */
	si_test_busy_us(20000);
	/*
	 * Any BH section: needs this CPU's BH lock on RT. Hidden from
	 * lockdep, which rightly reports a callback that enters one and a
	 * cancel under BH from another CPU (that CPU's BH holder may cancel
	 * one of ours in turn: si_lockdep_test's report=bh) and then stops
	 * checking: this test is about the refusal and the wait.
	 */
	lockdep_off();
	spin_lock_bh(&bh_lock);
	b->bh_section_done = true;
	spin_unlock_bh(&bh_lock);
	lockdep_on();
	atomic_set(&b->finished, 1);
}

static void bh_canceller(void *arg)
{
	struct bh_race *b = arg;

	local_bh_disable();
	b->canceller_cpu = smp_processor_id();
	b->canceller_bh = softirq_count() != 0;
	b->callback_was_running = atomic_read(&b->started) && !atomic_read(&b->finished);
	/* Cross-CPU: let the callback go, so that it runs into its BH section. */
	if (b->canceller_cpu != other_cpu)
		atomic_set(&b->canceller_done, 1);
	b->ret = si_timer_delete_sync(&b->timer);
	b->callback_done_at_return = atomic_read(&b->finished);
	local_bh_enable();
	atomic_set(&b->canceller_done, 1);
}

/* Start round @round's callback on the other CPU; false (and cleaned up) if it did not. */
static bool bh_race_start(struct bh_race *b, int round)
{
	memset(b, 0, sizeof(*b));
	si_test_timer_setup(&b->timer, bh_race_fn,
			    SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_PINNED);
	b->timer.expires = jiffies + 1;
	si_add_timer_on(&b->timer, other_cpu);
	if (SI_CHECK(si_spin_until(atomic_read(&b->started), SPIN_CAP_MS),
		     "round %d: callback did not start", round))
		return true;
	si_timer_shutdown_sync(&b->timer);
	return false;
}

SI_CHECKED(t_delete_sync_bh_disabled_same_cpu)
{
	struct si_ktap_cpu_work w;
	int round, reached = 0;
	struct bh_race b;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		si_skip("non-RT: nothing runs on a CPU while its soft-interruptible callback does");
		return;
	}
	if (!need_other_cpu())
		return;
	if (!si_vecmask_available()) {
		si_skip("vector mask inactive: callbacks run in compatible mode");
		return;
	}
	/* Without the BH lock (6.18+) the callback's BH section never waits: no refusal. */
	if (SI_RT_BH_LOCK)
		si_expect_warn("with bottom halves disabled on the CPU where its soft-interruptible callback runs");
	for (round = 0; round < 5; round++) {
		if (!bh_race_start(&b, round))
			break;
		/* FIFO 50 on the callback's CPU: preempts the executor (FIFO 1). */
		if (si_ktap_cpu_work_create(&w, other_cpu, bh_canceller, &b, false)) {
			si_fail("cannot create the canceller");
			si_timer_shutdown_sync(&b.timer);
			break;
		}
		sched_set_fifo(w.task);
		wake_up_process(w.task);
		SI_CHECK(!si_ktap_cpu_work_finish(&w, 10000), "round %d: canceller hung", round);
		SI_CHECK(si_wait_until(atomic_read(&b.finished), 5000),
			 "round %d: callback did not finish", round);
		reached += b.callback_was_running && b.canceller_bh &&
			   b.canceller_cpu == other_cpu;
		if (SI_RT_BH_LOCK) {
			SI_CHECK(b.ret == -EDEADLK, "round %d: returned %d", round, b.ret);
		} else {
			SI_CHECK(b.ret == 0, "round %d: returned %d", round, b.ret);
			SI_CHECK(b.callback_done_at_return,
				 "round %d: returned before the callback finished", round);
		}
		SI_CHECK(b.bh_section_done, "round %d", round);
		SI_CHECK(!si_timer_pending(&b.timer), "round %d: still pending", round);
		si_timer_shutdown_sync(&b.timer);
	}
	si_diag("canceller with BH disabled on the running callback's CPU: %d of %d rounds",
		reached, round);
	SI_CHECK(reached == round, "window reached %d of %d rounds", reached, round);
}

SI_CHECKED(t_delete_sync_bh_disabled_other_cpu)
{
	int round, reached = 0;
	struct bh_race b;

	if (!need_other_cpu())
		return;
	for (round = 0; round < 5; round++) {
		if (!bh_race_start(&b, round))
			break;
		bh_canceller(&b);
		reached += b.callback_was_running && b.canceller_bh;
		SI_CHECK(b.ret == 0, "round %d: returned %d", round, b.ret);
		SI_CHECK(b.callback_done_at_return && b.bh_section_done,
			 "round %d: returned before the callback finished", round);
		si_timer_shutdown_sync(&b.timer);
	}
	si_diag("canceller with BH disabled on another CPU, callback running: %d of %d rounds",
		reached, round);
	SI_CHECK(reached == round, "window reached %d of %d rounds", reached, round);
}

/* ---------------------------------------------------------------------- */
/*
 * 4. Compound calls against each other and against expiry.
 */

/*
 * A partner that never saw the victim inside its step (its CPU did not run
 * it within the victim's HOLD_CAP_NS) made no call: that round missed its
 * window, which race_verdict() counts, and did nothing wrong.
 */
#define PARTNER_MISSED	INT_MIN

struct partner_call {
	struct si_hold *hold;
	struct si_timer *timer;
	int (*call)(struct si_timer *timer);
	int ret;
};

/* On the other CPU: once the victim is held, make the call. */
static void partner_fn(void *arg)
{
	struct partner_call *p = arg;

	if (!si_spin_until(atomic_read(&p->hold->holding), SPIN_CAP_MS)) {
		p->ret = PARTNER_MISSED;
		return;
	}
	atomic_set(&p->hold->partner_started, 1);
	p->ret = p->call(p->timer);
	atomic_set(&p->hold->partner_done, 1);
}

/*
 * si_mod_timer_pending() (or si_mod_timer()) on a queued timer, held
 * inside its arming step (si_timer_start: taken off the queue and hooked
 * into a wheel, under the lock of its home, here this CPU's executor: a
 * timer whose callback has not started moves to the CPU that re-arms it),
 * while a third CPU deletes it. The delete waits for the re-arm and finds
 * the timer pending (1); the queued expiry never runs.
 */
static void rearm_vs_delete(bool pending_only, const char *how)
{
	int round, reached = 0, bad = 0, mod_ret;
	struct si_ktap_cpu_work w;
	struct partner_call p;
	struct queued_pair qp;
	struct si_timer *v;
	bool deleted_wrong;

	for (round = 0; round < ROUNDS && bad < 3; round++) {
		if (!queued_pair_start(&qp, other_cpu)) {
			queued_pair_stop(&qp);
			return;
		}
		v = &qp.queued->timer;
		/* Not on the busy CPU, nor on ours while we are held. */
		p = (struct partner_call){ &hold_start, v, si_timer_delete };
		if (si_ktap_cpu_work_create(&w, third_cpu, partner_fn, &p, false)) {
			si_fail("cannot create the partner");
			queued_pair_stop(&qp);
			return;
		}
		si_hold_arm(&hold_start, current, 0, v);
		wake_up_process(w.task);
		mod_ret = pending_only ? si_mod_timer_pending(v, jiffies + 10 * HZ) :
					 si_mod_timer(v, jiffies + 10 * HZ);
		si_ktap_cpu_work_finish(&w, 0);
		reached += hold_start.reached;
		if (p.ret == PARTNER_MISSED)
			si_diag("%s round %d: the partner never ran while the re-arm was held",
				how, round);
		deleted_wrong = p.ret != PARTNER_MISSED &&
				(p.ret != 1 || (si_timer_pending(v) &&
						(pending_only || hold_start.reached)));
		if (mod_ret != 1 || breached(&hold_start, how, round) || deleted_wrong) {
			si_diag("%s round %d: delete returned %d, re-arm %d, then pending %d",
				how, round, p.ret, mod_ret, si_timer_pending(v));
			bad++;
		}
		/*
		 * Released first: on PREEMPT_RT the busy callback is an RCU
		 * reader, which the disarm's synchronize_rcu() would wait out.
		 */
		queued_pair_stop(&qp);
		si_hold_disarm(&hold_start);
		SI_CHECK(atomic_read(&qp.queued->runs) == 0,
			 "%s round %d: the cancelled expiry ran", how, round);
	}
	race_verdict(how, round, "delete made while the re-arm was held in its arming step",
		     reached, "not atomic", bad);
}

SI_CHECKED(t_rearm_queued_vs_delete)
{
	if (!need_third_cpu())
		return;
	rearm_vs_delete(true, "si_mod_timer_pending");
	rearm_vs_delete(false, "si_mod_timer");
}

/*
 * A re-arm that moves the timer to another executor, against a delete on
 * a third CPU. A move is two critical sections: off the old home under its
 * lock, into the new home's wheel under the new home's lock, the timer
 * SI_STATE_MIGRATING in between, which every caller must wait out (as for
 * TIMER_MIGRATING). We re-arm a timer armed on the other CPU, which moves
 * it to this CPU's executor; a decoy held inside its own arming step on
 * that executor (from the third CPU) keeps us at the door of the new home
 * with the timer off both homes, while a partner on the other CPU deletes
 * it. The delete must wait for the move and find the timer pending (1),
 * and the timer be idle after both.
 */
static void door_decoy_fn(void *arg)
{
	struct si_timer *decoy = arg;

	decoy->expires = jiffies + 10 * HZ;
	si_add_timer_on(decoy, home_cpu);
}

/* Off its old home and not yet in the new one (by the state it shows). */
static bool moving(const struct si_timer *t)
{
	u32 state = READ_ONCE(t->state);

	return (state & SI_STATE_MIGRATING) || !(state & SI_STATE_PENDING);
}

/* On the other CPU: once the victim's timer is on its way, the call. */
static void door_partner_fn(void *arg)
{
	struct partner_call *p = arg;

	if (!si_spin_until(moving(p->timer), SPIN_CAP_MS)) {
		p->ret = PARTNER_MISSED;
		return;
	}
	atomic_set(&p->hold->partner_started, 1);
	p->ret = p->call(p->timer);
	atomic_set(&p->hold->partner_done, 1);
}

static void moving_rearm_vs_delete(int (*call)(struct si_timer *), const char *how)
{
	int round, reached = 0, bad = 0, mod_ret;
	struct si_ktap_cpu_work decoy_w, w;
	struct victim v, decoy;
	struct partner_call p;
	bool held;

	for (round = 0; round < ROUNDS && bad < 3; round++) {
		memset(&v, 0, sizeof(v));
		memset(&decoy, 0, sizeof(decoy));
		si_test_timer_setup(&v.timer, victim_fn, 0);
		si_test_timer_setup(&decoy.timer, victim_fn, 0);
		v.timer.expires = jiffies + 10 * HZ;
		si_add_timer_on(&v.timer, other_cpu);
		p = (struct partner_call){ &hold_start, &v.timer, call };
		if (si_ktap_cpu_work_create(&decoy_w, third_cpu, door_decoy_fn, &decoy.timer,
					    false)) {
			si_fail("cannot create the decoy");
			si_timer_shutdown_sync(&v.timer);
			return;
		}
		if (si_ktap_cpu_work_create(&w, other_cpu, door_partner_fn, &p, false)) {
			si_fail("cannot create the partner");
			wake_up_process(decoy_w.task);
			si_ktap_cpu_work_finish(&decoy_w, 0);
			si_timer_shutdown_sync(&v.timer);
			si_timer_shutdown_sync(&decoy.timer);
			return;
		}
		si_hold_arm(&hold_start, decoy_w.task, 0, &decoy.timer);
		wake_up_process(decoy_w.task);
		held = si_spin_until(atomic_read(&hold_start.holding), SPIN_CAP_MS);
		wake_up_process(w.task);
		/* Not the expiry it has: mod_timer()'s shortcut would keep it. */
		mod_ret = si_mod_timer(&v.timer, jiffies + 20 * HZ);
		si_ktap_cpu_work_finish(&w, 0);
		si_ktap_cpu_work_finish(&decoy_w, 0);
		si_hold_disarm(&hold_start);
		reached += hold_start.reached;
		if (p.ret == PARTNER_MISSED)
			si_diag("%s round %d: the partner never saw the timer on its way",
				how, round);
		if (mod_ret != 1 || breached(&hold_start, how, round) ||
		    (held && p.ret != PARTNER_MISSED &&
		     (p.ret != 1 || si_timer_pending(&v.timer)))) {
			si_diag("%s round %d: re-arm returned %d, delete %d, then pending %d",
				how, round, mod_ret, p.ret, si_timer_pending(&v.timer));
			bad++;
		}
		si_timer_shutdown_sync(&v.timer);
		si_timer_shutdown_sync(&decoy.timer);
	}
	race_verdict(how, round, "delete made while the re-arm waited at its new home",
		     reached, "not atomic", bad);
}

SI_CHECKED(t_moving_rearm_vs_delete)
{
	if (!need_third_cpu())
		return;
	moving_rearm_vs_delete(si_timer_delete_sync, "si_timer_delete_sync");
	moving_rearm_vs_delete(si_try_to_del_timer_sync, "si_try_to_del_timer_sync");
	moving_rearm_vs_delete(si_timer_delete, "si_timer_delete");
}

/*
 * A call made while the timer expires. Expiry is one step under the lock
 * of the timer's executor: the due timer collected from its wheel onto its
 * queue (timer.c, invariant 2). It is held inside that step on the other
 * CPU (si_timer_queue), and held on there after the lock is dropped until
 * the call returned, so that the call, which must wait for the step, finds
 * the timer as expiry left it: queued, its callback not started, pending.
 * The old core had a window here that no longer exists: the wheel's expiry
 * function handing the timer over to the executor, the callback counted
 * as running meanwhile. So si_timer_delete() must find the timer pending,
 * and the common "delete; set expires; add" must then arm it without a
 * warning; a synchronous delete must return 1 and the old expiry never
 * run; si_try_to_del_timer_sync() must deactivate it as well (1, never
 * run: it returned -1 during the handover); si_mod_timer() must find it
 * pending and the callback run once, at the new expiry.
 */
enum expiry_call { EX_DELETE_ADD, EX_DELETE_SYNC, EX_TRY_TO_DEL, EX_MOD };

static int ex_delete(struct si_timer *t)
{
	return si_timer_delete(t);
}

static int ex_try_to_del(struct si_timer *t)
{
	return si_try_to_del_timer_sync(t);
}

static int ex_mod(struct si_timer *t)
{
	return si_mod_timer(t, jiffies + HZ / 5);
}

/*
 * Armed from the other CPU, so that its expiry runs there, by its executor
 * or by the wake-up it set (an hrtimer goes to the CPU that starts it),
 * never here where the call is made.
 */
static void ex_arm(void *arg)
{
	struct si_timer *t = arg;

	t->expires = jiffies + 1;
	si_add_timer_on(t, other_cpu);
}

static void at_expiry(enum expiry_call call, const char *how)
{
	static int (* const calls[])(struct si_timer *) = {
		[EX_DELETE_ADD] = ex_delete, [EX_DELETE_SYNC] = si_timer_delete_sync,
		[EX_TRY_TO_DEL] = ex_try_to_del, [EX_MOD] = ex_mod,
	};
	static const int want_ret[] = {
		[EX_DELETE_ADD] = 1, [EX_DELETE_SYNC] = 1, [EX_TRY_TO_DEL] = 1, [EX_MOD] = 1,
	};
	static const int want_runs[] = {
		[EX_DELETE_ADD] = 1, [EX_DELETE_SYNC] = 0, [EX_TRY_TO_DEL] = 0, [EX_MOD] = 1,
	};
	int round, reached = 0, bad = 0, ret;
	struct si_ktap_cpu_work w;
	struct victim v;

	for (round = 0; round < ROUNDS / 2 && bad < 3; round++) {
		unsigned long due;
		bool inside;

		memset(&v, 0, sizeof(v));
		si_test_timer_setup(&v.timer, victim_fn, SI_TIMER_PINNED);
		si_hold_arm(&hold_queue, NULL, other_cpu, &v.timer);
		if (si_ktap_cpu_work_create(&w, other_cpu, ex_arm, &v.timer, false)) {
			si_fail("cannot create the arming thread");
			si_hold_disarm(&hold_queue);
			break;
		}
		wake_up_process(w.task);
		if (!si_spin_until(atomic_read(&hold_queue.holding), SPIN_CAP_MS)) {
			si_ktap_cpu_work_finish(&w, 0);
			si_hold_disarm(&hold_queue);
			si_timer_shutdown_sync(&v.timer);
			continue;
		}
		atomic_set(&hold_queue.partner_started, 1);
		ret = calls[call](&v.timer);
		if (call == EX_DELETE_ADD) {
			v.timer.expires = jiffies + HZ / 5;
			si_add_timer(&v.timer);
		}
		due = v.timer.expires;
		atomic_set(&hold_queue.partner_done, 1);
		si_spin_until(!atomic_read(&hold_queue.holding), SPIN_CAP_MS);
		si_ktap_cpu_work_finish(&w, 0);
		si_hold_disarm(&hold_queue);
		reached += hold_queue.reached;
		inside = breached(&hold_queue, how, round);
		si_wait_until(atomic_read(&v.runs) >= want_runs[call], 2000);
		/* an extra run would come at the re-armed expiry, 200 ms on */
		msleep(250);
		if (ret != want_ret[call] || atomic_read(&v.runs) != want_runs[call] ||
		    si_timer_pending(&v.timer) || inside ||
		    (atomic_read(&v.runs) && time_before(v.ran_at, due))) {
			si_diag("%s round %d: ret %d, %d runs (%+ld jiffies from due), pending %d",
				how, round, ret, atomic_read(&v.runs),
				(long)(v.ran_at - due), si_timer_pending(&v.timer));
			bad++;
		}
		si_timer_shutdown_sync(&v.timer);
	}
	race_verdict(how, round, "made during expiry", reached, "went wrong", bad);
}

SI_CHECKED(t_calls_at_expiry)
{
	if (!need_other_cpu())
		return;
	at_expiry(EX_DELETE_ADD, "delete, then add");
	at_expiry(EX_DELETE_SYNC, "delete_sync");
	at_expiry(EX_TRY_TO_DEL, "try_to_del_timer_sync");
	at_expiry(EX_MOD, "mod_timer");
}

/* ---------------------------------------------------------------------- */
/*
 * 5. A softirq that runs inside the running soft-interruptible callback,
 * on its executor (local_bh_enable() in the callback runs a tasklet there;
 * on non-RT so does irq exit), deletes that timer synchronously: it would
 * wait for itself. -EDEADLK, not the "own callback" -EINVAL.
 */
struct softirq_cancel {
	struct si_timer timer;
	struct tasklet_struct tasklet;
	atomic_t started;
	bool in_callback;
	bool tasklet_inside;	/* ran on the executor, during the callback */
	int ret;
};

static struct softirq_cancel softirq_cancel;

static void softirq_cancel_tasklet(struct tasklet_struct *tl)
{
	struct softirq_cancel *s = from_tasklet(s, tl, tasklet);

	s->tasklet_inside = READ_ONCE(s->in_callback) && si_test_softirq_on_executor();
	/* elsewhere (RT: ksoftirqd held the BH lock) it is another refusal */
	if (s->tasklet_inside)
		s->ret = si_timer_delete_sync(&s->timer);
}

static void softirq_cancel_fn(struct si_timer *t)
{
	struct softirq_cancel *s = si_timer_container_of(s, t, timer);

	WRITE_ONCE(s->in_callback, true);
	atomic_set(&s->started, 1);
	tasklet_schedule(&s->tasklet);
	local_bh_disable();
	local_bh_enable();	/* runs the tasklet here, on both flavours */
	WRITE_ONCE(s->in_callback, false);
}

#define SOFTIRQ_CANCEL_ATTEMPTS	5

SI_CHECKED(t_delete_sync_from_softirq_in_callback)
{
	struct softirq_cancel *s = &softirq_cancel;
	int attempt;

	if (!need_other_cpu())
		return;
	if (!si_vecmask_available()) {
		si_skip("vector mask inactive: callbacks run in compatible mode");
		return;
	}
	memset(s, 0, sizeof(*s));
	tasklet_setup(&s->tasklet, softirq_cancel_tasklet);
	si_test_timer_setup(&s->timer, softirq_cancel_fn,
			    SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_PINNED);
	si_expect_warn("from a softirq that interrupted its callback");
	/*
	 * On RT the callback does not wait for the BH lock to start: when
	 * ksoftirqd held it (a debug kernel runs every vector there), the
	 * callback's local_bh_disable() waits for ksoftirqd, which then runs
	 * the tasklet itself. Try again.
	 */
	for (attempt = 1; attempt <= SOFTIRQ_CANCEL_ATTEMPTS && !s->tasklet_inside; attempt++) {
		atomic_set(&s->started, 0);
		s->timer.expires = jiffies + 1;
		si_add_timer_on(&s->timer, other_cpu);
		if (!SI_CHECK(si_wait_until(atomic_read(&s->started) &&
					    !READ_ONCE(s->in_callback), 5000),
			      "callback did not run"))
			break;
		tasklet_kill(&s->tasklet);
	}
	si_diag("tasklet ran on the executor inside the callback: %d (attempts %d), returned %d",
		s->tasklet_inside, attempt - 1, s->ret);
	SI_CHECK(s->tasklet_inside, "window not reached");
	SI_CHECK(s->ret == -EDEADLK, "returned %d", s->ret);
	si_timer_shutdown_sync(&s->timer);
}

/* ---------------------------------------------------------------------- */
/*
 * 5c. A cycle of waits across executors (si_cycle.h), in both orders, and
 * the legal wait of a tasklet inside a callback for another's callback.
 */
static struct cycle cycle;

static void cycle_round(enum cycle_order order, enum cycle_via via, const char *how)
{
	const char *holder = via == CYCLE_VIA_TASKLET ? "tasklet" : "BH lock holder";
	struct cycle *c = &cycle;

	SI_CHECK(cycle_run(c, order, via, other_cpu, third_cpu),
		 "%s: callbacks did not return (T1 %d, T2 %d)", how,
		 atomic_read(&c->t1_done), atomic_read(&c->t2_done));
	si_diag("%s: %s held T1's callback up %d, window %d, its cancel %d, T2's %d",
		how, holder, c->holder_inside, c->window, c->holder_ret, c->t2_ret);
	SI_CHECK(c->holder_inside, "%s: the %s did not hold T1's callback up", how, holder);
	SI_CHECK(c->window, "%s: window not reached (the first wait was not published)", how);
	SI_CHECK(c->holder_ret == cycle_expected_holder(order),
		 "%s: the %s's cancel returned %d, want %d", how, holder, c->holder_ret,
		 cycle_expected_holder(order));
	SI_CHECK(c->t2_ret == cycle_expected_t2(order), "%s: T2's cancel returned %d, want %d",
		 how, c->t2_ret, cycle_expected_t2(order));
}

static bool cycle_testable(void)
{
	if (!need_third_cpu())
		return false;
	if (!si_vecmask_available()) {
		si_skip("vector mask inactive: callbacks run in compatible mode");
		return false;
	}
	if (IS_ENABLED(CONFIG_PROVE_LOCKING)) {
		/* one report per boot: si_lockdep_test's report=cycle boot */
		si_skip("lockdep reports the cycle itself: si_lockdep_test report=cycle");
		return false;
	}
	return true;
}

SI_CHECKED(t_cancel_cycle_across_executors)
{
	if (!cycle_testable())
		return;
	si_expect_warn("would wait for a callback that waits for");
	cycle_round(CYCLE_CALLBACK_FIRST, CYCLE_VIA_TASKLET, "callback waits first");
	cycle_round(CYCLE_HOLDER_FIRST, CYCLE_VIA_TASKLET, "tasklet waits first");
	cycle_round(CYCLE_NONE, CYCLE_VIA_TASKLET, "no cycle");
}

/*
 * The same cycle closed through the BH lock (RT with the BH lock): a FIFO
 * thread holding CPU A's BH lock holds up T1's soft-interruptible
 * callback, which enters a BH section. The WARN came in the test above.
 */
SI_CHECKED(t_cancel_cycle_through_bh_lock)
{
	if (!SI_RT_BH_LOCK) {
		si_skip("no BH lock (not PREEMPT_RT, or RT without it): a BH section never waits");
		return;
	}
	if (!cycle_testable())
		return;
	cycle_round(CYCLE_CALLBACK_FIRST, CYCLE_VIA_BH_LOCK, "callback waits first");
	cycle_round(CYCLE_HOLDER_FIRST, CYCLE_VIA_BH_LOCK, "BH lock holder waits first");
	cycle_round(CYCLE_NONE, CYCLE_VIA_BH_LOCK, "no cycle");
}

/*
 * 5b. The same softirq, run on the executor just after the callback
 * returned (non-RT: a tasklet at irq exit), before the executor took its
 * lock again: the callback is not running, so the synchronous delete must
 * not be refused (-EDEADLK, a WARN) but deactivate the timer (re-armed by
 * the callback: 1) and return. The window is reached on purpose: a probe
 * on si_timer_expire_exit, which fires in it, runs the tasklet there by
 * local_bh_enable(), as an irq exit would. Tracepoint probes run with
 * preemption disabled, and on PREEMPT_RT local_bh_enable() then leaves
 * the softirq to ksoftirqd, as RT's irq exit does: there no softirq runs
 * on the executor in that window, which these rounds then report.
 */
struct after_return {
	struct si_timer timer;
	struct tasklet_struct tasklet;
	bool returned;		/* the callback's last store */
	bool in_window;		/* the tasklet ran on the executor, after that */
	bool done;
	int ret;
};

static struct after_return after_return;

static void after_return_tasklet(struct tasklet_struct *tl)
{
	struct after_return *a = from_tasklet(a, tl, tasklet);

	a->in_window = READ_ONCE(a->returned) && si_test_softirq_on_executor();
	if (a->in_window)
		a->ret = si_timer_delete_sync(&a->timer);
	WRITE_ONCE(a->done, true);
}

static void after_return_fn(struct si_timer *t)
{
	struct after_return *a = si_timer_container_of(a, t, timer);

	/* pending again, so that the delete has something to deactivate */
	si_mod_timer(t, jiffies + 60 * HZ);
	WRITE_ONCE(a->returned, true);
}

static void after_return_exit(void *data, struct si_timer *timer, const void *fn, bool soft)
{
	struct after_return *a = data;

	if (timer != &a->timer || !READ_ONCE(a->returned))
		return;
	tasklet_schedule(&a->tasklet);
	local_bh_disable();
	local_bh_enable();
}

SI_CHECKED(t_delete_sync_from_softirq_after_callback)
{
	struct after_return *a = &after_return;
	int round, reached = 0, wrong = 0, ret;

	/*
	 * On RT the probe could not enter a BH section (a sleeping lock, with
	 * preemption disabled in a tracepoint), and a softirq raised there
	 * runs in ksoftirqd, never on the executor in that window.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		si_skip("window not reachable on PREEMPT_RT: its softirqs run in ksoftirqd");
		return;
	}
	if (!need_other_cpu())
		return;
	if (!si_vecmask_available()) {
		si_skip("vector mask inactive: callbacks run in compatible mode");
		return;
	}
	ret = register_trace_si_timer_expire_exit(after_return_exit, a);
	if (!SI_CHECK(!ret, "no probe on si_timer_expire_exit: %d", ret))
		return;
	for (round = 0; round < ROUNDS; round++) {
		memset(a, 0, sizeof(*a));
		tasklet_setup(&a->tasklet, after_return_tasklet);
		si_test_timer_setup(&a->timer, after_return_fn,
				    SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_PINNED);
		a->timer.expires = jiffies + 1;
		si_add_timer_on(&a->timer, other_cpu);
		if (!SI_CHECK(si_wait_until(READ_ONCE(a->done), 5000),
			      "round %d: callback or tasklet did not run", round)) {
			si_timer_shutdown_sync(&a->timer);
			tasklet_kill(&a->tasklet);
			break;
		}
		tasklet_kill(&a->tasklet);
		if (a->in_window) {
			reached++;
			if (a->ret != 1 || si_timer_pending(&a->timer)) {
				wrong++;
				si_diag("round %d: returned %d, pending %d", round, a->ret,
					si_timer_pending(&a->timer));
			}
		}
		si_timer_shutdown_sync(&a->timer);
	}
	unregister_trace_si_timer_expire_exit(after_return_exit, a);
	tracepoint_synchronize_unregister();
	si_diag("tasklet after the callback: window reached %d of %d rounds, %d wrong",
		reached, round, wrong);
	SI_CHECK(!wrong, "%d of %d rounds refused or left the timer pending", wrong, reached);
	SI_CHECK(reached, "window reached 0 of %d rounds", round);
}

/* ---------------------------------------------------------------------- */
/*
 * 6. An executor parked with a callback queued and no other executor
 * running to take it (forced by parking the others first): the callback
 * must run before the executor parks, not wait for its CPU to come back.
 * The window: the executor's park handler entered with the callback
 * queued, seen by a kprobe on it.
 */
static struct queued_pair *park_watched;
static atomic_t park_saw_queued;

static int park_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct queued_pair *qp = READ_ONCE(park_watched);

	if (qp && queued(&qp->queued->timer))
		atomic_inc(&park_saw_queued);
	return 0;
}

static struct kprobe park_probe = {
	.symbol_name = "si_executor_park",
	.pre_handler = park_entry,
};

static atomic_t park_requested;

static void park_other(void *arg)
{
	atomic_set(&park_requested, 1);
	kthread_park(arg);
}

SI_CHECKED(t_park_without_heir)
{
	struct task_struct **task;
	struct si_ktap_cpu_work w;
	struct queued_pair qp;
	int cpu, ret;

	if (!need_other_cpu())
		return;
	ret = register_kprobe(&park_probe);
	if (!SI_CHECK(!ret, "no kprobe on si_executor_park: %d", ret))
		return;
	task = kcalloc(nr_cpu_ids, sizeof(*task), GFP_KERNEL);
	if (!SI_CHECK(task, "out of memory"))
		goto out_probe;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		task[cpu] = si_test_kthread_of("si_timer", cpu);
		if (!SI_CHECK(task[cpu], "no si_timer/%d thread", cpu))
			goto out;
	}
	for_each_online_cpu(cpu)
		if (cpu != other_cpu)
			kthread_park(task[cpu]);
	atomic_set(&park_saw_queued, 0);
	atomic_set(&park_requested, 0);
	if (!queued_pair_start(&qp, other_cpu))
		goto out_stop;
	WRITE_ONCE(park_watched, &qp);
	if (si_ktap_cpu_work_create(&w, home_cpu, park_other, task[other_cpu], false)) {
		si_fail("cannot create the parking thread");
		goto out_stop;
	}
	wake_up_process(w.task);
	si_spin_until(atomic_read(&park_requested), SPIN_CAP_MS);
	msleep(20);
	WRITE_ONCE(qp.release, true);
	si_ktap_cpu_work_finish(&w, 0);
	WRITE_ONCE(park_watched, NULL);
	si_diag("park handler saw the expiry queued: %d; it then ran %d time(s), %d while parking",
		atomic_read(&park_saw_queued), atomic_read(&qp.queued->runs),
		atomic_read(&qp.queued->runs_parking));
	SI_CHECK(atomic_read(&park_saw_queued), "window not reached: nothing queued at park");
	SI_CHECK(atomic_read(&qp.queued->runs) == 1, "the queued callback was stranded");
out_stop:
	WRITE_ONCE(park_watched, NULL);
	queued_pair_stop(&qp);
out:
	for_each_online_cpu(cpu) {
		if (!task[cpu])
			continue;
		kthread_unpark(task[cpu]);
		put_task_struct(task[cpu]);
	}
	cpus_read_unlock();
	kfree(task);
out_probe:
	unregister_kprobe(&park_probe);
}

/* ---------------------------------------------------------------------- */
/*
 * 7. A synchronous delete waits for its callback, not for the rest of the
 * executor's batch. Two timers expire in one jiffy on the other CPU, so
 * that its executor runs both callbacks in one batch under one cb_lock.
 * We cancel the first one while it runs; it returns soon after we wait on
 * it (a kprobe on si_executor_wait_callback() tells it), inside the
 * batch's time budget, so the executor goes on with the second in the
 * same batch. That one holds until we returned, or for 1 s: a delete that
 * waits for the batch returns only then. On PREEMPT_RT we (SCHED_OTHER)
 * are below the executor (FIFO 1), which an rt_mutex lets take cb_lock
 * straight back from us, unless it waits for us to take it (for up to
 * batch_us). batch_us is raised to 200 ms for the test: a host may
 * deschedule a vCPU for milliseconds (MTTCG beside another guest), and
 * the default 2 ms would end most batches after the first callback.
 * Window reached: we were waiting when the first callback returned, well
 * inside the budget, with the second queued behind it; required ROUNDS / 2
 * times.
 */
#define BATCH_BUDGET_US		"200000"
/* How long the first callback waits for us, and may take in all. */
#define BATCH_WAIT_MS		50
#define BATCH_FIRST_NS		(100 * NSEC_PER_MSEC)
/* For our wait to be counted after the probe on its entry fired. */
#define BATCH_SETTLE_US		1000
#define BATCH_HOLD_MS		1000
#define BATCH_ROUNDS_MAX	(4 * ROUNDS)

struct batch_pair;

struct batch_timer {
	struct si_timer timer;
	struct batch_pair *pair;
};

struct batch_pair {
	struct batch_timer t[2];
	struct task_struct *canceller;
	struct batch_timer *first;
	atomic_t started, finished, canceller_waiting, canceller_done;
	bool second_queued, first_short, second_saw_return;
	u64 t0, t_waiting, t_first_end, t_second_start, t_return;
};

static struct batch_pair *batch_watched;

static int batch_wait_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct batch_pair *bp = READ_ONCE(batch_watched);

	if (bp && current == bp->canceller) {
		bp->t_waiting = ktime_get_ns();
		atomic_set(&bp->canceller_waiting, 1);
	}
	return 0;
}

static struct kprobe batch_wait_probe = {
	.symbol_name = "si_executor_wait_callback",
	.pre_handler = batch_wait_entry,
};

static void batch_fn(struct si_timer *t)
{
	struct batch_timer *bt = si_timer_container_of(bt, t, timer);
	struct batch_pair *bp = bt->pair;
	struct batch_timer *other = &bp->t[bt == &bp->t[0]];
	u64 start = ktime_get_ns();

	if (atomic_inc_return(&bp->started) == 1) {
		bool waiting;

		WRITE_ONCE(bp->first, bt);
		waiting = si_spin_until(atomic_read(&bp->canceller_waiting), BATCH_WAIT_MS);
		si_test_busy_us(BATCH_SETTLE_US);
		bp->second_queued = queued(&other->timer);
		bp->t_first_end = ktime_get_ns();
		bp->first_short = waiting && bp->t_first_end - start < BATCH_FIRST_NS;
	} else {
		bp->t_second_start = start;
		bp->second_saw_return = si_spin_until(atomic_read(&bp->canceller_done),
						      BATCH_HOLD_MS);
	}
	atomic_inc(&bp->finished);
}

static long long us_since(u64 t0, u64 t)
{
	return t ? div_s64((s64)(t - t0), NSEC_PER_USEC) : -1;
}

static void cancel_in_batch(unsigned int flags, const char *how)
{
	int round, reached = 0, bad = 0, ret, i;
	int not_waiting = 0, too_long = 0, alone = 0;
	struct batch_pair *bp;
	unsigned long expires;

	bp = kzalloc(sizeof(*bp), GFP_KERNEL);
	if (!SI_CHECK(bp, "out of memory"))
		return;
	/* A round the host spoils is not counted: up to 4 x ROUNDS of them. */
	for (round = 0; round < BATCH_ROUNDS_MAX && reached < ROUNDS / 2 && !bad; round++) {
		memset(bp, 0, sizeof(*bp));
		bp->canceller = current;
		for (i = 0; i < 2; i++) {
			bp->t[i].pair = bp;
			si_test_timer_setup(&bp->t[i].timer, batch_fn, flags | SI_TIMER_PINNED);
		}
		WRITE_ONCE(batch_watched, bp);
		expires = jiffies + 2;
		for (i = 0; i < 2; i++) {
			bp->t[i].timer.expires = expires;
			si_add_timer_on(&bp->t[i].timer, other_cpu);
		}
		if (!SI_CHECK(si_spin_until(READ_ONCE(bp->first), SPIN_CAP_MS),
			      "%s round %d: no callback ran", how, round)) {
			bad++;
		} else {
			bp->t0 = ktime_get_ns();
			ret = si_timer_delete_sync(&bp->first->timer);
			bp->t_return = ktime_get_ns();
			atomic_set(&bp->canceller_done, 1);
			if (!SI_CHECK(ret == 0, "%s round %d: returned %d", how, round, ret))
				bad++;
		}
		if (!SI_CHECK(si_wait_until(atomic_read(&bp->finished) == 2, 5000),
			      "%s round %d: callbacks did not finish", how, round))
			bad++;
		WRITE_ONCE(batch_watched, NULL);
		for (i = 0; i < 2; i++)
			si_timer_shutdown_sync(&bp->t[i].timer);
		not_waiting += !bp->t_waiting;
		too_long += bp->t_waiting && !bp->first_short;
		alone += !bp->second_queued;
		if (bp->second_queued && bp->first_short) {
			reached++;
			if (!SI_CHECK(bp->second_saw_return,
				      "%s round %d: returned after the next callback (us from the delete: waiting %lld, first returned %lld, second started %lld, delete returned %lld)",
				      how, round, us_since(bp->t0, bp->t_waiting),
				      us_since(bp->t0, bp->t_first_end),
				      us_since(bp->t0, bp->t_second_start),
				      us_since(bp->t0, bp->t_return)))
				bad++;
		}
	}
	kfree(bp);
	si_diag("%s: rounds missed: we never waited %d, first too long %d, second not queued %d",
		how, not_waiting, too_long, alone);
	si_diag("%s: %d rounds, canceller waiting on a short first callback of a batch: %d",
		how, round, reached);
	SI_CHECK(!bad, "%s: %d rounds waited for the rest of the batch", how, bad);
	SI_CHECK(bad || reached >= ROUNDS / 2, "%s: window reached %d times in %d rounds",
		 how, reached, round);
}

SI_CHECKED(t_delete_sync_waits_for_its_callback_only)
{
	char budget[24];
	int ret;

	if (!need_other_cpu())
		return;
	ret = register_kprobe(&batch_wait_probe);
	if (!SI_CHECK(!ret, "no kprobe on si_executor_wait_callback: %d", ret))
		return;
	if (si_test_read_param("batch_us", budget, sizeof(budget)) &&
	    si_test_write_param("batch_us", BATCH_BUDGET_US)) {
		cancel_in_batch(0, "compatible");
		cancel_in_batch(SI_TIMER_SOFTINTERRUPTIBLE, "soft-interruptible");
		si_test_write_param("batch_us", budget);
	}
	unregister_kprobe(&batch_wait_probe);
}

/* ---------------------------------------------------------------------- */
/*
 * 8. A canceller that waits for a callback and then does not get its CPU
 * (PREEMPT_RT: it sleeps on cb_lock; a SCHED_FIFO task takes its CPU) must
 * not throttle the executor: as the kernel's timer_sync_wait_running(),
 * expiry goes on at full speed meanwhile. Measured: callbacks per second
 * of a stream of short callbacks on "other" while the canceller on "third"
 * is starved for STARVE_MS by a FIFO 50 hog, against the stream's rate
 * with no canceller. The window: the canceller waited (counted in
 * cb_waiters) when the hog started and had not returned when it stopped.
 * On non-RT a waiting canceller spins on cb_lock and keeps its CPU, so the
 * window cannot be reached there.
 */
#define STREAM_TIMERS	512
#define STARVE_MS	500
#define STARVE_ROUNDS	3
#define VICTIM_CAP_NS	(100 * NSEC_PER_MSEC)

struct starve;
static struct starve *starved;

struct starve {
	struct si_timer stream[STREAM_TIMERS];
	struct si_timer victim;
	atomic_t count;
	bool stop;
	bool victim_started;
	bool go;		/* the hog may start */
	bool hog_running;
	bool cancel_done;
	bool canceller_waiting;	/* it entered si_executor_wait_callback() */
	struct task_struct *canceller;
	bool waiting_at_start;	/* the canceller waited when the hog started */
	bool waiting_at_end;
	u64 c0, c1, t0, t1, t_cancel_done;
	int cancel_ret;
	struct task_struct *hog;
};

static void stream_fn(struct si_timer *t)
{
	struct starve *st = READ_ONCE(starved);

	atomic_inc(&st->count);
	if (!READ_ONCE(st->stop))
		si_mod_timer(t, jiffies + 1);
}

static void starve_victim_fn(struct si_timer *t)
{
	struct starve *st = si_timer_container_of(st, t, victim);
	u64 start = ktime_get_ns();

	WRITE_ONCE(st->victim_started, true);
	while (!READ_ONCE(st->canceller_waiting) && ktime_get_ns() - start < VICTIM_CAP_NS)
		cpu_relax();
	/* from the probe at its entry to its sleep on cb_lock */
	mdelay(1);	/* a compatible callback: no sleeping */
	WRITE_ONCE(st->go, true);
	wake_up_process(st->hog);
	start = ktime_get_ns();
	while (!READ_ONCE(st->hog_running) && ktime_get_ns() - start < VICTIM_CAP_NS)
		cpu_relax();
}

static int starve_hog(void *arg)
{
	struct starve *st = arg;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (READ_ONCE(st->go) || kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	if (READ_ONCE(st->go)) {
		st->waiting_at_start = READ_ONCE(st->canceller_waiting) &&
				       !READ_ONCE(st->cancel_done);
		st->t0 = ktime_get_ns();
		st->c0 = atomic_read(&st->count);
		WRITE_ONCE(st->hog_running, true);
		while (ktime_get_ns() - st->t0 < STARVE_MS * NSEC_PER_MSEC)
			cpu_relax();
		st->c1 = atomic_read(&st->count);
		st->t1 = ktime_get_ns();
		st->waiting_at_end = !READ_ONCE(st->cancel_done);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int starve_canceller(void *arg)
{
	struct starve *st = arg;

	if (si_wait_until(READ_ONCE(st->victim_started) || kthread_should_stop(), 5000) &&
	    READ_ONCE(st->victim_started)) {
		st->cancel_ret = si_timer_delete_sync(&st->victim);
		st->t_cancel_done = ktime_get_ns();
		WRITE_ONCE(st->cancel_done, true);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static int starve_wait_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct starve *st = READ_ONCE(starved);

	if (st && current == READ_ONCE(st->canceller))
		WRITE_ONCE(st->canceller_waiting, true);
	return 0;
}

static struct kprobe starve_wait_probe = {
	.symbol_name = "si_executor_wait_callback",
	.pre_handler = starve_wait_entry,
};

static u64 stream_rate(struct starve *st, u64 c0, u64 c1, u64 t0, u64 t1)
{
	return t1 > t0 ? div64_u64((c1 - c0) * NSEC_PER_SEC, t1 - t0) : 0;
}

static struct task_struct *starve_thread(int (*fn)(void *), struct starve *st, int cpu,
					 const char *name)
{
	struct task_struct *p = kthread_create(fn, st, "%s/%d", name, cpu);

	if (IS_ERR(p))
		return NULL;
	kthread_bind(p, cpu);
	get_task_struct(p);
	return p;
}

/*
 * The reference: the same hog on the third CPU, no canceller, measured
 * right before each starved round. Under single-threaded TCG a spinning
 * vCPU takes emulation time from the others, and the host's other load
 * comes and goes: only rates measured side by side compare.
 */
static u64 hog_only_rate(struct starve *st)
{
	WRITE_ONCE(st->go, false);
	st->t1 = 0;
	st->hog = starve_thread(starve_hog, st, third_cpu, "si_hog");
	if (!st->hog)
		return 0;
	sched_set_fifo(st->hog);
	WRITE_ONCE(st->go, true);
	wake_up_process(st->hog);
	si_wait_until(st->t1, STARVE_MS + 5000);
	kthread_stop(st->hog);
	put_task_struct(st->hog);
	return st->t1 ? stream_rate(st, st->c0, st->c1, st->t0, st->t1) : 0;
}

/* One starved round: the stream's rate while the canceller waits, starved */
static u64 starved_round(struct starve *st, int round)
{
	struct task_struct *canceller;

	st->victim_started = false;
	st->go = false;
	st->hog_running = false;
	st->cancel_done = false;
	st->canceller_waiting = false;
	st->waiting_at_start = false;
	st->waiting_at_end = false;
	st->t1 = 0;
	st->t_cancel_done = 0;
	st->hog = starve_thread(starve_hog, st, third_cpu, "si_hog");
	canceller = starve_thread(starve_canceller, st, third_cpu, "si_cancel");
	if (!SI_CHECK(st->hog && canceller, "cannot create threads")) {
		if (st->hog) {
			kthread_stop(st->hog);
			put_task_struct(st->hog);
		}
		if (canceller) {
			kthread_stop(canceller);
			put_task_struct(canceller);
		}
		return 0;
	}
	WRITE_ONCE(st->canceller, canceller);
	sched_set_fifo(st->hog);
	wake_up_process(st->hog);
	wake_up_process(canceller);
	si_test_timer_setup(&st->victim, starve_victim_fn, SI_TIMER_PINNED);
	st->victim.expires = jiffies + 1;
	si_add_timer_on(&st->victim, other_cpu);
	SI_CHECK(si_wait_until(READ_ONCE(st->cancel_done), STARVE_MS + 5000),
		 "round %d: the canceller did not return", round);
	SI_CHECK(si_wait_until(st->t1, 5000), "round %d: the hog did not run", round);
	kthread_stop(canceller);
	put_task_struct(canceller);
	kthread_stop(st->hog);
	put_task_struct(st->hog);
	si_timer_shutdown_sync(&st->victim);
	return st->t1 ? stream_rate(st, st->c0, st->c1, st->t0, st->t1) : 0;
}

/*
 * The bug this catches (the executor waiting for the starved canceller
 * after every callback) leaves the stream a callback per wait, under 1%
 * of its rate, in every round; a round can also be slow because the host
 * was busy during it, so the check is on a majority of rounds.
 */
SI_CHECKED(t_starved_canceller_does_not_throttle)
{
	struct starve *st;
	u64 base, rate;
	int i, round = 0, reached = 0, slow = 0, ret;

	if (!need_third_cpu())
		return;
	st = kvzalloc(sizeof(*st), GFP_KERNEL);
	if (!SI_CHECK(st, "out of memory"))
		return;
	ret = register_kprobe(&starve_wait_probe);
	if (!SI_CHECK(!ret, "no kprobe on si_executor_wait_callback: %d", ret)) {
		kvfree(st);
		return;
	}
	WRITE_ONCE(starved, st);
	for (i = 0; i < STREAM_TIMERS; i++) {
		si_test_timer_setup(&st->stream[i], stream_fn, SI_TIMER_PINNED);
		st->stream[i].expires = jiffies + 1;
		si_add_timer_on(&st->stream[i], other_cpu);
	}
	msleep(100);

	for (round = 0; round < STARVE_ROUNDS; round++) {
		/* RT bandwidth: the hog's 500 ms must not be throttled */
		msleep(1000);
		base = hog_only_rate(st);
		if (!SI_CHECK(base, "round %d: the reference hog did not run", round))
			break;
		msleep(1000);
		rate = starved_round(st, round);
		if (st->waiting_at_start && st->waiting_at_end) {
			reached++;
			slow += rate * 4 < base;
		}
		si_diag("round %d: starved %d, %llu/s (%llu%% of %llu alone), delete +%lld ms: %d",
			round, st->waiting_at_start && st->waiting_at_end, rate,
			div64_u64(rate * 100, base), base,
			st->t1 && st->t_cancel_done ?
			div_s64((s64)(st->t_cancel_done - st->t1), NSEC_PER_MSEC) : -1,
			st->cancel_ret);
	}
	WRITE_ONCE(st->stop, true);
	for (i = 0; i < STREAM_TIMERS; i++)
		si_timer_shutdown_sync(&st->stream[i]);
	WRITE_ONCE(starved, NULL);
	unregister_kprobe(&starve_wait_probe);
	kvfree(st);
	si_diag("starved canceller: window reached %d of %d rounds, stream under 1/4 in %d",
		reached, round, slow);
	SI_CHECK(slow * 2 <= reached || !reached,
		 "stream throttled below 1/4 of the hog-only rate in %d of %d rounds", slow,
		 reached);
	if (!reached)
		si_skip(IS_ENABLED(CONFIG_PREEMPT_RT) ?
			"window not reached: the canceller was never starved while waiting" :
			"window not reachable: a waiting canceller spins and keeps its CPU (non-RT)");
}

/* ---------------------------------------------------------------------- */

static const struct si_test tests[] = {
	SI_TEST(t_delete_sync_vs_self_rearm),
	SI_TEST(t_callback_frees_its_timer),
	SI_TEST(t_delete_sync_bh_disabled_same_cpu),
	SI_TEST(t_delete_sync_bh_disabled_other_cpu),
	SI_TEST(t_rearm_queued_vs_delete),
	SI_TEST(t_moving_rearm_vs_delete),
	SI_TEST(t_calls_at_expiry),
	SI_TEST(t_delete_sync_from_softirq_in_callback),
	SI_TEST(t_cancel_cycle_across_executors),
	SI_TEST(t_cancel_cycle_through_bh_lock),
	SI_TEST(t_delete_sync_from_softirq_after_callback),
	SI_TEST(t_park_without_heir),
	SI_TEST(t_delete_sync_waits_for_its_callback_only),
	SI_TEST(t_starved_canceller_does_not_throttle),
};

static void si_race_main(void *unused)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(holds); i++) {
		ret = si_hold_register(holds[i]);
		if (ret)
			si_ktap_diag("no hold on %s: %d", holds[i]->name, ret);
		else
			si_ktap_diag("hold on %s", holds[i]->name);
	}
	si_ktap_run(tests, ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(holds); i++)
		si_hold_unregister(holds[i]);
	tracepoint_synchronize_unregister();
	for (i = 0; i < ARRAY_SIZE(holds); i++)
		irq_work_sync(&holds[i]->spill);
}

static int __init si_race_init(void)
{
	home_cpu = cpumask_first(cpu_online_mask);
	other_cpu = si_test_next_cpu(home_cpu);
	third_cpu = si_test_next_cpu(other_cpu);
	return si_ktap_run_on_cpu(home_cpu, si_race_main, NULL, false, 0);
}

static void __exit si_race_exit(void)
{
}

module_init(si_race_init);
module_exit(si_race_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer race regression tests");
