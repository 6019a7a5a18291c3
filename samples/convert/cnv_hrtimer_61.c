// SPDX-License-Identifier: GPL-2.0
/*
 * Converter sample: soft hrtimers, set up the 6.1 way (hrtimer_init(), then
 * .function). What the converter must do with each:
 *   poll, cnv_hr_global  SOFT, the driver's own    -> si_hrtimer, every call
 *   tick, tock           SOFT, one callback          -> si_hrtimer, together
 *   watchdog             plain mode (hardirq off RT) -> stays, not listed
 *   kick                 SOFT, handed to cnv_hr_arm() -> stays, listed
 *   moded                mode through a macro        -> stays, listed
 *   soft_twin, hard_twin one callback, SOFT and hard -> both stay, listed
 *   tp->pacing_timer     struct tcp_sock's (kernel)  -> stays, listed
 *   sub.slot             SOFT, in a nested struct; its callback's
 *                        container_of() names sub.slot -> si_hrtimer
 *   once                 SOFT, on the stack               -> si_hrtimer, on-stack setup
 */
#include <linux/module.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/tcp.h>

#define CNV_HR_MODE HRTIMER_MODE_REL_SOFT

struct cnv_hr_sub {
	struct hrtimer slot;
	unsigned int slots;
};

struct cnv_hr_dev {
	struct hrtimer poll;
	struct hrtimer watchdog;
	struct hrtimer kick;
	struct hrtimer tick, tock;
	struct hrtimer moded;
	struct hrtimer soft_twin;
	struct hrtimer hard_twin;
	struct tcp_sock *tp;
	struct cnv_hr_sub sub;
	ktime_t period;
	unsigned long n;
};

static struct cnv_hr_dev *cnv_hr;
static struct hrtimer cnv_hr_global;

static enum hrtimer_restart cnv_hr_poll_fn(struct hrtimer *t);

static enum hrtimer_restart cnv_hr_poll_fn(struct hrtimer *t)
{
	struct cnv_hr_dev *dev = container_of(t, struct cnv_hr_dev, poll);

	dev->n++;
	if (hrtimer_is_queued(&dev->watchdog))
		return HRTIMER_NORESTART;
	hrtimer_forward(t, hrtimer_cb_get_time(t), dev->period);
	return HRTIMER_RESTART;
}

static enum hrtimer_restart cnv_hr_global_fn(struct hrtimer *t)
{
	hrtimer_forward_now(t, ms_to_ktime(10));
	return HRTIMER_RESTART;
}

static enum hrtimer_restart cnv_hr_slot_fn(struct hrtimer *t)
{
	struct cnv_hr_dev *dev = container_of(t, struct cnv_hr_dev,
					      sub.slot);

	dev->sub.slots++;
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart cnv_hr_ticktock_fn(struct hrtimer *t)
{
	pr_debug("tick or tock %p\n", t);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart cnv_hr_watchdog_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart cnv_hr_kick_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart cnv_hr_moded_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart cnv_hr_twin_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart cnv_hr_pace_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart cnv_hr_once_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static void cnv_hr_wait_once(void)
{
	struct hrtimer once;

	hrtimer_init_on_stack(&once, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	once.function = cnv_hr_once_fn;
	hrtimer_start(&once, ms_to_ktime(1), HRTIMER_MODE_REL_SOFT);
	hrtimer_cancel(&once);
	destroy_hrtimer_on_stack(&once);
}

/* Takes a struct hrtimer *: the timer handed to it stays an hrtimer. */
static void cnv_hr_arm(struct hrtimer *t, ktime_t in)
{
	hrtimer_start(t, in, HRTIMER_MODE_REL_SOFT);
}

static int __init cnv_hr_init(void)
{
	struct cnv_hr_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL);

	if (!dev)
		return -ENOMEM;
	cnv_hr = dev;
	dev->period = ms_to_ktime(10);
	hrtimer_init(&dev->poll, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	dev->poll.function = cnv_hr_poll_fn;
	hrtimer_init(&dev->watchdog, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	dev->watchdog.function = cnv_hr_watchdog_fn;
	hrtimer_init(&dev->kick, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	dev->kick.function = cnv_hr_kick_fn;
	hrtimer_init(&dev->tick, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
	dev->tick.function = cnv_hr_ticktock_fn;
	hrtimer_init(&dev->tock, CLOCK_BOOTTIME, HRTIMER_MODE_ABS_SOFT);
	dev->tock.function = cnv_hr_ticktock_fn;
	hrtimer_init(&dev->moded, CLOCK_MONOTONIC, CNV_HR_MODE);
	dev->moded.function = cnv_hr_moded_fn;
	hrtimer_init(&dev->soft_twin, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	dev->soft_twin.function = cnv_hr_twin_fn;
	hrtimer_init(&dev->hard_twin, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	dev->hard_twin.function = cnv_hr_twin_fn;
	hrtimer_init(&dev->sub.slot, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	dev->sub.slot.function = cnv_hr_slot_fn;
	hrtimer_init(&cnv_hr_global, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	cnv_hr_global.function = cnv_hr_global_fn;
	if (dev->tp) {
		hrtimer_init(&dev->tp->pacing_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_SOFT);
		dev->tp->pacing_timer.function = cnv_hr_pace_fn;
	}

	hrtimer_start(&dev->poll, dev->period, HRTIMER_MODE_REL_SOFT);
	hrtimer_start_range_ns(&dev->tick, ms_to_ktime(5), NSEC_PER_MSEC, HRTIMER_MODE_REL_PINNED_SOFT);
	hrtimer_set_expires(&dev->tock, ktime_add(ktime_get_boottime(), dev->period));
	hrtimer_start_expires(&dev->tock, HRTIMER_MODE_ABS_SOFT);
	hrtimer_start(&dev->watchdog, ms_to_ktime(100), HRTIMER_MODE_REL);
	hrtimer_start(&dev->moded, ms_to_ktime(1), CNV_HR_MODE);
	cnv_hr_arm(&dev->kick, ms_to_ktime(1));
	cnv_hr_wait_once();
	hrtimer_start(&cnv_hr_global, ktime_add(hrtimer_get_expires(&dev->poll), dev->period),
		      HRTIMER_MODE_ABS_SOFT);
	return 0;
}

static void __exit cnv_hr_exit(void)
{
	struct cnv_hr_dev *dev = cnv_hr;

	if (hrtimer_active(&dev->poll) && !hrtimer_callback_running(&dev->poll))
		hrtimer_try_to_cancel(&dev->poll);
	hrtimer_cancel(&dev->poll);
	hrtimer_cancel(&dev->tick);
	hrtimer_cancel(&dev->tock);
	hrtimer_cancel(&dev->watchdog);
	hrtimer_cancel(&dev->kick);
	hrtimer_cancel(&dev->moded);
	hrtimer_cancel(&dev->soft_twin);
	hrtimer_cancel(&dev->hard_twin);
	hrtimer_cancel(&cnv_hr_global);
	hrtimer_cancel(&dev->sub.slot);
	kfree(dev);
}

module_init(cnv_hr_init);
module_exit(cnv_hr_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("converter sample: soft hrtimers, 6.1 style");
