# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2054 # variables for the sourcing script; -cpu a,b
#
# Every architecture difference of the test harness, in one place (sourced
# by scripts/vm.sh and scripts/vm-run.sh). A kernel name of the matrix
# ending in -arm64 (6.1-rt-arm64, 6.12-rt-arm64, 7.x-rt-arm64, the debug
# kernel kasan-rt-arm64, and their variants: 6.12-rt-arm64-mttcg...) is an
# arm64 kernel, cross-built here and booted under qemu-system-aarch64; every
# other name is x86-64.
#
#   si_arch_of NAME       print the architecture of kernel NAME: x86_64 | arm64
#   si_arch_setup ARCH    set, for ARCH:
#     SI_KMAKE       make arguments of every build against the kernel's KDIR
#                    (and of scripts/build-debug-kernel.sh's kernel build)
#     SI_KIMAGE      the bootable image in a kernel build tree (the debug
#                    kernels of scripts/build-debug-kernel.sh); its file
#                    name is the make target that builds it
#     SI_BUSYBOX     the static busybox packed into the initramfs
#     SI_USER_CC     the compiler of the static programs packed with it
#                    (bench/si_bench_*.c)
#     SI_QEMU        QEMU and its machine options (an array)
#     SI_APPEND_ARCH the kernel command line's console and clock options
#     SI_TIMEOUT_FACTOR  how many times an x86 boot's timeout a boot may take
#                    (vm.sh writes it to build/NAME/boot.env, where
#                    selftests/runner.py and bench/bench.py read it)

si_arch_of() {
	case $1 in
	*-arm64 | *-arm64-*) echo arm64 ;;
	*) echo x86_64 ;;
	esac
}

# x86: under TCG the guest's TSC runs at the host's rate, but its boot-time
# calibration against the emulated PIT fails now and then on a busy host
# ("PIT calibration deviates from HPET: 137650 2096027"): guest time then
# runs 15 times fast and every timing goes wrong. Tell it the host's rate
# (SI_TSC_KHZ=off: let it calibrate; icount boots have a virtual TSC).
si_tsc_khz() {
	[ "${SI_TSC_KHZ:-}" = off ] || [ "${SI_VM_ICOUNT:-0}" = 1 ] && return
	if [ -n "${SI_TSC_KHZ:-}" ]; then
		echo "$SI_TSC_KHZ"
		return
	fi
	dmesg 2>/dev/null | sed -n 's/.*tsc: \(Refined TSC clocksource calibration: \|Detected \)\([0-9]*\)\.\([0-9]\{3\}\) MHz.*/\2\3/p' |
		tail -n1
}

si_arch_setup() {
	case $1 in
	x86_64)
		SI_KMAKE=()
		SI_KIMAGE=arch/x86/boot/bzImage
		SI_BUSYBOX=/bin/busybox
		SI_USER_CC=gcc
		SI_QEMU=(qemu-system-x86_64)
		local khz
		khz=$(si_tsc_khz)
		SI_APPEND_ARCH="console=ttyS0 tsc=reliable${khz:+ tsc_early_khz=$khz}"
		SI_TIMEOUT_FACTOR=1
		;;
	arm64)
		# Debian's arm64 kernels are built with gcc-12 (the flavour
		# headers name it; linux-source-7.x's tree is configured with
		# it by scripts/arm64-kernels.sh). Pointer authentication stays
		# present (Debian builds ARM64_PTR_AUTH_KERNEL=y) with QEMU's
		# cheap IMPDEF algorithm: -cpu max alone emulates the QARMA5
		# cipher and runs 2-4x slower. The arch timer needs no help.
		SI_KMAKE=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
		# An arm64 kernel does not decompress itself: the debug
		# kernels boot the plain Image (Debian's vmlinuz is a gzip'd
		# Image that QEMU's -kernel loader unpacks).
		SI_KIMAGE=arch/arm64/boot/Image
		SI_BUSYBOX=${SI_CACHE:-/var/cache/si-timer}/arm64/busybox
		SI_USER_CC=aarch64-linux-gnu-gcc-12
		SI_QEMU=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on)
		SI_APPEND_ARCH="console=ttyAMA0"
		# TCG translates arm64 to x86 more slowly than x86 to x86: the
		# check boot of 6.12-rt-arm64 took 448 s where 6.12-rt takes
		# about 250 s (host load average 7).
		SI_TIMEOUT_FACTOR=2
		;;
	*)
		echo "arch.sh: unknown architecture '$1'" >&2
		return 1
		;;
	esac
}
