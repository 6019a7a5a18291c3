// SPDX-License-Identifier: GPL-2.0
/* Stub, replaced by the API implementation. */
#include "si_timer_internal.h"
