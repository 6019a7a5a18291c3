// SPDX-License-Identifier: GPL-2.0
/*
 * Unload safety: a module that goes with si_timers still armed, queued or
 * running would leave the executors' wheels and queues pointing into its freed
 * memory and text. When a module goes (MODULE_STATE_GOING: its exit has
 * run, its memory is not freed yet), every timer it owns, by its callback
 * or by its memory, is cancelled for good, its running callback waited
 * for, and each is reported on one line: module, callback, where it was
 * last armed.
 *
 * Finding them costs arming and cancelling nothing: the search walks every
 * executor's wheels and queues here, under its lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include "si_timer_internal.h"

static bool si_owned(const struct si_timer *timer, si_timer_func_t fn,
		     struct module *mod)
{
	return within_module((unsigned long)fn, mod) ||
	       within_module((unsigned long)timer, mod);
}

/* The first pending timer of @e that @mod owns, and where it is. e locked. */
static struct si_timer *si_find_owned(struct si_executor *e, struct module *mod,
				      const char **where)
{
	struct si_timer *timer;
	unsigned int i;
	int k, q;

	for (k = 0; k < SI_NR_WHEELS; k++) {
		for (i = 0; i < SI_WHEEL_LISTS; i++) {
			hlist_for_each_entry(timer, si_wheel_list(&e->wheel[k], i), node) {
				if (si_owned(timer, timer->function, mod)) {
					*where = "armed";
					return timer;
				}
			}
		}
	}
	for (q = 0; q < SI_NR_QUEUES; q++) {
		si_fifo_for_each(timer, &e->queue[q]) {
			if (si_owned(timer, timer->function, mod)) {
				*where = "queued";
				return timer;
			}
		}
	}
	return NULL;
}

static void si_report(struct module *mod, const char *where,
		      si_timer_func_t fn, unsigned long armed_at)
{
	pr_err("module %s unloaded with a timer %s: callback %ps, armed at %pS; cancelled\n",
	       mod->name, where, fn, (void *)armed_at);
}

struct si_unload {
	struct module		*mod;
	const struct si_timer	*last;		/* reported last: not twice */
	unsigned int		reported;
};

/*
 * Cancel what the module left on @e: pending timers first, each taken off
 * the lists under the lock so that it can neither expire nor run again,
 * then the running callback, waited for (and whatever it re-armed, again).
 * Returns how many timers were cancelled or waited for.
 */
static unsigned int si_unload_executor(struct si_executor *e, struct si_unload *u)
{
	struct module *mod = u->mod;
	unsigned int acted = 0;

	for (;;) {
		const struct si_timer *running = NULL;
		struct si_timer *timer;
		unsigned long armed_at = 0;
		si_timer_func_t fn = NULL;
		const char *where;

		raw_spin_lock_irq(&e->lock);
		timer = si_find_owned(e, mod, &where);
		if (timer) {
			fn = timer->function;
			armed_at = timer->armed_at;
			si_timer_evict(e, timer);
		} else if (e->running && si_owned(e->running, e->running_fn, mod)) {
			/* Compared, never dereferenced: it may free itself. */
			running = e->running;
			fn = e->running_fn;
			armed_at = e->running_armed_at;
			where = "running";
		}
		raw_spin_unlock_irq(&e->lock);

		if (!fn)
			return acted;
		acted++;
		if ((timer ?: running) != u->last) {
			si_report(mod, where, fn, armed_at);
			u->last = timer ?: running;
			u->reported++;
		}
		if (!timer)
			si_executor_wait_callback(e);
	}
}

static int si_module_going(struct notifier_block *nb, unsigned long action,
			   void *data)
{
	struct si_unload u = { .mod = data };
	bool synced = false;
	unsigned int cpu, acted;

	/* Only a module that uses si_timer holds a reference on it. */
	if (action != MODULE_STATE_GOING || !module_refcount(THIS_MODULE))
		return NOTIFY_DONE;
	/*
	 * Until a pass over every executor finds nothing, after the last
	 * changes of home in flight ended: a timer moving to another CPU's
	 * executor is on no list meanwhile (irqs off throughout, so an RCU
	 * grace period waits it out), and a callback waited for may have armed
	 * another timer of the module on an executor already searched.
	 */
	for (;;) {
		acted = 0;
		for_each_possible_cpu(cpu)
			acted += si_unload_executor(si_executor_of(cpu), &u);
		if (!acted && synced)
			break;
		synced = !acted;
		if (synced)
			synchronize_rcu();
	}
	if (u.reported)
		pr_err("module %s unloaded with %u timer%s pending or running\n",
		       u.mod->name, u.reported, u.reported == 1 ? "" : "s");
	return NOTIFY_OK;
}

static struct notifier_block si_module_nb = {
	.notifier_call = si_module_going,
};

int si_unload_init(void)
{
	return register_module_notifier(&si_module_nb);
}

void si_unload_exit(void)
{
	unregister_module_notifier(&si_module_nb);
}
