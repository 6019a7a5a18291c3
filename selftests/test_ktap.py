#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side unit tests of the console parser (ktap.py): `make check-host`."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import END_MARKER, Console, Unsplicer, timeout_factor  # noqa: E402


def doc(name, *results, expect=()):
    """Lines of one KTAP document; @expect: SI_EXPECT_WARN texts first."""
    lines = ["KTAP version 1", "# Subtest: " + name, "1..%d" % len(results)]
    lines += ["# SI_EXPECT_WARN " + e for e in expect]
    return lines + ["%s %d %s" % (r, i + 1, "t%d" % (i + 1)) for i, r in enumerate(results)]


def warn(text):
    return ["------------[ cut here ]------------",
            "WARNING: CPU: 1 PID: 42 at module/timer.c:10 f+0x1/0x2",
            text, "---[ end trace 0000000000000000 ]---"]


def parse(lines, expect_docs=()):
    con = Console(expect_docs)
    res = [r for l in lines for r in con.feed("[    1.000000] " + l)]
    return res + con.finish()


def fails(res):
    return [(r.name, r.reason) for r in res if r.status == "fail"]


class ExpectedWarn(unittest.TestCase):
    def test_met_in_its_module(self):
        res = parse(doc("a", "ok", expect=["oops text"]) + warn("oops text")
                    + ["# SI_EXPECT_END a", END_MARKER])
        self.assertEqual(fails(res), [])
        self.assertEqual([r.status for r in res], ["ok", "info"])

    def test_each_announce_allows_one_splat(self):
        res = parse(doc("a", "ok", expect=["x"]) + warn("x") + warn("x") + [END_MARKER])
        self.assertEqual(len(fails(res)), 1)
        self.assertEqual(fails(res)[0][0], "console")

    def test_not_met_before_module_end(self):
        res = parse(doc("a", "ok", expect=["late"]) + ["# SI_EXPECT_END a"]
                    + warn("late") + [END_MARKER])
        self.assertEqual(sorted(n for n, _ in fails(res)), ["a", "console"])

    def test_not_carried_to_next_module(self):
        res = parse(doc("a", "ok", expect=["x"]) + doc("b", "ok") + warn("x") + [END_MARKER])
        self.assertEqual(sorted(n for n, _ in fails(res)), ["a", "console"])
        self.assertIn("never appeared", dict(fails(res))["a"])

    def test_unmet_at_end_of_boot(self):
        res = parse(doc("a", "ok", expect=["x"]) + [END_MARKER])
        self.assertEqual([n for n, _ in fails(res)], ["a"])

    def test_lockdep_title(self):
        title = "WARNING: possible circular locking dependency detected"
        res = parse(doc("l", "ok", expect=["possible circular locking dependency detected"])
                    + [title, "# SI_EXPECT_END l", END_MARKER])
        self.assertEqual(fails(res), [])


class Documents(unittest.TestCase):
    def test_results(self):
        res = parse(doc("a", "ok", "not ok") + ["ok 3 t3 # SKIP why"] + [END_MARKER])
        self.assertEqual([r.status for r in res], ["ok", "fail", "skip", "fail"])
        self.assertIn("3 results for plan 1..2", res[-1].reason)

    def test_missing_document_and_end_marker(self):
        res = parse(doc("a", "ok") + [END_MARKER], expect_docs=["a", "b"])
        self.assertEqual(fails(res), [("b", "no KTAP document from b")])
        res = parse(doc("a", "ok"))
        self.assertEqual([n for n, _ in fails(res)], ["boot"])


class KernelMessageCutIn(unittest.TestCase):
    # kcsan-rt, 2026-12-07: a KCSAN report's closing line written into a line
    # init.sh printed; unsplit, the report never closed and swallowed the end
    # marker ("qemu exited ... before SI_TIMER_HARNESS_DONE").
    REPORT = ["[  267.500000] " + "=" * 66,
              "[  267.500001] BUG: KCSAN: data-race in a / b",
              "[  267.500002] read to 0xffff of 8 bytes by task 36 on cpu 2:",
              "[  267.500003]  a+0x1/0x2",
              "[  267.527719] Tainted: [O]=OOT_MODULE"]

    def test_report_closes_and_the_run_ends(self):
        con = Console(["a"])
        lines = ["[    1.000000] " + l for l in doc("a", "ok")] + self.REPORT
        lines += ["SI_BENCH_B9 si n[  267.527785] " + "=" * 66, "0_unload_us 627473",
                  "[  290.361808] " + END_MARKER]
        res = [r for l in lines for r in con.feed(l)] + con.finish()
        self.assertEqual(fails(res), [])
        self.assertTrue(con.done)
        self.assertEqual([r.name for r in res if r.status == "info"], ["KCSAN", "KCSAN"])

    def test_unsplicer(self):
        u = Unsplicer()
        self.assertEqual(u.feed("SI_BENCH x n[  1.000000] kernel"), ["[  1.000000] kernel"])
        self.assertEqual(u.feed("0_y 5"), ["SI_BENCH x n0_y 5"])
        # the piece was the whole line when a kernel line comes next
        self.assertEqual(u.feed("whole[  2.000000] k1"), ["[  2.000000] k1"])
        self.assertEqual(u.feed("[  2.000001] k2"), ["whole", "[  2.000001] k2"])
        # kernel lines, and lines with nothing before the timestamp, as they are
        self.assertEqual(u.feed("[  3.000000] a [  3.000001] b"), ["[  3.000000] a [  3.000001] b"])
        self.assertEqual(u.feed("  [  4.000000] c"), ["  [  4.000000] c"])
        self.assertEqual(u.feed("tail[  5.000000] d"), ["[  5.000000] d"])
        self.assertEqual(u.flush(), ["tail"])
        self.assertEqual(u.flush(), [])


class UnloadReport(unittest.TestCase):
    LINE = ("si_timer: module %s unloaded with a timer armed: callback f [%s],"
            " armed at g+0x1/0x2 [%s]; cancelled")

    def test_from_a_module_is_a_failure(self):
        res = parse(doc("a", "ok") + [self.LINE % ("foo", "foo", "foo"), END_MARKER])
        self.assertEqual([n for n, _ in fails(res)], ["console"])

    def test_from_a_sloppy_test_module_is_not(self):
        m = "si_unload_sloppy"
        res = parse(doc(m, "ok") + [self.LINE % (m, m, m),
                                    "si_timer: module %s unloaded with 1 timer pending or running" % m,
                                    END_MARKER])
        self.assertEqual(fails(res), [])



class Arm64Reports(unittest.TestCase):
    """arm64's die() and fault reports fail a boot as x86's oopses do."""

    def test_fault_and_die(self):
        for lines in (["Unable to handle kernel paging request at virtual address dead000000000108",
                       "Internal error: Oops: 0000000096000044 [#1] PREEMPT_RT SMP"],
                      ["Internal error: Oops - BTI: 0000000034000002 [#1] PREEMPT_RT SMP"],
                      ["Internal error: ptrauth failure: 0000000072000000 [#1] SMP"],
                      ["SError Interrupt on CPU1, code 0x00000000be000000 -- SError"]):
            res = parse(doc("a", "ok") + lines + [END_MARKER])
            self.assertTrue(fails(res), lines)
            self.assertEqual({n for n, _ in fails(res)}, {"console"})

    def test_timeout_factor_from_boot_env(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(timeout_factor(d), 1)      # not prepared
            with open(os.path.join(d, "boot.env"), "w") as f:
                f.write("KVER=6.12.118+deb12-rt-arm64\nSI_ARCH=arm64\nSI_TIMEOUT_FACTOR=2\n")
            self.assertEqual(timeout_factor(d), 2)

    def test_clean_arm64_boot_lines(self):
        res = parse(doc("a", "ok") + ["GICv3: 224 SPIs implemented",
                                      "arch_timer: cp15 timer(s) running at 62.50MHz (virt).",
                                      "CPU features: detected: Address authentication (IMP DEF algorithm)",
                                      END_MARKER])
        self.assertEqual(fails(res), [])


if __name__ == "__main__":
    unittest.main()
