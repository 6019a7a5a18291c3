/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints, mirroring the kernel's timer:timer_expire_entry/exit so the
 * same tools measure converted timers: events/si_timer/ in tracefs.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM si_timer

#if !defined(_SI_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SI_TRACE_H

#include <linux/tracepoint.h>
#include <si_timer.h>

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
		__entry->function = timer->function;
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
		__entry->function = timer->function;
		__entry->expires = timer->wheel.expires;
		__entry->now = jiffies;
		__entry->soft = soft;
	),
	TP_printk("timer=%p function=%ps expires=%lu now=%lu mode=%s",
		  __entry->timer, __entry->function, __entry->expires,
		  __entry->now, __entry->soft ? "soft-interruptible" : "compatible")
);

TRACE_EVENT(si_timer_expire_exit,
	TP_PROTO(struct si_timer *timer),
	TP_ARGS(timer),
	TP_STRUCT__entry(
		__field(void *, timer)
	),
	TP_fast_assign(
		__entry->timer = timer;
	),
	TP_printk("timer=%p", __entry->timer)
);

#endif /* _SI_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE si_trace
#include <trace/define_trace.h>
