#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: for each kernel, build and pack (scripts/vm.sh prepare), boot
it twice under QEMU (TCG: the latency benchmarks; -icount: the cost ones),
collect the SI_BENCH lines the modules print, and write

  bench <id> <kernel> <metric> si=<v> compat=<v> classic=<v> kdw=<v> dw=<v> baseline=<v> ratio=<si/classic>

lines (peers that do not apply left out) to build/bench/<kernel>.txt, a table
per kernel on the terminal (and B9's by timer count, B10's with its own
peers), and gnuplot PNGs of the B1, B4, B7 and B10 latency distributions and
of B9's costs against the timer count to build/bench/<kernel>-B1.png, -B4.png,
-B7.png, -B10.png, -B10-expiry.png and -B9.png. --only B10 (or other
benchmarks of the latency boot) boots that boot alone and runs only those.

Also the smoke test of `make check` (smoke()): every expected line present
and well formed in a check boot's console log, which ran each benchmark
briefly; never a timing.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "selftests"))
from ktap import Console, Result, Unsplicer, timeout_factor  # noqa: E402

OUT = os.path.join(TOP, "build", "bench")
LOGS = os.path.join(TOP, "build", "logs")
VM = ["bash", os.path.join(TOP, "scripts", "vm.sh")]

PEERS = ["si", "compat", "classic", "kdw", "dw", "baseline"]
# B6 compares si_timer's load states instead of peers.
B6_PEERS = ["baseline", "si_off", "si"]
# B10: si_hrtimer against the hrtimers it stands in for; the long callback's
# peers (B1's scenario) and the 1 ms periodic timer's (expiry latency).
B10_PEERS = ["si", "compat", "soft", "hard", "baseline"]
B10_LONG = {"si", "compat", "soft", "baseline"}
B10_EXPIRY = {"si", "compat", "soft", "hard"}
COLOUR = {"si": "#d62728", "compat": "#ff7f0e", "classic": "#1f77b4", "kdw": "#9467bd",
          "dw": "#2ca02c", "baseline": "#000000", "soft": "#1f77b4", "hard": "#8c564b"}
CDF_Q = [0, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 98, 99, 99.5, 99.9, 100]

ALL = set(PEERS)
TIMERS = ALL - {"baseline"}
COST = {"si", "classic", "kdw", "dw"}
MASS = {"si", "classic"}
# B9: far-future timers armed on the measured CPU, and their metrics
B9_N = ["0", "10k", "100k", "1M"]
B9_QUICK_N = ["0", "10k"]
B9_METRICS = ["arm_ns", "irq_stolen_ns_per_s", "irq_gap_max_ns", "tick_runs_pct",
              "sleep_late_p99_ns", "sleep_late_max_ns", "unload_us"]


def lat(id_, what, peers):
    return [(id_, "%s_%s" % (what, q), peers) for q in
            ("p50_us", "p99_us", "max_us", "samples")]


def expected(rt, quick=False):
    """(id, metric, peers) of every line a boot pair must produce."""
    e = lat("B1", "bh", ALL)
    if rt:
        e += lat("B2", "bh_disable_block", ALL)
    e += lat("B8", "soft_hrtimer", ALL)
    e += [("B8", "udp_" + m, ALL) for m in
          ("rtt_p50_us", "rtt_p99_us", "rtt_max_us", "total_ms")]
    e += [("B3", m, COST) for m in
          ("arm_cancel_ns", "mod_pending_ns", "cancel_idle_ns", "mem_bytes")]
    e += lat("B4", "idle", TIMERS) + lat("B4", "load", TIMERS)
    e += [("B5", pre + m, TIMERS) for pre in ("", "icount_") for m in
          ("same_jiffy_timers", "same_jiffy_us", "same_jiffy_first_us")]
    e += [("B5", m, MASS) for m in
          ("mass_timers", "mass_arm_ns", "mass_fire_all_ms", "mass_fired_once")]
    e += [("B6", m, set(B6_PEERS)) for m in ("tasklet_pingpong_ns", "soft_hrtimer_chain_ns")]
    if rt:
        e += lat("B7", "flood_expiry", {"si", "compat", "classic"})
        e += lat("B7", "flood_from_irq", {"si", "compat", "classic"})
        e += lat("B7", "idle_expiry", {"si", "classic"}) + \
            lat("B7", "idle_from_irq", {"si", "classic"})
    e += [("B9", "n%s_%s" % (n, m), MASS) for n in (B9_QUICK_N if quick else B9_N)
          for m in B9_METRICS]
    e += lat("B10", "bh", B10_LONG)
    if rt:
        e += lat("B10", "bh_disable_block", B10_LONG)
    e += lat("B10", "expiry_idle", B10_EXPIRY) + lat("B10", "expiry_load", B10_EXPIRY)
    return e


def expected_cdfs(rt):
    return [("B1", "load", p) for p in PEERS] + \
        [("B4", c, p) for c in ("idle", "load") for p in PEERS if p != "baseline"] + \
        ([("B7", "flood", p) for p in ("si", "compat", "classic")] if rt else []) + \
        [("B10", "load", p) for p in B10_PEERS if p in B10_LONG] + \
        [("B10", c, p) for c in ("expiry_idle", "expiry_load") for p in B10_PEERS
         if p in B10_EXPIRY]


# Benchmarks --only may pick: si_timer_bench's in the latency boot, and B7
# (its flood boots alone); the others are the cost and scale boots'.
ONLY = ["B1", "B4", "B5", "B7", "B10"]
# What --cost runs, as an @only of selected(): the -icount boots' lines.
COST_ONLY = ["cost"]


def selected(id_, metric, only):
    """Is a line of @id_ (or a CDF's) produced by a run of the benchmarks @only
    (None: all)? B1 prints B2's and B8's soft hrtimer lines; B8's UDP, B5's icount
    ones come from other boots."""
    if only is None:
        return True
    if only == COST_ONLY:
        return id_ in ("B3", "B6", "B9") or metric.startswith("icount_")
    if id_ in ("B2", "B8"):
        return "B1" in only and not metric.startswith("udp_")
    return id_ in only and not metric.startswith("icount_")


LINE = re.compile(r"SI_BENCH (B\d+) (\w+)((?: \w+=-?\d+)+)\s*$")
CDF = re.compile(r"SI_BENCH_CDF (B\d+) (\w+) (\w+)((?: -?\d+)+)\s*$")
B6 = re.compile(r"SI_BENCH_(B6|B9) (\w+) (\w+) (-?\d+)\s*$")
B8U = re.compile(r"SI_BENCH_B8U (\w+)((?: \w+=-?\d+)+)\s*$")
INFO = re.compile(r"SI_BENCH_INFO (.*)$")
TROUBLE = re.compile(r"SI_BENCH_(WARN|ERROR) (.*)$")
# A kernel message that the console wrote into the middle of a line that
# user space (selftests/init.sh) printed: "SI_BENCH_B9 si n10k_unload_us
# 17391[  275.034715] si_timer: vecmask: hooks removed; ..." (arm64's
# PL011 console, 2026-12-07). What came before it is the line.
KMSG_CUT_IN = re.compile(r"\[\s*\d+\.\d{6}\].*$")


class Results:
    def __init__(self):
        self.lines = {}     # (id, metric) -> {peer: int}
        self.order = []
        self.cdfs = {}      # (id, cond, peer) -> [int]
        self.info = []
        self.trouble = []
        self.malformed = []
        self.skipped = []   # "B8U <reason>": a benchmark this kernel cannot run
        self.unsplicer = Unsplicer()

    def feed(self, raw):
        for line in self.unsplicer.feed(raw.rstrip("\r\n")):
            self._feed(line)

    def flush(self):
        """The end of the console: a user line's piece still held."""
        for line in self.unsplicer.flush():
            self._feed(line)

    def _feed(self, line):
        i = line.find("SI_BENCH")
        if i < 0:
            return
        s = KMSG_CUT_IN.sub("", line[i:]).rstrip()
        m = LINE.match(s)
        if m:
            vals = dict(kv.split("=") for kv in m.group(3).split())
            self.put((m.group(1), m.group(2)), {k: int(v) for k, v in vals.items()})
            return
        m = CDF.match(s)
        if m:
            self.cdfs[(m.group(1), m.group(2), m.group(3))] = [int(v) for v in m.group(4).split()]
            return
        m = B6.match(s)
        if m:
            key = (m.group(1), m.group(3))
            if key not in self.lines:
                self.put(key, {})
            self.lines[key][m.group(2)] = int(m.group(4))
            return
        m = B8U.match(s)
        if m:
            for kv in m.group(2).split():
                k, v = kv.split("=")
                key = ("B8", "udp_" + k)
                if key not in self.lines:
                    self.put(key, {})
                self.lines[key][m.group(1)] = int(v)
            return
        m = INFO.match(s)
        if m:
            self.info.append(m.group(1))
            return
        if s.startswith("SI_BENCH_SKIP "):
            self.skipped.append(s[len("SI_BENCH_SKIP "):])
            return
        m = TROUBLE.match(s)
        if m:
            self.trouble.append(m.group(0))
            return
        if s.startswith(("SI_BENCH ", "SI_BENCH_CDF ", "SI_BENCH_B6 ", "SI_BENCH_B8U ",
                         "SI_BENCH_B9 ")):
            self.malformed.append(s)

    def put(self, key, vals):
        if key not in self.lines:
            self.order.append(key)
        self.lines[key] = vals  # a console replay prints a line twice


def ratio(id_, vals):
    den = vals.get({"B6": "baseline", "B10": "soft"}.get(id_, "classic"))
    num = vals.get("si")
    if num is None or den is None:
        return None
    return "%.2f" % (num / den) if den else ("1.00" if num == 0 else "inf")


def bench_line(kernel, key, vals):
    id_, metric = key
    order = {"B6": B6_PEERS, "B10": B10_PEERS}.get(id_, PEERS)
    parts = ["bench", id_, kernel, metric] + \
        ["%s=%d" % (p, vals[p]) for p in order if p in vals]
    r = ratio(id_, vals)
    if r is not None:
        parts.append("ratio=" + r)
    return " ".join(parts)


def problems(res, rt, only=None):
    """Reasons the results are incomplete or malformed (never a timing); @only:
    the benchmarks run (--only), None for all."""
    bad = ["malformed: " + s for s in res.malformed] + res.trouble
    no_udp = any(sk.startswith("B8U ") for sk in res.skipped)
    for id_, metric, peers in expected(rt, is_quick(res)):
        if not selected(id_, metric, only):
            continue
        if no_udp and id_ == "B8" and metric.startswith("udp_"):
            continue
        vals = res.lines.get((id_, metric))
        if vals is None:
            bad.append("missing: %s %s" % (id_, metric))
            continue
        if set(vals) != peers:
            bad.append("%s %s: peers %s, want %s" % (id_, metric, sorted(vals), sorted(peers)))
        if metric.endswith("_samples") and any(v <= 0 for v in vals.values()):
            bad.append("%s %s: no samples %s" % (id_, metric, vals))
    mass = res.lines.get(("B5", "mass_fired_once"), {})
    n = res.lines.get(("B5", "mass_timers"), {})
    for p in mass:
        if mass[p] != n.get(p):
            bad.append("B5: %s: %d of %s timers fired exactly once" % (p, mass[p], n.get(p)))
    # B5 reports a timeout with an SI_BENCH_WARN line (its times may be a
    # little negative: see Documentation/benchmarks.md); B6 with -1.
    for key in [("B6", "tasklet_pingpong_ns"), ("B6", "soft_hrtimer_chain_ns")]:
        for p, v in res.lines.get(key, {}).items():
            if v < 0:
                bad.append("%s %s: %s did not complete" % (key[0], key[1], p))
    for c in expected_cdfs(rt):
        if not selected(c[0], c[1], only):
            continue
        v = res.cdfs.get(c)
        if v is None:
            bad.append("missing: CDF %s %s %s" % c)
        elif len(v) != len(CDF_Q):
            bad.append("CDF %s %s %s: %d values, want %d" % (c + (len(v), len(CDF_Q))))
    return bad


def is_rt(res):
    return any(" rt=1 " in i + " " for i in res.info)


def is_quick(res):
    return any(" quick=1 " in i + " " for i in res.info)


def b9_rows(vals):
    """B9 by timer count: rows of cells from {metric: {peer: v}}; ratios si/classic
    and si against si with no timers (flat in N)."""
    def get(n, m, p):
        return vals.get("n%s_%s" % (n, m), {}).get(p)

    def rat(a, b):
        if a is None or b is None:
            return ""
        return "%.2f" % (a / b) if b else ("1.00" if a == 0 else "inf")

    head = ["N", "stolen ns/s si", "classic", "si/classic", "si/si@0",
            "longest gap ns si", "classic", "sleep late p99 ns si", "classic", "si/classic",
            "unrelated unload us si", "classic", "si/si@0", "per-jiffy timer ran %"]
    rows = []
    for n in B9_N:
        if not any(k.startswith("n%s_" % n) for k in vals):
            continue
        st = [get(n, "irq_stolen_ns_per_s", p) for p in ("si", "classic")]
        sl = [get(n, "sleep_late_p99_ns", p) for p in ("si", "classic")]
        un = [get(n, "unload_us", p) for p in ("si", "classic")]
        runs = "/".join("" if v is None else str(v)
                        for v in (get(n, "tick_runs_pct", p) for p in ("si", "classic")))
        rows.append([n, st[0], st[1], rat(*st), rat(st[0], get("0", "irq_stolen_ns_per_s", "si")),
                     get(n, "irq_gap_max_ns", "si"), get(n, "irq_gap_max_ns", "classic"),
                     sl[0], sl[1], rat(*sl),
                     un[0], un[1], rat(un[0], get("0", "unload_us", "si")), runs])
    return head, [["" if c is None else str(c) for c in r] for r in rows]


def b9_vals(res_lines):
    return {m: v for (i, m), v in res_lines.items() if i == "B9"}


def b10_rows(lines, order):
    """B10's table (its own peers): header and rows of cells, ratio si/soft."""
    head = ["metric"] + B10_PEERS + ["si/soft"]
    rows = []
    for id_, metric in order:
        if id_ != "B10":
            continue
        vals = lines[(id_, metric)]
        rows.append([metric] + ["" if vals.get(p) is None else str(vals[p]) for p in B10_PEERS]
                    + [ratio(id_, vals) or ""])
    return head, rows


def smoke(logname, kernel):
    """Results for `make check` from a check boot's console log."""
    res = Results()
    done = False
    for line in open(logname, errors="replace"):
        res.feed(line)
        done = done or "SI_BENCH_SMOKE_DONE" in line
    res.flush()
    if not done:
        return [Result("fail", "bench_smoke", "the benchmarks did not finish", [])]
    bad = problems(res, is_rt(res))
    skips = [Result("skip", "bench_smoke_" + sk.split()[0], sk.split(None, 1)[1], [])
             for sk in res.skipped]
    if bad:
        return [Result("fail", "bench_smoke", "%d problems" % len(bad), bad[:20])] + skips
    return [Result("ok", "bench_smoke", "", [])] + skips


def boot(kernel, mode, quick, timeout, icount=False, cpus=None, tag=None, only=None):
    """Boot once in @mode (with @cpus vCPUs, default vm.sh's; @only: the benchmarks
    the latency boot runs, None for all); the console log's lines
    (build/logs/<kernel>-<tag, default mode>.log)."""
    env = dict(os.environ)
    if icount:
        env["SI_VM_ICOUNT"] = "1"
    if cpus:
        env["SI_VM_CPUS"] = str(cpus)
    if quick:
        env["SI_APPEND"] = (env.get("SI_APPEND", "") + " si_bench_quick=1").strip()
    if only:
        env["SI_APPEND"] = (env.get("SI_APPEND", "") + " si_bench_only=" +
                            ",".join(only)).strip()
    log = os.path.join(LOGS, "%s-%s.log" % (kernel, tag or mode))
    t0 = time.monotonic()
    with open(log, "wb") as f:
        try:
            subprocess.run(VM + ["qemu", kernel, mode], stdout=f, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, env=env,
                           timeout=timeout * timeout_factor(os.path.join(TOP, "build", kernel)),
                           start_new_session=True)
        except subprocess.TimeoutExpired:
            pass    # run() killed it; the missing end marker reports it
    print("  %-8s %s boot: %.0f s (console: %s)" % (kernel, mode, time.monotonic() - t0,
                                                   os.path.relpath(log, TOP)), flush=True)
    return open(log, errors="replace").read().splitlines()


def table(kernel, res, lines):
    w = max(len(m) for _, m in res.order) if res.order else 10
    head = "%-3s %-*s" % ("id", w, "metric") + "".join("%10s" % p for p in PEERS) + "%8s" % "ratio"
    out = ["", "== %s  (%s)" % (kernel, "; ".join(res.info[:1]))]
    if any(id_ != "B10" for id_, _ in res.order):
        out += [head, "-" * len(head)]
    for key in res.order:
        id_, metric = key
        vals = res.lines[key]
        if id_ == "B10":    # its own table, its own peers
            continue
        if id_ == "B6":
            cells = {"baseline": vals.get("baseline"), "si": vals.get("si"),
                     "compat": vals.get("si_off")}
        else:
            cells = vals
        row = "%-3s %-*s" % (id_, w, metric) + "".join(
            "%10s" % ("" if cells.get(p) is None else cells[p]) for p in PEERS)
        out.append(row + "%8s" % (ratio(id_, vals) or ""))
    if any(id_ != "B10" for id_, _ in res.order):
        out.append("(B6: compat column = si_timer loaded with vecmask=off, baseline = not"
                   " loaded; ratio = si/baseline. Other ratios: si/classic.)")
    head, rows = b9_rows(b9_vals(res.lines))
    if rows:
        w = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
        out += ["", "B9 (%s): N far-future timers armed on the measured CPU" % kernel]
        out += ["  ".join(c.rjust(w[i]) for i, c in enumerate(r)) for r in [head] + rows]
        out.append("(per-jiffy timer ran %: si/classic, share of the spin's jiffies)")
    head, rows = b10_rows(res.lines, res.order)
    if rows:
        w = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
        out += ["", "B10 (%s): si_hrtimer (si, compat) against SOFT and HARD hrtimers" % kernel]
        out += ["  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r))
                for r in [head] + rows]
        out.append("(bh*: 20 ms callbacks every 50 ms, baseline none; expiry_*: a 1 ms periodic"
                   " timer, idle and under B1's device load)")
    return "\n".join(out)


def plot(kernel, res):
    """gnuplot CDFs of B1 and B4; returns the PNGs written."""
    if not shutil.which("gnuplot"):
        print("  gnuplot not installed (make deps): no plots", flush=True)
        return []
    pngs = []
    # (id, conditions, title, PNG name, log scale): B4 may have negative values
    # (Documentation/benchmarks.md): linear, the tail cut at 40 ms; B7's tails
    # reach 100 ms on a loaded host, its medians 0.1-1 ms; B10's expiries go
    # from a few us (HARD) to tens of ms.
    for id_, conds, title, name, log in (
            ("B1", ["load"], "B1: device raise to bottom halves done, "
                             "20 ms timer callbacks every 50 ms", "B1", True),
            ("B4", ["idle", "load"], "B4: timer expiry latency", "B4", False),
            ("B7", ["flood"], "B7: timer expiry latency under a FIFO 50 "
                              "bottom-half flood", "B7", True),
            ("B10", ["load"], "B10: device raise to bottom halves done, "
                              "20 ms hrtimer callbacks every 50 ms", "B10", True),
            ("B10", ["expiry_idle", "expiry_load"], "B10: expiry latency of a 1 ms "
                                                    "periodic hrtimer", "B10-expiry", True)):
        series = []
        for cond in conds:
            for p in (B10_PEERS if id_ == "B10" else PEERS):
                v = res.cdfs.get((id_, cond, p))
                if not v:
                    continue
                dat = os.path.join(OUT, "%s-%s-%s-%s.dat" % (kernel, id_, cond, p))
                with open(dat, "w") as f:
                    for q, x in zip(CDF_Q, v):
                        f.write("%d %g\n" % (max(x, 1) if log else x, q))
                label = p if len(conds) == 1 else "%s (%s)" % (p, cond.split("_")[-1])
                series.append((dat, label, "lines lw 2 lc rgb '%s'%s" % (
                    COLOUR[p], " dt 2" if cond.endswith("idle") else "")))
        if not series:
            continue
        png = os.path.join(OUT, "%s-%s.png" % (kernel, name))
        cmds = ["set terminal pngcairo size 900,520" if _has_cairo() else
                "set terminal png size 900,520",
                "set output '%s'" % png,
                "set title '%s (%s)'" % (title, kernel),
                "set logscale x" if log else "set xrange [-2000:40000]",
                "set xlabel 'latency (us%s)'" % (", log scale" if log else ""),
                "set ylabel 'percentile'", "set yrange [0:100]", "set grid",
                "set key bottom right",
                "plot " + ", ".join("'%s' using 1:2 with %s title '%s'" % (d, s, l)
                                    for d, l, s in series)]
        subprocess.run(["gnuplot"], input="\n".join(cmds), text=True, check=False)
        if os.path.exists(png):
            pngs.append(png)
    png = plot_b9(kernel, b9_vals(res.lines))
    if png:
        pngs.append(png)
    return pngs


def plot_b9(kernel, vals):
    """B9's costs against the number of far-future timers, si and classic."""
    ns = [n for n in B9_N if any(k.startswith("n%s_" % n) for k in vals)]
    if not ns:
        return None
    panels = (("irq_stolen_ns_per_s", "interrupt time stolen (ns per s)"),
              ("sleep_late_p99_ns", "1 ms sleep: wake-up lateness p99 (ns)"),
              ("unload_us", "unrelated module unload (us)"))
    dat = os.path.join(OUT, "%s-B9.dat" % kernel)
    with open(dat, "w") as f:
        for i, n in enumerate(ns):
            f.write("%d %s %s\n" % (i, n, " ".join(
                str(vals.get("n%s_%s" % (n, m), {}).get(p, "NaN"))
                for m, _ in panels for p in ("si", "classic"))))
    png = os.path.join(OUT, "%s-B9.png" % kernel)
    cmds = ["set terminal pngcairo size 1200,420" if _has_cairo() else
            "set terminal png size 1200,420",
            "set output '%s'" % png,
            "set multiplot layout 1,3 title 'B9: N far-future timers on the measured CPU (%s)'"
            % kernel,
            "set xlabel 'timers armed (N)'", "set grid", "set key below",
            "set xrange [-0.3:%g]" % (len(ns) - 0.7), "set yrange [0:*]"]
    for k, (m, title) in enumerate(panels):
        cmds += ["set title '%s'" % title,
                 "plot '%s' using 1:%d:xtic(2) with linespoints lw 2 lc rgb '%s' title 'si', "
                 "'%s' using 1:%d with linespoints lw 2 lc rgb '%s' title 'classic'"
                 % (dat, 3 + 2 * k, COLOUR["si"], dat, 4 + 2 * k, COLOUR["classic"])]
    cmds.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(cmds), text=True, check=False)
    return png if os.path.exists(png) else None


def _has_cairo():
    try:
        out = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True,
                             text=True).stderr + ""
    except OSError:
        return False
    return "pngcairo" in out


# B7's p99 in each of this many boots (the latency boot and B7-only boots).
B7_BOOTS = 5


def b7_boots(kernel, res, timeout, alone=False):
    """B7 again in boots of its own: one flood_expiry_p99_us_boot<k> line per
    boot (and flood_from_irq_ and idle_expiry_p99_us_boot<k>), the latency
    boot's first; the other B7 lines stay that boot's.
    @alone (--only B7): no latency boot ran, the first B7 boot stands in."""
    ok = True
    metrics = ["flood_expiry_p99_us", "flood_from_irq_p99_us", "idle_expiry_p99_us"]
    per_boot = {m: [] if alone else [res.lines.get(("B7", m))] for m in metrics}
    for k in range(len(per_boot[metrics[0]]) + 1, B7_BOOTS + 1):
        one, con = (res if alone and k == 1 else Results()), Console()
        for line in boot(kernel, "bench_flood", False, timeout, tag="bench_flood%d" % k):
            one.feed(line)
            for r in con.feed(line):
                if r.status == "fail":
                    print("  %-8s bench_flood %d: %s" % (kernel, k, r.reason), flush=True)
                    ok = False
        for r in con.finish(None):
            if r.status == "fail":
                print("  %-8s bench_flood %d: %s" % (kernel, k, r.reason), flush=True)
                ok = False
        if one is not res:
            res.trouble += one.trouble
        for m in metrics:
            per_boot[m].append(one.lines.get(("B7", m)))
    for k, vals in enumerate(per_boot[metrics[0]], 1):
        if not vals:
            res.trouble.append("B7: no result in boot %d" % k)
    for m in metrics:
        for k, vals in enumerate(per_boot[m], 1):
            if vals:
                res.put(("B7", "%s_boot%d" % (m, k)), vals)
    return ok


def run(kernel, quick, timeout, only=None, cost=False):
    """All the benchmarks on @kernel, or (@only) those of the latency boot only,
    or (@cost) only the -icount cost and scale boots (B3, B5 icount, B6, B9)."""
    print("== %s: building" % kernel, flush=True)
    log = os.path.join(LOGS, kernel + "-build.log")
    with open(log, "w") as f:
        if subprocess.call(VM + ["prepare", kernel], stdout=f, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL):
            print("  %-8s build failed, see %s" % (kernel, os.path.relpath(log, TOP)))
            return False
    res, ok, notes, scale = Results(), True, [], None
    # (mode, -icount, vCPUs, note): the cost boot falls back to one vCPU
    # (Debian's 6.1 kernels hang bringing up a second one under -icount
    # here), then to plain TCG; a fallback, which has a note saying so, runs
    # only if no earlier cost boot finished. B9 then boots as the cost boot
    # that started did: a boot of its own, minutes long under -icount, so
    # that a kernel that hangs under -icount costs the short cap only.
    default_cpus = os.environ.get("SI_VM_CPUS", "4")
    attempts = (
        ("bench", False, None, None),
        ("bench_icount", True, None, None),
        ("bench_icount", True, 1, "B3, B5 icount_*, B6, B9 measured under -icount with 1 vCPU: "
         "with %s vCPUs the kernel never started" % default_cpus),
        ("bench_icount", False, None, "B3, B5 icount_*, B6, B9 measured WITHOUT -icount: no "
         "-icount boot finished"))
    if only:
        attempts = attempts[:1] if [i for i in only if i != "B7"] else ()
    elif cost:
        attempts = attempts[1:]
    for mode, icount, cpus, note in attempts:
        if note:
            if any(i.endswith("only=B3,B5i") for i in res.info):
                break
            print("  %-8s %s" % (kernel, note), flush=True)
        con = Console()
        fails = []
        console = boot(kernel, mode, quick, timeout if not icount else min(timeout, 240),
                       icount, cpus, tag=mode + "".join("-" + i for i in only) if only else None,
                       only=only)
        for line in console:
            res.feed(line)
            fails += [r.reason for r in con.feed(line) if r.status == "fail"]
        fails += [r.reason for r in con.finish(None) if r.status == "fail"]
        if icount and fails and not any("Linux version" in line for line in console):
            # Not a result: the next attempt stands in.
            print("  %-8s %s: the kernel never started under -icount with %s vCPUs"
                  % (kernel, mode, cpus or default_cpus), flush=True)
            continue
        if note:
            notes.append(note)
        if mode == "bench_icount":
            scale = (icount, cpus)
        for reason in fails:
            print("  %-8s %s: %s" % (kernel, mode, reason), flush=True)
            ok = False
    if scale:
        con = Console()
        for line in boot(kernel, "bench_scale", quick,
                         min(timeout, 1200) if scale[0] else timeout, *scale):
            res.feed(line)
            for r in con.feed(line):
                if r.status == "fail":
                    print("  %-8s bench_scale: %s" % (kernel, r.reason), flush=True)
                    ok = False
        for r in con.finish(None):
            if r.status == "fail":
                print("  %-8s bench_scale: %s" % (kernel, r.reason), flush=True)
                ok = False
    if only and "B7" in only and not attempts:
        ok = b7_boots(kernel, res, timeout, alone=True) and ok
    elif is_rt(res) and not quick and not cost and (not only or "B7" in only):
        ok = b7_boots(kernel, res, timeout) and ok
    lines = [bench_line(kernel, k, res.lines[k]) for k in res.order]
    name = kernel + "".join("-" + i for i in only or []) + ("-cost" if cost else "")
    with open(os.path.join(OUT, name + ".txt"), "w") as f:
        f.write("# %s %s%s%s\n" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                   kernel, " QUICK" if quick else "",
                                   " only=" + ",".join(only) if only else ""))
        if res.info:
            f.write("# " + re.sub(r" (quick|only)=\S+", "", res.info[0]) + "\n")
        for n in notes:
            f.write("# " + n + "\n")
        f.write("\n".join(lines) + "\n")
    for line in lines:
        print(line)
    print(table(kernel, res, lines), flush=True)
    for png in plot(kernel, res):
        print("  plot: " + os.path.relpath(png, TOP))
    bad = problems(res, is_rt(res), COST_ONLY if cost else only)
    for b in bad:
        print("  %-8s PROBLEM %s" % (kernel, b))
    return ok and not bad


def markdown(path):
    """A results table (Documentation/benchmarks.md) from a saved build/bench/<kernel>.txt."""
    rows, head, b9, b10 = [], [], {}, []
    for line in open(path):
        if line.startswith("#"):
            head.append(line[1:].strip())
            continue
        f = line.split()
        if len(f) < 5 or f[0] != "bench":
            continue
        vals = dict(kv.split("=") for kv in f[4:])
        if f[1] == "B9":    # its own table, by timer count
            b9[f[3]] = {p: int(v) for p, v in vals.items() if p != "ratio"}
            continue
        if f[1] == "B10":   # its own table, its own peers
            b10.append("| %s | %s |" % (f[3], " | ".join(
                vals.get(p, "") for p in B10_PEERS + ["ratio"])))
            continue
        if f[1] == "B6":
            vals["compat"] = vals.pop("si_off", "")
        rows.append("| %s | %s | %s |" % (f[1], f[3], " | ".join(
            vals.get(p, "") for p in PEERS + ["ratio"])))
    out = ["_" + "; ".join(head) + "_"]
    if rows:
        out += ["", "| id | metric | " + " | ".join(PEERS) + " | si/classic |",
                "|---|---|" + "---:|" * (len(PEERS) + 1)]
    bhead, brows = b9_rows(b9)
    if brows:
        rows += ["", "B9 by timer count (per-jiffy timer ran %: si/classic):", "",
                 "| " + " | ".join(bhead) + " |", "|" + "---:|" * len(bhead)]
        rows += ["| " + " | ".join(r) + " |" for r in brows]
    if b10:
        rows += ["", "B10: si_hrtimer (si, compat) against SOFT and HARD hrtimers:", "",
                 "| metric | " + " | ".join(B10_PEERS) + " | si/soft |",
                 "|---|" + "---:|" * (len(B10_PEERS) + 1)] + b10
    return "\n".join(out + rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="each benchmark briefly (QUICK=1)")
    ap.add_argument("--timeout", type=int, default=1500, help="seconds per boot")
    ap.add_argument("--smoke", metavar="LOG", help="check a console log as make check does")
    ap.add_argument("--markdown", metavar="TXT", help="print a saved result file as a table")
    ap.add_argument("--only", metavar="IDS",
                    help="comma-separated benchmarks of the latency boot (%s): boot it alone, "
                    "run only those (B1 with B2 and B8's soft hrtimer; no UDP; B7: its five "
                    "flood boots, RT only); "
                    "results in build/bench/<kernel>-<id>....txt" % ", ".join(ONLY))
    ap.add_argument("--cost", action="store_true",
                    help="only the -icount cost and scale boots (B3, B5 icount_*, B6, B9), "
                    "deterministic: for before and after a change to a hot path; results in "
                    "build/bench/<kernel>-cost.txt")
    ap.add_argument("kernels", nargs="*", help="6.1-rt 6.12-rt 6.1 or a release")
    args = ap.parse_args()
    if args.markdown:
        print(markdown(args.markdown))
        return 0
    if args.smoke:
        rs = smoke(args.smoke, "")
        for r in rs:
            print(r.status, r.name, r.reason)
            for d in r.diag:
                print("   ", d)
        return 0 if all(r.status == "ok" for r in rs) else 1
    only = None
    if args.only:
        only = args.only.split(",")
        bad = [i for i in only if i not in ONLY]
        if bad:
            ap.error("--only: %s not among %s" % (", ".join(bad), ", ".join(ONLY)))
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(LOGS, exist_ok=True)
    ok = True
    for kernel in args.kernels:
        ok = run(kernel, args.quick, args.timeout, only, args.cost) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
