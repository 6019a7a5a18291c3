#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Inventory of a driver's timer callbacks before opting them in to
SI_TIMER_SOFTINTERRUPTIBLE (Documentation/migration.md, "2. Audit").

For every callback given to timer_setup()/si_timer_setup() (also _on_stack)
or DEFINE_TIMER()/DEFINE_SI_TIMER(), with the functions it calls in the same
sources, it lists the evidence an auditor needs:
- locks it takes without _bh/_irq (nor inside local_bh_disable() or
  local_irq_save()) that a softirq handler of the driver also takes: a NAPI
  poll (netif_napi_add*), a tasklet (tasklet_setup/tasklet_init/
  DECLARE_TASKLET*). Soft-interruptible, the handler may run on the same CPU
  while the callback holds the lock: needs _bh locking;
- locks it shares with other timer callbacks: listed, but no hazard, since
  the timer vectors stay masked while a soft-interruptible callback runs;
- per-CPU data (this_cpu_*, __this_cpu_*, per_cpu*, get_cpu_var) that a
  softirq handler also touches: keep compatible (or wrap the accesses in
  local_bh_disable());
- context assumptions (in_softirq(), in_serving_softirq(), in_interrupt(),
  softirq_count(), lockdep_assert_in_softirq()): keep compatible;
- softirqs raised without a BH-disabled section (napi_schedule(),
  __raise_softirq_irqoff()...): from a thread with bottom halves enabled
  they are not run until something else runs softirqs: needs _bh.
Verdict: keep_compatible > needs_bh > safe, the worst evidence wins.

It reads C text with regular expressions, not a compiler: locks are matched
by the last member name of their expression (&dev->lock and &priv->lock
are both "lock"), softirq handlers are those registered in the callback's
directory (--tree-wide: anywhere), calls are followed through the given
sources but not through function pointers, and "safe" means no evidence was
found, not a proof. Read the evidence.

usage: si-timer-audit.py [--format=text|tsv] [--tree-wide] FILE|DIR...
"""
import argparse
import os
import re
import sys

LOCK_CALL = re.compile(
    r"\b(?P<fn>(?:raw_)?spin_(?:lock|trylock)(?:_bh|_irq|_irqsave|_nested)?"
    r"|(?:read|write)_(?:lock|trylock)(?:_bh|_irq|_irqsave)?)\s*\(")
GUARD = re.compile(r"\b(?:scoped_)?guard\s*\(\s*(?P<cls>\w+)\s*\)?\s*[(,]")
PERCPU = re.compile(
    r"\b(?:__)?(?:this_cpu|raw_cpu)_\w+\s*\(\s*&?(?P<v>\w+)"
    r"|\b(?:per_cpu_ptr|per_cpu|get_cpu_var|get_cpu_ptr|this_cpu_ptr)\s*\(\s*&?(?P<w>\w+)")
CONTEXT = re.compile(
    r"\b(in_softirq|in_serving_softirq|in_interrupt|softirq_count|lockdep_assert_in_softirq)\s*\(")
RAISE = re.compile(r"\b(napi_schedule\w*|__napi_schedule\w*|(?:__)?raise_softirq_irqoff)\s*\(")
BH_OFF = re.compile(r"\b(local_bh_disable|local_irq_disable|local_irq_save|spin_lock_bh|"
                    r"spin_lock_irq(?:save)?|rcu_read_lock_bh)\s*\(")
BH_ON = re.compile(r"\b(local_bh_enable|local_irq_enable|local_irq_restore|spin_unlock_bh|"
                   r"spin_unlock_irq(?:restore)?|rcu_read_unlock_bh)\s*\(")
TIMER_SETUP = re.compile(
    r"\b(?P<api>(?:si_)?timer_setup(?:_on_stack)?)\s*\((?P<args>[^;]*?)\)\s*;", re.S)
DEFINE_TIMER = re.compile(r"\b(?P<api>DEFINE_(?:SI_)?TIMER)\s*\(\s*\w+\s*,\s*(?P<fn>\w+)")
NAPI_ADD = re.compile(r"\bnetif_napi_add\w*\s*\((?P<args>[^;]*?)\)\s*;", re.S)
TASKLET = re.compile(r"\b(?:tasklet_setup|tasklet_init)\s*\(\s*[^,]+,\s*(?P<fn>\w+)"
                     r"|\bDECLARE_TASKLET\w*\s*\(\s*\w+\s*,\s*(?P<fn2>\w+)")
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else"}
RANK = {"safe": 0, "needs_bh": 1, "keep_compatible": 2}


def strip_comments(text):
    """Comments and string literals become blanks; newlines stay."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  blank, text, flags=re.S)


def split_args(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def call_args(text, pos):
    """Arguments of the call whose '(' is at or after pos."""
    start = text.index("(", pos) + 1
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    return split_args(text[start:i - 1])


def lock_key(expr):
    expr = expr.strip().lstrip("&(").rstrip(")")
    return re.split(r"->|\.", expr)[-1].strip()


class Func:
    """line: where its name is; body_line: where its body (the '{') starts."""
    def __init__(self, path, name, line, body, offset, body_line):
        self.path, self.name, self.line, self.body, self.offset = path, name, line, body, offset
        self.body_line = body_line


def functions(path, text):
    """Top-level function definitions: name, first line, body text."""
    out, depth, last, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "{":
            if depth == 0:
                head = text[last:i]
                m = re.search(r"\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*$", head, re.S)
                if m and m.group(1) not in KEYWORDS and "=" not in head.split("(")[0]:
                    j, d = i + 1, 1
                    while j < len(text) and d:
                        d += {"{": 1, "}": -1}.get(text[j], 0)
                        j += 1
                    line = text.count("\n", 0, last + m.start(1)) + 1
                    out.append(Func(path, m.group(1), line, text[i:j], i,
                                    text.count("\n", 0, i) + 1))
                    i, last = j, j
                    continue
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                last = i + 1
        elif ch == ";" and depth == 0:
            last = i + 1
        i += 1
    return out


def bh_disabled_at(body, pos):
    on = len(BH_OFF.findall(body[:pos]))
    off = len(BH_ON.findall(body[:pos]))
    return on > off


class Tree:
    def __init__(self, paths):
        self.files = {}
        for p in paths:
            if os.path.isdir(p):
                for d, _, names in os.walk(p):
                    for n in sorted(names):
                        if n.endswith((".c", ".h")):
                            f = os.path.join(d, n)
                            self.files[f] = os.path.relpath(f, p)
            else:
                self.files[p] = os.path.basename(p)
        self.text = {f: strip_comments(open(f, errors="replace").read()) for f in self.files}
        self.defs = {}      # name -> [Func], static functions may repeat across files
        for f, t in self.text.items():
            for fn in functions(f, t):
                self.defs.setdefault(fn.name, []).append(fn)

    def func(self, name, path=None):
        """The definition of name, preferring the one in file path."""
        defs = self.defs.get(name, [])
        return next((d for d in defs if d.path == path), defs[0] if defs else None)

    def line(self, fn, pos):
        return fn.body_line + fn.body.count("\n", 0, pos)

    def where(self, fn, pos):
        return "%s:%d" % (self.files[fn.path], self.line(fn, pos))

    def reach(self, name, path):
        """The function (defined in path, or elsewhere in the tree) and every
        function of the tree it calls, directly or not."""
        seen, todo = [], [(name, path)]
        while todo:
            n, p = todo.pop()
            fn = self.func(n, p)
            if fn is None or fn in seen:
                continue
            seen.append(fn)
            todo += [(c, fn.path) for c in CALL.findall(fn.body) if c in self.defs]
        return seen

    def registrations(self):
        """Timer callbacks and softirq handlers, keyed by (name, file of
        the registration)."""
        timers, softirq = {}, {}
        for f, t in self.text.items():
            for m in TIMER_SETUP.finditer(t):
                args = split_args(m.group("args"))
                if len(args) >= 2 and re.fullmatch(r"\w+", args[1]):
                    flags = args[2] if len(args) > 2 else ""
                    timers.setdefault((args[1], f), (m.group("api"), flags))
            for m in DEFINE_TIMER.finditer(t):
                timers.setdefault((m.group("fn"), f), (m.group("api"), ""))
            for m in NAPI_ADD.finditer(t):
                args = split_args(m.group("args"))
                if len(args) >= 3 and re.fullmatch(r"\w+", args[2]):
                    softirq[(args[2], f)] = "NAPI poll"
            for m in TASKLET.finditer(t):
                softirq[(m.group("fn") or m.group("fn2"), f)] = "tasklet"
        return timers, softirq

    def locks(self, name, path):
        """(key, expr, function, call, plain?, where) of each lock taken."""
        out = []
        for fn in self.reach(name, path):
            n = fn.name
            for m in LOCK_CALL.finditer(fn.body):
                args = call_args(fn.body, m.end() - 1)
                call = m.group("fn")
                plain = not re.search(r"_bh|_irq", call) and not bh_disabled_at(fn.body, m.start())
                out.append((lock_key(args[0]), args[0], n, call, plain, self.where(fn, m.start())))
            for m in GUARD.finditer(fn.body):
                cls = m.group("cls")
                if "spinlock" not in cls and "rwlock" not in cls and "read_lock" not in cls \
                        and "write_lock" not in cls:
                    continue
                args = call_args(fn.body, m.end() - 1)
                plain = not re.search(r"_bh|_irq", cls) and not bh_disabled_at(fn.body, m.start())
                out.append((lock_key(args[-1]), args[-1], n, "guard(%s)" % cls, plain,
                            self.where(fn, m.start())))
        return out

    def matches(self, name, path, rx, group=None):
        out = []
        for fn in self.reach(name, path):
            n = fn.name
            for m in rx.finditer(fn.body):
                val = m.group(group) if group else m.group(1)
                if group == "v":
                    val = m.group("v") or m.group("w")
                out.append((val, n, self.where(fn, m.start()), m.group(0).rstrip("( ")))
        return out


def audit(tree, tree_wide=False):
    timers, softirq = tree.registrations()
    report, done = [], set()
    for (cb, path), (api, flags) in sorted(timers.items()):
        fcb = tree.func(cb, path)
        if fcb is None or fcb in done:
            continue
        done.add(fcb)
        ev, verdict = [], "safe"

        def worse(v):
            return v if RANK[v] > RANK[verdict] else verdict

        # Handlers of the same directory (the driver), or of the whole tree.
        def near(regs):
            return sorted((k, v) for k, v in regs.items()
                          if tree_wide or os.path.dirname(k[1]) == os.path.dirname(path))
        for key, expr, fn, call, plain, where in tree.locks(cb, path):
            if not plain:
                continue
            for (other, opath), kind in near(softirq):
                hits = [l for l in tree.locks(other, opath) if l[0] == key]
                if hits:
                    ev.append(("needs_bh", "%s() takes %s at %s%s; %s %s() takes it too (%s() at %s)"
                               % (call, expr, where, "" if fn == cb else " (in %s())" % fn,
                                  kind, other, hits[0][3], hits[0][5])))
                    verdict = worse("needs_bh")
            for (other, opath), _ in near(timers):
                ofn = tree.func(other, opath)
                if ofn is None or ofn is fcb:
                    continue
                hits = [l for l in tree.locks(other, opath) if l[0] == key]
                if hits:
                    ev.append(("info", "%s() takes %s at %s; timer callback %s() takes it too: "
                               "no _bh needed for that pair, the timer vectors stay masked"
                               % (call, expr, where, other)))
        for var, fn, where, text in tree.matches(cb, path, PERCPU, "v"):
            for (other, opath), kind in near(softirq):
                hits = [h for h in tree.matches(other, opath, PERCPU, "v") if h[0] == var]
                if hits:
                    ev.append(("keep_compatible", "%s(%s) at %s; %s %s() touches it too (%s)"
                               % (text.split("(")[0], var, where, kind, other, hits[0][2])))
                    verdict = worse("keep_compatible")
        for what, fn, where, text in tree.matches(cb, path, CONTEXT):
            ev.append(("keep_compatible", "%s() at %s: assumes softirq context" % (what, where)))
            verdict = worse("keep_compatible")
        for f in tree.reach(cb, path):
            for m in RAISE.finditer(f.body):
                if not bh_disabled_at(f.body, m.start()):
                    ev.append(("needs_bh", "%s() at %s%s raises a softirq with bottom halves "
                               "enabled: wrap it in local_bh_disable()/local_bh_enable()"
                               % (m.group(1), tree.where(f, m.start()),
                                  "" if f is fcb else " (in %s())" % f.name)))
                    verdict = worse("needs_bh")
        where = "%s:%d" % (tree.files[fcb.path], fcb.line)
        opted = "SI_TIMER_SOFTINTERRUPTIBLE" in flags
        report.append((where.split(":")[0], cb, verdict, where, api, opted, ev))
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", choices=("text", "tsv"), default="text")
    ap.add_argument("--tree-wide", action="store_true",
                    help="match softirq handlers of every directory, not only the callback's")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    for p in args.paths:
        if not os.path.exists(p):
            sys.exit("si-timer-audit: %s: no such file or directory" % p)
    rep = audit(Tree(args.paths), args.tree_wide)
    if args.format == "tsv":
        for path, cb, verdict, where, api, opted, ev in rep:
            print("%s\t%s\t%s\t%d" % (path, cb, verdict, sum(e[0] != "info" for e in ev)))
        return 0
    for path, cb, verdict, where, api, opted, ev in rep:
        print("%s() at %s [%s%s]: %s" % (cb, where, api,
                                       ", opted in" if opted else "", verdict))
        for kind, text in ev:
            print("    %-15s %s" % (kind, text))
        if not ev:
            print("    (no evidence found)")
    n = {v: sum(r[2] == v for r in rep) for v in RANK}
    print("%d callbacks: %d safe, %d needs_bh, %d keep_compatible"
          % (len(rep), n["safe"], n["needs_bh"], n["keep_compatible"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
