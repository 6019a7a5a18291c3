// SPDX-License-Identifier: GPL-2.0
/* Stub: x86 kprobe emulation of the softirq disabled mask (issue 4). */
#include "vecmask.h"
