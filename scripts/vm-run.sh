#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel of the test matrix under QEMU with si_timer, your modules
# and a script of yours (`make vm-run`):
#
#   scripts/vm-run.sh KERNEL SCRIPT [MODULE ...]
#
# KERNEL: a name of scripts/vm.sh (6.1-rt, 6.12-rt, 6.1, kasan, kcsan-rt,
# 6.12-rt-arm64 (cross-built), ..., NAME-full for preempt=full). MODULE: a .ko built for that kernel, or
# a directory with your module's Kbuild/Makefile, built here against
# KERNEL's headers and this tree's si_timer (include/ and Module.symvers;
# a Kbuild that includes /usr/share/si_timer/si_timer.mk needs si_timer's
# DKMS package on this machine, or use `-include`). SCRIPT runs in the VM
# as root under busybox sh, from /si, where si_timer.ko and the modules
# are (insmod them yourself: /si/si_timer.ko first). It fails by exiting
# non-zero.
#
# The console is printed and kept in build/logs/vm-run-KERNEL.log. Exit
# status: SCRIPT's, or 1 if the kernel reported a problem (oops, WARN,
# BUG, lockdep, KASAN...: selftests/ktap.py's rules) or the VM did not
# finish within SI_BOOT_TIMEOUT seconds (default 600); 3: KERNEL missing.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "vm-run: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: $0 KERNEL SCRIPT [MODULE.ko | MODULE_DIR ...]"
kernel=$1 script=$2
shift 2
[ -f "$script" ] || die "no script $script"
script=$(cd "$(dirname "$script")" && pwd)/$(basename "$script")
mods=()
for m in "$@"; do
	[ -e "$m" ] || die "no module $m"
	mods+=("$(cd "$(dirname "$m")" && pwd)/$(basename "$m")")
done
cd "$top"

tag=vm-run-$kernel
resolved=$(bash scripts/vm.sh resolve "$kernel") || exit $?
eval "$resolved"
# shellcheck source=scripts/arch.sh
. scripts/arch.sh
si_arch_setup "$SI_ARCH"
# si_timer alone (Kbuild leaves the tests and benchmarks out without their
# directories), in a tree of its own: make check may be building KERNEL's.
src=build/$tag/src
mkdir -p "$src"
rsync -a --no-times --checksum --delete --filter=':- .gitignore' --exclude=/.git \
	--exclude=/selftests --exclude=/bench --exclude=/build "$top/" "$src/"
make -C "$KDIR" M="$top/$src" "${SI_KMAKE[@]}" W=1 modules >&2
dir=build/$tag/files
rm -rf "$dir"
mkdir -p "$dir/si"
cp "$src/si_timer.ko" "$dir/si/"
for m in "${mods[@]}"; do
	if [ -d "$m" ]; then
		echo "vm-run: building $m for $KVER" >&2
		make -C "$KDIR" M="$m" "${SI_KMAKE[@]}" W=1 KCFLAGS="-I$top/include" \
			SI_TIMER_INCLUDE="$top/include" SI_TIMER_SYMVERS="$top/$src/Module.symvers" \
			KBUILD_EXTRA_SYMBOLS="$top/$src/Module.symvers" modules >&2
		found=$(find "$m" -maxdepth 1 -name '*.ko')
		[ -n "$found" ] || die "no .ko built in $m"
		# shellcheck disable=SC2086 # .ko names have no spaces
		cp $found "$dir/si/"
	else
		cp "$m" "$dir/si/"
	fi
done
cp "$script" "$dir/si/user-script.sh"
# Sourced by the VM's /init (mode "script"): the status is read back here.
cat > "$dir/si/script.sh" <<'EOF'
cd /si && sh /si/user-script.sh
echo "SI_VM_RUN_STATUS=$?" > /dev/kmsg
EOF
# the tag ends as KERNEL does: NAME-full and NAME-lockdep-CASE boot as in the matrix
bash scripts/vm.sh pack "$kernel" "$dir" "$tag"

mkdir -p build/logs
log=build/logs/vm-run-$kernel.log
timeout $((${SI_BOOT_TIMEOUT:-600} * SI_TIMEOUT_FACTOR)) bash scripts/vm.sh qemu "$tag" script < /dev/null | tee "$log" || true
grep -q 'SI_TIMER_HARNESS_DONE' "$log" || die "the VM did not finish (console: $log)"
status=$(sed -n 's/.*SI_VM_RUN_STATUS=\([0-9]*\).*/\1/p' "$log" | tail -n1)
[ -n "$status" ] || die "the script's status never came (console: $log)"
if ! problems=$(python3 selftests/ktap.py "$log"); then
	echo "$problems" >&2
	die "the kernel reported a problem (console: $log)"
fi
echo "vm-run: $kernel: script exited $status (console: $log)" >&2
exit "$status"
