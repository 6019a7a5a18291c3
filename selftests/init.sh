#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# /init of the test VM (packed by scripts/vm.sh). si_mode= on the kernel
# command line picks what it does:
#   check  KTAP document "si_timer_load" (shell-level load/unload checks),
#          then document "si_timer_params" (si_timer loaded with each
#          non-default parameter setting, some test modules run under each,
#          refusals), then per test module in /si/tests.list: insmod si_timer.ko,
#          insmod <test>.ko (its module_init prints its own KTAP document),
#          rmmod both; then document "si_timer_modules" (one result per test
#          module + leftovers), then the end marker. All KTAP goes through
#          /dev/kmsg so that it is ordered with the kernel's own lines.
#   run    load si_timer (and si_timer_demo if present), show what it reports.
#   shell  interactive busybox shell.
#   script source /si/script.sh (its checks use the helpers below; packed
#          by `vm.sh pack`, see selftests/dkms_test.sh).
#   bench, bench_icount  `make bench` (bench/bench.py): the benchmark
#          modules in /si/bench, their SI_BENCH lines copied to the console;
#          bench_icount boots run the cost benchmarks (B3, B6), bench_scale
#          boots B9 (also -icount), bench_flood boots B7 alone (its extra
#          boots on RT kernels), the other boots the rest.
#          si_bench_quick=1 runs each one briefly; si_bench_only=B10 (or
#          other si_timer_bench ids) runs only those in the bench boot
#          (bench.py --only). check mode runs all of
#          them so, as a smoke test (bench/bench.py checks the lines).
# Every mode ends with the line SI_TIMER_HARNESS_DONE and powers off.

/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
# busybox modinfo/modprobe want /lib/modules/$(uname -r)/modules.dep
mods=/lib/modules/$(uname -r)
mkdir -p "$mods" && ln /si/*.ko "$mods/" && depmod
mode=$(sed -n 's/.* si_mode=\([a-z_]*\).*/\1/p' /proc/cmdline)
SI=/si/si_timer.ko
KPROBES=/sys/kernel/debug/kprobes/list
FTRACE_HOOKS=/sys/kernel/tracing/enabled_functions

finish() {
	echo "SI_TIMER_HARNESS_DONE" > /dev/kmsg
	sleep 1		# let the console drain
	# The other CPUs go offline the hotplug way first: poweroff stops them
	# under a running scheduler, and an RT push to one already stopped
	# WARNs ("Unexpected reschedule of offline CPU", 6.12-rt, multi-threaded
	# TCG, after our module was unloaded): the kernel's race, not ours.
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -w "$c" ] && echo 0 > "$c" 2> /dev/null
	done
	poweroff -f
}

# --- helpers for the checks: each t_<name> returns 0 ok, 1 fail (reason in
# $why), 2 skip (reason in $why); diag prints "# ..." lines.
say() { echo "$*" > /dev/kmsg; }
# diag() and ktap(), shared with selftests/dkms_test.sh.
# shellcheck source=selftests/ktap.sh
. /ktap.sh

threads() { grep -l '^si_timer' /proc/[0-9]*/comm 2>/dev/null | while read -r f; do cat "$f"; done; }
# Kernel hooks: kprobes, and ftrace callbacks on the timer vector handlers
# (si_timer's vector mask).
hooks() {
	cat "$KPROBES" 2>/dev/null
	grep -E '^(run_timer_softirq|hrtimer_run_softirq) ' "$FTRACE_HOOKS" 2>/dev/null
}
# The hooks now, to subtract later with new_hooks(). The first line is
# never a hook: busybox's grep -v -f with an empty pattern file prints
# nothing, which made every "no hook left" check pass whatever was left.
hooks_base() { { echo "# hooks before"; hooks; } > /tmp/hooks.base; }
new_hooks() { hooks | grep -vxF -f /tmp/hooks.base; }

load() {
	out=$(insmod "$@" 2>&1) || { why="insmod $1 failed: $out"; return 1; }
}
unload() {
	out=$(rmmod "$1" 2>&1) || { why="rmmod $1 failed: $out"; return 1; }
	[ ! -e "/sys/module/$1" ] || { why="/sys/module/$1 still there after rmmod"; return 1; }
}
# No si_timer thread and no new hook once the module is gone (threads may
# take a moment to be reaped).
leftovers() {
	local n=0 left
	while left=$(threads) && [ -n "$left" ] && [ $n -lt 20 ]; do
		n=$((n + 1)); usleep 100000
	done
	[ -z "$left" ] || { why="threads left after rmmod: $(echo $left)"; return 1; }
	left=$(new_hooks)
	[ -z "$left" ] || { why="hooks left after rmmod: $left"; return 1; }
}

modinfo_field() { modinfo -F "$1" "$SI"; }
t_modinfo_license() {
	[ "$(modinfo_field license)" = GPL ] || { why="license '$(modinfo_field license)', want GPL"; return 1; }
}
t_modinfo_description() {
	[ -n "$(modinfo_field description)" ] || { why="no description"; return 1; }
}
t_modinfo_parm() {
	local p
	p=$(modinfo "$SI" | grep '^parm:')
	[ -n "$p" ] || { why="no parm: lines"; return 1; }
	diag "$p"
}
t_load() {
	hooks_base
	load "$SI" || return 1
	diag "$(new_hooks | sed 's/^/hook: /')"
}
t_version() {
	local have want
	have=$(cat /sys/module/si_timer/version 2>&1) want=$(cat /si/version)
	[ "$have" = "$want" ] || { why="/sys/module/si_timer/version '$have', want '$want'"; return 1; }
}
# Every parameter in sysfs is documented by a parm: line.
t_params_documented() {
	local p
	for p in /sys/module/si_timer/parameters/*; do
		[ -e "$p" ] || continue
		diag "${p##*/} = $(cat "$p")"
		modinfo "$SI" | grep -q "^parm: *${p##*/}:" ||
			{ why="parameter ${p##*/} has no parm: line"; return 1; }
	done
}
# One executor thread si_timer/N per online CPU.
t_executors() {
	local want have
	want=$(sed -n 's/^processor[[:space:]]*: *\([0-9]*\)/si_timer\/\1/p' /proc/cpuinfo | sort)
	have=$(threads | sort)
	[ "$have" = "$want" ] || { why="executor threads: $(echo $have); want: $(echo $want)"; return 1; }
}
# "comm rt_priority policy" of each executor thread (/proc/PID/stat fields
# 40 and 41; comm has no space). Shell built-ins only: a fork per process
# takes seconds under TCG.
executor_prios() {
	local f c
	for f in /proc/[0-9]*/comm; do
		read -r c < "$f" 2>/dev/null || continue
		case $c in
		si_timer/*)
			read -r c < "${f%comm}stat" || continue
			# shellcheck disable=SC2086
			set -- $c
			echo "$2 ${40} ${41}" ;;
		esac
	done
}
# Every executor at rt_priority $1 with policy $2 (1 = SCHED_FIFO, 0 = OTHER).
executors_at() {
	local all wrong
	all=$(executor_prios)
	[ -n "$all" ] || { why="no executor thread"; return 1; }
	wrong=$(echo "$all" | awk -v p="$1" -v pol="$2" '$2 != p || $3 != pol')
	[ -z "$wrong" ] || { why="prio $1 policy $2 wanted, have: $(echo $all)"; return 1; }
}
# prio is writable: it applies at once to every executor, to one parked
# (CPU offline) at the time, and to one whose CPU first comes online later;
# out-of-range values are refused.
PRIO=/sys/module/si_timer/parameters/prio
t_prio_runtime() {
	local cpu=/sys/devices/system/cpu/cpu1/online
	[ -w "$PRIO" ] || { why="$PRIO not writable"; return 1; }
	echo 7 > "$PRIO" && executors_at 7 1 || { why="prio=7: $why"; return 1; }
	[ -w "$cpu" ] || { why="cannot offline CPU 1"; return 2; }
	# One CPU hotplug cycle (seconds under TCG) for both: CPU 1's executor
	# parked, then none for it (si_timer loaded while it is offline).
	echo 0 > "$cpu" && echo 9 > "$PRIO" && executors_at 9 1 ||
		{ why="prio=9 written with CPU 1 offline, its executor parked: $why"; return 1; }
	unload si_timer && load "$SI" || return 1
	echo 5 > "$PRIO"
	echo 1 > "$cpu"
	executors_at 5 1 && t_executors ||
		{ why="CPU 1 online after prio=5, its executor created then: $why"; return 1; }
	! echo 100 2>/dev/null > "$PRIO" || { why="prio=100 accepted"; return 1; }
	[ "$(cat "$PRIO")" = 5 ] || { why="prio reads $(cat "$PRIO") after a refused write"; return 1; }
	echo 0 > "$PRIO" && executors_at 0 0 && echo 1 > "$PRIO" && executors_at 1 1 ||
		{ why="prio 0 then 1: $why"; return 1; }
}
t_unload() { unload si_timer; }
t_no_leftovers() { leftovers; }
t_reload_3_times() {
	local i
	for i in 1 2 3; do
		load "$SI" && t_version && unload si_timer && leftovers ||
			{ why="cycle $i: $why"; return 1; }
	done
}

# An si_unload_* test module leaves timers behind on purpose: si_timer must
# not go while it is loaded, and must report each timer that the module
# announced ("# SI_UNLOAD_EXPECT <state|state...> <callback|...> <armed by|...>
# [<callback's module>]", the alternatives as in grep -E; the callback's
# module is the test module's unless named) on exactly one line when it
# goes, no other, and all of them on its summary line.
unload_sloppy() {
	local t=$1 n=0 got states cb by cbmod
	! rmmod si_timer 2>/dev/null || { why="si_timer unloaded while $t used it"; return 1; }
	unload "$t" || return 1
	dmesg > "/tmp/dmesg.$t"
	sed -n 's/.*# SI_UNLOAD_EXPECT //p' "/tmp/dmesg.$t" > "/tmp/expect.$t"
	while read -r states cb by cbmod; do
		n=$((n + 1))
		got=$(grep -cE "si_timer: module $t unloaded with a timer ($states): callback ($cb) \\[${cbmod:-$t}\\], armed at ($by)\\+0x" "/tmp/dmesg.$t")
		[ "$got" = 1 ] ||
			{ why="$got report lines for a timer $states, callback $cb armed by $by; want 1"; return 1; }
	done < "/tmp/expect.$t"
	got=$(grep -c "si_timer: module $t unloaded with a timer " "/tmp/dmesg.$t")
	[ "$n" -gt 0 ] && [ "$got" = "$n" ] ||
		{ why="$got report lines for $n timers announced"; return 1; }
	grep -q "si_timer: module $t unloaded with $n timers\\? pending or running: " "/tmp/dmesg.$t" ||
		{ why="no summary line for $n timers: $(grep "si_timer: module $t unloaded with [0-9]" "/tmp/dmesg.$t")"; return 1; }
}

# Guest time in centiseconds (/proc/uptime; busybox's date has no ns).
now_cs() {
	local up
	read -r up _ < /proc/uptime
	echo $(( ${up%.*} * 100 + $(echo "${up#*.}" | sed 's/^0//') ))
}
# Load $1 with ARGS, document "$1[ARGS]": 0 if it loaded and printed it.
load_doc() {
	local t=$1 name
	shift
	name="${t}[$(echo "$*" | tr ' ' ,)]"
	load "/si/$t.ko" "ktap_doc=$name" "$@" || return 1
	say "# SI_EXPECT_END $name"
	dmesg | grep -qF "# Subtest: $name" || { why="$t $* printed no document"; return 1; }
}
# rmmod $1, its time in centiseconds in $took.
timed_unload() {
	local t0
	t0=$(now_cs)
	unload "$1" || return 1
	took=$(( $(now_cs) - t0 ))
}
# CPUs 1.. offline and online again, one after the other, until
# /tmp/hotplug.on goes; each cycle's start and end (cs) in /tmp/hotplug.log.
hotplug_loop() {
	local f t0
	while [ -e /tmp/hotplug.on ]; do
		for f in /sys/devices/system/cpu/cpu[1-9]*/online; do
			[ -e /tmp/hotplug.on ] || break
			t0=$(now_cs)
			echo 0 > "$f" && echo 1 > "$f" && echo "$t0 $(now_cs)" >> /tmp/hotplug.log
		done
	done
}
# The report of si_unload_many's $2 leaked timers: at most 10 lines of
# their own, then "unloaded with N timers pending or running: A armed, Q
# queued, R running; ..." with N = A = $2.
many_report_ok() {
	local t=$1 n=$2 lines sum
	dmesg > "/tmp/dmesg.$t"
	lines=$(grep -c "si_timer: module $t unloaded with a timer armed: callback many_fn \[$t\], armed at many_arm+0x" "/tmp/dmesg.$t")
	sum=$(sed -n "s/.*si_timer: module $t unloaded with \([0-9]*\) timers\? pending or running: \([0-9]*\) armed, \([0-9]*\) queued, \([0-9]*\) running;.*/\1 \2 \3 \4/p" "/tmp/dmesg.$t")
	diag "$t: $lines report lines, summary (total armed queued running): $sum"
	[ "$lines" = 10 ] || { why="$lines report lines of their own for $n timers, want 10"; return 1; }
	[ "$sum" = "$n $n 0 0" ] || { why="summary '$sum' for $n armed timers leaked"; return 1; }
}
# si_unload_many (loaded by run_test_module, leaking): unload safety
# cancels a million leaked timers in the time of the same order as the
# module takes to cancel them itself (tidy=1: at most 10 times it; less as
# a rule, but each is timed on its own under TCG, whose wall clock follows
# the host's load: 3.6x seen once on a loaded host, where a per-timer
# IPI, sleep or grace period would be 30x and more), reports them in 11
# lines, and misses none
# while CPUs go offline and online during the unload (the count of the
# summary: one missed is not reported).
unload_many() {
	local t=$1 n leak tidy k=0 m=0 s e a b
	n=$(cat "/sys/module/$t/parameters/count")
	dmesg -c > /dev/null
	! rmmod si_timer 2>/dev/null || { why="si_timer unloaded while $t used it"; return 1; }
	timed_unload "$t" || return 1
	leak=$took
	many_report_ok "$t" "$n" || return 1
	load_doc "$t" tidy=1 || return 1
	dmesg -c > /dev/null
	timed_unload "$t" || return 1
	tidy=$took
	! dmesg | grep -q "si_timer: module $t unloaded with" ||
		{ why="reports for the timers $t tidy=1 cancelled itself"; return 1; }
	diag "$t: unload with $n timers armed: leaked ${leak}0 ms, cancelled by the module ${tidy}0 ms"
	[ "$leak" -le $((10 * tidy)) ] ||
		{ why="unload with $n leaked took ${leak}0 ms, more than 10 times the ${tidy}0 ms of the module cancelling them"; return 1; }
	load_doc "$t" || return 1
	dmesg -c > /dev/null
	rm -f /tmp/hotplug.log
	touch /tmp/hotplug.on
	hotplug_loop &
	# a cycle under way first
	while [ ! -s /tmp/hotplug.log ]; do usleep 100000; done
	s=$(now_cs)
	unload "$t" || { rm /tmp/hotplug.on; wait; return 1; }
	e=$(now_cs)
	rm /tmp/hotplug.on
	wait
	while read -r a b; do
		m=$((m + 1))
		[ "$b" -lt "$s" ] || [ "$a" -gt "$e" ] || k=$((k + 1))
	done < /tmp/hotplug.log
	diag "$t: $k of $m CPU hotplug cycles overlapped the unload (${s}0-${e}0 ms)"
	[ "$k" -gt 0 ] || { why="no CPU hotplug cycle during the unload"; return 1; }
	many_report_ok "$t" "$n"
}

# A test module's libraries: what its modinfo depends names and /si holds.
test_libs() {
	local d
	for d in $(modinfo -F depends "/si/$1.ko" | tr , ' '); do
		[ "$d" = si_timer ] || [ ! -f "/si/$d.ko" ] || echo "$d"
	done
}
# Unload libraries $2.. of test module $1, last loaded first. After an
# si_unload_* module, first wait several of si_unload_lib's periods: a
# timer of the module that unload safety missed fires meanwhile, in the
# module's freed memory, with the library's callback still there.
unload_libs() {
	local t=$1 l libs=
	shift
	[ $# = 0 ] && return
	case $t in si_unload_*) sleep 3 ;; esac
	for l in "$@"; do libs="$l $libs"; done
	for l in $libs; do unload "$l" || return 1; done
}

# si_trace_test takes a timer through a known sequence with si_timer's
# events enabled, and announces what the trace must then hold:
# "# SI_TRACE_EXPECT <function> <event>[:<text>]...", exactly those events
# of that callback, in that order, each line containing its text.
TRACEFS=/sys/kernel/tracing
trace_begin() {
	[ -d "$TRACEFS/events" ] || mount -t tracefs nodev "$TRACEFS" ||
		{ why="cannot mount tracefs"; return 1; }
	[ -d "$TRACEFS/events/si_timer" ] || { why="no events/si_timer in tracefs"; return 1; }
	echo 0 > "$TRACEFS/tracing_on"
	echo > "$TRACEFS/trace"
	echo 1 > "$TRACEFS/events/si_timer/enable"
	# It fires outside the home lock, between a sync cancel's look at the
	# running callback and its wait, so its place among the callback's
	# events (before or after the exit) is not fixed; si_timer_race_test
	# checks it through a probe.
	echo 0 > "$TRACEFS/events/si_timer/si_timer_cancel_wait/enable"
	echo 1 > "$TRACEFS/tracing_on"
}
trace_check() {
	local t=$1 expect
	echo 0 > "$TRACEFS/events/si_timer/enable"
	dmesg | sed -n 's/.*# SI_TRACE_EXPECT //p' > "/tmp/expect.$t"
	[ -s "/tmp/expect.$t" ] || { why="$t announced no trace"; return 1; }
	while read -r expect; do
		# shellcheck disable=SC2086
		trace_check_one "$t" $expect || return 1
	done < "/tmp/expect.$t"
}
# One announcement: callback $2, then its events.
trace_check_one() {
	local t=$1 fn=$2 i=0 ev text line
	shift 2
	[ $# -gt 0 ] || { why="$t announced no events for $fn"; return 1; }
	grep " si_[a-z_]*: .*function=$fn " "$TRACEFS/trace" > "/tmp/trace.$t"
	for ev in "$@"; do
		i=$((i + 1))
		text=${ev#*:}
		[ "$text" != "$ev" ] || text=
		line=$(sed -n "${i}p" "/tmp/trace.$t")
		case $line in
		*" ${ev%%:*}: "*"$text"*) ;;
		*) why="trace event $i of $fn: '$line', want ${ev%%:*} with '$text'"; return 1 ;;
		esac
	done
	[ "$(wc -l < "/tmp/trace.$t")" -eq $# ] ||
		{ why="$(wc -l < "/tmp/trace.$t") trace events of $fn, want $#: $(cat "/tmp/trace.$t")"; return 1; }
}

# Parameters for test module $1 from the kernel command line, written
# <module>.<param>=<value> as for built-in modules (vm.sh: SI_APPEND).
params_of() { tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1\.//p"; }

# Test modules: loaded one at a time on a fresh si_timer; module_init prints
# the KTAP document and returns 0, then the module is removed again. The
# module's expected WARNs must have come by the time insmod returns
# (SI_EXPECT_END, see ktap.py). si_keep_loaded=1 (NAME-mttcg): one si_timer
# for all of them, loaded before the first and never removed, since under
# multi-threaded TCG each load and unload patches live kernel text that
# another vCPU may run stale (testing.md, "Multi-threaded TCG").
keep_loaded=$(sed -n 's/.* si_keep_loaded=\([01]\).*/\1/p' /proc/cmdline)
run_test_module() {
	local t=$1 rc libs l
	libs=$(test_libs "$t")
	if [ "$keep_loaded" != 1 ] || [ ! -e /sys/module/si_timer ]; then
		load "$SI" || return 1
	fi
	for l in $libs; do
		# shellcheck disable=SC2086
		load "/si/$l.ko" || { rc=$why; unload_libs x $libs; unload si_timer; why=$rc; return 1; }
	done
	if [ "$t" = si_trace_test ] && ! trace_begin; then
		unload si_timer
		return 1
	fi
	# its SI_UNLOAD_EXPECT lines and reports only, not an earlier module's
	case $t in si_unload_*) dmesg -c > /dev/null ;; esac
	# shellcheck disable=SC2046 # one word per parameter
	load "/si/$t.ko" $(params_of "$t")
	rc=$?
	say "# SI_EXPECT_END $t"
	if [ $rc != 0 ]; then
		# shellcheck disable=SC2086
		unload_libs x $libs
		unload si_timer
		return 1
	fi
	case $t in
	si_unload_many) unload_many "$t" ;;
	si_unload_*) unload_sloppy "$t" ;;
	si_trace_test) trace_check "$t" && unload "$t" ;;
	*) unload "$t" ;;
	esac || {
		# leave a clean slate for the next test module
		local failed=$why
		rmmod "$t" 2>/dev/null
		for l in $libs; do rmmod "$l" 2>/dev/null; done
		rmmod si_timer 2>/dev/null
		why=$failed
		return 1
	}
	# shellcheck disable=SC2086
	unload_libs "$t" $libs || return 1
	[ "$keep_loaded" = 1 ] || { unload si_timer && leftovers; }
}

# --- si_timer loaded with non-default parameters (document si_timer_params).
# Run check t_$1 now and redefine it to report that result later, in a
# document printed after the documents of the modules it ran.
run_now() {
	local rc
	why=
	"t_$1"
	rc=$?
	printf '%s\n%s\n' "$rc" "$why" > "/tmp/res.$1"
	eval "t_$1() { { read -r rc; read -r why; } < /tmp/res.$1; return \$rc; }"
}
param() { cat "/sys/module/si_timer/parameters/$1" 2>&1; }
want_param() {
	[ "$(param "$1")" = "$2" ] || { why="$1 = '$(param "$1")', want '$2'"; return 1; }
}
want_dmesg() {
	dmesg | grep -qF "$1" || { why="no kernel line '$1'"; return 1; }
}
# param_load ARGS...: fresh si_timer with ARGS, each read back from sysfs.
param_load() {
	local a
	dmesg -c > /dev/null
	hooks_base
	load "$SI" "$@" || return 1
	for a in "$@"; do
		want_param "${a%%=*}" "${a#*=}" || return 1
	done
}
# param_modules MODULE...: run each test module (if packed) on the loaded
# si_timer, its document named "MODULE[ARGS]", then unload si_timer.
# si_vecmask_test runs a tenth of its periods and dispatches there: it is
# the mode's outcome that counts, the full numbers run with the defaults.
param_modules() {
	local t name extra err=
	for t in "$@"; do
		[ -f "/si/$t.ko" ] || continue
		name="${t}[$(echo "$PARAM_ARGS" | tr ' ' ,)]"
		extra=
		[ "$t" != si_vecmask_test ] || extra="periods=1000 bench_iters=10000"
		dmesg -c > /dev/null
		# shellcheck disable=SC2086
		load "/si/$t.ko" "ktap_doc=$name" $extra || err=$why
		say "# SI_EXPECT_END $name"
		[ -z "$err" ] || break
		dmesg | grep -qF "# Subtest: $name" || err="$t printed no document"
		unload "$t" || { err=${err:-$why}; break; }
		[ -z "$err" ] || break
	done
	unload si_timer && leftovers || err=${err:-$why}
	why=$err
	[ -z "$err" ]
}
# param_run "ARGS" CHECKS MODULE...: load with ARGS, run the shell checks
# (a command list), then the modules.
param_run() {
	PARAM_ARGS=$1
	# shellcheck disable=SC2086
	if param_load $1 && eval "$2"; then
		shift 2
		param_modules "$@"
		return
	fi
	set -- "$why"
	unload si_timer
	why=$1
	return 1
}
# param_refused "ARGS" ERRNO-TEXT KERNEL-LINE: insmod must fail with
# ERRNO-TEXT after printing KERNEL-LINE, and leave nothing behind.
param_refused() {
	dmesg -c > /dev/null
	hooks_base
	# shellcheck disable=SC2086
	if out=$(insmod "$SI" $1 2>&1); then
		why="insmod $SI $1 succeeded"
		unload si_timer
		return 1
	fi
	case $out in
	*"$2"*) ;;
	*) why="insmod $SI $1: '$out', want '$2'"; return 1 ;;
	esac
	want_dmesg "$3" && leftovers
}
PARAM_TESTS="si_timer_params_test si_vecmask_test"
t_vecmask_off() {
	param_run vecmask=off 'want_param vecmask_active N &&
		want_dmesg "vecmask=off: soft-interruptible callbacks run in compatible mode" &&
		{ [ -z "$(new_hooks)" ] || { why="hooks with vecmask=off: $(new_hooks)"; false; }; }' \
		$PARAM_TESTS
}
t_vecmask_on() {
	param_run vecmask=on 'want_param vecmask_active Y &&
		want_dmesg "vecmask=on: TIMER and HRTIMER vectors maskable per CPU, self-check passed" &&
		{ [ "$(new_hooks | grep -c softirq)" = 2 ] || { why="want 2 ftrace hooks, have: $(new_hooks)"; false; }; }' \
		si_timer_params_test
}
t_vecmask_auto_falls_back() {
	param_run vecmask_test_fail_hook=hrtimer_run_softirq 'want_param vecmask_active N &&
		want_dmesg "soft-interruptible callbacks fall back to compatible mode" &&
		{ [ -z "$(new_hooks)" ] || { why="hooks left by the fallback: $(new_hooks)"; false; }; }' \
		$PARAM_TESTS
}
# Which vector each hook serves, told from a dispatch through the
# softirq_entry tracepoint (what happens where softirq_vec cannot be read,
# as on Debian's arm64 6.1-rt), asked for even where it can.
t_vecmask_vector_check_dispatch() {
	param_run vecmask_test_vector_check=dispatch 'want_param vecmask_active Y &&
		want_dmesg "hook run_timer_softirq: fired for softirq vector 1 only" &&
		want_dmesg "hook hrtimer_run_softirq: fired for softirq vector 8 only"' \
		si_timer_params_test
}
# ... and that check fails when it expects the hooks on each other's vector.
t_vecmask_vector_check_can_fail() {
	param_run vecmask_test_vector_check=swapped 'want_param vecmask_active N &&
		want_dmesg "vector check: a hooked function serves another vector: -EINVAL), soft-interruptible callbacks fall back to compatible mode" &&
		{ [ -z "$(new_hooks)" ] || { why="hooks left by the fallback: $(new_hooks)"; false; }; }'
}
t_vecmask_on_refused_without_hooks() {
	param_refused "vecmask=on vecmask_test_fail_hook=run_timer_softirq" "No such device" \
		"vecmask=on: softirq vector mask emulation unavailable (run_timer_softirq: -ENOENT), refusing to load"
}
t_vecmask_unknown_refused() {
	param_refused vecmask=maybe "Invalid argument" "vecmask=maybe: expected auto, on or off"
}
t_prio_0() {
	param_run prio=0 'want_dmesg "executors at SCHED_OTHER 0"' si_timer_params_test
}
t_prio_out_of_range_refused() {
	param_refused prio=100 "Invalid argument" "prio=100 out of range 0-99"
}
t_soft_prio_out_of_range_refused() {
	param_refused soft_prio=-2 "Invalid argument" "soft_prio=-2 out of range -1-99"
}

# A kernel booted with preempt=MODE (vm.sh's NAME-full) really runs in that
# mode: the tests there rely on it. Reported only on such a boot.
t_preempt_model() {
	local want have
	want=$(sed -n 's/.* preempt=\([a-z]*\).*/\1/p' /proc/cmdline)
	have=$(cat /sys/kernel/debug/sched/preempt 2>&1)
	diag "preempt=$want; sched/preempt: $have"
	case " $have " in
	*"($want)"*) ;;
	*) why="booted with preempt=$want, sched/preempt reads '$have'"; return 1 ;;
	esac
}

# Results of the test modules, reported after their own documents so that
# the documents do not interleave.
check_mode() {
	local preempt=
	grep -q ' preempt=' /proc/cmdline && preempt=preempt_model
	local t tests='' params="vecmask_off vecmask_on vecmask_auto_falls_back \
		vecmask_vector_check_dispatch vecmask_vector_check_can_fail \
		vecmask_on_refused_without_hooks vecmask_unknown_refused prio_0 \
		prio_out_of_range_refused soft_prio_out_of_range_refused"
	# si_only_modules: a boot for one test module's sake (NAME-lockdep-CASE)
	if ! grep -q ' si_only_modules=1' /proc/cmdline; then
		# shellcheck disable=SC2086
		ktap si_timer_load $preempt modinfo_license modinfo_description modinfo_parm \
			load version params_documented executors prio_runtime unload \
			no_leftovers reload_3_times
		for t in $params; do run_now "$t"; done
		# shellcheck disable=SC2086
		ktap si_timer_params $params
	fi
	for t in $(cat /si/tests.list); do
		tests="$tests $t"
		why=
		if run_test_module "$t"; then echo ok; else echo "$why"; fi > "/tmp/res.$t"
		eval "t_$t() { why=\$(cat /tmp/res.$t); [ \"\$why\" = ok ]; }"
	done
	ktap si_timer_modules $tests
}

run_mode() {
	echo "=== insmod si_timer.ko"
	insmod "$SI" || { finish; return; }
	echo "=== dmesg | grep si_timer"
	dmesg | grep si_timer
	echo "=== /sys/module/si_timer"
	cat /sys/module/si_timer/version
	for p in /sys/module/si_timer/parameters/*; do
		[ -e "$p" ] && echo "${p##*/} = $(cat "$p")"
	done
	echo "=== executor threads (ps)"
	ps | grep '[s]i_timer/'
	if [ -d /sys/kernel/debug/si_timer ]; then
		echo "=== /sys/kernel/debug/si_timer"
		find /sys/kernel/debug/si_timer -type f | while read -r f; do
			echo "--- $f"; cat "$f"
		done
	fi
	if [ -f /si/si_timer_demo.ko ]; then
		echo "=== insmod si_timer_demo.ko"
		dmesg -c > /dev/null
		insmod /si/si_timer_demo.ko && rmmod si_timer_demo
		dmesg
	fi
	echo "=== rmmod si_timer"
	rmmod si_timer
	dmesg | grep si_timer | tail -n 2
}

# --- benchmarks (bench/): each insmod runs its benchmarks in module_init.
bench_quick=$(sed -n 's/.* si_bench_quick=\([01]\).*/\1/p' /proc/cmdline)
# bench.py --only: these benchmarks of the latency boot alone
bench_only=$(sed -n 's/.* si_bench_only=\([A-Za-z0-9,]*\).*/\1/p' /proc/cmdline)
BENCH=/si/bench
# Copy this module's result lines to the console unless the console has them.
bench_out() {
	[ "$mode" = check ] && return
	dmesg -c | sed -n 's/.*\(SI_BENCH.*\)/\1/p'
}
# bench_load "si_timer params" module params...
bench_load() {
	local si=$1 mod=$2
	shift 2
	dmesg -c > /dev/null
	if [ "$si" != none ]; then
		# shellcheck disable=SC2086,SC2046 # words of parameters
		insmod "$SI" $si $(params_of si_timer) ||
			{ echo "SI_BENCH_ERROR insmod si_timer $si failed"; return 1; }
	fi
	insmod "$BENCH/$mod.ko" quick="${bench_quick:-0}" "$@" ||
		echo "SI_BENCH_ERROR insmod $mod $* failed"
	bench_out
	rmmod "$mod"
	[ "$si" = none ] || rmmod si_timer
}
bench_latency() {
	if [ -n "$bench_only" ]; then
		bench_load "" si_timer_bench only="$bench_only"
		return
	fi
	bench_load "" si_timer_bench only=B1,B4,B5,B10
	# B7: the executors above the FIFO 50 flood
	grep -q PREEMPT_RT /proc/version &&
		bench_load "prio=60" si_timer_bench only=B7
	bench_udp
}
# B8, user space: a FIFO 50 UDP client on the benchmark CPU while each peer's
# long timer runs there.
bench_udp() {
	local p cpu n=200
	[ -x "$BENCH/si_bench_udp" ] || { echo "SI_BENCH_ERROR no $BENCH/si_bench_udp"; return; }
	# The debug kernels are built without IPv4.
	[ -d /proc/sys/net/ipv4 ] || { echo "SI_BENCH_SKIP B8U kernel without IPv4 (CONFIG_INET)"; return; }
	[ "$bench_quick" = 1 ] && n=20
	cpu=$(($(grep -c '^processor' /proc/cpuinfo) - 1))
	ifconfig lo 127.0.0.1 up
	for p in baseline classic compat si kdw dw; do
		insmod "$SI" && insmod "$BENCH/si_timer_bench.ko" hold=$p only=none cpu=$cpu ||
			echo "SI_BENCH_ERROR insmod hold=$p failed"
		sleep 1
		"$BENCH/si_bench_udp" $p $n 10000 $cpu
		rmmod si_timer_bench
		rmmod si_timer
	done
}
# B7 alone, for bench.py's extra boots of it (RT kernels).
bench_b7() {
	grep -q PREEMPT_RT /proc/version &&
		bench_load "prio=60" si_timer_bench only=B7
}
bench_cost() {
	bench_load "" si_timer_bench only=B3,B5i
	bench_load none si_bench_load state=baseline
	bench_load "vecmask=off" si_bench_load state=si_off
	bench_load "vecmask=on" si_bench_load state=si
}
# B9: N far-future timers of each peer armed on the last CPU while the
# module measures, and while si_bench_modtime times an unrelated module's
# unload; quick: 0 and 10,000 only.
bench_scale() {
	local n p label ns="0 10000 100000 1000000" rounds=3
	[ -x "$BENCH/si_bench_modtime" ] || { echo "SI_BENCH_ERROR no $BENCH/si_bench_modtime"; return; }
	[ "$bench_quick" = 1 ] && { ns="0 10000"; rounds=1; }
	for n in $ns; do
		case $n in 1000000) label=1M ;; 0) label=0 ;; *) label=$((n / 1000))k ;; esac
		for p in classic si; do
			dmesg -c > /dev/null
			insmod "$SI" && insmod "$BENCH/si_timer_bench.ko" quick="${bench_quick:-0}" \
				only=B9 scale_peer="$p" scale_n="$n" ||
				echo "SI_BENCH_ERROR insmod B9 $p $n failed"
			bench_out
			"$BENCH/si_bench_modtime" "$BENCH/si_bench_empty.ko" si_bench_empty "$p" "$label" "$rounds"
			rmmod si_timer_bench
			rmmod si_timer
			bench_out
		done
	done
}
bench_smoke() {
	[ -d "$BENCH" ] || return 0
	bench_quick=1
	bench_latency
	bench_cost
	bench_scale
	say "SI_BENCH_SMOKE_DONE"
}

case $mode in
check) check_mode; bench_smoke ;;
bench) bench_latency ;;
bench_icount) bench_cost ;;
bench_flood) bench_b7 ;;
bench_scale) bench_scale ;;
run) run_mode ;;
script) . /si/script.sh ;;
*)
	echo "si_timer test VM: modules in /si and $mods (insmod /si/si_timer.ko"
	echo "or modprobe si_timer). Exit the shell to power off."
	setsid cttyhack sh
	;;
esac
finish
