#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Helper of scripts/si-migrate.sh: which timers of the files to convert
are the driver's own, and which are owned by the kernel.

A timer is the driver's own when it is a struct timer_list member of a
struct defined in the files converted (or a variable declared there); one
reached through a member of a struct defined elsewhere (struct usb_hcd's
rh_timer, struct sock's sk_timer) or inside a struct delayed_work is
kernel-owned: the converter leaves it, its timer calls and the callbacks
set up on it alone. The driver's own soft hrtimers (HRTIMER_MODE_*_SOFT)
become si_hrtimers where the whole of each can (HrtPlan).

  si-migrate-scan.py env FILE...     shell assignments for si-migrate.sh:
                                     SI_OWN_MEMBERS, SI_DWORK, SI_FOREIGN_CB
                                     and the soft hrtimers to convert: SI_HRT_IDS,
                                     SI_HRT_CBS, SI_HRT_AT (declarations to retype),
                                     SI_HRT_EXPRS (calls' timers to rewrite)
  si-migrate-scan.py foreign FILE... one line per use of a kernel-owned
                                     timer and per soft hrtimer left alone:
                                     FILE:LINE: text, then what to do
  si-migrate-scan.py hrcheck FILE... after conversion: the hrtimers and
                                     callbacks of SI_HRT_IDS/SI_HRT_CBS
                                     Coccinelle left unconverted (their groups
                                     go to SI_HRT_EXCLUDE, and convert again)

The structs the files define, their members' types and the types of
variables and parameters come from Coccinelle's parser (c_facts.py), which
reads every #ifdef branch and is the parser that performs the conversion;
the uses of a timer are still found in the text.

KDIR (default: /lib/modules/$(uname -r)/build, else the newest
/usr/src/linux-headers-*) names the kernel headers in which a foreign
member's struct is looked up.
"""
import glob
import os
import re
import shlex
import sys

import c_facts
from c_text import block_end, call_args, split_args, strip_comments

CALLS = (r"timer_setup|timer_setup_on_stack|mod_timer|mod_timer_pending|timer_reduce|add_timer|"
         r"add_timer_on|add_timer_local|add_timer_global|del_timer|del_timer_sync|"
         r"del_singleshot_timer_sync|timer_delete|timer_delete_sync|try_to_del_timer_sync|"
         r"timer_shutdown|timer_shutdown_sync|timer_pending|destroy_timer_on_stack")
CALL = re.compile(r"\b(?P<fn>%s)\s*\(" % CALLS)


def first_arg(text, pos):
    """The first argument of the call whose '(' is at pos."""
    depth, i = 0, pos
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return text[pos + 1:i]
        elif ch == "," and depth == 1:
            return text[pos + 1:i]
        i += 1
    return text[pos + 1:]


def struct_defs(facts=None):
    """Structs the files define, as the parser reads them (every #ifdef
    branch: a member after an #endif, such as struct net_bridge's
    hello_timer, or inside an #ifdef block is a member): name -> {member:
    the struct its type names, or None}, and name -> set of its timer
    members (struct timer_list or si_timer objects, arrays too)."""
    facts = FACTS if facts is None else facts
    members, timers = {}, {}
    for name, mem in facts.structs.items():
        members[name] = {m: c_facts.type_struct(t) for m, t in mem.items()}
        timers[name] = set(m for m, t in mem.items() if c_facts.type_is_object(t, ("timer_list", "si_timer")))
    return members, timers


FACTS = c_facts.Facts()     # the parser's facts of the files scanned (main())
TEXTS = {}                  # their texts, comments blanked, by path (main())


def var_type(path, pos, var):
    """The struct type var is declared with where pos is: a parameter or
    local of the function holding pos, declared before it, else a variable
    at file scope, else the last declaration of that name before pos (code
    the parser does not see as a function's: a macro's body); for a call
    (ehci_to_hcd(ehci), as parts() leaves it), the struct its function
    returns a pointer to."""
    call = re.match(r"(\w+)\(", var)
    if call:
        fs = FACTS.functions.get(call.group(1), [])
        return next((c_facts.type_struct(f.type) for f in fs if c_facts.type_is_pointer(f.type)), None)
    line = line_of(TEXTS[path], pos)
    fn = FACTS.function_at(path, line)
    if fn:
        found = next((t for n, t in fn.params if n == var), None)
        for d in FACTS.decls:
            if d.path == path and d.function == fn.name and d.name == var and d.line <= line:
                found = d.type
        if found is not None:
            return c_facts.type_struct(found)
    decls = [d for d in FACTS.decls if d.path == path and d.name == var]
    glob_ = [d for d in decls if d.function is None]
    if glob_:
        return c_facts.type_struct(glob_[-1].type)
    before = [d for d in decls if d.line <= line] + \
        [(f, n, t) for fs in FACTS.functions.values() for f in fs if f.path == path and f.line <= line
         for n, t in f.params if n == var]
    if not before:
        return None
    last = max(before, key=lambda d: d.line if isinstance(d, c_facts.Decl) else d[0].line)
    return c_facts.type_struct(last.type if isinstance(last, c_facts.Decl) else last[2])


def container_type(path, pos, expr, members):
    """The struct type holding the expression's last member, as far as the
    base's declaration and the files' structs tell."""
    p = parts(expr)
    if len(p) < 2:
        return None
    t = var_type(path, pos, p[0])
    for m in p[1:-1]:
        if t is None or t not in members:
            return None
        t = members[t].get(m)
    return t


def typed_owner(path, pos, expr, members, timers):
    """True/False when the types of the expression's chain say whether the
    timer is a member of a struct the files define; None when they do not."""
    p = parts(expr)
    if len(p) < 2:
        return None
    t = var_type(path, pos, p[0])
    for m in p[1:-1]:
        if t is None:
            return None
        if t not in members:
            return False        # through a struct the files do not define
        t = members[t].get(m)
    if t is None:
        return None
    return t in timers and p[-1] in timers[t]


def scan(paths):
    texts = {p: strip_comments(open(p, errors="replace").read()) for p in paths}
    own, dwork, hrt = set(), set(), set()
    # Members and variables declared struct timer_list, as the parser reads
    # them (arrays and pointers too). (struct si_timer too: the scan also
    # reads converted files.)
    timer_types = ("timer_list", "si_timer")
    own.update(m[4] for m in FACTS.members if c_facts.type_struct(m[5]) in timer_types)
    own.update(d.name for d in FACTS.decls if c_facts.type_struct(d.type) in timer_types)
    for t in texts.values():
        # A macro that declares a timer, which no parser reads as a declaration.
        for m in re.finditer(r"\bDEFINE_(?:SI_)?TIMER\s*\(\s*(\w+)", t):
            own.add(m.group(1))
        for m in re.finditer(r"\bstruct\s+(?:delayed_work|rcu_work)\s+\**\s*(\w+)", t):
            dwork.add(m.group(1))
        for m in re.finditer(r"\bstruct\s+(?:si_)?hrtimer\s+\**\s*(\w+)", t):
            hrt.add(m.group(1))
    return texts, own, dwork, hrt


def parts(expr):
    """The member chain of an expression: &a->b.c is [a, b, c];
    &f(x)->b is [f(x, b] (a call base keeps its name and '(')."""
    e = re.sub(r"\s+", "", expr)
    e = re.sub(r"\[[^]]*\]", "", e)
    while e[:1] in "&*" or (e[:1] == "(" and e.endswith(")")):
        e = e[1:] if e[:1] in "&*" else e[1:-1]
    call = re.match(r"(\w+\()[^()]*(?:\([^()]*\)[^()]*)*\)", e)
    if call:
        rest = e[call.end():]
        return [call.group(1)] + [p for p in re.split(r"->|\.", rest) if p]
    while e.endswith(")"):
        e = e[:-1]
    return [p for p in re.split(r"->|\.", e) if p]


def names_env(var):
    return set(n for n in re.split(r"[,\s]+", os.environ.get(var, "")) if n)


def norm(expr):
    return re.sub(r"\s+", "", expr)


STRUCTS = ()    # struct_defs() of the files scanned
TYPED = {}      # normalised expression -> True/False, from the types (typed_scan())


def owned(expr, own, dwork, typed=None):
    """The timer an expression names is the driver's own: as the types of
    its chain say, else by its member name."""
    typed = TYPED if typed is None else typed
    p = parts(expr)
    if p and p[-1] in KEPT and (len(p) > 1 or expr.strip().startswith("&")):
        return False            # kept a timer_list with a helper (kept_group())
    if norm(expr) in typed:
        return typed[norm(expr)]
    if len(p) <= 1:
        return True             # a variable or a callback's parameter
    if p[-2] in dwork or p[-2] in ("dwork", "work") and p[-1] == "timer":
        return False
    return p[-1] in own


# --- Timers kept a timer_list with their helpers ----------------------------
#
# A function of the files that takes a struct timer_list * (a helper such as
# net/bridge's br_timer_value()) is retyped with the timers only if every
# timer it is handed is converted: handed a kernel-owned one as well
# (br_timer_value(&br->gc_work.timer)), it keeps its timer_list parameter,
# and so does every timer of the driver handed to it, with its callbacks and
# its calls: the group is decided together, all converted or all listed.
# The same for a callback whose address escapes to a function the files do
# not define (net/dccp's inet_csk_init_xmit_timers(sk, &dccp_write_timer,
# ...), which sets up struct inet_connection_sock's timers with it): the
# kernel calls it with a timer_list, so it keeps its parameter, and so does
# every timer of the driver set up with it.

KEPT = {}           # member or variable name -> why it stays a timer_list
KEPT_FUNCS = {}     # function -> {timer_list * parameter or local kept: why}
KEEP_AT = set()     # (path, line, column) of each word timer_list to keep
TIMER_PTR = re.compile(r"^\s*(?:const\s+)?struct\s+timer_list\s*\*\s*(?:const\s+)?(\w+)\s*$")
FUNC_HEAD = re.compile(r"^[A-Za-z_][^;{}()#]*?\b(\w+)\s*\(([^;{}]*?)\)\s*(\{|;)", re.M)
LOCAL_PTR = re.compile(r"\bstruct\s+timer_list\s*\*\s*(\w+)\s*[;=,)]")
# Calls a callback may be handed to without escaping: the setups the kit
# converts (or keeps, with their timer), and what is no call.
CB_SETUPS = re.compile(r"(?:si_)?timer_setup(?:_on_stack)?|DEFINE_(?:SI_)?TIMER|__(?:SI_)?TIMER_INITIALIZER|"
                       r"if|while|for|switch|return|sizeof|typeof|__typeof__|defined")


def foreign(reason):
    """The node of one kernel-owned thing a group is joined to: a group
    joined to any stays timer_list whole, listed with these reasons."""
    return ("F", reason)


def kept_group(texts, own, dwork):
    """Fill KEPT, KEPT_FUNCS and KEEP_AT. Every place a driver's timer can
    flow to is a node: the timer (by member or variable name), each
    struct timer_list * parameter of a function of the files, each such
    local pointer. A call, an assignment, a setup (the timer to its
    callback's parameter) or one declaration joins its nodes; a group
    joined to a kernel-owned timer stays timer_list whole."""
    parent = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a, b, reason=None):
        # A kernel-owned node takes the reason that says how the group met it.
        a, b = [foreign(reason) if x[0] == "F" and reason else x for x in (a, b)]
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra

    funcs = []          # (path, name, {param: index}, body start, body end)
    for p, t in texts.items():
        for m in FUNC_HEAD.finditer(t):
            if m.group(3) != "{" or brace_depth(t, m.start()) != 0:
                continue
            params = {}
            for i, a in enumerate(split_args(m.group(2))):
                pm = TIMER_PTR.match(a)
                if pm:
                    params[pm.group(1)] = i
            funcs.append((p, m.group(1), params, m.end() - 1, block_end(t, m.end() - 1)))
    takes = {}          # function -> {index: parameter}
    for p, name, params, s, e in funcs:
        if params:
            takes.setdefault(name, {i: n for n, i in params.items()})
    for p, name, params, s, e in funcs:
        t = texts[p]
        body = t[s:e]
        locs, decls = set(LOCAL_PTR.findall(body)), []
        for dm in re.finditer(r"\bstruct\s+timer_list\s+(\*[^;(){}]+);", body):
            ns = [re.match(r"\s*\*\s*(\w+)", d) for d in dm.group(1).split(",")]
            decls.append([n.group(1) for n in ns if n])
            locs.update(decls[-1])

        def node(a, pos):
            a = a.strip()
            if re.fullmatch(r"\w+", a):
                if a in params:
                    return ("p", name, a), None
                if a in locs:
                    return ("l", name, a), None
                return None, None
            if a.startswith("&") and parts(a):
                if owned(a, own, dwork):
                    return ("m", parts(a)[-1]), None
                r = "%s (%s:%d)" % (" ".join(a.split()), p, line_of(t, pos))
                return foreign(r), r
            return None, None

        for m in re.finditer(r"\b(\w+)\s*\(", body):
            c, pos = m.group(1), s + m.start()
            setup = re.fullmatch(r"timer_setup(?:_on_stack)?", c)
            if c not in takes and not setup:
                continue
            try:
                args = call_args(body, m.end() - 1)
            except ValueError:
                continue
            if setup:
                if len(args) >= 2 and args[1].strip() in takes:
                    cb = args[1].strip()
                    n, r = node(args[0], pos)
                    for pn in takes[cb].values():
                        if n:
                            union(n, ("p", cb, pn), r and "its callback %s() is set up on the kernel-owned "
                                  "timer %s" % (cb, r))
                continue
            for i, pn in takes[c].items():
                if i < len(args):
                    n, r = node(args[i], pos)
                    if n:
                        union(n, ("p", c, pn), r and "%s() is also handed the kernel-owned timer %s"
                              % (c, r))
        for ns in decls:        # struct timer_list *a, *b: one type
            for a, b in zip(ns, ns[1:]):
                union(("l", name, a), ("l", name, b))
        for loc in locs:
            for am in re.finditer(r"(?<![\w>.])%s\s*=(?!=)\s*([^;]+);" % re.escape(loc), body):
                n, r = node(am.group(1), s + am.start())
                if n:
                    union(("l", name, loc), n, r and "%s() points %s at the kernel-owned timer %s"
                          % (name, loc, r))
    # A callback (a function of the files taking a struct timer_list *)
    # whose address is handed to a function the files do not define: the
    # kernel will call it with a timer_list of its own.
    defined = set(f[1] for f in funcs)
    for p, t in texts.items():
        for m in re.finditer(r"\b(\w+)\s*\(", t):
            c = m.group(1)
            if c in defined or CB_SETUPS.fullmatch(c) or c in takes:
                continue
            try:
                args = call_args(t, m.end() - 1)
            except ValueError:
                continue
            for a in args:
                e = norm(a)
                while e[:1] == "(" and e[-1:] == ")":
                    e = e[1:-1]
                e = e.lstrip("&")
                if e in takes:
                    r = "its callback %s() is passed to %s() (%s:%d), a function the files do not " \
                        "define: the kernel calls it with a struct timer_list *" % (e, c, p, line_of(t, m.start()))
                    for pn in takes[e].values():
                        union(foreign(r), ("p", e, pn), r)
    # One declaration, one type.
    for p, t in texts.items():
        for m in re.finditer(r"\bstruct\s+(timer_list)\s+([^;(){}=]+)[;=]", t):
            names = [re.match(r"\s*\**\s*(\w+)", d) for d in m.group(2).split(",")]
            names = [n.group(1) for n in names if n]
            for a, b in zip(names, names[1:]):
                union(("m", a), ("m", b))
    reasons = {}        # root of a kept group -> its kernel-owned nodes' reasons
    for x in list(parent):
        if x[0] == "F":
            rs = reasons.setdefault(find(x), [])
            if x[1] not in rs:
                rs.append(x[1])
    kept_idx = {}       # function -> indices of its kept parameters (prototypes may not name them)
    for x in list(parent):
        if x[0] == "F" or find(x) not in reasons:
            continue
        text = ("%s; the driver's timers, helpers and callbacks that share it stay a timer_list "
                "together: split that code (an si_timer twin of the helper) to convert them"
                % "; ".join(sorted(reasons[find(x)])))
        if x[0] == "m":
            KEPT[x[1]] = text
        else:
            KEPT_FUNCS.setdefault(x[1], {})[x[2]] = text
            if x[0] == "p":
                kept_idx.setdefault(x[1], set()).update(
                    i for i, n in takes.get(x[1], {}).items() if n == x[2])
    for p, t in texts.items():
        for m in re.finditer(r"\bstruct\s+(timer_list)\s+([^;(){}=]+)[;=]", t):
            names = [re.match(r"\s*\**\s*(\w+)", d) for d in m.group(2).split(",")]
            if any(n and n.group(1) in KEPT for n in names) and not m.group(2).lstrip().startswith("*"):
                KEEP_AT.add((p,) + line_col(t, m.start(1)))
        for m in FUNC_HEAD.finditer(t):
            kept = KEPT_FUNCS.get(m.group(1), {})
            if not kept:
                continue
            for i, a in enumerate(split_args(m.group(2))):
                pm = TIMER_PTR.match(a)
                if (pm and pm.group(1) in kept) or (i in kept_idx.get(m.group(1), ()) and
                                                    re.match(r"\s*(?:const\s+)?struct\s+timer_list\s*\*", a)):
                    w = re.search(r"timer_list", a)
                    off = m.start(2) + m.group(2).index(a) + w.start()
                    KEEP_AT.add((p,) + line_col(t, off))
            if m.group(3) == "{":
                body_s = m.end() - 1
                for lm in LOCAL_PTR.finditer(t, body_s, block_end(t, body_s)):
                    if lm.group(1) in kept:
                        KEEP_AT.add((p,) + line_col(t, lm.start() + lm.group(0).index("timer_list")))


def typed_scan(texts):
    """Each timer expression of a timer call, .function = or sk_*_timer()
    call whose types settle whether it is the driver's own."""
    members, timers = struct_defs()
    out = {}
    for p, t in texts.items():
        exprs = []
        for m in CALL.finditer(t):
            exprs.append((first_arg(t, m.end() - 1), m.start()))
        for m in re.finditer(r"\b(?:sk_reset_timer|sk_stop_timer|sk_stop_timer_sync)\s*\(", t):
            a = call_args(t, m.end() - 1)
            if len(a) >= 2:
                exprs.append((a[1], m.start()))
        for m in FUNCTION_SET.finditer(t):
            exprs.append((m.group("t"), m.start()))
        for e, pos in exprs:
            v = typed_owner(p, pos, e, members, timers)
            if v is not None:
                # The same text typed two ways: leave it to the member name.
                out[norm(e)] = v if out.get(norm(e), v) == v else None
    return {k: v for k, v in out.items() if v is not None}


FUNCTION_SET = re.compile(r"(?P<t>[\w.\->\[\]]+?)\s*(?:\.|->)\s*function\s*=\s*&?(?P<fn>\w+)\s*;")


def foreign_uses(texts, own, dwork, hrt=()):
    """(path, line, call, expr, member) of each timer call on a foreign
    timer, and of each .function set on one."""
    out = []
    for p, t in texts.items():
        for m in CALL.finditer(t):
            a = first_arg(t, m.end() - 1)
            if not owned(a, own, dwork):
                out.append((p, t.count("\n", 0, m.start()) + 1, m.group("fn"), a.strip(),
                            parts(a)[-1], m))
        for m in re.finditer(r"\b(?P<fn>sk_reset_timer|sk_stop_timer|sk_stop_timer_sync)\s*\(", t):
            a = call_args(t, m.end() - 1)
            if len(a) >= 2 and not owned(a[1], own, dwork):
                out.append((p, t.count("\n", 0, m.start()) + 1, m.group("fn"), a[1].strip(),
                            parts(a[1])[-1], m))
        for m in FUNCTION_SET.finditer(t):
            a = m.group("t")
            if parts(a) and parts(a)[-1] not in hrt and not owned(a, own, dwork):
                out.append((p, t.count("\n", 0, m.start()) + 1, ".function =", a.strip(),
                            parts(a)[-1], m))
    return out


def foreign_callbacks(texts, own, dwork, hrt=()):
    cbs = set()
    for p, t in texts.items():
        for m in re.finditer(r"\btimer_setup(?:_on_stack)?\s*\(", t):
            a = call_args(t, m.end() - 1)
            if len(a) >= 2 and not owned(a[0], own, dwork) and re.fullmatch(r"\w+", a[1]):
                cbs.add(a[1])
        for m in FUNCTION_SET.finditer(t):
            a = m.group("t")
            if parts(a) and parts(a)[-1] not in hrt and not owned(a, own, dwork):
                cbs.add(m.group("fn"))
    return cbs


# Calls an si_timer may be handed to.
PASS_OK = re.compile(r"^(si_\w+|__si_\w+|container_of|offsetof|sizeof|typeof|ARRAY_SIZE|"
                     r"WARN_ON\w*|BUG_ON|READ_ONCE|WRITE_ONCE|likely|unlikely|if|while|for|"
                     r"switch|return|pr_\w+|dev_\w+|netdev_\w+|printk|memset|debug_\w+|"
                     r"kfree\w*|free_percpu)$")


def passed_on(texts, own, dwork):
    """(path, line, callee, argument) where a call outside the si_timer API
    gets one of the driver's timers, converted: it may want a timer_list."""
    out = []
    for p, t in texts.items():
        for m in re.finditer(r"\b(\w+)\s*\(", t):
            if PASS_OK.match(m.group(1)) or re.fullmatch(CALLS, m.group(1)):
                continue
            for a in call_args(t, m.end() - 1):
                if not a.startswith("&"):
                    continue
                pa = parts(a)
                typed = typed_owner(p, m.start(), a, *STRUCTS) if STRUCTS else None
                if len(pa) >= 2 and pa[-1] in own and typed is not False and owned(a, own, dwork):
                    out.append((p, t.count("\n", 0, m.start()) + 1, m.group(1), a))
    return out


def header_roots(kdir):
    roots = [os.path.join(kdir, "include")]
    try:
        # Debian: the arch's headers include the common ones' Makefile.
        mk = open(os.path.join(kdir, "Makefile")).read()
        roots += [os.path.join(d, "include") for d in re.findall(r"^include\s+(\S+)/Makefile", mk, re.M)]
    except OSError:
        pass
    return [r for r in roots if os.path.isdir(r)]


def kernel_struct(member, kdir, stype, includes):
    """(struct, header) of the kernel header struct holding a timer_list of
    that name: the struct the expression's base is declared as, else one of
    the headers the file includes; None if neither says. Which struct holds
    the member is the parser's answer (c_facts); finding the headers that
    may define it is a text search, over the whole tree: no parser tells
    where a struct is defined."""
    rx = re.compile(r"\bstruct\s+timer_list\s+%s\b" % re.escape(member))
    roots = header_roots(kdir)

    def holder(f, r):
        for m in c_facts.parse([f], blank=True).members:
            if m[4] == member and c_facts.type_is_object(m[5], ("timer_list",)) and \
                    (stype is None or m[3] == stype):
                return m[3], os.path.relpath(f, r)
        return None

    # The headers the file includes first, in their order.
    seen = set()
    for inc in includes:
        for r in roots:
            f = os.path.join(r, inc)
            if f in seen or not os.path.isfile(f):
                continue
            seen.add(f)
            try:
                with open(f, errors="replace") as fh:
                    if not rx.search(fh.read()):
                        continue
            except OSError:
                continue
            found = holder(f, r)
            if found:
                return found
    if stype:
        # The base's struct, wherever it is defined.
        drx = re.compile(r"\bstruct\s+%s\s*\{" % re.escape(stype))
        for r in roots:
            for d, _, names in os.walk(r):
                for n in names:
                    if not n.endswith(".h"):
                        continue
                    f = os.path.join(d, n)
                    try:
                        with open(f, errors="replace") as fh:
                            t = fh.read()
                    except OSError:
                        continue
                    if drx.search(t) and rx.search(t):
                        found = holder(f, r)
                        if found:
                            return found
    return None


# --- Soft hrtimers --------------------------------------------------------
#
# A driver's own hrtimer set up with a literal HRTIMER_MODE_*_SOFT mode
# becomes an si_hrtimer (include/si_hrtimer.h): its callback leaves the
# HRTIMER softirq for the executors, in compatible mode. Hard hrtimers (no
# _SOFT: hardirq context off PREEMPT_RT) are never ours. Unlike a
# timer_list, whose type is converted wherever it is written, an hrtimer is
# converted only where this plan says: its declarations and its callbacks'
# parameters at their positions (SI_HRT_AT), the calls by the text of their
# timer in their file (SI_HRT_EXPRS). The timers that share a callback are
# converted together or not at all, and whatever the plan cannot follow
# leaves its whole group alone, listed. Half a group converted would not
# compile, or would hand an si_hrtimer to code that takes a struct hrtimer.

# hrtimer calls on a timer (their first argument) -> the si_hrtimer twin.
HRT_TWINS = {
    "hrtimer_start": "si_hrtimer_start",
    "hrtimer_start_range_ns": "si_hrtimer_start_range_ns",
    # si_hrtimer_start(t, si_hrtimer_get_expires(t), mode): its soft and
    # hard expiries are one, as nothing the plan converts can part them
    "hrtimer_start_expires": "si_hrtimer_start",
    "hrtimer_cancel": "si_hrtimer_cancel",
    "hrtimer_try_to_cancel": "si_hrtimer_try_to_cancel",
    "hrtimer_forward": "si_hrtimer_forward",
    "hrtimer_forward_now": "si_hrtimer_forward_now",
    "hrtimer_active": "si_hrtimer_active",
    "hrtimer_is_queued": "si_hrtimer_is_queued",
    "hrtimer_callback_running": "si_hrtimer_callback_running",
    "hrtimer_get_expires": "si_hrtimer_get_expires",
    "hrtimer_set_expires": "si_hrtimer_set_expires",
    "hrtimer_cb_get_time": "si_hrtimer_cb_get_time",
    "destroy_hrtimer_on_stack": "si_destroy_hrtimer_on_stack",
}
# Setups: name -> index of the callback argument (hrtimer_init(): none, the
# .function assignment after it); the mode is the last argument.
HRT_SETUPS = {"hrtimer_setup": 1, "hrtimer_init": None,
              "hrtimer_setup_on_stack": 1, "hrtimer_init_on_stack": None}
HRT_SETUP = re.compile(r"\b(?P<fn>%s)\s*\(" % "|".join(HRT_SETUPS))
HRT_SOFT_MODE = re.compile(r"HRTIMER_MODE_(?:ABS|REL)(?:_PINNED)?_SOFT")
# Where a callback's parameter may go besides the twins: call -> index.
HRT_CONTAINER = {"container_of": 0, "container_of_const": 0, "from_timer": 1,
                 "timer_container_of": 1}
# Calls naming a member as a field, not a timer: call -> index.
HRT_FIELD = {"container_of": 2, "container_of_const": 2, "from_timer": 2,
             "timer_container_of": 2, "offsetof": 1, "offsetofend": 1, "sizeof_field": 1}
# Calls that print a pointer, whatever its type.
HRT_PRINT = re.compile(r"(?:pr_\w+|dev_\w+|netdev_\w+|printk)")


def hrt_mode(mode):
    """soft (a literal *_SOFT constant), hard (a constant without SOFT:
    hardirq context off RT) or unclear (a macro, a variable, an expression,
    HRTIMER_MODE_REL | HRTIMER_MODE_SOFT: the plan does not evaluate it)."""
    m = " ".join(mode.split())
    if HRT_SOFT_MODE.fullmatch(m):
        return "soft"
    if re.fullmatch(r"HRTIMER_MODE_\w+", m) and "SOFT" not in m:
        return "hard"
    return "unclear"


def line_of(t, pos):
    return t.count("\n", 0, pos) + 1


def line_col(t, pos):
    """1-based line and 0-based column, as Coccinelle's positions give them."""
    return line_of(t, pos), pos - t.rfind("\n", 0, pos) - 1


def brace_depth(t, pos):
    return t.count("{", 0, pos) - t.count("}", 0, pos)


def outer_block(t, pos):
    """(start, end) of the top-level {} block holding pos (a function's body)."""
    depth, start = 0, 0
    for i in range(pos):
        if t[i] == "{":
            start = i if depth == 0 else start
            depth += 1
        elif t[i] == "}":
            depth -= 1
    return start, block_end(t, start)


def decl_scope(p, t, pos):
    """Where the declarator whose name is at pos is, as the parser reads
    it: ("member", its struct), ("local", None) or ("global", None). The
    member of an anonymous struct or union is its outer struct's. A
    declaration the parser did not read (in code Coccinelle cannot parse)
    counts as a local inside a function and a global outside: the check
    after the conversion (hrcheck) then finds it unconverted, and its
    group is left alone."""
    line, col = line_col(t, pos)
    member = FACTS.member_at(p, line, col)
    if member:
        return "member", member[0]
    return ("local" if FACTS.function_at(p, line) else "global"), None


def hrt_decls(texts, types=("hrtimer",)):
    """The objects (not pointers) declared struct hrtimer, by name: [(path,
    position of the word hrtimer, end of the declaration, scope, struct,
    the names declared with it)]. The text gives the word to retype (the
    parser gives no position for a type); the parser, whose member each is."""
    out = {}
    rx = re.compile(r"\bstruct\s+(%s)\b" % "|".join(types))
    for p, t in texts.items():
        for m in rx.finditer(t):
            d = re.match(r"([^;(){}=]*?)\s*[;=]", t[m.end():])
            if not d or not d.group(1).strip():
                continue
            names, off = [], m.end()
            for decl in d.group(1).split(","):
                n = re.fullmatch(r"\s*(\w+)\s*(?:\[[^]]*\]\s*)*", decl)
                if n:
                    names.append((n.group(1), off + n.start(1)))
                off += len(decl) + 1
            for n, npos in names:
                scope, struct = decl_scope(p, t, npos)
                out.setdefault(n, []).append((p, m.start(1), m.end() + d.end(), scope, struct,
                                              [x[0] for x in names]))
    return out


def call_at(t, pos):
    """The innermost call whose arguments hold pos, within its statement:
    (callee, index of the argument, position of '(', of the callee), or None."""
    depth, commas, i = 0, 0, pos
    while i > 0:
        i -= 1
        ch = t[i]
        if ch in ")]":
            depth += 1
        elif ch == "[":
            depth -= 1
        elif ch == "(":
            if depth:
                depth -= 1
                continue
            c = re.search(r"(\w+)\s*$", t[max(0, i - 80):i])
            if not c:
                return None             # a parenthesised expression, a cast
            return c.group(1), commas, i, i - len(c.group(0))
        elif ch == "," and depth == 0:
            commas += 1
        elif ch in ";{}" and depth == 0:
            return None
    return None


def chain_start(t, end):
    """Start of the expression before the '->' or '.' at end: dev,
    a->b[i].c, f(x)."""
    i = end
    while True:
        while i > 0 and t[i - 1].isspace():
            i -= 1
        while i > 0 and t[i - 1] in ")]":
            close, opening = t[i - 1], "(" if t[i - 1] == ")" else "["
            d, j = 0, i - 1
            while j > 0:
                d += {close: 1, opening: -1}.get(t[j], 0)
                if d == 0:
                    break
                j -= 1
            i = j
            while i > 0 and t[i - 1].isspace():
                i -= 1
        m = re.search(r"\w+$", t[max(0, i - 80):i])
        if m:
            i -= len(m.group(0))
        k = i
        while k > 0 and t[k - 1].isspace():
            k -= 1
        if t[k - 2:k] == "->":
            i = k - 2
        elif t[k - 1:k] == ".":
            i = k - 1
        else:
            return i


def bracket_end(t, i):
    """Index after the bracket closing the one at t[i]."""
    d = 0
    for j in range(i, len(t)):
        d += {"(": 1, "[": 1, ")": -1, "]": -1}.get(t[j], 0)
        if d == 0:
            return j + 1
    return len(t)


def is_whole_arg(t, paren, expr):
    """expr, with only &, * and parentheses around it, is an argument of
    the call whose '(' is at paren."""
    want = norm(expr)
    for a in call_args(t, paren):
        a = norm(a)
        while a[:1] in ("&", "*") or (a[:1] == "(" and a.endswith(")")):
            a = a[1:] if a[:1] in "&*" else a[1:-1]
        if a == want:
            return True
    return False


class Setup:
    """An hrtimer_setup()/hrtimer_init() call: the timer, its callback (for
    hrtimer_init(): the .function assignment after it) and its mode."""
    def __init__(self, path, pos, api, expr, cb, cbpos, mode, assign):
        self.path, self.pos, self.api, self.expr = path, pos, api, expr
        self.cb, self.cbpos, self.mode, self.assign = cb, cbpos, mode, assign


class HrtPlan:
    """Which soft hrtimers of the files to convert, and where.

    A timer is (struct, member), or ("", name) for a variable. ids: the
    timers converted; cbs: callback -> its parameter; at: {(path, line,
    column)} of the word hrtimer of each declaration and callback parameter
    to retype; exprs: {(path, timer argument)} of the calls to rewrite (the
    converter goes by the text of a call's timer, in its file; and by the
    parameter, in a callback); left: [(path, line, reason)] of each soft
    setup left alone; why: timer or callback -> why it is left alone (None:
    a hard timer, never listed)."""

    def __init__(self, texts, raw, exclude=(), types=("hrtimer",)):
        self.texts, self.raw = texts, raw
        self.decls = hrt_decls(texts, types)
        self.members = struct_defs()[0]
        self.hrt_members = {}
        for n, ds in self.decls.items():
            for d in ds:
                if d[3] == "member" and d[4]:
                    self.hrt_members.setdefault(d[4], set()).add(n)
        self.ids, self.cbs, self.at, self.exprs, self.left, self.why = set(), {}, set(), set(), [], {}
        self.setups = self.find_setups()
        if exclude is not None:
            self.plan(set(exclude))

    def where(self, p, pos):
        line = line_of(self.texts[p], pos)
        return "%s:%d (%s)" % (p, line, self.raw[p].split("\n")[line - 1].strip())

    def ours(self, p, pos, expr):
        """The driver's timers expr (&dev->t, &t) may name: one, or the
        candidates when the types do not tell; empty if none."""
        ps = parts(expr)
        if not ps or ps[-1] not in self.decls:
            return set()
        n, decls = ps[-1], self.decls[ps[-1]]
        if len(ps) == 1:
            var = norm(expr).lstrip("(").startswith("&")
            return {("", n)} if var and any(d[3] != "member" for d in decls) else set()
        if typed_owner(p, pos, expr, self.members, self.hrt_members) is False:
            return set()        # through a struct not defined here, or not an hrtimer
        s = container_type(p, pos, expr, self.members)
        return set((d[4] or "", n) for d in decls if d[3] == "member" and (not s or d[4] == s))

    def find_setups(self):
        out = []
        for p, t in self.texts.items():
            for m in HRT_SETUP.finditer(t):
                args = call_args(t, m.end() - 1)
                if len(args) < 3:
                    continue
                idx = HRT_SETUPS[m.group("fn")]
                cb, cbpos, assign = None, None, None
                if idx is not None:
                    a = args[idx].lstrip("&").strip()
                    cm = re.compile(r"\b%s\b" % re.escape(a)).search(t, m.end()) \
                        if re.fullmatch(r"\w+", a) else None
                    cb, cbpos = (a, cm.start()) if cm else (None, None)
                else:
                    start, end = outer_block(t, m.start())
                    for f in FUNCTION_SET.finditer(t, m.end(), end):
                        if parts(f.group("t")) == parts(args[0]):
                            cb, cbpos, assign = f.group("fn"), f.start("fn"), (f.start(), f.end())
                            break
                out.append(Setup(p, m.start(), m.group("fn"), args[0], cb, cbpos, args[-1], assign))
        return out

    def uses(self, names):
        """Each use of a declared hrtimer name: (timers it may be, path,
        position, kind, (path, timer argument) of a call); kind: call (the
        timer of a twin or a setup), function (a .function assignment),
        other; and the calls on other timers of these names: (set(), ...)."""
        out = []
        for n in names:
            ds = self.decls.get(n, [])
            scopes = set(d[3] for d in ds)
            for p, t in self.texts.items():
                spans = [(d[1], d[2]) for d in ds if d[0] == p]
                for m in re.finditer(r"\b%s\b" % re.escape(n), t):
                    if not any(a <= m.start() < b for a, b in spans):
                        u = self.use(p, t, m.start(), m.end(), scopes)
                        if u:
                            out.append(u)
        return out

    def use(self, p, t, pos, end, scopes):
        k = pos
        while k > 0 and t[k - 1].isspace():
            k -= 1
        member = t[k - 2:k] == "->" or t[k - 1:k] == "."
        if member:
            op = k - 2 if t[k - 1] == ">" else k - 1
            start = chain_start(t, op)
            if "member" not in scopes or not t[start:op].strip():
                return None             # .n = ... of an initializer
        else:
            start = pos
            # a variable is used by its address or a member: a bare name is
            # another's (a callback's struct hrtimer *t, say)
            if not scopes - {"member"} or \
                    not (t[max(0, k - 1):k] == "&" or re.match(r"\s*\.", t[end:])):
                return None
        c = call_at(t, start)
        if c and HRT_FIELD.get(c[0]) == c[1]:
            return None                 # a field name: container_of(t, struct x, a.n)
        while re.match(r"\s*\[", t[end:]):
            end = bracket_end(t, t.index("[", end))
        expr = t[start:end] if member else "&" + t[start:end]
        arg = None
        if c and (c[0] in HRT_TWINS or c[0] in HRT_SETUPS) and c[1] == 0 and \
                is_whole_arg(t, c[2], t[start:end]):
            arg = (p, norm(call_args(t, c[2])[0]))
        ids = self.ours(p, pos, expr)
        if not ids:
            return (set(), p, pos, "call", arg) if arg else None
        if re.match(r"\s*(?:\.|->)\s*function\s*=", t[end:]):
            return ids, p, pos, "function", None
        if c and (re.fullmatch(CALLS, c[0]) or c[0].startswith("si_")):
            return None                 # a timer_list's, or converted
        return ids, p, pos, "call" if arg else "other", arg

    def plan(self, exclude):
        why = self.why
        by_id, cb_ids, foreign_cb = {}, {}, set()
        for s in self.setups:
            ids = self.ours(s.path, s.pos, s.expr)
            if not ids:
                if s.cb:
                    foreign_cb.add(s.cb)
                if hrt_mode(s.mode) != "hard":
                    self.left.append((s.path, line_of(self.texts[s.path], s.pos),
                                      self.foreign_why(s)))
                continue
            for x in ids:
                by_id.setdefault(x, []).append(s)
                if s.cb:
                    cb_ids.setdefault(s.cb, set()).add(x)
            if len(ids) > 1:
                for x in ids:
                    why.setdefault(x, "its setup at %s does not tell which struct's %s it is"
                                   % (self.where(s.path, s.pos), x[1]))
        for x, ss in by_id.items():
            r = self.setup_why(x, ss)
            if r is not False:
                why.setdefault(x, r)
        uses = self.uses(set(x[1] for x in by_id))
        args = {}           # (path, timer argument) -> the timers it may be (None: not ours)
        for ids, p, pos, kind, arg in uses:
            if arg:
                args.setdefault(arg, set()).update(ids or {None})
            for x in ids:
                if x in why:
                    continue
                if kind == "other" or len(ids) > 1:
                    why[x] = ("used at %s, %s" % (self.where(p, pos), "not as the timer of a call that "
                              "has an si_hrtimer twin" if kind == "other" else
                              "where the converter cannot tell which struct's it is"))
                elif kind == "function" and not any(s.assign and s.path == p and
                                                    s.assign[0] <= pos < s.assign[1] for s in by_id[x]):
                    why[x] = "its .function is set at %s, not after its hrtimer_init()" % self.where(p, pos)
        cb_defs = {}
        for cb in cb_ids:
            r = self.callback(cb, foreign_cb)
            if isinstance(r, str):
                why[cb] = r
            else:
                cb_defs[cb] = r
        for x in list(by_id) + list(cb_ids):
            if (x in exclude or (isinstance(x, tuple) and "%s.%s" % x in exclude)) and not why.get(x):
                why[x] = ("the converter could not rewrite every use of %s (in a macro, or in code "
                          "Coccinelle could not parse): convert it by hand"
                          % (x if isinstance(x, str) else x[1]))
        self.spread(by_id, cb_ids, args)
        self.ids = set(x for x in by_id if x not in why)
        self.cbs = dict((cb, cb_defs[cb][0]) for cb in cb_ids if cb not in why)
        self.exprs = set(a for a, ids in args.items() if ids <= self.ids)
        self.targets(by_id, cb_defs)

    def setup_why(self, x, ss):
        """Why x's setups rule it out (None: hard), or False."""
        kinds = set(hrt_mode(s.mode) for s in ss)
        if kinds == {"hard"}:
            return None
        if "unclear" in kinds:
            mode = next(s.mode for s in ss if hrt_mode(s.mode) == "unclear")
            return ("its mode %s is not a literal HRTIMER_MODE_*_SOFT: if it is a SOFT one, "
                    "write it literally and convert again, or convert by hand" % " ".join(mode.split()))
        if "hard" in kinds:
            return "it is set up both SOFT and not"
        if any(not s.cb or not re.fullmatch(r"\w+", s.cb) for s in ss):
            return ("its callback is not a function named in its setup (for hrtimer_init(): in "
                    "a .function assignment after it, in the same function)")
        return False

    def spread(self, by_id, cb_ids, args):
        """A refusal spreads through shared callbacks, through shared
        declarations (struct hrtimer a, b; has one type to change) and
        through a call's text that may name another timer in its file."""
        why, changed = self.why, True
        while changed:
            changed = False
            for cb, ids in sorted(cb_ids.items()):
                bad = sorted(x for x in ids if x in why)
                if cb not in why and bad:
                    why[cb] = ("it is also the callback of %s, a hard hrtimer" % bad[0][1]
                               if why[bad[0]] is None else
                               "it is also the callback of %s, left alone" % bad[0][1])
                    changed = True
                for x in sorted(ids):
                    if cb in why and x not in why:
                        why[x] = "its callback %s() cannot be converted: %s" % (cb, why[cb])
                        changed = True
            for x in sorted(by_id):
                if x in why:
                    continue
                sib = set(y for d in self.decls[x[1]] if (d[4] or "") == x[0] for y in d[5])
                other = sorted(y for y in sib if y != x[1] and ((x[0], y) in why or (x[0], y) not in by_id))
                if other:
                    why[x] = ("it is declared in one declaration with %s, which stays a struct "
                              "hrtimer: split the declaration, then convert again" % other[0])
                    changed = True
            for (p, a), ids in sorted(args.items(), key=str):
                if len(ids) > 1 and any(x not in why for x in ids if x):
                    for x in ids:
                        if x and x not in why:
                            why[x] = ("%s in %s may name another timer there: the converter "
                                      "goes by the text" % (a, p))
                            changed = True

    def targets(self, by_id, cb_defs):
        """The positions of the declarations and parameters to retype, and
        the list of the soft timers left."""
        for x in sorted(by_id):
            for s in by_id[x]:
                if x not in self.ids and self.why.get(x):
                    # a mode the plan cannot read may be a hard one
                    what = "hrtimer" if self.why[x].startswith("its mode") else "soft hrtimer"
                    self.left.append((s.path, line_of(self.texts[s.path], s.pos),
                                      "%s left alone: %s" % (what, self.why[x])))
        for x in self.ids:
            for d in self.decls[x[1]]:
                if (d[4] or "") == x[0] or (not x[0] and d[3] != "member"):
                    self.add_at(d[0], d[1])
        for cb in self.cbs:
            for p, pos in cb_defs[cb][1]:
                self.add_at(p, pos)
        self.left = sorted(set(self.left))

    def add_at(self, p, pos):
        line, col = line_col(self.texts[p], pos)
        self.at.add((p, line, col))

    def foreign_why(self, s):
        ps = parts(s.expr)
        if len(ps) <= 1 or not norm(s.expr).startswith("&"):
            return ("soft hrtimer reached through a pointer (%s), left alone: the converter "
                    "follows a timer from its declaration; convert by hand" % " ".join(s.expr.split()))
        stype = container_type(s.path, s.pos, s.expr, self.members)
        return ("kernel-owned soft hrtimer, left alone: %s is a member of %s not defined in the "
                "files converted; the kernel's code uses it as an hrtimer. If the driver defines "
                "it in another file, convert that file too (DIR=)"
                % (ps[-1], "struct " + stype if stype else "a struct"))

    def callback(self, cb, foreign_cb):
        """(its parameter, [(path, pos)] of the word hrtimer of that
        parameter in its definition and prototypes), or why it cannot be
        converted."""
        if cb in foreign_cb:
            return "it is also the callback of an hrtimer that is not the driver's own"
        defs, protos = self.cb_decls(cb)
        if len(defs) != 1:
            return ("%s() has %s definition with one struct hrtimer * parameter in the files "
                    "converted" % (cb, "no" if not defs else "more than one"))
        allowed = set((p, m.start()) for p, m in defs + protos)
        allowed.update((s.path, s.cbpos) for s in self.setups if s.cb == cb)
        for p, t in self.texts.items():
            for m in re.finditer(r"\b%s\b" % re.escape(cb), t):
                if (p, m.start()) not in allowed:
                    return "%s() is also named at %s" % (cb, self.where(p, m.start()))
        p, d = defs[0]
        t, param = self.texts[p], d.group(2)
        body = (d.end() - 1, block_end(t, d.end() - 1))
        for m in re.finditer(r"(?<![\w.>])%s\b" % re.escape(param), t[body[0]:body[1]]):
            pos = body[0] + m.start()
            c = call_at(t, pos)
            if c and c[0] in HRT_TWINS and c[1] == 0 and is_whole_arg(t, c[2], param):
                continue
            if not c or (not (c[0] in HRT_CONTAINER and c[1] in (HRT_CONTAINER[c[0]], 2)) and
                         not HRT_PRINT.fullmatch(c[0])):
                return ("the parameter of %s() is used at %s, not as the timer of a call that has "
                        "an si_hrtimer twin nor in its container_of()" % (cb, self.where(p, pos)))
        return param, [(pp, m.start(1)) for pp, m in defs + protos]

    def cb_decls(self, cb, types="hrtimer"):
        """The definitions and prototypes of cb with one struct hrtimer *
        parameter: [(path, match)] each."""
        defs, protos = [], []
        rx = re.compile(r"\b%s\s*\(\s*(?:const\s+)?struct\s+(%s)\s*\*\s*(\w*)\s*\)\s*([{;])"
                        % (re.escape(cb), types))
        for p, t in self.texts.items():
            for m in rx.finditer(t):
                if m.group(3) == ";":
                    protos.append((p, m))
                elif brace_depth(t, m.start()) == 0:
                    defs.append((p, m))
        return defs, protos


def hrt_failures(texts, raw, ids, cbs):
    """After conversion: the timers ("struct.member", ".variable") and
    callbacks the plan converted that still have an hrtimer declaration,
    call or parameter (Coccinelle could not rewrite them there): their
    groups must be left alone."""
    plan = HrtPlan(texts, raw, None, ("hrtimer", "si_hrtimer"))
    want = set(tuple(x.split(".", 1)) for x in ids)
    bad = set()
    for n in set(x[1] for x in want):
        for d in plan.decls.get(n, []):
            x = ((d[4] or "") if d[3] == "member" else "", n)
            if x in want and texts[d[0]].startswith("hrtimer", d[1]):
                bad.add(x)
    for found, p, pos, kind, arg in plan.uses(set(x[1] for x in want)):
        bad.update(x for x in found & want if kind in ("call", "function"))
    out = set("%s.%s" % x for x in bad)
    for cb, param in cbs.items():
        defs, protos = plan.cb_decls(cb)
        sdefs, _ = plan.cb_decls(cb, "si_hrtimer")
        if defs or protos:
            out.add(cb)
        for p, d in sdefs:
            t = texts[p]
            body = t[d.end() - 1:block_end(t, d.end() - 1)]
            if re.search(r"(?<!si_)\b(?:%s)\s*\(\s*%s\b" % ("|".join(HRT_TWINS), re.escape(param)), body):
                out.add(cb)
    return out


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("env", "foreign", "hrcheck"):
        sys.exit(__doc__)
    files = sys.argv[2:]
    global FACTS, STRUCTS
    FACTS = c_facts.parse(files)
    texts, own, dwork, hrt = scan(files)
    TEXTS.update(texts)
    TYPED.update(typed_scan(texts))
    STRUCTS = struct_defs()
    kept_group(texts, own, dwork)
    texts_raw = {}
    for f in files:
        with open(f, errors="replace") as fh:
            texts_raw[f] = fh.read()
    if sys.argv[1] == "hrcheck":
        cbs = dict(e.split("=", 1) for e in os.environ.get("SI_HRT_CBS", "").split(",") if "=" in e)
        print(" ".join(sorted(hrt_failures(texts, texts_raw, names_env("SI_HRT_IDS"), cbs))))
        return 0
    hplan = HrtPlan(texts, texts_raw, names_env("SI_HRT_EXCLUDE"))
    # Every hrtimer's name, whatever declares it: its .function is no timer_list's.
    hrt.update(hrt_decls(texts, ("hrtimer", "si_hrtimer")))
    for t in texts.values():
        for m in re.finditer(r"\b(?:si_)?hrtimer_(?:setup|init)\w*\s*\(", t):
            hrt.update(parts(first_arg(t, m.end() - 1))[-1:])
    if sys.argv[1] == "env":
        print("SI_OWN_MEMBERS=%s" % shlex.quote(",".join(sorted(own - set(KEPT)))))
        print("SI_KEPT=%s" % shlex.quote(",".join(sorted(KEPT))))
        print("SI_KEEP_AT=%s" % shlex.quote("\n".join("%s\t%d\t%d" % a for a in sorted(KEEP_AT))))
        print("SI_KEEP_PARAMS=%s" % shlex.quote(",".join(
            "%s=%s" % (f, n) for f, ns in sorted(KEPT_FUNCS.items()) for n in sorted(ns))))
        print("SI_DWORK=%s" % shlex.quote(",".join(sorted(dwork))))
        print("SI_TYPED_OWN=%s" % shlex.quote(" ".join(sorted(k for k, v in TYPED.items() if v))))
        print("SI_TYPED_FOREIGN=%s" % shlex.quote(" ".join(sorted(k for k, v in TYPED.items() if not v))))
        print("SI_FOREIGN_CB=%s" % shlex.quote(",".join(sorted(foreign_callbacks(texts, own, dwork,
                                                                                  hrt)))))
        print("SI_HRT_IDS=%s" % shlex.quote(",".join(sorted("%s.%s" % x for x in hplan.ids))))
        print("SI_HRT_CBS=%s" % shlex.quote(",".join("%s=%s" % c for c in sorted(hplan.cbs.items()))))
        print("SI_HRT_AT=%s" % shlex.quote("\n".join("%s\t%d\t%d" % a for a in sorted(hplan.at))))
        print("SI_HRT_EXPRS=%s" % shlex.quote("\n".join("%s\t%s" % a for a in sorted(hplan.exprs))))
        return 0
    kdir = os.environ.get("KDIR") or "/lib/modules/%s/build" % os.uname().release
    if not os.path.isdir(kdir):
        # No headers of the running kernel: the newest installed.
        found = sorted(glob.glob("/usr/src/linux-headers-*"))
        kdir = found[-1] if found else kdir
    where = {}
    for p, line, fn, expr, member, m in foreign_uses(texts, own, dwork, hrt):
        p2 = parts(expr)
        stype = container_type(p, m.start(), expr, STRUCTS[0])
        if len(p2) >= 2 and (p2[-2] in dwork or p2[-2] in ("dwork", "work")):
            ks = ("struct delayed_work", "include/linux/workqueue.h")
        else:
            key = (member, stype, p)
            if key not in where:
                includes = re.findall(r"^\s*#\s*include\s*<([^>]+)>", texts[p], re.M)
                where[key] = kernel_struct(member, kdir, stype, includes) if os.path.isdir(kdir) else None
            ks = where[key]
        if member in KEPT:
            print("%s:%d: %s(%s): kept a timer_list, left alone: %s"
                  % (p, line, fn, ", ".join(" ".join(a.split()) for a in call_args(texts[p], m.end() - 1))
                     if fn != ".function =" else expr, KEPT[member]))
            continue
        if ks and ks[0] == "struct delayed_work":
            why = ("the timer of a delayed_work (include/linux/workqueue.h), the workqueue's: "
                   "leave it to the workqueue API (cancel_delayed_work_sync() and co)")
        elif ks:
            why = ("%s is a member of struct %s (%s), a kernel header: the kernel's code "
                   "uses it as a timer_list, so si_timer cannot replace it there; leave it a "
                   "timer_list (its callback stays in the TIMER softirq), or give your own "
                   "struct an si_timer and arm that one instead; only if that header is your "
                   "driver's alone, convert it with the driver (pass it to si-migrate.sh too)"
                   % (member, ks[0], ks[1]))
        else:
            why = ("%s is a member of %s not defined in the files converted: if the "
                   "driver defines it in another file, convert that file too (DIR=); if the "
                   "kernel does, leave it a timer_list"
                   % (member, "struct " + stype if stype else "a struct"))
        if fn == ".function =":
            what = texts_raw[p].split("\n")[line - 1].strip()
        else:
            what = "%s(%s)" % (fn, ", ".join(" ".join(a.split()) for a in call_args(texts[p], m.end() - 1)))
        print("%s:%d: %s: kernel-owned timer, left alone: %s" % (p, line, what, why))
    # In the order of the files given (si-migrate.sh --diff gives copies whose
    # names do not sort as the files' do): the same list in every mode.
    order = {f: i for i, f in enumerate(files)}
    for p, ln, col in sorted(KEEP_AT, key=lambda a: (order.get(a[0], len(order)), a)):
        text = texts_raw[p].split("\n")[ln - 1].strip()
        names = [n for n in KEPT if re.search(r"\b%s\b" % re.escape(n), text)]
        fns = [f for f in KEPT_FUNCS if re.search(r"\b%s\s*\(" % re.escape(f), text)]
        why = KEPT[names[0]] if names else KEPT_FUNCS[fns[0]][sorted(KEPT_FUNCS[fns[0]])[0]] \
            if fns else "kept a timer_list"
        print("%s:%d: %s: kept a timer_list: %s" % (p, ln, text, why))
    for p, line, why in sorted(hplan.left, key=lambda a: (order.get(a[0], len(order)), a)):
        print("%s:%d: %s: %s" % (p, line, texts_raw[p].split("\n")[line - 1].strip(), why))
    for p, t in texts.items():
        for m in FUNCTION_SET.finditer(t):
            a = m.group("t")
            if parts(a) and parts(a)[-1] not in hrt and owned(a, own, dwork) and \
                    (norm(a) in TYPED or parts(a)[-1] in own):
                line = t.count("\n", 0, m.start()) + 1
                print("%s:%d: %s: a timer's .function set by hand: the callback must take "
                      "struct si_timer * now" % (p, line, texts_raw[p].split("\n")[line - 1].strip()))
    for p, line, fn, a in passed_on(texts, own, dwork):
        print("%s:%d: %s: %s() gets an si_timer (%s): if it takes a struct timer_list *, "
              "this will not compile; open-code it with the si_timer API"
              % (p, line, texts_raw[p].split("\n")[line - 1].strip(), fn, a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
