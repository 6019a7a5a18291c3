// SPDX-License-Identifier: GPL-2.0
/*
 * Migration sample: a driver's own SOFT hrtimer, in a structure it
 * defines, periodic (forward + HRTIMER_RESTART) until it has ticked @want
 * times; the callback only touches atomics (audit verdict: safe). The
 * converter makes it an si_hrtimer in compatible mode, run on the
 * executors. Written for hrtimer_setup() (6.13+): only the converted copy
 * is built, for every kernel of the DKMS test.
 */
#include <linux/module.h>
#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/sched.h>

static int fired;
module_param(fired, int, 0444);
static int want = 5;
module_param(want, int, 0444);
static char ran_on[TASK_COMM_LEN];
module_param_string(ran_on, ran_on, sizeof(ran_on), 0444);

struct mig_hr_dev {
	struct hrtimer tick;
	atomic_t ticks;
};

static struct mig_hr_dev mig_hr_dev;

static enum hrtimer_restart mig_hr_fn(struct hrtimer *t)
{
	struct mig_hr_dev *d = container_of(t, struct mig_hr_dev, tick);
	int n = atomic_inc_return(&d->ticks);

	get_task_comm(ran_on, current);
	WRITE_ONCE(fired, n);
	if (n >= want)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ms_to_ktime(2));
	return HRTIMER_RESTART;
}

static int __init mig_init(void)
{
	hrtimer_setup(&mig_hr_dev.tick, mig_hr_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	hrtimer_start(&mig_hr_dev.tick, ms_to_ktime(2), HRTIMER_MODE_REL_SOFT);
	return 0;
}

static void __exit mig_exit(void)
{
	hrtimer_cancel(&mig_hr_dev.tick);
}

module_init(mig_init);
module_exit(mig_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("migration sample: a periodic SOFT hrtimer");
