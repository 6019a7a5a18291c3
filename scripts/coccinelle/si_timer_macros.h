/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel macros that Coccinelle's own standard.h (1.1) does not know and
 * must read as what they are to parse a function at all: without them it
 * gives up on every function using one, and scripts/si-migrate.sh (which
 * passes this file to spatch with --macro-file) leaves the timers used
 * there alone. scoped_guard() and scoped_cond_guard() open a statement, as
 * a loop header does.
 */
#define scoped_guard(type, lock) for (;;)
#define scoped_cond_guard(type, fail, lock) for (;;)
