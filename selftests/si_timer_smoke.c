// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke test of the si_timer API, run by the harness on every kernel:
 * a timer fires on an executor, delete and re-arm return what timer_list's
 * do, and invalid flags give the one expected warning (which also checks
 * the harness's SI_EXPECT_WARN protocol end to end).
 */
#include <linux/module.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <si_timer.h>
#include "si_ktap.h"

static struct si_timer timer;
static DECLARE_COMPLETION(fired);
static char fired_comm[TASK_COMM_LEN];
static int fired_cpu;

static void smoke_fn(struct si_timer *t)
{
	get_task_comm(fired_comm, current);
	fired_cpu = raw_smp_processor_id();
	complete(&fired);
}

static int t_fires_on_executor(void)
{
	char want[TASK_COMM_LEN];

	reinit_completion(&fired);
	si_timer_setup(&timer, smoke_fn, 0);
	SI_EXPECT(si_mod_timer(&timer, jiffies + 1) == 0);
	SI_EXPECT(wait_for_completion_timeout(&fired, 10 * HZ));
	snprintf(want, sizeof(want), "si_timer/%d", fired_cpu);
	si_ktap_diag("callback ran in %s on CPU %d", fired_comm, fired_cpu);
	SI_EXPECT(strcmp(fired_comm, want) == 0);
	SI_EXPECT(!si_timer_pending(&timer));
	SI_EXPECT(si_timer_delete_sync(&timer) == 0);
	return SI_PASS;
}

static int t_delete_pending(void)
{
	si_timer_setup(&timer, smoke_fn, 0);
	SI_EXPECT(si_mod_timer(&timer, jiffies + 60 * HZ) == 0);
	SI_EXPECT(si_timer_pending(&timer));
	SI_EXPECT(si_mod_timer(&timer, jiffies + 60 * HZ) == 1);
	SI_EXPECT(si_timer_delete_sync(&timer) == 1);
	SI_EXPECT(!si_timer_pending(&timer));
	SI_EXPECT(si_timer_delete(&timer) == 0);
	return SI_PASS;
}

static int t_invalid_flags_warn(void)
{
	si_ktap_expect_warn("si_timer: invalid flags");
	si_timer_setup(&timer, smoke_fn, 0x2);
	SI_EXPECT(timer.flags == 0);
	SI_EXPECT(si_timer_delete_sync(&timer) == 0);
	return SI_PASS;
}

static const struct si_test tests[] = {
	SI_TEST(t_fires_on_executor),
	SI_TEST(t_delete_pending),
	SI_TEST(t_invalid_flags_warn),
};

static int __init smoke_init(void)
{
	return si_ktap_run(tests, ARRAY_SIZE(tests));
}
module_init(smoke_init);

static void __exit smoke_exit(void)
{
}
module_exit(smoke_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("si_timer smoke test (KTAP)");
