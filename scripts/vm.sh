#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build si_timer for a kernel of the test matrix and boot it under QEMU (TCG).
#
#   vm.sh resolve NAME       print KVER, BZIMAGE, KDIR of kernel NAME
#   vm.sh prepare NAME       build the modules in build/NAME/src, pack
#                            build/NAME/initramfs.cpio.gz, write build/NAME/boot.env
#   vm.sh pack NAME DIR TAG  initramfs of busybox, /init and DIR's files (as
#                            laid out there, e.g. lib/modules/..., si/script.sh)
#                            for kernel NAME, booted as `vm.sh qemu TAG script`
#   vm.sh qemu NAME MODE     boot a prepared kernel, serial console on stdio
#   vm.sh run|shell NAME     prepare + boot (make run / make shell)
#
# NAME: 6.1-rt, 6.1, 6.12-rt (newest installed Debian kernel of that series),
# 7.x-rt, 7.x (Debian's newest 7.x, unpacked by scripts/newer-kernels.sh),
# 6.1-rt-arm64, 6.12-rt-arm64, 7.x-rt-arm64 (Debian's arm64 RT kernels,
# unpacked by scripts/arm64-kernels.sh, cross-built, booted under
# qemu-system-aarch64: scripts/arch.sh holds every architecture difference),
# kasan, kasan-rt, kcsan-rt, kasan-rt-arm64 (debug kernels built and cached by
# scripts/build-debug-kernel.sh; debug-rt is kasan-rt's old name), or an exact
# /boot/vmlinuz-<release>.
# NAME-mttcg: that kernel under multi-threaded TCG (real vCPU parallelism),
# running only the race tests and the torture unless SI_TESTS says otherwise.
# NAME-full: that (non-RT, PREEMPT_DYNAMIC) kernel booted with preempt=full,
# running only the tests that depend on the preemption model, without the
# benchmarks' smoke.
# NAME-lockdep-CASE: that (lockdep) kernel running only si_lockdep_test with
# report=CASE: lockdep reports once per boot, so each deadlock it must
# report needs a boot of its own.
# MODE (for the in-VM /init, selftests/init.sh): check, run, shell or script.
# Exit status 3 means the kernel is not installed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
die() { echo "vm.sh: $*" >&2; exit 1; }
# shellcheck source=scripts/arch.sh
. scripts/arch.sh
missing() { echo "kernel $1 missing: $2" >&2; exit 3; }

# Newest existing path matching a glob, optionally excluding a regex.
newest_path() {
	local p found=
	for p in $1; do
		[ -e "$p" ] || continue
		[ -n "${2:-}" ] && [[ $p =~ $2 ]] && continue
		found+="$p"$'\n'
	done
	printf '%s' "$found" | sort -V | tail -n1
}

# Newest installed Debian kernel release matching a glob, optionally excluding a regex.
newest() {
	local k
	k=$(newest_path "/boot/vmlinuz-$1" "${2:-}")
	echo "${k#/boot/vmlinuz-}"
}

# Sets KVER, BZIMAGE, KDIR, SI_ARCH (and scripts/arch.sh's variables) for kernel $1.
resolve() {
	SI_ARCH=$(si_arch_of "$1")
	si_arch_setup "$SI_ARCH"
	resolve_kernel "$1"
}

resolve_kernel() {
	local kver='' dir
	case $1 in
	*-mttcg) resolve_kernel "${1%-mttcg}"; return ;;
	*-full)  resolve_kernel "${1%-full}"; return ;;
	*-lockdep-*) resolve_kernel "${1%-lockdep-*}"; return ;;
	6.1-rt)  kver=$(newest '6.1.0-*-rt-amd64') ;;
	6.1)     kver=$(newest '6.1.0-*-amd64' '-rt-') ;;
	6.12-rt) kver=$(newest '6.12.*-rt-amd64') ;;
	kasan | kasan-rt | kcsan-rt | debug-rt | kasan-rt-arm64)
		local flavour=${1/#debug-rt/kasan-rt} klog
		[ -f scripts/build-debug-kernel.sh ] ||
			missing "$1" "scripts/build-debug-kernel.sh not found"
		mkdir -p build/logs
		klog=build/logs/$flavour-kernel.log
		echo "vm.sh: building/finding the $flavour kernel (log: $klog)" >&2
		dir=$(bash scripts/build-debug-kernel.sh "$flavour" 2>"$klog" | tail -n1) ||
			missing "$1" "scripts/build-debug-kernel.sh $flavour failed, see $klog"
		KDIR=$dir/obj
		BZIMAGE=$KDIR/$SI_KIMAGE
		[ -f "$BZIMAGE" ] && [ -f "$KDIR/include/config/kernel.release" ] ||
			missing "$1" "no $SI_KIMAGE/kernel.release under '$dir/obj'"
		KVER=$(cat "$KDIR/include/config/kernel.release")
		return 0 ;;
	7.x-rt | 7.x | 6.1-rt-arm64 | 6.12-rt-arm64 | 7.x-rt-arm64)
		# Debian's newest 7.x, unpacked by scripts/newer-kernels.sh
		# (Debian 12 cannot install it); Debian's arm64 RT kernels,
		# unpacked by scripts/arm64-kernels.sh.
		local d cache=${SI_CACHE:-/var/cache/si-timer}/kernels
		case $1 in
		7.x-rt) d=$(newest_path "$cache/7.*-rt-amd64/done") ;;
		7.x) d=$(newest_path "$cache/7.*-amd64/done" '-rt-amd64/done$') ;;
		6.1-rt-arm64) d=$(newest_path "$cache/6.1.0-*-rt-arm64/done") ;;
		6.12-rt-arm64) d=$(newest_path "$cache/6.12.*-rt-arm64/done") ;;
		7.x-rt-arm64) d=$(newest_path "$cache/7.*-rt-arm64/done") ;;
		esac
		d=${d%/done}
		[ -n "$d" ] || missing "$1" "not in $cache: run make deps"
		KVER=${d##*/}
		BZIMAGE=$d/vmlinuz
		KDIR=$d/build
		return 0 ;;
	*) [ -e "/boot/vmlinuz-$1" ] && kver=$1 ;;
	esac
	[ -n "$kver" ] || missing "$1" "run make deps"
	KVER=$kver
	BZIMAGE=/boot/vmlinuz-$kver
	KDIR=/lib/modules/$kver/build
	[ -f "$KDIR/Makefile" ] || missing "$1" "no headers at $KDIR: run make deps"
}

# The test modules of kernel NAME $1, in the order of the si_tests variable
# of ./Kbuild (NAME-mttcg: only the races, the torture and si_hrtimer_test; NAME-full: the
# vector mask's tests, which depend on where the executor can be
# preempted), or those SI_TESTS names (a subset, for hunting one problem).
si_tests() {
	local t
	if [ -n "${SI_TESTS:-}" ]; then
		echo "$SI_TESTS"
		return
	fi
	for t in $(printf 'include Kbuild\n$(info $(si_tests))\nsi-print: ; @:\n' |
		   make -s --no-print-directory -f - si-print); do
		case $1:$t in
		*-mttcg:si_timer_race_test | *-mttcg:si_timer_torture | *-mttcg:si_hrtimer_test) echo "$t" ;;
		*-mttcg:*) ;;
		*-full:si_vecmask_test | *-full:si_softint_test) echo "$t" ;;
		*-full:*) ;;
		*-lockdep-*:si_lockdep_test) echo "$t" ;;
		*-lockdep-*:*) ;;
		*) echo "$t" ;;
		esac
	done
}

prepare() {
	local name=$1 b=build/$1 src=build/$1/src t ir
	resolve "$name"
	echo "vm.sh: $name = $KVER ($BZIMAGE)" >&2
	# NAME-full boots NAME's build: its objects, if NAME's was built first.
	[[ $name != *-full ]] || src=build/${name%-full}/src
	[[ $name != *-lockdep-* ]] || src=build/${name%-lockdep-*}/src
	# M= builds in place: build a copy of the tree, keeping earlier objects.
	mkdir -p "$src" "$b"
	# --checksum --no-times: a file changed since the last copy gets a new mtime,
	# so make rebuilds it even if its objects are newer than its edit.
	rsync -a --no-times --checksum --delete --filter=':- .gitignore' --exclude=/.git "$top/" "$src/"
	make -C "$KDIR" M="$top/$src" "${SI_KMAKE[@]}" W=1 modules >&2

	ir=$b/initramfs
	rm -rf "$ir"
	mkdir -p "$ir"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,si}
	cp "$SI_BUSYBOX" "$ir/bin/busybox"
	install -m 0755 selftests/init.sh "$ir/init"
	install -m 0644 selftests/ktap.sh "$ir/ktap.sh"
	cp "$src/si_timer.ko" "$ir/si/"
	for t in $(si_tests "$name"); do
		cp "$src/selftests/$t.ko" "$ir/si/"
		echo "$t" >> "$ir/si/tests.list"
		# its libraries (Kbuild's si_test_libs), which init.sh loads first
		for d in $(modinfo -F depends "$src/selftests/$t.ko" | tr , ' '); do
			[ ! -f "$src/selftests/$d.ko" ] || cp "$src/selftests/$d.ko" "$ir/si/"
		done
	done
	touch "$ir/si/tests.list"
	[ -f "$src/selftests/si_timer_demo.ko" ] && cp "$src/selftests/si_timer_demo.ko" "$ir/si/"
	# The benchmarks (make bench; make check runs them briefly as a smoke
	# test, except on NAME-full, NAME-lockdep-CASE and NAME-mttcg: no
	# /si/bench, no smoke; under MTTCG each of their si_timer loads is one
	# more round of live text patching that may crash the guest: testing.md).
	if [[ $name != *-full && $name != *-full-* && $name != *-lockdep-* && $name != *-mttcg ]]; then
		mkdir -p "$ir/si/bench"
		cp "$src"/bench/*.ko "$ir/si/bench/"
		"$SI_USER_CC" -static -O2 -Wall -o "$ir/si/bench/si_bench_udp" bench/si_bench_udp.c
		"$SI_USER_CC" -static -O2 -Wall -o "$ir/si/bench/si_bench_modtime" bench/si_bench_modtime.c
	fi
	sed -n 's/^#define[[:space:]]*SI_TIMER_VERSION[[:space:]]*"\(.*\)".*/\1/p' \
		include/si_timer.h > "$ir/si/version"
	(cd "$ir" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) \
		> "$b/initramfs.cpio.gz"
	printf 'KVER=%q\nBZIMAGE=%q\nINITRD=%q\nSI_ARCH=%q\nSI_TIMEOUT_FACTOR=%q\n' "$KVER" \
		"$BZIMAGE" "$top/$b/initramfs.cpio.gz" "$SI_ARCH" "$SI_TIMEOUT_FACTOR" > "$b/boot.env"
}

# An initramfs of busybox, /init and the files under $2, for kernel $1,
# bootable as build/$3 (selftests/dkms_test.sh).
pack() {
	local b=build/$3 ir
	resolve "$1"
	ir=$b/initramfs
	rm -rf "$ir"
	mkdir -p "$ir"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,si}
	cp "$SI_BUSYBOX" "$ir/bin/busybox"
	install -m 0755 selftests/init.sh "$ir/init"
	install -m 0644 selftests/ktap.sh "$ir/ktap.sh"
	cp -a "$2/." "$ir/"
	(cd "$ir" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) \
		> "$b/initramfs.cpio.gz"
	printf 'KVER=%q\nBZIMAGE=%q\nINITRD=%q\nSI_ARCH=%q\nSI_TIMEOUT_FACTOR=%q\n' "$KVER" \
		"$BZIMAGE" "$top/$b/initramfs.cpio.gz" "$SI_ARCH" "$SI_TIMEOUT_FACTOR" > "$b/boot.env"
}

# Boot a prepared kernel; the serial console is stdio (-nographic: Ctrl-A x quits).
# Single-threaded TCG: with one host thread per vCPU (MTTCG, QEMU 7.2) a vCPU
# can run code another vCPU has just patched from a stale translation, and
# kernel text patching then crashes or hangs the guest (a 10-line module
# that only registers and unregisters an ftrace kprobe on run_timer_softirq
# took 6.1-rt down at cycle 351, 6.1 at 208, 6.12-rt at 1048, under host
# load; single-threaded: none in 2551, 3000 and 1796 cycles). SI_VM_ACCEL
# overrides it. SI_VM_ICOUNT=1 adds -icount shift=0,sleep=off: the guest
# clock then counts instructions (1 ns each) and timings repeat exactly, for
# the cost benchmarks. SI_QEMU_ARGS adds other QEMU options.
SI_VM_ACCEL=${SI_VM_ACCEL:-tcg,thread=single}
icount=()
# shellcheck disable=SC2054 # one QEMU option: its suboptions are comma-separated
[ "${SI_VM_ICOUNT:-0}" = 1 ] && icount=(-icount shift=0,sleep=off)

boot() {
	local name=$1 mode=$2 loglevel=7
	[ -f "build/$name/boot.env" ] || die "build/$name not prepared"
	# shellcheck source=/dev/null
	. "build/$name/boot.env"
	si_arch_setup "${SI_ARCH:-x86_64}"
	case $mode in check | script) ;; *) loglevel=5 ;; esac	# run/shell: warnings and worse
	# one si_timer load for all test modules there (init.sh): fewer rounds
	# of live text patching, which MTTCG may run stale
	local keep=
	[[ $name != *-mttcg ]] || { SI_VM_ACCEL=tcg,thread=multi; keep=si_keep_loaded=1; }
	local preempt=
	[[ $name != *-full && $name != *-full-* ]] || preempt=preempt=full
	local lockdep=
	[[ $name != *-lockdep-* ]] ||
		lockdep="si_only_modules=1 si_lockdep_test.report=${name##*-lockdep-}"
	# shellcheck disable=SC2086 # SI_QEMU_ARGS: one word per option
	exec "${SI_QEMU[@]}" -accel "$SI_VM_ACCEL" "${icount[@]}" -smp "${SI_VM_CPUS:-4}" -m 1G \
		-nographic -no-reboot -nic none ${SI_QEMU_ARGS:-} -kernel "$BZIMAGE" -initrd "$INITRD" \
		-append "$SI_APPEND_ARCH panic=-1 sysrq_always_enabled printk.devkmsg=on loglevel=$loglevel si_mode=$mode $preempt $lockdep $keep ${SI_APPEND:-}"
}

cmd=${1:-}
case $cmd in
resolve) resolve "$2"; printf 'KVER=%s\nBZIMAGE=%s\nKDIR=%s\nSI_ARCH=%s\n' "$KVER" "$BZIMAGE" "$KDIR" "$SI_ARCH" ;;
prepare) prepare "$2" ;;
pack) pack "$2" "$3" "$4" ;;
qemu) boot "$2" "$3" ;;
run)
	prepare "$2"
	mkdir -p build/logs
	log=build/logs/run-$2.log
	timeout $((${SI_BOOT_TIMEOUT:-300} * SI_TIMEOUT_FACTOR)) "$0" qemu "$2" run < /dev/null | tee "$log"
	grep -q 'SI_TIMER_HARNESS_DONE' "$log" || die "the VM did not finish (console log: $log)" ;;
shell) prepare "$2"; boot "$2" shell ;;
*) sed -n '4,18s/^# \{0,1\}//p' "$0" >&2; exit 1 ;;
esac
