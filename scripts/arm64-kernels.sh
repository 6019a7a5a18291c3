#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's arm64 PREEMPT_RT kernels, unpacked for qemu-system-aarch64 and for
# cross-building external modules on this amd64 machine (issue 33). Called by
# scripts/deps.sh after scripts/newer-kernels.sh; Documentation/testing.md
# ("arm64") says how the matrix uses them.
#
#   arm64-kernels.sh URIS [SIGNED_BY]    the machine's own Debian archive
#
# apt cannot install arm64 kernel headers here (they depend on an arm64
# gcc-12) and need not: the packages are fetched with `apt-get download`
# through a private apt configuration under the cache, with arm64 as its
# only architecture (the machine's apt never sees it), and unpacked with
# dpkg-deb -x. Per kernel release K:
#
#   ${SI_CACHE:-/var/cache/si-timer}/kernels/K/
#     vmlinuz     Debian's image (qemu -kernel)
#     modules/    config, System.map, modules.* of K (no .ko files)
#     build/      a KDIR for `make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-`
#     done        stamp, written last
#
# 6.1-rt and 6.12-rt (the machine's bookworm suites): build/ is Debian's
# flavour headers (linux-headers-K). They name the common headers by
# absolute path (/usr/src/linux-headers-<abi>-common-rt) and reach
# linux-kbuild through relative links: the amd64 common-rt and kbuild
# packages of the same version, installed for the x86 RT kernels, serve
# them, so the arm64 ABI is pinned to the installed amd64
# linux-headers-<abi>-common-rt (name and version).
#
# 7.x-rt (the suites of newer-kernels.sh): the ABI and linux-source tree
# newer-kernels.sh prepared for x86; build/ is an O= tree of that source
# configured with Debian's arm64 RT config, cross `make modules_prepare`,
# Debian's Module.symvers, as newer-kernels.sh does for x86.
#
# Also ${SI_CACHE}/arm64/busybox: bookworm's arm64 busybox-static.
#
# Environment: SI_NEWER_SUITES (default "trixie-backports sid"),
# SI_NEWER_SERIES (default 7), SI_JOBS (default nproc).
set -euo pipefail

URIS=${1:?usage: arm64-kernels.sh URIS [SIGNED_BY]}
KEY=${2:-}
NEWER_SUITES=${SI_NEWER_SUITES:-trixie-backports sid}
SERIES=${SI_NEWER_SERIES:-7}
CACHE=${SI_CACHE:-/var/cache/si-timer}
APT=$CACHE/apt-arm64
KERNELS=$CACHE/kernels
CROSS=aarch64-linux-gnu-
SCRIPT_VERSION=1

log() { printf 'arm64-kernels: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

apt_opts=(-o APT::Architecture=arm64 -o APT::Architectures=arm64
	  -o "Dir::Etc::SourceList=$APT/sources/sources.list" -o "Dir::Etc::SourceParts=$APT/sources/parts"
	  -o "Dir::Etc::Preferences=/dev/null" -o Dir::Etc::PreferencesParts=/dev/null
	  -o "Dir::State::Lists=$APT/lists" -o "Dir::State::status=/dev/null"
	  -o "Dir::Cache::Archives=$APT/archives"
	  -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o APT::Sandbox::User=root)

# The machine's own apt sources (every suite: bookworm's kernels come from
# bookworm-security and bookworm-backports too) plus the 7.x suites of
# newer-kernels.sh, read for arm64.
write_sources() {
	local s u f new=$APT/sources.new
	rm -rf "$new"
	mkdir -p "$APT/lists/partial" "$APT/archives/partial" "$new/parts"
	[ ! -f /etc/apt/sources.list ] || cp /etc/apt/sources.list "$new/sources.list"
	for s in $NEWER_SUITES; do
		for u in $URIS; do
			echo "deb ${KEY:+[signed-by=$KEY] }$u $s main" >> "$new/sources.list"
		done
	done
	for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ ! -f "$f" ] || cp "$f" "$new/parts/"
	done
	if ! diff -r "$new" "$APT/sources" > /dev/null 2>&1; then
		rm -rf "$APT/sources"
		mv "$new" "$APT/sources"
		rm -f "$APT/updated"
	else
		rm -rf "$new"
	fi
}

update_once() {
	if [ ! -e "$APT/updated" ] || [ -n "$(find "$APT/updated" -mmin +1440)" ]; then
		log "apt-get update (arm64; private configuration $APT)"
		apt-get "${apt_opts[@]}" update -qq || return 1
		touch "$APT/updated"
	fi
}

ready() {
	[ "$(cat "$KERNELS/$1/done" 2>/dev/null)" = "$SCRIPT_VERSION" ]
}

# download DIR PKG=VER...: fetch into DIR (emptied first).
download() {
	local dir=$1
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	log "downloading $*"
	(cd "$dir" && apt-get "${apt_opts[@]}" download -qq "$@") || die "apt-get download $* failed"
}

# keep_modules D K: D/deb's /usr/lib/modules/K and /boot files of K as
# D/modules (config, System.map, modules.*; the .ko files are not needed:
# the test initramfs holds only si_timer's modules).
keep_modules() {
	local d=$1 k=$2 f
	mkdir -p "$d/modules"
	if [ -d "$d/deb/usr/lib/modules/$k" ]; then
		rm -rf "$d/deb/usr/lib/modules/$k/kernel"
		cp -a "$d/deb/usr/lib/modules/$k/." "$d/modules/"
	fi
	for f in config System.map; do
		[ ! -f "$d/deb/boot/$f-$k" ] || cp "$d/deb/boot/$f-$k" "$d/modules/$f"
	done
	[ -f "$d/modules/config" ] || die "$k: no config in the packages"
}

# unpack D K: D made afresh, the packages download() fetched unpacked into
# D/deb, and K's modules kept (keep_modules).
unpack() {
	local d=$1 k=$2 x
	rm -rf "$d"
	mkdir -p "$d/deb"
	for x in "$APT"/debs/*.deb; do
		dpkg-deb -x "$x" "$d/deb"
	done
	keep_modules "$d" "$k"
}

# The installed amd64 RT common headers of series $1 ("6.1" or "6.12"):
# prints "ABI VERSION" (e.g. "6.1.0-57 6.1.192-3").
installed_common_rt() {
	dpkg-query -W -f='${db:Status-Status} ${Package} ${Version}\n' \
		"linux-headers-$1*-common-rt" 2>/dev/null |
		sed -n "s/^installed linux-headers-\\($1[.-][^ ]*\\)-common-rt \\(.*\\)/\\1 \\2/p" |
		sort -V | tail -n1
}

# Debian 6.x arm64 RT kernel K=ABI-rt-arm64 at VERSION, headers served by the
# installed amd64 common-rt and kbuild of the same version.
prepare_deb6() {
	local series=$1 abi ver ver_img k d img kbuild
	read -r abi ver < <(installed_common_rt "$series") ||
		die "linux-headers-$series*-common-rt (amd64) not installed: run make deps"
	k=$abi-rt-arm64 d=$KERNELS/$k
	if ready "$k"; then
		log "$k ($ver) ready in $KERNELS"
		return 0
	fi
	# The signed image of 6.1 carries its own version; the unsigned one the
	# kernel's. Either holds the same Image.
	img=linux-image-$k
	apt-cache "${apt_opts[@]}" madison "$img-unsigned" 2>/dev/null |
		awk '{ print $3 }' | grep -qxF "$ver" && img=$img-unsigned
	if [ "$img" = "linux-image-$k" ]; then
		ver_img=$(apt-cache "${apt_opts[@]}" madison "$img" | awk '{ print $3 }' | sort -V | tail -n1)
	else
		ver_img=$ver
	fi
	[ -n "$ver_img" ] || die "no $img in the arm64 archive"
	download "$APT/debs" "$img=$ver_img" "linux-headers-$k=$ver"
	unpack "$d" "$k"
	mv "$d/deb/boot/vmlinuz-$k" "$d/vmlinuz"
	# build/: the flavour headers where their relative scripts/tools links
	# (../../lib/linux-kbuild-*/) find this machine's linux-kbuild.
	mkdir -p "$d/usr/src" "$d/usr/lib"
	mv "$d/deb/usr/src/linux-headers-$k" "$d/usr/src/"
	kbuild=$(readlink "$d/usr/src/linux-headers-$k/scripts")
	kbuild=${kbuild#../../lib/}
	kbuild=${kbuild%%/*}
	[ -d "/usr/lib/$kbuild" ] || die "$k: /usr/lib/$kbuild (amd64 $kbuild) not installed"
	ln -s "/usr/lib/$kbuild" "$d/usr/lib/$kbuild"
	ln -s "usr/src/linux-headers-$k" "$d/build"
	rm -rf "$d/deb"
	[ -f "$d/build/Makefile" ] && [ -e "$d/build/scripts/Makefile.build" ] ||
		die "$k: the headers are incomplete"
	echo "$SCRIPT_VERSION" > "$d/done"
	log "$k ($ver) ready in $KERNELS"
}

version_of() {
	apt-cache "${apt_opts[@]}" show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Version: //p' | head -n1
}

# Debian's 7.x arm64 RT kernel of the ABI newer-kernels.sh prepared for x86,
# built against that ABI's linux-source tree (configured for arm64 here).
prepare_newer() {
	local x86 abi k d src ver x
	x86=$(for x in "$KERNELS/$SERIES".*-rt-amd64/done; do [ -e "$x" ] && echo "$x"; done |
	      sort -V | tail -n1)
	[ -n "$x86" ] || { log "warning: no $SERIES.x kernel prepared by newer-kernels.sh: no $SERIES.x-rt-arm64"; return 1; }
	x86=${x86%/done}
	abi=${x86##*/}
	abi=${abi%-rt-amd64}
	k=$abi-rt-arm64 d=$KERNELS/$k
	if ready "$k"; then
		log "$k ready in $KERNELS"
		return 0
	fi
	src=$(for x in "$KERNELS"/src-*/.si-unpacked; do [ -e "$x" ] && echo "${x%/.si-unpacked}"; done |
	      sort -V | tail -n1)
	[ -n "$src" ] || die "no linux-source tree in $KERNELS (newer-kernels.sh)"
	ver=${src##*/src-}
	[ "$(version_of "linux-binary-unsigned-$k")" = "$ver" ] ||
		die "$k: linux-binary-unsigned-$k $ver not in $NEWER_SUITES (arm64)"
	download "$APT/debs" linux-{binary-unsigned,base,headers}-"$k=$ver"
	unpack "$d" "$k"
	mv "$d/modules/vmlinuz.unsigned" "$d/vmlinuz" 2>/dev/null ||
		mv "$d/deb/boot/vmlinuz-$k" "$d/vmlinuz"
	mkdir -p "$d/build"
	cp "$d/modules/config" "$d/build/.config"
	"$src/scripts/config" --file "$d/build/.config" --disable MODULE_SIG_ALL
	# aarch64-linux-gnu-gcc is gcc-12 (gcc-aarch64-linux-gnu), the
	# compiler of the harness's `make ARCH=arm64 CROSS_COMPILE=...`.
	local mk=(make -C "$src" O="$d/build" ARCH=arm64 CROSS_COMPILE="$CROSS" KERNELRELEASE="$k")
	log "$k: cross make olddefconfig modules_prepare (log: $d/build.log)"
	"${mk[@]}" olddefconfig > "$d/build.log" 2>&1 || die "$k: olddefconfig failed, see $d/build.log"
	"${mk[@]}" -j"${SI_JOBS:-$(nproc)}" modules_prepare >> "$d/build.log" 2>&1 ||
		die "$k: modules_prepare failed, see $d/build.log"
	cp "$d/deb/usr/src/linux-headers-$k/Module.symvers" "$d/build/Module.symvers"
	[ "$(cat "$d/build/include/config/kernel.release")" = "$k" ] ||
		die "$k: the tree says release $(cat "$d/build/include/config/kernel.release")"
	diff <(grep '^CONFIG_' "$d/modules/config" | sort) <(grep '^CONFIG_' "$d/build/.config" | sort) \
		> "$d/config.diff" || true
	rm -rf "$d/deb"
	echo "$SCRIPT_VERSION" > "$d/done"
	log "$k ($ver) ready in $KERNELS"
}

busybox() {
	local b=$CACHE/arm64/busybox
	[ -x "$b" ] && return 0
	download "$APT/debs" -t bookworm busybox-static
	mkdir -p "$APT/debs/x" "$CACHE/arm64"
	dpkg-deb -x "$APT"/debs/busybox-static_*.deb "$APT/debs/x"
	install -m 0755 "$APT/debs/x/bin/busybox" "$b.new"
	mv "$b.new" "$b"
	rm -rf "$APT/debs"
	log "arm64 busybox ready: $b"
}

main() {
	local rc=0 k d
	write_sources
	if ! update_once; then
		for k in "$KERNELS"/*-rt-arm64; do
			[ -e "$k/done" ] && { log "warning: apt-get update failed: keeping the kernels prepared"; return 0; }
		done
		die "apt-get update (arm64) failed"
	fi
	busybox
	prepare_deb6 6.12
	prepare_deb6 6.1
	prepare_newer || rc=$?
	rm -rf "$APT/debs"
	# Older arm64 releases than those prepared now.
	for d in "$KERNELS"/*-rt-arm64; do
		[ -e "$d" ] || continue
		ready "${d##*/}" || continue
		case ${d##*/} in
		"$(installed_common_rt 6.12 | cut -d' ' -f1)-rt-arm64" | \
		"$(installed_common_rt 6.1 | cut -d' ' -f1)-rt-arm64" | "$SERIES".*) ;;
		*) log "removing the old ${d##*/}"; rm -rf "$d" ;;
		esac
	done
	return "$rc"
}

main "$@"
