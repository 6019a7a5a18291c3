// SPDX-License-Identifier: GPL-2.0
/// The facts of C files the migration kit decides on, as Coccinelle's
/// parser reads them (scripts/c_facts.py runs this; it changes nothing):
/// struct members and their types, function definitions with their
/// parameters, variable declarations, every call with its arguments, and
/// the names given to a field (initializers, assignments).
/// Coccinelle reads the unpreprocessed text and every #ifdef branch, and is
/// the parser that performs the conversion: a member it reports here is a
/// member the rewrite touches.
/// Each fact is one JSON line on stdout, after the marker "@c_facts ".
///
// Options: --no-includes --include-headers

@initialize:python@
@@
import json
import re


def _emit(kind, p, **kw):
    kw.update(kind=kind, file=p.file, line=int(p.line), col=int(p.column),
              where=p.current_element)
    print("@c_facts " + json.dumps(kw))


def _field(p, S, fld, v, lhs=None):
    """A field given a name or &name (any other value: not a function)."""
    m = re.fullmatch(r"&?\s*(\w+)", str(v))
    if m:
        _emit("field", p, struct=S, field=fld, value=m.group(1), lhs=lhs)

// --- Struct members: direct, in an anonymous union or struct, bit fields,
// and those of a struct defined inside another one.

@member@
identifier S, fld;
type T;
position p;
@@
struct S { ... T fld@p; ... };

@script:python@
S << member.S; fld << member.fld; T << member.T; p << member.p;
@@
_emit("member", p[0], struct=S, name=fld, type=T)

@member_in_union@
identifier S, fld;
type T;
position p;
@@
struct S { ... union { ... T fld@p; ... }; ... };

@script:python@
S << member_in_union.S; fld << member_in_union.fld; T << member_in_union.T; p << member_in_union.p;
@@
_emit("member", p[0], struct=S, name=fld, type=T)

@member_in_anon@
identifier S, fld;
type T;
position p;
@@
struct S { ... struct { ... T fld@p; ... }; ... };

@script:python@
S << member_in_anon.S; fld << member_in_anon.fld; T << member_in_anon.T; p << member_in_anon.p;
@@
_emit("member", p[0], struct=S, name=fld, type=T)

@member_bits@
identifier S, fld;
type T;
constant n;
position p;
@@
struct S { ... T fld@p : n; ... };

@script:python@
S << member_bits.S; fld << member_bits.fld; T << member_bits.T; p << member_bits.p;
@@
_emit("member", p[0], struct=S, name=fld, type=T)

@member_nested@
identifier S, S2, fld, x;
type T;
position p;
@@
struct S { ... struct S2 { ... T fld@p; ... } x; ... };

@script:python@
S2 << member_nested.S2; fld << member_nested.fld; T << member_nested.T; p << member_nested.p;
@@
_emit("member", p[0], struct=S2, name=fld, type=T)

// Members of a struct with no tag that declares a variable (static struct
// { ... } dev;, drivers/watchdog/cpu5wdt.c). Their struct is "" (none to
// name it by); a use through the variable is told by the member's name.
// (A typedef of one is not matched: Coccinelle 1.1 refuses that pattern.)

@member_untagged_var@
identifier fld, x;
type T;
position p;
@@
struct { ... T fld@p; ... } x;

@script:python@
fld << member_untagged_var.fld; T << member_untagged_var.T; p << member_untagged_var.p;
@@
_emit("member", p[0], struct="", name=fld, type=T)

// --- Functions, their parameters (in order of position), declarations.

@fn_def@
identifier fn;
parameter list ps;
type T;
position p;
@@
T fn@p(ps) { ... }

@script:python@
fn << fn_def.fn; T << fn_def.T; p << fn_def.p;
@@
_emit("function", p[0], name=fn, type=T, start=int(p[0].current_element_line),
      end=int(p[0].current_element_line_end))

@fn_param@
identifier fn, x;
type T, T2;
position p;
@@
T fn(..., T2 x@p, ...) { ... }

@script:python@
fn << fn_param.fn; x << fn_param.x; T2 << fn_param.T2; p << fn_param.p;
@@
_emit("param", p[0], function=fn, name=x, type=T2)

@var_decl@
type T;
identifier x;
position p;
@@
(
T x@p;
|
T x@p = ...;
)

@script:python@
x << var_decl.x; T << var_decl.T; p << var_decl.p;
@@
_emit("decl", p[0], name=x, type=T)

// --- Calls: callee, each argument's text, where.

@fn_call@
identifier callee;
expression list es;
position p;
@@
callee@p(es)

@script:python@
callee << fn_call.callee; es << fn_call.es; p << fn_call.p;
@@
_emit("call", p[0], callee=callee, args=[str(a) for a in es.elements])

// --- Functions (or any name) given to a field: ops-table initializers
// (.ndo_start_xmit = fn, &fn too), in a struct variable, an array of them
// (with [i] = designators or without), one level down (.inner = { .f = fn },
// struct unknown: null), and assignments (dev->fn = fn, t.function = fn).
// A field a macro brings (HWSIM_COMMON_OPS) is the macro's text: not here.
// The value is any expression, kept when it is a name or &name: a
// disjunction (fn or &fn) inside an initializer's "..." made spatch try
// every split of a long initializer (sch_red.c: minutes, not 0.3 s).

@field_init@
identifier S, x, fld;
expression v;
position p;
@@
struct S x = { ..., .fld = v@p, ... };

@script:python@
S << field_init.S; fld << field_init.fld; v << field_init.v; p << field_init.p;
@@
_field(p[0], S, fld, v)

@field_nested@
identifier S, x, f1, fld;
expression v;
position p;
@@
struct S x = { ..., .f1 = { ..., .fld = v@p, ... }, ... };

@script:python@
fld << field_nested.fld; v << field_nested.v; p << field_nested.p;
@@
_field(p[0], None, fld, v)

@field_array@
identifier S, x, fld;
expression v;
position p;
@@
struct S x[...] = { ..., { ..., .fld = v@p, ... }, ... };

@script:python@
S << field_array.S; fld << field_array.fld; v << field_array.v; p << field_array.p;
@@
_field(p[0], S, fld, v)

@field_array_idx@
identifier S, x, fld;
expression i, v;
position p;
@@
struct S x[...] = { ..., [i] = { ..., .fld = v@p, ... }, ... };

@script:python@
S << field_array_idx.S; fld << field_array_idx.fld; v << field_array_idx.v; p << field_array_idx.p;
@@
_field(p[0], S, fld, v)

@field_assign@
expression e;
identifier fld, fn;
position p;
@@
(
e.fld = fn@p
|
e->fld = fn@p
|
e.fld = &fn@p
|
e->fld = &fn@p
)

@script:python@
e << field_assign.e; fld << field_assign.fld; fn << field_assign.fn; p << field_assign.p;
@@
_emit("field", p[0], struct=None, field=fld, value=fn, lhs=str(e))
