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
    "samples/audit/aud_cycle.c": {
        "aud_cycle_watchdog_fn": ("review", r"timer_delete_sync\(&l->retry\) at aud_cycle.c:\d+ in "
                                            r"aud_cycle_rx\(\) \(softirq code: tasklet.*waits for "
                                            r"aud_cycle_retry_fn\(\), which waits for this callback: "
                                            r"timer_delete_sync\(&l->watchdog\).*refusal 3"),
        "aud_cycle_retry_fn": ("review", r"timer_delete_sync\(&l->retry\) at aud_cycle.c:\d+ in "
                                         r"aud_cycle_rx\(\) \(softirq code: tasklet.*-EDEADLK"),
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
        # a soft hrtimer is no longer masked with TIMER: SI_TIMER_MASK_HRTIMER
        "aud_ctx_hrt_fn": ("mask_hrtimer", r"&c->hrt_lock.*soft hrtimer callback.*aud_ctx_hrt_cb\(\)"
                                           r".*SI_TIMER_SOFTINTERRUPTIBLE \| SI_TIMER_MASK_HRTIMER"),
        "aud_ctx_hrt_cb": ("safe", r"hrt_lock shared with timer callbacks"),
        "aud_ctx_work_timer_fn": ("safe", r"work_lock shared with timer callbacks or process"),
        "aud_ctx_unk_fn": ("review", r"aud_ctx_notify\(\).*possibly softirq"),
    },
    "samples/audit/aud_hrtimer.c": {
        "aud_hr_shared_fn": ("mask_hrtimer", r"&h->shared_lock.*soft hrtimer callback.*"
                                             r"aud_hr_soft_cb\(\)"),
        "aud_hr_pcpu_fn": ("mask_hrtimer", r"this_cpu_add\(\*h->hits\).*soft hrtimer callback.*"
                                           r"aud_hr_soft_cb\(\).*this_cpu_inc"),
        "aud_hr_bh_fn": ("safe", r"spin_lock_bh\(\) at aud_hrtimer.c:\d+"),
        "aud_hr_hard_fn": ("safe", r"spin_lock_irqsave\(\) at aud_hrtimer.c:\d+"),
        # the soft hrtimer's own callback, through the driver's mode macro
        "aud_hr_soft_cb": ("safe", r"shared_lock shared with timer callbacks"),
    },
    "samples/audit/aud_si_hrtimer.c": {
        "aud_sih_frame_fn": ("needs_bh", r"&s->tx_lock.*tasklet.*aud_sih_tasklet_fn"),
        "aud_sih_poll_fn": ("mask_hrtimer", r"&s->compat_lock.*si_hrtimer callback in compatible "
                                            r"mode.*aud_sih_frame_fn\(\)"),
        "aud_sih_kick_fn": ("mask_hrtimer", r"&s->kern_lock.*soft hrtimer callback.*aud_sih_kern_cb"),
        "aud_sih_masked_fn": ("safe", r"masked_lock shared .*SI_TIMER_MASK_HRTIMER"),
        "aud_sih_kern_cb": ("safe", r"kern_lock shared with timer callbacks"),
        "aud_sih_stop_fn": ("review", r"si_hrtimer_cancel\(&s->stop\) at aud_si_hrtimer.c:\d+ in "
                                      r"aud_sih_napi_poll\(\) \(softirq code: NAPI poll.*-EDEADLK"),
        "aud_sih_irq_fn": ("review", r"si_hrtimer_cancel\(&s->irq_t\) at aud_si_hrtimer.c:\d+ in "
                                     r"aud_sih_irq\(\).*-EINVAL"),
    },
    # What real drivers' soft hrtimer callbacks do (mvpp2, mac80211_hwsim, f_ncm).
    "samples/audit/aud_hr_paths.c": {
        "aud_hp_txdone_cb": ("keep_compatible", r"per_cpu_ptr\(h->pcpu, thread\) at aud_hr_paths.c:\d+; "
                                                r"ndo_start_xmit.*aud_hp_start_xmit\(\).*smp_processor_id"),
        "aud_hp_iter_cb": ("needs_bh", r"&h->radio_lock at aud_hr_paths.c:\d+ \(in aud_hp_radio_tx\(\)\); "
                                       r"ndo_start_xmit"),
        "aud_hp_kick_cb": ("needs_bh", r"ndo_start_xmit\(\) at aud_hr_paths.c:\d+ is the network "
                                       r"stack's softirq path"),
        "aud_hp_guard_fn": ("needs_bh", r"guard\(spinlock\)\(\) takes &h->guard_lock.*tasklet"),
        "aud_hp_canrx_cb": ("review", r"hrtimer_cancel\(&h->canrx\) at aud_hr_paths.c:\d+ in "
                                      r"aud_hp_can_rcv\(\) \(softirq code: CAN receive handler.*-EDEADLK"),
    },
    # Ops tables of known context; a kernel-owned timer's callback.
    "samples/audit/aud_ops.c": {
        "aud_ops_beacon_fn": ("needs_bh", r"&r->radio_lock at aud_ops.c:\d+; mac80211 .tx \(transmit path.*"
                                          r"aud_ops_tx\(\) takes it too"),
        "aud_ops_sock_fn": ("safe", r"sock_lock shared with timer callbacks or process context only"),
        "aud_ops_sk_fn": ("kernel_owned", r"kernel-owned: cannot opt in: &aud_ops_radio.sk->sk_timer"),
    },
    # One module of three files (Kbuild): the file holding the callbacks,
    # audited alone, is read with the rest of its module.
    "samples/audit/module/aud_mod_timer.c": {
        "aud_mod_hello_fn": ("needs_bh", r"&br->lock at aud_mod_timer.c:\d+; packet receive handler.*"
                                         r"aud_mod_rcv\(\) takes it too \(spin_lock\(\) at aud_mod_rx.c:\d+\)"),
        "aud_mod_kick_fn": ("review", r"tx_global_lock at aud_mod_timer.c:\d+; no file read declares "
                                      r"it .*module aud_mod"),
    },
    # C the text reader got wrong (two wrong safe, one review) and the
    # parser reads right: a lock taken plainly in an #else branch, a local's
    # type behind a struct whose name ends like the variable, a helper whose
    # first parameter is a function pointer.
    "samples/audit/aud_parse.c": {
        "aud_prs_else_fn": ("needs_bh", r"spin_lock\(\) takes &p->else_lock at aud_parse.c:61; tasklet"),
        "aud_prs_hdr_fn": ("needs_bh", r"&r->hdr_lock.*packet receive handler.*aud_prs_rcv\(\) takes it"),
        "aud_prs_fnptr_fn": ("needs_bh", r"takes l \(&p->ptr_lock\) at aud_parse.c:\d+ "
                                         r"\(in aud_prs_locked\(\)\); tasklet"),
    },
    # The migration samples: the audit's verdicts on the timer_list originals.
    "samples/migrate": {
        "mig_timer_fn": ("needs_bh", r"tasklet.*mig_tasklet_fn"),
        "mig_static_fn": ("safe", r"takes no lock"),
        "mig_onstack_fn": ("keep_compatible", r"in_serving_softirq"),
        "mig_queue_fn": ("keep_compatible", r"this_cpu_inc\(mig_packets\).*mig_poll"),
        "mig_hr_fn": ("safe", r"takes no lock"),
    },
}


def run(*args):
    p = subprocess.run([sys.executable, AUDIT] + list(args), cwd=TOP,
                       capture_output=True, text=True, timeout=300)
    if p.returncode:
        raise AssertionError("si-timer-audit.py %s: exit %d: %s" % (args, p.returncode, p.stderr))
    return p.stdout


@unittest.skipUnless(shutil.which("spatch"), "no spatch (apt-get install coccinelle): the audit reads "
                     "C with Coccinelle's parser")
class AuditVerdicts(unittest.TestCase):
    def check(self, path):
        want = EXPECT[path]
        tsv = run("--format=tsv", path)
        text = run(path)
        got = {}
        for line in tsv.splitlines():
            f = line.split("\t")
            self.assertEqual(len(f), 6, "tsv line: %r" % line)
            # every verdict says what it read: the sample's own module
            self.assertRegex(f[5], r"^(module \S+ \(\S+\): \d+ \.c, \d+ \.h|directory \S+ read whole)", line)
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

    def test_cancel_cycle_through_softirq(self):
        self.check("samples/audit/aud_cycle.c")

    def test_softirq_contexts(self):
        self.check("samples/audit/aud_contexts.c")

    def test_soft_hrtimers_need_mask_hrtimer(self):
        """A soft-interruptible callback masks TIMER only: data shared with
        a soft hrtimer callback, unless under spin_lock_bh(), asks for
        SI_TIMER_MASK_HRTIMER; a HARD hrtimer is hardirq code."""
        self.check("samples/audit/aud_hrtimer.c")

    def test_si_hrtimer_callbacks(self):
        """si_hrtimer callbacks are audited; one in compatible mode counts
        as soft hrtimer code; SI_TIMER_MASK_HRTIMER clears the sharing;
        si_hrtimer_cancel() in softirq or hardirq code is flagged."""
        self.check("samples/audit/aud_si_hrtimer.c")

    def test_real_drivers_paths(self):
        """A CPU's data through per_cpu_ptr(p, smp_processor_id()), a
        function handed to an iterator, the transmit routine called
        directly, scoped_guard(), a cancel from a CAN receive handler: none
        of them may pass for safe."""
        self.check("samples/audit/aud_hr_paths.c")

    def test_never_safe_next_to_a_soft_hrtimer(self):
        """No callback that takes a lock plainly, shared with a soft hrtimer
        callback, is called safe unless it masks HRTIMER."""
        for path in ("samples/audit/aud_hrtimer.c", "samples/audit/aud_si_hrtimer.c",
                     "samples/audit/aud_contexts.c"):
            for m in re.finditer(r"^(\w+)\(\) at \S+ \[([^]]*)\]: (\w+)\n((?:    .*\n)*)", run(path), re.M):
                if re.search(r"spin_lock\(\) takes .*soft hrtimer callback", m.group(4)) and \
                        "masked too: SI_TIMER_MASK_HRTIMER" not in m.group(4):
                    self.assertNotEqual(m.group(3), "safe", "%s: %s" % (path, m.group(1)))

    def test_ops_tables_and_kernel_owned(self):
        """ieee80211_ops .tx is softirq code, proto_ops .sendmsg/.recvmsg and
        file_operations process context; a callback of a kernel-owned timer
        gets no verdict: it cannot opt in."""
        self.check("samples/audit/aud_ops.c")
        # (the text reader read "struct msghd" + "r" as the type of the
        # locals of .sendmsg/.recvmsg, and left them out)
        self.assertRegex(run("samples/audit/aud_ops.c"),
                         r"shared only with aud_ops_read\(\), aud_ops_recvmsg\(\), aud_ops_sendmsg\(\) "
                         r"\(proto_ops .recvmsg \(system call\) \(.recvmsg\), proto_ops .sendmsg "
                         r"\(system call\) \(.sendmsg\), read \(.read\)\)")

    def test_the_unit_is_the_module(self):
        """Naming one file of a module audits the module: the receive
        handler of another file is read, and a lock no file of the module
        declares is review, never safe (net/bridge/br_stp_timer.c)."""
        self.check("samples/audit/module/aud_mod_timer.c")
        for line in run("--format=tsv", "samples/audit/module/aud_mod_timer.c").splitlines():
            self.assertIn("module aud_mod (samples/audit/module/Kbuild): 3 .c, 1 .h", line)

    def test_what_text_misread(self):
        """Every #if branch is read (a lock taken plainly in #else is not
        hidden by the spin_lock_bh() of the first branch, nor covered by
        it: a BH-disabling call counts only in a branch holding the lock's
        line); locals and parameters have the parser's types and order."""
        self.check("samples/audit/aud_parse.c")

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
                # aud_si_hrtimer.c is a converted driver: include/si_hrtimer.h
                k.write("ccflags-y += -I%s/include\nobj-m := %s\n" % (TOP, objs))
            # KBUILD_MODPOST_WARN: aud_si_hrtimer.ko links against si_timer.ko
            p = subprocess.run(["make", "-C", KDIR, "M=" + d, "W=1", "KBUILD_MODPOST_WARN=1",
                                "modules"],
                               capture_output=True, text=True, timeout=900)
            self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
            self.assertNotIn("warning:", p.stderr)
        # The module of three files, with its own Kbuild.
        with tempfile.TemporaryDirectory(prefix="si-kit-") as d:
            for f in glob.glob(os.path.join(TOP, "samples", "audit", "module", "*")):
                shutil.copy(f, d)
            p = subprocess.run(["make", "-C", KDIR, "M=" + d, "W=1", "modules"],
                               capture_output=True, text=True, timeout=900)
            self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
            self.assertNotIn("warning:", p.stderr)
            self.assertTrue(os.path.exists(os.path.join(d, "aud_mod.ko")))


if __name__ == "__main__":
    unittest.main()
