#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's newest RT and non-RT kernels of a newer series (7.x: trixie-
# backports, sid), unpacked for QEMU and for building external modules,
# on a Debian 12 machine that cannot install them: their headers need
# linux-kbuild-7.x, whose modpost/objtool need glibc 2.38 (Debian 12 has
# 2.36). Called by scripts/deps.sh; Documentation/newer-kernels.md says what
# differs from building on a 7.x Debian system.
#
#   newer-kernels.sh URIS [SIGNED_BY]    the machine's own Debian archive
#
# The suites are read through a private apt configuration under the cache:
# the machine's apt never sees them, so nothing of the machine is upgraded
# from them. Per kernel release K (e.g. 7.3.4+deb13-rt-amd64):
#
#   ${SI_CACHE:-/var/cache/si-timer}/kernels/K/
#     vmlinuz     Debian's image (linux-binary-unsigned-K)
#     modules/    Debian's /usr/lib/modules/K without modules (linux-base-K:
#                 config, System.map, modules.builtin, modules.order)
#     build/      a KDIR: O= tree of linux-source-M.N configured with K's
#                 config by this machine's gcc, `make modules_prepare`
#                 (host tools that run here), Debian's Module.symvers
#     done        stamp, written last
#
# Environment: SI_NEWER_SUITES (default "trixie-backports sid"),
# SI_NEWER_SERIES (default 7), SI_JOBS (default nproc).
set -euo pipefail

URIS=${1:?usage: newer-kernels.sh URIS [SIGNED_BY]}
KEY=${2:-}
SUITES=${SI_NEWER_SUITES:-trixie-backports sid}
SERIES=${SI_NEWER_SERIES:-7}
CACHE=${SI_CACHE:-/var/cache/si-timer}
APT=$CACHE/apt-newer
KERNELS=$CACHE/kernels
SCRIPT_VERSION=1

log() { printf 'newer-kernels: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

apt_opts=(-o "Dir::Etc::SourceList=$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
	  -o "Dir::Etc::Preferences=/dev/null" -o Dir::Etc::PreferencesParts=/dev/null
	  -o "Dir::State::Lists=$APT/lists" -o "Dir::Cache::Archives=$APT/archives"
	  -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o APT::Sandbox::User=root)

write_sources() {
	local s u tmp=$APT/sources.list.new
	mkdir -p "$APT/lists/partial" "$APT/archives/partial" "$APT/debs"
	: > "$tmp"
	for s in $SUITES; do
		for u in $URIS; do
			echo "deb ${KEY:+[signed-by=$KEY] }$u $s main" >> "$tmp"
		done
	done
	if ! cmp -s "$tmp" "$APT/sources.list"; then
		mv "$tmp" "$APT/sources.list"
		rm -f "$APT/updated"
	else
		rm -f "$tmp"
	fi
}

update_once() {
	if [ ! -e "$APT/updated" ] || [ -n "$(find "$APT/updated" -mmin +1440)" ]; then
		log "apt-get update of $SUITES (private configuration $APT)"
		apt-get "${apt_opts[@]}" update -qq || return 1
		touch "$APT/updated"
	fi
}

# The series M.N of an ABI M.N.P+debNN: linux-source-M.N's.
series_of() {
	echo "$1" | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p'
}

version_of() {
	apt-cache "${apt_opts[@]}" show --no-all-versions "$1" 2>/dev/null | sed -n 's/^Version: //p' | head -n1
}

# Newest ABI (e.g. 7.3.4+deb13) with RT and non-RT image, base and headers
# packages and the linux-source of the very same package version; prints
# "ABI VERSION".
pick() {
	local abi ver mm p ok
	for abi in $(apt-cache "${apt_opts[@]}" search --names-only \
		     "^linux-binary-unsigned-$SERIES\\.[0-9.]+\\+deb[0-9]+-rt-amd64\$" |
		     sed -n 's/^linux-binary-unsigned-\([^ ]*\)-rt-amd64 .*/\1/p' | sort -rV); do
		ver=$(version_of "linux-binary-unsigned-$abi-rt-amd64")
		mm=$(series_of "$abi")
		ok=1
		for p in linux-binary-unsigned-$abi-amd64 linux-base-$abi-rt-amd64 linux-base-$abi-amd64 \
			 linux-headers-$abi-rt-amd64 linux-headers-$abi-amd64; do
			[ "$(version_of "$p")" = "$ver" ] || { ok=; break; }
		done
		[ -n "$ok" ] || continue
		apt-cache "${apt_opts[@]}" madison "linux-source-$mm" | awk '{ print $3 }' | grep -qxF "$ver" ||
			continue
		echo "$abi $ver"
		return 0
	done
	return 1
}

# prepare_flavour K SRC DEBS...: unpack the image, base and headers of K and
# configure SRC for it.
prepare_flavour() {
	local k=$1 src=$2 d=$KERNELS/$1 x
	shift 2
	rm -rf "$d"
	mkdir -p "$d/deb"
	for x in "$@"; do
		dpkg-deb -x "$x" "$d/deb"
	done
	mv "$d/deb/usr/lib/modules/$k" "$d/modules"
	mv "$d/modules/vmlinuz.unsigned" "$d/vmlinuz"
	mkdir -p "$d/build"
	cp "$d/modules/config" "$d/build/.config"
	# Debian's config leaves the signing of `make modules_install` to its
	# own build; keep it off as in Debian's headers.
	"$src/scripts/config" --file "$d/build/.config" --disable MODULE_SIG_ALL
	log "$k: make olddefconfig modules_prepare (log: $d/build.log)"
	make -C "$src" O="$d/build" KERNELRELEASE="$k" olddefconfig > "$d/build.log" 2>&1 ||
		die "$k: olddefconfig failed, see $d/build.log"
	make -C "$src" O="$d/build" KERNELRELEASE="$k" -j"${SI_JOBS:-$(nproc)}" modules_prepare \
		>> "$d/build.log" 2>&1 || die "$k: modules_prepare failed, see $d/build.log"
	cp "$d/deb/usr/src/linux-headers-$k/Module.symvers" "$d/build/Module.symvers"
	[ "$(cat "$d/build/include/config/kernel.release")" = "$k" ] ||
		die "$k: the tree says release $(cat "$d/build/include/config/kernel.release")"
	# What the configuration lost against Debian's (compiler-dependent
	# options, Rust): for the record, Documentation/newer-kernels.md.
	diff <(grep '^CONFIG_' "$d/modules/config" | sort) <(grep '^CONFIG_' "$d/build/.config" | sort) \
		> "$d/config.diff" || true
	grep -q '^CONFIG_X86_KERNEL_IBT=y' "$d/build/.config" ||
		! grep -q '^CONFIG_X86_KERNEL_IBT=y' "$d/modules/config" ||
		die "$k: X86_KERNEL_IBT lost: modules would lack ENDBR and fault on indirect calls"
	rm -rf "$d/deb"
	echo "$SCRIPT_VERSION" > "$d/done"
}

# Both flavours of ABI $1 prepared by this version of the script?
pair_ready() {
	local f
	for f in rt-amd64 amd64; do
		[ "$(cat "$KERNELS/$1-$f/done" 2>/dev/null)" = "$SCRIPT_VERSION" ] || return 1
	done
}

# Some complete RT and non-RT pair already prepared?
have_ready_pair() {
	local d abi
	for d in "$KERNELS/$SERIES".*-rt-amd64; do
		abi=${d##*/}
		pair_ready "${abi%-rt-amd64}" && return 0
	done
	return 1
}

main() {
	write_sources
	if ! update_once; then
		have_ready_pair || die "apt-get update of $SUITES failed"
		log "warning: apt-get update of $SUITES failed: keeping the kernels already prepared"
		return 0
	fi
	local pick abi ver mm f
	if ! pick=$(pick); then
		have_ready_pair ||
			die "no $SERIES.x RT and non-RT kernel with headers and linux-source in $SUITES"
		log "warning: no complete $SERIES.x pair in $SUITES now: keeping the kernels already prepared"
		return 0
	fi
	abi=${pick% *} ver=${pick#* }
	if pair_ready "$abi"; then
		log "$abi ($ver) ready in $KERNELS"
		return 0
	fi
	mm=$(series_of "$abi")
	log "downloading Debian $abi ($ver) and linux-source-$mm"
	(cd "$APT/debs" && rm -f ./*.deb &&
	 apt-get "${apt_opts[@]}" download -qq "linux-source-$mm=$ver" \
		 linux-{binary-unsigned,base,headers}-"$abi"-{rt-amd64,amd64}"=$ver") ||
		die "apt-get download failed"
	local src=$KERNELS/src-$ver
	if [ ! -e "$src/.si-unpacked" ]; then
		rm -rf "$src"
		mkdir -p "$src"
		log "unpacking linux-source-$mm"
		dpkg-deb --fsys-tarfile "$APT"/debs/linux-source-"$mm"_*.deb |
			tar -xO --wildcards "./usr/src/linux-source-$mm.tar.*" |
			tar -xJ -C "$src" --strip-components=1
		touch "$src/.si-unpacked"
	fi
	for f in rt-amd64 amd64; do
		prepare_flavour "$abi-$f" "$src" "$APT"/debs/linux-{binary-unsigned,base,headers}-"$abi-$f"_*.deb
	done
	rm -f "$APT"/debs/*.deb
	# Only the newest pair is kept (a source tree is 1.5 GB).
	for f in "$KERNELS"/src-* "$KERNELS/$SERIES".*; do
		case $f in "$src" | "$KERNELS/$abi-"*) ;; *) [ -e "$f" ] && rm -rf "$f" ;; esac
	done
	log "$abi ($ver) ready in $KERNELS"
}

main "$@"
