// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: timer callbacks sharing data with hrtimer callbacks. A
 * soft-interruptible callback masks the TIMER vector only: soft hrtimers
 * (the HRTIMER softirq) may run in the middle of it on its CPU, unless it
 * also asks for SI_TIMER_MASK_HRTIMER.
 *   aud_hr_shared_fn - plain spin_lock() of a lock a soft hrtimer
 *                      callback takes                          mask_hrtimer
 *   aud_hr_pcpu_fn   - per-CPU data a soft hrtimer callback
 *                      touches                                  mask_hrtimer
 *   aud_hr_bh_fn     - the same lock, under spin_lock_bh()     safe
 *   aud_hr_hard_fn   - a lock of a HARD hrtimer callback, with
 *                      interrupts off                           safe
 *   aud_hr_soft_cb   - the soft hrtimer callback itself (what the
 *                      converter makes an si_hrtimer): it shares
 *                      with timer callbacks only                safe
 * The soft hrtimer's mode comes through a macro of the driver's.
 */
#include <linux/module.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#define AUD_HR_MODE HRTIMER_MODE_REL_PINNED_SOFT

struct aud_hr {
	spinlock_t shared_lock, bh_lock, hard_lock;
	struct timer_list shared_timer, pcpu_timer, bh_timer, hard_timer;
	struct hrtimer soft, hard;
	unsigned long __percpu *hits;
	unsigned long n;
};

static struct aud_hr aud_hr;

static enum hrtimer_restart aud_hr_soft_cb(struct hrtimer *t)
{
	struct aud_hr *h = container_of(t, struct aud_hr, soft);

	spin_lock(&h->shared_lock);
	h->n++;
	spin_unlock(&h->shared_lock);
	spin_lock(&h->bh_lock);
	h->n++;
	spin_unlock(&h->bh_lock);
	this_cpu_inc(*h->hits);
	hrtimer_forward_now(t, ms_to_ktime(1));
	return HRTIMER_RESTART;
}

static enum hrtimer_restart aud_hr_hard_cb(struct hrtimer *t)
{
	struct aud_hr *h = container_of(t, struct aud_hr, hard);

	spin_lock(&h->hard_lock);
	h->n++;
	spin_unlock(&h->hard_lock);
	return HRTIMER_NORESTART;
}

static void aud_hr_shared_fn(struct timer_list *t)
{
	struct aud_hr *h = from_timer(h, t, shared_timer);

	spin_lock(&h->shared_lock);
	h->n++;
	spin_unlock(&h->shared_lock);
}

static void aud_hr_pcpu_fn(struct timer_list *t)
{
	struct aud_hr *h = from_timer(h, t, pcpu_timer);

	this_cpu_add(*h->hits, 2);
}

static void aud_hr_bh_fn(struct timer_list *t)
{
	struct aud_hr *h = from_timer(h, t, bh_timer);

	spin_lock_bh(&h->bh_lock);
	h->n++;
	spin_unlock_bh(&h->bh_lock);
}

static void aud_hr_hard_fn(struct timer_list *t)
{
	struct aud_hr *h = from_timer(h, t, hard_timer);
	unsigned long flags;

	spin_lock_irqsave(&h->hard_lock, flags);
	h->n++;
	spin_unlock_irqrestore(&h->hard_lock, flags);
}

static int __init aud_init(void)
{
	struct aud_hr *h = &aud_hr;

	h->hits = alloc_percpu(unsigned long);
	if (!h->hits)
		return -ENOMEM;
	spin_lock_init(&h->shared_lock);
	spin_lock_init(&h->bh_lock);
	spin_lock_init(&h->hard_lock);
	hrtimer_init(&h->soft, CLOCK_MONOTONIC, AUD_HR_MODE);
	h->soft.function = aud_hr_soft_cb;
	hrtimer_init(&h->hard, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	h->hard.function = aud_hr_hard_cb;
	timer_setup(&h->shared_timer, aud_hr_shared_fn, 0);
	timer_setup(&h->pcpu_timer, aud_hr_pcpu_fn, 0);
	timer_setup(&h->bh_timer, aud_hr_bh_fn, 0);
	timer_setup(&h->hard_timer, aud_hr_hard_fn, 0);
	hrtimer_start(&h->soft, ms_to_ktime(1), AUD_HR_MODE);
	hrtimer_start(&h->hard, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	mod_timer(&h->shared_timer, jiffies + 1);
	return 0;
}

static void __exit aud_exit(void)
{
	struct aud_hr *h = &aud_hr;

	hrtimer_cancel(&h->soft);
	hrtimer_cancel(&h->hard);
	timer_shutdown_sync(&h->shared_timer);
	timer_shutdown_sync(&h->pcpu_timer);
	timer_shutdown_sync(&h->bh_timer);
	timer_shutdown_sync(&h->hard_timer);
	free_percpu(h->hits);
}

module_init(aud_init);
module_exit(aud_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: timer callbacks and hrtimer callbacks");
