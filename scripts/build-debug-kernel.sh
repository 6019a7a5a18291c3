#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build one of the small debug PREEMPT_RT kernels for QEMU once, from
# Debian's linux-source-6.12, selftests/config/debug-rt.config (the base)
# and selftests/config/NAME.config (its sanitizer), and cache it outside the
# work tree. NAME-arm64 (scripts/arch.sh: a name ending in -arm64 is arm64)
# is cross-built for arm64 from the base, selftests/config/debug-rt-arm64.config
# (the base's arm64 layer) and NAME.config, so kasan-rt-arm64 is kasan-rt for
# QEMU's arm64 virt machine:
#
#   ${SI_CACHE:-/var/cache/si-timer}/debug-kernel/NAME-<key>/
#     src/        unpacked linux-source-6.12
#     obj/        build tree (O=): a KDIR for out-of-tree modules,
#                 obj/arch/x86/boot/bzImage (arm64: obj/arch/arm64/boot/Image,
#                 scripts/arch.sh's SI_KIMAGE) is the kernel to boot
#     fragment.config  the fragments used, concatenated
#     build.log   full log of the last build
#     build-seconds    how long it took
#     done        stamp, written only after a complete, verified build
#
# <key> = linux-source-6.12 package version, first 12 hex digits of the
# sha256 of the fragments and of selftests/config/patches/*.patch (fixes of
# 6.12 bugs the tests meet, applied to the source), and this script's
# SCRIPT_VERSION (bump it when the build steps change).
#
# NAME: kasan (KASAN, not RT: its fragment turns the base's PREEMPT_RT
# off), kasan-rt (KASAN) or kcsan-rt (KCSAN), kasan-rt-arm64 (kasan-rt for
# arm64), or any NAME with a selftests/config/NAME.config, and NAME-arm64
# for each (only kasan-rt-arm64 was built and booted; scripts/vm.sh knows
# only that one).
#
# Usage:  dir=$(scripts/build-debug-kernel.sh kasan-rt)
#         make -C "$dir/obj" M="$PWD/module" modules
# stdout: exactly one line, the cache dir.  Everything else goes to stderr.
# Without a stamp (first run, or an interrupted build) it starts over from
# an empty src/ and obj/.  Concurrent callers serialize on a lock file.
#
# Environment: SI_CACHE (cache root), SI_LINUX_SOURCE_TAR (source tarball,
# default /usr/src/linux-source-6.12.tar.xz), SI_JOBS (default nproc).
set -euo pipefail

SCRIPT_VERSION=2
SRC_PKG=linux-source-6.12
SRC_TAR=${SI_LINUX_SOURCE_TAR:-/usr/src/linux-source-6.12.tar.xz}
CACHE_ROOT=${SI_CACHE:-/var/cache/si-timer}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NAME=${1:-}
# shellcheck source=scripts/arch.sh
. "$HERE/arch.sh"
# x86_64 or arm64: kbuild's ARCH. SI_KMAKE (cross compiler) and SI_KIMAGE
# (the image to build) come from scripts/arch.sh; the build needs no
# clock, so no dmesg for the TSC rate.
KARCH=$(si_arch_of "$NAME")
SI_TSC_KHZ=off si_arch_setup "$KARCH"

# Keep stdout for the final path only.
exec 3>&1 1>&2

log() { printf 'build-debug-kernel: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

case $NAME in
"" | debug-rt | debug-rt-* | */* | .*)
	die "usage: $0 NAME (kasan, kasan-rt, kcsan-rt, kasan-rt-arm64: selftests/config/NAME.config)" ;;
esac
CONFIGS=$(cd "$HERE/../selftests/config" && pwd)
BASE=$CONFIGS/debug-rt.config
# The fragments, in merge order: the base, its layer for the architecture
# (none on x86-64: the base is x86's), the sanitizer.
FRAGMENTS=("$BASE")
case $KARCH in
x86_64) FRAGMENT=$CONFIGS/$NAME.config ;;
*)
	[ "${NAME%-"$KARCH"}" != "$NAME" ] || die "$NAME: an $KARCH debug kernel's name ends in -$KARCH"
	FRAGMENTS+=("$CONFIGS/debug-rt-$KARCH.config")
	FRAGMENT=$CONFIGS/${NAME%-"$KARCH"}.config ;;
esac
FRAGMENTS+=("$FRAGMENT")
for f in "${FRAGMENTS[@]}"; do
	[ -r "$f" ] || die "config fragment $f not found"
done
# Fixes of 6.12 bugs the tests meet in the kernel itself (each patch says
# which), applied in name order to every debug kernel; they are in the key.
PATCHES=()
for f in "$CONFIGS"/patches/*.patch; do
	[ -e "$f" ] && PATCHES+=("$f")
done
[ -r "$SRC_TAR" ] || die "$SRC_TAR not found (run scripts/deps.sh as root)"

src_version=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null || true)
[ -n "$src_version" ] || die "package $SRC_PKG is not installed (run scripts/deps.sh as root)"
frag_hash=$(cat "${FRAGMENTS[@]}" "${PATCHES[@]}" | sha256sum | cut -c1-12)
key=$(printf '%s-%s-%s-v%s' "$NAME" "$src_version" "$frag_hash" "$SCRIPT_VERSION" | tr -c 'A-Za-z0-9._+\n-' '_')
dir=$CACHE_ROOT/debug-kernel/$key

# Fast path: already built.
if [ -e "$dir/done" ]; then
	echo "$dir" >&3
	exit 0
fi

cross=
for a in "${SI_KMAKE[@]}"; do
	case $a in CROSS_COMPILE=*) cross=${a#CROSS_COMPILE=} ;; esac
done
for tool in make gcc ${cross:+"${cross}gcc"} flex bison bc perl tar xz patch sha256sum flock; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found (run scripts/deps.sh as root)"
done
[ -e /usr/include/gelf.h ] || die "libelf-dev missing (run scripts/deps.sh as root)"
[ -e /usr/include/openssl/ssl.h ] || die "libssl-dev missing (run scripts/deps.sh as root)"

mkdir -p "$CACHE_ROOT/debug-kernel" || die "cannot create $CACHE_ROOT/debug-kernel (run as root or set SI_CACHE)"
exec 9>"$CACHE_ROOT/debug-kernel/$key.lock"
if ! flock -n 9; then
	log "another build of $key is running; waiting for it"
	flock 9
fi
# The build we waited for may have finished it.
if [ -e "$dir/done" ]; then
	echo "$dir" >&3
	exit 0
fi

# Environment variables that would redirect or alter kbuild.
unset KBUILD_OUTPUT KCONFIG_CONFIG KBUILD_EXTMOD ARCH CROSS_COMPILE LOCALVERSION \
	KCFLAGS KCPPFLAGS KAFLAGS CFLAGS_MODULE MAKEFLAGS MFLAGS MAKELEVEL || true

jobs=${SI_JOBS:-$(nproc)}
start=$(date +%s)
logfile=$dir/build.log

log "building $key in $dir (-j$jobs; 10-15 min on 2 cores; log: $logfile)"
case $dir in /?*/debug-kernel/?*) ;; *) die "bad cache dir '$dir'" ;; esac
rm -rf "$dir"
mkdir -p "$dir/src" "$dir/obj"
cat "${FRAGMENTS[@]}" > "$dir/fragment.config"
: > "$logfile"

# run DESCRIPTION CMD...: run with output to the log; on failure show its tail.
run() {
	local what=$1
	shift
	log "$what"
	printf '\n### %s\n### %s\n' "$what" "$*" >> "$logfile"
	if ! "$@" >> "$logfile" 2>&1; then
		tail -n 40 "$logfile" >&2
		die "$what failed (full log: $logfile)"
	fi
}

kmake() { make -C "$dir/src" O="$dir/obj" ARCH="$KARCH" "${SI_KMAKE[@]}" "$@"; }

run "unpacking $SRC_TAR" tar -xf "$SRC_TAR" -C "$dir/src" --strip-components=1
[ -e "$dir/src/Makefile" ] || die "unexpected layout of $SRC_TAR"
for p in "${PATCHES[@]}"; do
	run "applying ${p##*/}" patch -p1 -d "$dir/src" --forward --batch -i "$p"
done

run "make tinyconfig" kmake tinyconfig
run "merging $(printf '%s ' "${FRAGMENTS[@]##*/}")" \
	env ARCH="$KARCH" "$dir/src/scripts/kconfig/merge_config.sh" -m -O "$dir/obj" \
	"$dir/obj/.config" "$dir/fragment.config"
run "make olddefconfig" kmake olddefconfig

# Every value the fragment sets must have survived Kconfig's dependency
# resolution (the last line for a symbol wins, as in merge_config.sh);
# "is not set" lines that were forced on are only reported.
declare -A want=()
order=()
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) sym=${line%%=*} ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
	*) continue ;;
	esac
	[ -n "${want[$sym]+x}" ] || order+=("$sym")
	want[$sym]=$line
done < "$dir/fragment.config"
bad=()
for sym in "${order[@]}"; do
	line=${want[$sym]}
	got=$(grep -E "^(# )?${sym}[= ]" "$dir/obj/.config" || echo absent)
	case $line in
	CONFIG_*) [ "$got" = "$line" ] || bad+=("$line (got: $got)") ;;
	*) [ "${got%%=*}" != "$sym" ] || log "note: $sym was requested off but is ${got#*=} (selected by another option)" ;;
	esac
done
if [ "${#bad[@]}" -gt 0 ]; then
	log "these fragment options did not end up as requested in $dir/obj/.config:"
	printf '  %s\n' "${bad[@]}" >&2
	die "config verification failed"
fi
log "config verified: $(grep -c '^CONFIG_.*=y' "$dir/fragment.config") =y options present;" \
	"$(grep -E '^(# )?CONFIG_(X86_KERNEL_IBT|ARM64_BTI_KERNEL|ARM64_PTR_AUTH_KERNEL)[= ]' "$dir/obj/.config" |
		tr '\n' ' ')"

# "modules" always: it writes Module.symvers, which out-of-tree module builds
# need for their unresolved-symbol check, and builds any =m modules.
image=${SI_KIMAGE##*/}
run "make -j$jobs $image modules modules_prepare" kmake -j"$jobs" "$image" modules modules_prepare
for f in "$SI_KIMAGE" vmlinux Module.symvers scripts/mod/modpost include/generated/autoconf.h; do
	[ -e "$dir/obj/$f" ] || die "build finished but $dir/obj/$f is missing"
done

secs=$(( $(date +%s) - start ))
echo "$secs" > "$dir/build-seconds"
log "built in $((secs / 60))m$((secs % 60))s: $dir/obj/$SI_KIMAGE"
date -u +%Y-%m-%dT%H:%M:%SZ > "$dir/done.tmp"
mv "$dir/done.tmp" "$dir/done"
echo "$dir" >&3
