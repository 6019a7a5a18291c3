#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The distribution's side of si_timer, run by selftests/dkms_test.sh as /
# of a throw-away root (an overlay over the host's /, in a private mount
# namespace: nothing it installs reaches the host). Prints the KTAP document
# si_timer_dkms on stdout; command output goes to LOG.
#
#   dkms_chroot.sh OLD NEW DEB SAMPLE MIGRATED OUT LOG [NEWER KDIR MODDIR]
#
# OLD, NEW: kernel releases. The box starts with OLD only (NEW's headers are
# hidden): install the .deb with apt, add the dependent DKMS package
# SAMPLE, build the converted drivers in MIGRATED against the installed
# si_timer; then NEW's headers "arrive" and DKMS's kernel hook must rebuild
# both. NEWER (Debian's 7.x, which Debian 12 cannot install: KDIR is its
# build tree, MODDIR its /usr/lib/modules/NEWER, scripts/newer-kernels.sh)
# is the next upgrade, its headers arriving last. OUT/<release>/ receives
# what the VM boots: the .ko files DKMS installed (at their installed
# paths) and depmod's lines for them.
set -uo pipefail

OLD=$1 NEW=$2 DEB=$3 SAMPLE=$4 MIGRATED=$5 OUT=$6 LOG=$7
NEWER=${8:-} NEWER_KDIR=${9:-} NEWER_MODDIR=${10:-}
top=$(cd "$(dirname "$0")/.." && pwd)
exec 3>&1 >> "$LOG" 2>&1
export DEBIAN_FRONTEND=noninteractive
ver=$(bash "$top/scripts/dkms.sh" version)
arch=$(uname -m)
say() { echo "$*" >&3; }
diag() { [ -z "$*" ] || echo "$*" | while IFS= read -r l; do say "# $l"; done; }
step() { echo "=== $(date +%T) $*"; }
fail() { why="$*"; return 1; }

# The box before the test: only OLD, NEW and NEWER, NEW and NEWER without
# headers, no DKMS state.
for d in /lib/modules/*; do
	case ${d##*/} in "$OLD" | "$NEW") ;; *) rm -rf "$d" ;; esac
done
mv "/lib/modules/$NEW/build" "/lib/modules/$NEW/build.not-yet"
if [ -n "$NEWER" ]; then
	mkdir -p "/lib/modules/$NEWER"
	cp -a "$NEWER_MODDIR/." "/lib/modules/$NEWER/"
	ln -s "$NEWER_KDIR" "/lib/modules/$NEWER/build.not-yet"
fi
# The kernels' own modules only make each of DKMS's depmod runs long (a
# minute on a loaded 2-core host); the VM loads none of them.
rm -rf "/lib/modules/$OLD/kernel" "/lib/modules/$NEW/kernel"
rm -rf /var/lib/dkms/si_timer* /usr/src/si_timer* /usr/share/si_timer /etc/dkms/no-autoinstall

# dkms_installed MODULE VERSION KVER: DKMS says installed and the .ko is there,
# built for that kernel.
dkms_installed() {
	local st ko
	st=$(dkms status -m "$1" -v "$2" -k "$3")
	echo "$st" | grep -q ': installed' || fail "dkms status for $1 on $3: '$st'" || return 1
	ko=$(ls "/lib/modules/$3/updates/dkms/$1.ko"* 2>/dev/null | head -n1)
	[ -n "$ko" ] || fail "no /lib/modules/$3/updates/dkms/$1.ko*" || return 1
	modinfo -F vermagic "$ko" | grep -q "^$3 " ||
		fail "$ko has vermagic '$(modinfo -F vermagic "$ko")', want $3" || return 1
}

# depmod recorded that the dependent needs si_timer.
depends_on_si_timer() {
	local line
	line=$(grep "^updates/dkms/si_timer_sample.ko[^:]*:" "/lib/modules/$1/modules.dep")
	echo "$line" | grep -q ': updates/dkms/si_timer.ko' ||
		fail "modules.dep of $1: '$line'" || return 1
	[ "$(modinfo -F depends "$(ls /lib/modules/"$1"/updates/dkms/si_timer_sample.ko*)")" = si_timer ] ||
		fail "modinfo depends of si_timer_sample is not si_timer"
}

# The converted drivers, built the way their author would against the
# installed si_timer: plain kbuild with si_timer.mk.
build_migrated() {
	local k=$1 b=/tmp/migrated-$1
	rm -rf "$b"
	cp -a "$MIGRATED" "$b"
	make -C "/lib/modules/$k/build" M="$b" W=1 modules || fail "build failed (see $LOG)" || return 1
	mkdir -p "$OUT/$k/si/migrated"
	cp "$b"/*.ko "$OUT/$k/si/migrated/"
	diag "$(cd "$b" && ls -- *.ko | tr '\n' ' ')"
}

t_apt_install_deb() {
	step "apt-get install $DEB"
	apt-get install -y --no-install-recommends "$DEB" || fail "apt-get install failed (see $LOG)" || return 1
	[ "$(dpkg-query -W -f '${Version}' si-timer-dkms)" = "$ver" ] || fail "si-timer-dkms is not at $ver"
}
t_built_for_old_kernel() { dkms_installed si_timer "$ver" "$OLD"; }
t_nothing_built_without_headers() {
	local st
	st=$(dkms status -m si_timer -k "$NEW")
	! echo "$st" | grep -q 'built\|installed' || fail "built for $NEW whose headers are not installed: $st"
}
t_header_symvers_snippet_installed() {
	local sv=/var/lib/dkms/si_timer/kernel-$OLD-$arch/Module.symvers
	cmp "/usr/src/si_timer-$ver/include/si_timer.h" "$top/include/si_timer.h" ||
		fail "/usr/src/si_timer-$ver/include/si_timer.h differs from the tree's" || return 1
	grep -q '[[:space:]]si_mod_timer[[:space:]]' "$sv" || fail "$sv lacks si_mod_timer" || return 1
	[ -f /usr/share/si_timer/si_timer.mk ] || fail "no /usr/share/si_timer/si_timer.mk"
	diag "$(ls -l "$sv")"
}
t_dependent_installed_old_kernel() {
	step "dkms add + install si_timer_sample for $OLD"
	cp -a "$SAMPLE" /usr/src/si_timer_sample-1.0
	dkms add -m si_timer_sample -v 1.0 || fail "dkms add si_timer_sample failed" || return 1
	dkms install -m si_timer_sample -v 1.0 -k "$OLD" || fail "dkms install failed (see $LOG)" || return 1
	dkms_installed si_timer_sample 1.0 "$OLD"
}
t_depmod_dependency_old_kernel() { depends_on_si_timer "$OLD"; }
t_migrated_build_old_kernel() { build_migrated "$OLD"; }
kernel_update() {
	step "linux-headers-$1 arrives: /etc/kernel/header_postinst.d/dkms $1"
	mv "/lib/modules/$1/build.not-yet" "/lib/modules/$1/build"
	/etc/kernel/header_postinst.d/dkms "$1"
	dkms_installed si_timer "$ver" "$1" && dkms_installed si_timer_sample 1.0 "$1" || return 1
	diag "$(dkms status)"
}
t_kernel_update_rebuilds_both() { kernel_update "$NEW"; }
t_depmod_dependency_new_kernel() { depends_on_si_timer "$NEW"; }
t_migrated_build_new_kernel() { build_migrated "$NEW"; }
t_update_to_7x_rebuilds_both() { kernel_update "$NEWER"; }
t_depmod_dependency_7x_kernel() { depends_on_si_timer "$NEWER"; }
t_migrated_build_7x_kernel() { build_migrated "$NEWER"; }
# What the VM boots: the installed .ko files and depmod's lines for them.
t_collect_installed_modules() {
	local k
	for k in "$OLD" "$NEW" $NEWER; do
		mkdir -p "$OUT/$k/lib/modules/$k/updates"
		cp -a "/lib/modules/$k/updates/dkms" "$OUT/$k/lib/modules/$k/updates/" || return 1
		grep '^updates/dkms/' "/lib/modules/$k/modules.dep" > "$OUT/$k/lib/modules/$k/modules.dep"
		[ -s "$OUT/$k/lib/modules/$k/modules.dep" ] || fail "no updates/dkms lines in modules.dep of $k" ||
			return 1
		diag "$k: $(cat "$OUT/$k/lib/modules/$k/modules.dep")"
	done
	echo "$ver" > "$OUT/version"
}
t_apt_remove() {
	step "remove the dependent, then apt-get remove si-timer-dkms"
	dkms remove -m si_timer_sample -v 1.0 --all || fail "dkms remove si_timer_sample failed" || return 1
	apt-get remove -y si-timer-dkms || fail "apt-get remove failed" || return 1
	local left
	left=$(ls /lib/modules/*/updates/dkms/si_timer* /usr/src/si_timer-"$ver" /usr/share/si_timer 2>/dev/null)
	[ -z "$left" ] || fail "left behind: $left" || return 1
	[ -z "$(dkms status -m si_timer)" ] || fail "dkms still knows si_timer: $(dkms status -m si_timer)"
}
t_make_dkms_install() {
	step "make dkms-install KVER=$OLD"
	make -C "$top" dkms-install KVER="$OLD" || fail "make dkms-install failed (see $LOG)" || return 1
	dkms_installed si_timer "$ver" "$OLD"
}
t_make_dkms_remove() {
	step "make dkms-remove"
	make -C "$top" dkms-remove || fail "make dkms-remove failed" || return 1
	local left
	left=$(ls /lib/modules/*/updates/dkms/si_timer* /usr/src/si_timer-"$ver" /usr/share/si_timer \
		/var/lib/dkms/si_timer 2>/dev/null)
	[ -z "$left" ] || fail "left behind: $left"
}

tests="apt_install_deb built_for_old_kernel nothing_built_without_headers
	header_symvers_snippet_installed dependent_installed_old_kernel depmod_dependency_old_kernel
	migrated_build_old_kernel kernel_update_rebuilds_both depmod_dependency_new_kernel
	migrated_build_new_kernel
	${NEWER:+update_to_7x_rebuilds_both depmod_dependency_7x_kernel migrated_build_7x_kernel}
	collect_installed_modules apt_remove make_dkms_install make_dkms_remove"
# shellcheck disable=SC2086
set -- $tests
say "KTAP version 1"
say "# Subtest: si_timer_dkms"
say "1..$#"
i=0
for t in "$@"; do
	i=$((i + 1))
	why=
	step "t_$t"
	t0=$(date +%s)
	if "t_$t"; then
		diag "$t: $(($(date +%s) - t0)) s"
		say "ok $i $t"
	else
		diag "$why"
		say "not ok $i $t"
	fi
done
