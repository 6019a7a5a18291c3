/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints, mirroring the kernel's timer: events (timer_init,
 * timer_start, timer_expire_entry/exit, timer_cancel) so the same tools
 * measure converted timers, plus the expiry onto an executor's queue and
 * the synchronous cancels: events/si_timer/ in tracefs. Each event names
 * the callback. The events of arming, cancelling and expiry fire under
 * the home executor's lock, inside the step they name (the race tests
 * hold callers there).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM si_timer

#if !defined(_SI_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SI_TRACE_H

#include <linux/tracepoint.h>
#include "si_timer_internal.h"

DECLARE_EVENT_CLASS(si_timer_class,
	TP_PROTO(struct si_timer *timer),
	TP_ARGS(timer),
	TP_STRUCT__entry(
		__field(void *, timer)
		__field(void *, function)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->function = (void *)si_callback_of(timer);
	),
	TP_printk("timer=%p function=%ps", __entry->timer, __entry->function)
);

TRACE_EVENT(si_timer_init,
	TP_PROTO(struct si_timer *timer),
	TP_ARGS(timer),
	TP_STRUCT__entry(
		__field(void *, timer)
		__field(void *, function)
		__field(unsigned int, flags)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->function = (void *)si_callback_of(timer);
		__entry->flags = timer->flags;
	),
	TP_printk("timer=%p function=%ps flags=%s",
		  __entry->timer, __entry->function,
		  __print_flags(__entry->flags, "|",
				{ SI_TIMER_SOFTINTERRUPTIBLE, "SOFTINTERRUPTIBLE" },
				{ SI_TIMER_MASK_HRTIMER, "MASK_HRTIMER" },
				{ SI_TIMER_HR, "HRTIMER" },
				{ SI_TIMER_PINNED, "PINNED" },
				{ SI_TIMER_DEFERRABLE, "DEFERRABLE" }))
);

/* Armed: @cpu is the CPU whose executor's wheel holds it, where it will run. */
TRACE_EVENT(si_timer_start,
	TP_PROTO(struct si_timer *timer, unsigned int cpu),
	TP_ARGS(timer, cpu),
	TP_STRUCT__entry(
		__field(void *, timer)
		__field(void *, function)
		__field(unsigned long, expires)
		__field(unsigned long, now)
		__field(unsigned int, cpu)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->function = (void *)si_callback_of(timer);
		__entry->expires = timer->expires;
		__entry->now = jiffies;
		__entry->cpu = cpu;
	),
	TP_printk("timer=%p function=%ps expires=%lu [timeout=%ld] cpu=%u",
		  __entry->timer, __entry->function, __entry->expires,
		  (long)__entry->expires - (long)__entry->now, __entry->cpu)
);

/*
 * An si_hrtimer armed: its HARD hrtimer set for @expires (ns on its clock,
 * soft expiry and slack as hrtimer_start events show them); the executor
 * of @cpu runs it.
 */
TRACE_EVENT(si_hrtimer_start,
	TP_PROTO(struct si_hrtimer *hr, unsigned int cpu),
	TP_ARGS(hr, cpu),
	TP_STRUCT__entry(
		__field(void *, timer)
		__field(void *, function)
		__field(s64, expires)
		__field(s64, softexpires)
		__field(s64, now)
		__field(unsigned int, cpu)
	),
	TP_fast_assign(
		__entry->timer = &hr->base;
		__entry->function = hr->function;
		__entry->expires = ktime_to_ns(hrtimer_get_expires(&hr->hw));
		__entry->softexpires = ktime_to_ns(hrtimer_get_softexpires(&hr->hw));
		__entry->now = ktime_to_ns(hrtimer_cb_get_time(&hr->hw));
		__entry->cpu = cpu;
	),
	TP_printk("timer=%p function=%ps expires=%lld softexpires=%lld [timeout=%lld] cpu=%u",
		  __entry->timer, __entry->function, __entry->expires,
		  __entry->softexpires, __entry->expires - __entry->now, __entry->cpu)
);
/*
 * An si_hrtimer's HARD hrtimer fired (hard interrupt context), before its
 * handler takes home's lock to queue it; @now as hrtimer_expire_entry's.
 */
TRACE_EVENT(si_hrtimer_expire,
	TP_PROTO(struct si_hrtimer *hr),
	TP_ARGS(hr),
	TP_STRUCT__entry(
		__field(void *, timer)
		__field(void *, function)
		__field(s64, now)
	),
	TP_fast_assign(
		__entry->timer = &hr->base;
		__entry->function = hr->function;
		__entry->now = ktime_to_ns(hrtimer_cb_get_time(&hr->hw));
	),
	TP_printk("timer=%p function=%ps now=%lld", __entry->timer, __entry->function,
		  __entry->now)
);
/* Expired: collected by the executor of @cpu, on its queue. */
TRACE_EVENT(si_timer_queue,
	TP_PROTO(struct si_timer *timer, unsigned int cpu),
	TP_ARGS(timer, cpu),
	TP_STRUCT__entry(
		__field(void *, timer)
		__field(void *, function)
		__field(unsigned int, cpu)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->function = (void *)si_callback_of(timer);
		__entry->cpu = cpu;
	),
	TP_printk("timer=%p function=%ps executor=%u",
		  __entry->timer, __entry->function, __entry->cpu)
);

TRACE_EVENT(si_timer_expire_entry,
	TP_PROTO(struct si_timer *timer, bool soft),
	TP_ARGS(timer, soft),
	TP_STRUCT__entry(
		__field(void *, timer)
		__field(void *, function)
		__field(unsigned long, expires)
		__field(unsigned long, now)
		__field(bool, soft)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->function = (void *)si_callback_of(timer);
		__entry->expires = timer->expires;
		__entry->now = jiffies;
		__entry->soft = soft;
	),
	TP_printk("timer=%p function=%ps expires=%lu now=%lu mode=%s",
		  __entry->timer, __entry->function, __entry->expires,
		  __entry->now, __entry->soft ? "soft-interruptible" : "compatible")
);

/*
 * The callback returned. It may have freed its timer: only the pointer
 * value and what the executor kept are recorded.
 */
TRACE_EVENT(si_timer_expire_exit,
	TP_PROTO(struct si_timer *timer, const void *fn, bool soft),
	TP_ARGS(timer, fn, soft),
	TP_STRUCT__entry(
		__field(void *, timer)
		__field(void *, function)
		__field(bool, soft)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->function = (void *)fn;
		__entry->soft = soft;
	),
	TP_printk("timer=%p function=%ps mode=%s", __entry->timer, __entry->function,
		  __entry->soft ? "soft-interruptible" : "compatible")
);

/* Deactivated while pending (armed or queued). */
DEFINE_EVENT(si_timer_class, si_timer_cancel,
	TP_PROTO(struct si_timer *timer),
	TP_ARGS(timer)
);

/* A synchronous cancel looked at the callback: @running, it waits for it. */
TRACE_EVENT(si_timer_cancel_sync,
	TP_PROTO(struct si_timer *timer, bool running),
	TP_ARGS(timer, running),
	TP_STRUCT__entry(
		__field(void *, timer)
		__field(void *, function)
		__field(bool, running)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->function = (void *)si_callback_of(timer);
		__entry->running = running;
	),
	TP_printk("timer=%p function=%ps running=%d", __entry->timer, __entry->function,
		  __entry->running)
);

/*
 * A synchronous cancel is about to wait for the running callback: the CPU
 * whose executor's callback the wait holds up (-1: none, the caller is
 * not a callback, a softirq inside one or an RT BH lock holder), and
 * whether the wait was refused because it would close a cycle of waits.
 */
TRACE_EVENT(si_timer_cancel_wait,
	TP_PROTO(struct si_timer *timer, int held_up, bool refused),
	TP_ARGS(timer, held_up, refused),
	TP_STRUCT__entry(
		__field(void *, timer)
		__field(void *, function)
		__field(int, held_up)
		__field(bool, refused)
	),
	TP_fast_assign(
		__entry->timer = timer;
		__entry->function = (void *)si_callback_of(timer);
		__entry->held_up = held_up;
		__entry->refused = refused;
	),
	TP_printk("timer=%p function=%ps held_up=%d refused=%d", __entry->timer,
		  __entry->function, __entry->held_up, __entry->refused)
);

#endif /* _SI_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE si_trace
#include <trace/define_trace.h>
