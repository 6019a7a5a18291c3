/* SPDX-License-Identifier: GPL-2.0 */
/*
 * si_timer: soft-interruptible timers for unmodified kernels.
 *
 * A struct si_timer behaves like a struct timer_list: same jiffies
 * semantics, same return values, same synchronisation rules. Its callback
 * runs on a per-CPU executor kthread of the CPU where the timer expired.
 *
 * Without SI_TIMER_SOFTINTERRUPTIBLE the callback runs as in the TIMER
 * softirq: in_serving_softirq() is true and no other softirq runs on that
 * CPU until it returns (on PREEMPT_RT the BH lock is held).
 *
 * With SI_TIMER_SOFTINTERRUPTIBLE (only for audited callbacks that do not
 * rely on bottom-half exclusion) the callback runs with bottom halves
 * enabled: NET_RX, TASKLET, BLOCK, RCU, soft hrtimers... may run in
 * between on that CPU, but the TIMER vector stays masked so timer_list
 * and si_timer callbacks still never interleave on one CPU (where the
 * vector mask emulation is available, see Documentation/vector-mask.md),
 * as the seed series' call_timer_fn() masks TIMER alone. A callback that
 * shares data with soft hrtimer callbacks of its CPU adds
 * SI_TIMER_MASK_HRTIMER: the HRTIMER vector stays masked too.
 */
#ifndef _SI_TIMER_H
#define _SI_TIMER_H

#include <linux/bug.h>
#include <linux/timer.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/sched.h>
#include <linux/stringify.h>

#define SI_TIMER_VERSION "0.3.0"

/* Run the callback with bottom halves enabled (audited callbacks only). */
#define SI_TIMER_SOFTINTERRUPTIBLE	0x00000001
/*
 * With SI_TIMER_SOFTINTERRUPTIBLE: keep soft hrtimer callbacks (the
 * HRTIMER vector) out as well, for a callback that shares data with them.
 */
#define SI_TIMER_MASK_HRTIMER		0x00000002
/* As TIMER_PINNED: expire on the CPU it was armed on. */
#define SI_TIMER_PINNED			TIMER_PINNED
/* As TIMER_DEFERRABLE: do not wake an idle CPU for it. */
#define SI_TIMER_DEFERRABLE		TIMER_DEFERRABLE
#define SI_TIMER_FLAGS_VALID		(SI_TIMER_SOFTINTERRUPTIBLE | \
					 SI_TIMER_MASK_HRTIMER | \
					 SI_TIMER_PINNED | SI_TIMER_DEFERRABLE)

struct si_timer;
struct si_owner;
typedef void (*si_timer_func_t)(struct si_timer *timer);

/**
 * struct si_timer - a soft-interruptible capable timer
 * @expires: expiry in jiffies, read by si_add_timer() and si_add_timer_on()
 *	     and updated by every arming call, like timer_list.expires
 * @function: the callback
 * @flags: SI_TIMER_* flags given at setup
 *
 * The other members are private to the si_timer module.
 */
struct si_timer {
	/* private: first, as timer_list's entry, for the expiry's list walk */
	struct hlist_node	node;		/* in home's wheel or on its queue */
	/* public: */
	unsigned long		expires;
	si_timer_func_t		function;
	u32			flags;
	/* private: see module/timer.c */
	u32			state;
	unsigned long		armed_at;	/* caller of the last arming call */
	unsigned long		due;		/* armed: the jiffy it expires in */
	struct si_owner		*owner;		/* the module it belongs to */
	struct hlist_node	owner_node;	/* pending: on owner's list of home */
	struct lockdep_map	lockdep_map;	/* empty without CONFIG_LOCKDEP */
};

void si_init_timer_key(struct si_timer *timer, si_timer_func_t func,
		       unsigned int flags, const char *name,
		       struct lock_class_key *key);
void si_init_timer_on_stack_key(struct si_timer *timer, si_timer_func_t func,
				unsigned int flags, const char *name,
				struct lock_class_key *key);
void si_destroy_timer_on_stack(struct si_timer *timer);

#ifdef CONFIG_LOCKDEP
#define __si_init_timer(_timer, _fn, _flags, _init)			\
	do {								\
		static struct lock_class_key __key;			\
		_init((_timer), (_fn), (_flags), #_timer, &__key);	\
	} while (0)
#else
#define __si_init_timer(_timer, _fn, _flags, _init)			\
	_init((_timer), (_fn), (_flags), NULL, NULL)
#endif

/**
 * si_timer_setup - prepare an si_timer for first use
 * @timer: the timer
 * @callback: called as callback(timer) when the timer expires
 * @flags: SI_TIMER_* flags; unknown bits are refused with a warning
 *
 * Like timer_setup(), each call site gets its own lockdep class.
 */
#define si_timer_setup(timer, callback, flags)				\
	__si_init_timer((timer), (callback), (flags), si_init_timer_key)

/**
 * si_timer_setup_on_stack - prepare an on-stack si_timer
 * @timer: the timer
 * @callback: the callback
 * @flags: SI_TIMER_* flags
 *
 * Must be balanced with si_destroy_timer_on_stack() (debugobjects).
 */
#define si_timer_setup_on_stack(timer, callback, flags)			\
	__si_init_timer((timer), (callback), (flags),			\
			si_init_timer_on_stack_key)

/* Named and keyed by where it is defined, as __TIMER_INITIALIZER() does. */
#define __SI_TIMER_FILE_LINE	__FILE__ ":" __stringify(__LINE__)
#ifdef CONFIG_LOCKDEP
#define __SI_TIMER_LOCKDEP_MAP_INIT					\
	.lockdep_map = STATIC_LOCKDEP_MAP_INIT(__SI_TIMER_FILE_LINE,	\
					       &__SI_TIMER_FILE_LINE),
#else
#define __SI_TIMER_LOCKDEP_MAP_INIT
#endif

/**
 * __SI_TIMER_INITIALIZER - static initialiser of an si_timer
 * @_function: the callback
 * @_flags: SI_TIMER_* flags
 *
 * The twin of __TIMER_INITIALIZER(). Its node is marked as that one marks
 * a timer_list's, for debugobjects to tell it from one never set up.
 */
#define __SI_TIMER_INITIALIZER(_function, _flags) {			\
		.node = { .next = TIMER_ENTRY_STATIC },			\
		.function = (_function),				\
		.flags = (_flags),					\
		__SI_TIMER_LOCKDEP_MAP_INIT				\
	}

/**
 * DEFINE_SI_TIMER - define and statically initialise an si_timer
 * @_name: variable name
 * @_function: the callback
 */
#define DEFINE_SI_TIMER(_name, _function)				\
	struct si_timer _name = __SI_TIMER_INITIALIZER(_function, 0)

/**
 * si_timer_container_of - the structure containing an si_timer
 * @var: a pointer of the containing structure's type
 * @timer: the si_timer passed to the callback
 * @field: the name of the si_timer member in that structure
 */
#define si_timer_container_of(var, timer, field)			\
	container_of(timer, typeof(*(var)), field)

int si_mod_timer(struct si_timer *timer, unsigned long expires);
int si_mod_timer_pending(struct si_timer *timer, unsigned long expires);
int si_timer_reduce(struct si_timer *timer, unsigned long expires);
void si_add_timer(struct si_timer *timer);
void si_add_timer_on(struct si_timer *timer, int cpu);
int si_timer_delete(struct si_timer *timer);
int si_timer_delete_sync(struct si_timer *timer);
int si_try_to_del_timer_sync(struct si_timer *timer);
int si_timer_shutdown(struct si_timer *timer);
int si_timer_shutdown_sync(struct si_timer *timer);
int si_timer_pending(const struct si_timer *timer);

/*
 * A query (si_timer_pending(), the si_hrtimer ones) on a NULL timer: warned
 * about once per function, answered 0 or false, where timer_pending(NULL)
 * would oops. One test and branch, so that queries stay cheap.
 */
#define __si_timer_null_query(timer)					\
	WARN_ONCE(!(timer), "si_timer: %s() on a NULL timer\n", __func__)

/**
 * si_add_timer_local - arm an inactive timer to expire on this CPU
 * @timer: the timer, with expires set
 *
 * The twin of add_timer_local(): sets SI_TIMER_PINNED, then as
 * si_add_timer(), which arms on the calling CPU's executor.
 */
static inline void si_add_timer_local(struct si_timer *timer)
{
	if (timer)
		timer->flags |= SI_TIMER_PINNED;
	si_add_timer(timer);
}

/**
 * si_add_timer_global - arm an inactive timer, not pinned
 * @timer: the timer, with expires set
 *
 * The twin of add_timer_global(): clears SI_TIMER_PINNED, then as
 * si_add_timer(). An si_timer is armed on the calling CPU's executor
 * either way, as a timer_list whose CPU timer migration leaves alone.
 */
static inline void si_add_timer_global(struct si_timer *timer)
{
	if (timer)
		timer->flags &= ~SI_TIMER_PINNED;
	si_add_timer(timer);
}

/* Aliases for code converted from the pre-6.2 names. */
static inline int si_del_timer(struct si_timer *timer)
{
	return si_timer_delete(timer);
}

static inline int si_del_timer_sync(struct si_timer *timer)
{
	return si_timer_delete_sync(timer);
}

signed long si_schedule_timeout(signed long timeout);
signed long si_schedule_timeout_interruptible(signed long timeout);
signed long si_schedule_timeout_uninterruptible(signed long timeout);

#endif /* _SI_TIMER_H */
