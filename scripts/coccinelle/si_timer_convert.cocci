// SPDX-License-Identifier: GPL-2.0
/// Convert a driver's timer_list timers to si_timer (include/si_timer.h).
///
/// Every timer of a converted file becomes a struct si_timer, every
/// timer_list call its si_timer twin (same semantics and return values),
/// and every callback stays in compatible mode: the flags are mapped
/// one to one and SI_TIMER_SOFTINTERRUPTIBLE is never added; that is the
/// driver author's decision after an audit (scripts/si-timer-audit.py).
/// Timers the kernel owns (a timer_list member of a struct the converted
/// files do not define, such as struct usb_hcd's rh_timer, or a
/// delayed_work's timer) are left alone, with their calls and the
/// callbacks set up on them: scripts/si-migrate.sh finds them
/// (scripts/si-migrate-scan.py) and lists them. Run alone, without that
/// scan, every timer counts as the driver's own.
/// A driver's own hrtimers set up with a literal HRTIMER_MODE_*_SOFT mode
/// become struct si_hrtimer (include/si_hrtimer.h), in compatible mode,
/// with their calls and their callbacks' parameters, as the scan's plan
/// says (SI_HRT_*: without it, none); hard hrtimers are never converted.
/// Run through scripts/si-migrate.sh (make migrate FILE=... / DIR=...),
/// which also adds #include <si_timer.h> where linux/timer.h was not
/// included directly.
///
// Confidence: High
// Options: --no-includes --include-headers

virtual patch

@initialize:python@
@@
import importlib.util
import os
import re
import sys

_scan = None
if os.environ.get("SI_MIGRATE_SCAN") and "SI_OWN_MEMBERS" in os.environ:
    # the scan imports c_text.py from its own directory
    sys.path.insert(0, os.path.dirname(os.environ["SI_MIGRATE_SCAN"]))
    _spec = importlib.util.spec_from_file_location("si_migrate_scan",
                                                   os.environ["SI_MIGRATE_SCAN"])
    _scan = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_scan)


def _names(var):
    return set(n for n in os.environ.get(var, "").split(",") if n)


_own, _dwork, _foreign_cb = _names("SI_OWN_MEMBERS"), _names("SI_DWORK"), _names("SI_FOREIGN_CB")
# Timers kept a timer_list with a helper also handed a kernel-owned timer
# (the scan's kept_group()): their names, the helpers' parameters, and the
# positions of the word timer_list to keep.
if _scan is not None:
    _scan.KEPT.update(dict.fromkeys(_names("SI_KEPT"), ""))
_keep_params = set(tuple(e.split("=", 1)) for e in _names("SI_KEEP_PARAMS") if "=" in e)
_keep_at = set()
for _e in os.environ.get("SI_KEEP_AT", "").split("\n"):
    _f = _e.split("\t")
    if len(_f) == 3 and _f[0] == os.environ.get("SI_MIGRATE_FILE"):
        _keep_at.add((int(_f[1]), int(_f[2])))
_typed = dict([(e, True) for e in os.environ.get("SI_TYPED_OWN", "").split()] +
              [(e, False) for e in os.environ.get("SI_TYPED_FOREIGN", "").split()])


def owned(t):
    """The timer expression t names one of the driver's own timers."""
    return _scan is None or _scan.owned(str(t), _own, _dwork, _typed)


def owned_at(t, p):
    """owned(t), but a kept helper's timer_list parameter, in the helper, is
    not an si_timer."""
    if (p[0].current_element, str(t).strip()) in _keep_params:
        return False
    return owned(t)


def keep_at(p):
    return (int(p[0].line), int(p[0].column)) in _keep_at


def own_field(f):
    return _scan is None or str(f) in _own


def foreign_cb(f):
    return _scan is not None and str(f) in _foreign_cb


# The soft hrtimers to convert (the scan's plan; run alone, without the
# scan, no hrtimer changes: whether a timer is SOFT, and whether its whole
# group can follow, takes the scan's reading of every file):
# - declarations and callbacks' parameters at the plan's positions
#   ("path\tline\tcolumn" lines of SI_HRT_AT, in the file the scan knows as
#   SI_MIGRATE_FILE: this one may be a copy); a position is only good in
#   code no rule has changed yet, so that rule comes first;
# - calls whose timer's text is one the scan lists for this file
#   (SI_HRT_EXPRS, "path\ttext" lines), or is the parameter of a callback of
#   SI_HRT_CBS ("callback=parameter"), in that callback.
_hrt_at, _hrt_exprs = set(), set()
_file = os.environ.get("SI_MIGRATE_FILE")
for _e in os.environ.get("SI_HRT_AT", "").split("\n"):
    _f = _e.split("\t")
    if len(_f) == 3 and _f[0] == _file:
        _hrt_at.add((int(_f[1]), int(_f[2])))
for _e in os.environ.get("SI_HRT_EXPRS", "").split("\n"):
    _f = _e.split("\t")
    if len(_f) == 2 and _f[0] == _file:
        _hrt_exprs.add(_f[1])
_hrt_cbs = dict(e.split("=", 1) for e in os.environ.get("SI_HRT_CBS", "").split(",") if "=" in e)


def hrt_at(p):
    return (int(p[0].line), int(p[0].column)) in _hrt_at


def hrt(t, p):
    """The timer expression t, in the function of position p, is one the
    plan converts."""
    e = re.sub(r"\s+", "", str(t))
    return e in _hrt_exprs or _hrt_cbs.get(p[0].current_element) == e


// Timers kept a timer_list with their helper, and the helper's parameter,
// by position (before any rule changes the code): marked here, passed over
// by the types rule, unmarked after it.
@keep depends on patch@
position p : script:python() { keep_at(p) };
@@
- struct timer_list@p
+ struct si_kernel_owned_timer_list

// The soft hrtimers' declarations and their callbacks' parameters, by
// position: before any other rule has changed the code.
@htypes depends on patch@
position p : script:python() { hrt_at(p) };
@@
- struct hrtimer@p
+ struct si_hrtimer

// Flags first, while the setup calls still have their timer_list names.
@flags depends on patch@
expression T : script:python() { owned(T) };
expression F;
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
|
 __TIMER_INITIALIZER(F, <+...
- TIMER_PINNED
+ SI_TIMER_PINNED
 ...+>)
)

@flags2 depends on patch@
expression T : script:python() { owned(T) };
expression F;
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
|
 __TIMER_INITIALIZER(F, <+...
- TIMER_DEFERRABLE
+ SI_TIMER_DEFERRABLE
 ...+>)
)

@setup depends on patch@
expression T : script:python() { owned(T) };
expression F, FL;
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

@tinit depends on patch@
expression F, FL;
@@
- __TIMER_INITIALIZER(F, FL)
+ __SI_TIMER_INITIALIZER(F, FL)

@container depends on patch@
expression V, T;
identifier FIELD : script:python() { own_field(FIELD) };
@@
(
- from_timer(V, T, FIELD)
+ si_timer_container_of(V, T, FIELD)
|
- timer_container_of(V, T, FIELD)
+ si_timer_container_of(V, T, FIELD)
)

// One rule per call: a position's constraint cannot be evaluated inside a
// disjunction, and owned_at() needs the function the call is in.
@calls_mod_timer depends on patch@
expression T, E;
position p : script:python(T) { owned_at(T, p) };
@@
- mod_timer@p(T, E)
+ si_mod_timer(T, E)

@calls_mod_timer_pending depends on patch@
expression T, E;
position p : script:python(T) { owned_at(T, p) };
@@
- mod_timer_pending@p(T, E)
+ si_mod_timer_pending(T, E)

@calls_timer_reduce depends on patch@
expression T, E;
position p : script:python(T) { owned_at(T, p) };
@@
- timer_reduce@p(T, E)
+ si_timer_reduce(T, E)

@calls_add_timer depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- add_timer@p(T)
+ si_add_timer(T)

@calls_add_timer_on depends on patch@
expression T, C;
position p : script:python(T) { owned_at(T, p) };
@@
- add_timer_on@p(T, C)
+ si_add_timer_on(T, C)

@calls_add_timer_local depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- add_timer_local@p(T)
+ si_add_timer_local(T)

@calls_add_timer_global depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- add_timer_global@p(T)
+ si_add_timer_global(T)

@calls_del_timer depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- del_timer@p(T)
+ si_timer_delete(T)

@calls_del_timer_sync depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- del_timer_sync@p(T)
+ si_timer_delete_sync(T)

@calls_del_singleshot_timer_sync depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- del_singleshot_timer_sync@p(T)
+ si_timer_delete_sync(T)

@calls_timer_delete depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- timer_delete@p(T)
+ si_timer_delete(T)

@calls_timer_delete_sync depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- timer_delete_sync@p(T)
+ si_timer_delete_sync(T)

@calls_try_to_del_timer_sync depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- try_to_del_timer_sync@p(T)
+ si_try_to_del_timer_sync(T)

@calls_timer_shutdown depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- timer_shutdown@p(T)
+ si_timer_shutdown(T)

@calls_timer_shutdown_sync depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- timer_shutdown_sync@p(T)
+ si_timer_shutdown_sync(T)

@calls_timer_pending depends on patch@
expression T;
position p : script:python(T) { owned_at(T, p) };
@@
- timer_pending@p(T)
+ si_timer_pending(T)

// struct sock's timer helpers, on a timer of the protocol's own: open-coded
// as include/net/sock.h's sk_reset_timer() and sk_stop_timer[_sync]() are.
@sock depends on patch@
expression S, E;
expression T : script:python() { owned(T) };
@@
(
- sk_reset_timer(S, T, E);
+ if (!si_mod_timer(T, E))
+	sock_hold(S);
|
- sk_stop_timer(S, T);
+ if (si_timer_delete(T) == 1)
+	__sock_put(S);
|
- sk_stop_timer_sync(S, T);
+ if (si_timer_delete_sync(T) == 1)
+	__sock_put(S);
)

// The callbacks of kernel-owned timers keep their timer_list parameter:
// marked here, passed over by the types rule, unmarked after it.
@protect depends on patch@
identifier F : script:python() { foreign_cb(F) };
identifier P;
type R;
@@
 R F(...,
- struct timer_list *P
+ struct si_kernel_owned_timer_list *P
 ,...) {...}

// Members, locals, globals, arrays, callback parameters, casts, sizeof.
@types depends on patch@
@@
- struct timer_list
+ struct si_timer

@unprotect depends on patch@
@@
- struct si_kernel_owned_timer_list
+ struct timer_list

// Soft hrtimers become si_hrtimers (include/si_hrtimer.h), in compatible
// mode (flags 0): the setup, then the calls that yield a value (they may be
// another call's argument), then the rest.
@hsetup depends on patch@
expression T, F, C, M;
position p : script:python(T) { hrt(T, p) };
@@
- hrtimer_setup@p(T, F, C, M)
+ si_hrtimer_setup(T, F, C, M, 0)

@hsetup_stack depends on patch@
expression T, F, C, M;
position p : script:python(T) { hrt(T, p) };
@@
- hrtimer_setup_on_stack@p(T, F, C, M)
+ si_hrtimer_setup_on_stack(T, F, C, M, 0)

// 6.1's hrtimer_init() and the .function assignment after it: one setup.
@hinit depends on patch@
expression E, C, M, F;
position p : script:python(E) { hrt("&" + str(E), p) };
@@
- hrtimer_init@p(&E, C, M);
- E.function = F;
+ si_hrtimer_setup(&E, F, C, M, 0);

@hinit_apart depends on patch@
expression E, C, M, F;
position p : script:python(E) { hrt("&" + str(E), p) };
@@
- hrtimer_init@p(&E, C, M);
+ si_hrtimer_setup(&E, F, C, M, 0);
  ...
- E.function = F;

@hinit_stack depends on patch@
expression E, C, M, F;
position p : script:python(E) { hrt("&" + str(E), p) };
@@
- hrtimer_init_on_stack@p(&E, C, M);
- E.function = F;
+ si_hrtimer_setup_on_stack(&E, F, C, M, 0);

@hinit_stack_apart depends on patch@
expression E, C, M, F;
position p : script:python(E) { hrt("&" + str(E), p) };
@@
- hrtimer_init_on_stack@p(&E, C, M);
+ si_hrtimer_setup_on_stack(&E, F, C, M, 0);
  ...
- E.function = F;

// A script constraint cannot look at T inside a disjunction: the calls are
// matched, those of other timers dropped, then the rest rewritten.
@hv depends on patch@
expression T;
position p;
@@
(
 hrtimer_get_expires@p(T)
|
 hrtimer_cb_get_time@p(T)
|
 hrtimer_active@p(T)
|
 hrtimer_is_queued@p(T)
|
 hrtimer_callback_running@p(T)
)

@script:python@
T << hv.T;
p << hv.p;
@@
if not hrt(T, p):
    cocci.include_match(False)

@hvalues depends on hv@
expression hv.T;
position hv.p;
@@
(
- hrtimer_get_expires@p(T)
+ si_hrtimer_get_expires(T)
|
- hrtimer_cb_get_time@p(T)
+ si_hrtimer_cb_get_time(T)
|
- hrtimer_active@p(T)
+ si_hrtimer_active(T)
|
- hrtimer_is_queued@p(T)
+ si_hrtimer_is_queued(T)
|
- hrtimer_callback_running@p(T)
+ si_hrtimer_callback_running(T)
)

@hc depends on patch@
expression T;
position p;
@@
(
 hrtimer_start@p(T, ...)
|
 hrtimer_start_range_ns@p(T, ...)
|
 hrtimer_start_expires@p(T, ...)
|
 hrtimer_cancel@p(T)
|
 hrtimer_try_to_cancel@p(T)
|
 hrtimer_forward@p(T, ...)
|
 hrtimer_forward_now@p(T, ...)
|
 hrtimer_set_expires@p(T, ...)
|
 destroy_hrtimer_on_stack@p(T)
)

@script:python@
T << hc.T;
p << hc.p;
@@
if not hrt(T, p):
    cocci.include_match(False)

@hcalls depends on hc@
expression hc.T;
position hc.p;
expression E, R, M;
@@
(
- hrtimer_start@p(T, E, M)
+ si_hrtimer_start(T, E, M)
|
- hrtimer_start_range_ns@p(T, E, R, M)
+ si_hrtimer_start_range_ns(T, E, R, M)
|
// its soft and hard expiries are one (hrtimer_set_expires() or forward)
- hrtimer_start_expires@p(T, M)
+ si_hrtimer_start(T, si_hrtimer_get_expires(T), M)
|
- hrtimer_cancel@p(T)
+ si_hrtimer_cancel(T)
|
- hrtimer_try_to_cancel@p(T)
+ si_hrtimer_try_to_cancel(T)
|
- hrtimer_forward@p(T, E, R)
+ si_hrtimer_forward(T, E, R)
|
- hrtimer_forward_now@p(T, E)
+ si_hrtimer_forward_now(T, E)
|
- hrtimer_set_expires@p(T, E)
+ si_hrtimer_set_expires(T, E)
|
- destroy_hrtimer_on_stack@p(T)
+ si_destroy_hrtimer_on_stack(T)
)

// Only where something became an si_timer: a file whose timers are all the
// kernel's keeps <linux/timer.h>.
@inc depends on patch && (setup || define || tinit || container || calls_mod_timer || calls_mod_timer_pending || calls_timer_reduce || calls_add_timer || calls_add_timer_on || calls_add_timer_local || calls_add_timer_global || calls_del_timer || calls_del_timer_sync || calls_del_singleshot_timer_sync || calls_timer_delete || calls_timer_delete_sync || calls_try_to_del_timer_sync || calls_timer_shutdown || calls_timer_shutdown_sync || calls_timer_pending || sock || types)@
@@
- #include <linux/timer.h>
+ #include <si_timer.h>
