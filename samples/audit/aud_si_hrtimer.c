// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: a converted driver, with si_hrtimers and si_timer flags.
 * si_hrtimer callbacks are audited as si_timer callbacks are; one in
 * compatible mode counts as soft hrtimer code for the others (it stands
 * for the soft hrtimer it replaced).
 *   aud_sih_frame_fn  - si_hrtimer, a lock a tasklet takes        needs_bh
 *   aud_sih_poll_fn   - si_timer, a lock aud_sih_frame_fn (an
 *                       si_hrtimer in compatible mode) takes      mask_hrtimer
 *   aud_sih_kick_fn   - si_hrtimer, opted in, a lock a soft
 *                       hrtimer callback takes                    mask_hrtimer
 *   aud_sih_masked_fn - si_timer opted in with
 *                       SI_TIMER_MASK_HRTIMER, the same kind of
 *                       lock                                      safe
 *   aud_sih_kern_cb   - the soft hrtimer callback: its locks are
 *                       shared with executor callbacks only       safe
 *   aud_sih_stop_fn   - si_hrtimer cancelled from a NAPI poll     review
 *   aud_sih_irq_fn    - si_hrtimer cancelled from an irq handler  review
 */
#include <linux/module.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <si_hrtimer.h>

struct aud_sih {
	spinlock_t tx_lock, compat_lock, kern_lock, masked_lock;
	struct si_hrtimer frame, kick, stop, irq_t;
	struct si_timer poll, masked;
	struct hrtimer kern;
	struct tasklet_struct tasklet;
	struct napi_struct napi;
	struct net_device *ndev;
	unsigned long n;
};

static struct aud_sih aud_sih;

static enum hrtimer_restart aud_sih_frame_fn(struct si_hrtimer *t)
{
	struct aud_sih *s = container_of(t, struct aud_sih, frame);

	spin_lock(&s->tx_lock);
	s->n++;
	spin_unlock(&s->tx_lock);
	spin_lock(&s->compat_lock);
	s->n++;
	spin_unlock(&s->compat_lock);
	si_hrtimer_forward_now(t, ms_to_ktime(1));
	return HRTIMER_RESTART;
}

static void aud_sih_tasklet_fn(struct tasklet_struct *tl)
{
	struct aud_sih *s = from_tasklet(s, tl, tasklet);

	spin_lock(&s->tx_lock);
	s->n++;
	spin_unlock(&s->tx_lock);
}

static void aud_sih_poll_fn(struct si_timer *t)
{
	struct aud_sih *s = si_timer_container_of(s, t, poll);

	spin_lock(&s->compat_lock);
	s->n++;
	spin_unlock(&s->compat_lock);
}

static enum hrtimer_restart aud_sih_kern_cb(struct hrtimer *t)
{
	struct aud_sih *s = container_of(t, struct aud_sih, kern);

	spin_lock(&s->kern_lock);
	s->n++;
	spin_unlock(&s->kern_lock);
	spin_lock(&s->masked_lock);
	s->n++;
	spin_unlock(&s->masked_lock);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart aud_sih_kick_fn(struct si_hrtimer *t)
{
	struct aud_sih *s = container_of(t, struct aud_sih, kick);

	spin_lock(&s->kern_lock);
	s->n++;
	spin_unlock(&s->kern_lock);
	return HRTIMER_NORESTART;
}

static void aud_sih_masked_fn(struct si_timer *t)
{
	struct aud_sih *s = si_timer_container_of(s, t, masked);

	spin_lock(&s->masked_lock);
	s->n++;
	spin_unlock(&s->masked_lock);
}

static enum hrtimer_restart aud_sih_stop_fn(struct si_hrtimer *t)
{
	struct aud_sih *s = container_of(t, struct aud_sih, stop);

	WRITE_ONCE(s->n, 0);
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart aud_sih_irq_fn(struct si_hrtimer *t)
{
	struct aud_sih *s = container_of(t, struct aud_sih, irq_t);

	WRITE_ONCE(s->n, 1);
	return HRTIMER_NORESTART;
}

static int aud_sih_napi_poll(struct napi_struct *napi, int budget)
{
	struct aud_sih *s = container_of(napi, struct aud_sih, napi);

	si_hrtimer_cancel(&s->stop);
	napi_complete_done(napi, 0);
	return 0;
}

static irqreturn_t aud_sih_irq(int irq, void *data)
{
	struct aud_sih *s = data;

	si_hrtimer_cancel(&s->irq_t);
	return IRQ_HANDLED;
}

static int __init aud_init(void)
{
	struct aud_sih *s = &aud_sih;

	spin_lock_init(&s->tx_lock);
	spin_lock_init(&s->compat_lock);
	spin_lock_init(&s->kern_lock);
	spin_lock_init(&s->masked_lock);
	tasklet_setup(&s->tasklet, aud_sih_tasklet_fn);
	if (s->ndev)
		netif_napi_add(s->ndev, &s->napi, aud_sih_napi_poll);
	si_hrtimer_setup(&s->frame, aud_sih_frame_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT, 0);
	si_hrtimer_setup(&s->kick, aud_sih_kick_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL,
			 SI_TIMER_SOFTINTERRUPTIBLE);
	si_hrtimer_setup(&s->stop, aud_sih_stop_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL, 0);
	si_hrtimer_setup(&s->irq_t, aud_sih_irq_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL, 0);
	si_timer_setup(&s->poll, aud_sih_poll_fn, SI_TIMER_SOFTINTERRUPTIBLE);
	si_timer_setup(&s->masked, aud_sih_masked_fn,
		       SI_TIMER_SOFTINTERRUPTIBLE | SI_TIMER_MASK_HRTIMER);
	hrtimer_init(&s->kern, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	s->kern.function = aud_sih_kern_cb;
	if (request_irq(0, aud_sih_irq, IRQF_SHARED, "aud_sih", s))
		return -EBUSY;
	si_hrtimer_start(&s->frame, ms_to_ktime(1), HRTIMER_MODE_REL);
	hrtimer_start(&s->kern, ms_to_ktime(1), HRTIMER_MODE_REL_SOFT);
	return 0;
}

static void __exit aud_exit(void)
{
	struct aud_sih *s = &aud_sih;

	free_irq(0, s);
	hrtimer_cancel(&s->kern);
	si_hrtimer_cancel(&s->frame);
	si_hrtimer_cancel(&s->kick);
	si_hrtimer_cancel(&s->stop);
	si_hrtimer_cancel(&s->irq_t);
	si_timer_shutdown_sync(&s->poll);
	si_timer_shutdown_sync(&s->masked);
	tasklet_kill(&s->tasklet);
}

module_init(aud_init);
module_exit(aud_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: si_hrtimer callbacks and SI_TIMER_MASK_HRTIMER");
