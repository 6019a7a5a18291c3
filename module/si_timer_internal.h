/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SI_TIMER_INTERNAL_H
#define _SI_TIMER_INTERNAL_H

#include <si_timer.h>
#include <si_hrtimer.h>
#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/hrtimer.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include "compat.h"
#include "queue.h"
#include "wheel.h"

/*
 * struct si_timer.state, guarded by the lock of the executor it names (see
 * module/timer.c for the design): the "home" CPU in the low bits, as
 * timer_list.flags names its base, and the timer's life in the others.
 */
#define SI_STATE_CPUMASK	0x00003fffU
#define SI_STATE_MIGRATING	0x00004000U	/* home changing: wait */
#define SI_STATE_ARMED		0x00008000U	/* in home's wheel */
#define SI_STATE_QUEUED		0x00010000U	/* expired, on home's queue */
#define SI_STATE_SHUTDOWN	0x00020000U	/* arming is a no-op */
#define SI_STATE_HRARMED	0x00040000U	/* si_hrtimer: its HARD hrtimer armed */
#define SI_STATE_PENDING	(SI_STATE_ARMED | SI_STATE_QUEUED | SI_STATE_HRARMED)
/* ARMED: its bucket in home's wheel (timer->expires may be rewritten) */
#define SI_STATE_BUCKET_SHIFT	22
#define SI_STATE_BUCKET		(((1U << SI_WHEEL_BITS) - 1) << SI_STATE_BUCKET_SHIFT)
static_assert(SI_STATE_BUCKET_SHIFT + SI_WHEEL_BITS <= 32 &&
	      SI_STATE_HRARMED < (1U << SI_STATE_BUCKET_SHIFT));
/* every CPU number fits (CONFIG_NR_CPUS is at most 8192) */
static_assert(SI_STATE_CPUMASK + 1 >= CONFIG_NR_CPUS);

/*
 * struct si_timer.flags of the module's own, beside SI_TIMER_FLAGS_VALID:
 * the si_timer is the base of a struct si_hrtimer (hrtimer.c).
 */
#define SI_TIMER_HR		0x80000000U
static_assert(!(SI_TIMER_HR & SI_TIMER_FLAGS_VALID));

/* Callbacks waiting on an executor, by the mode they run in. */
enum si_queue {
	SI_Q_COMPAT,		/* in softirq-serving state, BH disabled */
	SI_Q_SOFT,		/* BH enabled, the TIMER vector masked */
	SI_Q_SOFT_HRMASKED,	/* BH enabled, TIMER and HRTIMER masked */
	SI_NR_QUEUES,
};

/*
 * A wait for a running callback that holds up a callback of the executor
 * it is in (struct si_executor.waits): for the callback of @timer on @on.
 * Published while the wait lasts, so that a synchronous cancel can refuse
 * a wait that would close a cycle of such waits (timer.c).
 */
struct si_wait {
	struct si_executor	*on;
	const struct si_timer	*timer;		/* compared, never dereferenced */
};

/*
 * Who may hold up an executor's callback by waiting: its own thread (the
 * callback, or a softirq that runs inside it), and, on PREEMPT_RT with the
 * BH lock, the holder of its CPU's BH lock, which a soft-interruptible
 * callback waits for as soon as it enters a BH section.
 */
enum si_wait_slot {
	SI_WAIT_THREAD,
	SI_WAIT_BH_HOLDER,
	SI_NR_WAIT_SLOTS,
};

/*
 * One per CPU, for every possible CPU. @lock (raw: every API call takes it
 * with irqs off, from any context, also on RT) guards the wheels, the
 * queues, @parked, @running and the state of every timer whose home this
 * is. The wheels hold the ARMED timers (wheel.h), in hlists, whose
 * operations CONFIG_DEBUG_LIST (on in Debian's kernels) does not check out
 * of line on every arm and cancel. @wake (HARD hrtimer) and
 * @deferrable_wake queue what is due when a wheel's earliest bucket is,
 * and wake the thread. @cb_lock is held
 * across each batch of callbacks and nothing else: a canceller waits for a
 * running callback by taking it, which on PREEMPT_RT sleeps and boosts the
 * executor (rt_mutex), as the kernel's timer expiry_lock does; a waiter,
 * counted in @cb_waiters, ends the batch after its callback.
 */
struct si_executor {
	raw_spinlock_t		lock;
	struct si_fifo		queue[SI_NR_QUEUES];
	struct si_wheel		wheel[SI_NR_WHEELS];
	struct hlist_head	hr_armed;	/* HRARMED si_hrtimers homed here */
	struct hrtimer		wake;
	call_single_data_t	start_wake;	/* another CPU has us start @wake */
	bool			start_pending;	/* start_wake sent, not handled yet */
	bool			wake_requeued;	/* @wake went behind the tick (executor.c) */
	struct timer_list	deferrable_wake;
	bool			overdue;	/* due timers left in the wheels for the thread */
	bool			parked;
	unsigned int		cpu;
	spinlock_t		cb_lock;	/* held across each batch of callbacks */
	atomic_t		cb_waiters;	/* cancellers waiting on cb_lock */
	/* the thread's own: until then, waiters starved of a CPU (executor.c) */
	u64			waiters_ignored_until;
	/* The callback running now: compared, never dereferenced. */
	const struct si_timer	*running;
	const void		*running_cb;	/* si_callback_of() it */
	unsigned long		running_armed_at;
	bool			running_soft;
	struct si_wait		waits[SI_NR_WAIT_SLOTS];
	unsigned long		ran[SI_NR_QUEUES];
	/*
	 * Statistics (debugfs.c): the longest callback, softirqs of each
	 * vector that ran on this CPU during soft-interruptible callbacks.
	 */
	u64			longest;	/* in si_now() units: si_clock_to_ns() */
	const void		*longest_cb;
	unsigned long		soft_softirqs[NR_SOFTIRQS];
};

/*
 * Allocated at load: the wheels make an executor larger than a module's
 * static per-CPU area may be.
 */
extern struct si_executor __percpu *si_executors;

static inline struct si_executor *si_executor_of(unsigned int cpu)
{
	return per_cpu_ptr(si_executors, cpu);
}

static inline bool si_executor_idle(const struct si_executor *e)
{
	return si_fifo_empty(&e->queue[SI_Q_COMPAT]) && si_fifo_empty(&e->queue[SI_Q_SOFT]) &&
	       si_fifo_empty(&e->queue[SI_Q_SOFT_HRMASKED]);
}

static __always_inline enum si_queue si_queue_of(const struct si_timer *timer)
{
	if (!(timer->flags & SI_TIMER_SOFTINTERRUPTIBLE))
		return SI_Q_COMPAT;
	return timer->flags & SI_TIMER_MASK_HRTIMER ? SI_Q_SOFT_HRMASKED : SI_Q_SOFT;
}

static inline struct si_hrtimer *si_hrtimer_of(const struct si_timer *timer)
{
	return container_of((struct si_timer *)timer, struct si_hrtimer, base);
}

/* hrtimer.c: an si_hrtimer's base runs its callback through this */
void si_hrtimer_run(struct si_timer *timer);

/*
 * The user's callback, for reports, traces and ownership, of @timer whose
 * function is @fn: an si_hrtimer's base runs the trampoline. Told by @fn,
 * which the executor's loop holds in a register anyway, not by a flag: a
 * load and a test fewer per expiry (B5).
 */
static __always_inline const void *si_callback_named(const struct si_timer *timer,
						     si_timer_func_t fn)
{
	if (unlikely(fn == si_hrtimer_run))
		return si_hrtimer_of(timer)->function;
	return fn;
}

static __always_inline const void *si_callback_of(const struct si_timer *timer)
{
	return si_callback_named(timer, timer->function);
}

/* executor.c */
int si_executors_init(int prio);
void si_executors_exit(void);
int si_executors_set_prio(int prio);
struct si_executor *si_executor_current(void);
struct si_executor *si_executor_lock_live(unsigned int cpu) __acquires(e->lock);
void si_executor_kick(struct si_executor *e);
u64 si_clock_to_ns(u64 delta);
void si_executor_wait_callback(struct si_executor *e);

void si_executor_set_wake(struct si_executor *e, enum si_wheel_kind k);

/* Changed under home's lock, read without by si_lock_home() and si_timer_pending() */
static inline void si_state_set(struct si_timer *timer, u32 state)
{
	WRITE_ONCE(timer->state, state);
}

/*
 * Into home's wheel, expiring at @expires; @state not pending. The due
 * jiffy is kept apart from timer->expires, which its owner may write (for
 * si_add_timer()) while it is armed: as for a timer_list, that changes
 * nothing until the next arming call.
 */
static __always_inline void si_wheel_hook(struct si_executor *home, struct si_timer *timer,
					  u32 state, unsigned long expires)
{
	enum si_wheel_kind k = si_wheel_kind_of(timer);
	unsigned int b;

	timer->due = si_timer_due(expires);
	if (si_wheel_add(&home->wheel[k], timer, expires, &b))
		si_executor_set_wake(home, k);
	si_state_set(timer, state | SI_STATE_ARMED | (b << SI_STATE_BUCKET_SHIFT));
}

/* expiry.c: a wake-up queues what is due; take.h: the executor takes the next to run. */
bool si_timer_collect(struct si_executor *e, enum si_wheel_kind k, unsigned int budget,
		      bool lazy);
void si_timer_unstale(struct si_executor *e);
void si_timer_rehome(struct si_timer *timer, struct si_executor *to);
unsigned int si_timer_move_wheels(struct si_executor *from, struct si_executor *to,
				  unsigned int budget);
/* timer.c: unload.c takes a pending timer off its home's lists for good. */
void si_timer_evict(struct si_executor *home, struct si_timer *timer);
/* timer.c, shared with hrtimer.c */
void si_timer_prepare(struct si_timer *timer, si_timer_func_t func, unsigned int flags,
		      const char *name, struct lock_class_key *key, bool on_stack,
		      unsigned long caller);
int si_timer_cancel_sync(struct si_timer *timer, bool shutdown);
/* hrtimer.c */
void si_hrtimer_unhook(struct si_executor *home, struct si_timer *timer);
bool si_hrtimer_hw_cancel(struct si_timer *timer);
unsigned int si_hrtimer_move(struct si_executor *from, struct si_executor *to,
			     unsigned int budget);

/*
 * unload.c: a module that uses si_timer or a module that has an owner, and
 * its pending timers on each executor (its list of that executor guarded
 * by the executor's lock), so that when it goes they are found without a
 * look at anyone else's. @deps: the owners of the modules @mod uses,
 * directly or not (they go after it), fixed when it came.
 */
struct si_owner {
	struct hlist_head __percpu	*pending;
	struct module			*mod;
	struct list_head		node;	/* in si_owners (RCU) */
	struct rcu_head			rcu;
	bool				used;	/* ever named by a timer */
	unsigned int			nr_deps;
	struct si_owner			*deps[];
};

struct si_owner *si_owner_of(const struct si_timer *timer, unsigned long caller);
int si_unload_init(void);
void si_unload_exit(void);

/*
 * @timer becomes pending on @home (locked), or comes there pending from
 * another executor. A static timer (DEFINE_SI_TIMER) is given its owner
 * when first armed.
 */
static __always_inline void si_owner_add(struct si_executor *home, struct si_timer *timer)
{
	if (unlikely(!timer->owner))
		timer->owner = si_owner_of(timer, 0);
	hlist_add_head(&timer->owner_node, per_cpu_ptr(timer->owner->pending, home->cpu));
}

/* @timer stops being pending on its home (locked), or leaves it pending. */
static __always_inline void si_owner_del(struct si_timer *timer)
{
	__hlist_del(&timer->owner_node);
}

/* debugfs.c: si_timer/timers lists this many timers, then counts the rest */
#define SI_TIMERS_MAX_LINES	10000

struct seq_file;
void si_executor_show(struct seq_file *m, unsigned int cpu);
void si_debugfs_init(void);
void si_debugfs_exit(void);

/*
 * The lockdep subclass a timer's map is taken in. Soft-interruptible
 * callbacks enter BH sections while it is held, compatible ones run inside
 * one: in one class for both, every canceller under BH would look like an
 * ABBA (lockdep sees all CPUs' BH locks as one).
 */
static inline unsigned int si_lockdep_subclass(const struct si_timer *timer)
{
	return !!(timer->flags & SI_TIMER_SOFTINTERRUPTIBLE);
}

/* A copy of the timer's lockdep map, valid after its callback freed it. */
static inline void si_lockdep_copy(struct lockdep_map *to, struct si_timer *timer)
{
#ifdef CONFIG_LOCKDEP
	lockdep_copy_map(to, &timer->lockdep_map);
#endif
}

#endif /* _SI_TIMER_INTERNAL_H */
