// SPDX-License-Identifier: GPL-2.0
/*
 * Audit sample: a cycle of synchronous cancels through softirq code. The
 * link's tasklet cancels the retry timer; the retry callback cancels the
 * watchdog. Once the watchdog callback is opted in, the tasklet may run
 * inside it (any local_bh_enable() there), and its wait for the retry
 * callback, which waits for the watchdog callback, closes a cycle: the
 * second wait returns -EDEADLK without waiting (design.md, refusal 3).
 * Nothing here takes a lock. The retry timer is cancelled from the
 * tasklet itself: the -EDEADLK case of aud_cancel.c.
 * Verdicts: aud_cycle_watchdog_fn review (the cycle), aud_cycle_retry_fn
 * review (its cancel from softirq code).
 */
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/timer.h>

struct aud_link {
	struct timer_list watchdog;
	struct timer_list retry;
	struct tasklet_struct rx;
	unsigned int events;
};

static struct aud_link aud_link;

static void aud_cycle_watchdog_fn(struct timer_list *t)
{
	struct aud_link *l = from_timer(l, t, watchdog);

	WRITE_ONCE(l->events, l->events + 1);
}

static void aud_cycle_retry_fn(struct timer_list *t)
{
	struct aud_link *l = from_timer(l, t, retry);

	timer_delete_sync(&l->watchdog);
}

static void aud_cycle_rx(struct tasklet_struct *tl)
{
	struct aud_link *l = from_tasklet(l, tl, rx);

	timer_delete_sync(&l->retry);
}

static int __init aud_init(void)
{
	timer_setup(&aud_link.watchdog, aud_cycle_watchdog_fn, 0);
	timer_setup(&aud_link.retry, aud_cycle_retry_fn, 0);
	tasklet_setup(&aud_link.rx, aud_cycle_rx);
	mod_timer(&aud_link.watchdog, jiffies + HZ);
	return 0;
}

static void __exit aud_exit(void)
{
	tasklet_kill(&aud_link.rx);
	timer_shutdown_sync(&aud_link.retry);
	timer_shutdown_sync(&aud_link.watchdog);
}

module_init(aud_init);
module_exit(aud_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("audit sample: a cycle of synchronous cancels through a tasklet");
