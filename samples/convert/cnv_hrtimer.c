// SPDX-License-Identifier: GPL-2.0
/*
 * Converter sample: soft hrtimers, set up the 6.13+ way (hrtimer_setup()).
 *   frame  SOFT, set up in two places (probe, resume)  -> si_hrtimer
 *   tick   plain mode (hardirq off PREEMPT_RT)         -> stays, not listed
 *   hard   HRTIMER_MODE_ABS_HARD                        -> stays, not listed
 *   rearm  SOFT, its callback hands its parameter
 *          to a helper                                  -> stays, listed
 * frame is also armed under scoped_guard(), which Coccinelle parses only
 * with the kit's macro file (scripts/coccinelle/).
 * Builds against kernels with hrtimer_setup() and timer_container_of()
 * (6.16 and later).
 */
#include <linux/module.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

struct cnv_hr6_dev {
	spinlock_t lock;
	struct hrtimer frame;
	struct hrtimer tick;
	struct hrtimer hard;
	struct hrtimer rearm;
	unsigned int frames;
};

static struct cnv_hr6_dev *cnv_hr6;

static enum hrtimer_restart cnv_hr6_frame_fn(struct hrtimer *t)
{
	struct cnv_hr6_dev *dev = timer_container_of(dev, t, frame);
	unsigned long flags;

	spin_lock_irqsave(&dev->lock, flags);
	dev->frames++;
	spin_unlock_irqrestore(&dev->lock, flags);
	if (hrtimer_is_queued(&dev->tick))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(NSEC_PER_MSEC));
	return HRTIMER_RESTART;
}

static enum hrtimer_restart cnv_hr6_tick_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart cnv_hr6_hard_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static void cnv_hr6_again(struct hrtimer *t)
{
	hrtimer_forward_now(t, ns_to_ktime(NSEC_PER_MSEC));
}

static enum hrtimer_restart cnv_hr6_rearm_fn(struct hrtimer *t)
{
	cnv_hr6_again(t);
	return HRTIMER_RESTART;
}

static void cnv_hr6_resume(struct cnv_hr6_dev *dev)
{
	hrtimer_setup(&dev->frame, cnv_hr6_frame_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	scoped_guard(spinlock_irqsave, &dev->lock)
		hrtimer_start(&dev->frame, ns_to_ktime(0), HRTIMER_MODE_REL_SOFT);
}

static int __init cnv_hr6_init(void)
{
	struct cnv_hr6_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL);

	if (!dev)
		return -ENOMEM;
	cnv_hr6 = dev;
	spin_lock_init(&dev->lock);
	hrtimer_setup(&dev->frame, cnv_hr6_frame_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	hrtimer_setup(&dev->tick, cnv_hr6_tick_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	hrtimer_setup(&dev->hard, cnv_hr6_hard_fn, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_HARD);
	hrtimer_setup(&dev->rearm, cnv_hr6_rearm_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	hrtimer_start(&dev->tick, ms_to_ktime(1), HRTIMER_MODE_REL);
	hrtimer_start(&dev->rearm, ms_to_ktime(1), HRTIMER_MODE_REL_SOFT);
	cnv_hr6_resume(dev);
	return 0;
}

static void __exit cnv_hr6_exit(void)
{
	struct cnv_hr6_dev *dev = cnv_hr6;

	hrtimer_cancel(&dev->frame);
	hrtimer_cancel(&dev->tick);
	hrtimer_cancel(&dev->hard);
	hrtimer_cancel(&dev->rearm);
	kfree(dev);
}

module_init(cnv_hr6_init);
module_exit(cnv_hr6_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("converter sample: soft hrtimers, hrtimer_setup()");
