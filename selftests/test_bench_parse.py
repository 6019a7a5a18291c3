# SPDX-License-Identifier: GPL-2.0
"""bench/bench.py's reading of the SI_BENCH lines of a console log: whole
lines, and a line that a kernel message cut into on the console."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import bench  # noqa: E402


class TestBenchParse(unittest.TestCase):
    def test_whole_lines(self):
        r = bench.Results()
        r.feed("[   12.000001] SI_BENCH B1 bh_p99_us si=1026 classic=19696")
        r.feed("SI_BENCH_B9 si n10k_unload_us 17391")
        self.assertEqual(r.lines[("B1", "bh_p99_us")], {"si": 1026, "classic": 19696})
        self.assertEqual(r.lines[("B9", "n10k_unload_us")], {"si": 17391})
        self.assertEqual(r.malformed, [])

    def test_kernel_message_cut_in(self):
        r = bench.Results()
        r.feed("SI_BENCH_B9 si n10k_unload_us 17391[  275.034715] si_timer: vecmask: "
               "hooks removed; TIMER deferred 1 times, HRTIMER 1\n")
        r.feed("[  275.034900] si_timer: unloaded\n")
        self.assertEqual(r.lines[("B9", "n10k_unload_us")], {"si": 17391})
        self.assertEqual(r.malformed, [])

    def test_kernel_message_cut_in_mid_token(self):
        # kcsan-rt, 2026-12-07: the rest of the user's line came after the kernel's
        r = bench.Results()
        r.feed("SI_BENCH_B9 si n[  267.527785] " + "=" * 66 + "\n")
        r.feed("0_unload_us 627473\n")
        self.assertEqual(r.lines[("B9", "n0_unload_us")], {"si": 627473})
        self.assertEqual(r.malformed, [])

    def test_piece_at_the_end_flushed(self):
        r = bench.Results()
        r.feed("SI_BENCH_B9 si n0_unload_us 5[  1.000000] reboot: Power down\n")
        r.flush()
        self.assertEqual(r.lines[("B9", "n0_unload_us")], {"si": 5})

    def test_still_malformed(self):
        r = bench.Results()
        r.feed("SI_BENCH_B9 si n10k_unload_us 17x91")
        r.feed("SI_BENCH B1 bh_p99_us si=")
        self.assertEqual(len(r.malformed), 2)


if __name__ == "__main__":
    unittest.main()
