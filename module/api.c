// SPDX-License-Identifier: GPL-2.0
/*
 * The timer_list-compatible API. Each si_timer embeds a timer_list (the
 * "wheel" timer) so jiffies granularity, NOHZ, deferrable timers and
 * migration come from the kernel; its expiry function only queues the
 * si_timer on the executor of the CPU it expired on.
 *
 * A timer that has expired but whose callback has not started yet is still
 * pending: arming or deleting it takes it off the executor's queue, so the
 * return values are those of the kernel counterparts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/hardirq.h>
#include <linux/sched.h>
#include "si_timer_internal.h"

/* A macro, so that every API entry point warns once on its own. */
#define si_timer_misused(timer)						\
	({								\
		const struct si_timer *__t = (timer);			\
		WARN_ONCE(!__t || !__t->function,			\
			  "si_timer: %s() on %s timer\n", __func__,	\
			  __t ? "a never set up" : "a NULL");		\
	})

void si_timer_wheel_fn(struct timer_list *wheel)
{
	si_executor_queue(container_of(wheel, struct si_timer, wheel));
}
EXPORT_SYMBOL_GPL(si_timer_wheel_fn);

static unsigned int si_wheel_flags(struct si_timer *timer, unsigned int flags)
{
	WARN_ONCE(flags & ~SI_TIMER_FLAGS_VALID,
		  "si_timer: invalid flags %#x for %ps ignored\n",
		  flags & ~SI_TIMER_FLAGS_VALID, timer->function);
	timer->flags = flags & SI_TIMER_FLAGS_VALID;
	timer->queued_on = NULL;
	timer->running_on = NULL;
	return timer->flags & (TIMER_PINNED | TIMER_DEFERRABLE);
}

void si_init_timer_key(struct si_timer *timer, si_timer_func_t func,
		       unsigned int flags, const char *name,
		       struct lock_class_key *key)
{
	timer->function = func;
	init_timer_key(&timer->wheel, si_timer_wheel_fn,
		       si_wheel_flags(timer, flags), name, key);
}
EXPORT_SYMBOL_GPL(si_init_timer_key);

void si_init_timer_on_stack_key(struct si_timer *timer, si_timer_func_t func,
				unsigned int flags, const char *name,
				struct lock_class_key *key)
{
	timer->function = func;
	init_timer_on_stack_key(&timer->wheel, si_timer_wheel_fn,
				si_wheel_flags(timer, flags), name, key);
}
EXPORT_SYMBOL_GPL(si_init_timer_on_stack_key);

void si_destroy_timer_on_stack(struct si_timer *timer)
{
	timer_destroy_on_stack(&timer->wheel);
}
EXPORT_SYMBOL_GPL(si_destroy_timer_on_stack);

/**
 * si_timer_pending - is the timer armed or expired with its callback not started?
 * @timer: the timer
 *
 * Return: 1 if pending, 0 if not (unserialised, as timer_pending()).
 */
int si_timer_pending(const struct si_timer *timer)
{
	return timer_pending(&timer->wheel) || READ_ONCE(timer->queued_on);
}
EXPORT_SYMBOL_GPL(si_timer_pending);

/**
 * si_mod_timer - modify a timer's timeout, arming it if needed
 * @timer: the timer
 * @expires: new expiry in jiffies
 *
 * As mod_timer(). A timer shut down by si_timer_shutdown*() stays off.
 *
 * Return: 0 if the timer was inactive, 1 if it was pending, -EINVAL on a
 * NULL or never set up timer.
 */
int si_mod_timer(struct si_timer *timer, unsigned long expires)
{
	int was_queued;

	if (si_timer_misused(timer))
		return -EINVAL;
	was_queued = si_executor_dequeue(timer);
	timer->expires = expires;
	return mod_timer(&timer->wheel, expires) | was_queued;
}
EXPORT_SYMBOL_GPL(si_mod_timer);

/**
 * si_mod_timer_pending - modify the timeout of a pending timer only
 * @timer: the timer
 * @expires: new expiry in jiffies
 *
 * Return: as mod_timer_pending(); -EINVAL on misuse.
 */
int si_mod_timer_pending(struct si_timer *timer, unsigned long expires)
{
	if (si_timer_misused(timer))
		return -EINVAL;
	if (si_executor_dequeue(timer)) {
		timer->expires = expires;
		mod_timer(&timer->wheel, expires);
		return 1;
	}
	if (!mod_timer_pending(&timer->wheel, expires))
		return 0;
	timer->expires = expires;
	return 1;
}
EXPORT_SYMBOL_GPL(si_mod_timer_pending);

/**
 * si_timer_reduce - modify a timer's timeout if that makes it earlier
 * @timer: the timer
 * @expires: new expiry in jiffies
 *
 * An expired timer whose callback has not started is due already: left
 * as it is.
 *
 * Return: as timer_reduce(); -EINVAL on misuse.
 */
int si_timer_reduce(struct si_timer *timer, unsigned long expires)
{
	int ret;

	if (si_timer_misused(timer))
		return -EINVAL;
	if (READ_ONCE(timer->queued_on))
		return 1;
	ret = timer_reduce(&timer->wheel, expires);
	timer->expires = timer->wheel.expires;
	return ret;
}
EXPORT_SYMBOL_GPL(si_timer_reduce);

/**
 * si_add_timer - arm an inactive timer at @timer->expires
 * @timer: the timer, with expires set
 *
 * Arming a pending timer is a bug: warned about once and ignored.
 */
void si_add_timer(struct si_timer *timer)
{
	if (si_timer_misused(timer))
		return;
	if (WARN_ONCE(si_timer_pending(timer),
		      "si_timer: %s() on pending timer %ps\n",
		      __func__, timer->function))
		return;
	mod_timer(&timer->wheel, timer->expires);
}
EXPORT_SYMBOL_GPL(si_add_timer);

/**
 * si_add_timer_on - arm an inactive timer on a given CPU
 * @timer: the timer, with expires set
 * @cpu: the CPU it expires on; its callback runs there too
 */
void si_add_timer_on(struct si_timer *timer, int cpu)
{
	if (si_timer_misused(timer))
		return;
	if (WARN_ONCE(cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu),
		      "si_timer: %s() for %ps on CPU %d, not online\n",
		      __func__, timer->function, cpu))
		return;
	if (WARN_ONCE(si_timer_pending(timer),
		      "si_timer: %s() on pending timer %ps\n",
		      __func__, timer->function))
		return;
	timer->wheel.expires = timer->expires;
	add_timer_on(&timer->wheel, cpu);
}
EXPORT_SYMBOL_GPL(si_add_timer_on);

/**
 * si_timer_delete - deactivate a timer
 * @timer: the timer
 *
 * A callback already running is not waited for (see si_timer_delete_sync()).
 *
 * Return: 1 if the timer was pending, 0 if not, -EINVAL on misuse.
 */
int si_timer_delete(struct si_timer *timer)
{
	if (si_timer_misused(timer))
		return -EINVAL;
	return timer_delete(&timer->wheel) | si_executor_dequeue(timer);
}
EXPORT_SYMBOL_GPL(si_timer_delete);

/**
 * si_try_to_del_timer_sync - deactivate a timer unless its callback runs
 * @timer: the timer
 *
 * Unlike try_to_del_timer_sync(), a callback that starts during this call
 * and re-arms itself before the wheel is asked may find that arming
 * undone; -1 is returned all the same, and a caller that retries ends with
 * the timer inactive either way.
 *
 * Return: -1 if the callback is running (the timer is left alone), else as
 * si_timer_delete().
 */
int si_try_to_del_timer_sync(struct si_timer *timer)
{
	int wheel, queued;

	if (si_timer_misused(timer))
		return -EINVAL;
	if (READ_ONCE(timer->running_on))
		return -1;
	/*
	 * -1 while si_timer_wheel_fn() runs: it is about to queue the timer,
	 * or it has and the wheel counts it as running until it is back in
	 * expire_timers(). Either way the callback will run, so the queue
	 * must not be touched before this: taking the timer off it here
	 * would lose that run.
	 */
	wheel = timer_delete_sync_try(&timer->wheel);
	if (wheel < 0)
		return -1;
	/*
	 * -1 here if it started since the first check. Had it also re-armed
	 * itself before the delete above, that arming is gone, unlike with
	 * the kernel's call; the caller is told the callback runs either way.
	 */
	queued = si_executor_try_dequeue(timer);
	if (queued < 0)
		return -1;
	return wheel | queued;
}
EXPORT_SYMBOL_GPL(si_try_to_del_timer_sync);

static int si_delete_sync(struct si_timer *timer, bool shutdown)
{
	int ret = 0;

	if (WARN_ONCE(in_hardirq(),
		      "si_timer: synchronous delete of %ps from hard interrupt context\n",
		      timer->function))
		return -EINVAL;
	if (WARN_ONCE(si_executor_running_self(timer),
		      "si_timer: synchronous delete of %ps from its own callback\n",
		      timer->function))
		return -EINVAL;

	/*
	 * The wheel timer's own sync delete waits for a running si_timer_wheel_fn()
	 * (on RT sleeping on the kernel's expiry lock) and, with lockdep, records
	 * the timer's map as taken here: the executor holds the same map across
	 * the callback. Loop for callbacks that re-arm themselves.
	 */
	for (;;) {
		int err;

		if (shutdown)
			ret |= timer_shutdown_sync(&timer->wheel);
		else
			ret |= timer_delete_sync(&timer->wheel);
		ret |= si_executor_dequeue(timer);
		smp_rmb();	/* queued_on, then running_on: see si_executor_try_dequeue() */
		if (!READ_ONCE(timer->running_on))
			return ret;
		err = si_executor_wait_running(timer);
		if (err)
			return err;
	}
}

/**
 * si_timer_delete_sync - deactivate a timer and wait for its callback
 * @timer: the timer
 *
 * On return the callback is neither queued nor running anywhere, unless it
 * is re-armed by someone else than the callback itself. Must not be called
 * from hard interrupt context nor from the timer's own callback, nor while
 * holding a lock the callback takes (lockdep reports that). May sleep on
 * PREEMPT_RT.
 *
 * Return: 1 if the timer was pending, 0 if not, -EINVAL on misuse,
 * -EDEADLK if called from code that interrupted the running callback.
 */
int si_timer_delete_sync(struct si_timer *timer)
{
	if (si_timer_misused(timer))
		return -EINVAL;
	return si_delete_sync(timer, false);
}
EXPORT_SYMBOL_GPL(si_timer_delete_sync);

/**
 * si_timer_shutdown - deactivate a timer and keep it off
 * @timer: the timer
 *
 * Later arming calls are silent no-ops until si_timer_setup() again.
 *
 * Return: 1 if the timer was pending, 0 if not, -EINVAL on misuse.
 */
int si_timer_shutdown(struct si_timer *timer)
{
	if (si_timer_misused(timer))
		return -EINVAL;
	return timer_shutdown(&timer->wheel) | si_executor_dequeue(timer);
}
EXPORT_SYMBOL_GPL(si_timer_shutdown);

/**
 * si_timer_shutdown_sync - si_timer_shutdown() and wait for the callback
 * @timer: the timer
 *
 * Return: as si_timer_delete_sync().
 */
int si_timer_shutdown_sync(struct si_timer *timer)
{
	if (si_timer_misused(timer))
		return -EINVAL;
	return si_delete_sync(timer, true);
}
EXPORT_SYMBOL_GPL(si_timer_shutdown_sync);
