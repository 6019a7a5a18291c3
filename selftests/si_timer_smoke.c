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
#include "si_test.h"

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

SI_CHECKED(t_fires_on_executor)
{
	char want[TASK_COMM_LEN];
	int ret;

	reinit_completion(&fired);
	si_timer_setup(&timer, smoke_fn, 0);
	ret = si_mod_timer(&timer, jiffies + 1);
	SI_CHECK(ret == 0, "si_mod_timer of an idle timer returned %d", ret);
	if (!SI_CHECK(wait_for_completion_timeout(&fired, 10 * HZ),
		      "callback did not run within 10 s")) {
		si_timer_delete_sync(&timer);
		return;
	}
	snprintf(want, sizeof(want), "si_timer/%d", fired_cpu);
	si_diag("callback ran in %s on CPU %d", fired_comm, fired_cpu);
	SI_CHECK(strcmp(fired_comm, want) == 0, "ran in '%s', want '%s'", fired_comm, want);
	SI_CHECK(!si_timer_pending(&timer), "pending after its callback ran");
	ret = si_timer_delete_sync(&timer);
	SI_CHECK(ret == 0, "si_timer_delete_sync after the run returned %d", ret);
}

SI_CHECKED(t_delete_pending)
{
	int ret;

	si_timer_setup(&timer, smoke_fn, 0);
	ret = si_mod_timer(&timer, jiffies + 60 * HZ);
	SI_CHECK(ret == 0, "si_mod_timer of an idle timer returned %d", ret);
	SI_CHECK(si_timer_pending(&timer), "not pending after si_mod_timer");
	ret = si_mod_timer(&timer, jiffies + 60 * HZ);
	SI_CHECK(ret == 1, "si_mod_timer of a pending timer returned %d", ret);
	ret = si_timer_delete_sync(&timer);
	SI_CHECK(ret == 1, "si_timer_delete_sync of a pending timer returned %d", ret);
	SI_CHECK(!si_timer_pending(&timer), "pending after si_timer_delete_sync");
	ret = si_timer_delete(&timer);
	SI_CHECK(ret == 0, "si_timer_delete of an idle timer returned %d", ret);
}

SI_CHECKED(t_invalid_flags_warn)
{
	int ret;

	si_expect_warn("si_timer: invalid flags");
	si_timer_setup(&timer, smoke_fn, 0x4);
	SI_CHECK(timer.flags == 0, "flags %#x after set-up with invalid flags 0x4",
		 timer.flags);
	ret = si_timer_delete_sync(&timer);
	SI_CHECK(ret == 0, "si_timer_delete_sync of a never armed timer returned %d", ret);
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
