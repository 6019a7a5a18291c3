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

/*
 * 6.11 added lockdep_set_notrack_class(). Before it the closest is the
 * novalidate class, whose wait-context checks a lockdep kernel may still
 * apply; Debian's 6.1 kernels have no lockdep at all.
 */
#ifndef lockdep_set_notrack_class
#define lockdep_set_notrack_class(lock)	lockdep_set_novalidate_class(lock)
#endif

#endif /* _SI_COMPAT_H */
