# SPDX-License-Identifier: GPL-2.0
#
# si_timer: build, install and test. `make help` lists the targets.

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PWD := $(CURDIR)
# Kernels booted by `make check` (scripts/vm.sh resolves the names; NAME-mttcg:
# the race tests and the torture under multi-threaded TCG; "dkms" is the DKMS
# and migration-kit step, selftests/dkms_test.sh) and by `make run` /
# `make shell`; seconds a boot may take before it fails.
# The debug kernels (`make check-debug`) are built once and cached by
# scripts/build-debug-kernel.sh, all with lockdep and debugobjects: kasan
# (KASAN, not RT: lockdep as on Debian's non-RT kernels) and kcsan-rt
# (KCSAN, PREEMPT_RT); kasan-rt (KASAN, RT) and kasan-rt-arm64 (the same,
# cross-built for arm64: make check-debug DEBUG_KERNELS=kasan-rt-arm64)
# build on demand. Lockdep reports once per boot: NAME-lockdep-CASE boots
# NAME again for each further deadlock it must report
# (selftests/si_lockdep_test.c).
# 7.x-rt and 7.x: Debian's newest 7.x kernels, which Debian 12 cannot
# install: scripts/newer-kernels.sh unpacks them and prepares a build tree
# (Documentation/newer-kernels.md). 6.1-rt-arm64, 6.12-rt-arm64, 7.x-rt-arm64:
# Debian's arm64 RT kernels (scripts/arm64-kernels.sh), cross-built and
# booted under qemu-system-aarch64 (scripts/arch.sh; Documentation/testing.md,
# "arm64"). JOBS: kernels booted at once (each TCG boot keeps a host CPU
# busy); the order puts the longest first.
DEBUG_KERNELS ?= kasan kcsan-rt kasan-lockdep-softirq kasan-lockdep-bh kasan-lockdep-cycle \
		 kcsan-rt-lockdep-bh kcsan-rt-lockdep-cycle
KERNELS ?= $(DEBUG_KERNELS) dkms 6.1-rt 6.12-rt 6.12-rt-mttcg 7.x-rt 6.12-rt-arm64 6.1-rt-arm64 \
	   7.x-rt-arm64 6.1 6.1-full 7.x
JOBS ?= $(shell nproc)
RUN_KERNEL ?= 6.12-rt
BOOT_TIMEOUT ?= 420
export SI_BOOT_TIMEOUT := $(BOOT_TIMEOUT)
# `make torture`: seconds of si_timer_torture per kernel (make check: 60).
DURATION ?= 600

.PHONY: all modules clean install help deps check check-debug check-host run shell torture bench
.PHONY: dkms-install dkms-remove deb migrate audit vm-run

all: modules

modules:
	@test -d "$(KDIR)" || { echo "No kernel headers at $(KDIR): install linux-headers-$(KVER) or pass KVER=/KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(PWD) W=1 modules

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean 2>/dev/null || true
	rm -rf generated build

install: modules
	$(MAKE) -C $(KDIR) M=$(PWD) modules_install
	depmod -a $(KVER)

deps:
	bash scripts/deps.sh

check: deps check-host
	python3 selftests/runner.py --jobs $(JOBS) $(KERNELS)

check-debug: deps check-host
	python3 selftests/runner.py --jobs $(JOBS) $(DEBUG_KERNELS)

# Only si_timer_torture, DURATION seconds; the boot may take 300 s more.
torture: deps
	SI_TESTS=si_timer_torture SI_APPEND="si_timer_torture.duration=$(DURATION) $(SI_APPEND)" \
		python3 selftests/runner.py --jobs $(JOBS) --timeout $$(($(DURATION) + 300)) $(KERNELS)

# Host-side unit tests of the harness's console parser (no VM): every
# selftests/test_*.py.
check-host:
	python3 -m unittest discover -s selftests -p 'test_*.py'

# Benchmarks (bench/): one TCG and two -icount boots per kernel; results in
# build/bench/. QUICK=1 runs each briefly (make check does that as a smoke test).
BENCH_KERNELS ?= 6.1-rt 6.12-rt 6.1 6.12-rt-arm64
bench: deps
	python3 bench/bench.py $(if $(QUICK),--quick) \
		$(if $(filter file default,$(origin KERNELS)),$(BENCH_KERNELS),$(KERNELS))

run: deps
	bash scripts/vm.sh run $(RUN_KERNEL)

shell: deps
	bash scripts/vm.sh shell $(RUN_KERNEL)

# Your modules and a test script of yours in a kernel of the matrix:
#   make vm-run KERNEL=kasan SCRIPT=test.sh MODULES="path/to/driver_dir x.ko"
# (scripts/vm-run.sh: the exit status is the script's; a kernel problem fails)
KERNEL ?= $(RUN_KERNEL)
vm-run:
	@test -n "$(SCRIPT)" || { echo "usage: make vm-run KERNEL=NAME SCRIPT=FILE [MODULES=...]" >&2; exit 2; }
	bash scripts/vm-run.sh $(KERNEL) $(SCRIPT) $(MODULES)

# DKMS and Debian packaging (scripts/dkms.sh), the migration kit
# (scripts/si-migrate.sh, scripts/si-timer-audit.py): Documentation/dkms.md
# and Documentation/migration.md.
dkms-install:
	bash scripts/dkms.sh install $(KVER)

dkms-remove:
	bash scripts/dkms.sh remove

deb:
	bash scripts/dkms.sh deb build

migrate:
	@test -n "$(FILE)$(DIR)" || { echo "make migrate FILE=<file.c> or DIR=<driver dir> [DIFF=1]" >&2; exit 1; }
	bash scripts/si-migrate.sh $(if $(DIFF),--diff) $(FILE) $(DIR)

audit:
	@test -n "$(FILE)$(DIR)" || { echo "make audit FILE=<file.c> or DIR=<driver dir>" >&2; exit 1; }
	python3 scripts/si-timer-audit.py $(FILE) $(DIR)

# The kit on a seeded sample of >= 60 modules of linux-source-6.12 (long; not
# in make check): scripts/kit-corpus.py, table into Documentation/migration.md.
.PHONY: kit-corpus
kit-corpus:
	nice -n 19 python3 scripts/kit-corpus.py $(if $(SRC),--src $(SRC)) $(if $(BUDGET),--budget $(BUDGET))

help:
	@echo "make [KVER=<release>|KDIR=<dir>]  build si_timer.ko and the test modules"
	@echo "make install                      modules_install + depmod for KVER"
	@echo "make clean                        remove build products (and build/)"
	@echo "make deps                         install the packages and kernels (scripts/deps.sh)"
	@echo "make check [KERNELS=...] [JOBS=n] the test suite on each kernel, n at once (default: $(KERNELS))"
	@echo "make check-debug                  the test suite on the debug kernels only ($(DEBUG_KERNELS))"
	@echo "make check-host                   unit tests of the console parser, on the host"
	@echo "make bench [KERNELS=...] [QUICK=1] benchmarks against timer_list & co (default: $(BENCH_KERNELS))"
	@echo "make run                          boot $(RUN_KERNEL) in QEMU with si_timer loaded, show it"
	@echo "make shell                        boot $(RUN_KERNEL) in QEMU to a busybox shell (Ctrl-A x quits)"
	@echo "make vm-run KERNEL=.. SCRIPT=..   boot a kernel with si_timer, MODULES=\"dir x.ko\" of yours and your script"
	@echo "  BOOT_TIMEOUT=<s> (default 420)  seconds a VM may run before it counts as hung"
	@echo "make torture [DURATION=600] [KERNELS=...]  only si_timer_torture, DURATION s per kernel"
	@echo "make dkms-install [KVER=...]      register si_timer with DKMS, build and install it for KVER"
	@echo "make dkms-remove                  remove si_timer from DKMS (every kernel) and its source"
	@echo "make deb                          build/si-timer-dkms_<version>_all.deb (DKMS source package)"
	@echo "make migrate FILE=|DIR= [DIFF=1]  convert timer_list code to si_timer (Coccinelle), in place"
	@echo "make audit FILE=|DIR=             list timer callbacks with evidence and a verdict for opting in"
	@echo "make kit-corpus [SRC=] [BUDGET=s] audit, convert and build a sample of linux-source-6.12 modules"
	@echo "make lint [KVER=...]              pyflakes3 on the Python, checkpatch --strict on module/, include/, selftests/, then sparse (C=2)"

# Style and static checks of the module's and the tests' code: checkpatch --strict
# (from Debian's linux-source-6.12, unpacked once into build/) and sparse.
# The trace header keeps the kernel's TRACE_EVENT layout, which checkpatch
# only accepts under include/trace/events/.
LINT_SRC := $(filter-out module/si_trace.h %.mod.c,\
	      $(wildcard module/*.[ch] include/*.h selftests/*.[ch] bench/*.[ch]))
CHECKPATCH := build/checkpatch/scripts/checkpatch.pl

$(CHECKPATCH):
	mkdir -p build/checkpatch
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C build/checkpatch --strip-components=1 \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'

.PHONY: lint
lint: $(CHECKPATCH)
	pyflakes3 scripts/*.py selftests/*.py bench/*.py
	shellcheck -x -S warning scripts/*.sh selftests/*.sh .ci/run
	perl $(CHECKPATCH) --strict --no-tree -q -f $(LINT_SRC)
	perl $(CHECKPATCH) --strict --no-tree -q --ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT -f module/si_trace.h
	$(MAKE) -C $(KDIR) M=$(PWD) W=1 C=2 modules
