// SPDX-License-Identifier: GPL-2.0
/*
 * si_timer_torture: random operations from every CPU on a shared pool of
 * si_timers, in the style of kernel/locking/locktorture.c, with the API's
 * documented guarantees checked continuously. See Documentation/testing.md, "Torture".
 *
 * Who may touch a timer, so that the expected outcome is always known:
 *
 * - A pool slot belongs, for one operation at a time, to the stress thread
 *   holding slot->owner. Its timer's callback is the only other party: it
 *   may re-arm the timer. Every arming and non-waiting cancel, by the owner
 *   or by the callback, is made under slot->lock together with the update
 *   of the slot's model, so the return values are exact (timer_list's
 *   semantics: "was pending" 1 means that arm never fires, 0 means it was
 *   not pending: fired, firing or never armed).
 * - The model is the list of arms that must still fire (oldest first) and
 *   whether the newest one may still be pending. A callback takes the
 *   oldest. Callbacks of one timer run in arming order, so the count is
 *   exact even when a sync cancel and the callback's own re-arm race,
 *   which is legitimately ambiguous about which arm was cancelled: then the
 *   "never early" check uses the earliest expiry still outstanding.
 * - Synchronous cancels wait without slot->lock (the callback takes it).
 *   When one returns, no callback may run or be running until the next arm,
 *   and the arms left over must be exactly those it cancelled: none if it
 *   returned 0, at least one if it returned 1.
 * - Fire-and-forget timers (kmalloc'ed) are armed once and then belong to
 *   their callback, which re-arms them a few times and frees them. Freed
 *   memory is poisoned and quarantined for a while before kfree(), so a
 *   write into it after the callback returned is seen.
 * - Concurrent pairs: two calls on one timer from two CPUs at once, on a
 *   timer far from expiry; the return values and the final state must be
 *   those of one of the two serial orders (linearisability).
 *
 * Only documented behaviour is asserted; the refusals (-EDEADLK, -EINVAL)
 * are never provoked: sync cancels run in task context, and on PREEMPT_RT
 * with bottom halves disabled only for compatible-mode timers (a
 * soft-interruptible callback running on this CPU could need our BH lock).
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "si_test.h"

static int duration = 60;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "seconds of stress (default 60)");
static int nr_timers = 64;
module_param(nr_timers, int, 0444);
MODULE_PARM_DESC(nr_timers, "timers in the shared pool (default 64)");
static int nr_stress = 1;
module_param(nr_stress, int, 0444);
MODULE_PARM_DESC(nr_stress, "stress threads per online CPU (default 1)");
static int hotplug_interval = 2000;
module_param(hotplug_interval, int, 0444);
MODULE_PARM_DESC(hotplug_interval, "ms between CPU offline/online cycles, 0 = none (default 2000)");
static int prio_flip_ms = 1000;
module_param(prio_flip_ms, int, 0444);
MODULE_PARM_DESC(prio_flip_ms, "ms between switches of si_timer's prio between 2 (above ktimers) and its own, 0 = none (default 1000)");
static ulong seed;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "random seed, 0 = pick one (printed)");
static int cb_max_us = 400;
module_param(cb_max_us, int, 0444);
MODULE_PARM_DESC(cb_max_us, "longest callback busy-wait in us (default 400)");

static bool bh_cancel_soft;
module_param(bh_cancel_soft, bool, 0444);
MODULE_PARM_DESC(bh_cancel_soft, "PREEMPT_RT: sync-cancel soft-interruptible timers inside BH sections too, expecting the documented -EDEADLK refusal and its WARN (default off)");

#define TT "si_timer_torture: "
#define TT_MAGIC	0x7454a11eU
#define TT_POISON	0x6b
#define TT_FIFO		16
#define TT_QUARANTINE_NS (200 * NSEC_PER_MSEC)

enum tt_violation {
	V_EARLY, V_DOUBLE, V_LOST, V_CANCELLED_FIRED, V_AFTER_SYNC, V_SELF,
	V_INTERLEAVE, V_CONTEXT, V_RETVAL, V_LINEAR, V_CPU, V_UAF, V_NR
};

static const char * const tt_vname[V_NR] = {
	[V_EARLY] = "never_early",
	[V_DOUBLE] = "each_arm_fires_at_most_once",
	[V_LOST] = "each_arm_not_cancelled_fires",
	[V_CANCELLED_FIRED] = "was_pending_arm_never_fires",
	[V_AFTER_SYNC] = "nothing_runs_after_sync_cancel",
	[V_SELF] = "never_concurrent_with_itself",
	[V_INTERLEAVE] = "callbacks_of_a_cpu_never_interleave",
	[V_CONTEXT] = "callback_context_of_its_mode",
	[V_RETVAL] = "return_values_as_documented",
	[V_LINEAR] = "concurrent_calls_linearisable",
	[V_CPU] = "add_timer_on_and_pinned_cpu",
	[V_UAF] = "no_write_after_callback_freed",
};

enum tt_op {
	OP_MOD, OP_MOD_PENDING, OP_REDUCE, OP_ADD, OP_ADD_ON, OP_DELETE,
	OP_TRY_DEL, OP_SHUTDOWN, OP_DELETE_SYNC, OP_SHUTDOWN_SYNC, OP_SETUP,
	OP_CB_REARM, OP_FIRE_FORGET, OP_PAIR, OP_HOTPLUG, OP_AT_EXPIRY,
	OP_HR_START, OP_HR_TRY_CANCEL, OP_HR_CANCEL, OP_NR
};

static const char * const tt_opname[OP_NR] = {
	"mod", "mod_pending", "reduce", "add", "add_on", "delete", "try_del",
	"shutdown", "delete_sync", "shutdown_sync", "setup", "cb_rearm",
	"fire_forget", "pair", "hotplug", "at_expiry",
	"hr_start", "hr_try_to_cancel", "hr_cancel",
};

static atomic_long_t tt_vcount[V_NR];
static atomic_long_t tt_opcount[OP_NR];
static atomic_long_t tt_cb_compat, tt_cb_soft, tt_cb_soft_as_compat;
static atomic_long_t tt_bh_in_soft, tt_bh_in_compat, tt_classic_runs, tt_pair_overlap;
static atomic_long_t tt_sync_waited, tt_try_del_busy, tt_refused, tt_at_expiry_busy;
static atomic_t tt_hp_gen;	/* odd while a CPU goes down or up */
static bool tt_stop;

/* Per CPU: callbacks (si_timer or classic timer) in progress, compat ones. */
static atomic_t *tt_in_cb, *tt_in_compat;

/*
 * The first violation of each kind, repeated as a KTAP diagnostic above its
 * "not ok": the harness shows a failure's diagnostics, not the console
 * lines printed while the run went on (all a CI log keeps).
 */
static char tt_vfirst[V_NR][160];

static void tt_violation_note(enum tt_violation kind, long nth, struct va_format *vaf)
{
	if (nth == 1)
		scnprintf(tt_vfirst[kind], sizeof(tt_vfirst[kind]), "%pV", vaf);
}

/* Count a violation; print the first five of each kind. */
static __printf(2, 3) void tt_violation(enum tt_violation kind, const char *fmt, ...)
{
	long nth = atomic_long_inc_return(&tt_vcount[kind]);
	struct va_format vaf;
	va_list args;

	if (nth > 5)
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	tt_violation_note(kind, nth, &vaf);
	pr_err(TT "violation %s: %pV\n", tt_vname[kind], &vaf);
	va_end(args);
}

struct tt_arm {
	unsigned long expires;
	int cpu;		/* where it must run, -1: anywhere */
	int hp_gen;
};

struct tt_slot;

/* A pool timer, or a fire-and-forget one (slot == NULL). */
struct tt_timer {
	struct list_head qlink;	/* quarantine, after "free" */
	u64 freed_ns;
	unsigned int size;
	/* poisoned from here on when freed */
	u32 magic;
	struct tt_slot *slot;
	atomic_t running;
	/* fire-and-forget: the one arm outstanding, re-arms left */
	struct tt_arm arm;
	int outstanding;
	int rearms;
	struct si_timer t;
};

#define TT_POISON_FROM offsetof(struct tt_timer, magic)

struct tt_slot {
	struct mutex owner;	/* one stress thread at a time */
	raw_spinlock_t lock;
	struct tt_timer *tm;
	/* model, under lock */
	struct tt_arm fifo[TT_FIFO];
	int head, n;
	bool tail_pending;	/* the newest arm may still be pending */
	bool shut;
	bool after_sync;	/* a sync cancel returned, no arm since */
	bool cb_active;		/* the callback is between its two lock sections */
	/*
	 * A shutdown_sync is in progress: an arm by the callback meanwhile
	 * may be a no-op (shut down already) or real (cancelled later).
	 */
	bool shutting;
	int maybe_noop;
	/* a concurrent pair runs: the callback only counts itself */
	bool in_pair;
	int pair_fired;
	/* a sync cancel was refused: the callback's count is unknown */
	bool unknown;
	int rearm_budget;	/* re-arms the callback may still do */
	unsigned int flags;
	struct rnd_state rnd;	/* the callback's */
	/* the last calls and callbacks, printed with a violation */
	struct { u8 op; s8 ret; u8 cpu; u8 n; u32 jif; } hist[8];
	unsigned int nhist;
};

static struct tt_slot *tt_slots;
static DEFINE_SPINLOCK(tt_quarantine_lock);
static LIST_HEAD(tt_quarantine);
static atomic_long_t tt_ff_live;	/* fire-and-forget timers not freed yet */
static DEFINE_SPINLOCK(tt_cb_bh_lock);		/* taken by callbacks */
/*
 * Taken plainly by soft-interruptible callbacks only (no softirq takes it):
 * on RT one that finds it held sleeps without the BH lock, so ktimers may
 * start a soft hrtimer there that the executor, woken, preempts.
 */
static DEFINE_SPINLOCK(tt_cb_soft_lock);
static DEFINE_SPINLOCK(tt_cancel_bh_lock);	/* taken by cancellers */

static struct tasklet_struct *tt_tasklets;
static struct napi_struct *tt_napis;
static struct net_device *tt_ndev;
static bool tt_background_ready;
static struct timer_list *tt_classic;
static atomic_long_t tt_tasklet_runs, tt_napi_runs;

static void tt_fn(struct si_timer *t);
static void tt_ff_fn(struct si_timer *t);

static u32 tt_rand(struct rnd_state *r, u32 n)
{
	return n ? prandom_u32_state(r) % n : 0;
}

static unsigned long tt_fifo_min(struct tt_slot *s)
{
	unsigned long m = s->fifo[s->head].expires;
	int i;

	for (i = 1; i < s->n; i++) {
		unsigned long e = s->fifo[(s->head + i) % TT_FIFO].expires;

		if (time_before(e, m))
			m = e;
	}
	return m;
}

static struct tt_arm *tt_tail(struct tt_slot *s)
{
	return &s->fifo[(s->head + s->n - 1) % TT_FIFO];
}

/* Record an arm at @expires, expected on @cpu (-1: anywhere). */
static void tt_push(struct tt_slot *s, unsigned long expires, int cpu)
{
	struct tt_arm *a;

	if (s->n == TT_FIFO) {
		pr_err(TT "model overflow on slot %ld\n", (long)(s - tt_slots));
		s->head = (s->head + 1) % TT_FIFO;
		s->n--;
	}
	s->n++;
	a = tt_tail(s);
	a->expires = expires;
	a->cpu = cpu;
	a->hp_gen = atomic_read(&tt_hp_gen);
	s->tail_pending = true;
	s->after_sync = false;
	if (s->shutting)
		s->maybe_noop++;
}

#define OP_CB OP_NR	/* in a slot's history: its callback ran */

/* s->lock held */
static void tt_hist(struct tt_slot *s, int op, int ret)
{
	typeof(s->hist[0]) *h = &s->hist[s->nhist++ % ARRAY_SIZE(s->hist)];

	h->op = op;
	h->ret = ret;
	h->cpu = raw_smp_processor_id();
	h->n = s->n;
	h->jif = (u32)jiffies;
}

static void tt_hist_print(struct tt_slot *s)
{
	char buf[400];
	int len = 0, i;

	for (i = 0; i < ARRAY_SIZE(s->hist) && i < s->nhist; i++) {
		typeof(s->hist[0]) *h = &s->hist[(s->nhist - 1 - i) % ARRAY_SIZE(s->hist)];

		len += scnprintf(buf + len, sizeof(buf) - len, " %s=%d@%u/cpu%u/n%u",
				 h->op == OP_CB ? "callback" : tt_opname[h->op],
				 h->ret, h->jif, h->cpu, h->n);
	}
	pr_err(TT "  slot %ld now %u, newest first:%s\n", (long)(s - tt_slots),
	       (u32)jiffies, buf);
}

/* A violation on a pool timer: with its model and its last operations. */
static __printf(3, 4) void tt_slot_violation(enum tt_violation kind, struct tt_slot *s,
					     const char *fmt, ...)
{
	long nth = atomic_long_inc_return(&tt_vcount[kind]);
	struct va_format vaf;
	va_list args;

	if (nth > 5)
		return;
	tt_hist_print(s);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	tt_violation_note(kind, nth, &vaf);
	pr_err(TT "violation %s: %ps slot %ld flags %#x n=%d tail_pending=%d shut=%d: %pV\n",
	       tt_vname[kind], s->tm->t.function, (long)(s - tt_slots), s->flags,
	       s->n, s->tail_pending, s->shut, &vaf);
	va_end(args);
}

/*
 * The model after an arming call under s->lock that returned @ret.
 * @replace: with ret == 1 the pending arm is replaced (mod, mod_pending);
 * @reduce: with ret == 1 it is kept at the earlier expiry.
 */
static void tt_model_arm(struct tt_slot *s, int ret, unsigned long expires,
			 int cpu, bool appends_if_idle, int opc)
{
	const char *op = tt_opname[opc];

	tt_hist(s, opc, ret);
	if (ret < 0 || ret > 1) {
		tt_slot_violation(V_RETVAL, s, "%s returned %d", op, ret);
		return;
	}
	if (s->shut) {
		if (ret)
			tt_slot_violation(V_RETVAL, s,
					  "%s on a shut down timer returned %d",
					  op, ret);
		return;
	}
	if (ret == 1) {
		if (!s->tail_pending || !s->n) {
			tt_slot_violation(V_RETVAL, s,
					  "%s returned 1 (was pending) for an arm that fired or was cancelled",
					  op);
			return;
		}
		if (opc == OP_REDUCE) {
			/* may have moved the timer to this CPU's executor */
			if (time_before(expires, tt_tail(s)->expires))
				tt_tail(s)->expires = expires;
			tt_tail(s)->cpu = -1;
		} else {
			tt_tail(s)->expires = expires;
			tt_tail(s)->cpu = cpu;
			tt_tail(s)->hp_gen = atomic_read(&tt_hp_gen);
		}
		s->after_sync = false;
		return;
	}
	/* 0: whatever was pending has been taken by the executor */
	s->tail_pending = false;
	if (appends_if_idle)
		tt_push(s, expires, cpu);
}

/*
 * Where an arm made now must run: a pinned timer on this CPU, unless its
 * callback may still run (it keeps its home then). s->lock held.
 */
static int tt_pinned_cpu(struct tt_slot *s)
{
	return s->after_sync && (s->flags & SI_TIMER_PINNED) ? raw_smp_processor_id() : -1;
}

/* The model after a non-waiting cancel under s->lock. */
static void tt_model_cancel(struct tt_slot *s, int ret, int opc)
{
	const char *op = tt_opname[opc];

	tt_hist(s, opc, ret);
	if (ret == -1 && opc == OP_TRY_DEL) {
		atomic_long_inc(&tt_try_del_busy);
		return;
	}
	if (ret < 0 || ret > 1) {
		tt_slot_violation(V_RETVAL, s, "%s returned %d", op, ret);
		return;
	}
	if (ret == 1) {
		if (!s->tail_pending || !s->n) {
			tt_slot_violation(V_RETVAL, s,
					  "%s returned 1 (was pending) for an arm that fired or was cancelled",
					  op);
			return;
		}
		s->n--;
	}
	s->tail_pending = false;
}

/* The calling CPU's "a callback runs here" counters. */
static int tt_cb_enter(bool compat)
{
	int cpu = raw_smp_processor_id();

	if (atomic_inc_return(&tt_in_cb[cpu]) != 1)
		tt_violation(V_INTERLEAVE,
			     "a timer callback started on CPU %d while another one was running there (%d)",
			     cpu, atomic_read(&tt_in_cb[cpu]));
	if (compat)
		atomic_inc(&tt_in_compat[cpu]);
	return cpu;
}

static void tt_cb_exit(int cpu, bool compat)
{
	if (compat)
		atomic_dec(&tt_in_compat[cpu]);
	atomic_dec(&tt_in_cb[cpu]);
}

static void tt_busy(u32 us)
{
	u64 end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

/* What a callback does for its length: busy, BH sections, raise softirqs. */
static void tt_cb_body(struct rnd_state *r, int cpu, bool soft)
{
	u32 what = tt_rand(r, 8);
	u32 us = tt_rand(r, cb_max_us + 1);

	if (tt_rand(r, 4) == 0) {
		tasklet_schedule(&tt_tasklets[cpu]);
		napi_schedule(&tt_napis[cpu]);
	}
	switch (what) {
	case 0:
		spin_lock_bh(&tt_cb_bh_lock);
		tt_busy(us / 4);
		spin_unlock_bh(&tt_cb_bh_lock);
		break;
	case 1:
		rcu_read_lock_bh();
		tt_busy(us / 4);
		rcu_read_unlock_bh();
		break;
	case 2:
		local_bh_disable();
		tt_busy(us / 4);
		local_bh_enable();
		break;
	case 3:
		if (soft) {
			spin_lock(&tt_cb_soft_lock);
			tt_busy(us / 4);
			spin_unlock(&tt_cb_soft_lock);
		}
		break;
	default:
		break;
	}
	tt_busy(us);
}

/* Run-time checks common to both kinds of callbacks; returns the mode. */
static bool tt_check_context(struct si_timer *t)
{
	bool serving = in_serving_softirq();

	if (!(t->flags & SI_TIMER_SOFTINTERRUPTIBLE)) {
		if (!serving)
			tt_violation(V_CONTEXT,
				     "compatible callback %ps not in softirq-serving state",
				     t->function);
		atomic_long_inc(&tt_cb_compat);
		return false;
	}
	if (serving) {
		/* documented fallback without the vector mask */
		atomic_long_inc(&tt_cb_soft_as_compat);
		return false;
	}
	if (softirq_count())
		tt_violation(V_CONTEXT, "soft-interruptible callback %ps with BH disabled: %#lx",
			     t->function, (unsigned long)softirq_count());
	atomic_long_inc(&tt_cb_soft);
	return true;
}

#include "si_torture_hr.h"

static void tt_check_arm(struct tt_arm *a, unsigned long expires_min,
			 int cpu, struct si_timer *t, long slot)
{
	unsigned long now = jiffies;
	int gen = atomic_read(&tt_hp_gen);

	if (time_before(now, expires_min))
		tt_violation(V_EARLY, "%ps slot %ld fired at %lu, %lu jiffies before its expiry",
			     t->function, slot, now, expires_min - now);
	if (a->cpu >= 0 && a->cpu != cpu && a->hp_gen == gen && !(gen & 1))
		tt_violation(V_CPU, "%ps slot %ld flags %#x ran on CPU %d, armed for CPU %d",
			     t->function, slot, t->flags, cpu, a->cpu);
}

/* Pool callback. */
static void tt_fn(struct si_timer *t)
{
	struct tt_timer *tm = container_of(t, struct tt_timer, t);
	struct tt_slot *s;
	unsigned long flags;
	bool soft, compat;
	int cpu, ret;

	if (READ_ONCE(tm->magic) != TT_MAGIC) {
		tt_violation(V_UAF, "callback %ps on freed memory %p (magic %#x)",
			     t->function, tm, tm->magic);
		return;
	}
	s = tm->slot;
	if (atomic_inc_return(&tm->running) != 1)
		tt_violation(V_SELF, "%ps slot %ld runs on two CPUs at once",
			     t->function, (long)(s - tt_slots));
	soft = tt_check_context(t);
	compat = !soft;
	cpu = tt_cb_enter(compat);
	tt_si_cb_enter(cpu, soft, t->flags & SI_TIMER_MASK_HRTIMER);

	raw_spin_lock_irqsave(&s->lock, flags);
	tt_hist(s, OP_CB, 0);
	if (s->in_pair) {
		s->pair_fired++;
	} else if (s->unknown) {
		/* since a refused sync cancel: which arm runs is not known */
		if (s->n) {
			s->head = (s->head + 1) % TT_FIFO;
			if (!--s->n)
				s->tail_pending = false;
		}
	} else if (s->after_sync) {
		tt_slot_violation(V_AFTER_SYNC, s,
				  "callback ran after a sync cancel returned, not re-armed since");
	} else if (!s->n) {
		tt_slot_violation(V_DOUBLE, s,
				  "callback with no arm outstanding (fired twice, or a cancelled arm fired)");
	} else {
		struct tt_arm a = s->fifo[s->head];

		tt_check_arm(&a, tt_fifo_min(s), cpu, t, (long)(s - tt_slots));
		s->head = (s->head + 1) % TT_FIFO;
		if (!--s->n)
			s->tail_pending = false;
	}
	s->cb_active = true;
	raw_spin_unlock_irqrestore(&s->lock, flags);

	tt_cb_body(&s->rnd, cpu, soft);

	raw_spin_lock_irqsave(&s->lock, flags);
	if (s->rearm_budget > 0 && !s->shut) {
		unsigned long exp = jiffies + tt_rand(&s->rnd, 4);

		s->rearm_budget--;
		atomic_long_inc(&tt_opcount[OP_CB_REARM]);
		switch (tt_rand(&s->rnd, 3)) {
		case 0:
			ret = si_mod_timer(t, exp);
			tt_model_arm(s, ret, exp, -1, true, OP_MOD);
			break;
		case 1:
			ret = si_timer_reduce(t, exp);
			tt_model_arm(s, ret, exp, -1, true, OP_REDUCE);
			break;
		default:
			if (!s->tail_pending) {
				t->expires = exp;
				si_add_timer(t);
				tt_hist(s, OP_ADD, 0);
				tt_push(s, exp, -1);
			}
			break;
		}
	}
	s->cb_active = false;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	tt_si_cb_exit(cpu, soft, t->flags & SI_TIMER_MASK_HRTIMER);
	tt_cb_exit(cpu, compat);
	atomic_dec(&tm->running);
}

/* Fire-and-forget callback: re-arm a few times, then free. */
static void tt_ff_fn(struct si_timer *t)
{
	struct tt_timer *tm = container_of(t, struct tt_timer, t);
	struct rnd_state r;
	unsigned long flags;
	bool soft;
	int cpu;

	if (READ_ONCE(tm->magic) != TT_MAGIC) {
		tt_violation(V_UAF, "callback %ps on freed memory %p (magic %#x)",
			     t->function, tm, tm->magic);
		return;
	}
	prandom_seed_state(&r, (u64)(unsigned long)tm ^ ktime_get_ns());
	if (atomic_inc_return(&tm->running) != 1)
		tt_violation(V_SELF, "fire-and-forget %p runs on two CPUs at once", tm);
	soft = tt_check_context(t);
	cpu = tt_cb_enter(!soft);
	tt_si_cb_enter(cpu, soft, t->flags & SI_TIMER_MASK_HRTIMER);
	if (tm->outstanding != 1)
		tt_violation(V_DOUBLE,
			     "fire-and-forget %p flags %#x fired with %d arms outstanding",
			     tm, t->flags, tm->outstanding);
	tm->outstanding = 0;
	tt_check_arm(&tm->arm, tm->arm.expires, cpu, t, -1);
	tt_cb_body(&r, cpu, soft);
	tt_si_cb_exit(cpu, soft, t->flags & SI_TIMER_MASK_HRTIMER);
	tt_cb_exit(cpu, !soft);

	if (tm->rearms > 0) {
		unsigned long exp = jiffies + tt_rand(&r, 3);
		int ret;

		tm->rearms--;
		tm->outstanding = 1;
		tm->arm.expires = exp;
		tm->arm.cpu = -1;
		ret = si_mod_timer(t, exp);
		if (ret)
			tt_violation(V_RETVAL,
				     "fire-and-forget %p re-armed from its callback: mod returned %d",
				     tm, ret);
		/* ours until we return: the next run waits for that */
		atomic_dec(&tm->running);
		return;
	}
	/* "kfree()": poison and quarantine; nothing may write here any more */
	tm->freed_ns = ktime_get_ns();
	memset((char *)tm + TT_POISON_FROM, TT_POISON, tm->size - TT_POISON_FROM);
	spin_lock_irqsave(&tt_quarantine_lock, flags);
	list_add_tail(&tm->qlink, &tt_quarantine);
	spin_unlock_irqrestore(&tt_quarantine_lock, flags);
	atomic_long_dec(&tt_ff_live);
}

/* kfree() quarantined timers older than @age_ns, checking their poison. */
static void tt_quarantine_drain(u64 age_ns)
{
	u64 now = ktime_get_ns();

	for (;;) {
		struct tt_timer *tm;
		unsigned long flags;
		unsigned int i;

		spin_lock_irqsave(&tt_quarantine_lock, flags);
		tm = list_first_entry_or_null(&tt_quarantine, struct tt_timer, qlink);
		if (tm && now - tm->freed_ns >= age_ns)
			list_del(&tm->qlink);
		else
			tm = NULL;
		spin_unlock_irqrestore(&tt_quarantine_lock, flags);
		if (!tm)
			return;
		for (i = TT_POISON_FROM; i < tm->size; i++) {
			u8 b = ((u8 *)tm)[i];

			if (b != TT_POISON) {
				tt_violation(V_UAF,
					     "freed timer %p written after its callback freed it: byte %u (si_timer+%ld) is %#x",
					     tm, i, (long)(i - offsetof(struct tt_timer, t)), b);
				break;
			}
		}
		kfree(tm);
	}
}

static void tt_quarantine_add(struct tt_timer *tm)
{
	unsigned long flags;

	tm->freed_ns = ktime_get_ns();
	memset((char *)tm + TT_POISON_FROM, TT_POISON, tm->size - TT_POISON_FROM);
	spin_lock_irqsave(&tt_quarantine_lock, flags);
	list_add_tail(&tm->qlink, &tt_quarantine);
	spin_unlock_irqrestore(&tt_quarantine_lock, flags);
}

static unsigned int tt_random_flags(struct rnd_state *r)
{
	unsigned int f = 0;

	if (tt_rand(r, 2))
		f |= SI_TIMER_SOFTINTERRUPTIBLE | (tt_rand(r, 3) ? 0 : SI_TIMER_MASK_HRTIMER);
	if (!tt_rand(r, 4))
		f |= SI_TIMER_PINNED;
	if (!tt_rand(r, 8))
		f |= SI_TIMER_DEFERRABLE;
	return f;
}

static struct tt_timer *tt_alloc(si_timer_func_t fn, unsigned int flags,
				 struct tt_slot *s)
{
	struct tt_timer *tm = kzalloc(sizeof(*tm), GFP_KERNEL);

	if (!tm)
		return NULL;
	tm->size = sizeof(*tm);
	tm->magic = TT_MAGIC;
	tm->slot = s;
	si_timer_setup(&tm->t, fn, flags);
	return tm;
}

/* The model after a sync cancel that returned @ret (s->lock held). */
static void tt_model_synced(struct tt_slot *s, int ret, bool shutdown)
{
	const char *op = tt_opname[shutdown ? OP_SHUTDOWN_SYNC : OP_DELETE_SYNC];
	bool exact;

	tt_hist(s, shutdown ? OP_SHUTDOWN_SYNC : OP_DELETE_SYNC, ret);
	if (ret == -EDEADLK && bh_cancel_soft && SI_RT_BH_LOCK) {
		/*
		 * Documented refusal: deactivated, the running callback not
		 * waited for; whether an arm was cancelled is not told.
		 */
		atomic_long_inc(&tt_refused);
		s->n = 0;
		s->tail_pending = false;
		s->unknown = true;
		s->shutting = false;
		s->maybe_noop = 0;
		if (shutdown)
			s->shut = true;
		return;
	}
	/* after a refusal the count is unknown: start afresh from here */
	exact = !s->unknown;
	s->unknown = false;
	if (ret < 0 || ret > 1)
		tt_slot_violation(V_RETVAL, s, "%s returned %d", op, ret);
	if (s->cb_active)
		tt_slot_violation(V_AFTER_SYNC, s,
				  "%s returned %d while the callback was still running",
				  op, ret);
	if (exact && ret == 0 && s->n > s->maybe_noop)
		tt_slot_violation(V_LOST, s,
				  "%s returned 0 (nothing pending) but %d arm(s) never fired (%d made while it shut the timer down)",
				  op, s->n, s->maybe_noop);
	if (exact && ret == 1 && !s->n && !s->shut)
		tt_slot_violation(V_CANCELLED_FIRED, s,
				  "%s returned 1 (was pending) but every arm fired",
				  op);
	s->n = 0;
	s->tail_pending = false;
	s->after_sync = true;
	s->shutting = false;
	s->maybe_noop = 0;
	if (shutdown)
		s->shut = true;
}

/*
 * A synchronous cancel, maybe inside a BH section. On PREEMPT_RT a
 * soft-interruptible timer is cancelled with BH enabled (the documented
 * -EDEADLK refusal otherwise: its callback may run on this CPU).
 */
static void tt_sync_cancel(struct tt_slot *s, struct rnd_state *r, bool shutdown)
{
	struct si_timer *t = &s->tm->t;
	unsigned long flags;
	u32 bh = tt_rand(r, 4);
	bool fifo = false;
	int ret;

	if (IS_ENABLED(CONFIG_PREEMPT_RT) && (s->flags & SI_TIMER_SOFTINTERRUPTIBLE)) {
		/* refused (-EDEADLK) only where RT has the BH lock */
		if (!bh_cancel_soft && SI_RT_BH_LOCK)
			bh = 3;
		/* as an irq thread would: preempt the executor mid-callback */
		fifo = bh != 3;
	}
	raw_spin_lock_irqsave(&s->lock, flags);
	if (s->n || s->cb_active)
		atomic_long_inc(&tt_sync_waited);
	s->shutting = shutdown;
	raw_spin_unlock_irqrestore(&s->lock, flags);

	if (fifo)
		sched_set_fifo(current);
	switch (bh) {
	case 0:
		spin_lock_bh(&tt_cancel_bh_lock);
		ret = shutdown ? si_timer_shutdown_sync(t) : si_timer_delete_sync(t);
		spin_unlock_bh(&tt_cancel_bh_lock);
		break;
	case 1:
		rcu_read_lock_bh();
		ret = shutdown ? si_timer_shutdown_sync(t) : si_timer_delete_sync(t);
		rcu_read_unlock_bh();
		break;
	case 2:
		local_bh_disable();
		ret = shutdown ? si_timer_shutdown_sync(t) : si_timer_delete_sync(t);
		local_bh_enable();
		break;
	default:
		ret = shutdown ? si_timer_shutdown_sync(t) : si_timer_delete_sync(t);
		break;
	}
	if (fifo)
		sched_set_normal(current, 0);
	raw_spin_lock_irqsave(&s->lock, flags);
	tt_model_synced(s, ret, shutdown);
	raw_spin_unlock_irqrestore(&s->lock, flags);
}

/* After a sync cancel: set the timer up again, maybe in new memory. */
static void tt_resetup(struct tt_slot *s, struct rnd_state *r)
{
	unsigned int flags = tt_random_flags(r);
	struct tt_timer *tm = NULL;

	/* Owned and quiescent (sync cancelled): the callback cannot run. */
	if (tt_rand(r, 2))
		tm = tt_alloc(tt_fn, flags, s);
	if (tm) {
		/* the old memory is "freed": nothing may write to it any more */
		tt_quarantine_add(s->tm);
		s->tm = tm;
	} else {
		si_timer_setup(&s->tm->t, tt_fn, flags);
	}
	raw_spin_lock_irq(&s->lock);
	s->flags = flags;
	s->shut = false;
	raw_spin_unlock_irq(&s->lock);
	atomic_long_inc(&tt_opcount[OP_SETUP]);
}

static int tt_random_online_cpu(struct rnd_state *r)
{
	int n = tt_rand(r, num_online_cpus());
	int cpu;

	for_each_online_cpu(cpu)
		if (!n--)
			return cpu;
	return cpumask_first(cpu_online_mask);
}

/* ---- concurrent pairs (linearisability) ---- */

enum { P_MOD, P_MOD_PENDING, P_REDUCE, P_DELETE, P_TRY_DEL, P_DELETE_SYNC, P_SHUTDOWN, P_NR };
static const char * const tt_pname[P_NR] = {
	"mod", "mod_pending", "reduce", "delete", "try_del", "delete_sync", "shutdown"
};

/*
 * The sequential model of a pair: the timer's state, and one step of it.
 * Both calls use far expiries; the initial arm may be near ("due"), so
 * that its expiry, a third event, races with the calls.
 */
struct tt_pstate {
	bool pending, due, shut;
	int fired;
};

static int tt_pair_model(int op, struct tt_pstate *st)
{
	int was = st->pending;

	switch (op) {
	case P_MOD:
		if (st->shut)
			return 0;
		st->pending = true;
		st->due = false;
		return was;
	case P_MOD_PENDING:
		if (was)
			st->due = false;
		return was;
	case P_REDUCE:
		/* a pending arm keeps the earlier expiry; else a far one */
		if (!was && !st->shut) {
			st->pending = true;
			st->due = false;
		}
		return was;
	case P_SHUTDOWN:
		st->shut = true;
		fallthrough;
	default:
		st->pending = false;
		return was;
	}
}

/*
 * Is (@ra, @rb, @fin, @fired) the outcome of some serial order of the two
 * calls and, if the initial arm was due, its expiry? A try_del that
 * returned -1 (callback running) must be next to the
 * expiry and changed nothing.
 */
static bool tt_pair_explained(int a, int b, int ra, int rb, bool init, bool due,
			      int fin, int fired)
{
	int order, fpos;

	for (order = 0; order < 2; order++) {
		for (fpos = -1; fpos < 3; fpos++) {
			struct tt_pstate st = { .pending = init, .due = init && due };
			int ops[2] = { order ? b : a, order ? a : b };
			int want[2] = { order ? rb : ra, order ? ra : rb };
			bool ok = true;
			int k, step;

			for (step = 0, k = 0; step < 3 && ok; step++) {
				if (step == fpos) {
					ok = st.pending && st.due;
					st.pending = false;
					st.fired++;
					continue;
				}
				if (k == 2)
					continue;
				if (ops[k] == P_TRY_DEL && want[k] == -1)
					ok = fpos >= 0 && (fpos == step - 1 || fpos == step + 1);
				else
					ok = tt_pair_model(ops[k], &st) == want[k];
				k++;
			}
			if (ok && k == 2 && st.pending == fin && st.fired == fired)
				return true;
		}
	}
	return false;
}

static int tt_pair_call(struct si_timer *t, int op, unsigned long exp)
{
	switch (op) {
	case P_MOD:
		return si_mod_timer(t, exp);
	case P_MOD_PENDING:
		return si_mod_timer_pending(t, exp);
	case P_REDUCE:
		return si_timer_reduce(t, exp);
	case P_DELETE:
		return si_timer_delete(t);
	case P_TRY_DEL:
		return si_try_to_del_timer_sync(t);
	case P_DELETE_SYNC:
		return si_timer_delete_sync(t);
	default:
		return si_timer_shutdown(t);
	}
}

struct tt_partner {
	struct task_struct *task;
	struct si_timer *t;
	int op;
	unsigned long exp;
	int ret;
	u64 t0, t1;		/* when its call began and returned */
	atomic_t phase;		/* 0 idle, 1 requested, 2 ready, 3 go, 4 done */
};

static int tt_partner_fn(void *data)
{
	struct tt_partner *p = data;

	while (!kthread_should_stop()) {
		int ph = atomic_read(&p->phase);

		if (ph != 1 && ph != 3) {
			usleep_range(200, 400);
			continue;
		}
		/* ready; the owner says go at the latest 50 ms after asking */
		atomic_cmpxchg(&p->phase, 1, 2);
		/* the owner may share this CPU: let it run (non-preemptible kernels) */
		while (atomic_read(&p->phase) != 3) {
			cpu_relax();
			cond_resched();
		}
		p->t0 = ktime_get_ns();
		p->ret = tt_pair_call(p->t, p->op, p->exp);
		p->t1 = ktime_get_ns();
		atomic_set(&p->phase, 4);
	}
	return 0;
}

/* Slot owned, timer quiescent (sync cancelled): two calls at once. */
static void tt_pair(struct tt_slot *s, struct tt_partner *p, struct rnd_state *r)
{
	struct si_timer *t = &s->tm->t;
	bool init = tt_rand(r, 4) != 0, due = tt_rand(r, 2);
	int a = tt_rand(r, P_NR), b = tt_rand(r, P_NR), ra, rb, fin, fired;
	unsigned long base = jiffies + 30 * HZ, ea, eb;
	u64 end, t0, t1;

	ea = base + tt_rand(r, HZ);
	eb = base + tt_rand(r, HZ);
	raw_spin_lock_irq(&s->lock);
	s->in_pair = true;
	s->pair_fired = 0;
	s->rearm_budget = 0;
	raw_spin_unlock_irq(&s->lock);
	if (init)
		si_mod_timer(t, due ? jiffies + tt_rand(r, 3) : base + 2 * HZ);
	p->t = t;
	p->op = b;
	p->exp = eb;
	atomic_set(&p->phase, 1);
	end = ktime_get_ns() + 50 * NSEC_PER_MSEC;
	while (atomic_read(&p->phase) == 1 && ktime_get_ns() < end)
		usleep_range(50, 100);
	/* go, whether or not the partner is ready (then it starts late) */
	atomic_set(&p->phase, 3);
	t0 = ktime_get_ns();
	ra = tt_pair_call(t, a, ea);
	t1 = ktime_get_ns();
	while (atomic_read(&p->phase) != 4)
		usleep_range(50, 100);
	rb = p->ret;
	if (t0 < p->t1 && p->t0 < t1)
		atomic_long_inc(&tt_pair_overlap);
	atomic_set(&p->phase, 0);
	fin = si_timer_shutdown_sync(t);	/* reports the final pending state */
	raw_spin_lock_irq(&s->lock);
	fired = s->pair_fired;
	s->in_pair = false;
	raw_spin_unlock_irq(&s->lock);

	if (!tt_pair_explained(a, b, ra, rb, init, due, fin, fired))
		tt_violation(V_LINEAR,
			     "%ps flags %#x initially %s: %s() = %d and %s() = %d at once, then pending = %d, callback ran %d times: no serial order gives that",
			     t->function, s->flags, !init ? "idle" : due ? "due" : "pending",
			     tt_pname[a], ra, tt_pname[b], rb, fin, fired);
	atomic_long_inc(&tt_opcount[OP_PAIR]);
	raw_spin_lock_irq(&s->lock);
	s->shut = true;
	s->after_sync = true;
	raw_spin_unlock_irq(&s->lock);
	tt_resetup(s, r);
}

/* ---- stress threads ---- */

struct tt_thread {
	struct task_struct *task;
	struct tt_partner partner;
	struct rnd_state rnd;
	int id;
};

static void tt_fire_forget(struct rnd_state *r)
{
	struct tt_timer *tm = tt_alloc(tt_ff_fn, tt_random_flags(r) & ~SI_TIMER_DEFERRABLE, NULL);
	unsigned long exp = jiffies + tt_rand(r, 8);

	if (!tm)
		return;
	tm->rearms = tt_rand(r, 3);
	tm->outstanding = 1;
	tm->arm.expires = exp;
	tm->arm.cpu = -1;
	tm->arm.hp_gen = atomic_read(&tt_hp_gen);
	atomic_long_inc(&tt_ff_live);
	atomic_long_inc(&tt_opcount[OP_FIRE_FORGET]);
	tm->t.expires = exp;
	if (tt_rand(r, 2)) {
		cpus_read_lock();
		tm->arm.cpu = tt_random_online_cpu(r);
		si_add_timer_on(&tm->t, tm->arm.cpu);
		cpus_read_unlock();
	} else {
		si_add_timer(&tm->t);
	}
	/* from here on the timer belongs to its callback */
}

/*
 * The expiry window on purpose: arm the timer on another CPU for the
 * next jiffy, wait for that jiffy, then (after 0-200 us) cancel or modify it
 * while its executor's wake-up may be queuing it or its callback starting, and at
 * once arm it again with si_add_timer() if that says it is not pending (the
 * timer_delete(); add_timer() pattern).
 */
static void tt_at_expiry(struct tt_slot *s, struct rnd_state *r)
{
	struct si_timer *t = &s->tm->t;
	unsigned long j;
	int ret, on;
	u64 end;

	cpus_read_lock();
	raw_spin_lock_irq(&s->lock);
	ret = si_timer_delete(t);
	tt_model_cancel(s, ret, OP_DELETE);
	if (s->tail_pending || s->shut) {
		raw_spin_unlock_irq(&s->lock);
		cpus_read_unlock();
		return;
	}
	on = tt_random_online_cpu(r);
	if (on == raw_smp_processor_id() && num_online_cpus() > 1) {
		/* cpumask_next_wrap() changed its arguments in 6.15. */
		on = cpumask_next(on, cpu_online_mask);
		if (on >= nr_cpu_ids)
			on = cpumask_first(cpu_online_mask);
	}
	j = jiffies + 1;
	t->expires = j;
	si_add_timer_on(t, on);
	tt_hist(s, OP_ADD_ON, on);
	tt_push(s, j, s->after_sync ? on : -1);
	raw_spin_unlock_irq(&s->lock);
	cpus_read_unlock();

	end = ktime_get_ns() + 20 * NSEC_PER_MSEC;
	while (time_before(jiffies, j) && ktime_get_ns() < end)
		cpu_relax();
	tt_busy(tt_rand(r, 200));

	raw_spin_lock_irq(&s->lock);
	switch (tt_rand(r, 3)) {
	case 0:
		ret = si_timer_delete(t);
		tt_model_cancel(s, ret, OP_DELETE);
		break;
	case 1:
		ret = si_try_to_del_timer_sync(t);
		tt_model_cancel(s, ret, OP_TRY_DEL);
		/* running: the window was reached */
		if (ret < 0)
			atomic_long_inc(&tt_at_expiry_busy);
		break;
	default:
		j = jiffies + 2;
		ret = si_mod_timer_pending(t, j);
		tt_model_arm(s, ret, j, -1, false, OP_MOD_PENDING);
		break;
	}
	if (!s->tail_pending && !s->shut) {
		j = jiffies + tt_rand(r, 3);
		t->expires = j;
		si_add_timer(t);
		tt_hist(s, OP_ADD, 0);
		tt_push(s, j, -1);
	}
	raw_spin_unlock_irq(&s->lock);
	atomic_long_inc(&tt_opcount[OP_AT_EXPIRY]);
}

/* One random operation on slot @s, owned. */
/*
 * An arming call and its model, under the slot lock; an arm may let the
 * callback re-arm itself a few times. si_mod_timer() pins to this CPU
 * (when the timer is pinned and the model knows where it is); the others
 * keep where the timer was armed.
 */
static void tt_arming_call(struct tt_slot *s, struct rnd_state *r,
			   int (*arm)(struct si_timer *timer, unsigned long expires),
			   int opc, unsigned long exp, bool appends_if_idle)
{
	int ret, cpu;

	raw_spin_lock_irq(&s->lock);
	ret = arm(&s->tm->t, exp);
	cpu = opc == OP_MOD ? tt_pinned_cpu(s) : -1;
	tt_model_arm(s, ret, exp, cpu, appends_if_idle, opc);
	s->rearm_budget = tt_rand(r, 3);
	raw_spin_unlock_irq(&s->lock);
	atomic_long_inc(&tt_opcount[opc]);
}

/* An asynchronous cancel and its model, under the slot lock. */
static void tt_cancel_call(struct tt_slot *s, int (*cancel)(struct si_timer *timer), int opc)
{
	raw_spin_lock_irq(&s->lock);
	tt_model_cancel(s, cancel(&s->tm->t), opc);
	if (opc == OP_SHUTDOWN)
		s->shut = true;
	raw_spin_unlock_irq(&s->lock);
	atomic_long_inc(&tt_opcount[opc]);
}

static void tt_one_op(struct tt_thread *th, struct tt_slot *s)
{
	struct rnd_state *r = &th->rnd;
	struct si_timer *t = &s->tm->t;
	u32 op = tt_rand(r, 100);
	unsigned long exp = jiffies + tt_rand(r, tt_rand(r, 8) ? 6 : 60);
	int cpu;

	if (op < 20) {
		tt_arming_call(s, r, si_mod_timer, OP_MOD, exp, true);
	} else if (op < 28) {
		tt_arming_call(s, r, si_mod_timer_pending, OP_MOD_PENDING, exp, false);
	} else if (op < 36) {
		tt_arming_call(s, r, si_timer_reduce, OP_REDUCE, exp, true);
	} else if (op < 44) {
		raw_spin_lock_irq(&s->lock);
		if (!s->tail_pending) {
			cpu = tt_pinned_cpu(s);
			t->expires = exp;
			si_add_timer(t);
			tt_hist(s, OP_ADD, 0);
			if (!s->shut)
				tt_push(s, exp, cpu);
			atomic_long_inc(&tt_opcount[OP_ADD]);
		}
		raw_spin_unlock_irq(&s->lock);
	} else if (op < 50) {
		cpus_read_lock();
		raw_spin_lock_irq(&s->lock);
		if (!s->tail_pending) {
			int on = tt_random_online_cpu(r);

			cpu = s->after_sync ? on : -1;
			t->expires = exp;
			si_add_timer_on(t, on);
			tt_hist(s, OP_ADD_ON, on);
			if (!s->shut)
				tt_push(s, exp, cpu);
			atomic_long_inc(&tt_opcount[OP_ADD_ON]);
		}
		raw_spin_unlock_irq(&s->lock);
		cpus_read_unlock();
	} else if (op < 54) {
		tt_at_expiry(s, r);
	} else if (op < 60) {
		bool bh = tt_rand(r, 2);

		if (bh)
			local_bh_disable();
		tt_cancel_call(s, si_timer_delete, OP_DELETE);
		if (bh)
			local_bh_enable();
	} else if (op < 68) {
		tt_cancel_call(s, si_try_to_del_timer_sync, OP_TRY_DEL);
	} else if (op < 70) {
		tt_cancel_call(s, si_timer_shutdown, OP_SHUTDOWN);
	} else if (op < 84) {
		tt_sync_cancel(s, r, false);
		atomic_long_inc(&tt_opcount[OP_DELETE_SYNC]);
		if (s->shut)
			tt_resetup(s, r);
	} else if (op < 90) {
		tt_sync_cancel(s, r, true);
		atomic_long_inc(&tt_opcount[OP_SHUTDOWN_SYNC]);
		tt_resetup(s, r);
	} else if (op < 96) {
		tt_fire_forget(r);
	} else {
		tt_sync_cancel(s, r, false);
		if (s->shut)
			tt_resetup(s, r);
		tt_pair(s, &th->partner, r);
	}
}

static int tt_stress_fn(void *data)
{
	struct tt_thread *th = data;
	unsigned long iter = 0;

	while (!READ_ONCE(tt_stop) && !kthread_should_stop()) {
		struct tt_slot *s = &tt_slots[tt_rand(&th->rnd, nr_timers)];

		if (!(iter++ % 64)) {
			int cpu;

			cpus_read_lock();
			cpu = tt_random_online_cpu(&th->rnd);
			set_cpus_allowed_ptr(current, cpumask_of(cpu));
			cpu = tt_random_online_cpu(&th->rnd);
			set_cpus_allowed_ptr(th->partner.task, cpumask_of(cpu));
			cpus_read_unlock();
			tt_quarantine_drain(TT_QUARANTINE_NS);
		}
		mutex_lock(&s->owner);
		tt_one_op(th, s);
		mutex_unlock(&s->owner);
		if (!tt_rand(&th->rnd, 4))
			usleep_range(50, 1000);
		else
			cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/* ---- background: classic timers, tasklets, NAPI, hotplug ---- */

static void tt_classic_fn(struct timer_list *tl)
{
	int cpu = tt_cb_enter(false);

	atomic_long_inc(&tt_classic_runs);
	if (!(atomic_long_read(&tt_classic_runs) % 8)) {
		tasklet_schedule(&tt_tasklets[cpu]);
		napi_schedule(&tt_napis[cpu]);
	}
	tt_busy(20);
	tt_cb_exit(cpu, false);
	if (!READ_ONCE(tt_stop))
		mod_timer(tl, jiffies + 1 + (cpu & 1));
}

/*
 * A softirq: it may run inside a soft callback, never inside a compat one,
 * except where PREEMPT_RT has no BH lock: there a compatible callback, as a
 * timer_list callback, may be preempted by a task that runs softirqs.
 */
static void tt_softirq_check(void)
{
	int cpu = raw_smp_processor_id();
	/*
	 * Read once: on PREEMPT_RT this softirq is preemptible, and where
	 * there is no BH lock a compatible callback may start between two
	 * reads (the executor above the softirq's thread: prio=2).
	 */
	bool in_compat = atomic_read(&tt_in_compat[cpu]);

	if (in_compat && SI_RT_NO_BH_LOCK)
		atomic_long_inc(&tt_bh_in_compat);
	else if (in_compat)
		tt_violation(V_CONTEXT,
			     "a softirq ran on CPU %d inside a compatible-mode callback",
			     cpu);
	else if (atomic_read(&tt_in_cb[cpu]))
		atomic_long_inc(&tt_bh_in_soft);
}

static void tt_tasklet_fn(struct tasklet_struct *t)
{
	atomic_long_inc(&tt_tasklet_runs);
	tt_softirq_check();
}

static int tt_poll(struct napi_struct *napi, int budget)
{
	atomic_long_inc(&tt_napi_runs);
	tt_softirq_check();
	napi_complete_done(napi, 0);
	return 0;
}

/*
 * Arms made during a hotplug cycle: as a CPU comes online, a per-CPU
 * driver's online callback (CPUHP_AP_ONLINE_DYN, on that CPU) arms a
 * pinned timer there, maybe before that CPU's executor thread has run;
 * it must run on that CPU, as add_timer_on()'s would (unless the CPU went
 * down again meanwhile). Counted: how often the executor thread had not
 * run since it parked, the window in which such a timer used to go to
 * another CPU for good. Reached on purpose every other cycle: the
 * incoming CPU's hotplug thread runs at SCHED_FIFO as high as the
 * executors meanwhile, so the executor woken at CPUHP_AP_SMPBOOT_THREADS
 * waits until the online callbacks are done (else it mostly runs first).
 */
struct tt_online_arm {
	struct si_timer t;
	unsigned long expires;
	int cpu, hp_gen;
	atomic_t armed;		/* 1 from arming until its callback returned */
	/* set by the hotplug thread before the CPU comes up */
	struct task_struct *executor;
	unsigned long parked_csw;
};

static struct tt_online_arm *tt_online;
static enum cpuhp_state tt_online_state;
static atomic_long_t tt_online_arms, tt_online_window, tt_online_ran;

static void tt_online_fn(struct si_timer *t)
{
	struct tt_online_arm *o = container_of(t, struct tt_online_arm, t);
	int cpu = raw_smp_processor_id(), gen = atomic_read(&tt_hp_gen);

	if (time_before(jiffies, o->expires + 1))
		tt_violation(V_EARLY, "online-armed timer of CPU %d fired at %lu, expires %lu",
			     o->cpu, jiffies, o->expires);
	/* the cycle that brought it up, or the gap before the next one */
	if (cpu != o->cpu && gen - o->hp_gen <= 1)
		tt_violation(V_CPU, "timer armed on CPU %d as it came online ran on CPU %d",
			     o->cpu, cpu);
	atomic_long_inc(&tt_online_ran);
	atomic_set_release(&o->armed, 0);
}

static int tt_online_cpu(unsigned int cpu)
{
	struct tt_online_arm *o = &tt_online[cpu];
	struct task_struct *executor;

	if (READ_ONCE(tt_stop) || atomic_cmpxchg_acquire(&o->armed, 0, 1))
		return 0;
	/* the executor thread has not run since it parked: the window */
	executor = READ_ONCE(o->executor);
	if (executor && READ_ONCE(executor->nvcsw) + READ_ONCE(executor->nivcsw) ==
	    o->parked_csw)
		atomic_long_inc(&tt_online_window);
	si_timer_setup(&o->t, tt_online_fn,
		       SI_TIMER_PINNED | (cpu & 1 ? SI_TIMER_SOFTINTERRUPTIBLE : 0));
	o->cpu = cpu;
	o->hp_gen = atomic_read(&tt_hp_gen);
	o->expires = jiffies + 1;
	o->t.expires = o->expires;
	si_add_timer_on(&o->t, cpu);
	atomic_long_inc(&tt_online_arms);
	return 0;
}

/* Before @cpu comes up: its parked executor thread, to tell the window. */
static void tt_online_note_parked(int cpu)
{
	struct tt_online_arm *o = &tt_online[cpu];
	struct task_struct *p = si_test_kthread_of("si_timer", cpu);

	if (p) {
		o->parked_csw = p->nvcsw + p->nivcsw;
		WRITE_ONCE(o->executor, p);
	}
}

static void tt_online_forget(int cpu)
{
	struct task_struct *p = xchg(&tt_online[cpu].executor, NULL);

	if (p)
		put_task_struct(p);
}

static int tt_online_init(void)
{
	int ret;

	tt_online = kcalloc(nr_cpu_ids, sizeof(*tt_online), GFP_KERNEL);
	if (!tt_online)
		return -ENOMEM;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "si_tt:online", tt_online_cpu, NULL);
	if (ret < 0) {
		kfree(tt_online);
		tt_online = NULL;
		return ret;
	}
	tt_online_state = ret;
	return 0;
}

static void tt_online_exit(void)
{
	int cpu;

	if (!tt_online)
		return;
	cpuhp_remove_state_nocalls(tt_online_state);
	for_each_possible_cpu(cpu)
		if (tt_online[cpu].t.function)
			si_timer_shutdown_sync(&tt_online[cpu].t);
	kfree(tt_online);
	tt_online = NULL;
}

static int tt_hotplug_fn(void *data)
{
	struct rnd_state r;
	int ok = 0;

	prandom_seed_state(&r, seed ^ 0x5eed);
	while (!READ_ONCE(tt_stop) && !kthread_should_stop()) {
		int cpu = 1 + tt_rand(&r, nr_cpu_ids - 1);

		msleep(hotplug_interval / 2);
		if (cpu >= nr_cpu_ids || !cpu_online(cpu) || READ_ONCE(tt_stop))
			continue;
		atomic_inc(&tt_hp_gen);
		if (!remove_cpu(cpu)) {
			struct task_struct *cpuhp = NULL;

			msleep(hotplug_interval / 2);
			tt_online_note_parked(cpu);
			if (atomic_read(&tt_hp_gen) & 2)
				cpuhp = si_test_kthread_of("cpuhp", cpu);
			if (cpuhp)
				sched_set_fifo_low(cpuhp);
			if (add_cpu(cpu))
				pr_err(TT "add_cpu(%d) failed\n", cpu);
			else
				ok++;
			if (cpuhp) {
				sched_set_normal(cpuhp, 0);
				put_task_struct(cpuhp);
			}
			tt_online_forget(cpu);
		}
		atomic_inc(&tt_hp_gen);
		atomic_long_inc(&tt_opcount[OP_HOTPLUG]);
	}
	pr_info(TT "%d hotplug cycles\n", ok);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * Half of the time the executors run above the timer softirq threads
 * (prio=2, as a user may set it): they then preempt ktimers, and a soft
 * hrtimer that began in the middle of a soft-interruptible callback can
 * outlive it (tt_softhr_outlived), the window in which the next callback
 * of the batch used to start inside it. The writes race with hotplug and
 * with executors mid-batch, too. Made by the loading task, which sees
 * /sys (a kthread's root need not: 7.x).
 */
static bool tt_prio_flipping, tt_prio_high;
static atomic_long_t tt_prio_flips;
static char tt_prio_own[16];

static void tt_prio_flip(void)
{
	const char *val = tt_prio_high ? tt_prio_own : "2";

	if (!si_test_write_param("prio", val)) {
		tt_violation(V_RETVAL, "writing %s to si_timer's prio failed", val);
		return;
	}
	tt_prio_high = !tt_prio_high;
	atomic_long_inc(&tt_prio_flips);
}

/* ---- setup, run, report ---- */

static struct tt_thread *tt_threads;
static int tt_nthreads;
static struct task_struct *tt_hotplug_task;

static int tt_background_init(void)
{
	int cpu;

	tt_in_cb = kcalloc(nr_cpu_ids, sizeof(*tt_in_cb), GFP_KERNEL);
	tt_in_compat = kcalloc(nr_cpu_ids, sizeof(*tt_in_compat), GFP_KERNEL);
	tt_tasklets = kcalloc(nr_cpu_ids, sizeof(*tt_tasklets), GFP_KERNEL);
	tt_napis = kcalloc(nr_cpu_ids, sizeof(*tt_napis), GFP_KERNEL);
	tt_classic = kcalloc(nr_cpu_ids, sizeof(*tt_classic), GFP_KERNEL);
	tt_ndev = alloc_netdev_dummy(0);
	if (!tt_in_cb || !tt_in_compat || !tt_tasklets || !tt_napis || !tt_classic || !tt_ndev)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		tasklet_setup(&tt_tasklets[cpu], tt_tasklet_fn);
		netif_napi_add(tt_ndev, &tt_napis[cpu], tt_poll);
		napi_enable(&tt_napis[cpu]);
		timer_setup(&tt_classic[cpu], tt_classic_fn, TIMER_PINNED);
	}
	tt_background_ready = true;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		tt_classic[cpu].expires = jiffies + 1;
		add_timer_on(&tt_classic[cpu], cpu);
	}
	cpus_read_unlock();
	return 0;
}

static void tt_background_exit(void)
{
	int cpu;

	/*
	 * Only what tt_background_init() set up, which an -ENOMEM cut short;
	 * the classic timers (which schedule the rest, on any CPU after a
	 * hotplug) all go first.
	 */
	if (tt_background_ready) {
		for_each_possible_cpu(cpu)
			timer_shutdown_sync(&tt_classic[cpu]);
		for_each_possible_cpu(cpu) {
			napi_disable(&tt_napis[cpu]);
			netif_napi_del(&tt_napis[cpu]);
		}
		for_each_possible_cpu(cpu)
			tasklet_kill(&tt_tasklets[cpu]);
	}
	tt_background_ready = false;
	if (tt_ndev)
		free_netdev(tt_ndev);
	kfree(tt_classic);
	kfree(tt_napis);
	kfree(tt_tasklets);
	kfree(tt_in_compat);
	kfree(tt_in_cb);
}

static void tt_summary(unsigned long secs)
{
	char buf[512];
	int len = 0, i;
	long ops = 0;

	for (i = 0; i < OP_NR; i++) {
		len += scnprintf(buf + len, sizeof(buf) - len, " %s=%ld", tt_opname[i],
				 atomic_long_read(&tt_opcount[i]));
		ops += atomic_long_read(&tt_opcount[i]);
	}
	pr_info("# si_timer_torture summary: %lu s, seed %lu, %d threads, %d timers; operations %ld:%s\n",
		secs, seed, tt_nthreads, nr_timers, ops, buf);
	pr_info("# si_timer_torture summary: callbacks compat=%ld soft=%ld soft_as_compat=%ld classic=%ld; tasklets %ld, napi polls %ld, softirqs inside soft callbacks %ld, inside compatible ones (RT without the BH lock only) %ld; pairs overlapped %ld; sync cancels that had to wait %ld; try_del busy %ld (at expiry %ld); sync cancels refused %ld\n",
		atomic_long_read(&tt_cb_compat), atomic_long_read(&tt_cb_soft),
		atomic_long_read(&tt_cb_soft_as_compat), atomic_long_read(&tt_classic_runs),
		atomic_long_read(&tt_tasklet_runs), atomic_long_read(&tt_napi_runs),
		atomic_long_read(&tt_bh_in_soft), atomic_long_read(&tt_bh_in_compat),
		atomic_long_read(&tt_pair_overlap),
		atomic_long_read(&tt_sync_waited), atomic_long_read(&tt_try_del_busy),
		atomic_long_read(&tt_at_expiry_busy),
		atomic_long_read(&tt_refused));
	pr_info("# si_timer_torture summary: si_hrtimer callbacks %ld, try_to_cancel -1 %ld; soft hrtimer callbacks %ld, of them inside soft-interruptible si callbacks %ld, outliving one %ld\n",
		atomic_long_read(&tt_hr_runs), atomic_long_read(&tt_hr_busy),
		atomic_long_read(&tt_softhr_runs), atomic_long_read(&tt_softhr_in_soft),
		atomic_long_read(&tt_softhr_outlived));
	pr_info("# si_timer_torture summary: prio switched between 2 and %s %ld times\n",
		tt_prio_own[0] ? tt_prio_own : "-", atomic_long_read(&tt_prio_flips));
	pr_info("# si_timer_torture summary: timers armed by an online callback %ld, of them with the CPU's executor not yet run since parked (window reached) %ld, ran %ld\n",
		atomic_long_read(&tt_online_arms), atomic_long_read(&tt_online_window),
		atomic_long_read(&tt_online_ran));
	len = 0;
	for (i = 0; i < V_NR; i++)
		len += scnprintf(buf + len, sizeof(buf) - len, " %s=%ld", tt_vname[i],
				 atomic_long_read(&tt_vcount[i]));
	pr_info("# si_timer_torture summary: violations:%s\n", buf);
}

static int __init tt_init(void)
{
	unsigned long start = jiffies, secs, deadline, flip_at;
	int i, ret, n = 0;
	long ops = 0, cbs;
	bool ran_ok;

	if (!seed)
		seed = get_random_u64() ?: 1;
	pr_info(TT "duration=%d nr_timers=%d nr_stress=%d hotplug_interval=%d prio_flip_ms=%d seed=%lu\n",
		duration, nr_timers, nr_stress, hotplug_interval, prio_flip_ms, seed);
	if (bh_cancel_soft && SI_RT_BH_LOCK)
		si_ktap_expect_warn("with bottom halves disabled on the CPU where");
	if (nr_timers < 1 || nr_stress < 1 || duration < 1)
		return -EINVAL;
	ret = tt_background_init();
	if (ret)
		goto out_bg;
	ret = tt_hr_init();
	if (ret)
		goto out_bg;
	tt_slots = kcalloc(nr_timers, sizeof(*tt_slots), GFP_KERNEL);
	if (!tt_slots) {
		ret = -ENOMEM;
		goto out_bg;
	}
	for (i = 0; i < nr_timers; i++) {
		struct tt_slot *s = &tt_slots[i];
		struct rnd_state r;

		prandom_seed_state(&r, seed + 1000003ULL * i);
		mutex_init(&s->owner);
		raw_spin_lock_init(&s->lock);
		prandom_seed_state(&s->rnd, seed ^ (i * 7919ULL));
		s->flags = tt_random_flags(&r);
		s->tm = tt_alloc(tt_fn, s->flags, s);
		if (!s->tm) {
			ret = -ENOMEM;
			goto out_slots;
		}
	}

	tt_nthreads = nr_stress * num_online_cpus();
	tt_threads = kcalloc(tt_nthreads, sizeof(*tt_threads), GFP_KERNEL);
	if (!tt_threads) {
		ret = -ENOMEM;
		goto out_slots;
	}
	for (n = 0; n < tt_nthreads; n++) {
		struct tt_thread *th = &tt_threads[n];

		th->id = n;
		prandom_seed_state(&th->rnd, seed * 31 + n);
		th->partner.task = kthread_run(tt_partner_fn, &th->partner, "si_tt_pair/%d", n);
		if (IS_ERR(th->partner.task))
			break;
		th->task = kthread_create(tt_stress_fn, th, "si_torture/%d", n);
		if (IS_ERR(th->task)) {
			kthread_stop(th->partner.task);
			break;
		}
		wake_up_process(th->task);
	}
	if (hotplug_interval > 0 && num_online_cpus() > 1 && !tt_online_init())
		tt_hotplug_task = kthread_run(tt_hotplug_fn, NULL, "si_tt_hotplug");
	tt_prio_flipping = prio_flip_ms > 0 &&
			   si_test_read_param("prio", tt_prio_own, sizeof(tt_prio_own));

	deadline = start + duration * HZ;
	flip_at = jiffies + msecs_to_jiffies(prio_flip_ms);
	while (time_before(jiffies, deadline)) {
		msleep_interruptible(min(200, prio_flip_ms > 0 ? prio_flip_ms : 200));
		if (tt_prio_flipping && time_after_eq(jiffies, flip_at)) {
			tt_prio_flip();
			flip_at = jiffies + msecs_to_jiffies(prio_flip_ms);
		}
	}
	if (tt_prio_high)
		tt_prio_flip();
	WRITE_ONCE(tt_stop, true);
	for (i = 0; i < n; i++) {
		kthread_stop(tt_threads[i].task);
		kthread_stop(tt_threads[i].partner.task);
	}
	if (!IS_ERR_OR_NULL(tt_hotplug_task))
		kthread_stop(tt_hotplug_task);
	tt_online_exit();
	secs = (jiffies - start) / HZ;

	/* Reconcile every slot; then every fire-and-forget timer must fire. */
	for (i = 0; i < nr_timers; i++) {
		struct rnd_state r;

		prandom_seed_state(&r, i);
		mutex_lock(&tt_slots[i].owner);
		tt_sync_cancel(&tt_slots[i], &r, true);
		mutex_unlock(&tt_slots[i].owner);
	}
	deadline = jiffies + 20 * HZ;
	while (atomic_long_read(&tt_ff_live) && time_before(jiffies, deadline))
		msleep(20);
	if (atomic_long_read(&tt_ff_live))
		tt_violation(V_LOST, "%ld fire-and-forget timers never fired (20 s after the end)",
			     atomic_long_read(&tt_ff_live));
	msleep(TT_QUARANTINE_NS / NSEC_PER_MSEC + 100);
	tt_quarantine_drain(0);
	tt_hr_exit();

	for (i = 0; i < OP_NR; i++)
		ops += atomic_long_read(&tt_opcount[i]);
	cbs = atomic_long_read(&tt_cb_compat) + atomic_long_read(&tt_cb_soft) +
	      atomic_long_read(&tt_cb_soft_as_compat);
	tt_summary(secs);

	pr_info("KTAP version 1\n");
	pr_info("# Subtest: si_timer_torture\n");
	pr_info("1..%d\n", V_NR + 1);
	ran_ok = n == tt_nthreads && ops > 0 && cbs > 0 &&
		 atomic_long_read(&tt_cb_soft) + atomic_long_read(&tt_cb_soft_as_compat) > 0 &&
		 atomic_long_read(&tt_hr_runs) > 0 && atomic_long_read(&tt_softhr_runs) > 0 &&
		 (!tt_hotplug_task || atomic_long_read(&tt_opcount[OP_HOTPLUG]) > 0) &&
		 (!tt_prio_flipping || atomic_long_read(&tt_prio_flips) > 0);
	if (!ran_ok)
		pr_info("# %d of %d threads, %ld operations, %ld callbacks, %ld hotplug cycles, %ld prio switches\n",
			n, tt_nthreads, ops, cbs, atomic_long_read(&tt_opcount[OP_HOTPLUG]),
			atomic_long_read(&tt_prio_flips));
	pr_info("%sok 1 ran for %lu s with %ld operations and %ld callbacks\n",
		ran_ok ? "" : "not ", secs, ops, cbs);
	for (i = 0; i < V_NR; i++) {
		long v = atomic_long_read(&tt_vcount[i]);

		if (v)
			pr_info("# %ld violations, the first: %s\n", v, tt_vfirst[i]);
		pr_info("%sok %d %s\n", v ? "not " : "", i + 2, tt_vname[i]);
	}
	ret = 0;

	kfree(tt_threads);
out_slots:
	for (i = 0; tt_slots && i < nr_timers; i++)
		kfree(tt_slots[i].tm);
	kfree(tt_slots);
out_bg:
	tt_hr_exit();
	tt_background_exit();
	return ret;
}

static void __exit tt_exit(void)
{
}

module_init(tt_init);
module_exit(tt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer torture: random concurrent API use with invariants checked");
