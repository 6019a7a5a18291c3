// SPDX-License-Identifier: GPL-2.0
/// Convert a driver's timer_list timers to si_timer (include/si_timer.h).
///
/// Every timer of a converted file becomes a struct si_timer, every
/// timer_list call its si_timer twin (same semantics and return values),
/// and every callback stays in compatible mode: the flags are mapped
/// one to one and SI_TIMER_SOFTINTERRUPTIBLE is never added; that is the
/// driver author's decision after an audit (scripts/si-timer-audit.py).
/// A call left on a timer_list of another file fails to compile (it gets an
/// si_timer), it never mixes the two silently.
/// Run through scripts/si-migrate.sh (make migrate FILE=... / DIR=...),
/// which also adds #include <si_timer.h> where linux/timer.h was not
/// included directly.
///
// Confidence: High
// Options: --no-includes --include-headers

virtual patch

// Flags first, while the setup calls still have their timer_list names.
@flags depends on patch@
expression T, F;
@@
(
 timer_setup(T, F, <+...
- TIMER_PINNED
+ SI_TIMER_PINNED
 ...+>)
|
 timer_setup_on_stack(T, F, <+...
- TIMER_PINNED
+ SI_TIMER_PINNED
 ...+>)
)

@flags2 depends on patch@
expression T, F;
@@
(
 timer_setup(T, F, <+...
- TIMER_DEFERRABLE
+ SI_TIMER_DEFERRABLE
 ...+>)
|
 timer_setup_on_stack(T, F, <+...
- TIMER_DEFERRABLE
+ SI_TIMER_DEFERRABLE
 ...+>)
)

@setup depends on patch@
expression T, F, FL;
@@
(
- timer_setup(T, F, FL)
+ si_timer_setup(T, F, FL)
|
- timer_setup_on_stack(T, F, FL)
+ si_timer_setup_on_stack(T, F, FL)
|
- destroy_timer_on_stack(T)
+ si_destroy_timer_on_stack(T)
)

@define depends on patch@
declarer name DEFINE_TIMER;
declarer name DEFINE_SI_TIMER;
identifier N, F;
@@
- DEFINE_TIMER(N, F);
+ DEFINE_SI_TIMER(N, F);

@container depends on patch@
expression V, T;
identifier FIELD;
@@
(
- from_timer(V, T, FIELD)
+ si_timer_container_of(V, T, FIELD)
|
- timer_container_of(V, T, FIELD)
+ si_timer_container_of(V, T, FIELD)
)

@calls depends on patch@
expression T, E, C;
@@
(
- mod_timer(T, E)
+ si_mod_timer(T, E)
|
- mod_timer_pending(T, E)
+ si_mod_timer_pending(T, E)
|
- timer_reduce(T, E)
+ si_timer_reduce(T, E)
|
- add_timer(T)
+ si_add_timer(T)
|
- add_timer_on(T, C)
+ si_add_timer_on(T, C)
|
- del_timer(T)
+ si_timer_delete(T)
|
- del_timer_sync(T)
+ si_timer_delete_sync(T)
|
- del_singleshot_timer_sync(T)
+ si_timer_delete_sync(T)
|
- timer_delete(T)
+ si_timer_delete(T)
|
- timer_delete_sync(T)
+ si_timer_delete_sync(T)
|
- try_to_del_timer_sync(T)
+ si_try_to_del_timer_sync(T)
|
- timer_shutdown(T)
+ si_timer_shutdown(T)
|
- timer_shutdown_sync(T)
+ si_timer_shutdown_sync(T)
|
- timer_pending(T)
+ si_timer_pending(T)
)

// Members, locals, globals, arrays, callback parameters, casts, sizeof.
@types depends on patch@
@@
- struct timer_list
+ struct si_timer

@inc depends on patch@
@@
- #include <linux/timer.h>
+ #include <si_timer.h>
