#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check` step "dkms" (selftests/runner.py): the migration kit and the
# DKMS flow, as a distribution and a driver author meet them. Prints KTAP on
# stdout, the VM consoles included, and ends with SI_TIMER_HARNESS_DONE:
#   si_timer_migrate   samples/migrate/*.c converted (scripts/si-migrate.sh)
#   si_timer_audit     scripts/si-timer-audit.py's verdicts on those samples
#   si_timer_dkms      selftests/dkms_chroot.sh in a throw-away root: .deb,
#                      dependent DKMS package, kernel updates OLD -> NEW
#                      -> NEWER (Debian's 7.x)
#   si_timer_dkms_vm-<release>  per kernel, in QEMU: modprobe of the dependent
#                      loads the DKMS-installed si_timer first, the timers of
#                      the dependent and of the converted samples fire
#   si_timer_dkms_boot one result per VM boot
#   si_timer_vm_run    `make vm-run` with a module directory and a script
#
#   dkms_test.sh [--host-only] [OLD NEW [NEWER]]   kernel names of scripts/vm.sh
#                      (6.1-rt 6.12-rt 7.x-rt; NEWER "-": none); --host-only: si_timer_migrate and
#                      si_timer_audit only (seconds, no root, no VM)
# Logs: build/logs/dkms.log (host side), build/logs/dkms-<name>.log (consoles).
# The t_* functions are called through ktap().
# shellcheck disable=SC2317
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
host_only=
[ "${1:-}" = --host-only ] && { host_only=1; shift; }
OLD_NAME=${1:-6.1-rt} NEW_NAME=${2:-6.12-rt} NEWER_NAME=${3:-7.x-rt}
[ "$NEWER_NAME" != - ] || NEWER_NAME=
out=$top/build/dkms
LOG=$top/build/logs/dkms.log
rm -rf "$out"
mkdir -p "$out/out" "$top/build/logs"
: > "$LOG"
say() { echo "$*"; }
KTAP_LOG=$LOG
# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"
fail() { why="$*"; return 1; }
finish() { say "SI_TIMER_HARNESS_DONE"; exit 0; }

# resolved NAME FIELD: FIELD (KVER, KDIR) of kernel NAME, as scripts/vm.sh resolves it
resolved() { bash scripts/vm.sh resolve "$1" 2>/dev/null | sed -n "s/^$2=//p"; }
kver() { resolved "$1" KVER; }
OLD=$(kver "$OLD_NAME") NEW=$(kver "$NEW_NAME") NEWER=
if [ -n "$NEWER_NAME" ]; then
	NEWER=$(kver "$NEWER_NAME")
	NEWER_KDIR=$(resolved "$NEWER_NAME" KDIR)
	# 7.x is unpacked next to its build tree (scripts/newer-kernels.sh)
	NEWER_MODDIR=${NEWER_KDIR%/build}/modules
fi
samples=$(cd samples/migrate && ls -- *.c | sed 's/\.c$//')

# --- si_timer_migrate: convert copies of the samples.
mig=$out/migrated
cp -r samples/migrate "$mig"
# Calls of the timer_list API that must all be gone from the code.
OLD_API='\b(timer_setup(_on_stack)?|destroy_timer_on_stack|DEFINE_TIMER|from_timer|timer_container_of|mod_timer(_pending)?|timer_reduce|add_timer(_on)?|del_timer(_sync)?|timer_delete(_sync)?|try_to_del_timer_sync|timer_shutdown(_sync)?|timer_pending)\b|struct timer_list|TIMER_(PINNED|DEFERRABLE)|<linux/timer.h>'
# ... and of the hrtimer API, for the driver's own SOFT hrtimers.
OLD_API="$OLD_API"'|\bhrtimer_(setup|init|start|cancel|try_to_cancel|forward(_now)?)\b|\bstruct hrtimer\b'
convert() {
	local f=$mig/$1.c left
	bash scripts/si-migrate.sh "$f" || fail "si-migrate.sh failed" || return 1
	# Code only: string literals and comment lines may name the old API.
	left=$(sed 's/"\([^"\\]\|\\.\)*"/""/g; s/\bsi_[a-z_]*//g; s/\b[A-Z_]*SI_TIMER[A-Z_]*//g' "$f" |
		grep -nE "$OLD_API" | grep -vE '^[0-9]+:[[:space:]]*(/?\*|//)')
	[ -z "$left" ] || fail "timer_list API left: $left" || return 1
	grep -qE '^#include <si_(hr)?timer.h>' "$f" || fail "no #include <si_timer.h> or <si_hrtimer.h>" ||
		return 1
	! grep -q SI_TIMER_SOFTINTERRUPTIBLE "$f" || fail "a callback was opted in by the converter"
}
for s in $samples; do eval "t_convert_$s() { convert $s; }"; done
t_reconvert_changes_nothing() {
	local d
	d=$(bash scripts/si-migrate.sh --diff "$mig")
	[ -z "$d" ] || fail "second run changed: $(echo "$d" | head -n 20)"
}
t_flags_mapped() {
	grep -q 'SI_TIMER_DEFERRABLE' "$mig/mig_array.c" && grep -q 'SI_TIMER_PINNED' "$mig/mig_static.c" ||
		fail "TIMER_PINNED/TIMER_DEFERRABLE not mapped"
}
# shellcheck disable=SC2046,SC2086
ktap si_timer_migrate $(printf 'convert_%s ' $samples) reconvert_changes_nothing flags_mapped
# shellcheck disable=SC2086
printf 'include /usr/share/si_timer/si_timer.mk\nobj-m := %s\n' \
	"$(printf '%s.o ' $samples)" > "$mig/Kbuild"

# --- si_timer_audit: the verdicts the samples were written to have, on the
# timer_list originals and on the converted copies.
expect="mig_embedded.c:mig_timer_fn=needs_bh mig_static.c:mig_static_fn=safe
	mig_onstack.c:mig_onstack_fn=keep_compatible mig_array.c:mig_queue_fn=keep_compatible
	mig_hrtimer.c:mig_hr_fn=safe"
audit() {
	local dir=$1 e got
	python3 scripts/si-timer-audit.py --format=tsv "$dir" > "$out/audit-$2.tsv" ||
		fail "si-timer-audit.py failed" || return 1
	for e in $expect; do
		got=$(awk -F'\t' -v k="${e%=*}" '$1":"$2 == k { print $3 }' "$out/audit-$2.tsv")
		[ "$got" = "${e#*=}" ] || fail "${e%=*}: verdict '$got', want '${e#*=}'" || return 1
	done
	[ "$(wc -l < "$out/audit-$2.tsv")" -eq 5 ] || fail "want 5 callbacks, got: $(cat "$out/audit-$2.tsv")"
}
t_audit_timer_list_sources() { audit samples/migrate orig; }
t_audit_converted_sources() { audit "$mig" conv; }
# The evidence names the softirq side that shares the lock, and a lock that
# only timers share is not held against the callback.
t_audit_evidence() {
	python3 scripts/si-timer-audit.py samples/migrate > "$out/audit.txt" || fail "audit failed" || return 1
	grep -q 'mig_tasklet_fn' "$out/audit.txt" || fail "tasklet taking the lock not named" || return 1
	grep -q 'mig_poll' "$out/audit.txt" || fail "NAPI poll sharing per-CPU data not named" || return 1
	grep -q 'in_serving_softirq' "$out/audit.txt" || fail "in_serving_softirq() not named" || return 1
	! grep -q 'needs_bh.*stats_lock\|stats_lock.*needs_bh' "$out/audit.txt" ||
		fail "a lock shared with timers only was flagged"
}
# Every FILE:LINE the audit names holds what it says is there: the callback's
# name, or the call named before "at" (the function itself for a "(FILE:LINE)").
t_audit_evidence_lines() {
	local at what file line n=0
	python3 scripts/si-timer-audit.py samples/migrate > "$out/audit.txt" || fail "audit failed" || return 1
	while read -r what at; do
		file=samples/migrate/${at%:*}
		line=$(sed -n "${at##*:}p" "$file")
		case $line in
		*"$what"*) n=$((n + 1)) ;;
		*) fail "audit names $what at $at, where the line is: $line" || return 1 ;;
		esac
	done < <(grep -o '[A-Za-z_][A-Za-z_0-9]*([^()]*)\?[^()]* at mig_[a-z]*\.c:[0-9]*' "$out/audit.txt" |
		 sed 's/^\([A-Za-z_0-9]*\).* at \(mig_[a-z]*\.c:[0-9]*\)$/\1 \2/')
	[ "$n" -ge 6 ] || fail "only $n located evidence lines found"
}
ktap si_timer_audit audit_timer_list_sources audit_converted_sources audit_evidence audit_evidence_lines
[ -z "$host_only" ] || finish

# --- si_timer_dkms: a throw-away root: an overlay on /, in a private mount
# namespace that dies with the step.
deb=$(bash scripts/dkms.sh deb "$out" 2>> "$LOG")
if [ -z "$OLD" ] || [ -z "$NEW" ] || [ -z "$deb" ] || { [ -n "$NEWER_NAME" ] && [ -z "$NEWER" ]; }; then
	diag "kernels '$OLD_NAME'='$OLD' '$NEW_NAME'='$NEW' '$NEWER_NAME'='$NEWER', deb '$deb' (see $LOG)"
	say "KTAP version 1"; say "# Subtest: si_timer_dkms"; say "1..1"; say "not ok 1 setup"
	finish
fi
# shellcheck disable=SC2016
unshare --mount --propagation private bash -c '
	set -e
	root=$(mktemp -d /dev/shm/si-dkms-root.XXXXXX)
	mount -t tmpfs si-dkms "$root"
	mkdir "$root/upper" "$root/work" "$root/merged"
	mount -t overlay si-dkms -o "lowerdir=/,upperdir=$root/upper,workdir=$root/work" "$root/merged"
	mount --rbind /dev "$root/merged/dev"
	mount -t proc proc "$root/merged/proc"
	mount -t sysfs sysfs "$root/merged/sys"
	mount -t tmpfs tmp "$root/merged/tmp"
	# The tree, wherever it is: under /tmp (hidden by the tmpfs), or on a
	# mount of its own (the overlay of / does not show submounts).
	mkdir -p "$root/merged$1"
	mount --bind "$1" "$root/merged$1"
	mount --bind "$3" "$root/merged$3"		# OUT and the log reach the host
	mount --bind "$(dirname "$4")" "$root/merged$(dirname "$4")"
	rmdir "$root" 2>/dev/null || true
	chroot "$root/merged" "$1/selftests/dkms_chroot.sh" "$5" "$6" "$2" \
		"$1/samples/dkms-dependent" "$1/build/dkms/migrated" "$3" "$4" "$7" "$8" "$9"
' si-dkms "$top" "$deb" "$out/out" "$LOG" "$OLD" "$NEW" "$NEWER" "${NEWER_KDIR:-}" "${NEWER_MODDIR:-}"
rmdir /dev/shm/si-dkms-root.* 2>/dev/null

# --- the VM boots: what DKMS installed, loaded with modprobe.
boots=()
declare -A boot_why
for name in "$OLD_NAME" "$NEW_NAME" $NEWER_NAME; do
	k=$(kver "$name")
	stage=$out/out/$k
	vlog=$top/build/logs/dkms-$name.log
	t=boot_$(echo "$name" | tr -c 'a-z0-9\n' _)
	boots+=("$t")
	boot_why[$t]=
	if [ ! -d "$stage/lib/modules/$k/updates/dkms" ]; then
		boot_why[$t]="nothing installed for $k"
		continue
	fi
	mkdir -p "$stage/si"
	install -m 0755 selftests/dkms_vm.sh "$stage/si/script.sh"
	cp "$out/out/version" "$stage/si/version"
	if ! bash scripts/vm.sh pack "$name" "$stage" "dkms-$name" >> "$LOG" 2>&1; then
		boot_why[$t]="vm.sh pack failed (see $LOG)"
		continue
	fi
	# The VM's end marker is left out: this script prints the last one.
	timeout "${SI_BOOT_TIMEOUT:-300}" bash scripts/vm.sh qemu "dkms-$name" script < /dev/null |
		tee "$vlog" | grep -v 'SI_TIMER_HARNESS_DONE'
	if ! grep -q 'SI_TIMER_HARNESS_DONE' "$vlog"; then
		boot_why[$t]="no end marker (console: $vlog)"
	elif ! grep -q "Subtest: si_timer_dkms_vm-$k" "$vlog"; then
		boot_why[$t]="no si_timer_dkms_vm-$k document (console: $vlog)"
	fi
done
boot_result() { [ -z "${boot_why[$1]}" ] || fail "${boot_why[$1]}"; }
for t in "${boots[@]}"; do eval "t_$t() { boot_result $t; }"; done
ktap si_timer_dkms_boot "${boots[@]}"

# --- si_timer_vm_run: `make vm-run` as a driver author uses it, on NEW: a
# module directory of theirs (the dependent sample, with a plain Kbuild)
# built against this tree and booted with their script; the script's exit
# status is vm-run's.
vmrun=$out/vm-run
mkdir -p "$vmrun/mod"
cp samples/dkms-dependent/si_timer_sample.c "$vmrun/mod/"
echo 'obj-m := si_timer_sample.o' > "$vmrun/mod/Kbuild"
cat > "$vmrun/fires.sh" <<'EOF'
insmod /si/si_timer.ko || exit 10
insmod /si/si_timer_sample.ko || exit 11
n=0
while [ "$(cat /sys/module/si_timer_sample/parameters/fired)" != 3 ]; do
	n=$((n + 1))
	[ $n -lt 50 ] || exit 12
	sleep 0.1
done
rmmod si_timer_sample && rmmod si_timer || exit 13
echo "vm-run sample: fired 3 times"
EOF
echo 'exit 7' > "$vmrun/fails.sh"
t_vm_run_module_dir_and_script() {
	make -s vm-run KERNEL="$NEW_NAME" SCRIPT="$vmrun/fires.sh" MODULES="$vmrun/mod" \
		>> "$LOG" 2>&1 || fail "make vm-run failed (see $LOG)" || return 1
	grep -q 'vm-run sample: fired 3 times' "build/logs/vm-run-$NEW_NAME.log" ||
		fail "the script's output is not on the console"
}
# make says 2 for any failure; the script itself passes the status on
t_vm_run_failing_script_fails() {
	local got=0
	bash scripts/vm-run.sh "$NEW_NAME" "$vmrun/fails.sh" >> "$LOG" 2>&1 || got=$?
	[ "$got" = 7 ] || fail "scripts/vm-run.sh with a script exiting 7: exit $got (see $LOG)"
}
ktap si_timer_vm_run vm_run_module_dir_and_script vm_run_failing_script_fails
finish
