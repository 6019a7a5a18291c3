#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make kit-corpus: the migration kit on a seeded sample of loadable modules
of linux-source-6.12 that own timers, as a user would run it (not part of
make check: it takes long).

For each module (drivers/, net/, sound/, fs/; at least 15 subsystems; a
module of the configuration's =m that calls timer_setup()): its files are
copied into build/kit-corpus/work/<module>/ with a Kbuild of that module
alone; the copy is built as it is (a module that does not build out of tree
that way is counted apart), audited (make audit FILE=), converted (make
migrate FILE=) and built again against the 6.12-rt headers and include/.
A converted module builds untouched, or every error line is on the kit's
list, or an error is not (a bug of the kit to fix or explain).

  kit-corpus.py [--src DIR] [--count 60] [--seed 31] [--budget SECONDS]
                [--doc Documentation/migration.md]

--src: an unpacked linux-source-6.12 (default: build/kit-corpus/src,
unpacked from /usr/src/linux-source-6.12.tar.xz). --budget: stop starting
modules after that many seconds; the table says how many were run.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import kbuild_mod  # noqa: E402

KVER = "6.12.118+deb12-rt-amd64"
KDIR = "/lib/modules/%s/build" % KVER
TARBALL = "/usr/src/linux-source-6.12.tar.xz"
ROOTS = ("drivers", "net", "sound", "fs")
OURS = ("dummy.c", "aloop.c", "mac80211_hwsim", "f_ncm", "dummy_hcd", "ti-tsc2046", "mvpp2",
        "j1939", "sch_dualpi2", "af_packet", "bcm.c", "isotp", "xfrm_iptfs", "act_gate")
BEGIN, END = "<!-- kit-corpus table begin -->", "<!-- kit-corpus table end -->"


def config():
    out = {}
    with open(os.path.join(KDIR, ".config")) as f:
        for line in f:
            m = re.match(r"(CONFIG_\w+)=(\S+)", line)
            if m:
                out[m.group(1)] = m.group(2)
    return out


def candidates(src, cfg):
    out = []
    for root in ROOTS:
        for d, _, names in os.walk(os.path.join(src, root)):
            if "Makefile" not in names and "Kbuild" not in names:
                continue
            try:
                mods = kbuild_mod.modules_of_dir(d, recurse=False)
            except (OSError, ValueError):
                continue
            for m in mods:
                if m.makefile is None or not getattr(m, "objs", None) or m.missing:
                    continue
                c = kbuild_mod.OBJ_CONFIG.get((m.makefile, m.name + ".o"), "")
                v = re.fullmatch(r"\$\((CONFIG_\w+)\)", c)
                if not (c == "m" or (v and cfg.get(v.group(1)) == "m")):
                    continue
                rel = os.path.relpath(m.files[0], src)
                if any(o in rel for o in OURS):
                    continue
                text = ""
                for f in m.files:
                    with open(f, errors="replace") as fh:
                        text += fh.read()
                if re.search(r"\btimer_setup\s*\(", text) and len(m.files) <= 40:
                    out.append(m)
    return out


def subsystem(src, m):
    return "/".join(os.path.relpath(m.dir, src).split("/")[:2])


def pick(src, cands, n, seed):
    rnd = random.Random(seed)
    by = {}
    for m in sorted(cands, key=lambda m: (m.dir, m.name)):
        by.setdefault(subsystem(src, m), []).append(m)
    for v in by.values():
        rnd.shuffle(v)
    subs = sorted(by)
    rnd.shuffle(subs)
    out = []
    while len(out) < n and any(by.values()):
        for s in subs:
            if by[s] and len(out) < n:
                out.append(by[s].pop())
    return out


def copy_module(src, m, work):
    d = os.path.join(work, m.name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for f in m.files:
        rel = os.path.relpath(f, m.dir)
        if rel.startswith(".."):
            continue            # a header of another directory: found through -I
        os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
        shutil.copy(f, os.path.join(d, rel))
    objs = " ".join(o for o in m.objs if os.path.exists(os.path.join(d, o[:-2] + ".c")))
    with open(os.path.join(d, "Kbuild"), "w") as k:
        k.write("obj-m += %s.o\n" % m.name)
        if objs != m.name + ".o":
            k.write("%s-y := %s\n" % (m.name, objs))
        k.write("ccflags-y += -I$(src) -I%s -I%s/include\n" % (m.dir, TOP))
    return d


def build(d):
    p = subprocess.run(["nice", "-n", "19", "make", "-k", "-C", KDIR, "M=" + d, "KBUILD_MODPOST_WARN=1",
                        "modules"], capture_output=True, text=True, timeout=1200)
    errs = sorted(set(re.findall(r"^(\S+?\.[ch]):(\d+):\d+: error:", p.stdout + p.stderr, re.M)))
    return p.returncode == 0, errs


def converted(d):
    """Timers converted: si_timer and si_hrtimer setups in the module's files."""
    n = 0
    for dd, _, names in os.walk(d):
        for f in names:
            if f.endswith((".c", ".h")) and not f.endswith(".mod.c"):
                with open(os.path.join(dd, f), errors="replace") as fh:
                    n += len(re.findall(r"\b(?:si_timer_setup(?:_on_stack)?|si_hrtimer_setup(?:_on_stack)?|"
                                        r"DEFINE_SI_TIMER)\s*\(", fh.read()))
    return n


def run_one(src, m, work):
    t0 = time.time()
    d = copy_module(src, m, work)
    row = {"module": m.name, "dir": os.path.relpath(m.dir, src), "files": len(m.files)}
    ok, _ = build(d)
    if not ok:
        row["result"] = "does not build out of tree as copied"
        row["seconds"] = time.time() - t0
        return row
    for f in os.listdir(d):
        if f.endswith((".o", ".ko", ".mod", ".mod.c", ".cmd", ".order", ".symvers")):
            os.remove(os.path.join(d, f))
    first = os.path.join(d, os.path.relpath(m.files[0], m.dir))
    a = subprocess.run(["nice", "-n", "19", sys.executable, os.path.join(HERE, "si-timer-audit.py"),
                        "--format=tsv", first], capture_output=True, text=True, timeout=1200)
    verdicts = [line.split("\t")[2] for line in a.stdout.splitlines() if line.count("\t") >= 4]
    row["verdicts"] = {v: verdicts.count(v) for v in sorted(set(verdicts))}
    g = subprocess.run(["nice", "-n", "19", "bash", os.path.join(HERE, "si-migrate.sh"), first],
                       capture_output=True, text=True, timeout=3600, env=dict(os.environ, KDIR=KDIR))
    listed = set(re.findall(r"^(\S+?):(\d+): ", g.stderr, re.M))
    listed = set((os.path.basename(f), n) for f, n in listed)
    ok, errs = build(d)
    unlisted = [e for e in errs if (os.path.basename(e[0]), e[1]) not in listed]
    row["listed"] = len(listed)
    row["converted"] = converted(d)
    if g.returncode:
        row["result"] = "si-migrate.sh failed"
    elif ok:
        row["result"] = "builds untouched"
    elif not unlisted:
        row["result"] = "every error line listed (%d)" % len(errs)
    else:
        row["result"] = "unlisted errors: %s" % ", ".join("%s:%s" % (os.path.basename(f), n)
                                                       for f, n in unlisted[:4])
    row["seconds"] = time.time() - t0
    return row


def table(rows, total, seed, ran_out):
    built = [r for r in rows if r["result"] != "does not build out of tree as copied"]
    n = {k: sum(r["result"].startswith(k) for r in built)
         for k in ("builds untouched", "every error", "unlisted", "si-migrate.sh failed")}
    vc = {}
    for r in built:
        for v, c in r.get("verdicts", {}).items():
            vc[v] = vc.get(v, 0) + c
    out = [BEGIN, "",
           "`make kit-corpus` (seed %d): %d of %d sampled modules run%s; %d build out of tree as "
           "copied. Of those: %d build untouched after `make migrate`, %d with every error line on "
           "the kit's list, %d with an unlisted error, %d where si-migrate.sh failed. Verdicts: %s."
           % (seed, len(rows), total, " (the time budget ran out)" if ran_out else "", len(built),
              n["builds untouched"], n["every error"], n["unlisted"], n["si-migrate.sh failed"],
              ", ".join("%s %d" % kv for kv in sorted(vc.items())) or "none"),
           "", "| module | directory | files | verdicts | timer setups converted | result | seconds |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | `%s` | %d | %s | %s | %s | %.0f |" % (
            r["module"], r["dir"], r["files"],
            ", ".join("%s %d" % kv for kv in sorted(r.get("verdicts", {}).items())) or "-",
            r.get("converted", "-"), r["result"], r["seconds"]))
    out += ["", END]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=os.path.join(TOP, "build", "kit-corpus", "src"))
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--budget", type=float, default=0)
    ap.add_argument("--doc", default=os.path.join(TOP, "Documentation", "migration.md"))
    args = ap.parse_args()
    src = os.path.abspath(args.src)
    if not os.path.isdir(os.path.join(src, "drivers")):
        os.makedirs(src, exist_ok=True)
        subprocess.run(["nice", "-n", "19", "tar", "-xJf", TARBALL, "-C", src, "--strip-components=1"]
                       + ["--wildcards"] + ["*/%s/*" % r for r in ROOTS], check=True)
    cands = candidates(src, config())
    sample = pick(src, cands, args.count, args.seed)
    subs = sorted(set(subsystem(src, m) for m in sample))
    print("kit-corpus: %d candidates, %d sampled in %d subsystems" % (len(cands), len(sample), len(subs)),
          flush=True)
    work = os.path.join(TOP, "build", "kit-corpus", "work")
    rows, t0, ran_out = [], time.time(), False
    for m in sample:
        if args.budget and time.time() - t0 > args.budget:
            ran_out = True
            break
        r = run_one(src, m, work)
        rows.append(r)
        print("%-24s %-40s %s (%.0f s)" % (r["module"], r["dir"], r["result"], r["seconds"]), flush=True)
    t = table(rows, len(sample), args.seed, ran_out)
    with open(args.doc) as f:
        doc = f.read()
    if BEGIN in doc:
        doc = doc[:doc.index(BEGIN)] + t + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + "\n\n## The kit on a sample of linux-source-6.12 (make kit-corpus)\n\n" + t + "\n"
    with open(args.doc, "w") as f:
        f.write(doc)
    print(t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
