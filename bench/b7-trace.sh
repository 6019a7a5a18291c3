# SPDX-License-Identifier: GPL-2.0
# B7 under tracing, in the VM (bench/b7trace.py packs and boots it with
# scripts/vm-run.sh): si_timer at prio=60 as in B7's boot, the scheduler's,
# interrupts', timers' and si_timer's events on every CPU, then the trace
# on the console (gzip, base64) before anything is unloaded: unloading
# si_timer takes its events, and the ring buffer, with it.
T=/sys/kernel/tracing
insmod /si/si_timer.ko prio=60 || exit 1
echo mono > $T/trace_clock
echo 131072 > $T/buffer_size_kb
missing=
events="sched/sched_switch sched/sched_waking sched/sched_wakeup sched/sched_pi_setprio
	irq/softirq_raise irq/softirq_entry irq/softirq_exit irq/irq_handler_entry
	irq_vectors/local_timer_entry irq_vectors/local_timer_exit
	irq_vectors/reschedule_entry irq_vectors/call_function_single_entry
	timer/hrtimer_start timer/hrtimer_expire_entry timer/hrtimer_expire_exit
	timer/timer_expire_entry
	si_timer/si_timer_start si_timer/si_timer_expire_entry si_timer/si_timer_expire_exit"
# LIGHT=1 (b7trace.py --light): only what places each si_timer expiry
# (its wake-up hrtimer, the executor's wake-up and switch-in, the
# callback), a few events per expiry, so that tracing hardly slows B7.
if [ "${LIGHT:-0}" = 1 ]; then
	wake=$(sed -n 's/^\([0-9a-f]*\) t si_executor_wake_fn.*/\1/p' /proc/kallsyms)
	# the tick's hrtimer: its lateness is the timer interrupt's (tick_sched_timer
	# on 6.1, which also has a low-res tick_nohz_handler; tick_nohz_handler on 6.12)
	tick=$(sed -n 's/^\([0-9a-f]*\) t tick_sched_timer$/\1/p' /proc/kallsyms)
	[ -n "$tick" ] || tick=$(sed -n 's/^\([0-9a-f]*\) t tick_nohz_handler$/\1/p' /proc/kallsyms)
	events="timer/hrtimer_start timer/hrtimer_expire_entry sched/sched_wakeup
		sched/sched_switch si_timer/si_timer_start si_timer/si_timer_expire_entry"
	for e in hrtimer_start hrtimer_expire_entry; do
		echo "function == 0x$wake${tick:+ || function == 0x$tick}" > $T/events/timer/$e/filter ||
			missing="$missing filter:$e"
	done
	echo 'comm ~ "si_timer/*"' > $T/events/sched/sched_wakeup/filter || missing="$missing filter:wakeup"
	echo 'next_comm ~ "si_timer/*" || prev_comm ~ "si_timer/*"' > \
		$T/events/sched/sched_switch/filter || missing="$missing filter:switch"
fi
for e in $events; do
	echo 1 > "$T/events/$e/enable" 2>/dev/null || missing="$missing $e"
done
echo "B7TRACE_MISSING$missing"
echo 1 > $T/tracing_on
insmod /si/si_timer_bench.ko only=B7
echo 0 > $T/tracing_on
dmesg | sed -n 's/.*\(SI_BENCH.*\)/\1/p'
echo "B7TRACE_OVERRUN $(sed -n 's/^overrun: //p' $T/per_cpu/cpu*/stats | tr '\n' ' ')"
dmesg -n 1
echo "B7TRACE_BEGIN"
gzip -c $T/trace | base64
echo "B7TRACE_END"
dmesg -n 7	# the harness's end marker
rmmod si_timer_bench
rmmod si_timer
