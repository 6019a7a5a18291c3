# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# shellcheck disable=SC2154 # mods, why: set by init.sh
#
# Sourced by /init (selftests/init.sh, si_mode=script) in the VM that
# selftests/dkms_test.sh packs: /lib/modules/<release>/updates/dkms/ holds
# the .ko files DKMS installed and modules.dep depmod's lines for them;
# /si/migrated/ the converted sample drivers. KTAP document
# si_timer_dkms_vm-<release>, through init.sh's helpers.

dkms_dir=$mods/updates/dkms

# wait_param MODULE PARAM MIN: up to 10 s for a counter to reach MIN.
wait_param() {
	local n=0 v
	while v=$(cat "/sys/module/$1/parameters/$2" 2>/dev/null) && [ "$v" -lt "$3" ] && [ $n -lt 100 ]; do
		n=$((n + 1)); usleep 100000
	done
	[ "${v:-0}" -ge "$3" ] || { why="$1: $2 = ${v:-?} after 10 s, want >= $3"; return 1; }
}
ran_on_executor() {
	local r
	r=$(cat "/sys/module/$1/parameters/ran_on")
	case $r in si_timer/*) ;; *) why="$1: callback ran in '$r', not on an si_timer executor"; return 1 ;; esac
}

t_installed_version() {
	local have
	have=$(modinfo -F version "$(ls "$dkms_dir"/si_timer.ko* | head -n1)")
	[ "$have" = "$(cat /si/version)" ] || { why="installed si_timer is '$have', want $(cat /si/version)"; return 1; }
	diag "$(ls "$dkms_dir")"
}
t_modprobe_dependent() {
	hooks_base
	out=$(modprobe si_timer_sample 2>&1) || { why="modprobe si_timer_sample: $out"; return 1; }
}
t_si_timer_loaded_first() {
	[ -d /sys/module/si_timer ] || { why="si_timer not loaded by modprobe"; return 1; }
	[ -e /sys/module/si_timer/holders/si_timer_sample ] ||
		{ why="si_timer_sample does not hold si_timer"; return 1; }
}
t_dependent_timer_fires() {
	wait_param si_timer_sample fired 3 && ran_on_executor si_timer_sample
}
migrated() {
	local m=$1
	load "/si/migrated/$m.ko" || return 1
	wait_param "$m" fired "$(cat /sys/module/"$m"/parameters/want)" && ran_on_executor "$m" || {
		unload "$m"; return 1; }
	unload "$m"
}
t_migrated_mig_embedded() { migrated mig_embedded; }
t_migrated_mig_static() { migrated mig_static; }
t_migrated_mig_array() { migrated mig_array; }
t_migrated_mig_hrtimer() { migrated mig_hrtimer; }
# Converted callbacks stay in compatible mode: in_serving_softirq() as before.
t_migrated_mig_onstack() {
	load /si/migrated/mig_onstack.ko || return 1
	local s
	s=$(cat /sys/module/mig_onstack/parameters/in_softirq_ctx)
	[ "$(cat /sys/module/mig_onstack/parameters/fired)" = 1 ] && ran_on_executor mig_onstack || {
		why="${why:-callback did not run}"; unload mig_onstack; return 1; }
	unload mig_onstack || return 1
	[ "$s" = 1 ] || { why="in_serving_softirq() was $s in the converted callback, want 1 (compatible)"; return 1; }
}
t_remove() {
	unload si_timer_sample && unload si_timer && leftovers
}

ktap "si_timer_dkms_vm-$(uname -r)" installed_version modprobe_dependent si_timer_loaded_first \
	dependent_timer_fires migrated_mig_embedded migrated_mig_static migrated_mig_onstack \
	migrated_mig_array migrated_mig_hrtimer remove
