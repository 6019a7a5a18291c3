// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU executor kthreads and their wake-ups: when a timer of an
 * executor's wheel is due, a HARD hrtimer queues it (expiry.c) and wakes
 * the thread, which runs the callbacks.
 *
 * Which callback runs where, and the state a timer is in meanwhile, are
 * timer.c's design; this file runs what was queued. Notes on the traps
 * found in the RFC's review:
 *
 * - Lock order. The executor takes, in this order: the BH lock (compatible
 *   mode only; where RT has no BH lock, the vector mask instead), cb_lock,
 *   the timer's lockdep map. A soft-interruptible
 *   callback runs under cb_lock without the BH lock and may enter a BH
 *   section itself, so a canceller that holds this CPU's BH lock
 *   (PREEMPT_RT, spin_lock_bh()) must not wait on cb_lock: the RFC's
 *   ABBA. timer.c refuses that wait; on other CPUs it is safe.
 * - Progress. Cancellers never spin on "callback finished": they take
 *   cb_lock, which sleeps with priority inheritance on PREEMPT_RT. On
 *   non-RT cb_lock keeps the callback non-preemptible (like a softirq), so
 *   only code interrupting it on its own CPU could wait forever; that case
 *   is refused too.
 * - Leaving softirq-serving state. On PREEMPT_RT,
 *   __local_bh_enable_ip(SOFTIRQ_OFFSET) at count SOFTIRQ_OFFSET with a
 *   softirq pending leaks the BH lock and an RCU read lock. So compatible
 *   mode nests SOFTIRQ_OFFSET inside an ordinary local_bh_disable(): the
 *   inner enable then never is the last one, and the outer
 *   local_bh_enable() runs pending softirqs through the path both flavours
 *   support. Each disable is paired with one enable (bh_lock_map balance).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jump_label.h>
#include <linux/kernel_stat.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/sched/clock.h>
#include <linux/smpboot.h>
#include <linux/timex.h>
#include <linux/wait_bit.h>
#include <uapi/linux/sched/types.h>
#include "si_timer_internal.h"
#include "debugobjects.h"
#include "vecmask.h"

#define CREATE_TRACE_POINTS
#include "si_trace.h"
#include "take.h"
EXPORT_TRACEPOINT_SYMBOL_GPL(si_timer_expire_entry);
/* For the race tests, which hold callers inside these steps. */
EXPORT_TRACEPOINT_SYMBOL_GPL(si_timer_start);
EXPORT_TRACEPOINT_SYMBOL_GPL(si_timer_cancel);
EXPORT_TRACEPOINT_SYMBOL_GPL(si_timer_queue);
EXPORT_TRACEPOINT_SYMBOL_GPL(si_timer_cancel_sync);
EXPORT_TRACEPOINT_SYMBOL_GPL(si_timer_cancel_wait);
EXPORT_TRACEPOINT_SYMBOL_GPL(si_timer_expire_exit);
EXPORT_TRACEPOINT_SYMBOL_GPL(si_hrtimer_expire);

struct si_executor __percpu *si_executors __read_mostly;
static DEFINE_PER_CPU(struct task_struct *, si_executor_task);
static int si_prio;

/*
 * The most callbacks of one queue that a batch runs. batch_us is what ends
 * a batch; this bounds one should the clock misbehave. Each batch costs
 * a mode section, cb_lock and a round of the thread loop: at 256 that was
 * a tenth of a classic expiry per callback (B5).
 */
#define SI_BATCH	4096

/*
 * The time after which a batch starts no more callbacks, as
 * __do_softirq()'s MAX_SOFTIRQ_TIME or netdev_budget_usecs for NAPI: how
 * long bottom halves may wait behind compatible callbacks, and RCU behind
 * cb_lock on RT, before the executor steps back.
 */
static unsigned int batch_us = 2000;
module_param(batch_us, uint, 0644);
MODULE_PARM_DESC(batch_us, "a batch of callbacks starts no new one after this many us (default 2000); writable");

/*
 * PREEMPT_RT: the priority soft-interruptible batches run at, -1 = the
 * executor's (prio=). Soft hrtimers and timer_list callbacks run in
 * ktimers/N at SCHED_FIFO 1, where the executor runs by default: a busy
 * soft-interruptible callback then holds them back as any busy FIFO 1
 * thread would, mask or not. Below ktimers (0 = SCHED_OTHER) soft hrtimers
 * run in the middle of it, at the price of a callback that CFS tasks may
 * delay (and with it the CPU's timer_list callbacks, which its TIMER mask
 * keeps waiting) and of two priority changes per batch
 * (Documentation/hrtimers.md).
 * Without PREEMPT_RT a soft batch runs with preemption disabled, and the
 * timer softirqs at irq exit: ignored there.
 */
static int soft_prio = -1;

static int si_soft_prio_set(const char *val, const struct kernel_param *kp)
{
	int v, ret = kstrtoint(val, 0, &v);

	if (ret)
		return ret;
	if (v < -1 || v > 99) {
		pr_err("soft_prio=%d out of range -1-99\n", v);
		return -EINVAL;
	}
	WRITE_ONCE(soft_prio, v);
	return 0;
}

static const struct kernel_param_ops si_soft_prio_ops = {
	.set = si_soft_prio_set,
	.get = param_get_int,
};
module_param_cb(soft_prio, &si_soft_prio_ops, &soft_prio, 0644);
MODULE_PARM_DESC(soft_prio, "PREEMPT_RT: priority of soft-interruptible batches, -1 = prio's (default), 0 = SCHED_OTHER (below ktimers: soft hrtimers run in the middle of them), 1-99 = SCHED_FIFO; writable");

/* The executor whose thread is current, or NULL. */
struct si_executor *si_executor_current(void)
{
	unsigned int cpu = raw_smp_processor_id();

	/* An executor is bound to its CPU: if current is one, it is this one. */
	return per_cpu(si_executor_task, cpu) == current ? si_executor_of(cpu) : NULL;
}

/*
 * jiffies minus the number of ticks of the monotonic clock: constant, as
 * the tick keeps jiffies edges at multiples of TICK_NSEC
 * (tick_init_jiffy_update()) and counts the ticks NOHZ skipped. Learnt at
 * load, just after an edge.
 */
static unsigned long si_jiffies_offset;

static void si_learn_jiffies_offset(void)
{
	unsigned long j = jiffies;
	u64 t;

	while (READ_ONCE(jiffies) == j)
		cpu_relax();
	t = ktime_get();
	si_jiffies_offset = READ_ONCE(jiffies) - div_u64(t, TICK_NSEC);
}

/*
 * Set @e's wake-up for its wheel @k's next jiffy. @e locked (raw, irqs
 * off), which both the hrtimer and the timer_list allow under them.
 *
 * The HARD hrtimer is set for the edge of that jiffy: the expiry of the
 * tick that makes it (tick_sched_timer, an hrtimer at every jiffy edge
 * under high resolution and NOHZ, on the TICK_NSEC grid), so that on a
 * CPU whose tick runs both expire in the same pass of the same
 * hrtimer_interrupt(), one interrupt per jiffy as for the kernel's wheel,
 * not two (B9); on an idle CPU it is the interrupt that restarts the
 * tick, as a timer_list's would be. Should jiffies not have been
 * updated yet when it runs (the tick behind it in that pass, or another
 * CPU's tick updates jiffies), it goes once behind the timers due with
 * it (si_executor_wake_fn()), then, still early, it is set again
 * SI_WAKE_RETRY_NS later (1/32 of a tick once the edge is that far
 * behind); should the edge not be where it is expected, no later than a
 * tick after the earliest the jiffy can begin. Deferrable timers
 * are woken by a deferrable timer_list, as they would expire on the
 * kernel's wheel: one pinned to @e's CPU, so that it waits for that CPU,
 * not the arming one, to be busy, as after add_timer_on(). mod_timer()
 * would move it to the calling CPU, so another CPU adds it again on @e's
 * (add_timer_on() of a deferrable timer does not wake an idle CPU).
 *
 * The hrtimer runs on @e's CPU, as a timer_list runs on its base's: the
 * wake-up of the thread is then local. hrtimers start on the CPU that
 * starts them, so another CPU has @e's start it, by IPI (irq_work_queue_on()
 * is not exported); one in flight reads the latest next. Should the IPI
 * fail (@e's CPU going down), this CPU starts it.
 */
#define SI_WAKE_RETRY_NS	(20 * NSEC_PER_USEC)

static void si_executor_start_wake(struct si_executor *e)
{
	unsigned long at = e->wheel[SI_WHEEL_NORMAL].next, now;
	u64 t, edge, when, latest;

	do {
		now = READ_ONCE(jiffies);
		t = ktime_get();
	} while (now != READ_ONCE(jiffies));
	edge = (u64)(at - si_jiffies_offset) * TICK_NSEC;
	when = edge;
	latest = t + (u64)max_t(long, (long)(at - now), 0) * TICK_NSEC + TICK_NSEC;
	if (when <= t && !time_after(at, now))
		when = t;
	else if (when <= t)	/* jiffies late: soon, then less often */
		when = t + (t - edge < TICK_NSEC / 32 ? SI_WAKE_RETRY_NS : TICK_NSEC / 32);
	else if (when > latest)
		when = latest;
	hrtimer_start(&e->wake, ns_to_ktime(when), HRTIMER_MODE_ABS_PINNED_HARD);
}

static void si_executor_set_deferrable_wake(struct si_executor *e)
{
	struct timer_list *wake = &e->deferrable_wake;
	/* the kernel's wheel runs it in the jiffy after its expires */
	unsigned long expires = e->wheel[SI_WHEEL_DEFERRABLE].next - 1;

	if (e->cpu == raw_smp_processor_id() || !cpu_online(e->cpu)) {
		mod_timer(wake, expires);
		return;
	}
	timer_delete(wake);
	wake->expires = expires;
	add_timer_on(wake, e->cpu);
}

void si_executor_set_wake(struct si_executor *e, enum si_wheel_kind k)
{
	if (k == SI_WHEEL_DEFERRABLE) {
		si_executor_set_deferrable_wake(e);
		return;
	}
	if (e->cpu == raw_smp_processor_id()) {
		si_executor_start_wake(e);
	} else if (!e->start_pending) {
		e->start_pending = true;
		if (smp_call_function_single_async(e->cpu, &e->start_wake)) {
			e->start_pending = false;
			si_executor_start_wake(e);
		}
	}
}

/* On @e's CPU (hardirq, also on RT), for another that set its wake-up. */
static void si_executor_start_wake_fn(void *info)
{
	struct si_executor *e = info;
	unsigned long flags;

	raw_spin_lock_irqsave(&e->lock, flags);
	WRITE_ONCE(e->start_pending, false);
	/* stale: the thread sets it (wheel.h) */
	if (e->wheel[SI_WHEEL_NORMAL].wake_set && !e->wheel[SI_WHEEL_NORMAL].stale)
		si_executor_start_wake(e);
	raw_spin_unlock_irqrestore(&e->lock, flags);
}

/*
 * A wake-up fired (HARD hrtimer: interrupts off, even on RT): queue what
 * is due in wheel @k, up to SI_EXPIRE_IRQ of them, and wake the thread if
 * its queues were idle or timers are left for it to queue. One that finds
 * the queues busy comes after the wake-up of whoever made them so, and
 * the executor looks at its queues before it sleeps.
 */
#define SI_EXPIRE_IRQ	64

static void si_executor_expire(struct si_executor *e, enum si_wheel_kind k)
{
	bool idle, more, kick, lazy;
	unsigned long flags;

	raw_spin_lock_irqsave(&e->lock, flags);
	idle = si_executor_idle(e);
	/* the thread's to find the next due jiffy if it is idle: woken below */
	lazy = k == SI_WHEEL_NORMAL && idle && !e->overdue && !READ_ONCE(e->running);
	more = si_timer_collect(e, k, SI_EXPIRE_IRQ, lazy);
	if (more)
		WRITE_ONCE(e->overdue, true);
	kick = more || (idle && !si_executor_idle(e));
	raw_spin_unlock_irqrestore(&e->lock, flags);
	if (kick)
		si_executor_kick(e);
}

/*
 * Due at a jiffy edge, with the tick (si_executor_start_wake()). If
 * jiffies is not there yet, the tick that updates it may be behind us in
 * this pass of hrtimer_interrupt(), due at the same time: once, go behind
 * it (re-enqueued with the same expiry, this pass runs us again after
 * it) rather than in an interrupt of our own. Unlocked looks: a wake-up
 * set meanwhile for another jiffy costs at most that pass.
 */
static enum hrtimer_restart si_executor_wake_fn(struct hrtimer *wake)
{
	struct si_executor *e = container_of(wake, struct si_executor, wake);
	unsigned long at = READ_ONCE(e->wheel[SI_WHEEL_NORMAL].next);

	if (!e->wake_requeued && time_before(READ_ONCE(jiffies), at) &&
	    ktime_to_ns(hrtimer_get_expires(wake)) == (s64)(at - si_jiffies_offset) * TICK_NSEC) {
		e->wake_requeued = true;
		return HRTIMER_RESTART;
	}
	e->wake_requeued = false;
	si_executor_expire(e, SI_WHEEL_NORMAL);
	return HRTIMER_NORESTART;
}

static void si_executor_deferrable_wake_fn(struct timer_list *wake)
{
	struct si_executor *e = timer_container_of(e, wake, deferrable_wake);

	si_executor_expire(e, SI_WHEEL_DEFERRABLE);
}

void si_executor_kick(struct si_executor *e)
{
	struct task_struct *task = per_cpu(si_executor_task, e->cpu);

	/* No thread yet: its CPU is coming up and it runs the queue first. */
	if (task)
		wake_up_process(task);
}

/*
 * Lock and return the executor of @cpu if it runs, else that of another
 * online CPU (@cpu going down). Interrupts off. Only one CPU goes down at a
 * time, so one is always found, except while si_timer loads or unloads,
 * when no timer can expire.
 */
struct si_executor *si_executor_lock_live(unsigned int cpu)
	__acquires(e->lock)
{
	struct si_executor *e = si_executor_of(cpu);
	unsigned int other;

	raw_spin_lock(&e->lock);
	if (!e->parked)
		return e;
	raw_spin_unlock(&e->lock);
	for_each_online_cpu(other) {
		e = si_executor_of(other);
		raw_spin_lock(&e->lock);
		if (!e->parked)
			return e;
		raw_spin_unlock(&e->lock);
	}
	WARN_ONCE(1, "si_timer: no executor running, queueing on CPU %u\n", cpu);
	e = si_executor_of(cpu);
	raw_spin_lock(&e->lock);
	return e;
}

/*
 * Wait until the callback running on @e now has returned: the executor
 * holds cb_lock across it (on PREEMPT_RT a sleeping lock with priority
 * inheritance, like the kernel's timer expiry_lock) and lets waiters have
 * it before the next one.
 */
void si_executor_wait_callback(struct si_executor *e)
{
	/* Counted, so that a batch lets us in after this callback. */
	atomic_inc(&e->cb_waiters);
	spin_lock(&e->cb_lock);
	spin_unlock(&e->cb_lock);
	if (atomic_dec_and_test(&e->cb_waiters))
		wake_up_var(&e->cb_waiters);
}

/*
 * Enter softirq-serving state (in_serving_softirq() true, other softirqs of
 * this CPU held off; on RT the BH lock held). See the notes at the top for
 * why SOFTIRQ_OFFSET nests inside an ordinary BH-disabled section.
 */
static void si_enter_softirq(void)
{
	local_bh_disable();
	__local_bh_disable_ip(_THIS_IP_, SOFTIRQ_OFFSET);
}

static void si_leave_softirq(void)
{
	__local_bh_enable_ip(_THIS_IP_, SOFTIRQ_OFFSET);
	local_bh_enable();
}

/*
 * What a callback leaked, repaired as call_timer_fn() does. On RT the BH
 * count is not part of the preempt count; elsewhere it is, and @bh was
 * not read.
 */
static noinline void si_repair_leak(const void *fn, int preempt, unsigned long bh)
{
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		bh = preempt & SOFTIRQ_MASK;
	if (softirq_count() != bh) {
		WARN_ONCE(1, "si_timer: callback %ps left bottom halves disabled: %08lx -> %08lx\n",
			  fn, bh, (unsigned long)softirq_count());
		while (softirq_count() > bh)
			local_bh_enable();
	}
	if (preempt_count() != preempt) {
		WARN_ONCE(1, "si_timer: callback %ps leaked preempt count: %08x -> %08x\n",
			  fn, preempt, preempt_count());
		preempt_count_set(preempt);
	}
}

/*
 * Run one callback. It may free its timer: from here on only the pointer
 * value is used.
 */
static void si_call(struct si_executor *e, struct si_timer *timer, si_timer_func_t fn,
		    struct lockdep_map *map, bool soft)
{
	int preempt = preempt_count();
	unsigned long bh = IS_ENABLED(CONFIG_PREEMPT_RT) ? softirq_count() : 0;

	/*
	 * Lockdep sees the callback like a timer's, in its mode's subclass
	 * (si_lockdep_subclass()): the map is held while it
	 * runs and si_timer_delete_sync() takes it. Acquired with irqs off,
	 * as timer_delete_sync() does, so that neither records an "irqs
	 * enabled" usage that a cancel from a softirq would contradict.
	 */
	if (IS_ENABLED(CONFIG_LOCKDEP)) {
		unsigned long flags;

		local_irq_save(flags);
		lock_acquire_exclusive(map, soft, 0, NULL, _THIS_IP_);
		local_irq_restore(flags);
	}
	trace_si_timer_expire_entry(timer, soft);
	fn(timer);
	/*
	 * Returned: from here a softirq run on this CPU (irq exit,
	 * local_bh_enable()) or a canceller elsewhere must not find it
	 * running, nor wait for it. Without e->lock, which is not retaken
	 * until the next callback or the end of the batch: released, so that
	 * a canceller that reads NULL sees what the callback did. The first
	 * thing after the call, so that no softirq finds it stale.
	 */
	smp_store_release(&e->running, NULL);
	lock_map_release(map);
	trace_si_timer_expire_exit(timer, e->running_cb, soft);

	/* one branch for both counts: this runs once per expiry (B5) */
	if (unlikely((preempt_count() ^ preempt) |
		     (IS_ENABLED(CONFIG_PREEMPT_RT) ? softirq_count() ^ bh : 0)))
		si_repair_leak(e->running_cb, preempt, bh);
}

static void si_softirqs_read(unsigned int cpu, unsigned int *count)
{
	int i;

	for (i = 0; i < NR_SOFTIRQS; i++)
		count[i] = kstat_softirqs_cpu(i, cpu);
}

/*
 * Every callback is timed, for batch_us and debugfs's longest callback.
 * local_clock() would cost half of what a classic timer's whole expiry
 * does (B5); the CPU's cycle counter costs a few instructions, and the run
 * loop keeps its readings as they are: the batch budget is converted to
 * cycles once per batch, the longest callback to ns where it is read. The
 * counter's rate is measured once at load against local_clock()
 * (si_cycles_mult, in ns per cycle << SI_CYCLES_SHIFT) and taken to be
 * every CPU's, as x86's constant TSC is; where get_cycles() counts nothing,
 * or too slowly for that, local_clock() it is.
 */
#define SI_CYCLES_SHIFT		20
#define SI_CYCLES_CALIBRATE_US	2000

static DEFINE_STATIC_KEY_TRUE(si_clock_is_cycles);
static u32 si_cycles_mult __read_mostly;

static __always_inline u64 si_now(void)
{
	if (static_branch_likely(&si_clock_is_cycles))
		return get_cycles();
	return local_clock();
}

/* An interval of si_now() readings, in ns. */
u64 si_clock_to_ns(u64 delta)
{
	if (static_branch_likely(&si_clock_is_cycles))
		return mul_u64_u32_shr(delta, si_cycles_mult, SI_CYCLES_SHIFT);
	return delta;
}

static u64 si_ns_to_clock(u64 ns)
{
	if (static_branch_likely(&si_clock_is_cycles))
		return div_u64(min_t(u64, ns, U64_MAX >> SI_CYCLES_SHIFT) << SI_CYCLES_SHIFT,
			       si_cycles_mult);
	return ns;
}

struct si_clock_sample {
	u64 cycles;
	u64 ns;
};

static void si_sample_clocks(void *arg)
{
	struct si_clock_sample *s = arg;

	s->cycles = get_cycles();
	s->ns = local_clock();
}

/* Both samples on one CPU, its cycle counter and its local_clock(). */
static void si_calibrate_cycles(void)
{
	struct si_clock_sample a, b;
	unsigned int cpu;
	u64 mult = 0;
	int ret;

	cpus_read_lock();
	cpu = cpumask_first(cpu_online_mask);
	ret = smp_call_function_single(cpu, si_sample_clocks, &a, 1);
	usleep_range(SI_CYCLES_CALIBRATE_US, 2 * SI_CYCLES_CALIBRATE_US);
	ret = ret ?: smp_call_function_single(cpu, si_sample_clocks, &b, 1);
	cpus_read_unlock();
	if (!ret && b.cycles > a.cycles)
		mult = div64_u64((b.ns - a.ns) << SI_CYCLES_SHIFT, b.cycles - a.cycles);
	si_cycles_mult = mult <= U32_MAX ? mult : 0;
	if (!si_cycles_mult) {
		pr_info("no usable cycle counter, timing callbacks by local_clock()\n");
		static_branch_disable(&si_clock_is_cycles);
	}
}

/*
 * A canceller waited on cb_lock for a callback of the batch that just
 * ended: give it the time of a batch to take the lock before we take it
 * again, as timer_sync_wait_running() lets the kernel's expiry_lock go. On
 * PREEMPT_RT cb_lock is an rt_mutex, which lets a SCHED_FIFO executor
 * steal it straight back from a lower-priority waiter it has just woken.
 * Bounded, because such a waiter may not get a CPU: the executor must not
 * wait on it for longer than on a batch of callbacks. Called outside any
 * BH section: on RT those are RCU read-side sections.
 *
 * A waiter that did not come in within that time is not getting its CPU
 * (a higher-priority task holds it): waiting for it after every callback
 * would throttle the executor to a callback per wait, where the kernel's
 * expiry goes on at full speed. So for SI_STARVED_WAITS waits' worth of
 * time the waiters no longer end batches nor are waited for; cb_lock is
 * still let go between batches. Once no one waits, or that time is over,
 * they are let in after their callback again. The price: a starved waiter
 * that gets its CPU back meanwhile may wait out that time (128 ms at HZ
 * 250) if the executor has callbacks to run throughout; at 8 waits the
 * executor kept 20-50% of its rate on 6.12-rt, too little.
 */
#define SI_STARVED_WAITS	32

static bool si_waiters_ignored(struct si_executor *e)
{
	return time_before64(get_jiffies_64(), e->waiters_ignored_until);
}

static void si_let_waiters_in(struct si_executor *e)
{
	unsigned long timeout = usecs_to_jiffies(READ_ONCE(batch_us));

	if (si_waiters_ignored(e))
		return;
	if (!wait_var_event_timeout(&e->cb_waiters, !atomic_read(&e->cb_waiters), timeout))
		e->waiters_ignored_until = get_jiffies_64() + SI_STARVED_WAITS * timeout;
}

/*
 * On PREEMPT_RT a soft hrtimer that runs in the middle of a soft batch runs
 * in another task (ktimers, ksoftirqd) that the executor may preempt again
 * before it is done: the next callback must not start then (si_run_batch()).
 * Only tracked handlers can be seen in progress; untracked, RT masks
 * HRTIMER too, as it does for SI_TIMER_MASK_HRTIMER.
 */
static bool si_soft_hrtimers_may_interrupt(void)
{
	return !IS_ENABLED(CONFIG_PREEMPT_RT) || si_vecmask_waits_for_handler_only();
}

/*
 * The timer vectors a soft-interruptible batch of @q masks: TIMER, as the
 * seed's call_timer_fn() does, so that callbacks of timer_list and
 * si_timer never interleave on a CPU and soft hrtimers run meanwhile;
 * HRTIMER too for callbacks that asked (SI_TIMER_MASK_HRTIMER), and where
 * a soft hrtimer in progress could not be told (above).
 */
static unsigned long si_soft_mask(enum si_queue q)
{
	return q == SI_Q_SOFT && si_soft_hrtimers_may_interrupt() ?
	       BIT(TIMER_SOFTIRQ) : SI_TIMER_VECTORS;
}

static int si_executor_set_prio(struct task_struct *task, unsigned int cpu, int prio);

/* PREEMPT_RT: a soft batch at soft_prio; true if it changed the executor's. */
static bool si_soft_prio_enter(struct si_executor *e)
{
	int to = READ_ONCE(soft_prio);

	return IS_ENABLED(CONFIG_PREEMPT_RT) && to >= 0 && to != READ_ONCE(si_prio) &&
	       !si_executor_set_prio(current, e->cpu, to);
}

/*
 * Run the callbacks queued on @q, up to SI_BATCH of them or batch_us
 * worth, in one mode section (one vector mask, or one softirq-serving
 * section) and under one cb_lock, as __run_timers() runs a base's expired
 * timers under one expiry_lock: per-callback cost is one round trip of
 * @e's lock. A canceller waiting for one of them (si_executor_wait_callback())
 * ends the batch. Returns true if it stopped with callbacks left to run.
 */
static bool si_run_batch(struct si_executor *e, enum si_queue q)
{
	unsigned int softirqs[NR_SOFTIRQS];
	bool soft_prio_set = false;
	struct si_timer *timer;
	u64 budget = si_ns_to_clock((u64)READ_ONCE(batch_us) * NSEC_PER_USEC);
	unsigned long masked = 0;
	unsigned int n = 0;
	bool soft = false;
	u64 deadline, now;
	int i;

	if (si_fifo_empty(&e->queue[q]) && !READ_ONCE(e->overdue))
		return false;

	if (q != SI_Q_COMPAT && si_vecmask_available()) {
		/*
		 * Off PREEMPT_RT cb_lock makes the callbacks non-preemptible, and
		 * the mask must not outlast that: a task that preempted us in
		 * between (woken by a callback, at the unlock; or at the
		 * masking's local_bh_enable()) would run with this CPU's timer
		 * vectors masked, holding back every classic timer and soft
		 * hrtimer masked here until we ran again. So the section spans the
		 * mask, and the unmask runs what it deferred before anyone we
		 * woke gets the CPU. On RT the executor is preemptible by
		 * design, cb_lock sleeps and boosts it.
		 */
		if (!IS_ENABLED(CONFIG_PREEMPT_RT))
			preempt_disable();
		masked = si_soft_mask(q);
		si_vecmask_disable(masked);
		soft = true;
		soft_prio_set = si_soft_prio_enter(e);
		si_softirqs_read(e->cpu, softirqs);
	} else {
		/*
		 * Compatible mode, also the fallback without the vector mask.
		 * Where RT has no BH lock, a softirq-serving section excludes
		 * nothing: masking keeps the CPU's timer vector handlers out
		 * of it, so that callbacks of one CPU still never interleave.
		 */
		if (SI_RT_NO_BH_LOCK && si_vecmask_available()) {
			masked = SI_TIMER_VECTORS;
			si_vecmask_disable(masked);
		}
		si_enter_softirq();
	}

	spin_lock(&e->cb_lock);
	raw_spin_lock_irq(&e->lock);
	/* the wake-up left the next due jiffy to us: before any callback */
	if (unlikely(e->wheel[SI_WHEEL_NORMAL].stale))
		si_timer_unstale(e);
	WRITE_ONCE(e->running_soft, soft);	/* read by timer.c's cycle check */
	now = si_now();
	/* clamped so that the deadline cannot wrap: the clocks start near 0 */
	deadline = now + min(budget, U64_MAX / 2);
	/*
	 * Before each callback: a soft hrtimer that began while we were
	 * blocked or preempted (HRTIMER is not masked here), and that we
	 * preempted, must not have a callback start in the middle of it. The
	 * batch ends; the next one's masking waits for it, without cb_lock,
	 * which its callbacks may want. Then @timer is the last one run, or
	 * NULL: "none left", and the smpboot loop finds the queue not empty.
	 */
	timer = NULL;
	while (!(masked && si_vecmask_handler_in_progress()) &&
	       (timer = si_timer_take_next(e, q))) {
		si_timer_func_t fn = timer->function;
		struct lockdep_map map;
		u64 took;

		/* not pending any more, and the callback may free it */
		si_debug_deactivate(timer);
		WRITE_ONCE(e->running, timer);
		e->running_cb = si_callback_named(timer, fn);
		e->running_armed_at = timer->armed_at;
		si_lockdep_copy(&map, timer);
		raw_spin_unlock_irq(&e->lock);

		si_call(e, timer, fn, &map, soft);
		took = now;
		now = si_now();
		took = now - took;

		raw_spin_lock_irq(&e->lock);
		if (took > e->longest) {
			e->longest = took;
			e->longest_cb = e->running_cb;
		}
		/* Full, out of time, or a canceller waits: let it in. */
		if (++n == SI_BATCH || now >= deadline ||
		    (atomic_read(&e->cb_waiters) && !si_waiters_ignored(e)))
			break;
	}
	e->ran[q] += n;
	if (soft) {
		for (i = 0; i < NR_SOFTIRQS; i++)
			e->soft_softirqs[i] += kstat_softirqs_cpu(i, e->cpu) - softirqs[i];
	}
	raw_spin_unlock_irq(&e->lock);
	spin_unlock(&e->cb_lock);

	if (!soft)
		si_leave_softirq();
	/*
	 * prio= again before the unmask, which runs the timer vectors it
	 * deferred: at prio=, as ktimers would. Whatever prio= says now: a
	 * write meanwhile set it on every executor, and ours was overridden.
	 */
	if (soft_prio_set)
		si_executor_set_prio(current, e->cpu, READ_ONCE(si_prio));
	if (masked)
		si_vecmask_enable(masked);
	if (soft && !IS_ENABLED(CONFIG_PREEMPT_RT))
		preempt_enable();
	if (atomic_read(&e->cb_waiters))
		si_let_waiters_in(e);
	else
		e->waiters_ignored_until = 0;
	return timer;
}

static int si_executor_should_run(unsigned int cpu)
{
	struct si_executor *e = si_executor_of(cpu);

	return READ_ONCE(e->overdue) || !si_executor_idle(e);
}

static void si_executor_fn(unsigned int cpu)
{
	struct si_executor *e = si_executor_of(cpu);
	bool more;

	more = si_run_batch(e, SI_Q_COMPAT);
	more |= si_run_batch(e, SI_Q_SOFT);
	more |= si_run_batch(e, SI_Q_SOFT_HRMASKED);
	/*
	 * A backlog: let others in (hotplug's park request, SCHED_OTHER tasks
	 * at prio=0) and let RCU see a quiescent state, as ksoftirqd does
	 * between rounds. On PREEMPT_RT every callback runs inside cb_lock,
	 * an RCU read-side section there, so ticks rarely find one and a
	 * backlog would hold up grace periods (and CPU hotplug, which waits
	 * for them) until drained; cond_resched() reports nothing under full
	 * preemption. schedule() does, even when it picks us again. The
	 * smpboot loop checks for parking before each round.
	 */
	if (more)
		schedule();
}

static void si_executor_unpark(unsigned int cpu)
{
	struct si_executor *e = si_executor_of(cpu);

	raw_spin_lock_irq(&e->lock);
	e->parked = false;
	raw_spin_unlock_irq(&e->lock);
}

static int si_executor_set_prio(struct task_struct *task, unsigned int cpu, int prio)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = prio ? SCHED_FIFO : SCHED_NORMAL,
		.sched_priority = prio,
	};
	int ret = sched_setattr_nocheck(task, &attr);

	if (ret)
		pr_warn("executor %u: cannot set priority %d: %d\n", cpu, prio, ret);
	return ret;
}

static void si_executor_setup(unsigned int cpu)
{
	si_executor_set_prio(current, cpu, READ_ONCE(si_prio));
	si_executor_unpark(cpu);
}

/*
 * The prio parameter written: every executor thread, parked ones too, and
 * those that CPUs coming online later create (si_executor_setup() reads
 * si_prio, set first), run at @prio.
 */
int si_executors_set_prio(int prio)
{
	unsigned int cpu;
	int ret = 0;

	cpus_read_lock();
	WRITE_ONCE(si_prio, prio);
	for_each_possible_cpu(cpu) {
		struct task_struct *task = per_cpu(si_executor_task, cpu);

		if (task)
			ret = si_executor_set_prio(task, cpu, prio) ?: ret;
	}
	cpus_read_unlock();
	return ret;
}

/*
 * How many timers one hold of both locks moves when a CPU goes down. The
 * kernel moves a dead CPU's timer_lists all at once, both bases locked
 * with interrupts off on the control CPU, for as long as that takes
 * (0.56-0.99 s for 1,000,000 under QEMU TCG); moving ours all at once cost
 * as much on the dying CPU and on the heir, whose wake-ups wait for its
 * lock in hard interrupt context. A chunk bounds both to the time of this
 * many moves (each a few hlist operations, whatever the number armed).
 */
#define SI_HANDOVER_CHUNK	256

/*
 * Between two chunks both locks are let go for this long. Under a
 * hypervisor without paravirt spinlocks (QEMU TCG: the test VMs) x86's
 * spin locks are test-and-set (virt_spin_lock()), not fair: a waiter that
 * does not see the lock free before the next chunk takes it again waits
 * for chunk after chunk. Taken again at once, the heir's wake-ups, which
 * spin on its lock in hard interrupt context, and a cancel on the dying
 * CPU's waited 70-330 ms under TCG. The gap is a loop of cpu_relax(),
 * which there lets the other vCPUs run; not ndelay(), which counts by the
 * CPU's calibrated loops: under TCG short enough not to pause at all
 * (6.1).
 */
#define SI_HANDOVER_GAP_NS	1000

/*
 * A hand-over longer than this sleeps a moment before its next chunk:
 * cond_resched() lets a task of higher priority in, but not the
 * SCHED_FIFO 1 threads of this CPU at the executor's own priority (rcuc,
 * ktimers). A hand-over of 1,000,000 timers that took 37 s on a loaded
 * TCG host (1-3 s as a rule) starved rcuc into an RCU stall warning.
 */
#define SI_HANDOVER_SLEEP_EVERY_NS	(100 * NSEC_PER_MSEC)

/*
 * Move up to @budget timers of parked @e to @heir (both locked): its
 * queues first (due, in order, to the end of the heir's: *@queued set if
 * any), then its wheels, the due ones and the nearest levels first
 * (expiry.c), then its si_hrtimers (hrtimer.c: the kernel fires those
 * wherever they are homed; one that fires on @e before it moved is queued
 * there, and the next chunk begins with the queues). Returns the budget
 * left, not 0 only once @e has nothing left: each timer is taken from
 * the head of its list, so that @e's lists stay as a cancel leaves them.
 */
static unsigned int si_executor_move(struct si_executor *e, struct si_executor *heir,
				     unsigned int budget, bool *queued)
{
	struct si_timer *timer;
	int q;

	for (q = 0; q < SI_NR_QUEUES; q++) {
		while (budget && (timer = si_fifo_first(&e->queue[q]))) {
			si_fifo_del(&e->queue[q], timer);
			si_fifo_add(&heir->queue[q], timer);
			si_timer_rehome(timer, heir);
			*queued = true;
			budget--;
		}
	}
	budget = si_timer_move_wheels(e, heir, budget);
	return si_hrtimer_move(e, heir, budget);
}

/*
 * A chunk of parked @e's timers (@e locked) to another online executor
 * that runs (its lock nested in @e's: only one CPU goes down at a time, so
 * this cannot deadlock): returns that executor, *@left set as
 * si_executor_move() returns, or NULL if none runs.
 */
static struct si_executor *si_executor_hand_over(struct si_executor *e, unsigned int *left,
						 bool *queued)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct si_executor *heir = si_executor_of(cpu);

		if (heir == e)
			continue;
		raw_spin_lock_nested(&heir->lock, SINGLE_DEPTH_NESTING);
		if (heir->parked) {
			raw_spin_unlock(&heir->lock);
			continue;
		}
		*left = si_executor_move(e, heir, SI_HANDOVER_CHUNK, queued);
		raw_spin_unlock(&heir->lock);
		return heir;
	}
	return NULL;
}

/*
 * Parked, and its timers handed to a live executor, woken for what was
 * queued: false if none runs. SI_HANDOVER_CHUNK timers per hold of both
 * locks, interrupts on and a chance to reschedule in between (task
 * context: the parking thread, or the CPU's teardown on the control CPU).
 * Parked, @e takes no new timer (si_arm(), si_executor_lock_live()), but
 * in between its timers are still found where their state says: cancels
 * take @e's lock, and its wake-ups (the HARD hrtimer, the deferrable
 * timer_list, an si_hrtimer's) may still queue what comes due, which the
 * next chunk moves on. The heir is looked for again for each chunk.
 */
static bool si_executor_retire(struct si_executor *e)
{
	struct si_executor *heir;
	unsigned int left = 0;
	bool queued;
	u64 gap, slept;

	raw_spin_lock_irq(&e->lock);
	e->parked = true;
	raw_spin_unlock_irq(&e->lock);
	slept = local_clock();
	for (;;) {
		queued = false;
		raw_spin_lock_irq(&e->lock);
		heir = si_executor_hand_over(e, &left, &queued);
		/* all moved: the due ones wake the heir as they arrive */
		if (heir && left)
			WRITE_ONCE(e->overdue, false);
		raw_spin_unlock_irq(&e->lock);
		if (!heir)
			return false;
		if (queued)
			si_executor_kick(heir);
		if (left)
			return true;
		cond_resched();
		gap = local_clock();
		if (gap - slept > SI_HANDOVER_SLEEP_EVERY_NS) {
			usleep_range(10, 50);
			slept = local_clock();
			continue;
		}
		do
			cpu_relax();
		while (local_clock() - gap < SI_HANDOVER_GAP_NS);
	}
}

/*
 * The CPU goes down: this executor's timers, armed and queued, move to a
 * live one, as the kernel migrates the timers of a dead CPU. Only one CPU
 * goes down at a time, so the nested lock cannot deadlock and an heir is
 * found; should none be, the queued callbacks run here before the thread
 * parks, never stranded, and the armed timers wait for the CPU to return.
 */
static void si_executor_park(unsigned int cpu)
{
	struct si_executor *e = si_executor_of(cpu);

	if (si_executor_retire(e) || si_executor_idle(e))
		return;
	pr_warn("executor %u parks with callbacks queued and no other executor running: running them first\n",
		cpu);
	/* Parked: nothing new is queued here, the queue only drains. */
	while (!si_executor_idle(e)) {
		si_run_batch(e, SI_Q_COMPAT);
		si_run_batch(e, SI_Q_SOFT);
		si_run_batch(e, SI_Q_SOFT_HRMASKED);
	}
}

/*
 * The executor of a CPU coming online takes timers from the moment it can
 * be armed on, as the kernel's timer base is ready from
 * timers_prepare_cpu() on: a prepare state, run before the CPU boots,
 * before any online callback of a driver (CPUHP_AP_ONLINE_DYN) and before
 * the CPU is in cpu_online_mask. Its thread is still parked then, so the
 * callbacks that become due wait on its queue until it runs (a parked
 * thread ignores wake-ups: si_executor_kick()). The unpark callback is
 * too late for it: it runs when that thread first gets the CPU, after the
 * online callbacks or long after, and a timer armed on the CPU meanwhile
 * would go to another one for good (si_executor_lock_live()), and a pinned
 * one re-arming itself stay there.
 */
static enum cpuhp_state si_executor_hp_state;

static int si_executor_prepare_cpu(unsigned int cpu)
{
	si_executor_unpark(cpu);
	return 0;
}

/*
 * The CPU is dead, or did not come up after si_executor_prepare_cpu(). If
 * it came up, the executor handed over and parked on the way down; if
 * not, timers armed on it since its prepare step (si_add_timer_on() from
 * a later prepare callback) are handed over now. Either way, parked; and
 * nothing left behind.
 */
static int si_executor_dead_cpu(unsigned int cpu)
{
	si_executor_retire(si_executor_of(cpu));
	return 0;
}

/*
 * debugfs' executors line of @cpu. The queues are counted under the lock,
 * irqs off: up to SI_SHOW_QUEUED_MAX timers each, so that the read stays
 * short however many are queued (hotplug or a starved executor can queue
 * any number); more is printed ">N".
 */
#define SI_SHOW_QUEUED_MAX	1000

static void si_show_queued(struct seq_file *m, unsigned int a, unsigned int b)
{
	bool more = a > SI_SHOW_QUEUED_MAX || b > SI_SHOW_QUEUED_MAX;

	seq_printf(m, more ? ">%u " : "%u ",
		   min(a, SI_SHOW_QUEUED_MAX) + min(b, SI_SHOW_QUEUED_MAX));
}

void si_executor_show(struct seq_file *m, unsigned int cpu)
{
	struct si_executor *e = si_executor_of(cpu);
	unsigned int queued[SI_NR_QUEUES] = { 0 };
	unsigned long ran[SI_NR_QUEUES];
	struct hlist_node *node;
	const void *running;
	bool parked;
	int q;

	raw_spin_lock_irq(&e->lock);
	for (q = 0; q < SI_NR_QUEUES; q++) {
		hlist_for_each(node, &e->queue[q].head)
			if (++queued[q] > SI_SHOW_QUEUED_MAX)
				break;
		ran[q] = e->ran[q];
	}
	running = READ_ONCE(e->running) ? e->running_cb : NULL;
	parked = e->parked;
	raw_spin_unlock_irq(&e->lock);

	/* both soft-interruptible queues in one column: the format is kept */
	seq_printf(m, "%u %d ", cpu, parked);
	si_show_queued(m, queued[SI_Q_COMPAT], 0);
	si_show_queued(m, queued[SI_Q_SOFT], queued[SI_Q_SOFT_HRMASKED]);
	seq_printf(m, "%lu %lu ", ran[SI_Q_COMPAT], ran[SI_Q_SOFT] + ran[SI_Q_SOFT_HRMASKED]);
	if (running)
		seq_printf(m, "%ps\n", running);
	else
		seq_puts(m, "-\n");
}

static struct smp_hotplug_thread si_executor_threads = {
	.store			= &si_executor_task,
	.thread_should_run	= si_executor_should_run,
	.thread_fn		= si_executor_fn,
	.thread_comm		= "si_timer/%u",
	.setup			= si_executor_setup,
	.park			= si_executor_park,
	.unpark			= si_executor_unpark,
};

int si_executors_init(int prio)
{
	unsigned int cpu;
	int q, k, ret;

	si_executors = alloc_percpu(struct si_executor);
	if (!si_executors)
		return -ENOMEM;
	si_prio = prio;
	si_learn_jiffies_offset();
	si_calibrate_cycles();
	for_each_possible_cpu(cpu) {
		struct si_executor *e = si_executor_of(cpu);

		raw_spin_lock_init(&e->lock);
		spin_lock_init(&e->cb_lock);
		/*
		 * Compatible callbacks run under BH then cb_lock, soft-interruptible
		 * ones under cb_lock then whatever BH section they enter: a cycle
		 * for lockdep, which sees all CPUs' BH locks as one. Cancellers on
		 * another CPU never deadlock on it and the same-CPU case is
		 * refused (timer.c), so lockdep follows callbacks through each
		 * timer's own map instead and does not track cb_lock at all
		 * (its novalidate class would still check wait contexts, and
		 * share them with every device mutex).
		 */
		lockdep_set_notrack_class(&e->cb_lock);
		atomic_set(&e->cb_waiters, 0);
		for (q = 0; q < SI_NR_QUEUES; q++)
			si_fifo_init(&e->queue[q]);
		for (k = 0; k < SI_NR_WHEELS; k++)
			si_wheel_init(&e->wheel[k], jiffies);
		INIT_HLIST_HEAD(&e->hr_armed);
		hrtimer_setup(&e->wake, si_executor_wake_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS_PINNED_HARD);
		INIT_CSD(&e->start_wake, si_executor_start_wake_fn, e);
		timer_setup(&e->deferrable_wake, si_executor_deferrable_wake_fn,
			    TIMER_DEFERRABLE | TIMER_PINNED);
		e->overdue = false;
		/*
		 * Not parked: a CPU coming online may expire timers before its
		 * executor's first run; they wait on its queue until then.
		 * Those of CPUs not online are parked below, once the hotplug
		 * callbacks that unpark them are in place.
		 */
		e->cpu = cpu;
		e->parked = false;
		e->start_pending = false;
		e->wake_requeued = false;
	}
	ret = smpboot_register_percpu_thread(&si_executor_threads);
	if (ret)
		goto out_free;
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "si_timer:prepare",
					si_executor_prepare_cpu, si_executor_dead_cpu);
	if (ret < 0) {
		smpboot_unregister_percpu_thread(&si_executor_threads);
		goto out_free;
	}
	si_executor_hp_state = ret;
	/*
	 * The executors of CPUs not online (nor coming up: hotplug waits for
	 * cpus_read_unlock()) park until their prepare step, so that a timer
	 * armed there meanwhile (si_add_timer_on()) goes to a live executor
	 * instead of waiting, threadless, for a CPU that may never come.
	 */
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (!cpu_online(cpu)) {
			struct si_executor *e = si_executor_of(cpu);

			raw_spin_lock_irq(&e->lock);
			e->parked = true;
			raw_spin_unlock_irq(&e->lock);
		}
	}
	cpus_read_unlock();
	return 0;
out_free:
	free_percpu(si_executors);
	return ret;
}

void si_executors_exit(void)
{
	unsigned int cpu;

	/*
	 * No timer is armed now, so no start_wake IPI is sent: wait for those
	 * in flight to clear start_pending, then to return (handlers run with
	 * interrupts off: an RCU read-side section).
	 */
	for_each_possible_cpu(cpu)
		while (READ_ONCE(si_executor_of(cpu)->start_pending))
			cpu_relax();
	synchronize_rcu();
	/* Before the threads go: a wake-up in flight would wake a freed one. */
	for_each_possible_cpu(cpu) {
		hrtimer_cancel(&si_executor_of(cpu)->wake);
		timer_shutdown_sync(&si_executor_of(cpu)->deferrable_wake);
	}
	cpuhp_remove_state_nocalls(si_executor_hp_state);
	smpboot_unregister_percpu_thread(&si_executor_threads);
	/*
	 * Users hold a module reference, and unload.c cancelled what each
	 * left behind, so nothing can still be queued or armed.
	 */
	for_each_possible_cpu(cpu) {
		struct si_executor *e = si_executor_of(cpu);
		int k;

		WARN_ONCE(!si_executor_idle(e),
			  "si_timer: callbacks left queued on CPU %u at unload\n", cpu);
		for (k = 0; k < SI_NR_WHEELS; k++)
			WARN_ONCE(!si_wheel_empty(&e->wheel[k]),
				  "si_timer: timers left armed on CPU %u at unload\n", cpu);
		WARN_ONCE(!hlist_empty(&e->hr_armed),
			  "si_timer: si_hrtimers left armed on CPU %u at unload\n", cpu);
	}
	free_percpu(si_executors);
}
