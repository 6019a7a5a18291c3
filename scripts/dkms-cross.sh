#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Architecture: all .deb's DKMS build for arm64 kernels, on this amd64
# machine, with the cross compiler (Documentation/dkms.md, "arm64"):
#
#   dkms-cross.sh [KERNEL...]    kernel names of scripts/vm.sh (default:
#                                6.1-rt-arm64 6.12-rt-arm64 7.x-rt-arm64)
#
# Builds build/si-timer-dkms_<version>_all.deb, unpacks it, and in a private
# mount namespace with a tmpfs over /var/lib/dkms (nothing reaches the
# machine's DKMS tree or MOK key) runs, per kernel,
#   ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- dkms build -m si_timer -v V \
#       -k RELEASE -a aarch64 --kernelsourcedir KDIR
# and checks that si_timer.ko is an AArch64 ELF whose vermagic names RELEASE
# and that DKMS kept its Module.symvers. Exit status: 0 if every kernel built.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
die() { echo "dkms-cross: $*" >&2; exit 1; }

if [ "${1:-}" != --inside ]; then
	[ "$(id -u)" -eq 0 ] || die "must run as root (unshare, mount)"
	[ $# -gt 0 ] || set -- 6.1-rt-arm64 6.12-rt-arm64 7.x-rt-arm64
	work=$top/build/dkms-cross
	rm -rf "$work"
	mkdir -p "$work/root"
	bash scripts/dkms.sh deb "$work" > /dev/null
	dpkg-deb -x "$work"/si-timer-dkms_*_all.deb "$work/root"
	exec unshare -m --propagation private "$0" --inside "$work" "$@"
fi
shift
work=$1
shift
mount -t tmpfs si-dkms-cross /var/lib/dkms
src=$work/root/usr/src
ver=$(bash scripts/dkms.sh version)
dkms add -m si_timer -v "$ver" --sourcetree "$src" > /dev/null
failed=0
for name in "$@"; do
	eval "$(bash scripts/vm.sh resolve "$name")" || { echo "not ok $name: missing"; failed=1; continue; }
	# shellcheck source=scripts/arch.sh
	. scripts/arch.sh
	si_arch_setup "$SI_ARCH"
	log=$work/$name.log
	if ! env "${SI_KMAKE[@]}" dkms build -m si_timer -v "$ver" -k "$KVER" -a aarch64 \
		--kernelsourcedir "$KDIR" --sourcetree "$src" > "$log" 2>&1; then
		echo "not ok $name: dkms build failed (see $log)"
		failed=1
		continue
	fi
	d=/var/lib/dkms/si_timer/$ver/$KVER/aarch64
	ko=$(ls "$d"/module/si_timer.ko*)
	case $ko in *.xz) xz -dc "$ko" > "$work/si_timer-$name.ko" ;; *) cp "$ko" "$work/si_timer-$name.ko" ;; esac
	ko=$work/si_timer-$name.ko
	if ! readelf -h "$ko" | grep -q 'Machine:.*AArch64'; then
		echo "not ok $name: $ko is not an AArch64 object"
		failed=1
	elif [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$KVER" ]; then
		echo "not ok $name: vermagic '$(modinfo -F vermagic "$ko")' is not $KVER's"
		failed=1
	elif [ ! -s "$d/Module.symvers" ]; then
		echo "not ok $name: no Module.symvers kept in $d"
		failed=1
	else
		echo "ok $name: $KVER: $(modinfo -F vermagic "$ko") ($ko)"
	fi
done
exit "$failed"
