#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package the project needs, idempotently.
# The 6.12 RT kernel and linux-source-6.12 come from bookworm-backports,
# Debian's newest 7.x kernels from trixie-backports or sid
# (scripts/newer-kernels.sh), Debian's arm64 RT kernels and an arm64 busybox
# (scripts/arm64-kernels.sh, with the cross compiler and qemu-system-aarch64
# installed here); their apt sources are derived from the machine's own
# Debian sources so that no mirror host name is ever written into the
# repository.
set -euo pipefail

BACKPORTS_LIST=/etc/apt/sources.list.d/si-timer-backports.sources
STAMP_DIR=${SI_DEPS_STAMP_DIR:-/var/lib/si-timer}

base_pkgs=(
	build-essential patch bc bison flex libelf-dev libssl-dev kmod cpio gzip xz-utils zstd
	qemu-system-x86 busybox-static sparse python3 perl rsync gnuplot-nox
	dkms coccinelle pyflakes3 shellcheck
	qemu-system-arm gcc-12-aarch64-linux-gnu gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	linux-image-rt-amd64 linux-headers-rt-amd64
	linux-image-amd64 linux-headers-amd64
)

log() { printf 'deps: %s\n' "$*" >&2; }

as_root() {
	if [ "$(id -u)" -ne 0 ]; then
		log "must run as root to install packages (try: sudo make deps)"
		exit 1
	fi
}

# Print "URIS<TAB>SIGNED_BY" of the main Debian archive (the stanza whose suite
# is the release itself), from deb822 or one-line sources.
debian_archive() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		[ "$f" = "$BACKPORTS_LIST" ] && continue
		awk -v RS= '
			/(^|\n)Suites:[^\n]*(^| )bookworm( |\n|$)/ && /(^|\n)Types:[^\n]*deb( |\n|$)/ {
				uris = ""; key = ""
				n = split($0, l, "\n")
				for (i = 1; i <= n; i++) {
					if (l[i] ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", l[i]); uris = l[i] }
					if (l[i] ~ /^Signed-By:/) { sub(/^Signed-By:[ \t]*/, "", l[i]); key = l[i] }
				}
				if (uris != "") { print uris "\t" key; exit }
			}' "$f"
	done | head -n1 | grep . && return 0
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		awk '$1 == "deb" {
			i = 2
			key = ""
			if ($i ~ /^\[/) {
				while ($i !~ /\]$/) { if ($i ~ /signed-by=/) key = $i; i++ }
				if ($i ~ /signed-by=/) key = $i
				i++
			}
			sub(/.*signed-by=/, "", key); sub(/\]$/, "", key)
			if ($(i + 1) == "bookworm") { print $i "\t" key; exit }
		}' "$f"
	done | head -n1 | grep .
}

enable_backports() {
	if grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		return 0
	fi
	local line uris key
	line=$(debian_archive) || { log "no bookworm Debian source found to derive bookworm-backports from"; exit 1; }
	uris=${line%%$'\t'*}
	key=${line#*$'\t'}
	log "enabling bookworm-backports from the existing source ($uris)"
	{
		echo "Types: deb"
		echo "URIs: $uris"
		echo "Suites: bookworm-backports"
		echo "Components: main"
		[ -n "$key" ] && echo "Signed-By: $key"
	} > "$BACKPORTS_LIST"
	rm -f "$STAMP_DIR/apt-updated"
}

apt_update_once() {
	mkdir -p "$STAMP_DIR"
	if [ ! -e "$STAMP_DIR/apt-updated" ] || [ -n "$(find "$STAMP_DIR/apt-updated" -mmin +1440 2>/dev/null)" ]; then
		apt-get update -qq
		touch "$STAMP_DIR/apt-updated"
	fi
}

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
	done
}

# Newest 6.12 RT ABI name in bookworm-backports (e.g. 6.12.118+deb12-rt-amd64)
# that has both the unsigned image and the headers.
backports_rt_abi() {
	{
		apt-cache search --names-only '^linux-image-6\.12\.[0-9]+.*-rt-amd64-unsigned$' |
			sed -n 's/^linux-image-\([^ ]*\)-unsigned .*/\1/p'
		apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+.*-rt-amd64$' |
			sed -n 's/^linux-headers-\([^ ]*\) .*/\1/p'
	} | sort | uniq -d | sort -V | tail -n1
}

# Debian's newest 7.x kernels, unpacked into the cache (scripts/newer-kernels.sh).
newer_kernels() {
	local line
	line=$(debian_archive) || { log "no bookworm Debian source found to derive the 7.x suites from"; exit 1; }
	bash "$(dirname "$0")/newer-kernels.sh" "${line%%$'\t'*}" "${line#*$'\t'}"
}

# Debian's arm64 RT kernels (6.1, 6.12 pinned to the installed amd64
# common-rt headers; 7.x of the ABI newer_kernels prepared), unpacked into
# the cache (scripts/arm64-kernels.sh).
arm64_kernels() {
	local line
	line=$(debian_archive) || { log "no bookworm Debian source found to derive the 7.x suites from"; exit 1; }
	bash "$(dirname "$0")/arm64-kernels.sh" "${line%%$'\t'*}" "${line#*$'\t'}"
}

main() {
	export DEBIAN_FRONTEND=noninteractive
	local want=("${base_pkgs[@]}" linux-source-6.12)
	# Fast path: everything present (including some 6.12 RT kernel) -> nothing to do.
	if [ -z "$(missing "${base_pkgs[@]}")" ] &&
	   ls /boot/vmlinuz-6.12.*-rt-amd64 >/dev/null 2>&1 &&
	   ls -d /usr/src/linux-headers-6.12.*-rt-amd64 >/dev/null 2>&1 &&
	   ls /usr/src/linux-source-6.12.tar.* >/dev/null 2>&1; then
		log "all packages present"
		newer_kernels
		arm64_kernels
		return 0
	fi
	as_root
	enable_backports
	apt_update_once
	local abi
	abi=$(backports_rt_abi)
	if [ -z "$abi" ]; then
		apt-get update -qq
		abi=$(backports_rt_abi)
	fi
	[ -n "$abi" ] || { log "no linux-image-6.12.*-rt-amd64-unsigned in bookworm-backports"; exit 1; }
	want+=("linux-image-$abi-unsigned" "linux-headers-$abi")
	local todo
	mapfile -t todo < <(missing "${want[@]}")
	if [ "${#todo[@]}" -gt 0 ]; then
		log "installing: ${todo[*]}"
		apt-get install -y -qq --no-install-recommends "${todo[@]}"
	fi
	newer_kernels
	arm64_kernels
	log "done"
}

main "$@"
