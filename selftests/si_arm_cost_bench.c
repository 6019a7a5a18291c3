// SPDX-License-Identifier: GPL-2.0
/*
 * What arming and cancelling cost: rounds of 100k si_mod_timer() +
 * si_timer_delete() pairs against the same with a classic timer_list,
 * interleaved, in one boot. Not part of the suite (timings belong to
 * benchmarks): SI_TESTS=si_arm_cost_bench, best under QEMU's instruction
 * counter (SI_QEMU_ARGS="-icount shift=0,sleep=off"), where a nanosecond
 * is an instruction.
 */
#include <linux/module.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/preempt.h>
#include <linux/timer.h>
#include <si_timer.h>
#include "si_test.h"

#define PAIRS	100000
#define ROUNDS	5

static struct si_timer si_t;
static struct timer_list classic_t;

static void si_fn(struct si_timer *t)
{
}

static void classic_fn(struct timer_list *t)
{
}

/* ns per arm + cancel pair, timers armed 60 s out so none expires. */
static u64 si_pairs(void)
{
	u64 t0 = ktime_get_ns();
	int i;

	for (i = 0; i < PAIRS; i++) {
		si_mod_timer(&si_t, jiffies + 60 * HZ + (i & 1));
		si_timer_delete(&si_t);
	}
	return div_u64(ktime_get_ns() - t0, PAIRS);
}

static u64 classic_pairs(void)
{
	u64 t0 = ktime_get_ns();
	int i;

	for (i = 0; i < PAIRS; i++) {
		mod_timer(&classic_t, jiffies + 60 * HZ + (i & 1));
		timer_delete(&classic_t);
	}
	return div_u64(ktime_get_ns() - t0, PAIRS);
}

SI_CHECKED(t_arm_cancel_cost)
{
	u64 si_best = U64_MAX, classic_best = U64_MAX;
	int r;

	si_test_timer_setup(&si_t, si_fn, 0);
	timer_setup(&classic_t, classic_fn, 0);
	for (r = 0; r < ROUNDS; r++) {
		u64 s, c;

		preempt_disable();
		s = si_pairs();
		c = classic_pairs();
		preempt_enable();
		si_diag("round %d: si_mod_timer+si_timer_delete %llu ns, classic %llu ns",
			r, s, c);
		si_best = min(si_best, s);
		classic_best = min(classic_best, c);
	}
	si_timer_delete_sync(&si_t);
	timer_delete_sync(&classic_t);
	si_diag("best of %d rounds of %d pairs: si %llu ns, classic %llu ns, ratio %llu.%02llu",
		ROUNDS, PAIRS, si_best, classic_best, div64_u64(si_best, classic_best),
		div64_u64(si_best * 100, classic_best) % 100);
	SI_CHECK(si_best && classic_best, "a round took no time: si %llu ns, classic %llu ns",
		 si_best, classic_best);
}

static const struct si_test tests[] = {
	SI_TEST(t_arm_cancel_cost),
};

static int __init bench_init(void)
{
	return si_ktap_run(tests, ARRAY_SIZE(tests));
}
module_init(bench_init);

static void __exit bench_exit(void)
{
}
module_exit(bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer arm + cancel cost against timer_list (benchmark, KTAP)");
