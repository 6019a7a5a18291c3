# SPDX-License-Identifier: GPL-2.0
#
# si_timer: build, install and test. `make help` lists the targets.

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PWD := $(CURDIR)

.PHONY: all modules clean install help

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

help:
	@echo "make [KVER=<release>|KDIR=<dir>]  build si_timer.ko and the test modules"
	@echo "make install                      modules_install + depmod for KVER"
	@echo "make clean                        remove build products"
