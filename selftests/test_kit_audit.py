# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of scripts/si-timer-audit.py (make check-host): the
verdicts of samples/audit/ and samples/migrate/, each written to have one,
and the evidence that must come with them (DOC-kit.md)."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AUDIT = os.path.join(TOP, "scripts", "si-timer-audit.py")
KDIRS = sorted(glob.glob("/usr/src/linux-headers-6.12*-amd64"))
KDIR = os.environ.get("KDIR") or (KDIRS[-1] if KDIRS else "")

# file -> {callback: (verdict, regex the reason or the evidence must match)}
EXPECT = {
    "samples/audit/aud_proto_rx.c": {
        "aud_proto_timer_fn": ("needs_bh", r"packet receive handler.*aud_proto_rcv\(\)"),
    },
    "samples/audit/aud_qdisc.c": {
        "aud_qdisc_adapt_fn": ("needs_bh", r"root_lock \(<qdisc root lock>\).*NET_TX softirq"),
        "aud_qdisc_perturb_fn": ("needs_bh", r"root_lock \(<qdisc root lock>\).*NET_TX softirq"),
    },
    "samples/audit/aud_helper.c": {
        "aud_helper_param_fn": ("needs_bh", r"takes l \(&r->ring_lock\) at aud_helper.c:\d+ "
                                            r"\(in aud_take\(\)\).*NAPI poll"),
        "aud_helper_getter_fn": ("needs_bh", r"aud_ring_lockp\(r\) \(&r->ring_lock\).*NAPI poll"),
        "aud_helper_bh_fn": ("safe", r"spin_lock_bh\(\) at aud_helper.c:\d+"),
        "aud_helper_stats_fn": ("safe", r"stats_lock shared with timer callbacks"),
    },
    "samples/audit/aud_preproc.c": {
        "aud_pre_macro_fn": ("needs_bh", r"tasklet.*aud_pre_tasklet_fn"),
        "aud_pre_ifdef_fn": ("needs_bh", r"tasklet.*aud_pre_tasklet_fn"),
    },
    "samples/audit/aud_function_assign.c": {
        "aud_fa_xmit_fn": ("needs_bh", r"ndo_start_xmit.*aud_fa_start_xmit\(\)"),
        "aud_fa_gen_fn": ("review", r"not parsed: no definition of aud_fa_gen_fn\(\)"),
    },
    "samples/audit/aud_percpu.c": {
        "aud_pcpu_stats_fn": ("keep_compatible", r"this_cpu_ptr\(dev->stats\).*NAPI poll.*"
                                                 r"this_cpu_ptr\(priv->stats\)"),
        "aud_pcpu_own_fn": ("safe", r"takes no lock"),
    },
    "samples/audit/aud_cancel.c": {
        "aud_cancel_fn": ("review", r"del_timer_sync\(&req->timer\) at aud_cancel.c:\d+ in "
                                    r"aud_cancel_poll\(\) \(softirq code: NAPI poll.*-EDEADLK"),
        "aud_cancel_flush_fn": ("safe", r"takes no lock"),
    },
    "samples/audit/aud_contexts.c": {
        "aud_ctx_urb_fn": ("needs_bh", r"USB completion.*aud_ctx_urb_complete"),
        "aud_ctx_rcu_fn": ("needs_bh", r"RCU callback.*aud_ctx_rcu_cb"),
        "aud_ctx_bhwq_fn": ("needs_bh", r"BH workqueue.*aud_ctx_bh_work_fn"),
        "aud_ctx_blk_fn": ("needs_bh", r"block completion.*aud_ctx_blk_complete"),
        "aud_ctx_hrt_fn": ("safe", r"hrt_lock shared with timer callbacks"),
        "aud_ctx_work_timer_fn": ("safe", r"work_lock shared with timer callbacks or process"),
        "aud_ctx_unk_fn": ("review", r"aud_ctx_notify\(\).*possibly softirq"),
    },
    # The migration samples: the audit's verdicts on the timer_list originals.
    "samples/migrate": {
        "mig_timer_fn": ("needs_bh", r"tasklet.*mig_tasklet_fn"),
        "mig_static_fn": ("safe", r"takes no lock"),
        "mig_onstack_fn": ("keep_compatible", r"in_serving_softirq"),
        "mig_queue_fn": ("keep_compatible", r"this_cpu_inc\(mig_packets\).*mig_poll"),
    },
}


def run(*args):
    p = subprocess.run([sys.executable, AUDIT] + list(args), cwd=TOP,
                       capture_output=True, text=True, timeout=300)
    if p.returncode:
        raise AssertionError("si-timer-audit.py %s: exit %d: %s" % (args, p.returncode, p.stderr))
    return p.stdout


class AuditVerdicts(unittest.TestCase):
    def check(self, path):
        want = EXPECT[path]
        tsv = run("--format=tsv", path)
        text = run(path)
        got = {}
        for line in tsv.splitlines():
            f = line.split("\t")
            self.assertEqual(len(f), 5, "tsv line: %r" % line)
            got[f[1]] = (f[2], f[4])
        # Every callback reported, none dropped, none invented.
        self.assertEqual(sorted(got), sorted(want), "callbacks of %s" % path)
        blocks = {}
        for m in re.finditer(r"^(\w+)\(\) at \S+ \[[^]]*\]: (\w+)\n((?:    .*\n)*)", text, re.M):
            blocks[m.group(1)] = (m.group(2), m.group(3))
        for cb, (verdict, rx) in want.items():
            self.assertEqual(got[cb][0], verdict, "%s: %s (%s)" % (path, cb, got[cb][1]))
            self.assertEqual(blocks[cb][0], verdict, "text and tsv disagree on %s" % cb)
            self.assertRegex(blocks[cb][1], rx, "%s: evidence of %s" % (path, cb))
        # A verdict other than safe says why in the tsv; safe says what it saw.
        for cb, (verdict, why) in got.items():
            self.assertTrue(why.strip(), "%s: no reason for %s" % (path, cb))

    def test_proto_rx(self):
        self.check("samples/audit/aud_proto_rx.c")

    def test_qdisc_root_lock_through_local_pointer(self):
        self.check("samples/audit/aud_qdisc.c")

    def test_locks_through_helpers(self):
        self.check("samples/audit/aud_helper.c")

    def test_define_and_ifdef_braces_before_callbacks(self):
        self.check("samples/audit/aud_preproc.c")

    def test_function_assignment_and_unparsed(self):
        self.check("samples/audit/aud_function_assign.c")

    def test_percpu_keyed_by_pointer(self):
        self.check("samples/audit/aud_percpu.c")

    def test_cancel_sites(self):
        self.check("samples/audit/aud_cancel.c")

    def test_softirq_contexts(self):
        self.check("samples/audit/aud_contexts.c")

    def test_migrate_samples(self):
        self.check("samples/migrate")

    def test_evidence_lines(self):
        """Every 'name() at FILE:LINE' names what is on that line."""
        n = 0
        for path in EXPECT:
            text = run(path)
            d = path if os.path.isdir(os.path.join(TOP, path)) else os.path.dirname(path)
            for m in re.finditer(r"\b(\w+)\(\) (?:takes \S+(?: \([^)]*\))? )?at (\w+\.c):(\d+)", text):
                what, f, line = m.group(1), m.group(2), int(m.group(3))
                with open(os.path.join(TOP, d, f)) as fh:
                    src = fh.read().split("\n")[line - 1]
                self.assertIn(what, src, "%s names %s at %s:%d: %r" % (path, what, f, line, src))
                n += 1
        self.assertGreater(n, 30)

    def test_safe_says_why(self):
        """'safe' is never printed without the positive evidence."""
        for path in EXPECT:
            for m in re.finditer(r": safe\n    (\S+)\s+(.*)", run(path)):
                self.assertEqual(m.group(1), "safe")
                self.assertRegex(m.group(2), r"takes no lock|every lock taken with")
            self.assertNotIn("no evidence found", run(path))


@unittest.skipUnless(KDIR, "no 6.12 kernel headers installed: samples/audit not built")
class AuditSamplesBuild(unittest.TestCase):
    def test_samples_build(self):
        """The samples are drivers a compiler accepts (W=1, no warning),
        not text written for the audit's reader."""
        with tempfile.TemporaryDirectory(prefix="si-kit-") as d:
            for f in glob.glob(os.path.join(TOP, "samples", "audit", "*.c")):
                shutil.copy(f, d)
            objs = " ".join(sorted(n[:-2] + ".o" for n in os.listdir(d) if n.endswith(".c")))
            with open(os.path.join(d, "Kbuild"), "w") as k:
                k.write("obj-m := %s\n" % objs)
            p = subprocess.run(["make", "-C", KDIR, "M=" + d, "W=1", "modules"],
                               capture_output=True, text=True, timeout=900)
            self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
            self.assertNotIn("warning:", p.stderr)


if __name__ == "__main__":
    unittest.main()
