#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Helper of scripts/si-migrate.sh: which timers of the files to convert
are the driver's own, and which are owned by the kernel.

A timer is the driver's own when it is a struct timer_list member of a
struct defined in the files converted (or a variable declared there); one
reached through a member of a struct defined elsewhere (struct usb_hcd's
rh_timer, struct sock's sk_timer) or inside a struct delayed_work is
kernel-owned: the converter leaves it, its timer calls and the callbacks
set up on it alone.

  si-migrate-scan.py env FILE...     shell assignments for si-migrate.sh:
                                     SI_OWN_MEMBERS, SI_DWORK, SI_FOREIGN_CB
  si-migrate-scan.py foreign FILE... one line per use of a kernel-owned
                                     timer: FILE:LINE: text, then what to do

KDIR (default: /lib/modules/$(uname -r)/build, else the newest
/usr/src/linux-headers-*) names the kernel headers in which a foreign
member's struct is looked up.
"""
import glob
import os
import re
import shlex
import sys

from c_text import block_end, call_args, strip_comments

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


def struct_defs(texts):
    """Structs the files define: name -> {member: struct type or None}, and
    name -> set of its timer members."""
    members, timers = {}, {}
    for t in texts.values():
        for m in re.finditer(r"\bstruct\s+(\w+)\s*\{", t):
            body = t[m.end():block_end(t, m.end() - 1)]
            mem, tim = members.setdefault(m.group(1), {}), timers.setdefault(m.group(1), set())
            for d in re.finditer(r"(?:^|(?<=[;{}]))\s*(?:const\s+)?(struct\s+(\w+)|\w+)\s+([^;(){}]+);",
                                 body):
                for n in d.group(3).split(","):
                    nm = re.match(r"\s*(\**)\s*(\w+)", n)
                    if not nm:
                        continue
                    mem[nm.group(2)] = d.group(2)
                    if d.group(2) in ("timer_list", "si_timer") and not nm.group(1):
                        tim.add(nm.group(2))
    return members, timers


RETTYPE = {}    # function of the files -> the struct its pointer result points to


def var_type(text, pos, var):
    """The struct type var is declared with, last before pos (else anywhere
    at file scope); for a call (ehci_to_hcd(ehci), as parts() leaves it),
    the struct its function returns a pointer to."""
    call = re.match(r"(\w+)\(", var)
    if call:
        return RETTYPE.get(call.group(1))
    rx = re.compile(r"\bstruct\s+(\w+)(?:\s+|\s*\*+\s*)(?:const\s+)?%s\s*[;,)=\[]" % re.escape(var))
    decls = list(rx.finditer(text[:pos])) or list(rx.finditer(text))
    return decls[-1].group(1) if decls else None


def container_type(text, pos, expr, members):
    """The struct type holding the expression's last member, as far as the
    base's declaration and the files' structs tell."""
    p = parts(expr)
    if len(p) < 2:
        return None
    t = var_type(text, pos, p[0])
    for m in p[1:-1]:
        if t is None or t not in members:
            return None
        t = members[t].get(m)
    return t


def typed_owner(text, pos, expr, members, timers):
    """True/False when the types of the expression's chain say whether the
    timer is a member of a struct the files define; None when they do not."""
    p = parts(expr)
    if len(p) < 2:
        return None
    t = var_type(text, pos, p[0])
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
    for t in texts.values():
        # Members and variables declared struct timer_list (arrays too).
        # (struct si_timer too: the scan also reads converted files.)
        for m in re.finditer(r"\bstruct\s+(?:timer_list|si_timer)\s+([^;(){}=]+)[;=]", t):
            for d in m.group(1).split(","):
                n = re.match(r"\s*\**\s*(\w+)", d)
                if n:
                    own.add(n.group(1))
        for m in re.finditer(r"\bDEFINE_(?:SI_)?TIMER\s*\(\s*(\w+)", t):
            own.add(m.group(1))
        for m in re.finditer(r"\bstruct\s+(?:delayed_work|rcu_work)\s+\**\s*(\w+)", t):
            dwork.add(m.group(1))
        for m in re.finditer(r"\bstruct\s+hrtimer\s+\**\s*(\w+)", t):
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


def norm(expr):
    return re.sub(r"\s+", "", expr)


STRUCTS = ()    # struct_defs() of the files scanned
TYPED = {}      # normalised expression -> True/False, from the types (typed_scan())


def owned(expr, own, dwork, typed=None):
    """The timer an expression names is the driver's own: as the types of
    its chain say, else by its member name."""
    typed = TYPED if typed is None else typed
    if norm(expr) in typed:
        return typed[norm(expr)]
    p = parts(expr)
    if len(p) <= 1:
        return True             # a variable or a callback's parameter
    if p[-2] in dwork or p[-2] in ("dwork", "work") and p[-1] == "timer":
        return False
    return p[-1] in own


def typed_scan(texts):
    """Each timer expression of a timer call, .function = or sk_*_timer()
    call whose types settle whether it is the driver's own."""
    members, timers = struct_defs(texts)
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
            v = typed_owner(t, pos, e, members, timers)
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
                typed = typed_owner(t, m.start(), a, *STRUCTS) if STRUCTS else None
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


def enclosing_struct(t, pos):
    """The name of the innermost named struct whose body holds pos."""
    depth, i = 0, pos
    while i > 0:
        i -= 1
        if t[i] == "}":
            depth += 1
        elif t[i] == "{":
            if depth == 0:
                before = t[max(0, i - 200):i]
                if re.search(r"\b(?:union|struct)\s*$", before):
                    continue        # anonymous: the member belongs to the outer one
                s = re.search(r"\bstruct\s+(\w+)\s*$", before)
                return s.group(1) if s else None
            depth -= 1
    return None


def kernel_struct(member, kdir, stype, includes):
    """(struct, header) of the kernel header struct holding a timer_list of
    that name: the struct the expression's base is declared as, else one of
    the headers the file includes; None if neither says."""
    rx = re.compile(r"\bstruct\s+timer_list\s+%s\s*;" % re.escape(member))
    roots = header_roots(kdir)
    # The headers the file includes first, in their order.
    cands = []
    for inc in includes:
        for r in roots:
            f = os.path.join(r, inc)
            if os.path.isfile(f):
                cands.append((f, r))
    seen = set()
    for f, r in cands:
        if f in seen:
            continue
        seen.add(f)
        try:
            t = strip_comments(open(f, errors="replace").read())
        except OSError:
            continue
        for m in rx.finditer(t):
            name = enclosing_struct(t, m.start())
            if name and (stype is None or name == stype):
                return name, os.path.relpath(f, r)
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
                        t = open(f, errors="replace").read()
                    except OSError:
                        continue
                    m = drx.search(t)
                    if m and rx.search(t[m.end():block_end(t, m.end() - 1)]):
                        return stype, os.path.relpath(f, r)
    return None


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("env", "foreign"):
        sys.exit(__doc__)
    files = sys.argv[2:]
    texts, own, dwork, hrt = scan(files)
    for t in texts.values():
        for m in re.finditer(r"\bstruct\s+(\w+)\s*\*\s*(\w+)\s*\([^;{]*\)\s*\{", t):
            RETTYPE[m.group(2)] = m.group(1)
    TYPED.update(typed_scan(texts))
    global STRUCTS
    STRUCTS = struct_defs(texts)
    texts_raw = {}
    for f in files:
        with open(f, errors="replace") as fh:
            texts_raw[f] = fh.read()
    if sys.argv[1] == "env":
        print("SI_OWN_MEMBERS=%s" % shlex.quote(",".join(sorted(own))))
        print("SI_DWORK=%s" % shlex.quote(",".join(sorted(dwork))))
        print("SI_TYPED_OWN=%s" % shlex.quote(" ".join(sorted(k for k, v in TYPED.items() if v))))
        print("SI_TYPED_FOREIGN=%s" % shlex.quote(" ".join(sorted(k for k, v in TYPED.items() if not v))))
        print("SI_FOREIGN_CB=%s" % shlex.quote(",".join(sorted(foreign_callbacks(texts, own, dwork,
                                                                                  hrt)))))
        return 0
    kdir = os.environ.get("KDIR") or "/lib/modules/%s/build" % os.uname().release
    if not os.path.isdir(kdir):
        # No headers of the running kernel: the newest installed.
        found = sorted(glob.glob("/usr/src/linux-headers-*"))
        kdir = found[-1] if found else kdir
    where = {}
    for p, line, fn, expr, member, m in foreign_uses(texts, own, dwork, hrt):
        p2 = parts(expr)
        stype = container_type(texts[p], m.start(), expr, STRUCTS[0])
        if len(p2) >= 2 and (p2[-2] in dwork or p2[-2] in ("dwork", "work")):
            ks = ("struct delayed_work", "include/linux/workqueue.h")
        else:
            key = (member, stype, p)
            if key not in where:
                includes = re.findall(r"^\s*#\s*include\s*<([^>]+)>", texts[p], re.M)
                where[key] = kernel_struct(member, kdir, stype, includes) if os.path.isdir(kdir) else None
            ks = where[key]
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
