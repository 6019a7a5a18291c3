// SPDX-License-Identifier: GPL-2.0
/*
 * struct si_hrtimer against the hrtimer API it twins: modes, clocks,
 * HRTIMER_RESTART, forwarding, slack, cancels, where and how the callback
 * runs; and the windows of its HARD hrtimer's handler (module/hrtimer.c),
 * held open on purpose through the si_hrtimer_expire tracepoint, which
 * fires in that handler before it takes home's lock:
 * - a re-arm from another CPU meanwhile makes that expiry stale: the
 *   timer must wait for its new expiry, not run now;
 * - a try-to-cancel meanwhile must say "running" (-1), and a cancel must
 *   not return before the handler did (it may still look at the timer);
 * - a re-arm then a cancel meanwhile: the re-arm queues the HARD hrtimer
 *   again, which the cancel cannot take off while the handler runs; it
 *   must not return with it still queued.
 * Concurrent use from every CPU is si_timer_torture's (si_torture_hr.h).
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <si_hrtimer.h>
#include "si_timer_internal.h"
#include "si_trace.h"
#include "vecmask.h"
#include "si_test.h"

struct probe {
	struct si_hrtimer t;
	atomic_t runs;
	int cpu;
	bool kthread, in_softirq_serving, bh_enabled;
	char comm[TASK_COMM_LEN];
	s64 late_ns;			/* now - soft expiry, at the last run */
	ktime_t last_expires;
	int restarts;			/* RESTART this many times */
	ktime_t period;
	bool bad_period;
	unsigned int busy_us;
	bool block;			/* spin until cleared (2 s at most) */
	bool started_in_cb;		/* si_hrtimer_start() in the callback */
};

static enum hrtimer_restart probe_fn(struct si_hrtimer *t)
{
	struct probe *p = container_of(t, struct probe, t);
	ktime_t now = si_hrtimer_cb_get_time(t);
	u64 end = ktime_get_ns() + 2 * NSEC_PER_SEC;

	p->cpu = raw_smp_processor_id();
	p->kthread = current->flags & PF_KTHREAD;
	get_task_comm(p->comm, current);
	p->in_softirq_serving = in_serving_softirq();
	p->bh_enabled = !in_softirq();
	p->late_ns = ktime_to_ns(ktime_sub(now, hrtimer_get_softexpires(&t->hw)));
	if (p->last_expires && p->period &&
	    ktime_before(ktime_sub(si_hrtimer_get_expires(t), p->last_expires), p->period))
		p->bad_period = true;
	p->last_expires = si_hrtimer_get_expires(t);
	atomic_inc(&p->runs);
	if (p->busy_us)
		si_test_busy_us(p->busy_us);
	while (READ_ONCE(p->block) && ktime_get_ns() < end)
		cpu_relax();
	if (p->started_in_cb) {
		si_hrtimer_start(t, ktime_set(10, 0), HRTIMER_MODE_REL);
		return HRTIMER_RESTART;
	}
	if (p->restarts < 0 || (p->restarts && atomic_read(&p->runs) <= p->restarts)) {
		si_hrtimer_forward_now(t, p->period);
		return HRTIMER_RESTART;
	}
	return HRTIMER_NORESTART;
}

/* Probes live on the stack: set up and destroyed as on-stack timers. */
static void probe_setup(struct probe *p, clockid_t clock, unsigned int flags)
{
	memset(p, 0, sizeof(*p));
	si_hrtimer_setup_on_stack(&p->t, probe_fn, clock, HRTIMER_MODE_REL, flags);
}

static void probe_end(struct probe *p)
{
	si_hrtimer_cancel(&p->t);
	si_destroy_hrtimer_on_stack(&p->t);
}

static bool probe_wait(struct probe *p, int runs, unsigned int ms)
{
	return si_wait_until(atomic_read(&p->runs) >= runs, ms);
}

static bool expected_comm(const struct probe *p)
{
	return !strncmp(p->comm, "si_timer/", 9);
}

/* Runs once, on the executor of the CPU that armed it, in its mode. */
static void run_once(unsigned int flags, const char *mode)
{
	struct probe p;
	int here;

	probe_setup(&p, CLOCK_MONOTONIC, flags);
	preempt_disable();
	here = smp_processor_id();
	si_hrtimer_start(&p.t, ktime_set(10, 0), HRTIMER_MODE_REL);
	SI_CHECK(si_hrtimer_is_queued(&p.t) && si_hrtimer_active(&p.t),
		 "%s: not queued and active once started", mode);
	si_hrtimer_start(&p.t, ms_to_ktime(2), HRTIMER_MODE_REL);	/* re-armed */
	preempt_enable();
	if (!SI_CHECK(probe_wait(&p, 1, 5000), "%s: did not run in 5 s", mode))
		goto out;
	msleep(20);
	SI_CHECK(atomic_read(&p.runs) == 1, "%s: ran %d times", mode, atomic_read(&p.runs));
	SI_CHECK(p.kthread && expected_comm(&p), "%s: ran in '%s'", mode, p.comm);
	SI_CHECK(p.cpu == here, "%s: armed on CPU %d, ran on %d", mode, here, p.cpu);
	SI_CHECK(p.late_ns >= 0, "%s: ran %lld ns early", mode, -p.late_ns);
	SI_CHECK(!si_hrtimer_is_queued(&p.t) && !si_hrtimer_active(&p.t),
		 "%s: still queued or active after NORESTART", mode);
	if (flags & SI_TIMER_SOFTINTERRUPTIBLE && si_vecmask_available())
		SI_CHECK(p.bh_enabled && !p.in_softirq_serving,
			 "%s: bottom halves not enabled in the callback", mode);
	else
		SI_CHECK(p.in_softirq_serving, "%s: not in softirq-serving state", mode);
out:
	probe_end(&p);
}

SI_CHECKED(t_runs_once_on_its_executor)
{
	run_once(0, "compatible");
	run_once(SI_TIMER_SOFTINTERRUPTIBLE, "soft-interruptible");
	run_once(SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_MASK_HRTIMER, "MASK_HRTIMER");
}

/* Absolute expiries on each clock, never early by that clock. */
SI_CHECKED(t_abs_on_each_clock)
{
	static const struct { clockid_t id; const char *name; } clocks[] = {
		{ CLOCK_MONOTONIC, "MONOTONIC" }, { CLOCK_BOOTTIME, "BOOTTIME" },
		{ CLOCK_REALTIME, "REALTIME" }, { CLOCK_TAI, "TAI" },
	};
	struct probe p;
	int i;

	for (i = 0; i < ARRAY_SIZE(clocks); i++) {
		ktime_t at;

		probe_setup(&p, clocks[i].id, 0);
		at = ktime_add_ms(si_hrtimer_cb_get_time(&p.t), 3);
		si_hrtimer_start(&p.t, at, HRTIMER_MODE_ABS);
		SI_CHECK(si_hrtimer_get_expires(&p.t) == at, "%s: expires %lld, not %lld",
			 clocks[i].name, si_hrtimer_get_expires(&p.t), at);
		SI_CHECK(probe_wait(&p, 1, 5000), "%s: did not run", clocks[i].name);
		SI_CHECK(p.late_ns >= 0, "%s: ran %lld ns early", clocks[i].name, -p.late_ns);
		probe_end(&p);
	}
}

/* HRTIMER_RESTART with forward_now(): periodic, expiries a period apart. */
SI_CHECKED(t_restart_periodic)
{
	struct probe p;

	probe_setup(&p, CLOCK_MONOTONIC, SI_TIMER_SOFTINTERRUPTIBLE);
	p.restarts = 9;
	p.period = ms_to_ktime(1);
	si_hrtimer_start(&p.t, ms_to_ktime(1), HRTIMER_MODE_REL_PINNED);
	SI_CHECK(probe_wait(&p, 10, 5000), "%d runs in 5 s", atomic_read(&p.runs));
	msleep(20);
	SI_CHECK(atomic_read(&p.runs) == 10, "%d runs, 10 expected", atomic_read(&p.runs));
	SI_CHECK(!p.bad_period, "expiries less than a period apart");
	SI_CHECK(p.late_ns >= 0, "ran %lld ns early", -p.late_ns);
	SI_CHECK(!si_hrtimer_active(&p.t), "active after the last NORESTART");
	probe_end(&p);
}

/* start_range_ns(): the slack is the hard expiry's, the soft one is kept. */
SI_CHECKED(t_range_ns)
{
	struct probe p;
	s64 slack;

	probe_setup(&p, CLOCK_MONOTONIC, 0);
	si_hrtimer_start_range_ns(&p.t, ms_to_ktime(2), 3 * NSEC_PER_MSEC, HRTIMER_MODE_REL);
	slack = ktime_to_ns(ktime_sub(si_hrtimer_get_expires(&p.t),
				      hrtimer_get_softexpires(&p.t.hw)));
	SI_CHECK(slack == 3 * NSEC_PER_MSEC, "slack %lld ns", slack);
	SI_CHECK(probe_wait(&p, 1, 5000), "did not run");
	SI_CHECK(p.late_ns >= 0, "ran %lld ns before its soft expiry", -p.late_ns);
	probe_end(&p);
}

/* The return values of hrtimer_try_to_cancel() and hrtimer_cancel(). */
SI_CHECKED(t_cancel_return_values)
{
	struct probe p;
	int ret;

	probe_setup(&p, CLOCK_MONOTONIC, 0);
	SI_CHECK((ret = si_hrtimer_try_to_cancel(&p.t)) == 0, "idle try_to_cancel: %d", ret);
	SI_CHECK((ret = si_hrtimer_cancel(&p.t)) == 0, "idle cancel: %d", ret);
	si_hrtimer_start(&p.t, ktime_set(10, 0), HRTIMER_MODE_REL);
	SI_CHECK((ret = si_hrtimer_try_to_cancel(&p.t)) == 1, "armed try_to_cancel: %d", ret);
	SI_CHECK(!si_hrtimer_is_queued(&p.t), "queued after try_to_cancel");
	SI_CHECK((ret = si_hrtimer_try_to_cancel(&p.t)) == 0, "second try_to_cancel: %d", ret);
	si_hrtimer_start(&p.t, ktime_set(10, 0), HRTIMER_MODE_REL);
	si_hrtimer_start(&p.t, ktime_set(20, 0), HRTIMER_MODE_REL);	/* re-arm */
	SI_CHECK((ret = si_hrtimer_cancel(&p.t)) == 1, "armed cancel: %d", ret);
	SI_CHECK((ret = si_hrtimer_cancel(&p.t)) == 0, "second cancel: %d", ret);
	msleep(20);
	SI_CHECK(atomic_read(&p.runs) == 0, "ran %d times", atomic_read(&p.runs));
	probe_end(&p);
}

/* On the CPU of the caller: arm 2 ms ahead, so that the handler fires there. */
static void arm_here(void *data)
{
	struct probe *p = data;

	si_hrtimer_start(&p->t, ms_to_ktime(2), HRTIMER_MODE_REL_PINNED);
}

/* An online CPU other than @not (-1: none). */
static int other_cpu(int not)
{
	unsigned int cpu = cpumask_any_but(cpu_online_mask, not);

	return cpu < nr_cpu_ids ? cpu : -1;
}

/* A running callback: try_to_cancel says -1, cancel waits for it. */
struct rc_watch {
	struct probe *p;
	bool seen, active, queued;
	int tried;
};

/*
 * On a CPU other than the callback's, in a bound thread that no callback
 * can starve (the insmod task may migrate onto the callback's CPU): look
 * while it runs, then let it return.
 */
static void rc_watch_fn(void *data)
{
	struct rc_watch *w = data;

	w->seen = si_spin_until(si_hrtimer_callback_running(&w->p->t), 5000);
	if (w->seen) {
		w->tried = si_hrtimer_try_to_cancel(&w->p->t);
		w->active = si_hrtimer_active(&w->p->t);
		w->queued = si_hrtimer_is_queued(&w->p->t);
	}
	WRITE_ONCE(w->p->block, false);
}

SI_CHECKED(t_running_callback)
{
	int here = raw_smp_processor_id(), cpu = other_cpu(here);
	struct rc_watch w = { };
	struct probe p;
	int ret;

	if (cpu < 0) {
		si_skip("one CPU online: the callback would hold ours");
		return;
	}
	probe_setup(&p, CLOCK_MONOTONIC, SI_TIMER_SOFTINTERRUPTIBLE);
	p.block = true;
	w.p = &p;
	/* by IPI: a thread there would wait for the callback to end to exit */
	smp_call_function_single(cpu, arm_here, &p, 1);
	si_ktap_run_on_cpu(here, rc_watch_fn, &w, false, 0);
	if (SI_CHECK(w.seen, "callback not running within 5 s")) {
		SI_CHECK(w.tried == -1, "try_to_cancel: %d", w.tried);
		SI_CHECK(w.active && !w.queued, "running: active %d, queued %d", w.active,
			 w.queued);
	}
	SI_CHECK((ret = si_hrtimer_cancel(&p.t)) == 0, "cancel: %d", ret);
	SI_CHECK(!si_hrtimer_callback_running(&p.t) && !si_hrtimer_active(&p.t),
		 "still running or active after the cancel");
	probe_end(&p);
}

/* A callback restarting itself every ms is stopped for good by a cancel. */
SI_CHECKED(t_cancel_stops_restarting)
{
	struct probe p;
	int runs, ret;

	probe_setup(&p, CLOCK_MONOTONIC, 0);
	p.restarts = -1;
	p.period = ms_to_ktime(1);
	p.busy_us = 200;
	si_hrtimer_start(&p.t, ms_to_ktime(1), HRTIMER_MODE_REL);
	SI_CHECK(probe_wait(&p, 5, 5000), "%d runs in 5 s", atomic_read(&p.runs));
	ret = si_hrtimer_cancel(&p.t);
	runs = atomic_read(&p.runs);
	msleep(20);
	SI_CHECK(atomic_read(&p.runs) == runs, "ran %d times after the cancel (returned %d)",
		 atomic_read(&p.runs) - runs, ret);
	SI_CHECK(!si_hrtimer_active(&p.t), "active after the cancel");
	probe_end(&p);
}

/* Armed by its own callback, which then returns RESTART: the arming wins. */
SI_CHECKED(t_start_in_callback_wins_over_restart)
{
	struct probe p;
	s64 in_ms;

	probe_setup(&p, CLOCK_MONOTONIC, 0);
	p.started_in_cb = true;
	si_hrtimer_start(&p.t, ms_to_ktime(1), HRTIMER_MODE_REL);
	SI_CHECK(probe_wait(&p, 1, 5000), "did not run");
	msleep(20);
	in_ms = ktime_ms_delta(si_hrtimer_get_expires(&p.t), ktime_get());
	SI_CHECK(atomic_read(&p.runs) == 1 && si_hrtimer_is_queued(&p.t) && in_ms > 9000,
		 "runs %d, queued %d, due in %lld ms", atomic_read(&p.runs),
		 si_hrtimer_is_queued(&p.t), in_ms);
	SI_CHECK(si_hrtimer_cancel(&p.t) == 1, "not pending");
	probe_end(&p);
}

/* --- the HARD handler's window, held open by a probe on si_hrtimer_expire --- */

static struct {
	struct si_hrtimer *timer;	/* held when its handler fires */
	bool held, release, timed_out;
	bool release_on_disarm;		/* let go 2 ms after a cancel disarmed it */
	u64 released_ns;		/* the handler went on */
} hw_hold;

/*
 * Holds the handler of hw_hold.timer until told, or 2 ms after a cancel
 * (which must wait for us) took it off, or 500 ms: a hard interrupt
 * handler, and a partner that may never come (timed out: the round did not
 * reach its window).
 */
static void hw_hold_probe(void *data, struct si_hrtimer *hr)
{
	u64 start = ktime_get_ns(), now, disarmed = 0;

	if (READ_ONCE(hw_hold.timer) != hr)
		return;
	WRITE_ONCE(hw_hold.held, true);
	for (;;) {
		now = ktime_get_ns();
		if (READ_ONCE(hw_hold.release_on_disarm) && !disarmed &&
		    !(READ_ONCE(hr->base.state) & SI_STATE_HRARMED))
			disarmed = now;
		if (READ_ONCE(hw_hold.release) || (disarmed && now > disarmed + 2 * NSEC_PER_MSEC))
			break;
		if (now > start + 500 * NSEC_PER_MSEC) {
			WRITE_ONCE(hw_hold.timed_out, true);
			break;
		}
		cpu_relax();
	}
	WRITE_ONCE(hw_hold.released_ns, ktime_get_ns());
	WRITE_ONCE(hw_hold.timer, NULL);
}

enum hw_action { HW_REARM, HW_TRY_TO_CANCEL, HW_CANCEL, HW_REARM_CANCEL, HW_NR };

struct hw_round {
	struct probe *p;
	enum hw_action action;
	bool reached;
	int ret;
	bool hw_left;			/* the HARD hrtimer queued when the cancel returned */
	u64 returned_ns;
};

/* On another CPU: wait for the handler to be held, act, let it go on. */
static void hw_act(void *data)
{
	struct hw_round *r = data;

	if (!si_spin_until(READ_ONCE(hw_hold.held), 3000))
		return;
	switch (r->action) {
	case HW_REARM:
		si_hrtimer_start(&r->p->t, ktime_set(10, 0), HRTIMER_MODE_REL);
		break;
	case HW_TRY_TO_CANCEL:
		r->ret = si_hrtimer_try_to_cancel(&r->p->t);
		break;
	case HW_REARM_CANCEL:
		si_hrtimer_start(&r->p->t, ktime_set(10, 0), HRTIMER_MODE_REL);
		fallthrough;
	case HW_CANCEL:
		r->ret = si_hrtimer_cancel(&r->p->t);
		r->hw_left = hrtimer_is_queued(&r->p->t.hw);
		break;
	default:
		break;
	}
	r->returned_ns = ktime_get_ns();
	WRITE_ONCE(hw_hold.release, true);
	/* the probe still held the handler when we acted */
	r->reached = !READ_ONCE(hw_hold.timed_out);
}

/* The partner waits on @act_cpu before the timer is armed on @arm_cpu. */
static bool hw_round(struct probe *p, enum hw_action action, int arm_cpu, int act_cpu,
		     struct hw_round *r)
{
	struct si_ktap_cpu_work w;

	*r = (struct hw_round){ .p = p, .action = action };
	memset(&hw_hold, 0, sizeof(hw_hold));
	hw_hold.release_on_disarm = action == HW_CANCEL || action == HW_REARM_CANCEL;
	WRITE_ONCE(hw_hold.timer, &p->t);
	if (si_ktap_cpu_work_create(&w, act_cpu, hw_act, r, false))
		return false;
	wake_up_process(w.task);
	si_ktap_run_on_cpu(arm_cpu, arm_here, p, false, 0);
	si_ktap_cpu_work_finish(&w, 0);
	WRITE_ONCE(hw_hold.timer, NULL);
	return r->reached;
}

#define HW_ROUNDS	10

SI_CHECKED(t_hard_handler_window)
{
	int arm_cpu = raw_smp_processor_id(), act_cpu = other_cpu(arm_cpu);
	unsigned int reached[HW_NR] = { 0 }, i;
	struct hw_round r;
	struct probe p;
	int ret;

	if (act_cpu < 0) {
		si_skip("one CPU online: the window needs a second one");
		return;
	}
	ret = register_trace_si_hrtimer_expire(hw_hold_probe, NULL);
	if (!SI_CHECK(ret == 0, "cannot register the probe: %d", ret))
		return;
	for (i = 0; i < HW_ROUNDS; i++) {
		/* a re-arm from another CPU makes the held expiry stale */
		probe_setup(&p, CLOCK_MONOTONIC, 0);
		if (hw_round(&p, HW_REARM, arm_cpu, act_cpu, &r)) {
			reached[HW_REARM]++;
			msleep(30);
			SI_CHECK(atomic_read(&p.runs) == 0 && si_hrtimer_is_queued(&p.t),
				 "re-armed 10 s ahead in the handler's window: ran %d times, queued %d",
				 atomic_read(&p.runs), si_hrtimer_is_queued(&p.t));
		}
		probe_end(&p);

		probe_setup(&p, CLOCK_MONOTONIC, 0);
		if (hw_round(&p, HW_TRY_TO_CANCEL, arm_cpu, act_cpu, &r)) {
			reached[HW_TRY_TO_CANCEL]++;
			SI_CHECK(r.ret == -1, "try_to_cancel in the handler's window: %d", r.ret);
		}
		probe_end(&p);

		probe_setup(&p, CLOCK_MONOTONIC, 0);
		if (hw_round(&p, HW_CANCEL, arm_cpu, act_cpu, &r)) {
			reached[HW_CANCEL]++;
			SI_CHECK(r.ret == 1 && r.returned_ns >= READ_ONCE(hw_hold.released_ns) &&
				 READ_ONCE(hw_hold.released_ns),
				 "cancel in the handler's window returned %d, %lld ns before the handler went on",
				 r.ret, (s64)(READ_ONCE(hw_hold.released_ns) - r.returned_ns));
			msleep(20);
			SI_CHECK(atomic_read(&p.runs) == 0, "ran %d times after the cancel",
				 atomic_read(&p.runs));
		}
		probe_end(&p);

		probe_setup(&p, CLOCK_MONOTONIC, 0);
		if (hw_round(&p, HW_REARM_CANCEL, arm_cpu, act_cpu, &r)) {
			reached[HW_REARM_CANCEL]++;
			SI_CHECK(r.ret == 1 && !r.hw_left &&
				 r.returned_ns >= READ_ONCE(hw_hold.released_ns),
				 "re-arm and cancel in the handler's window: returned %d, HARD hrtimer %s, %lld ns before the handler went on",
				 r.ret, r.hw_left ? "still queued" : "off",
				 (s64)(READ_ONCE(hw_hold.released_ns) - r.returned_ns));
		}
		probe_end(&p);
	}
	unregister_trace_si_hrtimer_expire(hw_hold_probe, NULL);
	tracepoint_synchronize_unregister();
	si_diag("handler's window reached: re-arm %u/%d, try_to_cancel %u/%d, %s %u/%d, %s %u/%d",
		reached[HW_REARM], HW_ROUNDS, reached[HW_TRY_TO_CANCEL], HW_ROUNDS,
		"cancel", reached[HW_CANCEL], HW_ROUNDS, "re-arm and cancel",
		reached[HW_REARM_CANCEL], HW_ROUNDS);
	SI_CHECK(reached[HW_REARM] && reached[HW_TRY_TO_CANCEL] && reached[HW_CANCEL] &&
		 reached[HW_REARM_CANCEL],
		 "the handler's window was not reached for every action");
}

static atomic_t dobj_runs;

static enum hrtimer_restart dobj_hr_fn(struct si_hrtimer *t)
{
	atomic_inc(&dobj_runs);
	return HRTIMER_NORESTART;
}

/*
 * Freed while armed: debugobjects reports it (the base as an si_timer
 * naming our callback, its HARD hrtimer as an hrtimer) and the fixups
 * take both off before the memory is reused.
 */
SI_CHECKED(t_debugobjects_free_armed)
{
	struct si_hrtimer *t;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS)) {
		si_skip("CONFIG_DEBUG_OBJECTS_TIMERS is off");
		return;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!SI_CHECK(t, "no memory"))
		return;
	si_hrtimer_setup(t, dobj_hr_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL, 0);
	si_hrtimer_start(t, ktime_set(3600, 0), HRTIMER_MODE_REL);
	si_expect_warn("object type: si_timer hint: dobj_hr_fn+");
	si_expect_warn("object type: hrtimer hint: si_hrtimer_fire+");
	kfree(t);
	msleep(20);
	SI_CHECK(!atomic_read(&dobj_runs), "its callback ran %d times", atomic_read(&dobj_runs));
}

/* Misuse: warned about once, nothing armed. */
SI_CHECKED(t_misuse)
{
	struct si_hrtimer never = { };
	struct probe p;

	si_expect_warn("si_hrtimer_start_range_ns() on a never set up timer");
	si_hrtimer_start(&never, ms_to_ktime(1), HRTIMER_MODE_REL);
	SI_CHECK(!si_hrtimer_is_queued(&never), "a never set up timer was armed");
	si_expect_warn("invalid si_hrtimer flags");
	probe_setup(&p, CLOCK_MONOTONIC, SI_TIMER_PINNED);
	SI_CHECK(!(p.t.base.flags & SI_TIMER_PINNED), "flag kept");
	si_expect_warn("not supported, CLOCK_MONOTONIC used");
	probe_end(&p);
	probe_setup(&p, CLOCK_PROCESS_CPUTIME_ID, 0);
	si_expect_warn("started in HARD mode");
	si_hrtimer_start(&p.t, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	SI_CHECK(probe_wait(&p, 1, 5000) && expected_comm(&p),
		 "a HARD start did not run on an executor");
	probe_end(&p);
}

/*
 * Queries and accessors on a NULL timer: each warns once and answers 0,
 * where their hrtimer twins (hrtimer_active(NULL)...) oops. The pointer
 * is hidden from the compiler, so that the NULL tests are made at run time.
 */
SI_CHECKED(t_misuse_null_queries)
{
	struct si_hrtimer *null = NULL;
	ktime_t t;

	OPTIMIZER_HIDE_VAR(null);

	si_expect_warn("si_hrtimer_is_queued() on a NULL timer");
	SI_CHECK(!si_hrtimer_is_queued(null), "si_hrtimer_is_queued(NULL) true");
	si_expect_warn("si_hrtimer_active() on a NULL timer");
	SI_CHECK(!si_hrtimer_active(null), "si_hrtimer_active(NULL) true");
	si_expect_warn("si_hrtimer_callback_running() on a NULL timer");
	SI_CHECK(!si_hrtimer_callback_running(null), "si_hrtimer_callback_running(NULL) true");
	si_expect_warn("si_hrtimer_get_expires() on a NULL timer");
	t = si_hrtimer_get_expires(null);
	SI_CHECK(!t, "si_hrtimer_get_expires(NULL) returned %lld", t);
	si_expect_warn("si_hrtimer_cb_get_time() on a NULL timer");
	t = si_hrtimer_cb_get_time(null);
	SI_CHECK(!t, "si_hrtimer_cb_get_time(NULL) returned %lld", t);
	si_expect_warn("si_hrtimer_forward() on a NULL timer");
	SI_CHECK(!si_hrtimer_forward(null, ktime_get(), ms_to_ktime(1)),
		 "si_hrtimer_forward(NULL) overran");
	si_expect_warn("si_hrtimer_forward_now() on a NULL timer");
	SI_CHECK(!si_hrtimer_forward_now(null, ms_to_ktime(1)),
		 "si_hrtimer_forward_now(NULL) overran");
	si_expect_warn("si_hrtimer_set_expires() on a NULL timer");
	si_hrtimer_set_expires(null, ms_to_ktime(1));
	/*
	 * The cancels: refused as for an si_timer (si_hrtimer_start() warned
	 * at t_misuse's never set up timer: once per load).
	 */
	si_expect_warn("si_hrtimer_try_to_cancel() on a NULL timer");
	SI_CHECK(!si_hrtimer_try_to_cancel(null), "si_hrtimer_try_to_cancel(NULL) not 0");
	si_expect_warn("si_hrtimer_cancel() on a NULL timer");
	SI_CHECK(!si_hrtimer_cancel(null), "si_hrtimer_cancel(NULL) not 0");
}

static const struct si_test tests[] = {
	SI_TEST(t_runs_once_on_its_executor),
	SI_TEST(t_abs_on_each_clock),
	SI_TEST(t_restart_periodic),
	SI_TEST(t_range_ns),
	SI_TEST(t_cancel_return_values),
	SI_TEST(t_running_callback),
	SI_TEST(t_cancel_stops_restarting),
	SI_TEST(t_start_in_callback_wins_over_restart),
	SI_TEST(t_hard_handler_window),
	SI_TEST(t_debugobjects_free_armed),
	SI_TEST(t_misuse),
	SI_TEST(t_misuse_null_queries),
};

static int __init si_hrtimer_test_init(void)
{
	return si_ktap_run(tests, ARRAY_SIZE(tests));
}

static void __exit si_hrtimer_test_exit(void)
{
}

module_init(si_hrtimer_test_init);
module_exit(si_hrtimer_test_exit);
MODULE_DESCRIPTION("si_hrtimer API tests");
MODULE_LICENSE("GPL");
