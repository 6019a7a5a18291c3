// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the softirq vector mask emulation (module/vecmask*.c), through
 * its test exports, from a SCHED_FIFO kthread pinned on one CPU as the
 * executor is. Reads si_timer's mode from sysfs: with the emulation
 * inactive (vecmask=off, or auto that fell back) the "masked" vectors must
 * run as if unmasked. Also measures what the armed hooks add to a TIMER
 * softirq dispatch.
 */
#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timer.h>
#include "compat.h"
#include "vecmask.h"
#include "si_test.h"

static int cpu = -1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "CPU to test on (default: the last online one)");
static unsigned int periods = 10000;
module_param(periods, uint, 0444);
MODULE_PARM_DESC(periods, "masked periods of the nothing-lost test");
static unsigned int bench_iters = 100000;
module_param(bench_iters, uint, 0444);
MODULE_PARM_DESC(bench_iters, "TIMER dispatches timed by the cost test (0: skip)");

static bool vt_active;		/* si_vecmask_available() at load */

/* Timers, tasklet and counters shared with the callbacks. */
static struct {
	struct timer_list timer;
	struct hrtimer hrtimer;
	struct tasklet_struct tasklet;
	bool masked;			/* set by the test thread around the mask */
	unsigned int timer_runs, timer_masked_runs;
	unsigned int hrtimer_runs, hrtimer_masked_runs;
	unsigned int tasklet_runs, tasklet_masked_runs;
	int timer_cpu, hrtimer_cpu, tasklet_cpu;
} vt;

static void vt_timer_fn(struct timer_list *t)
{
	vt.timer_masked_runs += READ_ONCE(vt.masked);
	vt.timer_cpu = raw_smp_processor_id();
	WRITE_ONCE(vt.timer_runs, vt.timer_runs + 1);
}

static enum hrtimer_restart vt_hrtimer_fn(struct hrtimer *h)
{
	vt.hrtimer_masked_runs += READ_ONCE(vt.masked);
	vt.hrtimer_cpu = raw_smp_processor_id();
	WRITE_ONCE(vt.hrtimer_runs, vt.hrtimer_runs + 1);
	return HRTIMER_NORESTART;
}

static void vt_tasklet_fn(struct tasklet_struct *t)
{
	vt.tasklet_masked_runs += READ_ONCE(vt.masked);
	vt.tasklet_cpu = raw_smp_processor_id();
	WRITE_ONCE(vt.tasklet_runs, vt.tasklet_runs + 1);
}

static void vt_reset(void)
{
	memset(&vt, 0, sizeof(vt));
	timer_setup(&vt.timer, vt_timer_fn, 0);
	hrtimer_setup(&vt.hrtimer, vt_hrtimer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_SOFT);
	tasklet_setup(&vt.tasklet, vt_tasklet_fn);
}

static void vt_quiesce(void)
{
	timer_delete_sync(&vt.timer);
	hrtimer_cancel(&vt.hrtimer);
	tasklet_kill(&vt.tasklet);
}

/* As the softirq raise functions do, which are not exported. */
static void vt_raise(unsigned long mask)
{
	unsigned long flags;

	local_irq_save(flags);
	or_softirq_pending(mask);
	local_irq_restore(flags);
}

/* Results of a test body run in a SCHED_FIFO 1 kthread bound to cpu. */
struct vt_thread {
	void (*fn)(struct vt_thread *t);
	u64 r[8];			/* results, per test */
};

static void vt_call(void *arg)
{
	struct vt_thread *t = arg;

	t->fn(t);
}

static int vt_run_on_cpu(struct vt_thread *t)
{
	return si_ktap_run_on_cpu(cpu, vt_call, t, true, 0);
}

static s64 vt_ms_since(ktime_t t0)
{
	return ktime_ms_delta(ktime_get(), t0);
}

/* (d) the state is readable in sysfs and agrees with the API */
SI_CHECKED(t_sysfs_state)
{
	char mode[16], active[8];

	if (!si_test_read_param("vecmask", mode, sizeof(mode)) ||
	    !si_test_read_param("vecmask_active", active, sizeof(active)))
		return;
	si_diag("vecmask=%s vecmask_active=%s", mode, active);
	SI_CHECK(!strcmp(mode, "auto") || !strcmp(mode, "on") ||
		 !strcmp(mode, "off"), "vecmask=%s", mode);
	SI_CHECK(!strcmp(active, "Y") || !strcmp(active, "N"),
		 "vecmask_active=%s", active);
	SI_CHECK((active[0] == 'Y') == vt_active,
		 "vecmask_active=%s, si_vecmask_available() at load %d", active,
		 vt_active);
}

/* (c) si_vecmask_available() is what the vecmask= parameter asks for */
SI_CHECKED(t_available_matches_mode)
{
	const char *backend = si_vecmask_backend();
	char mode[16], fail_hook[64];
	bool avail;

	if (!si_test_read_param("vecmask", mode, sizeof(mode)) ||
	    !si_test_read_param("vecmask_test_fail_hook", fail_hook, sizeof(fail_hook)))
		return;
	avail = si_vecmask_available();
	si_diag("vecmask=%s vecmask_test_fail_hook='%s' back end %s available=%d",
		mode, fail_hook, backend ?: "none", avail);
	if (!strcmp(mode, "off"))
		SI_CHECK(!avail, "available with vecmask=off");
	else if (!strcmp(mode, "on"))
		SI_CHECK(avail, "unavailable with vecmask=on");
	else
		SI_CHECK(avail == (backend && !fail_hook[0]),
			 "vecmask=%s: available=%d, back end %s, fail_hook '%s'",
			 mode, avail, backend ?: "none", fail_hook);
}

/*
 * What the masked period of vt_masked_period() waits for besides 80 ms: a
 * host stall can let guest time pass with nothing dispatched. The tasklet
 * ran, and both timer vectors were deferred (emulation) or both timers ran
 * (no emulation).
 */
static bool vt_period_complete(unsigned long skips_t, unsigned long skips_h)
{
	if (!READ_ONCE(vt.tasklet_runs))
		return false;
	if (!vt_active)
		return READ_ONCE(vt.timer_runs) && READ_ONCE(vt.hrtimer_runs);
	return si_vecmask_skips(cpu, TIMER_SOFTIRQ) != skips_t &&
	       si_vecmask_skips(cpu, HRTIMER_SOFTIRQ) != skips_h;
}

/*
 * (a) A timer_list and a SOFT hrtimer due 20 ms into a masked period of at
 * least 80 ms, spent busy with bottom halves and preemption enabled:
 * neither runs before the unmask, both run right after, and a tasklet
 * raised in the middle runs within the period. Short sleeps let ktimers
 * and ksoftirqd (which run the timer vectors on PREEMPT_RT) have the CPU,
 * so the hooks really get to defer.
 */
static void vt_masked_period(struct vt_thread *t)
{
	unsigned long skips_t = si_vecmask_skips(cpu, TIMER_SOFTIRQ);
	unsigned long skips_h = si_vecmask_skips(cpu, HRTIMER_SOFTIRQ);
	ktime_t t0, napped, unmasked;
	bool tasklet = false;

	/* Masked first: a tick in between would count a run as masked. */
	si_vecmask_disable(SI_TIMER_VECTORS);
	WRITE_ONCE(vt.masked, true);
	t0 = ktime_get();
	vt.timer.expires = jiffies + msecs_to_jiffies(20);
	add_timer_on(&vt.timer, cpu);
	hrtimer_start(&vt.hrtimer, ms_to_ktime(20), HRTIMER_MODE_REL_PINNED_SOFT);
	napped = t0;
	while ((vt_ms_since(t0) < 80 || !vt_period_complete(skips_t, skips_h)) &&
	       vt_ms_since(t0) < 2000) {
		if (!tasklet && vt_ms_since(t0) >= 40) {
			local_bh_disable();
			tasklet_schedule(&vt.tasklet);
			local_bh_enable();
			tasklet = true;
		}
		if (vt_ms_since(napped) >= 1) {
			usleep_range(100, 200);
			napped = ktime_get();
		}
		cpu_relax();
	}
	WRITE_ONCE(vt.masked, false);
	si_vecmask_enable(SI_TIMER_VECTORS);
	unmasked = ktime_get();
	while ((!READ_ONCE(vt.timer_runs) || !READ_ONCE(vt.hrtimer_runs)) &&
	       vt_ms_since(unmasked) < 1000)
		usleep_range(1000, 2000);
	t->r[0] = vt_ms_since(unmasked);
	t->r[1] = si_vecmask_skips(cpu, TIMER_SOFTIRQ) - skips_t;
	t->r[2] = si_vecmask_skips(cpu, HRTIMER_SOFTIRQ) - skips_h;
}

SI_CHECKED(t_masked_vectors_wait)
{
	struct vt_thread t = { .fn = vt_masked_period };
	int ret;

	vt_reset();
	ret = vt_run_on_cpu(&t);
	vt_quiesce();
	if (!SI_CHECK(ret == 0, "cannot run on CPU %d: %d", cpu, ret))
		return;
	si_diag("CPU %d, active=%d: ran (masked) on CPU: timer %u (%u) %d",
		cpu, vt_active, vt.timer_runs, vt.timer_masked_runs, vt.timer_cpu);
	si_diag("  hrtimer %u (%u) %d, tasklet %u (%u) %d",
		vt.hrtimer_runs, vt.hrtimer_masked_runs, vt.hrtimer_cpu,
		vt.tasklet_runs, vt.tasklet_masked_runs, vt.tasklet_cpu);
	si_diag("  skips TIMER %llu HRTIMER %llu; waited %llu ms after unmask",
		t.r[1], t.r[2], t.r[0]);
	SI_CHECK(vt.timer_runs == 1 && vt.hrtimer_runs == 1,
		 "runs: timer %u, hrtimer %u", vt.timer_runs, vt.hrtimer_runs);
	SI_CHECK(vt.timer_cpu == cpu && vt.hrtimer_cpu == cpu,
		 "ran on CPU: timer %d, hrtimer %d, not %d", vt.timer_cpu,
		 vt.hrtimer_cpu, cpu);
	SI_CHECK(vt.tasklet_masked_runs == 1 && vt.tasklet_cpu == cpu,
		 "tasklet: %u masked runs, on CPU %d, not %d",
		 vt.tasklet_masked_runs, vt.tasklet_cpu, cpu);
	if (!vt_active) {
		/* no emulation: the "masked" vectors ran on time */
		SI_CHECK(vt.timer_masked_runs == 1 && vt.hrtimer_masked_runs == 1,
			 "masked runs: timer %u, hrtimer %u", vt.timer_masked_runs,
			 vt.hrtimer_masked_runs);
		SI_CHECK(t.r[1] == 0 && t.r[2] == 0,
			 "skips without emulation: TIMER %llu, HRTIMER %llu", t.r[1], t.r[2]);
		return;
	}
	SI_CHECK(vt.timer_masked_runs == 0 && vt.hrtimer_masked_runs == 0,
		 "masked runs: timer %u, hrtimer %u", vt.timer_masked_runs,
		 vt.hrtimer_masked_runs);
	SI_CHECK(t.r[1] > 0 && t.r[2] > 0, "skips: TIMER %llu, HRTIMER %llu",
		 t.r[1], t.r[2]);
	SI_CHECK(t.r[0] < 1000, "ran %llu ms after the unmask", t.r[0]);
}

/*
 * Wait up to @ms for @cond, spinning first, then sleeping so that ktimers
 * and ksoftirqd (which 6.1 hands pending vectors to whenever it is
 * runnable) get the CPU. False on timeout.
 */
#define vt_wait(cond, ms)						\
	({								\
		ktime_t __t0 = ktime_get();				\
		unsigned int __spins = 0;				\
		bool __ok;						\
									\
		while (!(__ok = (cond)) && vt_ms_since(__t0) < (ms)) {	\
			if (++__spins < 64)				\
				cpu_relax();				\
			else						\
				usleep_range(20, 50);			\
		}							\
		__ok;							\
	})

/*
 * (b) Many short masked periods. In each: a SOFT hrtimer due at once, a
 * tasklet, TIMER raised by hand, and a timer_list due at the next tick
 * whenever the previous one has run. The tasklet runs within the period;
 * the period lasts until the hrtimer's vector was deferred (emulation
 * active) or the hrtimer ran (inactive); the hrtimer must have run once
 * the period ends. Every 64th period also sleeps while masked, so that
 * ktimers/ksoftirqd meet the mask too. Nothing may be lost or run masked.
 *
 * The window of a period is the dispatch of the hrtimer's vector while
 * masked: the hrtimer's interrupt, then the softirq (on PREEMPT_RT in
 * ksoftirqd, which gets the CPU when we sleep). On a loaded host a vCPU
 * stalls for seconds and the guest's clock jumps, so that dispatch may
 * come after the 1 s wait, or only after the unmask: the mask did not
 * fail, the period just did not test it. A period whose hrtimer ran
 * masked is what a miss of the mask looks like, and fails.
 */
enum {
	VT_IN_TIME,	/* deferred (ran, inactive) within 1 s */
	VT_LATE,	/* only within the next 2 s: a slow guest */
	VT_MISSED,	/* not dispatched before the unmask: a slow guest */
	VT_RAN_MASKED,	/* emulation active: the hrtimer ran masked */
	VT_NR_HOW
};

/* Periods not deferred within 1 s after which a slow guest stops the test. */
#define VT_SLOW_MAX	8

/* The period's vector was dispatched: deferred, or (a miss if active) run. */
static bool vt_dispatched(unsigned long skips, unsigned int runs)
{
	if (vt_active && si_vecmask_skips(cpu, HRTIMER_SOFTIRQ) != skips)
		return true;
	return READ_ONCE(vt.hrtimer_runs) != runs;
}

/* r[0]: periods made, r[1]: late, r[2]: lost, r[3]: armed, r[4..]: how */
static void vt_many_periods(struct vt_thread *t)
{
	unsigned int i, late = 0, lost = 0, armed = 0, how[VT_NR_HOW] = { 0 };
	unsigned int runs, masked_runs;
	unsigned long skips;
	int k;

	for (i = 0; i < periods; ) {
		skips = si_vecmask_skips(cpu, HRTIMER_SOFTIRQ);
		runs = READ_ONCE(vt.hrtimer_runs);
		masked_runs = READ_ONCE(vt.hrtimer_masked_runs);
		si_vecmask_disable(SI_TIMER_VECTORS);
		WRITE_ONCE(vt.masked, true);
		hrtimer_start(&vt.hrtimer, 0, HRTIMER_MODE_REL_PINNED_SOFT);
		if (!timer_pending(&vt.timer)) {
			vt.timer.expires = jiffies + 1;
			add_timer_on(&vt.timer, cpu);
			armed++;
		}
		local_bh_disable();
		tasklet_schedule(&vt.tasklet);
		vt_raise(BIT(TIMER_SOFTIRQ));
		local_bh_enable();
		if (vt_wait(vt_dispatched(skips, runs), 1000))
			k = VT_IN_TIME;
		else if (vt_wait(vt_dispatched(skips, runs), 2000))
			k = VT_LATE;
		else
			k = VT_MISSED;
		if (i % 64 == 63)
			usleep_range(50, 100);
		WRITE_ONCE(vt.masked, false);
		if (vt_active && READ_ONCE(vt.hrtimer_masked_runs) != masked_runs)
			k = VT_RAN_MASKED;
		how[k]++;
		si_vecmask_enable(SI_TIMER_VECTORS);
		i++;
		if (READ_ONCE(vt.hrtimer_runs) != runs + 1) {
			late++;
			if (!vt_wait(READ_ONCE(vt.hrtimer_runs) == runs + 1, 1000)) {
				lost++;
				break;
			}
		}
		if (how[VT_LATE] + how[VT_MISSED] >= VT_SLOW_MAX)
			break;
	}
	vt_wait(READ_ONCE(vt.timer_runs) == armed, 1000);
	t->r[0] = i;
	t->r[1] = late;
	t->r[2] = lost;
	t->r[3] = armed;
	for (k = 0; k < VT_NR_HOW; k++)
		t->r[4 + k] = how[k];
}

SI_CHECKED(t_nothing_lost)
{
	struct vt_thread t = { .fn = vt_many_periods };
	unsigned long skips_t = si_vecmask_skips(cpu, TIMER_SOFTIRQ);
	unsigned long skips_h = si_vecmask_skips(cpu, HRTIMER_SOFTIRQ);
	u64 made, reached, *how = &t.r[4];
	int ret;

	BUILD_BUG_ON(4 + VT_NR_HOW > ARRAY_SIZE(t.r));
	vt_reset();
	ret = vt_run_on_cpu(&t);
	vt_quiesce();
	if (!SI_CHECK(ret == 0, "cannot run on CPU %d: %d", cpu, ret))
		return;
	made = t.r[0];
	reached = how[VT_IN_TIME] + how[VT_LATE];
	skips_t = si_vecmask_skips(cpu, TIMER_SOFTIRQ) - skips_t;
	skips_h = si_vecmask_skips(cpu, HRTIMER_SOFTIRQ) - skips_h;
	si_diag("%llu of %u periods; ran (masked): hrtimer %u (%u), timer %u of %llu (%u)",
		made, periods, vt.hrtimer_runs, vt.hrtimer_masked_runs,
		vt.timer_runs, t.r[3], vt.timer_masked_runs);
	si_diag("  tasklet %u (%u); skips TIMER %lu HRTIMER %lu",
		vt.tasklet_runs, vt.tasklet_masked_runs, skips_t, skips_h);
	si_diag("  window (%s masked) reached %llu of %llu periods, %llu in 1 s, %llu later",
		vt_active ? "hrtimer deferred" : "hrtimer run", reached, made, how[VT_IN_TIME],
		how[VT_LATE]);
	si_diag("  missed (not dispatched until the unmask: slow guest) %llu; ran masked %llu",
		how[VT_MISSED], how[VT_RAN_MASKED]);
	si_diag("  hrtimer after the unmask: %llu late, %llu lost", t.r[1], t.r[2]);
	if (made < periods && !t.r[2])
		si_diag("  stopped early: %llu periods not deferred within 1 s (slow guest)",
			how[VT_LATE] + how[VT_MISSED]);
	SI_CHECK(t.r[2] == 0, "hrtimer lost after period %llu", made);
	SI_CHECK(how[VT_RAN_MASKED] == 0, "mask missed: hrtimer ran masked in %llu of %llu periods",
		 how[VT_RAN_MASKED], made);
	SI_CHECK(reached >= (made + 1) / 2, "window reached %llu of %llu periods", reached, made);
	SI_CHECK(vt.hrtimer_runs == made, "hrtimer ran %u times in %llu periods",
		 vt.hrtimer_runs, made);
	SI_CHECK(vt.timer_runs == t.r[3], "timer ran %u times, armed %llu",
		 vt.timer_runs, t.r[3]);
	SI_CHECK(vt.tasklet_runs == made && vt.tasklet_masked_runs == made,
		 "tasklet ran %u times (%u masked) in %llu periods", vt.tasklet_runs,
		 vt.tasklet_masked_runs, made);
	if (!vt_active) {
		SI_CHECK(vt.hrtimer_masked_runs == reached,
			 "without emulation hrtimer ran masked %u times, in %llu periods within them",
			 vt.hrtimer_masked_runs, reached);
		SI_CHECK(skips_t == 0 && skips_h == 0,
			 "skips without emulation: TIMER %lu, HRTIMER %lu", skips_t, skips_h);
		return;
	}
	SI_CHECK(vt.hrtimer_masked_runs == 0 && vt.timer_masked_runs == 0,
		 "masked runs: hrtimer %u, timer %u", vt.hrtimer_masked_runs,
		 vt.timer_masked_runs);
	SI_CHECK(skips_h >= reached && skips_t > 0,
		 "skips: HRTIMER %lu in %llu periods deferred, TIMER %lu", skips_h, reached,
		 skips_t);
}

/*
 * What the hooks cost a TIMER dispatch: local_bh_disable(), raise TIMER,
 * local_bh_enable() (which runs it), timed over bench_iters; the same with
 * TIMER masked (the skip path); and the bottom-half pair alone. Compare
 * runs with vecmask=on and vecmask=off (no hooks), ideally under QEMU
 * -icount for repeatable numbers. The times are only printed (TCG's are
 * noise); what is asserted is that each timed path is the one it claims to
 * be: with the hooks armed, every masked dispatch went through the hook
 * and was skipped, and no unmasked one was; without hooks, none was.
 */
static u64 vt_time_dispatch(unsigned long raise, u64 *stale)
{
	unsigned int i, j, chunk = 1000;
	u64 ns = 0, t0;

	for (i = 0; i < bench_iters; i += chunk) {
		t0 = ktime_get_ns();
		for (j = 0; j < chunk; j++) {
			local_bh_disable();
			/* not run by the last local_bh_enable(): ksoftirqd's */
			if (local_softirq_pending() & raise)
				(*stale)++;
			if (raise)
				vt_raise(raise);
			local_bh_enable();
		}
		ns += ktime_get_ns() - t0;
		usleep_range(50, 100);	/* RT throttling, SCHED_OTHER tasks */
	}
	return ns;
}

/*
 * r[0..2]: ns of the bottom-half pair, raise+run, masked raise+skip;
 * r[3], r[4]: dispatches left to ksoftirqd, unmasked and masked;
 * r[5], r[6]: TIMER skips counted during the unmasked and the masked runs.
 */
static void vt_bench(struct vt_thread *t)
{
	unsigned long skips;

	t->r[0] = vt_time_dispatch(0, &t->r[3]);
	skips = si_vecmask_skips(cpu, TIMER_SOFTIRQ);
	t->r[1] = vt_time_dispatch(BIT(TIMER_SOFTIRQ), &t->r[3]);
	t->r[5] = si_vecmask_skips(cpu, TIMER_SOFTIRQ) - skips;
	si_vecmask_disable(BIT(TIMER_SOFTIRQ));
	skips = si_vecmask_skips(cpu, TIMER_SOFTIRQ);
	t->r[2] = vt_time_dispatch(BIT(TIMER_SOFTIRQ), &t->r[4]);
	/* the last dispatch may still be ksoftirqd's: let it run, masked */
	vt_wait(!(local_softirq_pending() & BIT(TIMER_SOFTIRQ)), 1000);
	t->r[6] = si_vecmask_skips(cpu, TIMER_SOFTIRQ) - skips;
	si_vecmask_enable(BIT(TIMER_SOFTIRQ));
}

SI_CHECKED(t_dispatch_cost)
{
	struct vt_thread t = { .fn = vt_bench };
	unsigned int n;
	int ret;

	if (!bench_iters) {
		si_skip("bench_iters=0");
		return;
	}
	bench_iters = roundup(bench_iters, 1000);
	n = bench_iters;
	ret = vt_run_on_cpu(&t);
	if (!SI_CHECK(ret == 0, "cannot run on CPU %d: %d", cpu, ret))
		return;
	si_diag("dispatch cost, hooks %s, ns per iteration of %u:",
		vt_active ? "armed" : "absent", n);
	si_diag("  bh pair %llu, raise+run TIMER %llu, masked raise+skip %llu",
		div_u64(t.r[0], n), div_u64(t.r[1], n), div_u64(t.r[2], n));
	si_diag("  TIMER left to ksoftirqd: %llu, masked %llu; skips: %llu, masked %llu",
		t.r[3], t.r[4], t.r[5], t.r[6]);
	SI_CHECK(t.r[5] == 0, "%llu of %u unmasked TIMER dispatches were skipped",
		 t.r[5], n);
	if (!vt_active) {
		SI_CHECK(t.r[6] == 0, "%llu TIMER dispatches skipped without hooks",
			 t.r[6]);
		return;
	}
	/*
	 * Each masked raise is dispatched and skipped, except where it merged
	 * with one still pending (left to ksoftirqd, counted in r[4]); ticks
	 * due meanwhile add skips of their own.
	 */
	SI_CHECK(t.r[6] + t.r[4] >= n,
		 "%llu skips for %u masked TIMER dispatches (%llu merged)",
		 t.r[6], n, t.r[4]);
}

/*
 * (RT) Masking waits for a timer vector handler in progress to return, and
 * for no more: not for the vectors its thread runs next in the same softirq
 * section. A timer callback on the CPU schedules a VH_TAIL_MS tasklet (run
 * after the TIMER vector, in the same section unless someone waits) and
 * wakes the test thread, which preempts it inside the handler and masks.
 * Masking must return with the callback done (no interleaving) and the
 * tasklet not yet run (when masking took the BH lock instead, the handler's
 * thread ran the tasklet first in most rounds: 2 ms budget, 1 jiffy here).
 */
#define VH_ROUNDS	10
#define VH_CB_US	200
#define VH_TAIL_MS	30

static struct {
	struct timer_list timer;
	struct tasklet_struct tail;
	struct completion entered;
	bool cb_done, tail_done;
	int cb_cpu;
} vh;

static void vh_busy_us(unsigned int us)
{
	u64 end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

static void vh_tail_fn(struct tasklet_struct *t)
{
	vh_busy_us(VH_TAIL_MS * USEC_PER_MSEC);
	WRITE_ONCE(vh.tail_done, true);
}

static void vh_timer_fn(struct timer_list *t)
{
	vh.cb_cpu = raw_smp_processor_id();
	tasklet_schedule(&vh.tail);
	complete(&vh.entered);	/* the test thread, above us, preempts here */
	vh_busy_us(VH_CB_US);
	WRITE_ONCE(vh.cb_done, true);
}

/* r[0] rounds reached, r[1] masked before the callback ended, r[2] after the tail */
static void vh_rounds(struct vt_thread *t)
{
	int i;

	/* above ktimers and ksoftirqd, as an executor at prio>1 is */
	sched_set_fifo(current);
	for (i = 0; i < VH_ROUNDS; i++) {
		bool cb_done, tail_done;

		memset(&vh, 0, sizeof(vh));
		init_completion(&vh.entered);
		timer_setup(&vh.timer, vh_timer_fn, 0);
		tasklet_setup(&vh.tail, vh_tail_fn);
		vh.cb_cpu = -1;
		vh.timer.expires = jiffies + 1;
		add_timer_on(&vh.timer, cpu);
		if (wait_for_completion_timeout(&vh.entered, HZ) && vh.cb_cpu == cpu) {
			si_vecmask_disable(SI_TIMER_VECTORS);
			cb_done = READ_ONCE(vh.cb_done);
			tail_done = READ_ONCE(vh.tail_done);
			si_vecmask_enable(SI_TIMER_VECTORS);
			t->r[0]++;
			t->r[1] += !cb_done;
			t->r[2] += tail_done;
		}
		timer_delete_sync(&vh.timer);
		tasklet_kill(&vh.tail);
	}
}

SI_CHECKED(t_handler_wait_ends_with_handler)
{
	struct vt_thread t = { .fn = vh_rounds };
	int ret;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		si_skip("not PREEMPT_RT: a timer vector handler is never preempted");
		return;
	}
	if (!si_vecmask_waits_for_handler_only()) {
		si_skip("no mask, or handlers not tracked (masking then takes the BH lock)");
		return;
	}
	ret = vt_run_on_cpu(&t);
	if (!SI_CHECK(ret == 0, "cannot run on CPU %d: %d", cpu, ret))
		return;
	si_diag("%llu of %d rounds masked inside a TIMER handler", t.r[0], VH_ROUNDS);
	si_diag("  returned before its callback ended: %llu, after the tasklet behind it: %llu",
		t.r[1], t.r[2]);
	if (!SI_CHECK(t.r[0] > 0, "no round reached a TIMER handler in progress"))
		return;
	SI_CHECK(t.r[1] == 0, "masking returned before the handler's callback ended in %llu rounds",
		 t.r[1]);
	SI_CHECK(t.r[2] == 0, "masking waited for the tasklet behind the handler in %llu of %llu",
		 t.r[2], t.r[0]);
}

static const struct si_test tests[] = {
	SI_TEST(t_sysfs_state),
	SI_TEST(t_available_matches_mode),
	SI_TEST(t_masked_vectors_wait),
	SI_TEST(t_nothing_lost),
	SI_TEST(t_handler_wait_ends_with_handler),
	SI_TEST(t_dispatch_cost),
};

static int __init vt_init(void)
{
	vt_active = si_vecmask_available();
	if (cpu < 0)
		cpu = cpumask_last(cpu_online_mask);
	if (cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		pr_err("cpu=%d is not online\n", cpu);
		return -EINVAL;
	}
	return si_ktap_run(tests, ARRAY_SIZE(tests));
}
module_init(vt_init);

static void __exit vt_exit(void)
{
}
module_exit(vt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer: tests of the softirq vector mask emulation");
