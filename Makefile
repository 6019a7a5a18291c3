# SPDX-License-Identifier: GPL-2.0
#
# si_timer: build, install and test. `make help` lists the targets.

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PWD := $(CURDIR)
# Kernels booted by `make check` (scripts/vm.sh resolves the names) and by
# `make run` / `make shell`; seconds a boot may take before it fails.
# The debug kernels (`make check-debug`) are built once and cached by
# scripts/build-debug-kernel.sh: kasan-rt (KASAN) and kcsan-rt (KCSAN),
# both with lockdep and debugobjects.
DEBUG_KERNELS ?= kasan-rt kcsan-rt
KERNELS ?= 6.1-rt 6.12-rt 6.1 $(DEBUG_KERNELS)
RUN_KERNEL ?= 6.12-rt
BOOT_TIMEOUT ?= 300
export SI_BOOT_TIMEOUT := $(BOOT_TIMEOUT)

.PHONY: all modules clean install help deps check check-debug check-host run shell

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
	python3 selftests/runner.py $(KERNELS)

check-debug: deps check-host
	python3 selftests/runner.py $(DEBUG_KERNELS)

# The harness's own tests, on the host (no VM): how the console parser
# judges kernel reports.
check-host:
	python3 -m unittest discover -s selftests -p 'test_*.py'

run: deps
	bash scripts/vm.sh run $(RUN_KERNEL)

shell: deps
	bash scripts/vm.sh shell $(RUN_KERNEL)

help:
	@echo "make [KVER=<release>|KDIR=<dir>]  build si_timer.ko and the test modules"
	@echo "make install                      modules_install + depmod for KVER"
	@echo "make clean                        remove build products (and build/)"
	@echo "make deps                         install the packages and kernels (scripts/deps.sh)"
	@echo "make check [KERNELS=...]          the test suite on each kernel (default: $(KERNELS))"
	@echo "make check-debug                  the test suite on the debug kernels only ($(DEBUG_KERNELS))"
	@echo "make check-host                   the harness's own tests (console parser), no VM"
	@echo "make run                          boot $(RUN_KERNEL) in QEMU with si_timer loaded, show it"
	@echo "make shell                        boot $(RUN_KERNEL) in QEMU to a busybox shell (Ctrl-A x quits)"
	@echo "  BOOT_TIMEOUT=<s> (default 300)  seconds a VM may run before it counts as hung"
	@echo "make lint [KVER=...]              checkpatch --strict on module/, include/, selftests/, then sparse (C=2)"

# Style and static checks of the module's and the tests' code: checkpatch --strict
# (from Debian's linux-source-6.12, unpacked once into build/) and sparse.
# The trace header keeps the kernel's TRACE_EVENT layout, which checkpatch
# only accepts under include/trace/events/.
LINT_SRC := $(filter-out module/si_trace.h %.mod.c,\
	      $(wildcard module/*.[ch] include/*.h selftests/*.[ch]))
CHECKPATCH := build/checkpatch/scripts/checkpatch.pl

$(CHECKPATCH):
	mkdir -p build/checkpatch
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C build/checkpatch --strip-components=1 \
		--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'

.PHONY: lint
lint: $(CHECKPATCH)
	perl $(CHECKPATCH) --strict --no-tree -q -f $(LINT_SRC)
	perl $(CHECKPATCH) --strict --no-tree -q --ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT -f module/si_trace.h
	$(MAKE) -C $(KDIR) M=$(PWD) W=1 C=2 modules
