// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP tests of si_timer across CPU hotplug: a timer pending on a CPU that
 * goes offline still fires (elsewhere, as the kernel migrates the timers of
 * a dead CPU), callbacks queued on its executor are not lost, a self
 * re-arming timer keeps running, the executor comes back with the CPU, and
 * a timer armed on a CPU coming up (from its prepare step on) runs there.
 *
 * The CPU taken down is the highest online one that is not the CPU the
 * tests run on (CPU 3 under `-smp 4`); it is brought back before the
 * module's init returns.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/linux/sched/types.h>
#include <si_hrtimer.h>
#include "si_test.h"

static int home_cpu;
static int target = -1;

struct hp_probe {
	struct si_timer timer;
	atomic_t runs;
	struct completion done;
	int cpu;
	char comm[TASK_COMM_LEN];
	unsigned long period;	/* re-arm itself, pinned, every @period jiffies */
};

static void hp_fn(struct si_timer *t)
{
	struct hp_probe *p = si_timer_container_of(p, t, timer);

	p->cpu = raw_smp_processor_id();
	strscpy(p->comm, current->comm, sizeof(p->comm));
	atomic_inc(&p->runs);
	if (p->period)
		si_mod_timer(t, jiffies + p->period);
	complete(&p->done);
}

static void hp_init(struct hp_probe *p, unsigned int flags)
{
	memset(p, 0, sizeof(*p));
	init_completion(&p->done);
	si_test_timer_setup(&p->timer, hp_fn, flags);
}

static bool on_executor(const struct hp_probe *p)
{
	char want[TASK_COMM_LEN];

	snprintf(want, sizeof(want), "si_timer/%d", p->cpu);
	return !strcmp(p->comm, want);
}

static bool target_down(void)
{
	int ret = remove_cpu(target);

	if (ret) {
		si_skip("remove_cpu(%d) failed: %d", target, ret);
		return false;
	}
	return SI_CHECK(!cpu_online(target), "CPU %d still online", target);
}

struct arm_pinned {
	struct hp_probe *p;
	unsigned long delay;
};

static void arm_pinned(void *data)
{
	struct arm_pinned *a = data;

	si_mod_timer(&a->p->timer, jiffies + a->delay);
}

/* si_mod_timer() from a kthread bound to @cpu (for SI_TIMER_PINNED timers). */
static bool arm_on(struct hp_probe *p, int cpu, unsigned long delay)
{
	struct arm_pinned a = { .p = p, .delay = delay };
	int ret = si_ktap_run_on_cpu(cpu, arm_pinned, &a, false, 0);

	return SI_CHECK(!ret, "cannot run on CPU %d: %d", cpu, ret);
}

/*
 * Armed this far out, so that they are still pending when the CPU has gone
 * down; should the offline take longer than that (remove_cpu() waits for
 * RCU grace periods and the stop machine: slow on a loaded host), the round
 * is repeated with the next delay.
 */
static const unsigned int offline_delays_s[] = { 5, 30 };

SI_CHECKED(t_pending_timer_fires_after_offline)
{
	struct hp_probe a, b;
	unsigned long armed, delay;
	bool down, late;
	int i;

	for (i = 0; i < ARRAY_SIZE(offline_delays_s); i++) {
		delay = offline_delays_s[i] * HZ;
		hp_init(&a, 0);
		hp_init(&b, SI_TIMER_PINNED);
		armed = jiffies;
		a.timer.expires = armed + delay;
		si_add_timer_on(&a.timer, target);
		arm_on(&b, target, delay);
		SI_CHECK(si_timer_pending(&a.timer) && si_timer_pending(&b.timer), "not armed");

		down = target_down();
		late = time_after_eq(jiffies, armed + delay);
		if (!down || !late)
			break;
		si_diag("CPU %d went offline %u ms after arming, when the timers were due",
			target, jiffies_to_msecs(jiffies - armed));
		si_timer_delete_sync(&a.timer);
		si_timer_delete_sync(&b.timer);
		if (!si_test_cpu_up(target))
			return;
	}
	if (down && !SI_CHECK(!late, "CPU %d took %u ms to go offline, after every delay",
			      target, jiffies_to_msecs(jiffies - armed)))
		down = false;
	if (down) {
		SI_CHECK(si_timer_pending(&a.timer), "add_timer_on timer lost at offline");
		SI_CHECK(si_timer_pending(&b.timer), "pinned timer lost at offline");
		/* as before the retry: the delay, and 5 s more */
		SI_CHECK(wait_for_completion_timeout(&a.done, delay + 5 * HZ),
			 "add_timer_on timer did not fire");
		SI_CHECK(wait_for_completion_timeout(&b.done, delay + 5 * HZ),
			 "pinned timer did not fire");
		si_diag("CPU %d offline: timers fired on CPU %d ('%s') and CPU %d ('%s')",
			target, a.cpu, a.comm, b.cpu, b.comm);
		SI_CHECK(a.cpu != target && on_executor(&a), "ran on %d in '%s'", a.cpu, a.comm);
		SI_CHECK(b.cpu != target && on_executor(&b), "ran on %d in '%s'", b.cpu, b.comm);
		msleep(20);
		SI_CHECK(atomic_read(&a.runs) == 1 && atomic_read(&b.runs) == 1,
			 "runs %d and %d", atomic_read(&a.runs), atomic_read(&b.runs));
	}
	si_timer_delete_sync(&a.timer);
	si_timer_delete_sync(&b.timer);
	si_test_cpu_up(target);
}

/* --- si_hrtimers: handed over with the wheels, their HARD hrtimers by the kernel --- */

struct hp_hr {
	struct si_hrtimer t;
	atomic_t runs;
	int cpu;
	char comm[TASK_COMM_LEN];
	bool periodic;		/* every ms */
};

static enum hrtimer_restart hp_hr_fn(struct si_hrtimer *t)
{
	struct hp_hr *h = container_of(t, struct hp_hr, t);

	h->cpu = raw_smp_processor_id();
	strscpy(h->comm, current->comm, sizeof(h->comm));
	atomic_inc(&h->runs);
	if (!h->periodic)
		return HRTIMER_NORESTART;
	si_hrtimer_forward_now(t, ms_to_ktime(1));
	return HRTIMER_RESTART;
}

struct hp_hr_arm {
	struct hp_hr *h;
	ktime_t in;
};

static void hp_hr_start(void *data)
{
	struct hp_hr_arm *a = data;

	si_hrtimer_start(&a->h->t, a->in, HRTIMER_MODE_REL_PINNED);
}

static void hp_hr_end(struct hp_hr *h)
{
	si_hrtimer_cancel(&h->t);
	si_destroy_hrtimer_on_stack(&h->t);
}

SI_CHECKED(t_hrtimers_move_on_offline)
{
	struct hp_hr one, tick;
	struct hp_hr_arm a1 = { .h = &one }, a2 = { .h = &tick, .in = ms_to_ktime(1) };
	char want[TASK_COMM_LEN];
	bool down = false;
	u64 armed;
	int i, runs;

	for (i = 0; i < ARRAY_SIZE(offline_delays_s); i++) {
		memset(&one, 0, sizeof(one));
		memset(&tick, 0, sizeof(tick));
		tick.periodic = true;
		si_hrtimer_setup_on_stack(&one.t, hp_hr_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL, 0);
		si_hrtimer_setup_on_stack(&tick.t, hp_hr_fn, CLOCK_BOOTTIME, HRTIMER_MODE_REL,
					  SI_TIMER_SOFTINTERRUPTIBLE);
		a1.in = ktime_set(offline_delays_s[i], 0);
		armed = ktime_get_ns();
		if (si_ktap_run_on_cpu(target, hp_hr_start, &a1, false, 0) ||
		    si_ktap_run_on_cpu(target, hp_hr_start, &a2, false, 0))
			break;
		if (!SI_CHECK(si_wait_until(atomic_read(&tick.runs) >= 3, 5000),
			      "periodic si_hrtimer ran %d times on CPU %d", atomic_read(&tick.runs),
			      target))
			break;
		down = target_down();
		if (!down || ktime_get_ns() - armed < (u64)offline_delays_s[i] * NSEC_PER_SEC)
			break;
		down = false;
		if (i + 1 == ARRAY_SIZE(offline_delays_s)) {
			SI_CHECK(false, "CPU %d slower to go offline than every delay", target);
			break;
		}
		hp_hr_end(&one);
		hp_hr_end(&tick);
		if (!si_test_cpu_up(target))
			return;
	}
	if (down) {
		SI_CHECK(si_hrtimer_is_queued(&one.t), "armed si_hrtimer lost at offline");
		runs = atomic_read(&tick.runs);
		SI_CHECK(si_wait_until(atomic_read(&tick.runs) >= runs + 3, 5000),
			 "periodic si_hrtimer stopped at offline (%d runs)",
			 atomic_read(&tick.runs));
		snprintf(want, sizeof(want), "si_timer/%d", tick.cpu);
		SI_CHECK(tick.cpu != target && !strcmp(tick.comm, want),
			 "periodic si_hrtimer ran on %d in '%s'", tick.cpu, tick.comm);
		/* as long as the longest delay, and 5 s more */
		SI_CHECK(si_wait_until(atomic_read(&one.runs) == 1, 35000),
			 "armed si_hrtimer did not fire after offline");
		snprintf(want, sizeof(want), "si_timer/%d", one.cpu);
		SI_CHECK(one.cpu != target && !strcmp(one.comm, want),
			 "armed si_hrtimer ran on %d in '%s'", one.cpu, one.comm);
		si_diag("CPU %d offline: si_hrtimers ran on CPU %d and %d", target, one.cpu,
			tick.cpu);
	}
	hp_hr_end(&one);
	hp_hr_end(&tick);
	si_test_cpu_up(target);
}

/* The executor kthread of @cpu, with a reference, found by a callback. */
struct grab {
	struct si_timer timer;
	struct task_struct *task;
	struct completion done;
};

static void grab_fn(struct si_timer *t)
{
	struct grab *g = si_timer_container_of(g, t, timer);

	g->task = get_task_struct(current);
	complete(&g->done);
}

static struct task_struct *executor_of(int cpu)
{
	struct grab g = {};

	init_completion(&g.done);
	si_test_timer_setup(&g.timer, grab_fn, 0);
	g.timer.expires = jiffies + 1;
	si_add_timer_on(&g.timer, cpu);
	if (!wait_for_completion_timeout(&g.done, 5 * HZ))
		si_fail("no callback on CPU %d", cpu);
	si_timer_delete_sync(&g.timer);
	return g.task;
}

static int set_policy(struct task_struct *p, int policy, int prio)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = policy,
		.sched_priority = prio,
	};

	return sched_setattr_nocheck(p, &attr);
}

#define NQUEUED	1000
/*
 * How long each slow_fn() keeps the target's executor busy, so that some
 * of the NQUEUED are still queued when the CPU goes down: 5 s in all,
 * since under QEMU TCG on a loaded host an offline can take a second or
 * more before the executor is asked to park. Once it is, or elsewhere,
 * they return at once, so the test does not take that long. A busy wait:
 * they are compatible-mode callbacks, which must not sleep.
 */
#define SLOW_FN_US	5000

/* How many of @p[0..@n) have run. */
static int hp_ran(const struct hp_probe *p, int n)
{
	int i, ran = 0;

	for (i = 0; i < n; i++)
		ran += !!atomic_read(&p[i].runs);
	return ran;
}

static void slow_fn(struct si_timer *t)
{
	struct hp_probe *p = si_timer_container_of(p, t, timer);

	p->cpu = raw_smp_processor_id();
	strscpy(p->comm, current->comm, sizeof(p->comm));
	atomic_inc(&p->runs);
	if (p->cpu == target && !kthread_should_park())
		si_test_busy_us(SLOW_FN_US);
}

/*
 * Callbacks still queued on an executor when its CPU goes down move to a
 * live executor. A SCHED_FIFO executor would run the whole queue before
 * the (SCHED_OTHER) hotplug thread of its CPU gets to park it, so for this
 * test it is made SCHED_OTHER, and restored afterwards.
 */
SI_CHECKED(t_queued_callbacks_move_on_offline)
{
	struct task_struct *exec;
	struct hp_probe *p;
	int i, policy, prio, ret, on_target = 0, lost = 0, twice = 0, outside = 0;
	unsigned long e;

	exec = executor_of(target);
	if (!exec)
		return;
	policy = exec->policy;
	prio = exec->rt_priority;
	p = kcalloc(NQUEUED, sizeof(*p), GFP_KERNEL);
	if (!SI_CHECK(p, "out of memory"))
		goto out_put;
	ret = set_policy(exec, SCHED_NORMAL, 0);
	if (!SI_CHECK(!ret, "sched_setattr: %d", ret))
		goto out_free;

	/* All expire in one wheel run: queued together on target's executor. */
	e = jiffies + 2;
	for (i = 0; i < NQUEUED; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		p[i].cpu = -1;
		si_test_timer_setup(&p[i].timer, slow_fn, 0);
		p[i].timer.expires = e;
		si_add_timer_on(&p[i].timer, target);
	}
	SI_CHECK(si_wait_until(hp_ran(p, NQUEUED) > 0, 5000), "no callback started");
	if (target_down())
		SI_CHECK(si_wait_until(hp_ran(p, NQUEUED) == NQUEUED, 10000),
			 "not all callbacks ran within 10 s");
	ret = set_policy(exec, policy, prio);
	SI_CHECK(!ret, "restoring the executor's policy: %d", ret);
	msleep(20);
	for (i = 0; i < NQUEUED; i++) {
		si_timer_delete_sync(&p[i].timer);
		if (!atomic_read(&p[i].runs))
			lost++;
		else if (p[i].cpu == target)
			on_target++;
		else if (!on_executor(&p[i]))
			outside++;
		if (atomic_read(&p[i].runs) > 1)
			twice++;
	}
	si_diag("%d callbacks: %d ran on CPU %d before it went down, %d moved, %d lost",
		NQUEUED, on_target, target, NQUEUED - lost - on_target, lost);
	SI_CHECK(!lost, "%d callbacks lost", lost);
	SI_CHECK(!twice, "%d callbacks ran twice", twice);
	SI_CHECK(!outside, "%d ran outside an executor", outside);
	/*
	 * Nothing left to move would mean the offline parked the executor
	 * only after its queue drained (it yields after every batch, see
	 * si_executor_fn()), and the test missed its point.
	 */
	SI_CHECK(cpu_online(target) || on_target < NQUEUED,
		 "nothing was left to move at the offline");
	si_test_cpu_up(target);
out_free:
	kfree(p);
out_put:
	put_task_struct(exec);
}

SI_CHECKED(t_rearming_timer_across_hotplug)
{
	struct hp_probe p;
	int n;

	hp_init(&p, SI_TIMER_PINNED);
	p.period = 1;
	arm_on(&p, target, 1);
	SI_CHECK(si_wait_until(atomic_read(&p.runs) >= 5, 5000), "runs %d", atomic_read(&p.runs));
	if (target_down()) {
		n = atomic_read(&p.runs);
		SI_CHECK(si_wait_until(atomic_read(&p.runs) >= n + 5, 5000),
			 "stopped after offline: %d runs", atomic_read(&p.runs) - n);
		SI_CHECK(p.cpu != target, "ran on offline CPU %d", p.cpu);
		si_diag("offline: re-arming timer now runs on CPU %d", p.cpu);
		if (si_test_cpu_up(target)) {
			n = atomic_read(&p.runs);
			SI_CHECK(si_wait_until(atomic_read(&p.runs) >= n + 5, 5000),
				 "stopped after online: %d runs", atomic_read(&p.runs) - n);
		}
	}
	si_timer_delete_sync(&p.timer);
	n = atomic_read(&p.runs);
	msleep(20);
	SI_CHECK(atomic_read(&p.runs) == n, "ran after delete_sync");
	si_test_cpu_up(target);
}

SI_CHECKED(t_executor_back_after_online)
{
	struct hp_probe p;
	int round;

	for (round = 0; round < 2; round++) {
		if (round == 1 && !(target_down() && si_test_cpu_up(target)))
			return;
		hp_init(&p, 0);
		p.timer.expires = jiffies + 1;
		si_add_timer_on(&p.timer, target);
		if (SI_CHECK(wait_for_completion_timeout(&p.done, 5 * HZ),
			     "round %d: no run on CPU %d", round, target)) {
			si_diag("round %d: ran on CPU %d in '%s'", round, p.cpu, p.comm);
			SI_CHECK(p.cpu == target && on_executor(&p), "round %d: ran on %d in '%s'",
				 round, p.cpu, p.comm);
		}
		si_timer_delete_sync(&p.timer);
	}
}

/*
 * A timer armed on a CPU the moment it is online runs there, as after
 * add_timer_on(): armed by a thread that polls cpu_online(), and by a
 * CPUHP_AP_ONLINE_DYN startup callback (run on the incoming CPU, the usual
 * per-CPU driver pattern). The window: the CPU's executor thread, parked
 * while the CPU was down, has not run since (its context switch count is
 * that of its park and it is not on a CPU), so it has not run its unpark
 * callback either. Reached on purpose: the executors run at SCHED_OTHER
 * (prio=0) and the incoming CPU's hotplug thread at SCHED_FIFO meanwhile,
 * so that the executor, woken at CPUHP_AP_SMPBOOT_THREADS, does not run
 * before the online callbacks; otherwise it preempts that thread (at
 * SCHED_FIFO), or often does (at SCHED_OTHER), and the ONLINE_DYN window
 * is hardly ever reached.
 */
#define ONLINE_ROUNDS	10

struct online_arm {
	struct hp_probe dyn, poll;
	struct task_struct *exec;
	unsigned long parked_csw;
	bool dyn_armed, dyn_window, poll_armed, poll_window;
};

static struct online_arm *online_arm;

static bool exec_not_run_since_park(const struct online_arm *a)
{
	const struct task_struct *p = a->exec;

	return READ_ONCE(p->nvcsw) + READ_ONCE(p->nivcsw) == a->parked_csw &&
	       !READ_ONCE(p->on_cpu);
}

static int online_dyn_cb(unsigned int cpu)
{
	struct online_arm *a = READ_ONCE(online_arm);

	if (!a || cpu != target || a->dyn_armed)
		return 0;
	a->dyn_window = exec_not_run_since_park(a);
	a->dyn.timer.expires = jiffies;
	si_add_timer_on(&a->dyn.timer, cpu);
	a->dyn_armed = true;
	return 0;
}

static int online_poller(void *arg)
{
	struct online_arm *a = arg;
	unsigned long end = jiffies + 30 * HZ;

	/* yields only to what must run here (non-preemptible kernels) */
	while (!cpu_online(target) && time_before(jiffies, end) && !kthread_should_stop())
		cond_resched();
	if (cpu_online(target)) {
		a->poll_window = exec_not_run_since_park(a);
		a->poll.timer.expires = jiffies;
		si_add_timer_on(&a->poll.timer, target);
		a->poll_armed = true;
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void online_check(struct hp_probe *p, bool armed, const char *how, int round,
			 int *wrong)
{
	if (!armed)
		return;
	if (!SI_CHECK(wait_for_completion_timeout(&p->done, 5 * HZ),
		      "round %d, %s: did not run", round, how))
		return;
	if (p->cpu != target || !on_executor(p)) {
		(*wrong)++;
		si_diag("round %d, %s: ran on CPU %d in '%s'", round, how, p->cpu, p->comm);
	}
}

SI_CHECKED(t_arm_on_cpu_coming_online)
{
	struct online_arm *a;
	struct task_struct *poller, *cpuhp;
	char prio[8];
	int round, state, dyn_reached = 0, poll_reached = 0, dyn_wrong = 0, poll_wrong = 0;
	int policy = SCHED_NORMAL, rt_prio = 0, poll_cpu = home_cpu, cpu;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!SI_CHECK(a, "out of memory"))
		return;
	a->exec = executor_of(target);
	if (!a->exec || !si_test_read_param("prio", prio, sizeof(prio)) ||
	    !si_test_write_param("prio", "0"))
		goto out_free;
	/* not the CPU that brings @target up: it must not wait for the poller */
	for_each_online_cpu(cpu)
		if (cpu != home_cpu && cpu != target)
			poll_cpu = cpu;
	state = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "si_hotplug_test:online",
					  online_dyn_cb, NULL);
	if (!SI_CHECK(state > 0, "cpuhp_setup_state_nocalls: %d", state))
		goto out_prio;
	for (round = 0; round < ONLINE_ROUNDS; round++) {
		if (!target_down())
			break;
		hp_init(&a->dyn, 0);
		hp_init(&a->poll, 0);
		a->dyn_armed = false;
		a->dyn_window = false;
		a->poll_armed = false;
		a->poll_window = false;
		a->parked_csw = a->exec->nvcsw + a->exec->nivcsw;
		WRITE_ONCE(online_arm, a);
		poller = kthread_run_on_cpu(online_poller, a, poll_cpu, "si_poll/%u");
		if (!SI_CHECK(!IS_ERR(poller), "no poller: %ld", PTR_ERR(poller))) {
			WRITE_ONCE(online_arm, NULL);
			break;
		}
		get_task_struct(poller);
		cpuhp = si_test_kthread_of("cpuhp", target);
		if (cpuhp) {
			policy = cpuhp->policy;
			rt_prio = cpuhp->rt_priority;
			set_policy(cpuhp, SCHED_FIFO, 1);
		}
		si_test_cpu_up(target);
		if (cpuhp) {
			set_policy(cpuhp, policy, rt_prio);
			put_task_struct(cpuhp);
		}
		WRITE_ONCE(online_arm, NULL);
		kthread_stop(poller);
		put_task_struct(poller);
		SI_CHECK(a->dyn_armed, "round %d: the ONLINE_DYN callback did not arm", round);
		SI_CHECK(a->poll_armed, "round %d: the poller did not arm", round);
		online_check(&a->dyn, a->dyn_armed, "ONLINE_DYN callback", round, &dyn_wrong);
		online_check(&a->poll, a->poll_armed, "poller", round, &poll_wrong);
		dyn_reached += a->dyn_window;
		poll_reached += a->poll_window;
		si_timer_delete_sync(&a->dyn.timer);
		si_timer_delete_sync(&a->poll.timer);
	}
	cpuhp_remove_state_nocalls(state);
	/* the window: CPU @target online, its executor not run since parked */
	si_diag("CPU %d: window reached %d of %d rounds (ONLINE_DYN callback), %d of %d (poller)",
		target, dyn_reached, round, poll_reached, round);
	si_diag("ran elsewhere than CPU %d: %d (ONLINE_DYN callback), %d (poller), of %d rounds",
		target, dyn_wrong, poll_wrong, round);
	SI_CHECK(!dyn_wrong && !poll_wrong, "%d + %d of %d rounds ran on another CPU", dyn_wrong,
		 poll_wrong, round);
	if (round && !dyn_reached && !poll_reached)
		si_skip("window reached 0 of %d rounds", round);
out_prio:
	si_test_write_param("prio", prio);
out_free:
	if (a->exec)
		put_task_struct(a->exec);
	kfree(a);
	si_test_cpu_up(target);
}

/*
 * A driver's CPUHP_BP_PREPARE_DYN startup callback arms a timer on the CPU
 * coming up, as it may with add_timer_on() (the kernel's timer base takes
 * timers from CPUHP_TIMERS_PREPARE on): si_add_timer_on() arms it, without
 * a warning, and it runs on that CPU's executor once the CPU is online.
 * The window: cpu_online() still false at the arm. A prepare callback runs
 * on the CPU that brings the other up, before that one boots, so each
 * round reaches it; counted all the same, and the test fails if none did.
 * In the first round, with the CPU down, si_add_timer_on() for it arms the
 * timer on a live executor, where it runs (add_timer_on() would leave it
 * on the dead CPU until that returns).
 */
#define PREPARE_ROUNDS	3

struct prepare_arm {
	struct hp_probe p;
	bool armed, pending, window;
};

static struct prepare_arm *prepare_arm;

static int prepare_dyn_cb(unsigned int cpu)
{
	struct prepare_arm *a = READ_ONCE(prepare_arm);

	if (!a || cpu != target || a->armed)
		return 0;
	a->window = !cpu_online(cpu);
	a->p.timer.expires = jiffies;
	si_add_timer_on(&a->p.timer, cpu);
	/* its executor's thread is parked: still pending, queued at most */
	a->pending = si_timer_pending(&a->p.timer);
	a->armed = true;
	return 0;
}

SI_CHECKED(t_arm_on_cpu_at_prepare)
{
	struct prepare_arm *a;
	struct hp_probe *off;
	int round, state, reached = 0, armed = 0, ran_there = 0;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	off = kzalloc(sizeof(*off), GFP_KERNEL);
	if (!SI_CHECK(a && off, "out of memory"))
		goto out_free;
	state = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "si_hotplug_test:prepare",
					  prepare_dyn_cb, NULL);
	if (!SI_CHECK(state > 0, "cpuhp_setup_state_nocalls: %d", state))
		goto out_free;
	for (round = 0; round < PREPARE_ROUNDS; round++) {
		if (!target_down())
			break;
		if (round == 0) {
			hp_init(off, 0);
			off->timer.expires = jiffies;
			si_add_timer_on(&off->timer, target);
			SI_CHECK(si_timer_pending(&off->timer) || atomic_read(&off->runs),
				 "not armed for offline CPU %d", target);
			if (SI_CHECK(wait_for_completion_timeout(&off->done, 5 * HZ),
				     "armed for offline CPU %d: did not run", target)) {
				si_diag("armed for offline CPU %d: ran on CPU %d in '%s'", target,
					off->cpu, off->comm);
				SI_CHECK(off->cpu != target && on_executor(off),
					 "ran on %d in '%s'", off->cpu, off->comm);
			}
			si_timer_delete_sync(&off->timer);
		}
		hp_init(&a->p, 0);
		a->armed = false;
		a->pending = false;
		a->window = false;
		WRITE_ONCE(prepare_arm, a);
		si_test_cpu_up(target);
		WRITE_ONCE(prepare_arm, NULL);
		if (!SI_CHECK(a->armed, "round %d: the PREPARE_DYN callback did not run", round))
			continue;
		reached += a->window;
		armed += a->pending;
		SI_CHECK(a->pending, "round %d: not armed at the prepare step of CPU %d",
			 round, target);
		if (a->pending &&
		    SI_CHECK(wait_for_completion_timeout(&a->p.done, 5 * HZ),
			     "round %d: did not run", round)) {
			if (a->p.cpu == target && on_executor(&a->p))
				ran_there++;
			else
				si_fail("round %d: ran on CPU %d in '%s'", round, a->p.cpu,
					a->p.comm);
		}
		si_timer_delete_sync(&a->p.timer);
	}
	cpuhp_remove_state_nocalls(state);
	si_diag("CPU %d: window reached %d of %d rounds (armed before online)", target, reached,
		round);
	si_diag("armed at the prepare step %d, ran on CPU %d's executor %d", armed, target,
		ran_there);
	SI_CHECK(reached > 0, "window reached 0 of %d rounds", round);
out_free:
	kfree(off);
	kfree(a);
	si_test_cpu_up(target);
}

static const struct si_test tests[] = {
	SI_TEST(t_pending_timer_fires_after_offline),
	SI_TEST(t_hrtimers_move_on_offline),
	SI_TEST(t_queued_callbacks_move_on_offline),
	SI_TEST(t_rearming_timer_across_hotplug),
	SI_TEST(t_executor_back_after_online),
	SI_TEST(t_arm_on_cpu_coming_online),
	SI_TEST(t_arm_on_cpu_at_prepare),
};

static void si_hp_main(void *unused)
{
	si_test_run_hotplug(tests, ARRAY_SIZE(tests), target);
}

static int __init si_hotplug_test_init(void)
{
	home_cpu = cpumask_first(cpu_online_mask);
	target = si_test_hotplug_target(home_cpu);
	return si_ktap_run_on_cpu(home_cpu, si_hp_main, NULL, false, 0);
}

static void __exit si_hotplug_test_exit(void)
{
}

module_init(si_hotplug_test_init);
module_exit(si_hotplug_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KTAP tests of si_timer across CPU hotplug");
