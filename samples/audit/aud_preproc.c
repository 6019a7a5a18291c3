// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: C that the audit's reader must see through. A
 * function-like #define right before a callback, and an if whose opening
 * brace is split across #ifdef/#else, used to hide every callback after
 * them ("0 callbacks"). Both callbacks take the device lock that the
 * tasklet takes; the second comes after a helper whose braces are split.
 * Verdicts: aud_pre_macro_fn needs_bh, aud_pre_ifdef_fn needs_bh.
 */
#include <linux/module.h>
#include <linux/interrupt.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct aud_pre {
	spinlock_t lock;	/* state; timers and tasklet */
	struct timer_list macro_timer;
	struct timer_list ifdef_timer;
	struct tasklet_struct tasklet;
	unsigned int state;
};

static struct aud_pre aud_pre;

static void aud_pre_tasklet_fn(struct tasklet_struct *t)
{
	struct aud_pre *p = from_tasklet(p, t, tasklet);

	spin_lock(&p->lock);
	p->state++;
	spin_unlock(&p->lock);
}

#define AUD_PRE_NEXT(p)	((p)->state + 1)
static void aud_pre_macro_fn(struct timer_list *t)
{
	struct aud_pre *p = from_timer(p, t, macro_timer);

	spin_lock(&p->lock);
	p->state = AUD_PRE_NEXT(p);
	spin_unlock(&p->lock);
}

static bool aud_pre_due(struct aud_pre *p)
{
#ifdef CONFIG_DEBUG_KERNEL
	if (p->state > 100) {
#else
	if (p->state > 1000) {
#endif
		return true;
	}
	return false;
}

static void aud_pre_ifdef_fn(struct timer_list *t)
{
	struct aud_pre *p = from_timer(p, t, ifdef_timer);

	if (aud_pre_due(p)) {
		spin_lock(&p->lock);
		p->state = 0;
		spin_unlock(&p->lock);
	}
}

static int __init aud_init(void)
{
	spin_lock_init(&aud_pre.lock);
	tasklet_setup(&aud_pre.tasklet, aud_pre_tasklet_fn);
	timer_setup(&aud_pre.macro_timer, aud_pre_macro_fn, 0);
	timer_setup(&aud_pre.ifdef_timer, aud_pre_ifdef_fn, 0);
	return 0;
}

static void __exit aud_exit(void)
{
	timer_shutdown_sync(&aud_pre.macro_timer);
	timer_shutdown_sync(&aud_pre.ifdef_timer);
	tasklet_kill(&aud_pre.tasklet);
}

module_init(aud_init);
module_exit(aud_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: a #define and #ifdef'ed braces before callbacks");
