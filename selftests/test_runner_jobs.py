# SPDX-License-Identifier: GPL-2.0
"""make check --jobs: which kernels must run in order in one worker, and
that results reported from several threads add up (selftests/runner.py)."""
import io
import os
import sys
import threading
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import Result  # noqa: E402
import runner  # noqa: E402


class GroupsOf(unittest.TestCase):
    def test_variants_follow_their_kernel(self):
        got = runner.groups_of(["kasan", "kcsan-rt", "kasan-lockdep-softirq", "kasan-lockdep-bh",
                                "kcsan-rt-lockdep-bh", "dkms", "6.1-rt", "6.12-rt",
                                "6.12-rt-mttcg", "7.x-rt", "6.1", "6.1-full", "7.x"])
        self.assertEqual(got, [["kasan", "kasan-lockdep-softirq", "kasan-lockdep-bh"],
                               ["kcsan-rt", "kcsan-rt-lockdep-bh"], ["dkms"], ["6.1-rt"],
                               ["6.12-rt", "6.12-rt-mttcg"], ["7.x-rt"], ["6.1", "6.1-full"],
                               ["7.x"]])

    def test_7x_rt_is_not_a_variant_of_7x(self):
        self.assertEqual(runner.groups_of(["7.x", "7.x-rt"]), [["7.x"], ["7.x-rt"]])


class TallyThreads(unittest.TestCase):
    def test_counts_per_kernel_and_total(self):
        tally = runner.Tally()

        def report(kernel, n):
            for i in range(n):
                tally.report(kernel, Result("ok" if i % 3 else "fail", "doc", "t%d" % i, []))

        with redirect_stdout(io.StringIO()):
            threads = [threading.Thread(target=report, args=(k, 300)) for k in ("a", "b")]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        self.assertEqual(tally.of("a"), {"ok": 200, "fail": 100, "skip": 0})
        self.assertEqual(tally.of("b"), {"ok": 200, "fail": 100, "skip": 0})
        self.assertEqual(tally.counts, {"ok": 400, "fail": 200, "skip": 0})


class HarnessError(unittest.TestCase):
    def test_a_crashing_kernel_fails_the_run(self):
        def run_one(kernel, args, tally):
            if kernel == "a":
                raise OSError("no tests.list")
            tally.report(kernel, Result("ok", "doc", "t", []))
            return kernel + " ok"

        saved, argv = runner.run_one, sys.argv
        runner.run_one, sys.argv = run_one, ["runner.py", "--jobs", "2", "a", "b"]
        try:
            out = io.StringIO()
            with redirect_stdout(out):
                rc = runner.main()
        finally:
            runner.run_one, sys.argv = saved, argv
        self.assertEqual(rc, 1)
        self.assertIn("FAIL  a        harness: OSError: no tests.list", out.getvalue())
        self.assertIn("1 passed, 1 failed, 0 skipped", out.getvalue())


class FailureRecap(unittest.TestCase):
    def test_failures_repeated_with_their_last_diagnostics(self):
        tally = runner.Tally()
        out = io.StringIO()
        with redirect_stdout(out):
            tally.report("6.1", Result("ok", "doc: a", "", []))
            tally.report("kcsan-rt", Result("fail", "torture: interleave", "",
                                            ["d%d" % i for i in range(10)]))
            tally.report("6.1", Result("fail", "console", "BUG: x", []))
            mark = len(out.getvalue())
            tally.recap()
        recap = out.getvalue()[mark:].splitlines()
        self.assertEqual(recap[1], "Failures:")
        self.assertIn("FAIL  kcsan-rt torture: interleave", recap[2])
        self.assertEqual([l.strip() for l in recap[3:9]], ["# d%d" % i for i in range(4, 10)])
        self.assertIn("FAIL  6.1      console: BUG: x", recap[9])
        self.assertEqual(len(recap), 10)

    def test_nothing_when_all_passed(self):
        tally = runner.Tally()
        out = io.StringIO()
        with redirect_stdout(out):
            tally.report("6.1", Result("ok", "doc: a", "", []))
            mark = len(out.getvalue())
            tally.recap()
        self.assertEqual(out.getvalue()[mark:], "")


if __name__ == "__main__":
    unittest.main()
