// SPDX-License-Identifier: GPL-2.0
/*
 * Unload safety: a module that goes with si_timers still armed, queued or
 * running would leave the executors' wheels and queues pointing into its freed
 * memory and text. When a module goes (MODULE_STATE_GOING: its exit has
 * run, its memory is not freed yet), every timer it owns is cancelled for
 * good, its running callback waited for, and the first SI_UNLOAD_LINES are
 * reported on one line each (module, callback, where it was last armed),
 * then all of them on one summary line: a module that leaks a million
 * timers must not take a million lines (and minutes) to unload.
 *
 * Owners. A module gets a struct si_owner when it comes if it uses
 * si_timer or a module that has an owner (so, through load order, every
 * module that depends on a user of si_timer, directly or not): a timer in
 * its memory may then be armed by another module's functions without it
 * importing si_timer itself. Each timer is given one owner when set up (or,
 * if static, when first armed): of the module of its callback and the
 * module of its memory, the one that goes first (si_owner_first_gone()),
 * else the module of the code that set it up, else si_timer itself. A
 * pending timer is on its owner's list of its home executor as well as in a
 * wheel or on a queue (si_owner_add(), si_owner_del(), under that
 * executor's lock), so that the unload of a module costs nothing that
 * grows with the timers others have armed, and the going module's own are
 * taken off a chunk at a time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/overflow.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include "si_timer_internal.h"

/* How many timers one hold of an executor's lock cancels, at most. */
#define SI_UNLOAD_CHUNK		16
/* Timers reported on a line of their own; the rest only in the summary. */
#define SI_UNLOAD_LINES		10
/* Callbacks counted one by one for the summary, and how many it names. */
#define SI_UNLOAD_FNS		8
#define SI_UNLOAD_FNS_SHOWN	3

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

/* Does @a's module use @b's, directly or not? Then it goes first. */
static bool si_owner_uses(const struct si_owner *a, const struct si_owner *b)
{
	unsigned int i;

	for (i = 0; i < a->nr_deps; i++)
		if (a->deps[i] == b)
			return true;
	return false;
}

/*
 * Of the owners of a timer's callback (@code) and of its memory (@mem),
 * either may be NULL, the one whose module goes first: a module cannot go
 * while one that uses it is loaded. When neither uses the other, nothing
 * says which goes first: the memory's, whose timer corrupts the wheel it
 * is linked into as soon as that memory is freed (Documentation/design.md
 * says what is then not found).
 */
static struct si_owner *si_owner_first_gone(struct si_owner *code, struct si_owner *mem)
{
	if (!code || !mem || code == mem)
		return mem ?: code;
	if (si_owner_uses(code, mem))
		return code;
	return mem;
}

static void si_owner_mark_used(struct si_owner *o)
{
	if (o && !READ_ONCE(o->used))
		WRITE_ONCE(o->used, true);
}

/*
 * The owner of @timer, set up at @caller (0: a static timer's first
 * arming). Any context, also under an executor's raw lock with irqs off
 * (si_owner_add()): a walk of the owners, three address checks each, and
 * no allocation. Every owner the timer touches is marked used, so that
 * their modules' unload looks for timers (and running callbacks).
 */
struct si_owner *si_owner_of(const struct si_timer *timer, unsigned long caller)
{
	unsigned long fn = (unsigned long)si_callback_of(timer);
	struct si_owner *o, *code = NULL, *mem = NULL, *setter = NULL, *found;

	rcu_read_lock();
	list_for_each_entry_rcu(o, &si_owners, node) {
		if (!code && fn && within_module(fn, o->mod))
			code = o;
		if (!mem && within_module((unsigned long)timer, o->mod))
			mem = o;
		if (!setter && caller && within_module(caller, o->mod))
			setter = o;
	}
	found = si_owner_first_gone(code, mem) ?: setter ?: si_self;
	si_owner_mark_used(code);
	si_owner_mark_used(mem);
	si_owner_mark_used(found);
	rcu_read_unlock();
	return found;
}

static void si_owner_add_dep(struct si_owner *o, struct si_owner *dep)
{
	unsigned int i;

	for (i = 0; i < o->nr_deps; i++)
		if (o->deps[i] == dep)
			return;
	o->deps[o->nr_deps++] = dep;
}

static struct si_owner *si_owner_alloc(struct module *mod, unsigned int max_deps)
{
	struct si_owner *o = kzalloc(struct_size(o, deps, max_deps), GFP_KERNEL);
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
	return o;
}

/*
 * @mod comes: its owner, if it uses si_timer or a module that has one.
 * Its uses are final by now (resolved as it loaded) and each module it
 * uses came before it, its owner's deps complete: the union of theirs is
 * transitive. Returns 0 or -ENOMEM.
 */
static int si_module_coming(struct module *mod)
{
	struct module_use *use;
	struct si_owner *o, *t;
	unsigned int max_deps = 0, i;
	bool ours = false, understood = true;

	mutex_lock(&si_owners_lock);
	/* Written while @mod loads and after it went: stable in between. */
	list_for_each_entry(use, &mod->target_list, target_list) {
		if (use->source != mod) {
			/* Not the layout module/compat.h assumes: track @mod. */
			pr_warn_once("struct module_use of this kernel not understood: tracking every module\n");
			understood = false;
			max_deps = 0;
			break;
		}
		if (use->target == THIS_MODULE)
			ours = true;
		t = si_owner_find(use->target);
		if (t)
			max_deps += 1 + t->nr_deps;
	}
	if (understood && !ours && !max_deps) {
		mutex_unlock(&si_owners_lock);
		return 0;
	}
	o = si_owner_alloc(mod, max_deps);
	if (!o) {
		mutex_unlock(&si_owners_lock);
		return -ENOMEM;
	}
	if (understood) {
		list_for_each_entry(use, &mod->target_list, target_list) {
			t = si_owner_find(use->target);
			if (!t)
				continue;
			si_owner_add_dep(o, t);
			for (i = 0; i < t->nr_deps; i++)
				si_owner_add_dep(o, t->deps[i]);
		}
	}
	list_add_tail_rcu(&o->node, &si_owners);
	mutex_unlock(&si_owners_lock);
	return 0;
}

static void si_owner_free_rcu(struct rcu_head *head)
{
	struct si_owner *o = container_of(head, struct si_owner, rcu);

	free_percpu(o->pending);
	kfree(o);
}

/*
 * After its timers went: no timer names @o any more. Freed after the
 * si_owner_of() walks in flight (si_unload_exit() waits for it), without
 * a grace period's wait in the unload of every module that has an owner.
 */
static void si_owner_free(struct si_owner *o)
{
	mutex_lock(&si_owners_lock);
	list_del_rcu(&o->node);
	mutex_unlock(&si_owners_lock);
	call_rcu(&o->rcu, si_owner_free_rcu);
}

static bool si_owned(const struct si_timer *timer, const void *fn,
		     struct module *mod)
{
	return within_module((unsigned long)fn, mod) ||
	       within_module((unsigned long)timer, mod);
}

enum si_evicted_state { SI_EV_ARMED, SI_EV_QUEUED, SI_EV_RUNNING, SI_EV_STATES };

static const char * const si_evicted_state_name[SI_EV_STATES] = {
	[SI_EV_ARMED] = "armed", [SI_EV_QUEUED] = "queued", [SI_EV_RUNNING] = "running",
};

struct si_unload {
	struct si_owner		*owner;
	const struct si_timer	*last;		/* reported last: not twice */
	unsigned long		total;
	unsigned long		by_state[SI_EV_STATES];
	struct {
		const void	*fn;
		unsigned long	n;
	} fns[SI_UNLOAD_FNS];			/* the first callbacks seen */
	unsigned long		other_fns;	/* timers of any other callback */
};

struct si_evicted {
	const struct si_timer	*timer;
	const void		*fn;
	unsigned long		armed_at;
	enum si_evicted_state	state;
};

/*
 * One timer cancelled: counted, and reported on a line of its own if it is
 * among the first SI_UNLOAD_LINES. Constant time: this runs for each
 * timer a module leaves behind, a million of them if it leaks that many.
 */
static void si_unload_report(struct si_unload *u, const struct si_evicted *ev)
{
	unsigned int i;

	if (ev->timer == u->last)
		return;
	u->last = ev->timer;
	if (u->total < SI_UNLOAD_LINES)
		pr_err("module %s unloaded with a timer %s: callback %ps, armed at %pS; cancelled\n",
		       u->owner->mod->name, si_evicted_state_name[ev->state], ev->fn,
		       (void *)ev->armed_at);
	u->total++;
	u->by_state[ev->state]++;
	for (i = 0; i < SI_UNLOAD_FNS; i++) {
		if (!u->fns[i].fn)
			u->fns[i].fn = ev->fn;
		if (u->fns[i].fn == ev->fn) {
			u->fns[i].n++;
			return;
		}
	}
	u->other_fns++;
}

/*
 * The summary, one line: how many timers, in which state, the most common
 * callbacks. Its callbacks are printed with the module's text still there.
 */
static void si_unload_summary(const struct si_unload *u)
{
	unsigned long others = u->other_fns;
	bool shown[SI_UNLOAD_FNS] = { };
	unsigned int i, k, best;
	char fns[256];
	int len = 0;

	for (k = 0; k < SI_UNLOAD_FNS_SHOWN; k++) {
		best = SI_UNLOAD_FNS;
		for (i = 0; i < SI_UNLOAD_FNS && u->fns[i].fn; i++)
			if (!shown[i] && (best == SI_UNLOAD_FNS || u->fns[i].n > u->fns[best].n))
				best = i;
		if (best == SI_UNLOAD_FNS)
			break;
		shown[best] = true;
		len += scnprintf(fns + len, sizeof(fns) - len, "%s%ps %lu", k ? ", " : "",
				 u->fns[best].fn, u->fns[best].n);
	}
	for (i = 0; i < SI_UNLOAD_FNS && u->fns[i].fn; i++)
		if (!shown[i])
			others += u->fns[i].n;
	if (others)
		scnprintf(fns + len, sizeof(fns) - len, ", other callbacks %lu", others);
	pr_err("module %s unloaded with %lu timer%s pending or running: %lu armed, %lu queued, %lu running; by callback: %s; %lu reported above; all cancelled\n",
	       u->owner->mod->name, u->total, u->total == 1 ? "" : "s",
	       u->by_state[SI_EV_ARMED], u->by_state[SI_EV_QUEUED],
	       u->by_state[SI_EV_RUNNING], fns, min_t(unsigned long, u->total, SI_UNLOAD_LINES));
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
				.state = timer->state & SI_STATE_QUEUED ?
					 SI_EV_QUEUED : SI_EV_ARMED,
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
				.armed_at = e->running_armed_at, .state = SI_EV_RUNNING,
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

/*
 * Until a pass over every executor finds nothing, after the last changes
 * of home in flight ended: a timer moving to another CPU's executor is on
 * no list meanwhile (irqs off throughout, so an RCU grace period waits it
 * out), and a callback waited for may have armed another timer of the
 * module on an executor already searched. CPU hotplug, which moves a
 * going CPU's timers to an executor a pass may have searched already, is
 * held off meanwhile (the caller holds cpus_read_lock()): otherwise one
 * offline in each of the last two passes could move a timer past both.
 * (That needs two moves of one timer, each to an executor searched before
 * the one it leaves: the heir is the first other online CPU, so only
 * where CPU 0 can go offline; held off everywhere all the same.)
 */
static void si_unload_passes(struct si_unload *u)
{
	bool synced = false;
	unsigned int cpu, acted;

	for (;;) {
		acted = 0;
		for_each_possible_cpu(cpu)
			acted += si_unload_executor(si_executor_of(cpu), u);
		if (!acted && synced)
			break;
		synced = !acted;
		if (synced)
			synchronize_rcu();
	}
}

static void si_module_going(struct module *mod)
{
	struct si_unload u = { };

	mutex_lock(&si_owners_lock);
	u.owner = si_owner_find(mod);
	mutex_unlock(&si_owners_lock);
	/* No owner: none of its timers can be pending. */
	if (!u.owner)
		return;
	/*
	 * Never named by a timer (si_owner_of()): none to look for, and no
	 * grace period to wait. Else the passes, CPU hotplug held off: the
	 * module notifier runs without module_mutex (delete_module() drops
	 * it before the exit), as jump_label's takes cpus_read_lock() there
	 * too; our hotplug callbacks (executor.c) take only executor locks.
	 */
	if (READ_ONCE(u.owner->used)) {
		cpus_read_lock();
		si_unload_passes(&u);
		cpus_read_unlock();
		if (u.total)
			si_unload_summary(&u);
	}
	si_owner_free(u.owner);
}

static int si_module_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	struct module *mod = data;

	switch (action) {
	case MODULE_STATE_COMING:
		return notifier_from_errno(si_module_coming(mod));
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

	si_self = si_owner_alloc(THIS_MODULE, 0);
	if (!si_self)
		return -ENOMEM;
	mutex_lock(&si_owners_lock);
	list_add_tail_rcu(&si_self->node, &si_owners);
	mutex_unlock(&si_owners_lock);
	ret = register_module_notifier(&si_module_nb);
	if (ret) {
		si_owner_free(si_self);
		rcu_barrier();
	}
	return ret;
}

void si_unload_exit(void)
{
	unregister_module_notifier(&si_module_nb);
	si_owner_free(si_self);
	rcu_barrier();	/* si_owner_free_rcu() is our text */
}
