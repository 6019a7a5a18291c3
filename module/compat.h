/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place for kernel-version differences, included by every source of
 * the project; the probe results (generated/si_compat_probed.h) are
 * force-included by Kbuild ahead of it.
 * Code is written against the newest kernel names; this header defines them
 * for kernels that predate them, based on what the target headers declare.
 */
#ifndef _SI_COMPAT_H
#define _SI_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/lockdep.h>
#include <linux/timer.h>

/* 6.16 renamed these; the old names are gone there. */
#ifndef SI_HAVE_TIMER_DELETE_SYNC_TRY
#define timer_delete_sync_try(t)	try_to_del_timer_sync(t)
#endif
#ifndef SI_HAVE_TIMER_DESTROY_ON_STACK
#define timer_destroy_on_stack(t)	destroy_timer_on_stack(t)
#endif
#ifndef SI_HAVE_TIMER_CONTAINER_OF
#define timer_container_of(var, t, field)	from_timer(var, t, field)
#endif

/* 6.2 (6.1.y got them as stable backports, hence the probe). */
#ifndef SI_HAVE_TIMER_DELETE
#define timer_delete(t)			del_timer(t)
#endif
#ifndef SI_HAVE_TIMER_SHUTDOWN
#error "si_timer needs timer_shutdown_sync() (Linux 6.2, or 6.1.y with the backport)"
#endif

/* 6.13 added hrtimer_setup(); 6.15 removed hrtimer_init(). */
#ifndef SI_HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

#ifndef SI_HAVE_HRTIMER_SETUP_ON_STACK
static inline void hrtimer_setup_on_stack(struct hrtimer *timer,
					  enum hrtimer_restart (*function)(struct hrtimer *),
					  clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init_on_stack(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * A kthread_worker bound to @cpu, named by @namefmt with one "%u" for the
 * CPU: since 6.14 the function fills it in itself (no varargs) and leaves
 * the worker to be woken, by the first work queued.
 */
#ifdef SI_HAVE_KTHREAD_RUN_WORKER_ON_CPU
#define si_kthread_create_worker_on_cpu(cpu, namefmt)			\
	kthread_create_worker_on_cpu((cpu), 0, (namefmt))
#else
#define si_kthread_create_worker_on_cpu(cpu, namefmt)			\
	({								\
		int __cpu = (cpu);					\
		kthread_create_worker_on_cpu(__cpu, 0, (namefmt), __cpu); \
	})
#endif

/* hrtimer_callback_running(): in hrtimer_bases.h since 7.x, not included by hrtimer.h. */
#ifdef SI_HAVE_HRTIMER_BASES_H
#include <linux/hrtimer_bases.h>
#endif

/*
 * PREEMPT_RT's per-CPU BH lock, the "big softirq lock": always there
 * before 6.18, optional since (PREEMPT_RT_NEEDS_BH_LOCK, off in Debian's
 * 7.x RT kernels). Without it local_bh_disable() excludes nothing: a
 * softirq handler, timer callbacks included, can be preempted by a task
 * that runs other softirqs on the same CPU (Documentation/newer-kernels.md).
 */
#if defined(CONFIG_PREEMPT_RT) && !defined(SI_HAVE_KERNEL_DOT_CONFIG)
#error "si_timer: no .config in the kernel build tree: is there a PREEMPT_RT BH lock?"
#endif
#if defined(CONFIG_PREEMPT_RT) && \
	(!defined(SI_HAVE_RT_BH_LOCK_OPTION) || defined(CONFIG_PREEMPT_RT_NEEDS_BH_LOCK))
#define SI_RT_BH_LOCK	1
#else
#define SI_RT_BH_LOCK	0
#endif
#define SI_RT_NO_BH_LOCK	(IS_ENABLED(CONFIG_PREEMPT_RT) && !SI_RT_BH_LOCK)

/*
 * 6.10 added alloc_netdev_dummy() and later kernels removed
 * init_dummy_netdev(): a never-registered device to hang NAPI contexts on,
 * freed with free_netdev(). A macro, so that only its users need
 * <linux/netdevice.h>.
 */
#ifndef SI_HAVE_ALLOC_NETDEV_DUMMY
#define alloc_netdev_dummy(sizeof_priv) \
	alloc_netdev(sizeof_priv, "dummy#", NET_NAME_UNKNOWN, ether_setup)
#endif

/*
 * 7.3 moved struct module_use into kernel/module/internal.h. Its layout
 * has not changed since 2.6.35; module/unload.c checks every entry it reads
 * (use->source must be the module whose list it walks) and falls back to
 * tracking the module if one does not match.
 */
#ifndef SI_HAVE_STRUCT_MODULE_USE
struct module_use {
	struct list_head source_list;
	struct list_head target_list;
	struct module *source, *target;
};
#endif

/*
 * 6.1 names the architecture's ftrace_regs ip setter (defined where it has
 * DYNAMIC_FTRACE_WITH_ARGS: x86-64 since 5.11) by its older name.
 */
#ifndef SI_HAVE_FTRACE_REGS_SET_IP
#define ftrace_regs_set_instruction_pointer(fregs, ip)	ftrace_instruction_pointer_set(fregs, ip)
#endif

/*
 * 6.11 added lockdep_set_notrack_class(). Before it the closest is the
 * novalidate class, whose wait-context checks a lockdep kernel may still
 * apply; Debian's 6.1 kernels have no lockdep at all.
 */
#ifndef lockdep_set_notrack_class
#define lockdep_set_notrack_class(lock)	lockdep_set_novalidate_class(lock)
#endif

#endif /* _SI_COMPAT_H */
