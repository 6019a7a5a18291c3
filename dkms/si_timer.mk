# SPDX-License-Identifier: GPL-2.0
#
# Build an out-of-tree module against the installed si_timer. In the
# module's Kbuild (or the kbuild part of its Makefile), before obj-m:
#
#	include /usr/share/si_timer/si_timer.mk
#
# It adds the header directory of si_timer to ccflags-y and the
# Module.symvers that DKMS built for the kernel being built
# ($(KERNELRELEASE)) to KBUILD_EXTRA_SYMBOLS, so modpost resolves the
# si_timer exports and depmod records the dependency. Both are taken from
# the si_timer version DKMS installed for that kernel (the link
# /var/lib/dkms/si_timer/kernel-<release>-<arch>). A dependent that is a
# DKMS package itself also declares BUILD_DEPENDS="si_timer" in its
# dkms.conf, so that DKMS builds and installs si_timer first.
#
# Overrides: SI_TIMER_DKMS_TREE (default /var/lib/dkms), or SI_TIMER_INCLUDE
# and SI_TIMER_SYMVERS directly (e.g. a si_timer build tree).

SI_TIMER_DKMS_TREE ?= /var/lib/dkms
si_timer_active := $(firstword $(wildcard \
	$(SI_TIMER_DKMS_TREE)/si_timer/kernel-$(KERNELRELEASE)-*/Module.symvers))
SI_TIMER_SYMVERS ?= $(si_timer_active)
SI_TIMER_INCLUDE ?= $(if $(si_timer_active),$(dir $(si_timer_active))../../source/include)

ifneq ($(KERNELRELEASE),)
ifeq ($(wildcard $(SI_TIMER_SYMVERS)),)
$(error si_timer is not installed for kernel $(KERNELRELEASE): no \
	$(SI_TIMER_DKMS_TREE)/si_timer/kernel-$(KERNELRELEASE)-<arch>/Module.symvers \
	(dkms install si_timer/<version> -k $(KERNELRELEASE)))
endif
ccflags-y += -I$(SI_TIMER_INCLUDE)
KBUILD_EXTRA_SYMBOLS += $(SI_TIMER_SYMVERS)
endif
