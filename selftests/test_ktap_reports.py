#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of the console parser (selftests/ktap.py): which kernel
reports fail a run, which are only listed. Run by `make check-host`.

The sample reports keep the kernels' layout (6.12: kernel/kcsan/report.c,
mm/kasan/report.c, kernel/locking/lockdep.c, lib/debugobjects.c) with
printk timestamps, as they reach the serial console.
"""
import os
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

BOOT = """\
[    0.000000] Linux version 6.12.57 (root@host) #1 SMP PREEMPT_RT
[    1.836373] kcsan: enabled early
[    1.836536] kcsan: non-strict mode configured - use CONFIG_KCSAN_STRICT=y to see all data races
[    3.396143] kcsan: selftest: 3/3 tests passed
[    2.100000] Run /init as init process
"""

# One passing KTAP document; a report is placed in the middle of it.
DOC_HEAD = """\
[    5.000000] KTAP version 1
[    5.000001] # Subtest: si_timer_smoke
[    5.000002] 1..2
[    5.000003] ok 1 fires
"""
DOC_TAIL = """\
[    9.000000] ok 2 invalid_flags
[    9.100000] SI_TIMER_HARNESS_DONE
"""

KCSAN_KERNEL = """\
[    6.100000] ==================================================================
[    6.100001] BUG: KCSAN: data-race in tick_nohz_next_event / tick_nohz_stop_tick

[    6.100003] write to 0xffffffff8a2c1e48 of 8 bytes by task 0 on cpu 1:
[    6.100004]  tick_nohz_stop_tick+0x1a6/0x2f0
[    6.100005]  tick_nohz_idle_stop_tick+0xc3/0x150
[    6.100006]  do_idle+0x11e/0x170
[    6.100007]  cpu_startup_entry+0x25/0x30
[    6.100008]  start_secondary+0x10c/0x120
[    6.100009]  common_startup_64+0x13e/0x141

[    6.100010] read to 0xffffffff8a2c1e48 of 8 bytes by task 0 on cpu 0:
[    6.100011]  tick_nohz_next_event+0x3b/0x1d0
[    6.100012]  tick_nohz_get_sleep_length+0xb7/0x110
[    6.100013]  do_idle+0xf2/0x170
[    6.100014]  cpu_startup_entry+0x25/0x30
[    6.100015]  rest_init+0x10b/0x110

[    6.100016] value changed: 0x00000000fffe9b30 -> 0x00000000fffe9b34

[    6.100017] Reported by Kernel Concurrency Sanitizer on:
[    6.100018] CPU: 0 UID: 0 PID: 0 Comm: swapper/0 Not tainted 6.12.57 #1
[    6.100019] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[    6.100020] ==================================================================
"""

# A race between si_timer's executor and a test module's callback.
KCSAN_OURS = """\
[    7.200000] ==================================================================
[    7.200001] BUG: KCSAN: data-race in si_executor_run [si_timer] / si_smoke_cb [si_timer_smoke]

[    7.200003] write to 0xffff88800a4c1230 of 4 bytes by task 85 on cpu 2:
[    7.200004]  si_smoke_cb+0x21/0x40 [si_timer_smoke]
[    7.200005]  si_executor_run+0x2a1/0x4c0 [si_timer]
[    7.200006]  si_executor_thread+0x93/0x120 [si_timer]
[    7.200007]  kthread+0x1a5/0x1d0
[    7.200008]  ret_from_fork+0x34/0x50
[    7.200009]  ret_from_fork_asm+0x1a/0x30

[    7.200010] read to 0xffff88800a4c1230 of 4 bytes by task 88 on cpu 0:
[    7.200011]  si_executor_run+0x112/0x4c0 [si_timer]
[    7.200012]  si_executor_thread+0x93/0x120 [si_timer]
[    7.200013]  kthread+0x1a5/0x1d0
[    7.200014]  ret_from_fork+0x34/0x50

[    7.200015] value changed: 0x00000000 -> 0x00000001

[    7.200016] Reported by Kernel Concurrency Sanitizer on:
[    7.200017] CPU: 0 UID: 0 PID: 88 Comm: si_timer/0 Not tainted 6.12.57 #1
[    7.200018] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[    7.200019] ==================================================================
"""

# Only one side in our code, below kernel frames: still ours.
KCSAN_OURS_DEEP = """\
[    7.300000] ==================================================================
[    7.300001] BUG: KCSAN: data-race in __run_timers / enqueue_timer

[    7.300003] write to 0xffff88800a4c9e00 of 8 bytes by task 91 on cpu 1:
[    7.300004]  enqueue_timer+0x5e/0x1a0
[    7.300005]  __mod_timer+0x3b9/0x5b0
[    7.300006]  si_mod_timer+0x1c4/0x2f0 [si_timer]
[    7.300007]  si_api_arm+0x3e/0x90 [si_timer_api_test]
[    7.300008]  do_one_initcall+0x6e/0x2f0

[    7.300010] read to 0xffff88800a4c9e00 of 8 bytes by task 24 on cpu 0:
[    7.300011]  __run_timers+0x1fc/0x3f0
[    7.300012]  run_timer_softirq+0x4b/0x90
[    7.300013]  handle_softirqs.isra.0+0x105/0x3a0
[    7.300014]  run_ktimerd+0x3f/0x80

[    7.300016] Reported by Kernel Concurrency Sanitizer on:
[    7.300017] CPU: 0 UID: 0 PID: 24 Comm: ktimers/0 Not tainted 6.12.57 #1
[    7.300018] ==================================================================
"""

KCSAN_UNKNOWN_ORIGIN = """\
[    8.000000] ==================================================================
[    8.000001] BUG: KCSAN: data-race in rcu_gp_kthread+0x1c2/0x2a0

[    8.000003] race at unknown origin, with read to 0xffffffff8a3d2f80 of 8 bytes by task 15 on cpu 3:
[    8.000004]  rcu_gp_kthread+0x1c2/0x2a0
[    8.000005]  kthread+0x1a5/0x1d0
[    8.000006]  ret_from_fork+0x34/0x50

[    8.000007] value changed: 0x0000000000000a5c -> 0x0000000000000a60

[    8.000008] Reported by Kernel Concurrency Sanitizer on:
[    8.000009] CPU: 3 UID: 0 PID: 15 Comm: rcu_preempt Not tainted 6.12.57 #1
[    8.000010] ==================================================================
"""

KASAN_OURS = """\
[    6.500000] ==================================================================
[    6.500001] BUG: KASAN: slab-use-after-free in si_executor_run+0x3c4/0x4c0 [si_timer]
[    6.500002] Read of size 8 at addr ffff88800b7e2a18 by task si_timer/1/86
[    6.500003]
[    6.500004] CPU: 1 UID: 0 PID: 86 Comm: si_timer/1 Not tainted 6.12.57 #1
[    6.500005] Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[    6.500006] Call Trace:
[    6.500007]  <TASK>
[    6.500008]  dump_stack_lvl+0x6f/0xa0
[    6.500009]  print_report+0xd1/0x660
[    6.500010]  kasan_report+0xc1/0x100
[    6.500011]  si_executor_run+0x3c4/0x4c0 [si_timer]
[    6.500012]  si_executor_thread+0x93/0x120 [si_timer]
[    6.500013]  kthread+0x1a5/0x1d0
[    6.500014]  ret_from_fork+0x34/0x50
[    6.500015]  ret_from_fork_asm+0x1a/0x30
[    6.500016]  </TASK>
[    6.500017]
[    6.500018] Allocated by task 120:
[    6.500019]  kasan_save_stack+0x30/0x50
[    6.500020]  kasan_save_track+0x14/0x30
[    6.500021]  __kasan_kmalloc+0x8f/0xa0
[    6.500022]  si_api_kmalloc_case+0x44/0x210 [si_timer_api_test]
[    6.500023]  do_one_initcall+0x6e/0x2f0
[    6.500024]
[    6.500025] Freed by task 120:
[    6.500026]  kasan_save_stack+0x30/0x50
[    6.500027]  kasan_save_track+0x14/0x30
[    6.500028]  kasan_save_free_info+0x3b/0x60
[    6.500029]  __kasan_slab_free+0x4f/0x70
[    6.500030]  kfree+0x12f/0x3c0
[    6.500031]  si_api_kmalloc_case+0x1a8/0x210 [si_timer_api_test]
[    6.500032]
[    6.500033] The buggy address belongs to the object at ffff88800b7e2a00
[    6.500034]  which belongs to the cache kmalloc-128 of size 128
[    6.500035] The buggy address is located 24 bytes inside of
[    6.500036]  freed 128-byte region [ffff88800b7e2a00, ffff88800b7e2a80)
[    6.500037]
[    6.500038] The buggy address belongs to the physical page:
[    6.500039] page: refcount:1 mapcount:0 mapping:0000000000000000 index:0x0 pfn:0xb7e2
[    6.500040] flags: 0x100000000000000(node=0|zone=1)
[    6.500041] page dumped because: kasan: bad access detected
[    6.500042]
[    6.500043] Memory state around the buggy address:
[    6.500044]  ffff88800b7e2900: fa fb fb fb fb fb fb fb fb fb fb fb fb fb fb fb
[    6.500045] >ffff88800b7e2a00: fa fb fb fb fb fb fb fb fb fb fb fb fb fb fb fb
[    6.500046]                             ^
[    6.500047] ==================================================================
[    6.500048] Disabling lock debugging due to kernel taint
"""

KASAN_KERNEL = """\
[    4.000000] ==================================================================
[    4.000001] BUG: KASAN: stack-out-of-bounds in update_stack_state+0x2a5/0x2c0
[    4.000002] Read of size 8 at addr ffffc90000017b48 by task swapper/0/1
[    4.000003]
[    4.000004] Call Trace:
[    4.000005]  dump_stack_lvl+0x6f/0xa0
[    4.000006]  kasan_report+0xc1/0x100
[    4.000007]  update_stack_state+0x2a5/0x2c0
[    4.000008]  unwind_next_frame+0x12f/0x8a0
[    4.000009] ==================================================================
"""

LOCKDEP_WAIT_CONTEXT = """\
[    6.000000]
[    6.000001] =============================
[    6.000002] [ BUG: Invalid wait context ]
[    6.000003] 6.12.57 #1 Not tainted
[    6.000004] -----------------------------
[    6.000005] si_timer/0/85 is trying to lock:
[    6.000006] ffff88800a4c1e70 (&e->cb_lock){....}-{3:3}, at: si_executor_run+0x1c/0x4c0 [si_timer]
[    6.000007] other info that might help us debug this:
[    6.000008] context-{5:5}
[    6.000009] stack backtrace:
[    6.000010] Call Trace:
[    6.000011]  dump_stack_lvl+0x6f/0xa0
[    6.000012]  __lock_acquire+0x1c8d/0x2c40
"""

LOCKDEP_CIRCULAR = """\
[    6.000000] ======================================================
[    6.000001] WARNING: possible circular locking dependency detected
[    6.000002] 6.12.57 #1 Not tainted
[    6.000003] ------------------------------------------------------
"""

LOCKDEP_NON_STATIC = """\
[    6.000000] INFO: trying to register non-static key.
[    6.000001] The code is fine but needs lockdep annotation, or maybe
[    6.000002] you didn't initialize this object before use?
[    6.000003] turning off the locking correctness validator.
"""

MIGHT_SLEEP = """\
[    6.000000] BUG: sleeping function called from invalid context at kernel/locking/spinlock_rt.c:48
[    6.000001] in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 85, name: si_timer/0
[    6.000002] preempt_count: 1, expected: 0
"""

ODEBUG_SPLAT = """\
[    6.000000] ------------[ cut here ]------------
[    6.000001] ODEBUG: free active (active state 0) object: ffff88800b7e2a00 object type: timer_list hint: si_timer_expire+0x0/0x90 [si_timer]
[    6.000002] WARNING: CPU: 1 PID: 120 at lib/debugobjects.c:514 debug_print_object+0xe1/0x140
[    6.000003] Modules linked in: si_timer_api_test(O+) si_timer(O)
[    6.000004] ---[ end trace 0000000000000000 ]---
"""

# What si_timer_api_test's t_debugobjects_free_armed provokes on purpose.
ODEBUG_SI_TIMER = """\
[    6.000000] ------------[ cut here ]------------
[    6.000001] ODEBUG: free active (active state 0) object: 00000000c0ffee42 object type: si_timer hint: si_dobj_freed_fn+0x0/0x30 [si_timer_api_test]
[    6.000002] WARNING: CPU: 1 PID: 120 at lib/debugobjects.c:514 debug_print_object+0xe1/0x140
[    6.000003] Modules linked in: si_timer_api_test(O+) si_timer(O)
[    6.000004] ---[ end trace 0000000000000000 ]---
"""
ODEBUG_ANNOUNCE = ("[    5.900000] # SI_EXPECT_WARN ODEBUG: free active ... "
                   "object type: si_timer hint: si_dobj_freed_fn+\n")


def run(*parts):
    """Feed a console made of the parts; return (results, console)."""
    con = ktap.Console()
    text = "".join(textwrap.dedent(p) for p in parts)
    res = [r for line in text.splitlines() for r in con.feed(line)]
    return res + con.finish(), con


def of(results, status):
    return [r for r in results if r.status == status]


class SanitizerReports(unittest.TestCase):
    def test_clean_run_passes(self):
        res, con = run(BOOT, DOC_HEAD, DOC_TAIL)
        self.assertEqual(of(res, "fail"), [])
        self.assertEqual(len(of(res, "ok")), 2)
        self.assertEqual(con.kcsan_kernel, [])

    def test_kcsan_inside_kernel_is_listed_not_failed(self):
        res, con = run(BOOT, DOC_HEAD, KCSAN_KERNEL, DOC_TAIL)
        self.assertEqual(of(res, "fail"), [])
        self.assertEqual(len(of(res, "ok")), 2, "results after the report still count")
        self.assertEqual(con.kcsan_kernel,
                         ["KCSAN: data-race in tick_nohz_next_event / tick_nohz_stop_tick"])
        infos = [r.reason for r in of(res, "info")]
        self.assertIn("inside the kernel only, not failed: KCSAN: data-race in "
                      "tick_nohz_next_event / tick_nohz_stop_tick", infos)
        self.assertTrue(any(i.startswith("1 report(s) entirely inside the kernel") for i in infos),
                        infos)

    def test_kcsan_repeats_are_counted(self):
        res, con = run(BOOT, DOC_HEAD, KCSAN_KERNEL, KCSAN_UNKNOWN_ORIGIN, KCSAN_KERNEL, DOC_TAIL)
        self.assertEqual(of(res, "fail"), [])
        self.assertEqual(len(con.kcsan_kernel), 3)
        summary = of(res, "info")[-1].reason
        self.assertTrue(summary.startswith("3 report(s)"), summary)
        self.assertIn("tick_nohz_stop_tick (x2)", summary)
        self.assertIn("rcu_gp_kthread+0x1c2/0x2a0 (x1)", summary)

    def test_kcsan_in_si_timer_fails(self):
        res, con = run(BOOT, DOC_HEAD, KCSAN_OURS, DOC_TAIL)
        fails = of(res, "fail")
        self.assertEqual(len(fails), 1)
        self.assertIn("KCSAN: data-race in si_executor_run [si_timer] / si_smoke_cb", fails[0].reason)
        self.assertIn("si_smoke_cb+0x21/0x40 [si_timer_smoke]", fails[0].diag)
        self.assertIn("value changed: 0x00000000 -> 0x00000001", fails[0].diag)
        self.assertEqual(con.kcsan_kernel, [])

    def test_kcsan_between_kernel_functions_reached_from_ours_is_listed(self):
        # Both racing accesses are the kernel's (enqueue_timer, __run_timers);
        # si_mod_timer is only the caller below one of them.
        res, con = run(BOOT, DOC_HEAD, KCSAN_OURS_DEEP, DOC_TAIL)
        self.assertEqual(of(res, "fail"), [])
        self.assertEqual(con.kcsan_kernel, ["KCSAN: data-race in __run_timers / enqueue_timer"])
        self.assertTrue(any("reached from si_* code" in r.reason for r in of(res, "info")))

    def test_kasan_fails_once_with_where(self):
        res, _ = run(BOOT, DOC_HEAD, KASAN_OURS, DOC_TAIL)
        fails = of(res, "fail")
        self.assertEqual(len(fails), 1, fails)
        f = fails[0]
        self.assertEqual(f.reason, "KASAN: slab-use-after-free in si_executor_run+0x3c4/0x4c0 [si_timer]")
        self.assertEqual(f.diag[0], "Read of size 8 at addr ffff88800b7e2a18 by task si_timer/1/86")
        self.assertIn("si_executor_run+0x3c4/0x4c0 [si_timer]", f.diag)
        self.assertNotIn("kasan_report+0xc1/0x100", f.diag)
        self.assertIn("Freed by task 120:", f.diag)
        self.assertIn("kfree+0x12f/0x3c0", f.diag)
        self.assertFalse(any(d.startswith("page:") or d.startswith(">ffff") for d in f.diag), f.diag)
        self.assertEqual(len(of(res, "ok")), 2)

    def test_kasan_inside_kernel_fails_too(self):
        res, _ = run(BOOT, DOC_HEAD, KASAN_KERNEL, DOC_TAIL)
        self.assertEqual([r.reason for r in of(res, "fail")],
                         ["KASAN: stack-out-of-bounds in update_stack_state+0x2a5/0x2c0"])

    def test_report_cut_short_by_the_end_of_the_console(self):
        cut = "\n".join(KCSAN_OURS.splitlines()[:8]) + "\n"
        res, _ = run(BOOT, DOC_HEAD, cut)
        reasons = [r.reason for r in of(res, "fail")]
        self.assertTrue(any(r.startswith("KCSAN: data-race in si_executor_run") for r in reasons), reasons)
        self.assertTrue(any("before SI_TIMER_HARNESS_DONE" in r for r in reasons), reasons)


class OtherReports(unittest.TestCase):
    def assert_fails_with(self, report, text):
        res, _ = run(BOOT, DOC_HEAD, report, DOC_TAIL)
        reasons = [r.reason for r in of(res, "fail")]
        self.assertTrue(reasons, "no failure for " + text)
        self.assertIn(text, reasons[0])

    def test_lockdep_invalid_wait_context(self):
        self.assert_fails_with(LOCKDEP_WAIT_CONTEXT, "[ BUG: Invalid wait context ]")

    def test_lockdep_circular(self):
        self.assert_fails_with(LOCKDEP_CIRCULAR, "possible circular locking dependency")

    def test_lockdep_non_static_key(self):
        self.assert_fails_with(LOCKDEP_NON_STATIC, "trying to register non-static key")

    def test_might_sleep(self):
        self.assert_fails_with(MIGHT_SLEEP, "sleeping function called from invalid context")

    def test_odebug_splat(self):
        res, _ = run(BOOT, DOC_HEAD, ODEBUG_SPLAT, DOC_TAIL)
        fails = of(res, "fail")
        self.assertEqual(len(fails), 1)
        self.assertIn("lib/debugobjects.c", fails[0].reason)
        self.assertTrue(any(d.startswith("ODEBUG: free active") for d in fails[0].diag), fails[0].diag)

    def test_expected_lockdep_report_is_not_a_failure(self):
        announce = "[    5.900000] # SI_EXPECT_WARN possible circular locking dependency\n"
        res, _ = run(BOOT, DOC_HEAD, announce, LOCKDEP_CIRCULAR, DOC_TAIL)
        self.assertEqual(of(res, "fail"), [])

    def test_expected_odebug_report_is_not_a_failure(self):
        res, _ = run(BOOT, DOC_HEAD, ODEBUG_ANNOUNCE, ODEBUG_SI_TIMER, DOC_TAIL)
        self.assertEqual(of(res, "fail"), [])
        self.assertTrue(any("expected WARN seen: ODEBUG: free active" in r.reason
                            for r in of(res, "info")), res)

    def test_unannounced_odebug_report_fails(self):
        res, _ = run(BOOT, DOC_HEAD, ODEBUG_SI_TIMER, DOC_TAIL)
        fails = of(res, "fail")
        self.assertEqual(len(fails), 1, fails)
        self.assertTrue(any("object type: si_timer" in d for d in fails[0].diag), fails[0].diag)

    def test_odebug_expectation_covers_one_report_only(self):
        res, _ = run(BOOT, DOC_HEAD, ODEBUG_ANNOUNCE, ODEBUG_SI_TIMER, ODEBUG_SI_TIMER, DOC_TAIL)
        self.assertEqual(len(of(res, "fail")), 1, res)

    def test_odebug_expectation_wants_its_pieces_in_order_on_one_line(self):
        other_type = ODEBUG_SI_TIMER.replace("object type: si_timer", "object type: timer_list")
        other_kind = ODEBUG_SI_TIMER.replace("free active", "init active")
        # both pieces, in the other order
        swapped = ODEBUG_SI_TIMER.replace(
            "ODEBUG: free active (active state 0) object: 00000000c0ffee42 "
            "object type: si_timer hint: si_dobj_freed_fn+0x0/0x30",
            "object type: si_timer hint: si_dobj_freed_fn+0x0/0x30 "
            "ODEBUG: free active (active state 0) object: 00000000c0ffee42")
        # both pieces, on two lines
        split = ODEBUG_SI_TIMER.replace(" object type: si_timer", "\n[    6.0000015] object type: si_timer")
        for report in (other_type, other_kind, swapped, split):
            self.assertNotEqual(report, ODEBUG_SI_TIMER)
            res, _ = run(BOOT, DOC_HEAD, ODEBUG_ANNOUNCE, report, DOC_TAIL)
            reasons = [r.reason for r in of(res, "fail")]
            self.assertEqual(len(reasons), 2, reasons)
            self.assertIn("lib/debugobjects.c", reasons[0])
            self.assertIn("never appeared", reasons[1])

    def test_expectation_does_not_cover_a_sanitizer_report(self):
        announce = "[    5.900000] # SI_EXPECT_WARN si_executor_run\n"
        res, _ = run(BOOT, DOC_HEAD, announce, KASAN_OURS, DOC_TAIL)
        reasons = [r.reason for r in of(res, "fail")]
        self.assertIn("KASAN: slab-use-after-free in si_executor_run+0x3c4/0x4c0 [si_timer]", reasons)


if __name__ == "__main__":
    unittest.main()
