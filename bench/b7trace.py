#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""B7 under tracing: boot KERNEL (an RT kernel of scripts/vm.sh) with
bench/b7-trace.sh, decode the trace it prints, and say, for the expiries of
the flood CPU, where the time from the due jiffy edge to the callback went
and what each late one waited for:

  due -> irq      the executor's wake-up hrtimer ran that late (the guest's
                  timer interrupt; a retry when jiffies came late)
  irq -> wakeup   the executor's sched_wakeup in that interrupt
  wakeup -> run   until the switch to the executor (what ran meanwhile)
  run -> callback the executor's own work: collecting, masking, and any
                  wait (blocked: on whom it boosted)

  bench/b7trace.py [--light] [--threshold US] [--show N] [--trace FILE] KERNEL

--trace analyses a decoded trace again without booting. The trace is kept
as build/bench/KERNEL-b7trace[-light].txt, the console as build/logs/vm-run-KERNEL.log.
"""
import argparse
import base64
import gzip
import os
import re
import subprocess
import sys
from collections import Counter

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(TOP, "build", "bench")
EVENT = re.compile(r"^\s*(.{1,16})-(\d+)\s+\[(\d+)\]\s+(\S+)\s+(\d+)\.(\d+): (\w+): (.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")
PHASES = ["due_irq", "irq_wakeup", "wakeup_run", "run_callback", "total"]


def boot(kernel, light):
    """Build, boot and decode; the path of the decoded trace."""
    if subprocess.call(["bash", "scripts/vm.sh", "prepare", kernel], cwd=TOP,
                       stdout=subprocess.DEVNULL):
        sys.exit("b7trace: scripts/vm.sh prepare %s failed" % kernel)
    ko = os.path.join(TOP, "build", kernel, "src", "bench", "si_timer_bench.ko")
    # noirqdebug: megabytes on the serial console once made 6.1-rt call its
    # interrupt spurious and disable it ("Disabling IRQ #4"), and the dump crawl
    env = dict(os.environ, SI_BOOT_TIMEOUT=os.environ.get("SI_BOOT_TIMEOUT", "1200"),
               SI_APPEND=(os.environ.get("SI_APPEND", "") + " noirqdebug").strip())
    script = os.path.join(TOP, "bench", "b7-trace.sh")
    if light:
        os.makedirs(OUT, exist_ok=True)
        with open(os.path.join(OUT, "b7-trace-light.sh"), "w") as f:
            with open(script) as src:
                f.write("LIGHT=1\n" + src.read())
        script = f.name
    subprocess.call(["bash", "scripts/vm-run.sh", kernel, script, ko],
                    cwd=TOP, env=env, stdout=subprocess.DEVNULL)
    with open(os.path.join(TOP, "build", "logs", "vm-run-%s.log" % kernel), "rb") as f:
        log = f.read().decode("latin1")
    for line in log.splitlines():
        if "SI_BENCH B7" in line or "B7TRACE_MISSING" in line or "B7TRACE_OVERRUN" in line:
            print(line[line.index("B7TRACE") if "B7TRACE" in line else line.index("SI_BENCH"):])
    if "B7TRACE_END" not in log:
        sys.exit("b7trace: no trace on the console (build/logs/vm-run-%s.log)" % kernel)
    b64 = log[log.index("B7TRACE_BEGIN") + 13:log.index("B7TRACE_END")]
    b64 = re.sub(r"\[ *\d+\.\d+\][^\r\n]*\r?\n", "", b64)     # kernel messages among it
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "%s-b7trace%s.txt" % (kernel, "-light" if light else ""))
    with open(path, "wb") as f:
        f.write(gzip.decompress(base64.b64decode(re.sub(r"\s", "", b64))))
    return path


class Ev:
    __slots__ = ("t", "comm", "cpu", "flags", "name", "rest", "f")

    def __init__(self, m):
        self.comm, self.cpu, self.flags = m.group(1).strip(), int(m.group(3)), m.group(4)
        self.t = int(m.group(5)) * 1000000 + int(m.group(6)[:6].ljust(6, "0"))    # us
        self.name, self.rest = m.group(7), m.group(8)
        self.f = dict(FIELD.findall(self.rest))


def parse(path):
    evs = []
    with open(path, errors="replace") as f:
        for line in f:
            m = EVENT.match(line)
            if m:
                evs.append(Ev(m))
    return evs


def q(v, p):
    return v[min(int(len(v) * p), len(v) - 1)] if v else 0


def expiries(evs):
    """One dict per si_timer expiry (bench_si_fn) on the flood CPU: its phases (us)
    and the indices of its events."""
    on = Counter(e.cpu for e in evs if e.comm.startswith("si_bench_flood"))
    if not on:
        sys.exit("b7trace: no si_bench_flood event in the trace")
    flood = on.most_common(1)[0][0]
    # B7 first measures on the idle CPU, then starts the flood
    start = next(e.t for e in evs if e.cpu == flood and e.comm.startswith("si_bench_flood"))
    exe = "si_timer/%d" % flood
    wake_hr = set()             # the flood CPU's executor wake-up hrtimer(s)
    due = None                  # the earliest wake-up set since the last arming
    cur, out = None, []
    for i, e in enumerate(evs):
        if e.name == "si_timer_start" and "bench_si_fn" in e.rest:
            due, cur = None, None
        if e.cpu != flood:
            continue
        if e.name == "hrtimer_start" and e.f.get("function") == "si_executor_wake_fn":
            wake_hr.add(e.f["hrtimer"])
            at = int(e.f["expires"]) // 1000 - 1       # SI_WAKE_AFTER_EDGE_NS
            if due is None or at < due:
                due = at
        elif e.name == "hrtimer_expire_entry" and e.f.get("hrtimer") in wake_hr:
            if cur is None or "wakeup" not in cur:
                retries = cur["retries"] + 1 if cur else 0
                cur = {"irq": e.t, "irq_i": i, "retries": retries, "blocked": 0, "boost": []}
        elif cur is None:
            continue
        elif e.name == "sched_wakeup" and e.f.get("comm") == exe and "wakeup" not in cur:
            cur["wakeup"], cur["wakeup_i"] = e.t, i
        elif e.name == "sched_switch" and e.f.get("next_comm") == exe and "run" not in cur:
            cur["run"], cur["run_i"] = e.t, i
            cur["prev"] = "%s(%s)" % (e.f.get("prev_comm"), e.f.get("prev_prio"))
        elif e.name == "sched_switch" and e.f.get("prev_comm") == exe and "run" in cur:
            cur["out"] = (e.t, e.f.get("prev_state"))
        elif e.name == "sched_switch" and e.f.get("next_comm") == exe and "out" in cur:
            cur["blocked"] += e.t - cur.pop("out")[0]
        elif e.name == "sched_pi_setprio" and e.comm == exe:
            cur["boost"].append(e.f.get("comm"))
        elif e.name == "si_timer_expire_entry" and "bench_si_fn" in e.rest:
            x = dict(cur, cb=e.t, cb_i=i, mode=e.f.get("mode"), due=due,
                     flood=e.t > start)
            if due is not None:
                x["due_irq"] = x["irq"] - due
                x["total"] = x["cb"] - due
            # an executor already awake has no wake-up of its own
            w = x.get("wakeup", x["irq"])
            r = x.get("run", w)
            x["irq_wakeup"], x["wakeup_run"], x["run_callback"] = w - x["irq"], r - w, x["cb"] - r
            out.append(x)
            cur, due = None, None
    return flood, out


def gap_in(evs, a, b):
    """The longest stretch without an event on any CPU between event indices
    @a and @b, in us, and where it starts."""
    best, at = 0, a
    for i in range(a, b):
        d = evs[i + 1].t - evs[i].t
        if d > best:
            best, at = d, i
    return best, at


def irq_lateness(evs, flood):
    """How late the tick's hrtimer ran on @flood, in us, by what the
    interrupt found running (the event's task): the lateness of the timer
    interrupt itself, which every timer of that jiffy pays."""
    expires, late = {}, {"flood running": [], "idle": [], "other task": []}
    for e in evs:
        fn = e.f.get("function")
        if e.cpu != flood or fn not in ("tick_nohz_handler", "tick_sched_timer"):
            continue
        if e.name == "hrtimer_start":
            expires[e.f["hrtimer"]] = int(e.f["expires"])
        elif e.name == "hrtimer_expire_entry" and e.f["hrtimer"] in expires:
            k = "flood running" if e.comm.startswith("si_bench_flood") else \
                "idle" if e.comm == "<idle>" else "other task"
            late[k].append((int(e.f["now"]) - expires.pop(e.f["hrtimer"])) // 1000)
    return late


def report(evs, threshold, show):
    flood, xs = expiries(evs)
    print("flood CPU %d; %d events, %.1f s traced" % (flood, len(evs), (evs[-1].t - evs[0].t) / 1e6))
    for k, v in irq_lateness(evs, flood).items():
        v.sort()
        if v:
            print("timer interrupt lateness on CPU %d, %s: %d ticks, p50 %d p90 %d p99 %d max %d us,"
                  " over %d us: %d" % (flood, k, len(v), q(v, .5), q(v, .9), q(v, .99), v[-1],
                                       threshold, sum(1 for x in v if x > threshold)))
    for mode, flooded in (("soft-interruptible", True), ("compatible", True),
                          ("soft-interruptible", False)):
        ms = [x for x in xs if x["mode"] == mode and x["flood"] == flooded and "total" in x]
        if not ms:
            continue
        print("\n%s%s: %d expiries; phases in us (p50 / p90 / p99 / max):" % (
            mode, "" if flooded else ", idle CPU (before the flood)", len(ms)))
        for ph in PHASES:
            v = sorted(x[ph] for x in ms)
            print("  %-13s %6d %6d %6d %6d" % (ph, q(v, .5), q(v, .9), q(v, .99), v[-1]))
        late = [x for x in ms if x["total"] > threshold]
        print("  over %d us: %d; their longest phase:" % (threshold, len(late)), end="")
        kinds = Counter(max(PHASES[:4], key=lambda p: x[p]) for x in late)
        print(" " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())) if kinds else " -")
        blocked = [x for x in ms if x["blocked"]]
        print("  blocked before the callback: %d (boosted: %s)" % (
            len(blocked), ", ".join(sorted(set(b for x in blocked for b in x["boost"]))) or "-"))
        print("  retried wake-ups (jiffies late): %d" % sum(1 for x in ms if x["retries"]))
        print("  switched in from: %s" % ", ".join("%s %d" % kv for kv in Counter(
            x.get("prev", "(awake)") for x in ms).most_common(6)))
        for x in sorted(late, key=lambda x: -x["total"])[:show]:
            lo = max(x["irq_i"] - 4, 0)
            g, gi = gap_in(evs, lo, x["cb_i"])
            print("\n  == %d us late: %s; prev %s; longest silence on all CPUs %d us after %s" % (
                x["total"], " ".join("%s=%d" % (p, x[p]) for p in PHASES[:4]), x.get("prev"),
                g, evs[gi].name))
            for e in evs[lo:x["cb_i"] + 1][:40]:
                if e.cpu == flood or e.t - evs[gi].t in range(0, g + 1):
                    print("    %+7d [%d] %-18s %-6s %-22s %s" % (
                        e.t - x["irq"], e.cpu, e.comm[:18], e.flags, e.name, e.rest[:110]))
    return xs


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threshold", type=int, default=1000, help="late: over this many us")
    ap.add_argument("--show", type=int, default=8, help="late expiries to show in full")
    ap.add_argument("--trace", help="a decoded trace to analyse again (no boot)")
    ap.add_argument("--light", action="store_true",
                    help="trace only what places each expiry (a few events each), so that "
                    "tracing hardly slows B7; the late ones are then shown without context")
    ap.add_argument("kernel", nargs="?", default="6.12-rt")
    args = ap.parse_args()
    path = args.trace or boot(args.kernel, args.light)
    report(parse(path), args.threshold, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
