/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Converter sample: a driver header without includes of its own (as
 * drivers/usb/host/ohci.h), holding a timer; cnv_frag_user.c includes it
 * without using timers, so the converted header must include <si_timer.h>.
 */

struct cnv_frag {
	struct timer_list watchdog;
	unsigned int resets;
};
