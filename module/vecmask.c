// SPDX-License-Identifier: GPL-2.0
/*
 * Arch-neutral front end of the softirq vector mask emulation: the
 * vecmask= parameter, the load-time self-check, masking and unmasking.
 * The back end (vecmask_ftrace.c, with the arch layer vecmask_arch.h and
 * vecmask_<arch>.c) makes the timer vector handlers call
 * si_vecmask_defer() first; everything else lives here.
 *
 * sysfs (/sys/module/si_timer/parameters/):
 *   vecmask         auto|on|off, as given at load (read-only)
 *   vecmask_active  Y if soft-interruptible callbacks mask the timer
 *                   vectors, N if they fall back to compatible mode
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "vecmask.h"

DEFINE_PER_CPU(struct si_vecmask_cpu, si_vecmask_cpu);

enum { SI_VECMASK_AUTO, SI_VECMASK_ON, SI_VECMASK_OFF };
static const char * const si_vecmask_modes[] = { "auto", "on", "off" };
static int si_vecmask_mode = SI_VECMASK_AUTO;
static bool si_vecmask_active __read_mostly;
static bool si_vecmask_tracks_handlers __read_mostly;
static char si_vecmask_test_fail_hook[64];
static char si_vecmask_test_vector_check[16];

static int si_vecmask_mode_set(const char *val, const struct kernel_param *kp)
{
	int mode = sysfs_match_string(si_vecmask_modes, val);

	if (mode < 0) {
		pr_err("vecmask=%s: expected auto, on or off\n", val);
		return -EINVAL;
	}
	*(int *)kp->arg = mode;
	return 0;
}

static int si_vecmask_mode_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n",
			 si_vecmask_modes[*(int *)kp->arg]);
}

static const struct kernel_param_ops si_vecmask_mode_ops = {
	.set = si_vecmask_mode_set,
	.get = si_vecmask_mode_get,
};
module_param_cb(vecmask, &si_vecmask_mode_ops, &si_vecmask_mode, 0444);
MODULE_PARM_DESC(vecmask, "softirq vector mask emulation for soft-interruptible callbacks: auto (default: use it if it works, else compatible mode), on (refuse to load without it), off (compatible mode)");

static int si_vecmask_active_set(const char *val, const struct kernel_param *kp)
{
	pr_err("vecmask_active is read-only: set vecmask= instead\n");
	return -EPERM;
}

static const struct kernel_param_ops si_vecmask_active_ops = {
	.set = si_vecmask_active_set,
	.get = param_get_bool,
};
module_param_cb(vecmask_active, &si_vecmask_active_ops, &si_vecmask_active, 0444);
MODULE_PARM_DESC(vecmask_active, "read-only: Y if soft-interruptible callbacks mask the timer vectors, N if they run in compatible mode");

module_param_string(vecmask_test_fail_hook, si_vecmask_test_fail_hook,
		    sizeof(si_vecmask_test_fail_hook), 0444);
MODULE_PARM_DESC(vecmask_test_fail_hook, "test only: act as if the hook on this function failed to register");

module_param_string(vecmask_test_vector_check, si_vecmask_test_vector_check,
		    sizeof(si_vecmask_test_vector_check), 0444);
MODULE_PARM_DESC(vecmask_test_vector_check, "test only: dispatch (tell the hooks' vectors from a dispatch even where softirq_vec is readable) or swapped (that, expecting each hook on the other timer vector: the check must fail)");

bool si_vecmask_available(void)
{
	return READ_ONCE(si_vecmask_active);
}
EXPORT_SYMBOL_GPL(si_vecmask_available);

bool si_vecmask_waits_for_handler_only(void)
{
	return si_vecmask_available() && READ_ONCE(si_vecmask_tracks_handlers);
}
EXPORT_SYMBOL_GPL(si_vecmask_waits_for_handler_only);

unsigned long si_vecmask_skips(unsigned int cpu, unsigned int vec)
{
	if (cpu >= nr_cpu_ids || vec >= NR_SOFTIRQS)
		return 0;
	return READ_ONCE(per_cpu(si_vecmask_cpu.skips[vec], cpu));
}
EXPORT_SYMBOL_GPL(si_vecmask_skips);

const char *si_vecmask_backend(void)
{
#ifdef SI_VECMASK_BACKEND
	return SI_VECMASK_BACKEND;
#else
	return NULL;
#endif
}
EXPORT_SYMBOL_GPL(si_vecmask_backend);

/* irq_stat is exported, raise_softirq_irqoff() is not. */
static void si_vecmask_raise(unsigned long mask)
{
	unsigned long flags;

	/* A non-atomic RMW of the pending word, as hardirqs do: irqs off. */
	local_irq_save(flags);
	or_softirq_pending(mask);
	local_irq_restore(flags);
}

/*
 * On PREEMPT_RT a timer vector handler can be in progress on this CPU
 * while the executor runs: ktimers or ksoftirqd preempted, or blocked on a
 * sleeping lock inside a timer callback. Masking then must wait for it
 * (it holds the per-CPU BH lock throughout), or a soft-interruptible
 * callback would start in the middle of that one. Taking the BH lock on
 * every mask would also wait for every BH section of the CPU, which is
 * what soft-interruptible timers are for not doing (B7: a FIFO thread
 * flooding the CPU with BH work holds it for milliseconds at a time). So
 * on RT the arch back end marks a timer vector handler in progress
 * (si_vecmask_cpu.in_handler), and only then does masking wait, and for
 * that handler alone: on the handler_lock the back end holds across it,
 * which boosts the handler's thread to the executor's priority as the BH
 * lock would. Waiting for the BH lock instead waited for the rest of that
 * thread's softirq section too (the other vectors ktimers or ksoftirqd run
 * after the timer's, up to 2 ms of them), and, where a FIFO thread of the
 * flood was queued on the BH lock first, for its whole BH section. The
 * guarantee is the same: no soft-interruptible callback starts while a
 * timer vector handler of its CPU is in progress, and none starts after
 * the mask is set (the handler defers). A handler that began before the
 * marking did is waited out here, and one that runs through the back end's
 * code is waited out before the module goes: both with synchronize_rcu(),
 * since on RT every BH section, a softirq handler's included, is an RCU
 * read-side critical section (with or without the BH lock).
 *
 * Where RT has no BH lock (6.18+, PREEMPT_RT_NEEDS_BH_LOCK off) the
 * untracked fallback, taking the BH lock, would wait for nothing: the
 * mask is then only available with the handlers tracked.
 * Returns false if it must not be used.
 */
static bool si_vecmask_track_handlers(void)
{
	unsigned int cpu;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		return true;
	/*
	 * Held in softirq context by a handler's thread, taken with softirqs
	 * enabled by the executor: lockdep would call that a softirq-unsafe
	 * lock, a deadlock only where a softirq cannot be preempted (tracking
	 * is for RT only). The executor holds nothing while it waits, and a
	 * timer callback that waits for an executor of its CPU is refused
	 * (timer.c), so it is left untracked, as cb_lock is.
	 */
	for_each_possible_cpu(cpu) {
		spin_lock_init(&per_cpu(si_vecmask_cpu.handler_lock, cpu));
		lockdep_set_notrack_class(&per_cpu(si_vecmask_cpu.handler_lock, cpu));
	}
	if (!si_vecmask_arch_track()) {
		if (SI_RT_NO_BH_LOCK)
			return false;
		pr_info("vecmask: timer vector handlers not tracked: masking waits for the BH lock\n");
		return true;
	}
	synchronize_rcu();
	WRITE_ONCE(si_vecmask_tracks_handlers, true);
	pr_info("vecmask: timer vector handlers tracked: masking waits only for one in progress\n");
	return true;
}

static void __si_vecmask_disable(unsigned long mask)
{
	/*
	 * One irq-safe RMW: a handler on this CPU sees the bit or not, and
	 * either way does something valid. A handler in progress (RT) is
	 * waited for; without the tracking, whatever holds the BH lock is.
	 * On non-RT softirqs never stop half-way, and the pair costs little.
	 * in_handler is only set under handler_lock, so one seen set is
	 * waited for to the end; the caller is pinned to this CPU.
	 */
	this_cpu_or(si_vecmask_cpu.disabled, mask & SI_TIMER_VECTORS);
	barrier();	/* the mask before the look: the same CPU's handler */
	if (!READ_ONCE(si_vecmask_tracks_handlers)) {
		local_bh_disable();
		local_bh_enable();
	} else if (this_cpu_read(si_vecmask_cpu.in_handler)) {
		spinlock_t *lock = this_cpu_ptr(&si_vecmask_cpu.handler_lock);

		spin_lock(lock);
		spin_unlock(lock);
	}
}

static void __si_vecmask_enable(unsigned long mask)
{
	unsigned long rerun, flags;

	/*
	 * With irqs off no timer vector handler starts on this CPU (the hooks
	 * run with preemption off, in a task on RT, at irq exit elsewhere),
	 * so clearing the mask and collecting what was deferred under it
	 * cannot race with si_vecmask_defer(). Even without that, clearing
	 * the mask first would be what matters: a handler that saw the bit
	 * set has recorded its vector before we look, and one that starts
	 * after runs normally. Vectors still masked (by an outer user) keep
	 * their deferred bits. Only if something was deferred do we take the
	 * BH lock: local_bh_enable() then runs the vectors here and now, or,
	 * on 6.1 while ksoftirqd is runnable, leaves them to it as it does
	 * any vector raised then.
	 */
	local_irq_save(flags);
	this_cpu_and(si_vecmask_cpu.disabled, ~mask);
	rerun = this_cpu_read(si_vecmask_cpu.deferred) &
		~this_cpu_read(si_vecmask_cpu.disabled);
	if (rerun) {
		this_cpu_and(si_vecmask_cpu.deferred, ~rerun);
		or_softirq_pending(rerun);
	}
	local_irq_restore(flags);
	if (rerun) {
		local_bh_disable();
		local_bh_enable();
	}
}

void si_vecmask_disable(unsigned long mask)
{
	if (si_vecmask_available())
		__si_vecmask_disable(mask);
}
EXPORT_SYMBOL_GPL(si_vecmask_disable);

void si_vecmask_enable(unsigned long mask)
{
	if (si_vecmask_available())
		__si_vecmask_enable(mask);
}
EXPORT_SYMBOL_GPL(si_vecmask_enable);

/*
 * Wait (up to 2 s, sleeping) until this CPU's deferred timer vectors
 * are @want, and the others are no longer pending (have run). Where
 * ksoftirqd is runnable, 6.1's local_bh_enable() leaves pending vectors to
 * it, so they may need it to run first. Generous, as it returns once
 * done: a virtual CPU on a loaded host can stall for long.
 */
static bool si_vecmask_wait_deferred(unsigned long want)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(2000);
	unsigned long got;
	bool last;

	for (;;) {
		last = time_after(jiffies, deadline);
		local_irq_disable();
		got = (this_cpu_read(si_vecmask_cpu.deferred) |
		       (local_softirq_pending() & ~want)) & SI_TIMER_VECTORS;
		local_irq_enable();
		if (got == want)
			return true;
		if (last)
			return false;
		usleep_range(100, 200);
	}
}

/*
 * Prove the hooks fire: mask both timer vectors on this CPU and raise
 * them; when dispatched both must be deferred, not run. Unmask: both must
 * run, leaving nothing deferred or pending.
 */
static int si_vecmask_selfcheck(const char **why)
{
	bool deferred, ran;

	migrate_disable();
	__si_vecmask_disable(SI_TIMER_VECTORS);
	local_bh_disable();
	si_vecmask_raise(SI_TIMER_VECTORS);
	local_bh_enable();
	deferred = si_vecmask_wait_deferred(SI_TIMER_VECTORS);
	__si_vecmask_enable(SI_TIMER_VECTORS);
	ran = si_vecmask_wait_deferred(0);
	migrate_enable();

	if (!deferred) {
		*why = "self-check: a masked timer vector was not deferred";
		return -EIO;
	}
	if (!ran) {
		*why = "self-check: deferred timer vectors did not run when unmasked";
		return -EIO;
	}
	return 0;
}

/* Without the mask, RT without the BH lock keeps nothing out of a batch. */
static void si_vecmask_warn_interleave(void)
{
	if (SI_RT_NO_BH_LOCK)
		pr_warn("without the vector mask on PREEMPT_RT without the BH lock, callbacks may interleave with timer_list and soft hrtimer callbacks of their CPU\n");
}

int si_vecmask_init(void)
{
	const char *mode = si_vecmask_modes[si_vecmask_mode];
	const char *why = "?";
	int ret;

	if (SI_RT_NO_BH_LOCK)
		pr_info("PREEMPT_RT without the BH lock: bottom halves of a CPU no longer exclude each other, timer callbacks included; soft-interruptible callbacks keep its timer vectors off, compatible ones run as timer_list callbacks do here\n");
	if (si_vecmask_mode == SI_VECMASK_OFF) {
		pr_info("vecmask=off: soft-interruptible callbacks run in compatible mode\n");
		si_vecmask_warn_interleave();
		return 0;
	}
	if (si_vecmask_backend())
		pr_info("vecmask: back end %s\n", si_vecmask_backend());
	ret = si_vecmask_arch_init(si_vecmask_test_fail_hook,
				   si_vecmask_test_vector_check, &why);
	if (!ret) {
		ret = si_vecmask_selfcheck(&why);
		if (!ret && !si_vecmask_track_handlers()) {
			why = "PREEMPT_RT without the BH lock needs the handlers tracked";
			ret = -EOPNOTSUPP;
		}
		if (ret)
			si_vecmask_arch_exit();
	}
	if (ret && si_vecmask_mode == SI_VECMASK_ON) {
		pr_err("vecmask=on: softirq vector mask emulation unavailable (%s: %pe), refusing to load\n",
		       why, ERR_PTR(ret));
		/* not the hook's -ENOENT: insmod reads that as "unknown symbol" */
		return -ENODEV;
	}
	if (ret) {
		pr_warn("vecmask=auto: softirq vector mask emulation unavailable (%s: %pe), soft-interruptible callbacks fall back to compatible mode\n",
			why, ERR_PTR(ret));
		si_vecmask_warn_interleave();
		return 0;
	}
	WRITE_ONCE(si_vecmask_active, true);
	pr_info("vecmask=%s: TIMER and HRTIMER vectors maskable per CPU, self-check passed\n",
		mode);
	return 0;
}

static long si_vecmask_flush(void *unused)
{
	local_bh_disable();
	si_vecmask_raise(this_cpu_xchg(si_vecmask_cpu.deferred, 0));
	local_bh_enable();
	return 0;
}

/*
 * Called after the executors stopped, so nothing should be masked; if
 * something is, unmask it. Once the hooks are gone no handler can defer,
 * and what was deferred is raised on its CPU. A CPU that went offline had
 * its timers migrated, and its pending bits are moot.
 */
void si_vecmask_exit(void)
{
	unsigned long skips[2] = { 0, 0 };
	unsigned int cpu;

	if (!si_vecmask_available())
		return;
	WRITE_ONCE(si_vecmask_active, false);
	for_each_possible_cpu(cpu) {
		struct si_vecmask_cpu *vc = per_cpu_ptr(&si_vecmask_cpu, cpu);

		if (READ_ONCE(vc->disabled)) {
			pr_warn("CPU %u: vectors %#lx still masked at unload\n",
				cpu, vc->disabled);
			WRITE_ONCE(vc->disabled, 0);
		}
	}
	si_vecmask_arch_exit();
	/* no handler is still in the back end's code (its text goes) */
	if (si_vecmask_tracks_handlers)
		synchronize_rcu();
	WRITE_ONCE(si_vecmask_tracks_handlers, false);
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct si_vecmask_cpu *vc = per_cpu_ptr(&si_vecmask_cpu, cpu);

		skips[0] += vc->skips[TIMER_SOFTIRQ];
		skips[1] += vc->skips[HRTIMER_SOFTIRQ];
		if (!READ_ONCE(vc->deferred))
			continue;
		if (cpu_online(cpu))
			work_on_cpu(cpu, si_vecmask_flush, NULL);
		else
			WRITE_ONCE(vc->deferred, 0);
	}
	cpus_read_unlock();
	pr_info("vecmask: hooks removed; TIMER deferred %lu times, HRTIMER %lu\n",
		skips[0], skips[1]);
}
