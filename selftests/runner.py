#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make check: for each kernel, build and pack (scripts/vm.sh prepare), boot
it under QEMU with the console piped through the parser (ktap.py), print
each result as it comes, and end with "N passed, N failed, N skipped".
Logs: build/logs/<kernel>-build.log (build), build/logs/<kernel>.log (console).
"""
import argparse
import os
import select
import signal
import subprocess
import sys
import threading
import time
import traceback

from ktap import Console, Result, timeout_factor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from bench import smoke as bench_smoke  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOGS = os.path.join(TOP, "build", "logs")
VM = ["bash", os.path.join(TOP, "scripts", "vm.sh")]
# Sanitizer kernels run everything several times slower under TCG: their
# boots get this many times the per-boot timeout.
SLOW_KERNELS = {"kasan": 3, "kasan-rt": 3, "kcsan-rt": 3, "debug-rt": 3, "kasan-rt-arm64": 3}


# QEMU and the kit run in sessions of their own (so that a sysrq or a kill
# reaches the whole group): killed by hand when the run is interrupted.
CHILDREN = set()
CHILDREN_LOCK = threading.Lock()


def child_started(proc):
    with CHILDREN_LOCK:
        CHILDREN.add(proc)


def child_done(proc):
    with CHILDREN_LOCK:
        CHILDREN.discard(proc)


def kill_children():
    with CHILDREN_LOCK:
        for proc in CHILDREN:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass


def base_kernel(kernel):
    """The kernel a variant (NAME-mttcg, NAME-full, NAME-lockdep-CASE) boots."""
    for suffix in ("-mttcg", "-full"):
        if kernel.endswith(suffix):
            return kernel[:-len(suffix)]
    return kernel.split("-lockdep-")[0]


class Tally:
    """Counts per kernel; several kernels may report at once (--jobs)."""

    STATUSES = ("ok", "fail", "skip")

    # A failure's diagnostics repeated at the end, so few that a long one
    # cannot push the summary off a log's tail.
    RECAP_FAILURES, RECAP_DIAG = 30, 6

    def __init__(self):
        self.by_kernel = {}
        self.failures = []
        self.lock = threading.Lock()

    @property
    def counts(self):
        """The totals over every kernel."""
        with self.lock:
            return {s: sum(k[s] for k in self.by_kernel.values()) for s in self.STATUSES}

    def report(self, kernel, r):
        tag = {"ok": "ok", "fail": "FAIL", "skip": "SKIP", "info": "info"}[r.status]
        reason = r.reason and ("  (%s)" % r.reason if r.status == "skip" else ": " + r.reason)
        with self.lock:
            if r.status in self.STATUSES:
                k = self.by_kernel.setdefault(kernel, dict.fromkeys(self.STATUSES, 0))
                k[r.status] += 1
            if r.status == "fail":
                self.failures.append((kernel, r))
            print("  %-4s  %-8s %s%s" % (tag, kernel, r.name, reason), flush=True)
            for d in r.diag:
                print("                  # " + d, flush=True)

    def recap(self):
        """Every failure again, with the last of its diagnostics: a CI log is
        often read from its tail, and the failures scroll by among thousands
        of lines from kernels booted side by side."""
        with self.lock:
            failures = list(self.failures)
        if not failures:
            return
        print("\nFailures:")
        for kernel, r in failures[:self.RECAP_FAILURES]:
            print("  FAIL  %-8s %s%s" % (kernel, r.name, r.reason and ": " + r.reason))
            for d in r.diag[-self.RECAP_DIAG:]:
                print("                  # " + d)
        if len(failures) > self.RECAP_FAILURES:
            print("  ... and %d more, above" % (len(failures) - self.RECAP_FAILURES))

    def say(self, line):
        """One line of progress, whole even when workers print at once."""
        with self.lock:
            print(line, flush=True)

    def of(self, kernel):
        with self.lock:
            return dict(self.by_kernel.get(kernel, dict.fromkeys(self.STATUSES, 0)))


def prepare(kernel, tally):
    """Build and pack; on failure report it and return False."""
    log = os.path.join(LOGS, kernel + "-build.log")
    with open(log, "w") as f:
        rc = subprocess.call(VM + ["prepare", kernel], stdout=f, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
    if rc == 0:
        return True
    lines = open(log, errors="replace").read().splitlines() or ["(empty log)"]
    if rc == 3:
        tally.report(kernel, Result("fail", "kernel", lines[-1], []))
    else:
        tally.report(kernel, Result("fail", "build", "failed, see " + os.path.relpath(log, TOP),
                                    lines[-12:]))
    return False


def sysrq(proc, keys):
    """Magic SysRq over the serial console: QEMU's mux sends a break on
    Ctrl-A b, and the key that follows is the command."""
    try:
        for k in keys:
            proc.stdin.write(b"\x01b")
            proc.stdin.flush()
            time.sleep(0.5)
            proc.stdin.write(k.encode())
            proc.stdin.flush()
            time.sleep(2)
    except OSError:
        pass


def boot(kernel, timeout, tally, attempt=1):
    """Boot once; a kernel that dies before running /init (no si_timer code
    loaded yet: a QEMU TCG flake) is booted once more. Under multi-threaded
    TCG (NAME-mttcg) text patching can crash the guest also while si_timer
    registers its hooks: there, the same until a test module started.
    Returns the seconds it took and the number of KCSAN reports inside the
    kernel only."""
    tests = open(os.path.join(TOP, "build", kernel, "initramfs", "si", "tests.list")).read().split()
    # NAME-lockdep-CASE boots for one module's sake (si_only_modules=1)
    shell_docs = [] if "-lockdep-" in kernel else ["si_timer_load", "si_timer_params"]
    con = Console(expect_docs=shell_docs + tests + ["si_timer_modules"])
    early = []      # results before the tests start, held back in case of a retry

    def started():
        if kernel.endswith("-mttcg"):
            return any(d in con.seen_docs for d in tests)
        return con.init_started

    def report(results):
        for r in results:
            if started() or attempt > 1:
                for e in early:
                    tally.report(kernel, e)
                early.clear()
                tally.report(kernel, r)
            else:
                early.append(r)

    proc = subprocess.Popen(VM + ["qemu", kernel, "check"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    child_started(proc)
    start = time.monotonic()
    deadline, beat, how, buf = start + timeout, start + 60, None, b""
    dumped = False
    fd = proc.stdout.fileno()
    logname = os.path.join(LOGS, kernel + ".log")
    with open(logname, "wb") as log:
        while True:
            now = time.monotonic()
            if now >= deadline:
                if con.done or dumped:
                    how = None if con.done else "timeout after %d s" % timeout
                    break
                # Hung: ask the kernel what it is doing before killing it.
                tally.say("  ...   %-8s timeout after %d s: sysrq w, l, t (see the console log)"
                          % (kernel, timeout))
                sysrq(proc, "wlt")
                dumped, deadline = True, time.monotonic() + 20
                continue
            if not select.select([fd], [], [], max(0, min(deadline, beat) - now))[0]:
                if time.monotonic() >= beat:
                    tally.say("  ...   %-8s still running, %d s" % (kernel, beat - start))
                    beat += 60
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            log.write(chunk)
            log.flush()
            *lines, buf = (buf + chunk).split(b"\n")
            for line in lines:
                report(con.feed(line.decode(errors="replace")))
                if con.done:    # give the power-off a little time
                    deadline = min(deadline, time.monotonic() + 30)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    rc = proc.wait()
    child_done(proc)
    if buf:
        report(con.feed(buf.decode(errors="replace")))
    if how is None and not con.done:
        how = "qemu exited with status %d" % rc
    if not started() and attempt == 1:
        for r in early + con.finish(how):
            tally.report(kernel, r._replace(status="info", reason="attempt 1: " + r.reason))
        os.replace(logname, os.path.join(LOGS, kernel + "-attempt1.log"))
        tally.say("  info  %-8s kernel died before the tests (see build/logs/%s-attempt1.log); booting again"
                  % (kernel, kernel))
        return boot(kernel, timeout, tally, attempt=2)
    report(con.finish(how))
    if dumped and con.done:
        report([Result("fail", "boot", "finished only after the %d s timeout" % timeout, [])])
    for r in early:
        tally.report(kernel, r)
    return time.monotonic() - start, len(con.kcsan_kernel)


# Not a kernel: the DKMS and migration-kit step (selftests/dkms_test.sh), which
# builds for 6.1-rt and 6.12-rt in a throw-away root and boots both.
KIT = "dkms"
KIT_DOCS = ["si_timer_migrate", "si_timer_audit", "si_timer_dkms", "si_timer_dkms_boot",
            "si_timer_vm_run"]


def run_kit(timeout, tally):
    """Run selftests/dkms_test.sh; its stdout (host-side KTAP and the VM
    consoles) goes through the same parser as a boot's console."""
    con = Console(expect_docs=KIT_DOCS)
    start = time.monotonic()
    proc = subprocess.Popen(["bash", os.path.join(TOP, "selftests", "dkms_test.sh")],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    child_started(proc)
    killer = threading.Timer(timeout, os.killpg, (proc.pid, signal.SIGKILL))
    killer.start()
    with open(os.path.join(LOGS, KIT + "-console.log"), "wb") as log:
        for line in proc.stdout:
            log.write(line)
            for r in con.feed(line.decode(errors="replace").rstrip("\n")):
                tally.report(KIT, r)
    proc.wait()
    child_done(proc)
    killer.cancel()
    how = "timeout after %d s" % timeout if time.monotonic() - start >= timeout else None
    for r in con.finish(how):
        tally.report(KIT, r)
    return time.monotonic() - start


def run_one(kernel, args, tally):
    """Build and boot one kernel (or run the kit step); its summary line."""
    if kernel != KIT:
        tally.say("== %s: building" % kernel)
    t0 = time.monotonic()
    built = kernel != KIT and prepare(kernel, tally)
    tbuild, tboot, kcsan = time.monotonic() - t0, 0.0, 0
    if kernel == KIT:
        tally.say("== %s: convert, audit, package, boot (log: build/logs/dkms.log)" % kernel)
        tboot = run_kit(3 * args.timeout, tally)
    elif built:
        tally.say("== %s: booting (build %.0f s; console: build/logs/%s.log)"
                  % (kernel, tbuild, kernel))
        slow = SLOW_KERNELS.get(base_kernel(kernel), 1) * timeout_factor(
            os.path.join(TOP, "build", kernel))
        tboot, kcsan = boot(kernel, args.timeout * slow, tally)
        # The benchmarks ran briefly after the tests (if packed, not on
        # NAME-full): their lines complete?
        if os.path.isdir(os.path.join(TOP, "build", kernel, "initramfs", "si", "bench")):
            for r in bench_smoke(os.path.join(LOGS, kernel + ".log"), kernel):
                tally.report(kernel, r)
    d = tally.of(kernel)
    line = "%-8s %3d passed, %d failed, %d skipped  (build %.0f s, boot %.1f s)" % (
        kernel, d["ok"], d["fail"], d["skip"], tbuild, tboot)
    if kcsan:
        line += "; %d KCSAN report(s) inside the kernel only" % kcsan
    tally.say("== " + line)
    return line


def groups_of(kernels):
    """Kernels in runs that must stay in order: a variant (NAME-full,
    NAME-lockdep-CASE, NAME-mttcg) boots NAME's build, so it follows NAME."""
    groups, where = [], {}
    for k in kernels:
        base = KIT if k == KIT else base_kernel(k)
        if base in where:
            groups[where[base]].append(k)
        else:
            where[base] = len(groups)
            groups.append([k])
    return groups


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--timeout", type=int, default=int(os.environ.get("SI_BOOT_TIMEOUT", 420)),
                    help="seconds per boot (default 420; x3 on kasan, kasan-rt, kcsan-rt, "
                         "kasan-rt-arm64; x2 on arm64)")
    ap.add_argument("--jobs", "-j", type=int, default=int(os.environ.get("SI_JOBS_VM", 1)),
                    help="kernels booted at once (default 1; each TCG boot keeps one host "
                         "CPU busy, so more than the host's CPUs only slows all down)")
    ap.add_argument("kernels", nargs="+",
                    help="6.1-rt 6.12-rt 6.1 7.x-rt 7.x kasan kasan-rt kcsan-rt, 6.1-rt-arm64 "
                         "6.12-rt-arm64 7.x-rt-arm64 kasan-rt-arm64, NAME-mttcg, "
                         "NAME-full, NAME-lockdep-CASE or a release; "
                         "dkms: selftests/dkms_test.sh")
    args = ap.parse_args()
    os.makedirs(LOGS, exist_ok=True)
    tally, lines = Tally(), {}
    todo = groups_of(args.kernels)
    todo_lock = threading.Lock()

    def worker():
        while True:
            with todo_lock:
                if not todo:
                    return
                group = todo.pop(0)
            for kernel in group:
                try:
                    lines[kernel] = run_one(kernel, args, tally)
                except Exception as e:  # a harness bug fails the kernel, not the run
                    tb = traceback.format_exc().splitlines()[-6:]
                    tally.report(kernel, Result("fail", "harness", "%s: %s" % (
                        type(e).__name__, e), tb))
                    lines[kernel] = "%-8s harness error: %s" % (kernel, e)

    workers = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, args.jobs))]
    for w in workers:
        w.start()
    try:
        for w in workers:
            while w.is_alive():
                w.join(1)
    except KeyboardInterrupt:
        kill_children()
        print("\ninterrupted", flush=True)
        return 130
    tally.recap()
    print("\nSummary:")
    for kernel in args.kernels:
        print("  " + lines.get(kernel, "%-8s not run" % kernel))
    c = tally.counts
    print("%d passed, %d failed, %d skipped" % (c["ok"], c["fail"], c["skip"]))
    missing = [k for k in args.kernels if k not in lines]
    return 1 if c["fail"] or not c["ok"] or missing else 0


if __name__ == "__main__":
    sys.exit(main())
