#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse a test VM's serial console: KTAP documents and kernel splats.

Feed console lines to Console.feed(), then call Console.finish(); both
return Result tuples (status 'ok' | 'fail' | 'skip' | 'info', name, reason).
Rules (Documentation/testing.md, "Tests"):
- "KTAP version 1" opens a document and closes the previous one; a closed
  document whose result count differs from its "1..N" plan is a failure.
  Its name is its "# Subtest: NAME" line. Indented (nested) lines are not counted.
- "ok"/"not ok" lines are results; "# SKIP" makes a skip (never a pass).
- Kernel problems (Oops, BUG:, WARNING:, lockdep, stalls..., and si_timer's
  report of a module unloaded with timers, except an si_unload_* test
  module's) are one failure each, except a WARN splat ("cut here" .. "end trace") containing
  the text of an earlier "# SI_EXPECT_WARN <text>" line: each such line
  allows exactly one splat, and one that never came is a failure. The text
  may be pieces joined by " ... ", which must appear in that order on one
  line of the splat: a report whose variable part (an address) sits between
  its kind and its object, as debugobjects' "ODEBUG: free active ...
  object type: si_timer hint: fn" (an ODEBUG report is a WARN splat). A
  report that is not a splat (lockdep's) is matched by its title line instead.
  An expectation belongs to the test module that announced it: it holds
  only until "# SI_EXPECT_END" (the harness prints it when the module's
  insmod returned), the next document or the end marker, whichever comes
  first; then, if unmet, it fails and no later splat can use it.
- A KASAN or KCSAN report (from its "BUG: KASAN:"/"BUG: KCSAN:" title to
  the "=====" line that closes it) is one result: a KASAN report is a
  failure; a KCSAN report is a failure when one of the racing accesses is
  made by si_timer or a test module (the first frame under an access line
  is "[si_...]"), and otherwise (a race between kernel functions, also one
  our code called into) an "info" result, counted in kcsan_kernel and
  summed up by finish().
- The boot must print END_MARKER.
- A line the console replays after "** replaying previous printk message **"
  counts once, also when its first printing was cut short: each line is
  held back until the next one shows it was not replayed (the replay
  starts with it, timestamp included).
Run as a script to re-parse saved console logs: ktap.py build/logs/*.log
"""
import os
import re
import sys
from collections import namedtuple

END_MARKER = "SI_TIMER_HARNESS_DONE"
Result = namedtuple("Result", "status name reason diag")

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\] ?")
ANSI = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|[c()][0-9A-B]?)")
RESULT = re.compile(r"^(not )?ok (\d+)\s*-?\s*([^#]*?)\s*(?:#\s*(.*))?$")
PLAN = re.compile(r"^1\.\.(\d+)$")
PROBLEMS = re.compile(
    r"Oops|BUG:|kernel BUG at|WARNING:|watchdog: .*lockup|rcu: INFO: .*stall"
    r"|rcu_(preempt|sched) detected stall|hung_task|blocked for more than"
    r"|general protection fault|Kernel panic|possible circular locking"
    r"|inconsistent lock state|possible recursive locking|suspicious RCU usage"
    r"|MAX_LOCK_DEPTH too low|ODEBUG:|sleeping function called from invalid context"
    r"|trying to register non-static key|KASAN|KCSAN|UBSAN"
    # arm64's fault and exception reports (die(): "Internal error: Oops - BTI")
    r"|Internal error:|Unable to handle kernel|SError Interrupt")
BENIGN = re.compile(r"ODEBUG: selftest passed|kcsan: non-strict mode configured")
# Sanitizer reports: the title, the stack lines, the line that closes them.
SANITIZER = re.compile(r"^BUG: (KASAN|KCSAN): (.*)$")
# A KCSAN access line: "read to 0x... of 8 bytes by task 619 on cpu 0:".
KCSAN_ACCESS = re.compile(r"\b(read|write|read-write|race at unknown origin)\b.* (to|with) .*:$")
REPORT_END = "=" * 60
FRAME = re.compile(r"^\s*(\?\s*)?([\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[(\w+)\])?")
# Our code in a report: si_timer.ko and the test modules are all si_*.
OUR_MODULE = re.compile(r"\[si_\w*\]")
# Sanitizer plumbing at the top of a stack, left out of the diagnostics.
PLUMBING = re.compile(r"^(dump_stack|print_report|print_address|kasan_|__kasan|__asan_|save_stack"
                      r"|kcsan_|__tsan_)")
# Lines of a report worth showing besides frames: what was accessed, by
# whom, which stack follows; and where the interesting part ends.
REPORT_HEADER = re.compile(r"^(Read of|Write of|value changed|race at unknown origin"
                           r"|The buggy address belongs to the object|(?!Call Trace:).*:$)")
REPORT_TAIL = re.compile(r"^(Memory state around|The buggy address belongs to the (physical )?page"
                         r"|Reported by )")
# si_timer's report of a module that went with timers pending or running:
# a bug, except from the si_unload_* test modules, which do it on purpose
# (init.sh checks that each of their timers is reported).
UNLOAD_REPORT = re.compile(r"si_timer: module (\S+) unloaded with a timer ")
CUT_HERE = "------------[ cut here ]------------"
END_TRACE = "---[ end trace"
# 6.12's console (nbcon) prints this, then the line it was printing again,
# whole; the first printing may have been cut short ("ok 22 t_misuse_d"),
# or may not have started at all.
REPLAY = "** replaying previous printk message **"
# "# SI_EXPECT_END <module>": the harness's line after a test module's
# insmod returned; the module's expected WARNs must have come by then.
EXPECT_END = "SI_EXPECT_END"
# What an SI_EXPECT_WARN text may skip, on the line it matches.
EXPECT_GAP = " ... "


def timeout_factor(build_dir):
    """How many times an x86 boot's timeout the boot prepared in @build_dir
    (build/NAME) may take: SI_TIMEOUT_FACTOR of its boot.env, which
    scripts/arch.sh sets per architecture (2 for arm64); 1 if absent."""
    try:
        with open(os.path.join(build_dir, "boot.env")) as f:
            for line in f:
                if line.startswith("SI_TIMEOUT_FACTOR="):
                    return int(line.split("=", 1)[1].strip() or 1)
    except (OSError, ValueError):
        pass
    return 1


def expected_in(text, lines):
    """Does one of @lines hold the pieces of @text (split on " ... "), in order?"""
    pieces = text.split(EXPECT_GAP)
    for line in lines:
        at = 0
        for piece in pieces:
            at = line.find(piece, at)
            if at < 0:
                break
            at += len(piece)
        else:
            return True
    return False


# A kernel message the console wrote into the middle of a line user space
# (init.sh) was printing: "SI_BENCH_B9 si n[  267.527785] =====...", the
# rest of the user's line, "0_unload_us 627473", on the next one (kcsan-rt,
# 2026-12-07: a KCSAN report's closing line, which then did not close it).
EMBEDDED_KMSG = re.compile(r"\[\s*\d+\.\d{6}\] ")


class Unsplicer:
    """Console lines as they were printed: a kernel message written into
    a user-space line comes out as a line of its own, and the two pieces of
    the user's line are joined again, unless a kernel line came next (then
    the piece was the whole of it)."""

    def __init__(self):
        self.piece = None

    def feed(self, line):
        out = []
        if self.piece is not None:
            if TIMESTAMP.match(line):
                out.append(self.piece)
            else:
                line = self.piece + line
            self.piece = None
        m = None if TIMESTAMP.match(line) else EMBEDDED_KMSG.search(line, 1)
        if m and line[:m.start()].strip():
            self.piece = line[:m.start()]
            line = line[m.start():]
        return out + [line]

    def flush(self):
        piece, self.piece = self.piece, None
        return [] if piece is None else [piece]


class Doc:
    def __init__(self, index):
        self.name = "document %d" % index
        self.plan = None
        self.count = 0
        self.diag = []      # diagnostics since the last result


class Console:
    def __init__(self, expect_docs=()):
        self.expect_docs = list(expect_docs)
        self.seen_docs = []
        self.doc = None
        self.ndocs = 0
        self.expected_warns = []    # [text, declared by], until expire_warns()
        self.splat = None           # lines of an open "cut here" block
        self.report = None          # lines of an open KASAN/KCSAN report
        self.kcsan_kernel = []      # titles of KCSAN reports outside our code
        self.done = False
        self.init_started = False   # the kernel ran /init
        self.last = ""
        self.held = None            # the line before, until the next one came
        self.replaying = False
        self.unsplicer = Unsplicer()

    def feed(self, raw):
        out = []
        for line in self.unsplicer.feed(ANSI.sub("", raw.replace("\r", "")).rstrip()):
            out += self._feed(line)
        return out

    def _feed(self, line):
        bare = TIMESTAMP.sub("", line)
        if bare == REPLAY:
            self.replaying = True
            return []
        if self.replaying and self.held is not None and line.startswith(self.held):
            self.held = None    # its first printing, whole or cut short
        self.replaying = False
        out = self._line(self.held) if self.held is not None else []
        self.held = line
        if bare == END_MARKER:  # the runner stops reading soon
            out += self._line(line)
            self.held = None
        return out

    def _line(self, line):
        line = TIMESTAMP.sub("", line)
        if line.strip():
            self.last = line
        if "Run /init as init process" in line:
            self.init_started = True
        if self.report is not None:
            return self._in_report(line)
        if SANITIZER.match(line):
            self.report = [line]
            return []
        if self.splat is not None:
            return self._in_splat(line)
        if line == CUT_HERE:
            self.splat = []
            return []
        if line == END_MARKER:
            self.done = True
            return self._close_doc() + self._expire_warns()
        if line.startswith("KTAP version") or line.startswith("TAP version"):
            out = self._close_doc() + self._expire_warns()
            self.ndocs += 1
            self.doc = Doc(self.ndocs)
            return out
        if line.startswith("# ") or line == "#":
            return self._diag(line[1:].strip())
        m = RESULT.match(line)
        if m:
            return self._result(m)
        m = PLAN.match(line)
        if m and self.doc and self.doc.plan is None:
            self.doc.plan = int(m.group(1))
            return []
        return self._problem(line)

    def finish(self, how_ended=None):
        out = []
        for line in self.unsplicer.flush():
            out += self._feed(line)
        out += self._line(self.held) if self.held is not None else []
        self.held = None
        if self.report is not None:
            out += self._end_report()
        if self.splat is not None:
            out += self._end_splat()
        out += self._close_doc() + self._expire_warns()
        if self.kcsan_kernel:
            titles = sorted(set(self.kcsan_kernel), key=self.kcsan_kernel.index)
            out.append(Result("info", "KCSAN", "%d report(s) entirely inside the kernel, not failed: %s"
                              % (len(self.kcsan_kernel), "; ".join(
                                  "%s (x%d)" % (t, self.kcsan_kernel.count(t)) for t in titles)), []))
        if self.done:   # else the boot failure below says it all
            out += [Result("fail", name, "no KTAP document from %s" % name, [])
                    for name in self.expect_docs if name not in self.seen_docs]
        else:
            why = how_ended or "console ended"
            out.append(Result("fail", "boot", "%s before %s; last line: %s" % (why, END_MARKER, self.last), []))
        return out

    def _diag(self, text):
        doc = self.doc or Doc(0)
        if text.startswith("Subtest:") and self.doc and self.doc.count == 0:
            self.doc.name = text.split(":", 1)[1].strip()
            self.seen_docs.append(self.doc.name)
        elif text.startswith("SI_EXPECT_WARN "):
            self.expected_warns.append([text.split(" ", 1)[1].strip(), doc.name])
        elif text == EXPECT_END or text.startswith(EXPECT_END + " "):
            return self._expire_warns()
        else:
            doc.diag.append(text)
        return []

    def _result(self, m):
        if self.doc is None:
            self.ndocs += 1
            self.doc = Doc(self.ndocs)
        doc = self.doc
        doc.count += 1
        name = "%s: %s" % (doc.name, m.group(3) or "test %s" % m.group(2))
        directive = m.group(4) or ""
        diag, doc.diag = doc.diag[-10:], []
        if directive.upper().startswith("SKIP"):
            return [Result("skip", name, directive[4:].strip(), [])]
        if m.group(1):
            return [Result("fail", name, directive, diag)]
        return [Result("ok", name, "", [])]

    def _close_doc(self):
        doc, self.doc = self.doc, None
        if doc is None:
            return []
        if doc.plan is None:
            return [Result("fail", doc.name, "no 1..N plan line", [])]
        if doc.plan != doc.count:
            return [Result("fail", doc.name, "%d results for plan 1..%d (output cut short?)"
                           % (doc.count, doc.plan), doc.diag[-10:])]
        return []

    def _expire_warns(self):
        """The announcing module is done: what it expected and did not get fails."""
        out = [Result("fail", who, "expected WARN containing '%s' never appeared while it ran" % text, [])
               for text, who in self.expected_warns]
        self.expected_warns = []
        return out

    def _problem(self, line):
        m = UNLOAD_REPORT.search(line)
        if m and not m.group(1).startswith("si_unload_"):
            return [Result("fail", "console", line.strip(), [])]
        if not PROBLEMS.search(line) or BENIGN.search(line):
            return []
        # Reports that are not WARN splats (lockdep's) are matched by their title line.
        for exp in self.expected_warns:
            if expected_in(exp[0], [line]):
                self.expected_warns.remove(exp)
                return [Result("info", exp[1], "expected report seen: " + exp[0], [])]
        return [Result("fail", "console", line.strip(), [])]

    def _in_report(self, line):
        if line.startswith(REPORT_END) or len(self.report) > 400:
            return self._end_report()
        self.report.append(line)
        return []

    def _end_report(self):
        lines, self.report = self.report, None
        kind, title = SANITIZER.match(lines[0]).groups()
        title = "%s: %s" % (kind, title)
        if kind == "KCSAN" and not self._kcsan_access_in_our_code(lines):
            self.kcsan_kernel.append(title)
            below = " (reached from si_* code)" if any(OUR_MODULE.search(l) for l in lines) else ""
            return [Result("info", "KCSAN", "inside the kernel only, not failed: " + title + below,
                           [])]
        # What happened and where: the access lines, and the first frames
        # of each stack below the sanitizer's own.
        diag, frames = [], 0
        for l in lines[1:]:
            if REPORT_TAIL.match(l):
                break
            m = FRAME.match(l)
            if m and frames < 6 and not PLUMBING.match(m.group(2)):
                diag.append(l.strip())
                frames += 1
            elif not m and REPORT_HEADER.match(l):
                diag.append(l.strip())
                frames = 0
        if kind == "KCSAN":
            title += " (si_timer or test module code in the stack)"
        return [Result("fail", "console", title, diag)]

    @staticmethod
    def _kcsan_access_in_our_code(lines):
        """Is one of the racing accesses made by si_timer or a test module:
        the first frame under an access line ("write to 0x... by task ...:")
        in an si_* module? A race between two kernel functions that our
        code merely called into is the kernel's."""
        after_access = False
        for l in lines[1:]:
            if KCSAN_ACCESS.search(l):
                after_access = True
                continue
            m = FRAME.match(l)
            if after_access and m and not PLUMBING.match(m.group(2)):
                if m.group(3) and m.group(3).startswith("si_"):
                    return True
                after_access = False
        return False

    def _in_splat(self, line):
        if line == CUT_HERE:    # a new splat: the previous one never ended
            out = self._end_splat()
            self.splat = []
            return out
        self.splat.append(line)
        if END_TRACE in line or len(self.splat) > 400:
            return self._end_splat()
        return []

    def _end_splat(self):
        lines, self.splat = self.splat, None
        warning = next((l for l in lines if "WARNING:" in l), None)
        if warning is None:     # a BUG or an oops: report its lines one by one
            return [r for l in lines for r in self._problem(l)]
        for exp in self.expected_warns:
            if expected_in(exp[0], lines):
                self.expected_warns.remove(exp)
                return [Result("info", exp[1], "expected WARN seen: " + exp[0], [])]
        before = lines[:lines.index(warning)]
        return [Result("fail", "console", warning.strip(), before[-3:])]


def main(paths):
    failed = 0
    for path in paths:
        con = Console()
        with open(path, errors="replace") as f:
            res = [r for l in f for r in con.feed(l)] + con.finish()
        counts = {s: sum(r.status == s for r in res) for s in ("ok", "fail", "skip")}
        for r in res:
            if r.status != "ok":
                print("%s: %-4s %s %s" % (path, r.status, r.name, r.reason))
        print("%s: %d passed, %d failed, %d skipped" % (path, counts["ok"], counts["fail"], counts["skip"]))
        failed += counts["fail"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
