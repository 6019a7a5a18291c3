// SPDX-License-Identifier: GPL-2.0
/*
 * Unload safety: a module that goes with si_timers still armed, queued or
 * running would leave the executors' wheels and queues pointing into its freed
 * memory and text. When a module goes (MODULE_STATE_GOING: its exit has
 * run, its memory is not freed yet), every timer it owns is cancelled for
 * good, its running callback waited for, and each is reported on one
 * line: module, callback, where it was last armed.
 *
 * Owners. Each module that uses si_timer gets a struct si_owner when it
 * comes, and every timer is given one when set up (or, if static, when
 * first armed): the module of its callback, else of its memory, else of
 * the code that set it up, else si_timer itself. A pending timer is on its
 * owner's list of its home executor as well as in a wheel or on a queue
 * (si_owner_add(), si_owner_del(), under that executor's lock), so that
 * the unload of a module costs nothing that grows with the timers others
 * have armed, and the going module's own are taken off a chunk at a time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include "si_timer_internal.h"

/* How many timers one hold of an executor's lock cancels, at most. */
#define SI_UNLOAD_CHUNK	16

static LIST_HEAD(si_owners);
static DEFINE_MUTEX(si_owners_lock);	/* writers of si_owners */
static struct si_owner *si_self;	/* si_timer's own timers (timeout.c) */

static struct si_owner *si_owner_find(const struct module *mod)
{
	struct si_owner *o;

	list_for_each_entry_rcu(o, &si_owners, node, lockdep_is_held(&si_owners_lock))
		if (o->mod == mod)
			return o;
	return NULL;
}

/*
 * The owner of @timer, set up at @caller (0: a static timer's first
 * arming). Any context: a walk of the modules that use si_timer.
 */
struct si_owner *si_owner_of(const struct si_timer *timer, unsigned long caller)
{
	unsigned long at[] = { (unsigned long)si_callback_of(timer), (unsigned long)timer, caller };
	struct si_owner *o, *found = NULL;
	unsigned int best = ARRAY_SIZE(at), i;

	rcu_read_lock();
	list_for_each_entry_rcu(o, &si_owners, node) {
		for (i = 0; i < best; i++) {
			if (at[i] && within_module(at[i], o->mod)) {
				found = o;
				best = i;
				break;
			}
		}
	}
	rcu_read_unlock();
	return found ?: si_self;
}

static bool si_module_uses_us(struct module *mod)
{
	struct module_use *use;

	/* Written while @mod loads and after it went: stable in between. */
	list_for_each_entry(use, &mod->target_list, target_list) {
		if (use->source != mod) {
			/* Not the layout module/compat.h assumes: track @mod. */
			pr_warn_once("struct module_use of this kernel not understood: tracking every module\n");
			return true;
		}
		if (use->target == THIS_MODULE)
			return true;
	}
	return false;
}

static struct si_owner *si_owner_new(struct module *mod)
{
	struct si_owner *o = kzalloc(sizeof(*o), GFP_KERNEL);
	unsigned int cpu;

	if (!o)
		return NULL;
	o->pending = alloc_percpu(struct hlist_head);
	if (!o->pending) {
		kfree(o);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		INIT_HLIST_HEAD(per_cpu_ptr(o->pending, cpu));
	o->mod = mod;
	mutex_lock(&si_owners_lock);
	list_add_tail_rcu(&o->node, &si_owners);
	mutex_unlock(&si_owners_lock);
	return o;
}

/* After its timers went: no timer names @o any more. */
static void si_owner_free(struct si_owner *o)
{
	mutex_lock(&si_owners_lock);
	list_del_rcu(&o->node);
	mutex_unlock(&si_owners_lock);
	synchronize_rcu();	/* si_owner_of() walks */
	free_percpu(o->pending);
	kfree(o);
}

static bool si_owned(const struct si_timer *timer, const void *fn,
		     struct module *mod)
{
	return within_module((unsigned long)fn, mod) ||
	       within_module((unsigned long)timer, mod);
}

static void si_report(struct module *mod, const char *where,
		      const void *fn, unsigned long armed_at)
{
	pr_err("module %s unloaded with a timer %s: callback %ps, armed at %pS; cancelled\n",
	       mod->name, where, fn, (void *)armed_at);
}

struct si_unload {
	struct si_owner		*owner;
	const struct si_timer	*last;		/* reported last: not twice */
	unsigned int		reported;
};

struct si_evicted {
	const struct si_timer	*timer;
	const void		*fn;
	unsigned long		armed_at;
	const char		*where;
};

static void si_unload_report(struct si_unload *u, const struct si_evicted *ev)
{
	if (ev->timer == u->last)
		return;
	si_report(u->owner->mod, ev->where, ev->fn, ev->armed_at);
	u->last = ev->timer;
	u->reported++;
}

/*
 * Cancel what the module left on @e: its pending timers first, taken off
 * the lists under the lock a chunk at a time so that none can expire or
 * run again, then its running callback, waited for (and whatever that
 * re-armed, again). Returns how many timers were cancelled or waited for.
 */
static unsigned int si_unload_executor(struct si_executor *e, struct si_unload *u)
{
	struct hlist_head *pending = per_cpu_ptr(u->owner->pending, e->cpu);
	struct si_evicted ev[SI_UNLOAD_CHUNK];
	struct module *mod = u->owner->mod;
	unsigned int acted = 0, n, i;

	for (;;) {
		const struct si_timer *running;

		n = 0;
		raw_spin_lock_irq(&e->lock);
		while (n < SI_UNLOAD_CHUNK && !hlist_empty(pending)) {
			struct si_timer *timer = hlist_entry(pending->first, struct si_timer,
							     owner_node);

			ev[n++] = (struct si_evicted) {
				.timer = timer, .fn = si_callback_of(timer),
				.armed_at = timer->armed_at,
				.where = timer->state & SI_STATE_QUEUED ? "queued" : "armed",
			};
			si_timer_evict(e, timer);
		}
		/*
		 * Compared, never dereferenced: it may free itself. Cleared
		 * without the lock as the callback returns (executor.c).
		 */
		running = n ? NULL : READ_ONCE(e->running);
		if (running && si_owned(running, e->running_cb, mod))
			ev[n++] = (struct si_evicted) {
				.timer = running, .fn = e->running_cb,
				.armed_at = e->running_armed_at, .where = "running",
			};
		else
			running = NULL;
		raw_spin_unlock_irq(&e->lock);

		if (!n)
			return acted;
		acted += n;
		for (i = 0; i < n; i++) {
			si_unload_report(u, &ev[i]);
			/*
			 * An si_hrtimer's HARD hrtimer may have stayed queued
			 * (hrtimer.c, si_hrtimer_hw_cancel()): off for good, its
			 * handler waited for. Shut down: nothing arms it again.
			 */
			if (ev[i].timer != running && (ev[i].timer->flags & SI_TIMER_HR))
				hrtimer_cancel(&si_hrtimer_of(ev[i].timer)->hw);
		}
		if (running)
			si_executor_wait_callback(e);
		cond_resched();
	}
}

static void si_module_going(struct module *mod)
{
	struct si_unload u = { };
	bool synced = false;
	unsigned int cpu, acted;

	mutex_lock(&si_owners_lock);
	u.owner = si_owner_find(mod);
	mutex_unlock(&si_owners_lock);
	/* Not a user of si_timer: none of its timers can be pending. */
	if (!u.owner)
		return;
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
		       mod->name, u.reported, u.reported == 1 ? "" : "s");
	si_owner_free(u.owner);
}

static int si_module_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	struct module *mod = data;

	switch (action) {
	case MODULE_STATE_COMING:
		if (si_module_uses_us(mod) && !si_owner_new(mod))
			return notifier_from_errno(-ENOMEM);
		return NOTIFY_OK;
	case MODULE_STATE_GOING:
		si_module_going(mod);
		return NOTIFY_OK;
	}
	return NOTIFY_DONE;
}

static struct notifier_block si_module_nb = {
	.notifier_call = si_module_notify,
};

int si_unload_init(void)
{
	int ret;

	si_self = si_owner_new(THIS_MODULE);
	if (!si_self)
		return -ENOMEM;
	ret = register_module_notifier(&si_module_nb);
	if (ret)
		si_owner_free(si_self);
	return ret;
}

void si_unload_exit(void)
{
	unregister_module_notifier(&si_module_nb);
	si_owner_free(si_self);
}
