// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP tests of the si_timer core API: firing and accuracy, CPU placement,
 * return values, synchronous deletion, re-arming, on-stack timers, a
 * 10,000-timer stress, callback context, si_schedule_timeout*(), misuse
 * warnings, leak repair, cancel/start races.
 *
 * The tests run at load in a kthread bound to the first online CPU ("home");
 * timers that must run elsewhere go to the next online CPU ("other").
 * Timings assert effects with TCG-sized slack and never allow "early".
 * The last test shuts down, all at once, timers of every kind in flight on
 * every CPU. (Unloading a module that left timers armed is not tested
 * here.)
 */
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>
#include <si_timer.h>
#include "compat.h"
#include "si_trace.h"
#include "si_test.h"

/* Scheduling noise under QEMU TCG reaches ~10 ms: allow several times that. */
#define SLACK_MS	40
#define SLACK_J		msecs_to_jiffies(SLACK_MS)
/*
 * Upper bound on lateness. A loaded host stops the vCPU for tens of ms
 * while guest time runs on, so this only catches gross errors (a wrong
 * wheel level, a missed wake-up); the lower bounds stay exact.
 */
#define LATE_J		msecs_to_jiffies(500)
/* How long a "busy" callback spins; long enough to outlast a host stall. */
#define BUSY_MS		200
/* Cap of callbacks that spin until the test releases them. */
#define RELEASE_CAP_MS	10000

static int home_cpu;
static int other_cpu = -1;

/* ---------------------------------------------------------------------- */
/* A timer that records where and how its callback ran. */

struct probe {
	struct si_timer timer;
	atomic_t runs;
	atomic_t started;
	atomic_t finished;
	struct completion done;
	/* context of the last run */
	unsigned long jiffies;
	int cpu;
	bool kthread;
	bool irqs_off;
	bool serving_softirq;
	bool hardirq;
	unsigned long softirq_cnt;
	unsigned int preempt;
	char comm[TASK_COMM_LEN];
	unsigned long run_jiffies[8];
	/* behaviour */
	unsigned int busy_ms;	/* spin this long (or until @release) */
	atomic_t *busy_token;	/* if set, only the taker of the token spins */
	bool release;
	int rearm;		/* re-arm itself this many more times */
	unsigned long rearm_delay;
	/* results of calls made by the callback or the thread arming it */
	int ret;
	int armed_cpu;
};

static void probe_record(struct probe *p)
{
	int n = atomic_read(&p->runs);

	p->jiffies = jiffies;
	p->cpu = raw_smp_processor_id();
	p->kthread = current->flags & PF_KTHREAD;
	p->irqs_off = irqs_disabled();
	p->serving_softirq = in_serving_softirq();
	p->hardirq = in_hardirq();
	p->softirq_cnt = softirq_count();
	p->preempt = preempt_count();
	strscpy(p->comm, current->comm, sizeof(p->comm));
	if (n >= 1 && n <= ARRAY_SIZE(p->run_jiffies))
		p->run_jiffies[n - 1] = p->jiffies;
}

static void probe_busy(struct probe *p)
{
	u64 end = ktime_get_ns() + (u64)p->busy_ms * NSEC_PER_MSEC;

	while (!READ_ONCE(p->release) && ktime_get_ns() < end)
		cpu_relax();
}

static void probe_fn(struct si_timer *t)
{
	struct probe *p = si_timer_container_of(p, t, timer);

	atomic_inc(&p->runs);
	probe_record(p);
	atomic_inc(&p->started);
	smp_mb__after_atomic();		/* started before anything below */
	if (p->busy_ms && (!p->busy_token || atomic_xchg(p->busy_token, 0)))
		probe_busy(p);
	if (p->rearm > 0) {
		p->rearm--;
		si_mod_timer(t, jiffies + p->rearm_delay);
	}
	smp_mb__before_atomic();	/* all of the above before finished */
	atomic_inc(&p->finished);
	complete(&p->done);
}

/* A macro for si_test_timer_setup(): one lockdep class per call site. */
#define probe_init(p, fn, flags)					\
	do {								\
		struct probe *__p = (p);				\
									\
		memset(__p, 0, sizeof(*__p));				\
		init_completion(&__p->done);				\
		si_test_timer_setup(&__p->timer, (fn), (flags));	\
	} while (0)

static bool probe_wait(struct probe *p, unsigned long timeout)
{
	return wait_for_completion_timeout(&p->done, timeout) || completion_done(&p->done);
}

/* Arm @p on @cpu at the next tick (the callback then runs there). */
static void probe_arm_on(struct probe *p, int cpu, unsigned long delay)
{
	p->timer.expires = jiffies + delay;
	si_add_timer_on(&p->timer, cpu);
}

static bool expected_comm(const struct probe *p)
{
	char want[TASK_COMM_LEN];

	snprintf(want, sizeof(want), "si_timer/%d", p->cpu);
	return !strcmp(p->comm, want);
}

/* Jiffies a timer of this delta may be rounded up by the wheel. */
static unsigned long wheel_granularity(unsigned long delta)
{
	unsigned long gran = 1, level_start = 63;

	while (delta >= level_start) {
		gran <<= 3;
		level_start <<= 3;
	}
	return gran;
}

/* Run @fn(@arg) in a kthread bound to @cpu; false if it took over @ms. */
static bool run_on_cpu(int cpu, void (*fn)(void *), void *arg, unsigned int ms)
{
	int ret = si_ktap_run_on_cpu(cpu, fn, arg, false, ms);

	if (ret && ret != -ETIMEDOUT)
		si_fail("cannot run on CPU %d: %d", cpu, ret);
	return !ret;
}

static bool need_other_cpu(void)
{
	if (other_cpu < 0)
		si_skip("needs a second online CPU");
	return other_cpu >= 0;
}

/* ---------------------------------------------------------------------- */
/* 1. Firing and jiffies accuracy. */

SI_CHECKED(t_fires_on_time)
{
	static const unsigned long delays[] = { 1, 10, 100 };
	static const unsigned int flags[] = { 0, SI_TIMER_SOFTINTERRUPTIBLE };
	struct probe *p;
	unsigned long exp[ARRAY_SIZE(delays) * ARRAY_SIZE(flags)];
	int i, n = ARRAY_SIZE(exp);

	p = kcalloc(n, sizeof(*p), GFP_KERNEL);
	if (!SI_CHECK(p, "out of memory"))
		return;
	for (i = 0; i < n; i++) {
		probe_init(&p[i], probe_fn, flags[i / ARRAY_SIZE(delays)]);
		exp[i] = jiffies + delays[i % ARRAY_SIZE(delays)];
		SI_CHECK(si_mod_timer(&p[i].timer, exp[i]) == 0, "timer %d", i);
	}
	for (i = 0; i < n; i++) {
		unsigned long d = delays[i % ARRAY_SIZE(delays)];
		unsigned long allowed = wheel_granularity(d) + LATE_J;
		long late;

		if (!probe_wait(&p[i], d + HZ)) {
			si_fail("delay %lu flags %#x: did not fire within %lu jiffies",
				d, p[i].timer.flags, d + HZ);
			si_timer_delete_sync(&p[i].timer);
			continue;
		}
		late = (long)(p[i].jiffies - exp[i]);
		si_diag("delay=%lu flags=%#x expires=%lu fired=%lu late=%ld allowed=%lu cpu=%d",
			d, p[i].timer.flags, exp[i], p[i].jiffies, late, allowed, p[i].cpu);
		SI_CHECK(late >= 0, "fired %ld jiffies early", -late);
		SI_CHECK(late <= (long)allowed, "late %ld > %lu", late, allowed);
	}
	msleep(SLACK_MS);
	for (i = 0; i < n; i++) {
		SI_CHECK(atomic_read(&p[i].runs) == 1, "timer %d ran %d times",
			 i, atomic_read(&p[i].runs));
		SI_CHECK(!si_timer_pending(&p[i].timer), "timer %d", i);
		si_timer_delete_sync(&p[i].timer);
	}
	kfree(p);
}

/* ---------------------------------------------------------------------- */
/* 2. CPU placement. */

static void check_placement(struct probe *p, int cpu, const char *how)
{
	if (!probe_wait(p, 5 * HZ)) {
		si_fail("%s CPU %d: did not fire within 5 s", how, cpu);
		si_timer_delete_sync(&p->timer);
		return;
	}
	si_diag("%s CPU %d: ran on CPU %d in '%s' kthread=%d irqs_off=%d",
		how, cpu, p->cpu, p->comm, p->kthread, p->irqs_off);
	SI_CHECK(p->cpu == cpu, "%s CPU %d ran on CPU %d", how, cpu, p->cpu);
	SI_CHECK(expected_comm(p), "comm '%s' on CPU %d", p->comm, p->cpu);
	SI_CHECK(p->kthread, "%s CPU %d", how, cpu);
	SI_CHECK(!p->irqs_off, "%s CPU %d", how, cpu);
	si_timer_delete_sync(&p->timer);
}

SI_CHECKED(t_add_timer_on_every_cpu)
{
	struct probe *p;
	int cpu;

	p = kcalloc(nr_cpu_ids, sizeof(*p), GFP_KERNEL);
	if (!SI_CHECK(p, "out of memory"))
		return;
	for_each_online_cpu(cpu) {
		probe_init(&p[cpu], probe_fn, 0);
		probe_arm_on(&p[cpu], cpu, 2);
	}
	for_each_online_cpu(cpu)
		check_placement(&p[cpu], cpu, "si_add_timer_on");
	kfree(p);
}

static void arm_here(void *arg)
{
	struct probe *p = arg;

	p->armed_cpu = raw_smp_processor_id();
	p->ret = si_mod_timer(&p->timer, jiffies + 2);
}

SI_CHECKED(t_pinned_runs_where_armed)
{
	struct probe *p;
	int cpu;

	p = kcalloc(nr_cpu_ids, sizeof(*p), GFP_KERNEL);
	if (!SI_CHECK(p, "out of memory"))
		return;
	for_each_online_cpu(cpu) {
		probe_init(&p[cpu], probe_fn, SI_TIMER_PINNED);
		run_on_cpu(cpu, arm_here, &p[cpu], 1000);
		SI_CHECK(p[cpu].armed_cpu == cpu, "armed on %d", p[cpu].armed_cpu);
		SI_CHECK(p[cpu].ret == 0, "si_mod_timer returned %d", p[cpu].ret);
	}
	for_each_online_cpu(cpu)
		check_placement(&p[cpu], cpu, "SI_TIMER_PINNED armed on");
	kfree(p);
}

/*
 * A deferrable timer armed for another CPU waits for that CPU to be busy,
 * not the arming one, as after add_timer_on(): its wake-up queues it
 * there. The other CPU spins (busy, its tick running) until the callback
 * ran; the arming CPU sleeps meanwhile, so a wake-up left on it would
 * queue the timer there, or not before it woke.
 */
struct deferrable_watch {
	struct si_timer *timer;
	atomic_t queued_on;
};

static void deferrable_queued(void *data, struct si_timer *timer, unsigned int cpu)
{
	struct deferrable_watch *w = data;

	if (timer == w->timer)
		atomic_cmpxchg(&w->queued_on, -1, raw_smp_processor_id());
}

/* Busy, yet letting the executor in on a kernel without preemption. */
static void spin_until_finished(void *arg)
{
	struct probe *p = arg;
	u64 end = ktime_get_ns() + 5 * NSEC_PER_SEC;

	while (!atomic_read(&p->finished) && ktime_get_ns() < end)
		cond_resched();
}

SI_CHECKED(t_deferrable_waits_for_its_cpu)
{
	struct deferrable_watch w = { .queued_on = ATOMIC_INIT(-1) };
	struct probe p;

	if (!need_other_cpu())
		return;
	probe_init(&p, probe_fn, SI_TIMER_DEFERRABLE);
	w.timer = &p.timer;
	if (!SI_CHECK(!register_trace_si_timer_queue(deferrable_queued, &w),
		      "cannot attach to si_timer_queue"))
		return;
	probe_arm_on(&p, other_cpu, 2);
	run_on_cpu(other_cpu, spin_until_finished, &p, 10000);
	if (probe_wait(&p, HZ)) {
		si_diag("armed on CPU %d for CPU %d: queued on CPU %d, ran on CPU %d",
			home_cpu, other_cpu, atomic_read(&w.queued_on), p.cpu);
		SI_CHECK(atomic_read(&w.queued_on) == other_cpu, "queued on CPU %d, want %d",
			 atomic_read(&w.queued_on), other_cpu);
		SI_CHECK(p.cpu == other_cpu, "ran on CPU %d", p.cpu);
	} else {
		si_fail("did not fire within 5 s of CPU %d being busy", other_cpu);
	}
	si_timer_delete_sync(&p.timer);
	unregister_trace_si_timer_queue(deferrable_queued, &w);
	tracepoint_synchronize_unregister();
}

/* ---------------------------------------------------------------------- */
/* 3. Return values. */

SI_CHECKED(t_return_values)
{
	struct probe p;
	struct si_timer *t = &p.timer;
	unsigned long j = jiffies;
	int ret;

	probe_init(&p, probe_fn, 0);
	SI_CHECK(!si_timer_pending(t), "fresh timer");

	ret = si_mod_timer(t, j + 10 * HZ);
	SI_CHECK(ret == 0, "si_mod_timer on inactive returned %d", ret);
	SI_CHECK(si_timer_pending(t), "after si_mod_timer");
	SI_CHECK(t->expires == j + 10 * HZ, "expires %lu", t->expires - j);
	ret = si_mod_timer(t, j + 20 * HZ);
	SI_CHECK(ret == 1, "si_mod_timer on pending returned %d", ret);
	SI_CHECK(t->expires == j + 20 * HZ, "expires %lu", t->expires - j);

	ret = si_mod_timer_pending(t, j + 15 * HZ);
	SI_CHECK(ret == 1, "si_mod_timer_pending on pending returned %d", ret);
	SI_CHECK(t->expires == j + 15 * HZ, "expires %lu", t->expires - j);

	ret = si_timer_reduce(t, j + 5 * HZ);
	SI_CHECK(ret == 1, "si_timer_reduce earlier returned %d", ret);
	SI_CHECK(t->expires == j + 5 * HZ, "reduced expires %lu", t->expires - j);
	ret = si_timer_reduce(t, j + 30 * HZ);
	SI_CHECK(ret == 1, "si_timer_reduce later returned %d", ret);
	SI_CHECK(t->expires == j + 5 * HZ, "later reduce changed expires to %lu",
		 t->expires - j);
	SI_CHECK(si_timer_pending(t), "after reduce");

	ret = si_timer_delete(t);
	SI_CHECK(ret == 1, "si_timer_delete on pending returned %d", ret);
	SI_CHECK(!si_timer_pending(t), "after delete");
	ret = si_timer_delete(t);
	SI_CHECK(ret == 0, "si_timer_delete on inactive returned %d", ret);

	ret = si_mod_timer_pending(t, j + HZ);
	SI_CHECK(ret == 0, "si_mod_timer_pending on inactive returned %d", ret);
	SI_CHECK(!si_timer_pending(t), "si_mod_timer_pending armed an inactive timer");
	SI_CHECK(t->expires == j + 5 * HZ, "si_mod_timer_pending on inactive set expires %lu",
		 t->expires - j);

	ret = si_timer_reduce(t, j + 10 * HZ);
	SI_CHECK(ret == 0, "si_timer_reduce on inactive returned %d", ret);
	SI_CHECK(si_timer_pending(t), "si_timer_reduce on inactive must arm");
	SI_CHECK(t->expires == j + 10 * HZ, "expires %lu", t->expires - j);

	ret = si_try_to_del_timer_sync(t);
	SI_CHECK(ret == 1, "si_try_to_del_timer_sync on pending returned %d", ret);
	SI_CHECK(!si_timer_pending(t), "after si_try_to_del_timer_sync");
	ret = si_try_to_del_timer_sync(t);
	SI_CHECK(ret == 0, "si_try_to_del_timer_sync on inactive returned %d", ret);

	ret = si_timer_delete_sync(t);
	SI_CHECK(ret == 0, "si_timer_delete_sync on inactive returned %d", ret);
	si_mod_timer(t, j + 10 * HZ);
	ret = si_timer_delete_sync(t);
	SI_CHECK(ret == 1, "si_timer_delete_sync on pending returned %d", ret);

	t->expires = jiffies + 10 * HZ;
	si_add_timer(t);
	SI_CHECK(si_timer_pending(t), "after si_add_timer");
	ret = si_timer_shutdown(t);
	SI_CHECK(ret == 1, "si_timer_shutdown on pending returned %d", ret);
	ret = si_timer_shutdown(t);
	SI_CHECK(ret == 0, "si_timer_shutdown on inactive returned %d", ret);
	SI_CHECK(!si_timer_pending(t), "after shutdown");

	SI_CHECK(atomic_read(&p.runs) == 0, "callback ran %d times", atomic_read(&p.runs));
	si_timer_shutdown_sync(t);
}

/* Start a spinning callback on @cpu; false if it did not start in 1 s. */
static bool start_busy(struct probe *p, int cpu, unsigned int ms)
{
	probe_init(p, probe_fn, 0);
	p->busy_ms = ms;
	probe_arm_on(p, cpu, 1);
	if (!si_wait_until(atomic_read(&p->started), 5000)) {
		si_fail("callback on CPU %d did not start within 5 s", cpu);
		si_timer_delete_sync(&p->timer);
		return false;
	}
	return true;
}

/*
 * start_busy() on the other CPU, returning with the callback still
 * running: a host stall can outlast BUSY_MS, and then the case would
 * test nothing, so try again.
 */
static bool start_busy_running(struct probe *p)
{
	int attempt;

	for (attempt = 1; attempt <= 3; attempt++) {
		if (!start_busy(p, other_cpu, BUSY_MS))
			return false;
		if (!atomic_read(&p->finished))
			return true;
		si_diag("attempt %d: the %d ms callback ended before the test reached it",
			attempt, BUSY_MS);
		si_timer_delete_sync(&p->timer);
	}
	si_fail("the callback had always ended before the test reached it");
	return false;
}

SI_CHECKED(t_try_to_del_while_running)
{
	struct probe p;
	int ret;

	if (!need_other_cpu() || !start_busy(&p, other_cpu, RELEASE_CAP_MS))
		return;
	ret = si_try_to_del_timer_sync(&p.timer);
	SI_CHECK(ret == -1, "si_try_to_del_timer_sync on running returned %d", ret);
	SI_CHECK(!si_timer_pending(&p.timer), "running, not re-armed");
	ret = si_timer_delete(&p.timer);
	SI_CHECK(ret == 0, "si_timer_delete on running returned %d", ret);

	/* Re-armed while running: try_to_del leaves it alone, as the kernel's. */
	ret = si_mod_timer(&p.timer, jiffies + 10 * HZ);
	SI_CHECK(ret == 0, "si_mod_timer on running, inactive returned %d", ret);
	ret = si_try_to_del_timer_sync(&p.timer);
	SI_CHECK(ret == -1, "si_try_to_del_timer_sync on running+pending returned %d", ret);
	SI_CHECK(si_timer_pending(&p.timer), "-1 must leave the timer pending");
	SI_CHECK(!atomic_read(&p.finished), "callback finished before release");

	WRITE_ONCE(p.release, true);
	ret = si_timer_delete_sync(&p.timer);
	SI_CHECK(ret == 1, "si_timer_delete_sync returned %d", ret);
	SI_CHECK(atomic_read(&p.finished) == 1, "finished %d", atomic_read(&p.finished));
	ret = si_try_to_del_timer_sync(&p.timer);
	SI_CHECK(ret == 0, "si_try_to_del_timer_sync after sync delete returned %d", ret);
	SI_CHECK(atomic_read(&p.runs) == 1, "runs %d", atomic_read(&p.runs));
}

/* ---------------------------------------------------------------------- */
/* Expired, callback not started yet ("queued") counts as pending. */

enum queued_op {
	Q_DELETE, Q_DELETE_SYNC, Q_TRY_DEL, Q_SHUTDOWN_SYNC,
	Q_MOD, Q_MOD_PENDING, Q_REDUCE, Q_NR_OPS
};

static const char * const queued_op_name[] = {
	"si_timer_delete", "si_timer_delete_sync", "si_try_to_del_timer_sync",
	"si_timer_shutdown_sync", "si_mod_timer", "si_mod_timer_pending",
	"si_timer_reduce",
};

static void queued_round(enum queued_op op)
{
	struct probe a, b, *busy, *q;
	const char *name = queued_op_name[op];
	atomic_t token = ATOMIC_INIT(1);
	unsigned long e, j;
	int ret = 0;

	/*
	 * Two timers expiring in the same wheel run on one CPU: both get
	 * queued on its executor; the first callback spins, so the other
	 * stays queued until released.
	 */
	probe_init(&a, probe_fn, 0);
	probe_init(&b, probe_fn, 0);
	a.busy_ms = RELEASE_CAP_MS;
	b.busy_ms = RELEASE_CAP_MS;
	a.busy_token = &token;
	b.busy_token = &token;
	e = jiffies + 2;
	a.timer.expires = e;
	b.timer.expires = e;
	si_add_timer_on(&b.timer, other_cpu);
	si_add_timer_on(&a.timer, other_cpu);
	if (!si_wait_until(atomic_read(&a.started) || atomic_read(&b.started), 5000)) {
		si_fail("%s: neither callback started", name);
		goto out;
	}
	busy = atomic_read(&a.started) ? &a : &b;
	q = busy == &a ? &b : &a;
	/* A stall between the two arms can leave one for the next tick. */
	si_wait_until(!si_in_wheel(&q->timer) || atomic_read(&q->started), 1000);
	if (!SI_CHECK(!si_in_wheel(&q->timer) && !atomic_read(&q->started),
		      "%s: the second timer is not queued (wheel pending %d, started %d)",
		      name, si_in_wheel(&q->timer), atomic_read(&q->started)))
		goto out;
	SI_CHECK(si_timer_pending(&q->timer), "%s: queued timer not pending", name);

	j = jiffies;
	switch (op) {
	case Q_DELETE:
		ret = si_timer_delete(&q->timer);
		break;
	case Q_DELETE_SYNC:
		ret = si_timer_delete_sync(&q->timer);
		break;
	case Q_TRY_DEL:
		ret = si_try_to_del_timer_sync(&q->timer);
		break;
	case Q_SHUTDOWN_SYNC:
		ret = si_timer_shutdown_sync(&q->timer);
		si_mod_timer(&q->timer, jiffies);
		break;
	case Q_MOD:
		ret = si_mod_timer(&q->timer, j + HZ);
		break;
	case Q_MOD_PENDING:
		ret = si_mod_timer_pending(&q->timer, j + HZ);
		break;
	case Q_REDUCE:
		ret = si_timer_reduce(&q->timer, j + 10 * HZ);
		SI_CHECK(si_timer_pending(&q->timer) && !si_in_wheel(&q->timer),
			 "reduce must leave a due timer queued");
		break;
	default:
		break;
	}
	SI_CHECK(ret == 1, "%s on a queued timer returned %d", name, ret);
	WRITE_ONCE(busy->release, true);
	si_timer_delete_sync(&busy->timer);

	switch (op) {
	case Q_MOD:
	case Q_MOD_PENDING:
		SI_CHECK(si_timer_pending(&q->timer), "%s: re-armed timer", name);
		if (!SI_CHECK(probe_wait(q, 3 * HZ), "%s: re-armed timer did not fire", name))
			break;
		si_diag("%s: re-armed for +%d ran at +%ld", name, HZ, (long)(q->jiffies - j));
		SI_CHECK(time_after_eq(q->jiffies, j + HZ),
			 "%s: ran at +%ld, before its new expiry +%d", name,
			 (long)(q->jiffies - j), HZ);
		break;
	case Q_REDUCE:
		if (!SI_CHECK(probe_wait(q, 5 * HZ), "%s: queued timer did not run", name))
			break;
		SI_CHECK(time_before(q->jiffies, j + 10 * HZ), "ran at +%ld",
			 (long)(q->jiffies - j));
		break;
	default:
		SI_CHECK(!si_timer_pending(&q->timer), "%s: still pending", name);
		msleep(SLACK_MS);
		break;
	}
	msleep(20);
	SI_CHECK(atomic_read(&q->runs) == (op >= Q_MOD ? 1 : 0),
		 "%s: queued timer ran %d times", name, atomic_read(&q->runs));
out:
	WRITE_ONCE(a.release, true);
	WRITE_ONCE(b.release, true);
	si_timer_delete_sync(&a.timer);
	si_timer_delete_sync(&b.timer);
}

SI_CHECKED(t_queued_is_pending)
{
	int op;

	if (!need_other_cpu())
		return;
	for (op = 0; op < Q_NR_OPS; op++)
		queued_round(op);
}

/*
 * More timers due at once than a wake-up queues (expiry.c): the executor
 * takes the rest straight from its wheel, moving those of the other mode
 * to their queue, and queues those of a bucket whose first timer is not
 * due. The bucket holds, in arming order, due timers of both modes, timers
 * due whole wheel turns (over 30 s) later, then more due ones, so that
 * every path is taken; the executor is held busy meanwhile, and every
 * third due timer is deleted while it waits there or on a queue. All are
 * armed before the first is due (slow kernels: half a second for that),
 * so that one wake-up finds them.
 */
#define MANY_DUE	600
#define MANY_LATER	40

static int vecmask_available(void);

struct many_item {
	struct si_timer timer;
	atomic_t runs;
	bool serving_softirq;
	bool later;
	bool deleted;
};

static void many_fn(struct si_timer *t)
{
	struct many_item *it = si_timer_container_of(it, t, timer);

	it->serving_softirq = in_serving_softirq();
	smp_wmb();	/* the mode before the count */
	atomic_inc(&it->runs);
}

SI_CHECKED(t_many_due_behind_busy)
{
	unsigned int n = MANY_DUE + MANY_LATER, i, in_wheel = 0, queued = 0;
	unsigned int ran = 0, bad_runs = 0, bad_mode = 0, bad_del = 0, still_pending = 0;
	unsigned long j, later;
	struct many_item *items;
	struct probe busy;
	int ret, avail = vecmask_available();

	if (!need_other_cpu())
		return;
	items = vzalloc(array_size(n, sizeof(*items)));
	if (!SI_CHECK(items, "no memory"))
		return;
	if (!start_busy(&busy, other_cpu, RELEASE_CAP_MS))
		goto out_free;
	j = jiffies + HZ / 2;
	later = j + roundup(30 * HZ, SI_WHEEL_BUCKETS);
	for (i = 0; i < n; i++) {
		struct many_item *it = &items[i];

		/* the middle MANY_LATER of them later, in the same bucket */
		it->later = i >= MANY_DUE / 2 && i < MANY_DUE / 2 + MANY_LATER;
		si_test_timer_setup(&it->timer, many_fn,
				    SI_TIMER_PINNED | (i & 1 ? SI_TIMER_SOFTINTERRUPTIBLE : 0));
		it->timer.expires = it->later ? later : j;
		si_add_timer_on(&it->timer, other_cpu);
	}
	SI_CHECK(time_before(jiffies, j), "arming %u timers took over %d ms", n, 500);
	/* due, and the wake-up has fired: some are queued */
	si_wait_until(({
		queued = 0;
		for (i = 0; i < n; i++)
			queued += !si_in_wheel(&items[i].timer);
		time_after(jiffies, j + 1) && queued;
	}), 5000);
	queued = 0;
	for (i = 0; i < n; i++) {
		if (items[i].later)
			continue;
		in_wheel += si_in_wheel(&items[i].timer);
		queued += si_timer_pending(&items[i].timer) && !si_in_wheel(&items[i].timer);
	}
	si_diag("%u due: %u queued by the wake-up, %u left in the wheel for the executor",
		MANY_DUE, queued, in_wheel);
	SI_CHECK(queued > 0 && in_wheel > 0 && queued + in_wheel == MANY_DUE,
		 "window not reached: %u queued, %u in the wheel of %u due (busy callback finished %d)",
		 queued, in_wheel, MANY_DUE, atomic_read(&busy.finished));
	for (i = 0; i < n; i += 3) {
		if (items[i].later)
			continue;
		items[i].deleted = true;
		ret = si_timer_delete(&items[i].timer);
		SI_CHECK(ret == 1, "delete of due timer %u returned %d", i, ret);
	}
	WRITE_ONCE(busy.release, true);
	si_timer_delete_sync(&busy.timer);
	SI_CHECK(time_before(jiffies, later), "the timers due later are due already");
	si_wait_until(({
		unsigned int left = 0;

		for (i = 0; i < n; i++)
			left += !items[i].later && !items[i].deleted &&
				!atomic_read(&items[i].runs);
		!left;
	}), 10000);
	for (i = 0; i < n; i++) {
		struct many_item *it = &items[i];
		int runs = atomic_read(&it->runs), want = !it->later && !it->deleted;
		bool soft = i & 1;
		/* without the vector mask, soft-interruptible ones run compatible */
		bool serving = !soft || !avail, mode_known = !soft || avail >= 0;

		smp_rmb();	/* the count before the mode */
		if (runs != want) {
			if (!bad_runs++)
				si_fail("timer %u (%s%s) ran %d times", i,
					it->later ? "due later" : "due",
					it->deleted ? ", deleted" : "", runs);
		}
		if (runs && mode_known && it->serving_softirq != serving && !bad_mode++)
			si_fail("timer %u (%s) ran %s softirq-serving state", i,
				soft ? "soft-interruptible" : "compatible",
				it->serving_softirq ? "in" : "outside");
		ran += runs;
		still_pending += si_timer_pending(&it->timer);
	}
	SI_CHECK(!bad_runs && !bad_mode, "%u wrong run counts, %u in the wrong mode",
		 bad_runs, bad_mode);
	SI_CHECK(still_pending == MANY_LATER,
		 "%u pending after the due ones ran, expected the %u due later",
		 still_pending, MANY_LATER);
	si_diag("%u callbacks ran", ran);
	for (i = 0; i < n; i++) {
		ret = si_timer_delete_sync(&items[i].timer);
		if (ret != items[i].later && !bad_del++)
			si_fail("delete_sync of timer %u returned %d", i, ret);
	}
	SI_CHECK(!bad_del, "%u delete_sync calls returned the wrong value", bad_del);
out_free:
	vfree(items);
}

/* ---------------------------------------------------------------------- */
/* 4. Synchronous delete and shutdown of a running callback. */

SI_CHECKED(t_delete_sync_waits)
{
	struct probe p;
	ktime_t t0;
	int ret, fin;

	if (!need_other_cpu() || !start_busy_running(&p))
		return;
	t0 = ktime_get();
	ret = si_timer_delete_sync(&p.timer);
	fin = atomic_read(&p.finished);
	si_diag("si_timer_delete_sync waited %lld us for a %d ms callback",
		ktime_us_delta(ktime_get(), t0), BUSY_MS);
	SI_CHECK(fin == 1, "returned before the callback finished");
	SI_CHECK(ret == 0, "returned %d", ret);

	/* Running and re-armed from outside meanwhile: returns 1. */
	if (!start_busy_running(&p))
		return;
	ret = si_mod_timer(&p.timer, jiffies + 10 * HZ);
	SI_CHECK(ret == 0, "si_mod_timer while running returned %d", ret);
	ret = si_timer_delete_sync(&p.timer);
	fin = atomic_read(&p.finished);
	SI_CHECK(fin == 1, "returned before the callback finished");
	SI_CHECK(ret == 1, "returned %d", ret);
	SI_CHECK(!si_timer_pending(&p.timer), "pending after delete_sync");
	msleep(SLACK_MS);
	SI_CHECK(atomic_read(&p.runs) == 1, "runs %d", atomic_read(&p.runs));
}

SI_CHECKED(t_shutdown_sync_waits_and_stays_off)
{
	struct probe p;
	int ret, fin;

	if (!need_other_cpu() || !start_busy_running(&p))
		return;
	ret = si_timer_shutdown_sync(&p.timer);
	fin = atomic_read(&p.finished);
	SI_CHECK(fin == 1, "returned before the callback finished");
	SI_CHECK(ret == 0, "returned %d", ret);

	/* All arming calls are silent no-ops now. */
	ret = si_mod_timer(&p.timer, jiffies + 1);
	SI_CHECK(ret == 0, "si_mod_timer after shutdown returned %d", ret);
	SI_CHECK(!si_timer_pending(&p.timer), "si_mod_timer armed a shut down timer");
	p.timer.expires = jiffies + 1;
	si_add_timer(&p.timer);
	SI_CHECK(!si_timer_pending(&p.timer), "si_add_timer armed a shut down timer");
	si_add_timer_on(&p.timer, other_cpu);
	SI_CHECK(!si_timer_pending(&p.timer), "si_add_timer_on armed a shut down timer");
	ret = si_timer_reduce(&p.timer, jiffies + 1);
	SI_CHECK(!si_timer_pending(&p.timer), "si_timer_reduce armed a shut down timer (%d)", ret);
	ret = si_mod_timer_pending(&p.timer, jiffies + 1);
	SI_CHECK(ret == 0, "si_mod_timer_pending after shutdown returned %d", ret);
	msleep(SLACK_MS);
	SI_CHECK(atomic_read(&p.runs) == 1, "shut down timer ran again: runs %d",
		 atomic_read(&p.runs));
	SI_CHECK(!si_timer_pending(&p.timer), "pending");

	/* Set up again, it works again. */
	reinit_completion(&p.done);
	si_test_timer_setup(&p.timer, probe_fn, 0);
	p.busy_ms = 0;
	ret = si_mod_timer(&p.timer, jiffies + 1);
	SI_CHECK(ret == 0, "si_mod_timer after re-setup returned %d", ret);
	SI_CHECK(probe_wait(&p, 5 * HZ), "re-set-up timer did not fire");
	SI_CHECK(atomic_read(&p.runs) == 2, "runs %d", atomic_read(&p.runs));
	si_timer_shutdown_sync(&p.timer);
}

/* ---------------------------------------------------------------------- */
/* 5. Re-arming from the callback. */

SI_CHECKED(t_rearm_periodic)
{
	struct probe p;
	int i;

	probe_init(&p, probe_fn, 0);
	p.rearm = 4;
	p.rearm_delay = 2;
	si_mod_timer(&p.timer, jiffies + 2);
	SI_CHECK(si_wait_until(atomic_read(&p.runs) >= 5, 5000), "runs %d after 5 s",
		 atomic_read(&p.runs));
	msleep(SLACK_MS);
	SI_CHECK(atomic_read(&p.runs) == 5, "runs %d, want 5", atomic_read(&p.runs));
	SI_CHECK(!si_timer_pending(&p.timer), "still pending after the last run");
	for (i = 1; i < 5; i++)
		SI_CHECK(p.run_jiffies[i] - p.run_jiffies[i - 1] >= 2,
			 "run %d only %lu jiffies after the previous one", i,
			 p.run_jiffies[i] - p.run_jiffies[i - 1]);
	si_diag("periodic runs at +%lu +%lu +%lu +%lu", p.run_jiffies[1] - p.run_jiffies[0],
		p.run_jiffies[2] - p.run_jiffies[0], p.run_jiffies[3] - p.run_jiffies[0],
		p.run_jiffies[4] - p.run_jiffies[0]);
	si_timer_delete_sync(&p.timer);
}

struct rearmer {
	struct si_timer timer;
	atomic_t runs;
	atomic_t inside;
};

/*
 * How long rearmer_fn() stays in the callback, so that the cancels land
 * while it runs. A busy wait: these are compatible-mode callbacks, which
 * run as in the TIMER softirq and must not sleep.
 */
#define REARMER_BUSY_US	500

static void rearmer_fn(struct si_timer *t)
{
	struct rearmer *r = si_timer_container_of(r, t, timer);

	atomic_inc(&r->inside);
	atomic_inc(&r->runs);
	si_test_busy_us(REARMER_BUSY_US);
	si_mod_timer(t, jiffies);
	smp_mb__before_atomic();	/* the re-arm before leaving */
	atomic_dec(&r->inside);
}

SI_CHECKED(t_delete_sync_self_rearming)
{
	static const char * const how[] = {
		"plain/delete_sync", "pinned on other/delete_sync",
		"plain/shutdown_sync",
	};
	struct rearmer r;
	int i, ret, n;

	for (i = 0; i < ARRAY_SIZE(how); i++) {
		memset(&r, 0, sizeof(r));
		if (i == 1) {
			if (other_cpu < 0)
				continue;
			si_test_timer_setup(&r.timer, rearmer_fn, SI_TIMER_PINNED);
			r.timer.expires = jiffies + 1;
			si_add_timer_on(&r.timer, other_cpu);
		} else {
			si_test_timer_setup(&r.timer, rearmer_fn, 0);
			si_mod_timer(&r.timer, jiffies + 1);
		}
		SI_CHECK(si_wait_until(atomic_read(&r.runs) >= 10, 5000),
			 "%s: only %d runs in 5 s", how[i], atomic_read(&r.runs));
		ret = i == 2 ? si_timer_shutdown_sync(&r.timer) :
			       si_timer_delete_sync(&r.timer);
		SI_CHECK(!atomic_read(&r.inside), "%s: callback still running", how[i]);
		SI_CHECK(ret >= 0, "%s: returned %d", how[i], ret);
		n = atomic_read(&r.runs);
		msleep(SLACK_MS);
		SI_CHECK(atomic_read(&r.runs) == n, "%s: %d more runs after return",
			 how[i], atomic_read(&r.runs) - n);
		SI_CHECK(!si_timer_pending(&r.timer), "%s: pending after return", how[i]);
		si_diag("%s: stopped after %d runs, returned %d", how[i], n, ret);
		si_timer_shutdown_sync(&r.timer);
	}
}

/* ---------------------------------------------------------------------- */
/* 6. On-stack and static timers. */

static atomic_t static_runs = ATOMIC_INIT(0);

static void static_fn(struct si_timer *t)
{
	atomic_inc(&static_runs);
}

static DEFINE_SI_TIMER(static_timer, static_fn);

SI_CHECKED(t_on_stack_and_static)
{
	struct probe p, q;
	int ret;

	memset(&p, 0, sizeof(p));
	init_completion(&p.done);
	si_timer_setup_on_stack(&p.timer, probe_fn, 0);
	si_mod_timer(&p.timer, jiffies + 2);
	SI_CHECK(probe_wait(&p, 5 * HZ), "on-stack timer did not fire");
	SI_CHECK(atomic_read(&p.runs) == 1, "runs %d", atomic_read(&p.runs));
	SI_CHECK(expected_comm(&p), "comm '%s'", p.comm);
	si_mod_timer(&p.timer, jiffies + 10 * HZ);
	ret = si_timer_delete_sync(&p.timer);
	SI_CHECK(ret == 1, "delete_sync of pending on-stack timer returned %d", ret);
	si_destroy_timer_on_stack(&p.timer);

	memset(&q, 0, sizeof(q));
	init_completion(&q.done);
	si_timer_setup_on_stack(&q.timer, probe_fn, SI_TIMER_SOFTINTERRUPTIBLE);
	si_mod_timer(&q.timer, jiffies + 10 * HZ);
	ret = si_timer_delete(&q.timer);
	SI_CHECK(ret == 1, "delete of pending on-stack timer returned %d", ret);
	si_timer_delete_sync(&q.timer);
	si_destroy_timer_on_stack(&q.timer);
	SI_CHECK(atomic_read(&q.runs) == 0, "deleted on-stack timer ran");

	ret = si_mod_timer(&static_timer, jiffies + 2);
	SI_CHECK(ret == 0, "DEFINE_SI_TIMER: si_mod_timer returned %d", ret);
	SI_CHECK(si_wait_until(atomic_read(&static_runs) == 1, 5000),
		 "DEFINE_SI_TIMER timer did not fire");
	msleep(20);
	SI_CHECK(atomic_read(&static_runs) == 1, "runs %d", atomic_read(&static_runs));
	si_timer_delete_sync(&static_timer);
}

/* ---------------------------------------------------------------------- */
/* 7. 10,000 timers, about half cancelled. */

#define NSTRESS		10000

enum { C_NONE, C_DELETE, C_TRY, C_SYNC };

struct stress_item {
	struct si_timer timer;
	atomic_t runs;
	atomic_t finished;
	u8 cancel_how;
	s8 cancel_ret;
	s16 armed_on;		/* si_add_timer_on() CPU, or -1 */
	bool started_at_return;
	bool finished_at_return;
};

static atomic_t stress_runs;

static void stress_fn(struct si_timer *t)
{
	struct stress_item *it = si_timer_container_of(it, t, timer);

	atomic_inc(&it->runs);
	smp_mb__after_atomic();		/* pairs with smp_rmb() in the canceller */
	atomic_inc(&it->finished);
	atomic_inc(&stress_runs);
}

SI_CHECKED(t_stress_10000)
{
	struct stress_item *items;
	unsigned int *cpus, ncpus = 0;
	int cancelled[4] = {}, attempted[4] = {}, ran_anyway[4] = {};
	int expected = 0, not_run = 0, twice = 0, cancelled_ran = 0, bad_sync = 0;
	int try_busy = 0, still_pending = 0;
	unsigned long t0;
	int cpu, i;

	items = kvcalloc(NSTRESS, sizeof(*items), GFP_KERNEL);
	cpus = kcalloc(nr_cpu_ids, sizeof(*cpus), GFP_KERNEL);
	if (!SI_CHECK(items && cpus, "out of memory"))
		goto out;
	for_each_online_cpu(cpu)
		cpus[ncpus++] = cpu;
	atomic_set(&stress_runs, 0);

	for (i = 0; i < NSTRESS; i++)
		si_test_timer_setup(&items[i].timer, stress_fn,
				    i % 4 == 3 ? SI_TIMER_SOFTINTERRUPTIBLE : 0);
	/*
	 * Arming is slow under TCG (tens of jiffies for all), so cancel as we
	 * go: after arming item i, half the time cancel a random one of the
	 * 256 armed before it, which may be pending, queued, running or done.
	 */
	t0 = jiffies;
	for (i = 0; i < NSTRESS; i++) {
		struct stress_item *it;
		u32 r = get_random_u32();
		unsigned long exp = jiffies + r % 21;
		int victim, ret;

		if (r & BIT(8)) {
			items[i].armed_on = cpus[(r >> 9) % ncpus];
			items[i].timer.expires = exp;
			si_add_timer_on(&items[i].timer, items[i].armed_on);
		} else {
			items[i].armed_on = -1;
			si_mod_timer(&items[i].timer, exp);
		}
		if (!(i & 255))
			cond_resched();

		r = get_random_u32();
		victim = i - (int)(r % 256);
		if (!(r & BIT(8)) || victim < 0 || items[victim].cancel_how)
			continue;
		it = &items[victim];
		it->cancel_how = 1 + (r >> 9) % 3;
		attempted[it->cancel_how]++;
		switch (it->cancel_how) {
		case C_DELETE:
			ret = si_timer_delete(&it->timer);
			break;
		case C_TRY:
			ret = si_try_to_del_timer_sync(&it->timer);
			break;
		default:
			ret = si_timer_delete_sync(&it->timer);
			break;
		}
		it->started_at_return = atomic_read(&it->runs);
		smp_rmb();	/* runs before finished, as stress_fn() writes them */
		it->finished_at_return = atomic_read(&it->finished);
		it->cancel_ret = ret;
		if (ret == 1)
			cancelled[it->cancel_how]++;
		if (ret == -1)
			try_busy++;
	}
	for (i = 0; i < NSTRESS; i++)
		expected += items[i].cancel_ret != 1;
	si_wait_until(atomic_read(&stress_runs) >= expected, 5000);
	msleep(SLACK_MS);
	si_diag("armed %d in %lu jiffies; cancel attempts delete=%d try=%d sync=%d",
		NSTRESS, jiffies - t0, attempted[C_DELETE], attempted[C_TRY],
		attempted[C_SYNC]);
	si_diag("  cancelled %d/%d/%d, try busy %d", cancelled[C_DELETE],
		cancelled[C_TRY], cancelled[C_SYNC], try_busy);

	for (i = 0; i < NSTRESS; i++) {
		struct stress_item *it = &items[i];
		int runs;

		if (si_timer_delete_sync(&it->timer))
			still_pending++;
		runs = atomic_read(&it->runs);
		if (runs > 1)
			twice++;
		if (it->cancel_ret == 1) {
			if (runs) {
				cancelled_ran++;
				ran_anyway[it->cancel_how]++;
			}
		} else if (!runs && not_run++ < 3) {
			si_diag("not run: #%d flags %#x on CPU %d expires %lu (now %lu)",
				i, it->timer.flags, it->armed_on, it->timer.expires,
				jiffies);
			si_diag("  cancel %d returned %d", it->cancel_how, it->cancel_ret);
		}
		/*
		 * Returning 0 from the sync calls means: neither pending nor
		 * running, so the callback must have completed already.
		 */
		if ((it->cancel_how == C_SYNC || it->cancel_how == C_TRY) &&
		    it->cancel_ret == 0 &&
		    (!it->started_at_return || !it->finished_at_return))
			bad_sync++;
	}
	si_diag("expected runs %d, counted %d; not run %d, ran twice %d",
		expected, atomic_read(&stress_runs), not_run, twice);
	si_diag("  cancelled but ran %d (delete %d try %d sync %d)", cancelled_ran,
		ran_anyway[C_DELETE], ran_anyway[C_TRY], ran_anyway[C_SYNC]);
	si_diag("  sync/try returned 0 while not completed %d, pending after 5 s %d",
		bad_sync, still_pending);
	SI_CHECK(!not_run, "%d non-cancelled timers never ran", not_run);
	SI_CHECK(!twice, "%d timers ran twice", twice);
	SI_CHECK(!cancelled_ran, "%d cancelled timers ran", cancelled_ran);
	SI_CHECK(!bad_sync, "%d sync cancels returned 0 before the callback completed",
		 bad_sync);
	SI_CHECK(!still_pending, "%d timers still pending", still_pending);
	SI_CHECK(atomic_read(&stress_runs) == expected, "runs %d != expected %d",
		 atomic_read(&stress_runs), expected);
out:
	kfree(cpus);
	kvfree(items);
}

/* ---------------------------------------------------------------------- */
/* 8. Context inside callbacks. */

/* What a compatible-mode callback sees on each CPU (for the leak tests). */
static DEFINE_PER_CPU(unsigned long, baseline_softirq);
static DEFINE_PER_CPU(unsigned int, baseline_preempt);

SI_CHECKED(t_context_compatible)
{
	struct probe p;
	int cpu;

	for_each_online_cpu(cpu) {
		probe_init(&p, probe_fn, 0);
		probe_arm_on(&p, cpu, 1);
		if (!SI_CHECK(probe_wait(&p, 5 * HZ), "CPU %d: did not fire", cpu)) {
			si_timer_delete_sync(&p.timer);
			continue;
		}
		si_diag("CPU %d: kthread=%d irqs_off=%d hardirq=%d in_serving_softirq=%d",
			cpu, p.kthread, p.irqs_off, p.hardirq, p.serving_softirq);
		si_diag("  softirq_count=%#lx preempt_count=%#x", p.softirq_cnt, p.preempt);
		SI_CHECK(p.kthread && expected_comm(&p), "CPU %d: ran in '%s'", cpu, p.comm);
		SI_CHECK(!p.irqs_off, "CPU %d", cpu);
		SI_CHECK(!p.hardirq, "CPU %d", cpu);
		SI_CHECK(p.serving_softirq, "CPU %d", cpu);
		SI_CHECK(p.softirq_cnt, "CPU %d", cpu);
		per_cpu(baseline_softirq, cpu) = p.softirq_cnt;
		per_cpu(baseline_preempt, cpu) = p.preempt;
		si_timer_delete_sync(&p.timer);
	}
}

/*
 * Whether the vector mask emulation is available: asked from si_timer.ko
 * when it exports si_vecmask_available(). 1 yes, 0 no, -1 unknown.
 */
static int vecmask_available(void)
{
	bool (*fn)(void);
	int ret;

	fn = __symbol_get("si_vecmask_available");
	if (!fn)
		return -1;
	ret = fn();
	__symbol_put("si_vecmask_available");
	return ret;
}

SI_CHECKED(t_context_softinterruptible)
{
	struct probe p;
	int avail = vecmask_available();
	const char *vecmask = avail < 0 ? "availability unknown" :
			      avail ? "available" : "unavailable";
	bool si_ctx, compat_ctx;
	int cpu;

	for_each_online_cpu(cpu) {
		probe_init(&p, probe_fn, SI_TIMER_SOFTINTERRUPTIBLE);
		probe_arm_on(&p, cpu, 1);
		if (!SI_CHECK(probe_wait(&p, 5 * HZ), "CPU %d: did not fire", cpu)) {
			si_timer_delete_sync(&p.timer);
			continue;
		}
		si_diag("CPU %d: vecmask %s: kthread=%d irqs_off=%d in_serving_softirq=%d",
			cpu, vecmask, p.kthread, p.irqs_off, p.serving_softirq);
		si_diag("  softirq_count=%#lx preempt_count=%#x", p.softirq_cnt, p.preempt);
		SI_CHECK(p.kthread && expected_comm(&p), "CPU %d: ran in '%s'", cpu, p.comm);
		SI_CHECK(!p.irqs_off && !p.hardirq, "CPU %d", cpu);
		si_ctx = !p.serving_softirq && !p.softirq_cnt;
		compat_ctx = p.serving_softirq && p.softirq_cnt;
		if (avail == 1)
			SI_CHECK(si_ctx, "CPU %d: BH disabled in a soft-interruptible callback",
				 cpu);
		else if (avail == 0)
			SI_CHECK(compat_ctx, "CPU %d: fallback is not compatible mode", cpu);
		else
			SI_CHECK(si_ctx || compat_ctx, "CPU %d: neither mode", cpu);
		if (!si_ctx && !si_test_failed)
			si_skip("vecmask %s%s: SOFTINTERRUPTIBLE callbacks ran in compatible mode",
				vecmask, avail < 0 ? " (si_vecmask_available() not exported)" : "");
		si_timer_delete_sync(&p.timer);
	}
}

/* ---------------------------------------------------------------------- */
/* 9. si_schedule_timeout*(). */

/*
 * Who ends the sleep, seen through two tracepoints: si_timer's
 * si_timer_expire_entry (the executor starts a callback; the wake-up timer
 * of si_schedule_timeout() lives on the sleeper's stack, which identifies
 * it) and the scheduler's sched_waking (the waker of the sleeper, in its
 * own context). With plain schedule_timeout() neither would show an
 * executor.
 */
static struct {
	struct task_struct *sleeper;
	atomic_t expiries;		/* callbacks of timers on its stack */
	bool soft;			/* ... in soft-interruptible mode */
	struct task_struct *executor;	/* ... run by */
	atomic_t wakes;
	struct task_struct *waker;	/* the first waker */
	char waker_comm[TASK_COMM_LEN];
	bool waker_serving_softirq;
	unsigned long waker_softirq_cnt;
	struct tracepoint *sched_waking;
} sto;

static bool sto_on_sleeper_stack(const void *p)
{
	const void *stack = task_stack_page(sto.sleeper);

	return p >= stack && p < stack + THREAD_SIZE;
}

static void sto_expire_entry(void *unused, struct si_timer *timer, bool soft)
{
	if (!sto_on_sleeper_stack(timer))
		return;
	sto.soft = soft;
	sto.executor = current;
	smp_wmb();			/* the above before the count */
	atomic_inc(&sto.expiries);
}

static void sto_waking(void *unused, struct task_struct *p)
{
	if (p != sto.sleeper || atomic_inc_return(&sto.wakes) != 1)
		return;
	sto.waker = current;
	/*
	 * Not get_task_comm(): it takes task_lock(), a sleeping lock on RT,
	 * and sched_waking runs under the raw pi_lock (lockdep and might_sleep
	 * report it on the debug kernels). current's own comm is stable here.
	 */
	strscpy(sto.waker_comm, current->comm, sizeof(sto.waker_comm));
	sto.waker_serving_softirq = in_serving_softirq();
	sto.waker_softirq_cnt = softirq_count();
}

static void sto_find_waking(struct tracepoint *tp, void *unused)
{
	if (!strcmp(tp->name, "sched_waking"))
		sto.sched_waking = tp;
}

/* Start watching the current task's sleeps; false (a failure) if we cannot. */
static bool sto_watch(void)
{
	int ret;

	memset(&sto, 0, sizeof(sto));
	sto.sleeper = current;
	for_each_kernel_tracepoint(sto_find_waking, NULL);
	if (!SI_CHECK(sto.sched_waking, "no sched_waking tracepoint"))
		return false;
	ret = register_trace_si_timer_expire_entry(sto_expire_entry, NULL);
	if (!SI_CHECK(!ret, "registering on si_timer_expire_entry: %d", ret))
		return false;
	ret = tracepoint_probe_register(sto.sched_waking, sto_waking, NULL);
	if (!SI_CHECK(!ret, "registering on sched_waking: %d", ret)) {
		unregister_trace_si_timer_expire_entry(sto_expire_entry, NULL);
		tracepoint_synchronize_unregister();
		return false;
	}
	return true;
}

/*
 * Forget what happened so far: right before the sleep, when the sleeper
 * runs and so cannot be woken (creating the waker thread, registering the
 * probes may have woken it).
 */
static void sto_reset(void)
{
	atomic_set(&sto.expiries, 0);
	atomic_set(&sto.wakes, 0);
	sto.waker = NULL;
	strscpy(sto.waker_comm, "-", sizeof(sto.waker_comm));
	smp_mb();			/* the above before the sleep's state */
}

static void sto_unwatch(void)
{
	tracepoint_probe_unregister(sto.sched_waking, sto_waking, NULL);
	unregister_trace_si_timer_expire_entry(sto_expire_entry, NULL);
	tracepoint_synchronize_unregister();
}

/*
 * The sleep ended because its si_timer expired: the timer's callback ran
 * once on an executor, in soft-interruptible mode where the vector mask
 * is available (else in compatible mode), and the executor, in that
 * mode's context, was the first to wake the sleeper.
 */
static void sto_check_woken_by_executor(void)
{
	int avail = vecmask_available();
	char want[TASK_COMM_LEN];

	si_diag("wake-up timer callbacks %d (%s) in %s; first of %d wakes by %s",
		atomic_read(&sto.expiries), sto.soft ? "soft-interruptible" : "compatible",
		sto.executor ? sto.executor->comm : "-", atomic_read(&sto.wakes),
		sto.waker_comm);
	si_diag("  waker: in_serving_softirq %d softirq_count %#lx; vecmask available %d",
		sto.waker_serving_softirq, sto.waker_softirq_cnt, avail);
	if (!SI_CHECK(atomic_read(&sto.expiries) == 1,
		      "the wake-up timer's callback ran %d times on an executor",
		      atomic_read(&sto.expiries)))
		return;
	SI_CHECK(sto.waker == sto.executor, "woken first by %s, not by the executor %s",
		 sto.waker_comm, sto.executor->comm);
	snprintf(want, sizeof(want), "si_timer/%d", task_cpu(sto.executor));
	SI_CHECK(!strcmp(sto.waker_comm, want) && (sto.waker->flags & PF_KTHREAD),
		 "woken by '%s', want '%s'", sto.waker_comm, want);
	if (avail == 0) {
		SI_CHECK(!sto.soft && sto.waker_serving_softirq && sto.waker_softirq_cnt,
			 "without the vector mask: mode %d, in_serving_softirq %d, softirq_count %#lx",
			 sto.soft, sto.waker_serving_softirq, sto.waker_softirq_cnt);
		return;
	}
	SI_CHECK(sto.soft, "the wake-up timer ran in compatible mode");
	SI_CHECK(!sto.waker_serving_softirq && !sto.waker_softirq_cnt,
		 "woken with bottom halves disabled: in_serving_softirq %d, softirq_count %#lx",
		 sto.waker_serving_softirq, sto.waker_softirq_cnt);
}

static void sto_sleep_check(signed long (*sleep)(signed long), const char *name)
{
	unsigned long j0, slept;
	long ret;

	if (!sto_watch())
		return;
	sto_reset();
	j0 = jiffies;
	ret = sleep(20);
	slept = jiffies - j0;
	sto_unwatch();
	si_diag("%s(20) slept %lu jiffies, returned %ld", name, slept, ret);
	SI_CHECK(ret == 0, "returned %ld", ret);
	SI_CHECK(slept >= 20, "slept only %lu", slept);
	SI_CHECK(slept <= 20 + LATE_J, "slept %lu", slept);
	SI_CHECK(READ_ONCE(current->__state) == TASK_RUNNING, "state %#x",
		 READ_ONCE(current->__state));
	sto_check_woken_by_executor();
}

SI_CHECKED(t_schedule_timeout_uninterruptible)
{
	sto_sleep_check(si_schedule_timeout_uninterruptible,
			"si_schedule_timeout_uninterruptible");
}

SI_CHECKED(t_schedule_timeout_interruptible)
{
	sto_sleep_check(si_schedule_timeout_interruptible,
			"si_schedule_timeout_interruptible");
}

struct waker {
	struct task_struct *sleeper;
	bool done;
};

static int waker_thread(void *data)
{
	struct waker *w = data;

	msleep(200);
	while (!kthread_should_stop()) {
		if (!READ_ONCE(w->done))
			wake_up_process(w->sleeper);
		usleep_range(5000, 6000);
	}
	return 0;
}

/*
 * Woken early: the remaining time comes back, and the wake-up timer was
 * cancelled (it never ran, also not later on the stack it lived on).
 */
SI_CHECKED(t_schedule_timeout_interruptible_woken)
{
	struct waker w = { .sleeper = current };
	struct task_struct *task;
	unsigned long j0, slept;
	long ret;

	if (!sto_watch())
		return;
	task = kthread_run(waker_thread, &w, "si_api_waker");
	if (!SI_CHECK(!IS_ERR(task), "kthread_run %ld", PTR_ERR(task))) {
		sto_unwatch();
		return;
	}
	sto_reset();
	j0 = jiffies;
	ret = si_schedule_timeout_interruptible(HZ);
	slept = jiffies - j0;
	WRITE_ONCE(w.done, true);
	/* past the cancelled timer's expiry: it must not run on this stack */
	msleep(jiffies_to_msecs(HZ + LATE_J));
	kthread_stop(task);
	sto_unwatch();
	si_diag("woken after %lu jiffies by %s, returned %ld of %d", slept,
		sto.waker_comm, ret, HZ);
	SI_CHECK(ret > 0, "returned %ld: the wake-up did not end the sleep", ret);
	/*
	 * remaining = expiry - now. It can come out higher than measured here
	 * by as long as the host stalled the vCPU between our jiffies reads
	 * and the callee's; the waker's 200 ms keeps "returned the whole
	 * timeout" out of that margin.
	 */
	SI_CHECK(ret >= HZ - (long)slept - 1 && ret <= HZ - (long)slept + SLACK_J,
		 "returned %ld after %lu jiffies", ret, slept);
	SI_CHECK(sto.waker == task, "woken first by %s, not by the waker thread",
		 sto.waker_comm);
	SI_CHECK(!atomic_read(&sto.expiries),
		 "the cancelled wake-up timer ran %d times", atomic_read(&sto.expiries));
}

/* ---------------------------------------------------------------------- */
/* 10. Misuse: refused with a warning, nothing breaks. */

static struct si_timer never_set_up;

SI_CHECKED(t_misuse_never_set_up)
{
	int ret;

	si_expect_warn("si_mod_timer() on a never set up timer");
	ret = si_mod_timer(&never_set_up, jiffies + 1);
	SI_CHECK(ret == -EINVAL, "returned %d", ret);
	SI_CHECK(!si_timer_pending(&never_set_up), "armed");
}

SI_CHECKED(t_misuse_null)
{
	int ret;

	si_expect_warn("si_timer_delete() on a NULL timer");
	ret = si_timer_delete(NULL);
	SI_CHECK(ret == -EINVAL, "si_timer_delete(NULL) returned %d", ret);
	/* Same call site as the previous test's warning: no second one. */
	ret = si_mod_timer(NULL, jiffies + 1);
	SI_CHECK(ret == -EINVAL, "si_mod_timer(NULL) returned %d", ret);
	/* A query: timer_pending(NULL) oopses, this one answers 0. */
	si_expect_warn("si_timer_pending() on a NULL timer");
	ret = si_timer_pending(NULL);
	SI_CHECK(ret == 0, "si_timer_pending(NULL) returned %d", ret);
}

SI_CHECKED(t_misuse_add_timer_pending)
{
	struct probe p;
	unsigned long e;

	/*
	 * Far enough out that it cannot fire while the WARN prints on a
	 * busy host; si_mod_timer() brings it in afterwards.
	 */
	probe_init(&p, probe_fn, 0);
	e = jiffies + 10 * HZ;
	p.timer.expires = e;
	si_add_timer(&p.timer);
	p.timer.expires = e + 10 * HZ;
	si_expect_warn("si_add_timer() on pending timer");
	si_add_timer(&p.timer);
	SI_CHECK(si_timer_pending(&p.timer), "not pending");
	/* still due when first armed: expires is only read by arming calls */
	SI_CHECK(p.timer.due == si_timer_due(e), "re-armed to +%lu", p.timer.due - si_timer_due(e));
	SI_CHECK(si_mod_timer(&p.timer, jiffies + 1) == 1, "lost its arming");
	SI_CHECK(probe_wait(&p, 5 * HZ), "did not fire");
	msleep(SLACK_MS);
	SI_CHECK(atomic_read(&p.runs) == 1, "runs %d", atomic_read(&p.runs));
	SI_CHECK(!si_timer_pending(&p.timer), "pending after its run");
	si_timer_delete_sync(&p.timer);

	if (other_cpu < 0)
		return;
	probe_init(&p, probe_fn, 0);
	probe_arm_on(&p, other_cpu, 10 * HZ);
	si_expect_warn("si_add_timer_on() on pending timer");
	si_add_timer_on(&p.timer, home_cpu);
	SI_CHECK(si_timer_pending(&p.timer), "not pending");
	SI_CHECK(si_timer_delete(&p.timer) == 1, "one delete must suffice");
	SI_CHECK(!si_timer_pending(&p.timer), "still pending");
	si_timer_delete_sync(&p.timer);
}

SI_CHECKED(t_misuse_add_timer_on_bad_cpu)
{
	struct probe p;

	probe_init(&p, probe_fn, 0);
	p.timer.expires = jiffies + 1;
	si_expect_warn("not a possible CPU");
	si_add_timer_on(&p.timer, nr_cpu_ids);
	SI_CHECK(!si_timer_pending(&p.timer), "armed for CPU %u", nr_cpu_ids);
	si_add_timer_on(&p.timer, -1);
	SI_CHECK(!si_timer_pending(&p.timer), "armed for CPU -1");
	si_timer_delete_sync(&p.timer);
}

SI_CHECKED(t_misuse_invalid_flags)
{
	struct probe p;

	si_expect_warn("invalid flags 0x200004");
	probe_init(&p, probe_fn, 0x4 | TIMER_IRQSAFE);
	SI_CHECK(p.timer.flags == 0, "flags %#x kept", p.timer.flags);
	si_mod_timer(&p.timer, jiffies + 1);
	SI_CHECK(probe_wait(&p, 5 * HZ), "did not fire");
	SI_CHECK(p.kthread && expected_comm(&p), "ran in '%s'", p.comm);
	si_timer_delete_sync(&p.timer);
}

static void self_delete_fn(struct si_timer *t)
{
	struct probe *p = si_timer_container_of(p, t, timer);

	p->ret = si_timer_delete_sync(t);
	atomic_inc(&p->runs);
	complete(&p->done);
}

SI_CHECKED(t_misuse_delete_sync_own_callback)
{
	struct probe p;

	probe_init(&p, self_delete_fn, 0);
	si_expect_warn("from its own callback");
	si_mod_timer(&p.timer, jiffies + 1);
	SI_CHECK(probe_wait(&p, 5 * HZ), "did not fire");
	SI_CHECK(p.ret == -EINVAL, "returned %d", p.ret);
	si_timer_delete_sync(&p.timer);
}

struct hard_deleter {
	struct hrtimer hr;
	struct si_timer *victim;
	int ret;
	bool in_hardirq;
	struct completion done;
};

static struct hard_deleter hard_deleter;

static enum hrtimer_restart hard_delete_fn(struct hrtimer *hr)
{
	struct hard_deleter *h = container_of(hr, struct hard_deleter, hr);

	h->in_hardirq = in_hardirq();
	h->ret = si_timer_delete_sync(h->victim);
	complete(&h->done);
	return HRTIMER_NORESTART;
}

SI_CHECKED(t_misuse_delete_sync_hardirq)
{
	struct hard_deleter *h = &hard_deleter;
	struct probe p;

	probe_init(&p, probe_fn, 0);
	si_mod_timer(&p.timer, jiffies + 10 * HZ);
	h->victim = &p.timer;
	init_completion(&h->done);
	hrtimer_setup(&h->hr, hard_delete_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	si_expect_warn("from hard interrupt context");
	hrtimer_start(&h->hr, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	SI_CHECK(wait_for_completion_timeout(&h->done, 5 * HZ), "hrtimer did not fire");
	hrtimer_cancel(&h->hr);
	SI_CHECK(h->in_hardirq, "HARD hrtimer callback not in hardirq");
	SI_CHECK(h->ret == -EINVAL, "returned %d", h->ret);
	SI_CHECK(si_timer_pending(&p.timer), "the refused delete deleted the timer");
	SI_CHECK(si_timer_delete_sync(&p.timer) == 1, "");
}

/* ---------------------------------------------------------------------- */
/* 11. Leaks repaired. */

static void si_api_leak_bh(struct si_timer *t)
{
	struct probe *p = si_timer_container_of(p, t, timer);

	atomic_inc(&p->runs);
	complete(&p->done);
	local_bh_disable();
}

static void si_api_leak_preempt(struct si_timer *t)
{
	struct probe *p = si_timer_container_of(p, t, timer);

	atomic_inc(&p->runs);
	complete(&p->done);
	preempt_disable();
}

static void bh_toggle(void *arg)
{
	bool *ok = arg;

	local_bh_disable();
	local_bh_enable();
	usleep_range(1000, 2000);
	*ok = !softirq_count() && !preempt_count();
}

static void leak_check(si_timer_func_t leak_fn, const char *warn)
{
	struct probe p;
	bool ok = false;
	int cpu = other_cpu >= 0 ? other_cpu : home_cpu;

	if (!per_cpu(baseline_softirq, cpu)) {
		si_skip("no baseline from context_compatible");
		return;
	}
	probe_init(&p, leak_fn, 0);
	si_expect_warn(warn);
	probe_arm_on(&p, cpu, 1);
	SI_CHECK(probe_wait(&p, 5 * HZ), "leaking callback did not run");
	si_timer_delete_sync(&p.timer);

	/* The executor that ran it still works and looks as before. */
	probe_init(&p, probe_fn, 0);
	probe_arm_on(&p, cpu, 1);
	if (SI_CHECK(probe_wait(&p, 5 * HZ), "next callback on CPU %d did not run", cpu)) {
		si_diag("CPU %d after the leak: softirq_count=%#lx (before %#lx)",
			cpu, p.softirq_cnt, per_cpu(baseline_softirq, cpu));
		si_diag("  preempt_count=%#x (before %#x)", p.preempt,
			per_cpu(baseline_preempt, cpu));
		SI_CHECK(p.softirq_cnt == per_cpu(baseline_softirq, cpu), "");
		SI_CHECK(p.preempt == per_cpu(baseline_preempt, cpu), "");
		SI_CHECK(p.cpu == cpu && expected_comm(&p), "ran on %d in '%s'", p.cpu, p.comm);
	}
	si_timer_delete_sync(&p.timer);

	/* A task on that CPU can still disable/enable BH and sleep. */
	SI_CHECK(run_on_cpu(cpu, bh_toggle, &ok, 2000),
		 "local_bh_disable/enable on CPU %d blocked", cpu);
	SI_CHECK(ok, "BH or preemption still disabled in a task on CPU %d", cpu);
	local_bh_disable();
	local_bh_enable();
}

SI_CHECKED(t_leaked_bh_repaired)
{
	leak_check(si_api_leak_bh, "callback si_api_leak_bh");
}

SI_CHECKED(t_leaked_preempt_repaired)
{
	leak_check(si_api_leak_preempt, "callback si_api_leak_preempt");
}

/* ---------------------------------------------------------------------- */
/* Cancelling just as the executor starts the callback. */

/*
 * A chain of timers expiring in the same wheel run on one CPU: queued
 * together on its executor, run one after the other. Each callback spins
 * until the canceller releases it, so the canceller knows when the
 * executor is about to take the next one.
 */
#define CHAIN_LEN	32

struct chain;

struct link {
	struct si_timer timer;
	struct chain *chain;
	int idx;
	atomic_t runs;
	atomic_t started;
	atomic_t finished;
	bool cancelled;
};

struct chain {
	struct link link[CHAIN_LEN];
	atomic_t order;			/* callbacks started so far */
	int by_rank[CHAIN_LEN + 1];	/* link index of the n-th started */
	int release;			/* callbacks of rank <= this may return */
};

static void link_fn(struct si_timer *t)
{
	struct link *l = si_timer_container_of(l, t, timer);
	struct chain *c = l->chain;
	u64 end = ktime_get_ns() + 50 * NSEC_PER_MSEC;
	int rank = atomic_inc_return(&c->order);

	if (rank <= CHAIN_LEN)
		c->by_rank[rank] = l->idx;
	atomic_inc(&l->runs);
	smp_mb__before_atomic();	/* by_rank and runs before started */
	atomic_inc(&l->started);
	while (READ_ONCE(c->release) < rank && ktime_get_ns() < end)
		cpu_relax();
	smp_mb__before_atomic();	/* released before finished */
	atomic_inc(&l->finished);
}

SI_CHECKED(t_try_to_del_vs_start_race)
{
	static const int chains = 50;
	struct chain *c;
	int hist[3] = {}, bad = 0, lost = 0, timeouts = 0, lifo = 0;
	unsigned int cost_ns;
	u64 t0;
	int n, i;

	if (!need_other_cpu())
		return;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!SI_CHECK(c, "out of memory"))
		return;

	/* What one cancel of an idle timer costs: about the race window. */
	si_test_timer_setup(&c->link[0].timer, link_fn, 0);
	t0 = ktime_get_ns();
	for (i = 0; i < 1000; i++)
		si_try_to_del_timer_sync(&c->link[0].timer);
	cost_ns = div_u64(ktime_get_ns() - t0, 1000);

	for (n = 0; n < chains; n++) {
		unsigned long e;
		int lead_rank, ncancelled = 0;

		memset(c, 0, sizeof(*c));
		e = jiffies + 1;
		for (i = 0; i < CHAIN_LEN; i++) {
			c->link[i].chain = c;
			c->link[i].idx = i;
			si_test_timer_setup(&c->link[i].timer, link_fn, 0);
			c->link[i].timer.expires = e;
			si_add_timer_on(&c->link[i].timer, other_cpu);
		}
		if (!si_spin_until(atomic_read(&c->order) >= 1, 1000)) {
			timeouts++;
			goto next;
		}
		smp_rmb();	/* order before by_rank */
		/* The wheel keeps a bucket last-in first-out: the last armed runs first. */
		lifo += c->by_rank[1] == CHAIN_LEN - 1;
		for (lead_rank = 1; ; lead_rank++) {
			struct link *v = NULL;
			int lead = c->by_rank[lead_rank], ret, s, f;
			u64 until;

			/* The victim: the one queued next, if the order is as expected. */
			for (i = lead - 1; i >= 0; i--) {
				if (!c->link[i].cancelled && !atomic_read(&c->link[i].started)) {
					v = &c->link[i];
					break;
				}
			}
			if (!v)
				break;
			/*
			 * Release the running callback, then cancel the next
			 * one within 2 us, around when the executor takes it
			 * (under TCG the executor needs 2-6 us from release
			 * to the next callback, the cancel ~0.2 us).
			 */
			until = get_random_u32() % 2000;
			until += ktime_get_ns();
			WRITE_ONCE(c->release, lead_rank);
			while (ktime_get_ns() < until)
				cpu_relax();
			ret = si_try_to_del_timer_sync(&v->timer);
			s = atomic_read(&v->started);
			smp_rmb();	/* started before finished */
			f = atomic_read(&v->finished);
			if (ret < -1 || ret > 1) {
				si_fail("chain %d: returned %d", n, ret);
				break;
			}
			hist[ret + 1]++;
			if (ret == 1) {
				v->cancelled = true;
				ncancelled++;
			}
			/* >= 0 promises the callback is not running. */
			if (((ret == 1 && s) || (ret == 0 && (!s || !f))) && bad++ < 5) {
				si_diag("chain %d link %d: si_try_to_del_timer_sync returned %d",
					n, v->idx, ret);
				si_diag("  with the callback started=%d finished=%d", s, f);
			}
			/* Wait for the next callback to start (if any is left). */
			if (!si_spin_until(atomic_read(&c->order) > lead_rank ||
					   atomic_read(&c->order) + ncancelled >= CHAIN_LEN,
					   1000)) {
				timeouts++;
				break;
			}
			smp_rmb();	/* order before by_rank */
			if (atomic_read(&c->order) <= lead_rank)
				break;
		}
next:
		WRITE_ONCE(c->release, INT_MAX);
		for (i = 0; i < CHAIN_LEN; i++) {
			struct link *l = &c->link[i];

			/* Those not reached are still queued: cancelled here. */
			if (si_timer_delete_sync(&l->timer) == 1)
				l->cancelled = true;
			if (atomic_read(&l->runs) != (l->cancelled ? 0 : 1))
				lost++;
		}
	}
	si_diag("%d chains of %d (first run was the last armed: %d); timeouts %d",
		chains, CHAIN_LEN, lifo, timeouts);
	si_diag("  si_try_to_del_timer_sync: -1 x%d, 0 x%d, 1 x%d; cancel cost %u ns",
		hist[0], hist[1], hist[2], cost_ns);
	SI_CHECK(!bad, "%d cancels returned >= 0 while the callback was running", bad);
	SI_CHECK(!lost, "%d callbacks ran after a cancel returned 1, or not at all", lost);
	SI_CHECK(timeouts < chains / 10, "%d chains timed out", timeouts);
	kfree(c);
}

/*
 * si_try_to_del_timer_sync() just as the timer expires: its executor on the
 * other CPU has collected it from its wheel onto its queue, or started its
 * callback. Whatever the call returns must hold: -1 the callback runs, 1
 * it never does, 0 it has already finished.
 */
#define AT_EXPIRY_ROUNDS	300

SI_CHECKED(t_try_to_del_at_expiry)
{
	int hist[3] = {}, bad = 0, missed = 0, i;
	struct probe p;

	if (!need_other_cpu())
		return;
	for (i = 0; i < AT_EXPIRY_ROUNDS; i++) {
		int ret, runs, fin;

		probe_init(&p, probe_fn, 0);
		probe_arm_on(&p, other_cpu, 1);
		if (!si_spin_until(!si_in_wheel(&p.timer) ||
				   atomic_read(&p.started), 1000)) {
			missed++;
			si_timer_delete_sync(&p.timer);
			continue;
		}
		ret = si_try_to_del_timer_sync(&p.timer);
		if (ret < -1 || ret > 1) {
			si_fail("round %d: returned %d", i, ret);
			si_timer_delete_sync(&p.timer);
			break;
		}
		hist[ret + 1]++;
		if (ret == -1)
			probe_wait(&p, 5 * HZ);
		runs = atomic_read(&p.runs);
		smp_rmb();	/* runs before finished, as probe_fn() writes them */
		fin = atomic_read(&p.finished);
		if ((ret == -1 && runs != 1) || (ret == 0 && fin != 1) || (ret == 1 && runs)) {
			si_diag("round %d: returned %d, then runs %d finished %d",
				i, ret, runs, fin);
			bad++;
		}
		si_timer_delete_sync(&p.timer);
		if (bad >= 3)
			break;
	}
	si_diag("%d rounds: -1 x%d, 0 x%d, 1 x%d; expiry not seen %d",
		i, hist[0], hist[1], hist[2], missed);
	SI_CHECK(!bad, "%d returns that did not hold", bad);
	SI_CHECK(missed < AT_EXPIRY_ROUNDS / 10, "the expiry was not seen %d times", missed);
}

/* ---------------------------------------------------------------------- */
/* 12. si_timer_shutdown_sync() of many timers in flight. */

struct flight {
	struct si_timer timer;
	atomic_t runs;
	unsigned int busy_us;
	unsigned long period;
};

static struct flight *flights;
static int nflights;

static void flight_fn(struct si_timer *t)
{
	struct flight *f = si_timer_container_of(f, t, timer);

	atomic_inc(&f->runs);
	if (f->busy_us)
		si_test_busy_us(f->busy_us);
	if (f->period)
		si_mod_timer(t, jiffies + f->period);
}

/* Periodic flights that have not run twice yet. */
static int idle_periodic_flights(void)
{
	int i, idle = 0;

	for (i = 0; i < nflights; i++)
		idle += flights[i].period && atomic_read(&flights[i].runs) < 2;
	return idle;
}

static int flight_runs(void)
{
	int i, runs = 0;

	for (i = 0; i < nflights; i++)
		runs += atomic_read(&flights[i].runs);
	return runs;
}

/*
 * On every CPU: pinned timers re-arming themselves every jiffy or three
 * (some busy 1 ms, some soft-interruptible), and one armed an hour out.
 * Once each periodic one ran twice, shut them all down in turn while the
 * others keep firing: afterwards none runs, none is pending, and arming
 * one is a no-op, as for timer_shutdown_sync().
 */
SI_CHECKED(t_shutdown_sync_in_flight)
{
	int cpu, i = 0, idle, before, late = 0, rearmed = 0;

	flights = kcalloc(nr_cpu_ids * 4, sizeof(*flights), GFP_KERNEL);
	if (!SI_CHECK(flights, "out of memory"))
		return;
	for_each_online_cpu(cpu) {
		static const struct {
			unsigned int flags, busy_us;
			unsigned long period;
		} kind[] = {
			{ SI_TIMER_PINNED, 0, 1 },
			{ SI_TIMER_PINNED, 1000, 3 },
			{ SI_TIMER_PINNED | SI_TIMER_SOFTINTERRUPTIBLE, 200, 1 },
			{ 0, 0, 0 },
		};
		int k;

		for (k = 0; k < ARRAY_SIZE(kind); k++, i++) {
			struct flight *f = &flights[i];

			si_test_timer_setup(&f->timer, flight_fn, kind[k].flags);
			f->busy_us = kind[k].busy_us;
			f->period = kind[k].period;
			f->timer.expires = jiffies + (f->period ? 1 : 3600 * HZ);
			si_add_timer_on(&f->timer, cpu);
		}
	}
	nflights = i;
	si_wait_until(!idle_periodic_flights(), 2000);
	idle = idle_periodic_flights();
	for (i = 0; i < nflights; i++)
		if (!flights[i].period)
			SI_CHECK(si_timer_pending(&flights[i].timer), "long timer %d", i);
	SI_CHECK(!idle, "%d periodic timers ran less than twice in 2 s", idle);

	for (i = 0; i < nflights; i++)
		si_timer_shutdown_sync(&flights[i].timer);
	before = flight_runs();
	msleep(20);
	for (i = 0; i < nflights; i++) {
		if (si_timer_pending(&flights[i].timer))
			late++;
		si_mod_timer(&flights[i].timer, jiffies + 1);
		rearmed += si_timer_pending(&flights[i].timer);
	}
	msleep(20);
	late += flight_runs() - before;
	si_diag("%d timers shut down in flight after %d runs", nflights, before);
	SI_CHECK(!late, "%d runs or pending timers after si_timer_shutdown_sync()", late);
	SI_CHECK(!rearmed, "%d shut down timers armed again", rearmed);
	for (i = 0; i < nflights; i++)
		si_timer_delete_sync(&flights[i].timer);
	kfree(flights);
	flights = NULL;
}

/* ---------------------------------------------------------------------- */
/*
 * 13. debugobjects (CONFIG_DEBUG_OBJECTS_TIMERS: the debug kernels).
 * Freeing the memory of an armed si_timer is reported, as for a
 * timer_list ("ODEBUG: free active ... object type: si_timer"), and the
 * fixup takes the timer off its executor's wheel before the memory goes
 * (seen as its si_timer_cancel event), so that it never fires from freed
 * memory. Armed an hour out: it cannot be due before the kfree(), however
 * slow the guest.
 */
static struct si_timer *dobj_freed;
static atomic_t dobj_cancels = ATOMIC_INIT(0);
static atomic_t dobj_runs = ATOMIC_INIT(0);

static void si_dobj_freed_fn(struct si_timer *t)
{
	atomic_inc(&dobj_runs);
}

static void dobj_cancelled(void *data, struct si_timer *timer)
{
	if (timer == READ_ONCE(dobj_freed))
		atomic_inc(&dobj_cancels);
}

SI_CHECKED(t_debugobjects_free_armed)
{
	struct si_timer *timer;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS)) {
		si_skip("CONFIG_DEBUG_OBJECTS_TIMERS is off");
		return;
	}
	timer = kzalloc(sizeof(*timer), GFP_KERNEL);
	if (!SI_CHECK(timer, "no memory"))
		return;
	if (!SI_CHECK(!register_trace_si_timer_cancel(dobj_cancelled, NULL),
		      "cannot attach to si_timer_cancel")) {
		kfree(timer);
		return;
	}
	si_timer_setup(timer, si_dobj_freed_fn, 0);
	si_mod_timer(timer, jiffies + 3600 * HZ);
	WRITE_ONCE(dobj_freed, timer);
	si_expect_warn("ODEBUG: free active ... object type: si_timer hint: si_dobj_freed_fn+");
	kfree(timer);
	WRITE_ONCE(dobj_freed, NULL);
	unregister_trace_si_timer_cancel(dobj_cancelled, NULL);
	tracepoint_synchronize_unregister();
	SI_CHECK(atomic_read(&dobj_cancels) == 1,
		 "the freed timer was cancelled %d times by the kfree(), want 1",
		 atomic_read(&dobj_cancels));
	SI_CHECK(!atomic_read(&dobj_runs), "its callback ran %d times", atomic_read(&dobj_runs));
}

/* ---------------------------------------------------------------------- */

static const struct si_test tests[] = {
	SI_TEST(t_fires_on_time),
	SI_TEST(t_add_timer_on_every_cpu),
	SI_TEST(t_pinned_runs_where_armed),
	SI_TEST(t_deferrable_waits_for_its_cpu),
	SI_TEST(t_return_values),
	SI_TEST(t_try_to_del_while_running),
	SI_TEST(t_queued_is_pending),
	SI_TEST(t_many_due_behind_busy),
	SI_TEST(t_delete_sync_waits),
	SI_TEST(t_shutdown_sync_waits_and_stays_off),
	SI_TEST(t_rearm_periodic),
	SI_TEST(t_delete_sync_self_rearming),
	SI_TEST(t_on_stack_and_static),
	SI_TEST(t_stress_10000),
	SI_TEST(t_context_compatible),
	SI_TEST(t_context_softinterruptible),
	SI_TEST(t_schedule_timeout_uninterruptible),
	SI_TEST(t_schedule_timeout_interruptible),
	SI_TEST(t_schedule_timeout_interruptible_woken),
	SI_TEST(t_misuse_never_set_up),
	SI_TEST(t_misuse_null),
	SI_TEST(t_misuse_add_timer_pending),
	SI_TEST(t_misuse_add_timer_on_bad_cpu),
	SI_TEST(t_misuse_invalid_flags),
	SI_TEST(t_misuse_delete_sync_own_callback),
	SI_TEST(t_misuse_delete_sync_hardirq),
	SI_TEST(t_leaked_bh_repaired),
	SI_TEST(t_leaked_preempt_repaired),
	SI_TEST(t_try_to_del_vs_start_race),
	SI_TEST(t_try_to_del_at_expiry),
	SI_TEST(t_shutdown_sync_in_flight),
	SI_TEST(t_debugobjects_free_armed),
};

static void si_api_main(void *unused)
{
	si_ktap_run(tests, ARRAY_SIZE(tests));
}

static int __init si_timer_api_init(void)
{
	home_cpu = cpumask_first(cpu_online_mask);
	other_cpu = si_test_next_cpu(home_cpu);
	return si_ktap_run_on_cpu(home_cpu, si_api_main, NULL, false, 0);
}

static void __exit si_timer_api_exit(void)
{
}

module_init(si_timer_api_init);
module_exit(si_timer_api_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KTAP tests of the si_timer core API");
