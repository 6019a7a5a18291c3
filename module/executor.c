// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU executor kthreads: they run si_timer callbacks that the kernel's
 * own timer wheel handed over (si_timer_wheel_fn() queues, never calls).
 *
 * Design notes, answering the traps found in the RFC's review:
 *
 * - Lock order. The executor takes, in this order and never the other way
 *   round: the BH lock (compatible mode only), cb_lock, the timer's lockdep
 *   map. It drops cb_lock before it leaves or re-enters a BH section, so a
 *   canceller that holds BH disabled (spin_lock_bh()) and waits on cb_lock
 *   cannot close an ABBA cycle with it: the RFC's call_timer_fn() re-took
 *   the BH lock while holding the expiry lock, which lockdep flagged.
 * - Progress. Cancellers never spin on "callback finished": they take
 *   cb_lock, which sleeps with priority inheritance on PREEMPT_RT. On
 *   non-RT cb_lock keeps the callback non-preemptible (like a softirq), so
 *   only code interrupting it on its own CPU could wait forever; that case
 *   is refused with a warning.
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
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/preempt.h>
#include <linux/seq_file.h>
#include <linux/smpboot.h>
#include <uapi/linux/sched/types.h>
#include "si_timer_internal.h"
#include "vecmask.h"

#define CREATE_TRACE_POINTS
#include "si_trace.h"

static DEFINE_PER_CPU(struct si_executor, si_executors);
static DEFINE_PER_CPU(struct task_struct *, si_executor_task);
static int si_prio;

/* Callbacks one wake-up runs before giving the smpboot loop a turn. */
#define SI_BATCH	16

static enum si_queue si_queue_of(const struct si_timer *timer)
{
	return timer->flags & SI_TIMER_SOFTINTERRUPTIBLE ? SI_Q_SOFT : SI_Q_COMPAT;
}

/*
 * Queue on @e unless it is parked (its CPU going down). A timer whose
 * callback still runs goes to that callback's executor instead, wherever
 * it expired: re-armed by its callback and migrated, it must not run on two
 * CPUs at once (the kernel keeps a running timer on its base for the same
 * reason). The kernel never runs one wheel timer's expiry function twice
 * at once, so this is not called concurrently for one timer.
 */
static bool si_try_queue(struct si_executor *e, struct si_timer *timer)
{
	struct si_executor *running = NULL;
	unsigned long flags;
	bool parked;

	raw_spin_lock_irqsave(&e->lock, flags);
	parked = e->parked;
	/* Re-armed while still waiting here: one run covers both expiries. */
	if (!parked && !timer->queued_on) {
		/* Pairs with si_run_one(): running_on is set before queued_on clears. */
		smp_rmb();
		running = READ_ONCE(timer->running_on);
		if (running == e)
			running = NULL;
		if (!running) {
			list_add_tail(&timer->entry, &e->queue[si_queue_of(timer)]);
			WRITE_ONCE(timer->queued_on, e);
			trace_si_timer_queue(timer, e->cpu);
		}
	}
	raw_spin_unlock_irqrestore(&e->lock, flags);
	if (running)
		return si_try_queue(running, timer);
	if (!parked)
		wake_up_process(per_cpu(si_executor_task, e->cpu));
	return !parked;
}

/* Called from the kernel's timer expiry (softirq, or ktimers on RT). */
void si_executor_queue(struct si_timer *timer)
{
	unsigned int cpu;

	if (likely(si_try_queue(this_cpu_ptr(&si_executors), timer)))
		return;
	/* This CPU is going down: hand over to a live one. */
	for_each_online_cpu(cpu)
		if (si_try_queue(per_cpu_ptr(&si_executors, cpu), timer))
			return;
	WARN_ONCE(1, "si_timer: no executor online for %ps\n", timer->function);
}

/*
 * Take the timer off its executor's queue unless its callback runs: both
 * are decided under one executor lock, since the executor takes a timer
 * off the queue and marks it running in one step. Returns 1 if it was
 * queued (expired, callback not started), 0 if not, -1 if it runs now.
 */
int si_executor_try_dequeue(struct si_timer *timer)
{
	struct si_executor *e;
	unsigned long flags;
	int ret = -EAGAIN;

	while (ret == -EAGAIN) {
		/*
		 * queued_on first: si_run_one() sets running_on before it
		 * clears queued_on, so one of the two is seen. The other way
		 * round both can read NULL while the callback starts.
		 */
		e = READ_ONCE(timer->queued_on);
		smp_rmb();	/* pairs with smp_wmb() in si_run_one() */
		e = READ_ONCE(timer->running_on) ?: e;
		if (!e)
			return 0;
		raw_spin_lock_irqsave(&e->lock, flags);
		if (timer->running_on == e) {
			ret = -1;
		} else if (timer->queued_on == e) {
			list_del_init(&timer->entry);
			WRITE_ONCE(timer->queued_on, NULL);
			ret = 1;
		}
		raw_spin_unlock_irqrestore(&e->lock, flags);
	}
	return ret;
}

/* Returns 1 if the timer had expired and was waiting for its executor. */
int si_executor_dequeue(struct si_timer *timer)
{
	struct si_executor *e;
	unsigned long flags;
	bool found;

	/* queued_on only changes under the lock of the executor it names. */
	while ((e = READ_ONCE(timer->queued_on))) {
		raw_spin_lock_irqsave(&e->lock, flags);
		found = READ_ONCE(timer->queued_on) == e;
		if (found) {
			list_del_init(&timer->entry);
			WRITE_ONCE(timer->queued_on, NULL);
		}
		raw_spin_unlock_irqrestore(&e->lock, flags);
		if (found)
			return 1;
	}
	return 0;
}

bool si_executor_running_self(const struct si_timer *timer)
{
	struct si_executor *e = READ_ONCE(timer->running_on);

	return e && per_cpu(si_executor_task, e->cpu) == current;
}

/*
 * Wait until the callback running now has returned. Returns -EDEADLK
 * instead of waiting where that can never happen.
 */
int si_executor_wait_running(struct si_timer *timer)
{
	struct si_executor *e = READ_ONCE(timer->running_on);

	if (!e)
		return 0;
	/*
	 * On non-RT a running callback holds cb_lock with preemption off, so
	 * a waiter on its CPU can only be a softirq that interrupted a
	 * soft-interruptible callback: it would spin forever.
	 */
	if (!IS_ENABLED(CONFIG_PREEMPT_RT) && !preemptible() &&
	    e->cpu == raw_smp_processor_id()) {
		WARN_ONCE(1, "si_timer: deleting %ps synchronously from context that interrupted it would deadlock\n",
			  timer->function);
		return -EDEADLK;
	}
	spin_lock(&e->cb_lock);
	spin_unlock(&e->cb_lock);
	return 0;
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

/* Run one callback, repairing what it leaked as call_timer_fn() does. */
static void si_call(struct si_timer *timer, bool soft)
{
	si_timer_func_t fn = timer->function;
	int preempt = preempt_count();
	unsigned long bh = softirq_count();

#ifdef CONFIG_LOCKDEP
	/* Lockdep sees the callback like a timer: held while it runs. */
	lock_map_acquire(&timer->wheel.lockdep_map);
#endif
	trace_si_timer_expire_entry(timer, soft);
	fn(timer);
	trace_si_timer_expire_exit(timer);
#ifdef CONFIG_LOCKDEP
	lock_map_release(&timer->wheel.lockdep_map);
#endif

	/* On RT the BH count is not part of the preempt count: check both. */
	if (unlikely(softirq_count() != bh)) {
		WARN_ONCE(1, "si_timer: callback %ps left bottom halves disabled: %08lx -> %08lx\n",
			  fn, bh, (unsigned long)softirq_count());
		while (softirq_count() > bh)
			local_bh_enable();
	}
	if (unlikely(preempt_count() != preempt)) {
		WARN_ONCE(1, "si_timer: callback %ps leaked preempt count: %08x -> %08x\n",
			  fn, preempt, preempt_count());
		preempt_count_set(preempt);
	}
}

static bool si_run_one(struct si_executor *e, enum si_queue q)
{
	struct si_timer *timer;
	bool masked = false;

	if (list_empty(&e->queue[q]))
		return false;

	if (q == SI_Q_SOFT && si_vecmask_available()) {
		si_vecmask_disable(SI_TIMER_VECTORS);
		masked = true;
	} else {
		/* Compatible mode, also the fallback without the vector mask. */
		si_enter_softirq();
	}

	spin_lock(&e->cb_lock);
	raw_spin_lock_irq(&e->lock);
	timer = list_first_entry_or_null(&e->queue[q], struct si_timer, entry);
	if (timer) {
		list_del_init(&timer->entry);
		WRITE_ONCE(timer->running_on, e);
		smp_wmb();	/* see si_try_queue() */
		WRITE_ONCE(timer->queued_on, NULL);
		e->running = timer;
	}
	raw_spin_unlock_irq(&e->lock);

	if (timer) {
		si_call(timer, masked);
		raw_spin_lock_irq(&e->lock);
		WRITE_ONCE(timer->running_on, NULL);
		e->running = NULL;
		e->ran[q]++;
		raw_spin_unlock_irq(&e->lock);
	}
	spin_unlock(&e->cb_lock);

	if (masked)
		si_vecmask_enable(SI_TIMER_VECTORS);
	else
		si_leave_softirq();
	return timer;
}

static int si_executor_should_run(unsigned int cpu)
{
	struct si_executor *e = per_cpu_ptr(&si_executors, cpu);

	return !list_empty(&e->queue[SI_Q_COMPAT]) ||
	       !list_empty(&e->queue[SI_Q_SOFT]);
}

static void si_executor_fn(unsigned int cpu)
{
	struct si_executor *e = per_cpu_ptr(&si_executors, cpu);
	int budget = SI_BATCH;

	while (budget-- > 0) {
		bool ran = si_run_one(e, SI_Q_COMPAT);

		ran |= si_run_one(e, SI_Q_SOFT);
		if (!ran)
			break;
	}
	/*
	 * A backlog: let others in (hotplug's park request, SCHED_OTHER tasks
	 * at prio=0) and let RCU see a quiescent state, as ksoftirqd does
	 * between rounds. On PREEMPT_RT every callback runs inside cb_lock,
	 * an RCU read-side section there, so ticks rarely find one and a
	 * backlog would hold up grace periods (and CPU hotplug, which waits
	 * for them) until drained; cond_resched() reports nothing under full
	 * preemption. schedule() does, even when it picks us again.
	 */
	if (budget < 0)
		schedule();
}

static void si_executor_unpark(unsigned int cpu)
{
	struct si_executor *e = per_cpu_ptr(&si_executors, cpu);

	raw_spin_lock_irq(&e->lock);
	e->parked = false;
	raw_spin_unlock_irq(&e->lock);
}

static void si_executor_setup(unsigned int cpu)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = si_prio ? SCHED_FIFO : SCHED_NORMAL,
		.sched_priority = si_prio,
	};
	int ret = sched_setattr_nocheck(current, &attr);

	if (ret)
		pr_warn("executor %u: cannot set priority %d: %d\n", cpu, si_prio, ret);
	si_executor_unpark(cpu);
}

/*
 * The CPU goes down (or the module unloads): callbacks already handed to
 * this executor move to a live one, as the kernel migrates the timers of a
 * dead CPU. Only one CPU parks at a time (hotplug is serialised), so taking
 * a second executor lock nested cannot deadlock.
 */
static void si_executor_park(unsigned int cpu)
{
	struct si_executor *e = per_cpu_ptr(&si_executors, cpu);
	struct si_executor *to = NULL;
	unsigned int other;
	int q;

	raw_spin_lock_irq(&e->lock);
	e->parked = true;
	for_each_online_cpu(other) {
		if (other != cpu && !per_cpu(si_executors, other).parked) {
			to = per_cpu_ptr(&si_executors, other);
			break;
		}
	}
	if (to) {
		raw_spin_lock_nested(&to->lock, SINGLE_DEPTH_NESTING);
		for (q = 0; q < SI_NR_QUEUES; q++) {
			struct si_timer *timer;

			list_for_each_entry(timer, &e->queue[q], entry)
				WRITE_ONCE(timer->queued_on, to);
			list_splice_tail_init(&e->queue[q], &to->queue[q]);
		}
		raw_spin_unlock(&to->lock);
	}
	raw_spin_unlock_irq(&e->lock);
	if (to)
		wake_up_process(per_cpu(si_executor_task, to->cpu));
}

void si_executor_show(struct seq_file *m, unsigned int cpu)
{
	struct si_executor *e = per_cpu_ptr(&si_executors, cpu);
	unsigned int queued[SI_NR_QUEUES] = { 0 };
	unsigned long ran[SI_NR_QUEUES];
	si_timer_func_t running = NULL;
	struct si_timer *timer;
	bool parked;
	int q;

	raw_spin_lock_irq(&e->lock);
	for (q = 0; q < SI_NR_QUEUES; q++) {
		list_for_each_entry(timer, &e->queue[q], entry)
			queued[q]++;
		ran[q] = e->ran[q];
	}
	if (e->running)
		running = e->running->function;
	parked = e->parked;
	raw_spin_unlock_irq(&e->lock);

	seq_printf(m, "%u %d %u %u %lu %lu ", cpu, parked,
		   queued[SI_Q_COMPAT], queued[SI_Q_SOFT],
		   ran[SI_Q_COMPAT], ran[SI_Q_SOFT]);
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
	int q;

	si_prio = prio;
	for_each_possible_cpu(cpu) {
		struct si_executor *e = per_cpu_ptr(&si_executors, cpu);

		raw_spin_lock_init(&e->lock);
		spin_lock_init(&e->cb_lock);
		for (q = 0; q < SI_NR_QUEUES; q++)
			INIT_LIST_HEAD(&e->queue[q]);
		/*
		 * Not parked: a CPU coming online may expire timers before its
		 * executor's first run; they wait on its queue until then.
		 */
		e->cpu = cpu;
		e->parked = false;
	}
	return smpboot_register_percpu_thread(&si_executor_threads);
}

void si_executors_exit(void)
{
	unsigned int cpu;

	smpboot_unregister_percpu_thread(&si_executor_threads);
	/* Users hold a module reference, so nothing can still be queued. */
	for_each_possible_cpu(cpu) {
		struct si_executor *e = per_cpu_ptr(&si_executors, cpu);

		WARN_ONCE(!list_empty(&e->queue[SI_Q_COMPAT]) ||
			  !list_empty(&e->queue[SI_Q_SOFT]),
			  "si_timer: callbacks left queued on CPU %u at unload\n", cpu);
	}
}
