#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# si_timer as DKMS and Debian consume it (Documentation/dkms.md).
#
#   dkms.sh version          print the version (SI_TIMER_VERSION, include/si_timer.h)
#   dkms.sh src ROOT         lay out the DKMS source under ROOT: ROOT/usr/src/si_timer-<version>/
#                            and ROOT/usr/share/si_timer/si_timer.mk (for dependents)
#   dkms.sh deb OUTDIR       OUTDIR/si-timer-dkms_<version>_all.deb (dpkg-deb)
#   dkms.sh install [KVER]   src into /, dkms add, dkms install for KVER (default: uname -r)
#   dkms.sh remove           dkms remove --all, delete what src installed
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "dkms.sh: $*" >&2; exit 1; }

version() {
	local v
	v=$(sed -n 's/^#define[[:space:]]*SI_TIMER_VERSION[[:space:]]*"\(.*\)".*/\1/p' \
		"$top/include/si_timer.h")
	[ -n "$v" ] || die "no SI_TIMER_VERSION in include/si_timer.h"
	echo "$v"
}

# What DKMS builds from: the module's sources, no tests.
src() {
	local root=$1 ver dst
	ver=$(version)
	dst=$root/usr/src/si_timer-$ver
	rm -rf "$dst"
	mkdir -p "$dst/include" "$dst/module" "$dst/scripts" "$dst/dkms" "$dst/Documentation" \
		"$root/usr/share/si_timer"
	cp "$top/dkms.conf" "$top/Kbuild" "$top/README.md" "$dst/"
	cp "$top"/Documentation/*.md "$dst/Documentation/"
	cp "$top"/include/*.h "$dst/include/"
	cp "$top"/module/*.[ch] "$dst/module/"
	cp "$top/scripts/probe-compat.sh" "$dst/scripts/"
	cp "$top/dkms/keep-symvers.sh" "$top/dkms/si_timer.mk" "$dst/dkms/"
	cp "$top/dkms/si_timer.mk" "$root/usr/share/si_timer/si_timer.mk"
	echo "$dst"
}

# A Debian package of the DKMS source, built the way dh_dkms packages do:
# postinst registers and builds through DKMS's common.postinst (the running
# kernel and the newest installed one; every kernel with headers in a chroot),
# prerm removes every build.
deb() {
	local out=$1 ver pkg stage
	ver=$(version)
	pkg=si-timer-dkms_${ver}_all.deb
	mkdir -p "$out"
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' RETURN
	src "$stage" > /dev/null
	mkdir -p "$stage/DEBIAN" "$stage/usr/share/doc/si-timer-dkms"
	cat > "$stage/DEBIAN/control" <<-CTRL
	Package: si-timer-dkms
	Version: $ver
	Architecture: all
	Section: kernel
	Priority: optional
	Maintainer: si_timer developers <si-timer@localhost>
	Depends: dkms (>= 3.0), make, gcc
	Recommends: linux-headers-amd64 | linux-headers-rt-amd64
	Description: soft-interruptible timers for Linux (DKMS source)
	 si_timer.ko provides struct si_timer, a timer_list whose callback runs
	 on a per-CPU executor thread and, once audited, may be interrupted by
	 other softirqs. DKMS rebuilds it for every installed kernel.
	 .
	 Modules that use it include /usr/share/si_timer/si_timer.mk in their
	 Kbuild and declare BUILD_DEPENDS="si_timer" in their dkms.conf.
	CTRL
	cat > "$stage/DEBIAN/postinst" <<-POSTINST
	#!/bin/sh
	set -e
	if [ "\$1" = configure ]; then
		/usr/lib/dkms/common.postinst si_timer $ver "" "" "\$2"
	fi
	POSTINST
	cat > "$stage/DEBIAN/prerm" <<-PRERM
	#!/bin/sh
	set -e
	case "\$1" in
	remove|upgrade|deconfigure)
		if dkms status -m si_timer -v $ver | grep -q .; then
			dkms remove -m si_timer -v $ver --all
		fi ;;
	esac
	PRERM
	chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm"
	cat > "$stage/usr/share/doc/si-timer-dkms/copyright" <<-COPY
	si_timer is licensed under the GNU General Public License, version 2
	(SPDX: GPL-2.0); on Debian systems see /usr/share/common-licenses/GPL-2.
	COPY
	find "$stage" -type d -exec chmod 0755 {} +
	find "$stage/usr" -type f -exec chmod 0644 {} +
	chmod 0755 "$stage/usr/src/si_timer-$ver/dkms/keep-symvers.sh" \
		"$stage/usr/src/si_timer-$ver/scripts/probe-compat.sh"
	dpkg-deb --root-owner-group -Zxz --build "$stage" "$out/$pkg" >&2
	echo "$out/$pkg"
}

install_() {
	local kver=${1:-$(uname -r)} ver
	ver=$(version)
	command -v dkms > /dev/null || die "dkms is not installed (apt-get install dkms)"
	src /
	dkms status -m si_timer -v "$ver" | grep -q . || dkms add -m si_timer -v "$ver"
	dkms install -m si_timer -v "$ver" -k "$kver"
}

remove() {
	local ver
	ver=$(version)
	if dkms status -m si_timer -v "$ver" | grep -q .; then
		dkms remove -m si_timer -v "$ver" --all
	fi
	rm -rf "/usr/src/si_timer-$ver" /usr/share/si_timer
}

case ${1:-} in
version) version ;;
src) [ -n "${2:-}" ] || die "src ROOT"; src "$2" ;;
deb) deb "${2:-$top/build}" ;;
install) install_ "${2:-}" ;;
remove) remove ;;
*) sed -n '4,11s/^# \{0,1\}//p' "$0" >&2; exit 1 ;;
esac
