#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# /init of the test VM (packed by scripts/vm.sh). si_mode= on the kernel
# command line picks what it does:
#   check  KTAP document "si_timer_load" (shell-level load/unload checks),
#          then per test module in /si/tests.list: insmod si_timer.ko,
#          insmod <test>.ko (its module_init prints its own KTAP document),
#          rmmod both; then document "si_timer_modules" (one result per test
#          module + leftovers), then the end marker. All KTAP goes through
#          /dev/kmsg so that it is ordered with the kernel's own lines.
#   run    load si_timer (and si_timer_demo if present), show what it reports.
#   shell  interactive busybox shell.
# Every mode ends with the line SI_TIMER_HARNESS_DONE and powers off.

/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# busybox modinfo/modprobe want /lib/modules/$(uname -r)/modules.dep
mods=/lib/modules/$(uname -r)
mkdir -p "$mods" && ln /si/*.ko "$mods/" && depmod
mode=$(sed -n 's/.* si_mode=\([a-z]*\).*/\1/p' /proc/cmdline)
SI=/si/si_timer.ko
KPROBES=/sys/kernel/debug/kprobes/list

finish() {
	echo "SI_TIMER_HARNESS_DONE" > /dev/kmsg
	sleep 1		# let the console drain
	# Without ACPI (the debug kernels) power-off only halts; a reset ends
	# QEMU too, as it runs with -no-reboot.
	[ -d /sys/firmware/acpi ] || reboot -f
	poweroff -f
}

# --- helpers for the checks: each t_<name> returns 0 ok, 1 fail (reason in
# $why), 2 skip (reason in $why); diag prints "# ..." lines.
say() { echo "$*" > /dev/kmsg; }
diag() {
	[ -z "$*" ] || echo "$*" | while IFS= read -r l; do say "# $l"; done
}

# ktap DOC TEST... : one KTAP document running t_TEST for each TEST.
ktap() {
	local doc=$1 i=0 t rc
	shift
	say "KTAP version 1"
	say "# Subtest: $doc"
	say "1..$#"
	for t in "$@"; do
		i=$((i + 1))
		why=
		"t_$t"
		rc=$?
		case $rc in
		0) say "ok $i $t" ;;
		2) say "ok $i $t # SKIP $why" ;;
		*) diag "${why:-t_$t returned $rc}"; say "not ok $i $t" ;;
		esac
	done
}

threads() { grep -l '^si_timer' /proc/[0-9]*/comm 2>/dev/null | while read -r f; do cat "$f"; done; }
kprobes() { cat "$KPROBES" 2>/dev/null; }

load() {
	out=$(insmod "$@" 2>&1) || { why="insmod $1 failed: $out"; return 1; }
}
unload() {
	out=$(rmmod "$1" 2>&1) || { why="rmmod $1 failed: $out"; return 1; }
	[ ! -e "/sys/module/$1" ] || { why="/sys/module/$1 still there after rmmod"; return 1; }
}
# No si_timer thread and no new kprobe once the module is gone (threads may
# take a moment to be reaped).
leftovers() {
	local n=0 left
	while left=$(threads) && [ -n "$left" ] && [ $n -lt 20 ]; do
		n=$((n + 1)); usleep 100000
	done
	[ -z "$left" ] || { why="threads left after rmmod: $(echo $left)"; return 1; }
	left=$(kprobes | grep -vxF -f /tmp/kprobes.base)
	[ -z "$left" ] || { why="kprobes left after rmmod: $left"; return 1; }
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
	kprobes > /tmp/kprobes.base
	load "$SI" || return 1
	diag "$(kprobes | grep -vxF -f /tmp/kprobes.base | sed 's/^/kprobe: /')"
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
t_unload() { unload si_timer; }
t_no_leftovers() { leftovers; }
t_reload_3_times() {
	local i
	for i in 1 2 3; do
		load "$SI" && t_version && unload si_timer && leftovers ||
			{ why="cycle $i: $why"; return 1; }
	done
}

# Test modules: loaded one at a time on a fresh si_timer; module_init prints
# the KTAP document and returns 0, then the module is removed again.
run_test_module() {
	local t=$1
	load "$SI" || return 1
	if ! load "/si/$t.ko"; then
		unload si_timer
		return 1
	fi
	unload "$t" || return 1
	unload si_timer && leftovers
}

# Results of the test modules, reported after their own documents so that
# the documents do not interleave.
check_mode() {
	ktap si_timer_load modinfo_license modinfo_description modinfo_parm \
		load version params_documented executors unload no_leftovers \
		reload_3_times
	local t tests=''
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

case $mode in
check) check_mode ;;
run) run_mode ;;
*)
	echo "si_timer test VM: modules in /si and $mods (insmod /si/si_timer.ko"
	echo "or modprobe si_timer). Exit the shell to power off."
	setsid cttyhack sh
	;;
esac
finish
