/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU softirq disabled mask, emulated from a module (the seed series'
 * local_softirq_disabled()). A masked vector that is raised stays pending,
 * is neither run nor lost, and runs once the mask is cleared.
 */
#ifndef _SI_VECMASK_H
#define _SI_VECMASK_H

#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include "vecmask_arch.h"

#define SI_TIMER_VECTORS	(BIT(TIMER_SOFTIRQ) | BIT(HRTIMER_SOFTIRQ))

int si_vecmask_init(void);
void si_vecmask_exit(void);

/*
 * Exported (GPL) for the test modules only; inside si_timer the executor
 * is the one user. Only SI_TIMER_VECTORS can be masked.
 *
 * si_vecmask_disable() and si_vecmask_enable() are called in task context
 * with bottom halves enabled, by a task pinned to its CPU (the executor
 * kthread), on the same CPU and in pairs. Off PREEMPT_RT the executor
 * keeps preemption disabled from before the one to after the other, so
 * that no other task runs on the CPU while it is masked. Like the seed's
 * local_bh_vec_disable()/local_bh_vec_enable() they set and clear bits:
 * they do not count, so the first enable of a vector unmasks it. Both are
 * no-ops while si_vecmask_available() is false.
 */
bool si_vecmask_available(void);
void si_vecmask_disable(unsigned long mask);
void si_vecmask_enable(unsigned long mask);
/*
 * True if masking waits only for a timer vector handler in progress on the
 * CPU (PREEMPT_RT with the handlers tracked), not for the BH lock.
 */
bool si_vecmask_waits_for_handler_only(void);
/* Handler runs of @vec skipped on @cpu because it was masked there. */
unsigned long si_vecmask_skips(unsigned int cpu, unsigned int vec);
/*
 * The back end this build of si_timer has ("x86-64, ftrace with regs",
 * "arm64, ftrace with args", ...), NULL if none: with one, vecmask=auto
 * is active unless a hook fails to register or the self-check fails.
 */
const char *si_vecmask_backend(void);

/* Shared by the front end (vecmask.c) and the arch back end. */
struct si_vecmask_cpu {
	unsigned long disabled;		/* masked vectors */
	unsigned long deferred;		/* raised while masked, not yet rerun */
	bool in_handler;		/* a timer vector handler runs (tracked) */
	/* the task whose handler the back end calls, under handler_lock */
	struct task_struct *calling;
	/*
	 * Held by a tracked handler while it runs (in_handler set inside it):
	 * what masking waits on instead of the BH lock (vecmask.c).
	 */
	spinlock_t handler_lock;
	unsigned long skips[NR_SOFTIRQS];
};
DECLARE_PER_CPU(struct si_vecmask_cpu, si_vecmask_cpu);

/*
 * A tracked timer vector handler of this CPU is in progress, in a task
 * that does not have the CPU now (PREEMPT_RT: ktimers or ksoftirqd
 * preempted or blocked in it); the caller is pinned to the CPU. Always
 * false elsewhere, where handlers never stop half way, and where they are
 * not tracked.
 */
static __always_inline bool si_vecmask_handler_in_progress(void)
{
	return IS_ENABLED(CONFIG_PREEMPT_RT) && this_cpu_read(si_vecmask_cpu.in_handler);
}

/*
 * Called at the entry of @vec's handler, in softirq context on this CPU
 * with preemption disabled: true if the handler must not run now, in which
 * case the vector has been recorded for si_vecmask_enable() to raise again.
 * Not masked is one per-CPU load and a branch.
 */
static __always_inline bool si_vecmask_defer(unsigned int vec)
{
	if (likely(!(this_cpu_read(si_vecmask_cpu.disabled) & BIT(vec))))
		return false;
	this_cpu_or(si_vecmask_cpu.deferred, BIT(vec));
	this_cpu_inc(si_vecmask_cpu.skips[vec]);
	return true;
}

/*
 * The back end (vecmask_ftrace.c, where vecmask_arch.h names one) hooks
 * the handlers of SI_TIMER_VECTORS so that they call si_vecmask_defer()
 * first. @fail_hook (test only) names a hook to treat as unresolvable;
 * @vector_check (test only, vecmask_test_vector_check) "dispatch" or
 * "swapped" asks for the dispatch check of the hooks' vectors; on failure
 * *@why names what failed. si_vecmask_arch_track(), after init,
 * makes the hooked handlers keep si_vecmask_cpu.in_handler set and
 * handler_lock held while they run, if it can (true).
 */
#ifdef SI_VECMASK_BACKEND
int si_vecmask_arch_init(const char *fail_hook, const char *vector_check,
			 const char **why);
void si_vecmask_arch_exit(void);
bool si_vecmask_arch_track(void);
#else
static inline int si_vecmask_arch_init(const char *fail_hook,
				       const char *vector_check,
				       const char **why)
{
	*why = "no back end for this architecture or ftrace flavour";
	return -EOPNOTSUPP;
}

static inline void si_vecmask_arch_exit(void)
{
}

static inline bool si_vecmask_arch_track(void)
{
	return false;
}
#endif

#endif /* _SI_VECMASK_H */
