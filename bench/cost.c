// SPDX-License-Identifier: GPL-2.0
/*
 * Cost benchmarks:
 * B3 arm + cancel, re-arm of a pending timer, cancel of an idle one, per
 *    operation (meant for -icount, where the clock counts instructions),
 *    and memory per timer;
 * B5 10,000 timers due in one jiffy on bench_cpu, and 1,000,000 (QUICK:
 *    10,000) timers over every CPU, each of which must fire exactly once.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include "bench.h"

#define COST_PEERS	(BIT(P_SI) | BIT(P_CLASSIC) | BIT(P_KDW) | BIT(P_DW))

static void bench_nop(struct bench_timer *bt)
{
}

enum cost_op { OP_ARM_CANCEL, OP_MOD_PENDING, OP_CANCEL_IDLE, NR_OPS };
static const char *const cost_metric[NR_OPS] = {
	"arm_cancel_ns", "mod_pending_ns", "cancel_idle_ns",
};

static void bench_cancel(struct bench_timer *bt)
{
	switch (bt->peer) {
	case P_SI:
	case P_COMPAT:
		si_timer_delete(&bt->si);
		break;
	case P_CLASSIC:
		timer_delete(&bt->tl);
		break;
	case P_KDW:	/* kthread_delayed_work has no asynchronous cancel */
		kthread_cancel_delayed_work_sync(&bt->kdw);
		break;
	case P_DW:
		cancel_delayed_work(&bt->dw);
		break;
	default:
		break;
	}
}

/* Mean ns per operation @op over @n rounds, best of 5 runs. */
static s64 bench_cost(struct bench_timer *bt, enum cost_op op, unsigned int n)
{
	unsigned long far = jiffies + 100 * HZ;
	s64 best = S64_MAX;
	int run;

	for (run = 0; run < 5; run++) {
		unsigned int i;
		u64 t0;

		if (op == OP_MOD_PENDING)
			bench_timer_arm(bt, far);
		t0 = ktime_get_ns();
		for (i = 0; i < n; i++) {
			switch (op) {
			case OP_ARM_CANCEL:
				bench_timer_arm(bt, far);
				bench_cancel(bt);
				break;
			case OP_MOD_PENDING:
				/* alternate, so that no call is a no-op */
				bench_timer_arm(bt, far + (i & 1));
				break;
			case OP_CANCEL_IDLE:
				bench_cancel(bt);
				break;
			default:
				break;
			}
		}
		best = min_t(s64, best, (ktime_get_ns() - t0) / n);
		bench_timer_cancel_sync(bt);
	}
	return best;
}

void bench_b3(void)
{
	unsigned int n = bench_quick ? 100 : 10000;
	s64 val[NR_OPS][NR_PEERS] = {}, mem[NR_PEERS] = {};
	struct bench_timer *bt;
	int p, op;

	bt = kzalloc(sizeof(*bt), GFP_KERNEL);
	if (!bt)
		return;
	set_cpus_allowed_ptr(current, cpumask_of(bench_cpu));
	for (p = 0; p < NR_PEERS; p++) {
		if (!(COST_PEERS & BIT(p)))
			continue;
		bench_timer_init(bt, p, bench_nop);
		for (op = 0; op < NR_OPS; op++)
			val[op][p] = bench_cost(bt, op, n);
	}
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	kfree(bt);
	for (op = 0; op < NR_OPS; op++)
		bench_line("B3", cost_metric[op], val[op], COST_PEERS);
	/* Nothing is allocated per timer by any of them: sizeof is all. */
	mem[P_SI] = sizeof(struct si_timer);
	mem[P_CLASSIC] = sizeof(struct timer_list);
	mem[P_KDW] = sizeof(struct kthread_delayed_work);
	mem[P_DW] = sizeof(struct delayed_work);
	bench_line("B3", "mem_bytes", mem, COST_PEERS);
}

/* --- B5: many timers --- */

struct bench_many {
	atomic_t left;
	atomic_t started;
	struct completion all;
	s64 first_start, last_done;
};

static struct bench_many many;

static void bench_many_fn(struct bench_timer *bt)
{
	if (atomic_inc_return(&many.started) == 1)
		many.first_start = ktime_get_ns();
	if (atomic_dec_and_test(&many.left)) {
		many.last_done = ktime_get_ns();
		complete(&many.all);
	}
}

/*
 * Time from the due tick until the last of @n callbacks returned, in us;
 * @first: until the first one started (for si_timer: its executor's
 * wake-up queues them, 64 from the interrupt, the rest from the thread).
 */
static s64 bench_same_jiffy(enum bench_peer p, struct bench_timer *bt,
			    unsigned int n, s64 *first)
{
	unsigned long j;
	unsigned int i;
	s64 due, us = -1;

	for (i = 0; i < n; i++)
		bench_timer_init(&bt[i], p, bench_many_fn);
	atomic_set(&many.left, n);
	atomic_set(&many.started, 0);
	reinit_completion(&many.all);
	/* arm 5 ticks ahead: arming 10,000 must end before they are due */
	due = bench_jiffy_edge(&j) + 6 * TICK_NSEC;	/* rounded up: see latency.c */
	for (i = 0; i < n; i++)
		bench_timer_arm(&bt[i], j + 5);
	if (wait_for_completion_timeout(&many.all, 60 * HZ)) {
		us = (many.last_done - due) / NSEC_PER_USEC;
		*first = (many.first_start - due) / NSEC_PER_USEC;
	} else {
		pr_warn("SI_BENCH_WARN B5 %s: %d of %u callbacks missing after 60 s\n",
			bench_peer_key[p], atomic_read(&many.left), n);
	}
	for (i = 0; i < n; i++)
		bench_timer_cancel_sync(&bt[i]);
	return us;
}

/* 1,000,000 timers over every CPU, each firing once. */
struct bench_mass {
	enum bench_peer peer;
	unsigned int n;
	void *timers;
	u8 *fired;
	atomic_t left;
	atomic64_t arm_ns;
	struct completion all;
	s64 first_due, last_done;
	unsigned long base;
};

static struct bench_mass mass;

static void bench_mass_hit(unsigned int i)
{
	mass.fired[i]++;
	if (atomic_dec_and_test(&mass.left)) {
		mass.last_done = ktime_get_ns();
		complete(&mass.all);
	}
}

static void bench_mass_si_fn(struct si_timer *t)
{
	bench_mass_hit(t - (struct si_timer *)mass.timers);
}

static void bench_mass_tl_fn(struct timer_list *t)
{
	bench_mass_hit(t - (struct timer_list *)mass.timers);
}

struct bench_mass_share {
	struct work_struct work;
	unsigned int idx;
};

/* Set up and arm this CPU's share (i % nr_cpus == its index), pinned here. */
static void bench_mass_arm(struct work_struct *w)
{
	unsigned int idx = container_of(w, struct bench_mass_share, work)->idx;
	unsigned int stride = num_online_cpus(), i;
	struct si_timer *st = mass.timers;
	struct timer_list *tl = mass.timers;
	u64 t0;

	for (i = idx; i < mass.n; i += stride) {
		if (mass.peer == P_SI)
			si_timer_setup(&st[i], bench_mass_si_fn,
				       SI_TIMER_PINNED | SI_TIMER_SOFTINTERRUPTIBLE);
		else
			timer_setup(&tl[i], bench_mass_tl_fn, TIMER_PINNED);
	}
	/* due over 100 jiffies, once every CPU is done arming */
	t0 = ktime_get_ns();
	for (i = idx; i < mass.n; i += stride) {
		if (mass.peer == P_SI)
			si_mod_timer(&st[i], mass.base + i % 100);
		else
			mod_timer(&tl[i], mass.base + i % 100);
	}
	atomic64_add(ktime_get_ns() - t0, &mass.arm_ns);
}

/* Fills arm ns/timer, ms from first due to last callback, and timers fired exactly once. */
static void bench_mass_run(enum bench_peer p, unsigned int n, s64 *arm_ns,
			   s64 *fire_ms, s64 *once)
{
	size_t sz = p == P_SI ? sizeof(struct si_timer) : sizeof(struct timer_list);
	struct bench_mass_share *share = NULL;
	unsigned int i, idx = 0, cpu;
	s64 good = 0;

	mass.peer = p;
	mass.n = n;
	mass.timers = vzalloc(array_size(n, sz));
	mass.fired = vzalloc(n);
	share = kcalloc(nr_cpu_ids, sizeof(*share), GFP_KERNEL);
	if (!mass.timers || !mass.fired || !share)
		goto out;
	atomic_set(&mass.left, n);
	atomic64_set(&mass.arm_ns, 0);
	init_completion(&mass.all);
	/* 1 jiffy per 1,000 timers: the arming ends before the first is due */
	mass.base = jiffies + 50 + n / 1000;
	mass.first_due = ktime_get_ns() + (mass.base - jiffies + 1) * TICK_NSEC;
	for_each_online_cpu(cpu) {
		INIT_WORK(&share[cpu].work, bench_mass_arm);
		share[cpu].idx = idx++;
		queue_work_on(cpu, system_highpri_wq, &share[cpu].work);
	}
	for_each_online_cpu(cpu)
		flush_work(&share[cpu].work);
	*arm_ns = atomic64_read(&mass.arm_ns) / n;
	if (!wait_for_completion_timeout(&mass.all, 300 * HZ))
		pr_warn("SI_BENCH_WARN B5 %s: %d of %u timers did not fire in 300 s\n",
			bench_peer_key[p], atomic_read(&mass.left), n);
	else
		*fire_ms = (mass.last_done - mass.first_due) / NSEC_PER_MSEC;
	msleep(100);	/* a second expiry would show by now */
	for (i = 0; i < n; i++) {
		if (p == P_SI)
			si_timer_delete_sync((struct si_timer *)mass.timers + i);
		else
			timer_delete_sync((struct timer_list *)mass.timers + i);
		good += mass.fired[i] == 1;
	}
	*once = good;
out:
	kfree(share);
	vfree(mass.fired);
	vfree(mass.timers);
	mass.timers = NULL;
	mass.fired = NULL;
}

/* 10,000 timers due in one jiffy on bench_cpu; lines "<prefix>same_jiffy_*". */
static void bench_b5_same(const char *prefix)
{
	static const enum bench_peer peers[] = { P_CLASSIC, P_SI, P_COMPAT, P_KDW, P_DW };
	unsigned int n = bench_quick ? 1000 : 10000, have = 0;
	s64 us[NR_PEERS] = {}, first[NR_PEERS] = {}, num[NR_PEERS] = {};
	struct bench_timer *bt;
	char metric[48];
	int i;

	bt = vzalloc(array_size(n, sizeof(*bt)));
	if (!bt)
		return;
	init_completion(&many.all);
	set_cpus_allowed_ptr(current, cpumask_of(bench_cpu));
	for (i = 0; i < ARRAY_SIZE(peers); i++) {
		us[peers[i]] = bench_same_jiffy(peers[i], bt, n, &first[peers[i]]);
		num[peers[i]] = n;
		have |= BIT(peers[i]);
	}
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	vfree(bt);
	snprintf(metric, sizeof(metric), "%ssame_jiffy_timers", prefix);
	bench_line("B5", metric, num, have);
	snprintf(metric, sizeof(metric), "%ssame_jiffy_us", prefix);
	bench_line("B5", metric, us, have);
	snprintf(metric, sizeof(metric), "%ssame_jiffy_first_us", prefix);
	bench_line("B5", metric, first, have);
}

void bench_b5(void)
{
	unsigned int n_mass = bench_quick ? 2000 : 1000000;
	unsigned int mhave = BIT(P_SI) | BIT(P_CLASSIC);
	s64 arm[NR_PEERS] = {}, fire[NR_PEERS] = {};
	s64 once[NR_PEERS] = {}, num[NR_PEERS] = {};
	int i;

	bench_b5_same("");
	for (i = 0; i < NR_PEERS; i++)
		if (mhave & BIT(i)) {
			bench_mass_run(i, n_mass, &arm[i], &fire[i], &once[i]);
			num[i] = n_mass;
		}
	bench_line("B5", "mass_timers", num, mhave);
	bench_line("B5", "mass_arm_ns", arm, mhave);
	bench_line("B5", "mass_fire_all_ms", fire, mhave);
	bench_line("B5", "mass_fired_once", once, mhave);
}

/* The same-jiffy part alone, for an -icount boot: what each phase costs. */
void bench_b5_icount(void)
{
	bench_b5_same("icount_");
}
