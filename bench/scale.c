// SPDX-License-Identifier: GPL-2.0
/*
 * B9, scale: what N armed far-future timers cost the CPU they wait on.
 *
 * On bench_cpu, N timers of one peer (scale_peer=si or classic) due 60 to
 * 200 s out, as TCP retransmit, keepalive and watchdog timers are, and one
 * timer of that peer due every jiffy, re-armed from its callback. With
 * them armed, at load (only=B9):
 *  - a SCHED_FIFO 99 kthread on bench_cpu reads local_clock() in a tight
 *    loop and adds up the gaps over B9_GAP_NS: the time interrupts took
 *    from it, per second, and the longest one;
 *  - the same kthread then sleeps 1 ms by a hrtimer, again and again, and
 *    records how late it woke (cyclictest's measurement).
 * The timers stay armed until the module is unloaded, so that user space
 * can time an unrelated module's unload meanwhile (init.sh, bench/
 * si_bench_modtime.c).
 *
 * Lines: SI_BENCH_B9 <peer> n<N>_<metric> <value>, N as 0, 10k, 100k, 1M.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task.h>
#include <linux/vmalloc.h>
#include <uapi/linux/sched/types.h>
#include "bench.h"

/*
 * An interrupt, not the loop's own iteration (tens of ns). Below the
 * shortest interrupt: at 2 us, half of the tick's interrupts on 6.12-rt
 * under -icount (median 2 us, traced) were not counted at all, and a peer
 * whose interrupts were a little longer had all of its counted.
 */
#define B9_GAP_NS	500
/*
 * The spinner yields for this long once per jiffy, mid-jiffy, so that the
 * per-jiffy timer's callback (a FIFO 1 thread on RT) runs and re-arms it:
 * otherwise the wheel would have nothing due during the spin and never
 * look at its buckets. It also keeps the spinner under RT throttling's 95%.
 * (A FIFO task's sleeps have no slack: it wakes after exactly this long.)
 */
#define B9_YIELD_US	500
/* Idle time before the spin (bench_b9()); under -icount it passes at once. */
#define B9_SETTLE_MS	1000

static char *scale_peer = "";
module_param(scale_peer, charp, 0444);
MODULE_PARM_DESC(scale_peer, "B9: the peer whose timers are armed: si or classic");

static uint scale_n;
module_param(scale_n, uint, 0444);
MODULE_PARM_DESC(scale_n, "B9: how many far-future timers are armed (up to 1000000)");

struct b9 {
	enum bench_peer peer;
	unsigned int n;
	void *timers;
	unsigned int fired;		/* far timers that fired: must stay 0 */
	struct bench_timer tick;	/* due every jiffy */
	bool stop;
	unsigned long tick_runs;
	/* the measuring thread's results */
	struct completion done;
	unsigned int spin_jiffies, sleeps;
	s64 spun, stolen, gap_max;
	unsigned long spin_ticks;	/* tick_runs during the spin */
	struct bench_samples late;
};

static struct b9 *b9;

static void b9_far_si_fn(struct si_timer *t)
{
	WRITE_ONCE(b9->fired, b9->fired + 1);
}

static void b9_far_tl_fn(struct timer_list *t)
{
	WRITE_ONCE(b9->fired, b9->fired + 1);
}

/*
 * Expiring at jiffies is due at the next tick: both wheels round an expiry
 * up by one jiffy (latency.c), so jiffies + 1 would be every other one.
 */
static void b9_tick_fn(struct bench_timer *bt)
{
	b9->tick_runs++;
	if (!READ_ONCE(b9->stop))
		bench_timer_arm(bt, jiffies);
}

/*
 * Spin from mid-jiffy to mid-jiffy, so that the yield never hides a jiffy
 * edge, where the tick and the wheels' expiry interrupts come. Returns the
 * ns spun; adds the gaps to b->stolen.
 */
static s64 b9_spin_jiffy(struct b9 *b)
{
	unsigned long j = READ_ONCE(jiffies);
	u64 t0 = local_clock(), prev = t0, edge = 0, now;

	for (;;) {
		now = local_clock();
		if (now - prev > B9_GAP_NS) {
			b->stolen += now - prev;
			b->gap_max = max_t(s64, b->gap_max, now - prev);
		}
		prev = now;
		if (!edge) {
			if (READ_ONCE(jiffies) != j)
				edge = now;
			else if (now - t0 > 100 * NSEC_PER_MSEC)
				break;	/* no tick: not one we can measure */
		} else if (now - edge > TICK_NSEC / 2) {
			break;
		}
	}
	return now - t0;
}

static int b9_thread(void *data)
{
	struct b9 *b = data;
	unsigned long runs0;
	unsigned int i;

	usleep_range(B9_YIELD_US, B9_YIELD_US + 50);
	b9_spin_jiffy(b);	/* to mid-jiffy: not counted */
	runs0 = READ_ONCE(b->tick_runs);
	b->stolen = 0;
	b->gap_max = 0;
	for (i = 0; i < b->spin_jiffies; i++) {
		usleep_range(B9_YIELD_US, B9_YIELD_US + 50);
		b->spun += b9_spin_jiffy(b);
	}
	b->spin_ticks = READ_ONCE(b->tick_runs) - runs0;

	/*
	 * A relative 1 ms sleep: each wake-up's lateness moves the next one's
	 * phase in the jiffy, so the sleeps meet the tick at every phase.
	 */
	for (i = 0; i < b->sleeps; i++) {
		ktime_t due = ktime_add_us(ktime_get(), 1000);

		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_hrtimeout_range(&due, 0, HRTIMER_MODE_ABS);
		bench_samples_add(&b->late, ktime_get_ns() - ktime_to_ns(due));
	}
	complete(&b->done);
	return 0;
}

/* Due 60 to 200 s out, scattered: a hash of the index, not its order. */
static unsigned long b9_far_expiry(unsigned long now, unsigned int i)
{
	return now + 60 * HZ + (u32)(i * 2654435761U) % (140 * HZ);
}

/* Set up and arm the far timers from bench_cpu, pinned there; ns per arm. */
static s64 b9_arm_far(struct b9 *b)
{
	struct si_timer *st = b->timers;
	struct timer_list *tl = b->timers;
	unsigned long now = jiffies;
	unsigned int i;
	u64 t0;

	for (i = 0; i < b->n; i++) {
		if (b->peer == P_SI)
			si_timer_setup(&st[i], b9_far_si_fn,
				       SI_TIMER_PINNED | SI_TIMER_SOFTINTERRUPTIBLE);
		else
			timer_setup(&tl[i], b9_far_tl_fn, TIMER_PINNED);
	}
	t0 = ktime_get_ns();
	for (i = 0; i < b->n; i++) {
		if (b->peer == P_SI)
			si_mod_timer(&st[i], b9_far_expiry(now, i));
		else
			mod_timer(&tl[i], b9_far_expiry(now, i));
		if (!(i & 0xffff))
			cond_resched();
	}
	return b->n ? (ktime_get_ns() - t0) / b->n : 0;
}

static const char *b9_n_label(unsigned int n, char *buf, size_t len)
{
	if (n >= 1000000 && !(n % 1000000))
		snprintf(buf, len, "%uM", n / 1000000);
	else if (n >= 1000 && !(n % 1000))
		snprintf(buf, len, "%uk", n / 1000);
	else
		snprintf(buf, len, "%u", n);
	return buf;
}

static void b9_line(const char *n, const char *metric, s64 v)
{
	pr_info("SI_BENCH_B9 %s n%s_%s %lld\n", bench_peer_key[b9->peer], n, metric, v);
}

void bench_b9(void)
{
	struct sched_attr fifo99 = {
		.sched_policy = SCHED_FIFO,
		.sched_priority = MAX_RT_PRIO - 1,
	};
	struct task_struct *t;
	char n[16];
	int peer;
	s64 arm_ns;

	peer = match_string(bench_peer_key, NR_PEERS, scale_peer);
	if ((peer != P_SI && peer != P_CLASSIC) || scale_n > 1000000) {
		pr_err("SI_BENCH_ERROR B9: scale_peer=%s scale_n=%u: want si or classic, up to 1000000\n",
		       scale_peer, scale_n);
		return;
	}
	b9 = kzalloc(sizeof(*b9), GFP_KERNEL);
	if (!b9)
		goto nomem;
	b9->peer = peer;
	b9->n = scale_n;
	b9->spin_jiffies = bench_quick ? HZ / 10 : HZ;
	b9->sleeps = bench_quick ? 100 : 1000;
	init_completion(&b9->done);
	if (bench_samples_alloc(&b9->late, b9->sleeps))
		goto nomem;
	b9->timers = vzalloc(array_size(max(b9->n, 1U), peer == P_SI ?
					sizeof(struct si_timer) : sizeof(struct timer_list)));
	if (!b9->timers)
		goto nomem;

	set_cpus_allowed_ptr(current, cpumask_of(bench_cpu));
	arm_ns = b9_arm_far(b9);
	bench_timer_init(&b9->tick, peer, b9_tick_fn);
	bench_timer_arm(&b9->tick, jiffies + 1);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	/*
	 * Let the other CPUs settle first: under single-threaded -icount all
	 * vCPUs share one instruction clock, so whatever runs elsewhere
	 * during the spin (the RCU callbacks and the lazy vmap purge of the
	 * previous case's unload and vfree(), si_timer's executors starting)
	 * shows as time stolen from the spinner, by as much as the host's
	 * timing of the console happens to leave there.
	 */
	rcu_barrier();
	vm_unmap_aliases();
	msleep(B9_SETTLE_MS);

	t = kthread_create(b9_thread, b9, "si_bench_b9/%d", bench_cpu);
	if (IS_ERR(t)) {
		pr_err("SI_BENCH_ERROR B9: no thread (%ld)\n", PTR_ERR(t));
		return;	/* the timers go at unload */
	}
	get_task_struct(t);	/* kthread_stop() after it returned */
	kthread_bind(t, bench_cpu);
	sched_setattr_nocheck(t, &fifo99);
	wake_up_process(t);
	wait_for_completion(&b9->done);
	kthread_stop(t);
	put_task_struct(t);

	b9_n_label(b9->n, n, sizeof(n));
	bench_samples_sort(&b9->late);
	b9_line(n, "arm_ns", arm_ns);
	b9_line(n, "irq_stolen_ns_per_s", b9->spun ?
		div64_s64(b9->stolen * NSEC_PER_SEC, b9->spun) : -1);
	b9_line(n, "irq_gap_max_ns", b9->gap_max);
	/* the window: the per-jiffy timer ran in every jiffy of the spin */
	b9_line(n, "tick_runs_pct", b9->spin_ticks * 100 / b9->spin_jiffies);
	b9_line(n, "sleep_late_p99_ns", bench_pct(&b9->late, 990));
	b9_line(n, "sleep_late_max_ns", bench_pct(&b9->late, 1000));
	return;
nomem:
	pr_err("SI_BENCH_ERROR B9: out of memory for %u timers\n", scale_n);
	bench_b9_release();
}

/* At unload: the timers go, and none of the far ones may have fired. */
void bench_b9_release(void)
{
	struct si_timer *st;
	struct timer_list *tl;
	unsigned int i;

	if (!b9)
		return;
	if (b9->timers) {
		WRITE_ONCE(b9->stop, true);
		if (b9->tick.fn) {
			bench_timer_cancel_sync(&b9->tick);
			/* a callback that re-armed just before the flag */
			bench_timer_cancel_sync(&b9->tick);
		}
		st = b9->timers;
		tl = b9->timers;
		for (i = 0; i < b9->n; i++) {
			if (b9->peer == P_SI)
				si_timer_delete_sync(&st[i]);
			else
				timer_delete_sync(&tl[i]);
		}
		if (b9->fired)
			pr_warn("SI_BENCH_WARN B9 %s: %u far timers fired (due 60 s out at the earliest)\n",
				bench_peer_key[b9->peer], b9->fired);
	}
	bench_samples_free(&b9->late);
	vfree(b9->timers);
	kfree(b9);
	b9 = NULL;
}
