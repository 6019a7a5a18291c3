// SPDX-License-Identifier: GPL-2.0
/*
 * What soft-interruptible means, through si_timer callbacks on one CPU:
 *
 * - a busy soft-interruptible callback does not hold up the CPU's other
 *   bottom halves (a tasklet and a NAPI poll raised as a device would, see
 *   si_softint.h), while a compatible-mode callback does, as the TIMER
 *   softirq would;
 * - the TIMER vector stays masked meanwhile: a timer_list and other
 *   si_timers due during the callback run only after it, even while it is
 *   blocked on a lock (PREEMPT_RT, where ktimers or ksoftirqd then get the
 *   CPU), while a SOFT hrtimer runs in the middle of it, as after the seed
 *   series' call_timer_fn(); with SI_TIMER_MASK_HRTIMER the SOFT hrtimer
 *   waits for it too;
 * - conversely an si_timer callback ready on its executor never starts in
 *   the middle of a timer softirq blocked on a lock, nor in the middle of a
 *   SOFT hrtimer that began inside the callback before it and was then
 *   preempted by the executor (PREEMPT_RT; elsewhere a softirq cannot
 *   block or be preempted, and those tests are skipped).
 *
 * Where the vector mask emulation is not active (vecmask=off, or auto that
 * fell back) soft-interruptible callbacks run in compatible mode, and the
 * compatible-mode outcome is what is asserted.
 */
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include "si_timer_internal.h"
#include "vecmask.h"
#include "si_softint.h"
#include "si_test.h"

static int cpu = -1;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "CPU to test on (default: the last online one)");

static int other_cpu;		/* where lock holders run */
static bool soft_active;	/* soft-interruptible callbacks really are */
static struct si_softint scn;

/* ns to ms for the diagnostics, keeping -1 ("did not happen") */
static s64 ns_ms(s64 ns)
{
	return ns < 0 ? ns : div_s64(ns, NSEC_PER_MSEC);
}

static void st_show(const char *what)
{
	si_diag("%s: callback on CPU %d ran %lld ms; raised at %lld ms%s",
		what, scn.cb_cpu, ns_ms(scn.cb_end), ns_ms(scn.raised),
		IS_ENABLED(CONFIG_PREEMPT_RT) ? " (irq thread)" : " (hardirq)");
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		si_diag("  irq thread got the BH lock at %lld ms",
			ns_ms(scn.bh_taken));
	si_diag("  tasklet at %lld ms on CPU %d%s, NAPI poll at %lld ms on CPU %d%s",
		ns_ms(scn.tasklet_at), scn.tasklet_cpu,
		scn.tasklet_in_cb ? " (callback busy)" : "",
		ns_ms(scn.napi_at), scn.napi_cpu,
		scn.napi_in_cb ? " (callback busy)" : "");
}

static void st_check_common(void)
{
	SI_CHECK(scn.cb_cpu == cpu, "callback ran on CPU %d", scn.cb_cpu);
	SI_CHECK(scn.tasklet_cpu == cpu, "tasklet ran on CPU %d", scn.tasklet_cpu);
	SI_CHECK(scn.napi_cpu == cpu, "NAPI poll ran on CPU %d", scn.napi_cpu);
	SI_CHECK(scn.raised >= 0, "the device never raised");
}

/* Test 1: a soft-interruptible callback lets the device's softirqs run. */
SI_CHECKED(t_softirqs_run_during_si_callback)
{
	int ret;

	/* Where they should run during the callback, let a host stall not decide. */
	scn.hold_ms = soft_active ? 2000 : 0;
	ret = si_softint_run(&scn, SI_TIMER_SOFTINTERRUPTIBLE);
	scn.hold_ms = 0;
	if (!SI_CHECK(ret == 0, "scenario did not complete"))
		return;
	st_show(soft_active ? "soft-interruptible" : "soft-interruptible (compatible fallback)");
	st_check_common();
	if (!soft_active && SI_RT_NO_BH_LOCK) {
		/* compatible mode, where no softirq excludes the others */
		SI_CHECK(scn.bh_taken >= 0 && scn.bh_taken < scn.cb_end,
			 "fallback mode: irq thread's BH section waited for the callback until %lld ms",
			 ns_ms(scn.bh_taken));
		return;
	}
	if (!soft_active) {
		SI_CHECK(!scn.tasklet_in_cb && !scn.napi_in_cb,
			 "fallback mode let softirqs interrupt the callback");
		return;
	}
	SI_CHECK(scn.tasklet_in_cb, "tasklet waited for the callback (%lld ms)",
		 ns_ms(scn.tasklet_at));
	SI_CHECK(scn.napi_in_cb, "NAPI poll waited for the callback (%lld ms)",
		 ns_ms(scn.napi_at));
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		SI_CHECK(scn.bh_taken >= 0 && scn.bh_taken < scn.cb_end,
			 "irq thread blocked on the BH lock until %lld ms",
			 ns_ms(scn.bh_taken));
}

/*
 * ... while a compatible-mode callback holds them off, as a softirq does.
 * Where PREEMPT_RT has no BH lock no softirq does: the irq thread's BH
 * section must then not wait for the callback either.
 */
SI_CHECKED(t_softirqs_wait_for_compat_callback)
{
	if (!SI_CHECK(si_softint_run(&scn, 0) == 0, "scenario did not complete"))
		return;
	st_show("compatible");
	st_check_common();
	if (SI_RT_NO_BH_LOCK) {
		si_diag("RT without the BH lock: softirqs may run during a compatible callback");
		SI_CHECK(scn.bh_taken >= 0 && scn.bh_taken < scn.cb_end,
			 "irq thread's BH section waited for the callback until %lld ms",
			 ns_ms(scn.bh_taken));
		return;
	}
	SI_CHECK(!scn.tasklet_in_cb && scn.tasklet_at >= scn.cb_end,
		 "tasklet ran at %lld ms, during the callback", ns_ms(scn.tasklet_at));
	SI_CHECK(!scn.napi_in_cb && scn.napi_at >= scn.cb_end,
		 "NAPI poll ran at %lld ms, during the callback", ns_ms(scn.napi_at));
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		SI_CHECK(scn.bh_taken >= scn.cb_end,
			 "irq thread got the BH lock at %lld ms, during the callback",
			 ns_ms(scn.bh_taken));
}

/*
 * A spinlock_t that a timer callback on the test CPU will block on, held by
 * a thread on other_cpu from before @arm() until @release_ms after *@t0,
 * which the callback sets when it starts and publishes with *@started.
 * On PREEMPT_RT a waiter spins as long as the owner runs (adaptive
 * spinning), so at @preempt_ms a SCHED_FIFO thread preempts the owner and
 * the waiter really sleeps, as it does when a lock owner is preempted.
 */
struct st_holder {
	spinlock_t lock;		/* the one the callback blocks on */
	void (*arm)(void);
	const bool *started;
	const ktime_t *t0;
	unsigned int preempt_ms, release_ms;
	/* the waiter runs above FIFO 1 and boosts the owner: so must the hog */
	bool hog_high;
	struct si_ktap_cpu_work hog;
};

static void st_holder_init(struct st_holder *h, void (*arm)(void),
			   const bool *started, const ktime_t *t0,
			   unsigned int preempt_ms, unsigned int release_ms)
{
	spin_lock_init(&h->lock);
	h->arm = arm;
	h->started = started;
	h->t0 = t0;
	h->preempt_ms = preempt_ms;
	h->release_ms = release_ms;
}

static bool st_holder_until(struct st_holder *h, unsigned int ms,
			    unsigned long deadline)
{
	return ktime_ms_delta(ktime_get(), *h->t0) < ms &&
	       time_before(jiffies, deadline);
}

static void st_hog(void *arg)
{
	struct st_holder *h = arg;
	unsigned long deadline = jiffies + 2 * HZ;

	while (st_holder_until(h, h->release_ms, deadline))
		cpu_relax();
}

static void st_hold(void *arg)
{
	struct st_holder *h = arg;
	unsigned long deadline = jiffies + 2 * HZ;

	spin_lock(&h->lock);
	h->arm();
	/* *h->t0 is valid once *h->started reads true */
	while (!smp_load_acquire(h->started) && time_before(jiffies, deadline))
		cpu_relax();
	while (st_holder_until(h, h->preempt_ms, deadline))
		cpu_relax();
	wake_up_process(h->hog.task);
	while (st_holder_until(h, h->release_ms, deadline))
		cpu_relax();
	spin_unlock(&h->lock);
}

/* Arm, hold and release as described above; returns once released. */
static int st_hold_lock(struct st_holder *h)
{
	int ret = si_ktap_cpu_work_create(&h->hog, other_cpu, st_hog, h, true);

	if (ret)
		return ret;
	if (h->hog_high)
		sched_set_fifo(h->hog.task);
	ret = si_ktap_run_on_cpu(other_cpu, st_hold, h, false, 0);
	if (ret)
		wake_up_process(h->hog.task);
	si_ktap_cpu_work_finish(&h->hog, 0);
	return ret;
}

/*
 * Test 2: timer callbacks of every kind due while a soft-interruptible
 * callback runs. It is busy for 30 ms, then blocks on a lock that a
 * thread on another CPU holds until 60 ms (on PREEMPT_RT it sleeps, and
 * ktimers/ksoftirqd get the CPU; elsewhere it spins), then busy until
 * 80 ms. The others are due at 20 ms.
 */
enum { VT_LIST, VT_HRTIMER, VT_SI_COMPAT, VT_SI_SOFT, VT_NR };
static const char * const vt_names[VT_NR] = {
	"timer_list", "SOFT hrtimer", "si_timer", "si_timer (soft)",
};

static struct {
	DECLARE_BITMAP(ran, VT_NR);
	DECLARE_BITMAP(ran_in_cb, VT_NR);
	int cpu[VT_NR];
	bool busy;			/* the soft-interruptible callback runs */
	bool hr_masked;			/* ... with SI_TIMER_MASK_HRTIMER */
	ktime_t start;
	unsigned long skips_t, skips_h;	/* si_vecmask_skips() before */
	s64 end_ms, lock_ms;		/* lock_ms: waited for the lock */
	bool slept;			/* ... sleeping (PREEMPT_RT) */
	struct st_holder holder;
	struct timer_list list;
	struct hrtimer hrtimer;
	struct si_timer main, si[2];
} vt;

static void vt_ran(int which)
{
	vt.cpu[which] = raw_smp_processor_id();
	if (READ_ONCE(vt.busy))
		set_bit(which, vt.ran_in_cb);
	set_bit(which, vt.ran);
}

static void vt_list_fn(struct timer_list *t)
{
	vt_ran(VT_LIST);
}

static enum hrtimer_restart vt_hrtimer_fn(struct hrtimer *h)
{
	vt_ran(VT_HRTIMER);
	return HRTIMER_NORESTART;
}

static void vt_si_fn(struct si_timer *t)
{
	vt_ran(t == &vt.si[0] ? VT_SI_COMPAT : VT_SI_SOFT);
}

static s64 vt_ms(void)
{
	return ktime_ms_delta(ktime_get(), vt.start);
}

/* The mask met each vector it should: deferred it, or let it run. */
static bool vt_hooks_exercised(void)
{
	if (si_vecmask_skips(cpu, TIMER_SOFTIRQ) == vt.skips_t)
		return false;
	if (vt.hr_masked)
		return si_vecmask_skips(cpu, HRTIMER_SOFTIRQ) != vt.skips_h;
	return test_bit(VT_HRTIMER, vt.ran_in_cb);
}

static void vt_main_fn(struct si_timer *t)
{
	unsigned long due = jiffies + msecs_to_jiffies(20);
	unsigned long switches;

	vt.start = ktime_get();
	smp_store_release(&vt.busy, true);	/* vt.start, for st_hold() */
	vt.list.expires = due;
	add_timer_on(&vt.list, cpu);
	hrtimer_start(&vt.hrtimer, ms_to_ktime(20), HRTIMER_MODE_REL_PINNED_SOFT);
	vt.si[0].expires = due;
	si_add_timer_on(&vt.si[0], cpu);
	vt.si[1].expires = due;
	si_add_timer_on(&vt.si[1], cpu);
	while (vt_ms() < 30)
		cpu_relax();
	switches = current->nvcsw;
	vt.lock_ms = vt_ms();
	spin_lock(&vt.holder.lock);
	vt.lock_ms = vt_ms() - vt.lock_ms;
	vt.slept = current->nvcsw != switches;
	spin_unlock(&vt.holder.lock);
	/*
	 * Past 80 ms, until the timer vectors met the mask (a host stall can
	 * let the time pass without a tick), up to 1 s.
	 */
	while (vt_ms() < 80 || (soft_active && vt_ms() < 1000 && !vt_hooks_exercised()))
		cpu_relax();
	vt.end_ms = vt_ms();
	WRITE_ONCE(vt.busy, false);
}

static void vt_arm(void)
{
	vt.main.expires = jiffies + 1;
	si_add_timer_on(&vt.main, cpu);
}

static bool vt_all_ran(void)
{
	return bitmap_full(vt.ran, VT_NR);
}

/* One run; true if the mask met both vectors meanwhile (vt_hooks_exercised()). */
static bool vt_attempt(int attempt, bool hr_masked)
{
	unsigned long skips_t, skips_h;
	bool exercised;
	int i;

	memset(&vt, 0, sizeof(vt));
	/* untracked handlers on RT: soft batches mask HRTIMER too (executor.c) */
	vt.hr_masked = hr_masked || (IS_ENABLED(CONFIG_PREEMPT_RT) &&
				     !si_vecmask_waits_for_handler_only());
	vt.skips_t = si_vecmask_skips(cpu, TIMER_SOFTIRQ);
	vt.skips_h = si_vecmask_skips(cpu, HRTIMER_SOFTIRQ);
	st_holder_init(&vt.holder, vt_arm, &vt.busy, &vt.start, 25, 60);
	timer_setup(&vt.list, vt_list_fn, TIMER_PINNED);
	hrtimer_setup(&vt.hrtimer, vt_hrtimer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_SOFT);
	si_timer_setup(&vt.main, vt_main_fn, SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_PINNED |
		       (hr_masked ? SI_TIMER_MASK_HRTIMER : 0));
	si_timer_setup(&vt.si[0], vt_si_fn, SI_TIMER_PINNED);
	si_timer_setup(&vt.si[1], vt_si_fn,
		       SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_PINNED);
	SI_CHECK(st_hold_lock(&vt.holder) == 0, "lock holder did not run");

	si_wait_until(vt_all_ran(), 2000);
	timer_delete_sync(&vt.list);
	hrtimer_cancel(&vt.hrtimer);
	si_timer_delete_sync(&vt.main);
	si_timer_delete_sync(&vt.si[0]);
	si_timer_delete_sync(&vt.si[1]);
	exercised = vt_hooks_exercised();
	skips_t = si_vecmask_skips(cpu, TIMER_SOFTIRQ) - vt.skips_t;
	skips_h = si_vecmask_skips(cpu, HRTIMER_SOFTIRQ) - vt.skips_h;

	si_diag("attempt %d: soft-interruptible callback%s on CPU %d: %lld ms; mask %s",
		attempt, hr_masked ? " (MASK_HRTIMER)" : "", cpu, vt.end_ms,
		soft_active ? "active" : "inactive");
	si_diag("  waited %lld ms for the lock%s; skips TIMER %lu HRTIMER %lu",
		vt.lock_ms, vt.slept ? ", sleeping" : "", skips_t, skips_h);
	for (i = 0; i < VT_NR; i++) {
		si_diag("  %s: %s on CPU %d%s", vt_names[i],
			test_bit(i, vt.ran) ? "ran" : "did not run", vt.cpu[i],
			test_bit(i, vt.ran_in_cb) ? ", during the callback" : "");
		SI_CHECK(test_bit(i, vt.ran), "%s did not run", vt_names[i]);
		/* a SOFT hrtimer in the middle is allowed, and looked for below */
		if (i != VT_HRTIMER || vt.hr_masked || !soft_active)
			SI_CHECK(!test_bit(i, vt.ran_in_cb), "%s ran during the callback",
				 vt_names[i]);
		SI_CHECK(vt.cpu[i] == cpu, "%s ran on CPU %d", vt_names[i], vt.cpu[i]);
	}
	return exercised;
}

/*
 * What runs where while the callback waits is up to the scheduler (and,
 * under QEMU, to the host's): if the hooks were not exercised (on RT the
 * callback span instead of sleeping, as when the lock owner's vCPU
 * stalled), try again, up to three times.
 */
static void vt_attempts(bool hr_masked)
{
	bool exercised = false;
	int attempt;

	for (attempt = 1; attempt <= 3 && !exercised; attempt++) {
		exercised = vt_attempt(attempt, hr_masked);
		if (!soft_active)
			return;
	}
	if (vt.hr_masked)
		SI_CHECK(exercised, "in 3 attempts the hooks never deferred both timer vectors");
	else
		SI_CHECK(exercised,
			 "in 3 attempts the hooks never deferred TIMER while the SOFT hrtimer ran inside");
}

SI_CHECKED(t_timer_vectors_wait_for_si_callback)
{
	vt_attempts(false);
}

SI_CHECKED(t_mask_hrtimer_keeps_soft_hrtimers_out)
{
	vt_attempts(true);
}

/*
 * Test 2, the other way round (PREEMPT_RT): a timer_list callback blocks on
 * a lock (ktimers or ksoftirqd then sleeps in the middle of the TIMER
 * softirq, holding the BH lock) while an si_timer that expired in the same
 * batch is ready on its executor. The si_timer callback must not start
 * until the timer softirq is done with the timer_list callback. Without
 * PREEMPT_RT a softirq runs with preemption disabled and no executor can
 * run inside it: nothing to test.
 */
static struct {
	struct st_holder holder;
	struct timer_list list;
	struct si_timer si;
	bool list_busy, si_busy;
	bool si_in_list, list_in_si;
	bool si_queued;			/* on its executor when list_fn blocked */
	ktime_t list_start;
	s64 list_end_ms, si_start_ms;
	int list_cpu, si_cpu;
	int si_runs;
} bt;

static void bt_list_fn(struct timer_list *t)
{
	bt.list_cpu = raw_smp_processor_id();
	bt.list_in_si = READ_ONCE(bt.si_busy);
	bt.list_start = ktime_get();
	smp_store_release(&bt.list_busy, true);	/* list_start, for st_hold() */
	spin_lock(&bt.holder.lock);
	spin_unlock(&bt.holder.lock);
	/* expired onto its executor's queue meanwhile, its callback not started */
	bt.si_queued = READ_ONCE(bt.si.state) & SI_STATE_QUEUED;
	bt.list_end_ms = ktime_ms_delta(ktime_get(), bt.list_start);
	WRITE_ONCE(bt.list_busy, false);
}

static void bt_si_fn(struct si_timer *t)
{
	WRITE_ONCE(bt.si_busy, true);
	bt.si_cpu = raw_smp_processor_id();
	bt.si_in_list = READ_ONCE(bt.list_busy);
	bt.si_start_ms = ktime_ms_delta(ktime_get(), bt.list_start);
	WRITE_ONCE(bt.si_runs, bt.si_runs + 1);
	WRITE_ONCE(bt.si_busy, false);
}

/*
 * The si_timer due 20 ms after the timer_list: its wake-up (a HARD
 * hrtimer) queues it on its executor while the timer_list callback is
 * blocked (50 ms), and the executor, runnable above the TIMER softirq's
 * thread, must still wait for it. Not a jiffy after: on a debug kernel
 * under TCG the TIMER softirq's thread can take longer than a jiffy to
 * reach the timer_list, and the si_timer then ran first in every attempt.
 */
#define BT_SI_AFTER_MS	20

static void bt_arm(void)
{
	unsigned long due = jiffies + 2;

	bt.list.expires = due;
	add_timer_on(&bt.list, cpu);
	bt.si.expires = due + msecs_to_jiffies(BT_SI_AFTER_MS);
	si_add_timer_on(&bt.si, cpu);
}

/* One run; true if the si_timer was ready when the timer_list callback blocked. */
static bool bt_attempt(unsigned int flags, int attempt)
{
	memset(&bt, 0, sizeof(bt));
	st_holder_init(&bt.holder, bt_arm, &bt.list_busy, &bt.list_start, 0, 50);
	timer_setup(&bt.list, bt_list_fn, TIMER_PINNED);
	si_timer_setup(&bt.si, bt_si_fn, flags | SI_TIMER_PINNED);
	SI_CHECK(st_hold_lock(&bt.holder) == 0, "lock holder did not run");
	si_wait_until(READ_ONCE(bt.si_runs), 2000);
	timer_delete_sync(&bt.list);
	si_timer_delete_sync(&bt.si);
	si_diag("attempt %d, %s si_timer: timer_list callback on CPU %d blocked %lld ms",
		attempt, flags ? "soft-interruptible" : "compatible", bt.list_cpu,
		bt.list_end_ms);
	si_diag("  si_timer %s then; its callback on CPU %d at %lld ms%s",
		bt.si_queued ? "queued on its executor" : "not queued yet", bt.si_cpu,
		bt.si_start_ms, bt.si_in_list ? ", inside it" : "");
	SI_CHECK(bt.si_runs == 1, "si_timer callback ran %d times", bt.si_runs);
	SI_CHECK(bt.list_cpu == cpu && bt.si_cpu == cpu,
		 "callbacks ran on CPUs %d and %d", bt.list_cpu, bt.si_cpu);
	SI_CHECK(bt.list_end_ms >= 40, "the timer_list callback did not block");
	SI_CHECK(!bt.si_in_list && !bt.list_in_si,
		 "the callbacks interleaved");
	return bt.si_queued;
}

/*
 * The window is there only if the si_timer was queued by the time the
 * timer_list callback stopped blocking (a vCPU stalled for 50 ms could
 * miss it): try up to three times.
 */
static void bt_run(unsigned int flags)
{
	bool reached = false;
	int attempt;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		si_skip("not PREEMPT_RT: a timer softirq never blocks, no executor runs inside it");
		return;
	}
	for (attempt = 1; attempt <= 3 && !reached && !si_test_failed; attempt++)
		reached = bt_attempt(flags, attempt);
	SI_CHECK(reached || si_test_failed,
		 "in 3 attempts the si_timer was never queued on its executor when the timer_list callback blocked");
}

SI_CHECKED(t_si_callback_waits_for_blocked_timer_softirq)
{
	bt_run(SI_TIMER_SOFTINTERRUPTIBLE);
}

SI_CHECKED(t_compat_callback_waits_for_blocked_timer_softirq)
{
	bt_run(0);
}

/*
 * Test 2, mid-batch (PREEMPT_RT): a SOFT hrtimer may run in the middle of a
 * soft-interruptible callback, but the next callback of the batch must not
 * start in the middle of it. Two soft-interruptible si_timers are due in the
 * same jiffy on the test CPU, so one batch runs both: the first (A) starts a
 * SOFT hrtimer and blocks on a lock; the hrtimer's callback (H) then runs in
 * ktimers or ksoftirqd and stays busy until A has returned. The lock is let
 * go while H runs, and the executor, above H's thread (prio=2, above
 * ktimers), preempts it: A returns with H in the middle (the window). The
 * second si_timer (B) must wait until H is done. batch_us is raised so
 * that A's 60 ms do not end the batch: a callback that blocks for less than
 * batch_us meets the same window at the default.
 */
#define MB_HR_MS	10	/* H fires this long after A started */
#define MB_RELEASE_MS	60	/* the lock is let go, H busy meanwhile */
#define MB_H_MAX_MS	1000	/* H gives up waiting for A */

static struct {
	struct st_holder holder;
	struct si_timer si[2];
	struct hrtimer hr;
	atomic_t started_cbs;
	bool a_started, a_done, a_saw_h, h_busy, h_saw_a_done, b_in_h;
	ktime_t a_start;
	s64 b_start_ms, h_end_ms;
	int a_cpu, b_cpu, h_cpu;
} mb;

static enum hrtimer_restart mb_hr_fn(struct hrtimer *h)
{
	ktime_t start = ktime_get();

	mb.h_cpu = raw_smp_processor_id();
	WRITE_ONCE(mb.h_busy, true);
	while (!READ_ONCE(mb.a_done) && ktime_ms_delta(ktime_get(), start) < MB_H_MAX_MS)
		cpu_relax();
	mb.h_saw_a_done = READ_ONCE(mb.a_done);
	mb.h_end_ms = ktime_ms_delta(ktime_get(), mb.a_start);
	WRITE_ONCE(mb.h_busy, false);
	return HRTIMER_NORESTART;
}

static void mb_a(void)
{
	mb.a_cpu = raw_smp_processor_id();
	mb.a_start = ktime_get();
	hrtimer_start(&mb.hr, ms_to_ktime(MB_HR_MS), HRTIMER_MODE_REL_PINNED_SOFT);
	smp_store_release(&mb.a_started, true);	/* a_start, for st_hold() */
	spin_lock(&mb.holder.lock);
	spin_unlock(&mb.holder.lock);
	mb.a_saw_h = READ_ONCE(mb.h_busy);
	WRITE_ONCE(mb.a_done, true);
}

/* Whichever of the two runs first plays A: their order in a jiffy is not ours. */
static void mb_fn(struct si_timer *t)
{
	if (atomic_inc_return(&mb.started_cbs) == 1) {
		mb_a();
		return;
	}
	mb.b_in_h = READ_ONCE(mb.h_busy);
	mb.b_cpu = raw_smp_processor_id();
	mb.b_start_ms = ktime_ms_delta(ktime_get(), mb.a_start);
}

static void mb_arm(void)
{
	unsigned long due = jiffies + 2;

	mb.si[0].expires = due;
	si_add_timer_on(&mb.si[0], cpu);
	mb.si[1].expires = due;
	si_add_timer_on(&mb.si[1], cpu);
}

/* One run; true if A returned with H in the middle (the window). */
static bool mb_attempt(int attempt)
{
	int i;

	memset(&mb, 0, sizeof(mb));
	mb.a_cpu = -1;
	mb.b_cpu = -1;
	mb.h_cpu = -1;
	mb.b_start_ms = -1;
	mb.h_end_ms = -1;
	st_holder_init(&mb.holder, mb_arm, &mb.a_started, &mb.a_start, 2, MB_RELEASE_MS);
	mb.holder.hog_high = true;
	hrtimer_setup(&mb.hr, mb_hr_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
	for (i = 0; i < 2; i++)
		si_timer_setup(&mb.si[i], mb_fn, SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_PINNED);
	SI_CHECK(st_hold_lock(&mb.holder) == 0, "lock holder did not run");
	si_wait_until(atomic_read(&mb.started_cbs) == 2 && !READ_ONCE(mb.h_busy), 3000);
	for (i = 0; i < 2; i++)
		si_timer_delete_sync(&mb.si[i]);
	hrtimer_cancel(&mb.hr);

	si_diag("attempt %d: A on CPU %d returned %s; SOFT hrtimer on CPU %d ended at %lld ms%s",
		attempt, mb.a_cpu, mb.a_saw_h ? "in the middle of the SOFT hrtimer" :
		"with no SOFT hrtimer running", mb.h_cpu, mb.h_end_ms,
		mb.h_saw_a_done ? "" : " (gave up waiting for A)");
	si_diag("  B on CPU %d at %lld ms%s", mb.b_cpu, mb.b_start_ms,
		mb.b_in_h ? ", in the middle of the SOFT hrtimer" : "");
	SI_CHECK(atomic_read(&mb.started_cbs) == 2, "%d of the 2 callbacks ran",
		 atomic_read(&mb.started_cbs));
	SI_CHECK(mb.a_cpu == cpu && mb.b_cpu == cpu && mb.h_cpu == cpu,
		 "A, B and the SOFT hrtimer ran on CPUs %d, %d and %d", mb.a_cpu, mb.b_cpu,
		 mb.h_cpu);
	SI_CHECK(!mb.b_in_h, "B started in the middle of a SOFT hrtimer callback");
	return mb.a_saw_h;
}

SI_CHECKED(t_next_callback_waits_for_soft_hrtimer_in_progress)
{
	char prio[16], batch_us[16];
	int attempt, reached = 0;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		si_skip("not PREEMPT_RT: a SOFT hrtimer ends inside the callback it interrupts");
		return;
	}
	if (!si_vecmask_waits_for_handler_only()) {
		si_skip("no mask, or handlers not tracked: no SOFT hrtimer runs during the batch");
		return;
	}
	if (!si_test_read_param("prio", prio, sizeof(prio)) ||
	    !si_test_read_param("batch_us", batch_us, sizeof(batch_us)))
		return;
	/* above ktimers; and A, blocked 60 ms, must not end the batch */
	if (si_test_write_param("prio", "2") &&
	    si_test_write_param("batch_us", "1000000")) {
		for (attempt = 1; attempt <= 3 && !reached && !si_test_failed; attempt++)
			reached += mb_attempt(attempt);
		si_diag("window reached in %d of %d attempts", reached, attempt - 1);
		SI_CHECK(reached || si_test_failed,
			 "in 3 attempts A never returned in the middle of the SOFT hrtimer");
	}
	si_test_write_param("prio", prio);
	si_test_write_param("batch_us", batch_us);
}

/*
 * Test 3 (not PREEMPT_RT): a soft-interruptible callback wakes a SCHED_FIFO
 * 50 task on its CPU, above the executor (FIFO 1), which spins there for
 * HG_SPIN_MS. Under full preemption it preempts the executor before the
 * batch returns: that is the window. The timer vectors must not stay
 * masked meanwhile, or every classic timer of the CPU would wait for the
 * spinner: a timer_list it arms, due HG_DUE_MS later, must run on time from
 * irq exit, as it would without si_timer. Without full preemption the
 * spinner runs once the executor sleeps, and the window is not there. On
 * PREEMPT_RT the executor is preemptible by design, and the timer softirqs
 * run in threads below such a task whatever si_timer does: skipped.
 */
#define HG_SPIN_MS	200
#define HG_DUE_MS	20
#define HG_LATE_MS	50	/* a few ticks, and what a loaded host adds */
#define HG_ROUNDS	3

static struct {
	struct si_ktap_cpu_work spinner;
	struct task_struct *executor;
	struct si_timer si;
	struct timer_list list;
	bool preempted;		/* the executor was runnable: preempted */
	ktime_t armed;
	s64 late_ms;		/* the timer_list's, after its due time */
	bool list_ran;
	int list_cpu, spin_cpu;
	unsigned long skips;	/* TIMER dispatches masked while it spun */
} hg;

static void hg_spin(void *arg)
{
	unsigned long skips = si_vecmask_skips(cpu, TIMER_SOFTIRQ);
	ktime_t start = ktime_get();

	hg.preempted = hg.executor && task_is_running(hg.executor);
	hg.spin_cpu = raw_smp_processor_id();
	hg.armed = start;
	hg.list.expires = jiffies + msecs_to_jiffies(HG_DUE_MS);
	add_timer_on(&hg.list, cpu);
	while (ktime_ms_delta(ktime_get(), start) < HG_SPIN_MS)
		cpu_relax();
	hg.skips = si_vecmask_skips(cpu, TIMER_SOFTIRQ) - skips;
}

static void hg_list_fn(struct timer_list *t)
{
	hg.late_ms = ktime_ms_delta(ktime_get(), hg.armed) - HG_DUE_MS;
	hg.list_cpu = raw_smp_processor_id();
	WRITE_ONCE(hg.list_ran, true);
}

static void hg_si_fn(struct si_timer *t)
{
	hg.executor = current;
	wake_up_process(hg.spinner.task);
}

/*
 * One round: -1 on a failure, 0 if the timer_list was late for another
 * reason (not counted), else 1; hg.preempted: the window was reached.
 */
static int hg_round(int round)
{
	bool ok = true;
	int ret;

	memset(&hg, 0, sizeof(hg));
	hg.list_cpu = -1;
	hg.spin_cpu = -1;
	timer_setup(&hg.list, hg_list_fn, TIMER_PINNED);
	si_timer_setup(&hg.si, hg_si_fn, SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_PINNED);
	ret = si_ktap_cpu_work_create(&hg.spinner, cpu, hg_spin, NULL, false);
	if (!SI_CHECK(ret == 0, "no spinner thread: %d", ret))
		return -1;
	sched_set_fifo(hg.spinner.task);	/* 50 */
	hg.si.expires = jiffies + 1;
	si_add_timer_on(&hg.si, cpu);
	/* Woken by the callback; if it never runs, here, not to wait forever. */
	if (!si_wait_until(READ_ONCE(hg.executor), 2000))
		wake_up_process(hg.spinner.task);
	ret = si_ktap_cpu_work_finish(&hg.spinner, 2000 + HG_SPIN_MS);
	si_wait_until(READ_ONCE(hg.list_ran), 2000);
	timer_delete_sync(&hg.list);
	si_timer_delete_sync(&hg.si);

	si_diag("round %d: spinner on CPU %d %s the executor; TIMER masked %lu times",
		round, hg.spin_cpu, hg.preempted ? "preempted" : "followed", hg.skips);
	si_diag("  timer_list %s on CPU %d, %lld ms late", hg.list_ran ? "ran" : "did not run",
		hg.list_cpu, hg.late_ms);
	ok &= SI_CHECK(hg.executor, "the si_timer callback did not run");
	ok &= SI_CHECK(ret == 0, "the spinner did not finish");
	ok &= SI_CHECK(hg.spin_cpu == cpu && hg.list_cpu == cpu,
		       "spinner on CPU %d, timer_list on CPU %d", hg.spin_cpu, hg.list_cpu);
	ok &= SI_CHECK(hg.list_ran, "the timer_list did not run");
	ok &= SI_CHECK(!hg.skips,
		       "the timer vectors stayed masked behind the spinner: the timer_list ran %lld ms late",
		       hg.late_ms);
	if (!ok)
		return -1;
	if (hg.late_ms > HG_LATE_MS) {
		/* not the mask: the host stalled us, or ksoftirqd (6.1) had it */
		si_diag("  late without the mask: round not counted");
		return 0;
	}
	return 1;
}

SI_CHECKED(t_hog_woken_by_si_callback_does_not_delay_timers)
{
	int round, ret, reached = 0, failed = 0;

	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		si_skip("PREEMPT_RT: executor preemptible, timer softirqs below the spinner");
		return;
	}
	si_diag("preemption model: %s", preempt_model_full() ? "full" :
		preempt_model_voluntary() ? "voluntary" : "none");
	for (round = 1; round <= HG_ROUNDS; round++) {
		ret = hg_round(round);
		failed += ret < 0;
		reached += ret && hg.preempted;
	}
	si_diag("window reached %d of %d (spinner preempted the executor); timers held in %d",
		reached, HG_ROUNDS, failed);
	if (!reached && !failed)
		si_skip("window not reached in %d rounds (%s)", HG_ROUNDS,
			preempt_model_full() ? "slow guest?" :
			"needs full preemption, e.g. preempt=full");
}

static const struct si_test tests[] = {
	SI_TEST(t_softirqs_run_during_si_callback),
	SI_TEST(t_softirqs_wait_for_compat_callback),
	SI_TEST(t_timer_vectors_wait_for_si_callback),
	SI_TEST(t_mask_hrtimer_keeps_soft_hrtimers_out),
	SI_TEST(t_si_callback_waits_for_blocked_timer_softirq),
	SI_TEST(t_compat_callback_waits_for_blocked_timer_softirq),
	SI_TEST(t_next_callback_waits_for_soft_hrtimer_in_progress),
	SI_TEST(t_hog_woken_by_si_callback_does_not_delay_timers),
};

static int __init st_init(void)
{
	int ret;

	cpu = si_softint_cpu(cpu);
	if (cpu < 0)
		return cpu;
	other_cpu = cpumask_any_but(cpu_online_mask, cpu);
	if (other_cpu >= nr_cpu_ids) {
		pr_err("needs two online CPUs\n");
		return -EINVAL;
	}
	soft_active = si_vecmask_available();
	ret = si_softint_init(&scn, cpu);
	if (ret)
		return ret;
	si_ktap_run(tests, ARRAY_SIZE(tests));
	si_softint_exit(&scn);
	return 0;
}
module_init(st_init);

static void __exit st_exit(void)
{
}
module_exit(st_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer: soft-interruptibility and vector mask tests through si_timer callbacks");
