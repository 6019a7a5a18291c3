/* SPDX-License-Identifier: GPL-2.0 */
/*
 * si_unload_lib: a library module that uses si_timer, for si_unload_cross,
 * which uses only this library. Its callbacks re-arm their timer every
 * SI_UNLOAD_LIB_PERIOD_MS.
 */
#ifndef _SI_UNLOAD_LIB_H
#define _SI_UNLOAD_LIB_H

#include <si_hrtimer.h>

#define SI_UNLOAD_LIB_PERIOD_MS	500

void si_unload_lib_fn(struct si_timer *t);
void si_unload_lib_setup(struct si_timer *t);
void si_unload_lib_arm(struct si_timer *t);
bool si_unload_lib_pending(const struct si_timer *t);
enum hrtimer_restart si_unload_lib_hr_fn(struct si_hrtimer *t);
void si_unload_lib_hr_setup(struct si_hrtimer *t);
void si_unload_lib_hr_start(struct si_hrtimer *t);
int si_unload_lib_runs(void);
int si_unload_lib_hr_runs(void);

#endif /* _SI_UNLOAD_LIB_H */
