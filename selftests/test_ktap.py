#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side unit tests of the console parser (ktap.py): `make check-host`."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ktap import END_MARKER, Console  # noqa: E402


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


if __name__ == "__main__":
    unittest.main()
