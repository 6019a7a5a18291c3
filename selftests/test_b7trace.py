# SPDX-License-Identifier: GPL-2.0
"""bench/b7trace.py's phases of an expiry, on a hand-made trace whose
times are known: a soft-interruptible expiry after a late interrupt, and a
compatible one that blocked on the flood's BH lock."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import b7trace  # noqa: E402

F = " si_bench_flood/-196     [003] D.h.2    "
X = "      si_timer/3-193     [003] ....1    "
TRACE = """\
# tracer: nop
          <idle>-0       [003] d..2.    10.000000: sched_switch: prev_comm=swapper/3 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=si_bench_flood/ next_pid=196 next_prio=49
          insmod-194     [000] d..1.    10.000100: si_timer_start: timer=0000000011 function=bench_si_fn [si_timer_bench] expires=100 [timeout=2] cpu=3
{F}10.000200: hrtimer_start: hrtimer=00000000aa function=si_executor_wake_fn [si_timer] expires=10012001000 softexpires=10012001000 mode=ABS|PINNED|HARD was_armed=0
{F}10.008100: hrtimer_start: hrtimer=00000000bb function=tick_nohz_handler expires=10012000000 softexpires=10012000000 mode=ABS was_armed=0
{F}10.012500: hrtimer_expire_entry: hrtimer=00000000bb function=tick_nohz_handler now=10012500000
{F}10.012510: hrtimer_expire_entry: hrtimer=00000000aa function=si_executor_wake_fn [si_timer] now=10012510000
{F}10.012530: sched_wakeup: comm=si_timer/3 pid=193 prio=39 target_cpu=003
{F}10.012600: sched_switch: prev_comm=si_bench_flood/ prev_pid=196 prev_prio=49 prev_state=R+ ==> next_comm=si_timer/3 next_pid=193 next_prio=39
{X}10.012650: si_timer_expire_entry: timer=0000000011 function=bench_si_fn [si_timer_bench] expires=100 now=101 mode=soft-interruptible
{X}10.012700: sched_switch: prev_comm=si_timer/3 prev_pid=193 prev_prio=39 prev_state=S ==> next_comm=si_bench_flood/ next_pid=196 next_prio=49
          insmod-194     [000] d..1.    10.020000: si_timer_start: timer=0000000011 function=bench_si_fn [si_timer_bench] expires=104 [timeout=2] cpu=3
{F}10.020100: hrtimer_start: hrtimer=00000000aa function=si_executor_wake_fn [si_timer] expires=10028001000 softexpires=10028001000 mode=ABS|PINNED|HARD was_armed=0
{F}10.028100: hrtimer_expire_entry: hrtimer=00000000aa function=si_executor_wake_fn [si_timer] now=10028100000
{F}10.028110: sched_wakeup: comm=si_timer/3 pid=193 prio=39 target_cpu=003
{F}10.028150: sched_switch: prev_comm=si_bench_flood/ prev_pid=196 prev_prio=49 prev_state=R+ ==> next_comm=si_timer/3 next_pid=193 next_prio=39
{X}10.028155: sched_pi_setprio: comm=si_bench_flood/ pid=196 oldprio=49 newprio=39
{X}10.028160: sched_switch: prev_comm=si_timer/3 prev_pid=193 prev_prio=39 prev_state=D ==> next_comm=si_bench_flood/ next_pid=196 next_prio=39
{F}10.030160: sched_switch: prev_comm=si_bench_flood/ prev_pid=196 prev_prio=39 prev_state=R+ ==> next_comm=si_timer/3 next_pid=193 next_prio=39
{X}10.030200: si_timer_expire_entry: timer=0000000011 function=bench_si_fn [si_timer_bench] expires=104 now=105 mode=compatible
""".format(F=F, X=X)


class B7Trace(unittest.TestCase):
    def setUp(self):
        fd, self.path = tempfile.mkstemp()
        with os.fdopen(fd, "w") as f:
            f.write(TRACE)
        self.evs = b7trace.parse(self.path)

    def tearDown(self):
        os.unlink(self.path)

    def test_phases(self):
        flood, xs = b7trace.expiries(self.evs)
        self.assertEqual(flood, 3)
        self.assertEqual(len(xs), 2)
        soft, compat = xs
        self.assertEqual(soft["mode"], "soft-interruptible")
        self.assertEqual([soft[p] for p in b7trace.PHASES], [510, 20, 70, 50, 650])
        self.assertEqual(soft["blocked"], 0)
        self.assertEqual(compat["mode"], "compatible")
        self.assertEqual([compat[p] for p in b7trace.PHASES], [100, 10, 40, 2050, 2200])
        self.assertEqual(compat["blocked"], 2000)
        self.assertEqual(compat["boost"], ["si_bench_flood/"])

    def test_interrupt_lateness(self):
        late = b7trace.irq_lateness(self.evs, 3)
        self.assertEqual(late, {"flood running": [500], "idle": [], "other task": []})

    def test_report(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            b7trace.report(self.evs, 1000, 2)
        text = out.getvalue()
        self.assertIn("compatible: 1 expiries", text)
        self.assertIn("over 1000 us: 1; their longest phase: run_callback 1", text)
        self.assertIn("blocked before the callback: 1 (boosted: si_bench_flood/)", text)


if __name__ == "__main__":
    unittest.main()
