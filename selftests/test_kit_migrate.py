# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of the converter, scripts/si-migrate.sh (make
check-host): samples/convert/ converted in a scratch directory, in each
mode (DIR, FILE, --diff), then built against include/si_timer.h and the
6.12 headers where they are installed. Skipped, and said so, without
spatch (apt-get install coccinelle)."""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIGRATE = os.path.join(TOP, "scripts", "si-migrate.sh")
COCCI = os.path.join(TOP, "scripts", "coccinelle", "si_timer_convert.cocci")
SAMPLES = os.path.join(TOP, "samples", "convert")
KDIRS = sorted(glob.glob("/usr/src/linux-headers-6.12*-amd64"))
KDIR = os.environ.get("KDIR") or (KDIRS[-1] if KDIRS else "")
# A tree with hrtimer_setup() and timer_container_of() (6.16+): the 7.x
# build tree scripts/newer-kernels.sh makes (make deps).
KDIRS_NEW = sorted(glob.glob("/var/cache/si-timer/kernels/7.*-amd64/build"))
KDIR_NEW = os.environ.get("KDIR_NEW") or next((k for k in KDIRS_NEW if "-rt-" not in k),
                                              KDIRS_NEW[-1] if KDIRS_NEW else "")
HAVE_SPATCH = shutil.which("spatch") is not None


# An hrtimer used where Coccinelle cannot parse the code (the '@@'): the
# converter must leave its group alone, not half convert it.
HALF_C = """#include <linux/hrtimer.h>

struct half_dev {
\tstruct hrtimer bad_t;
\tstruct hrtimer ok_t;
};

static enum hrtimer_restart half_bad_fn(struct hrtimer *t)
{
\treturn HRTIMER_NORESTART;
}

static enum hrtimer_restart half_ok_fn(struct hrtimer *t)
{
\treturn HRTIMER_NORESTART;
}

static void half_init(struct half_dev *d)
{
\thrtimer_setup(&d->bad_t, half_bad_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
\thrtimer_setup(&d->ok_t, half_ok_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
\thrtimer_start(&d->ok_t, ms_to_ktime(1), HRTIMER_MODE_REL_SOFT);
}

static void half_weird(struct half_dev *d)
{
\thrtimer_cancel(&d->bad_t) @@ 1;
}
"""


def read(path):
    with open(path) as f:
        return f.read()


def migrate(*args, cwd=None):
    env = dict(os.environ)
    if KDIR:
        env["KDIR"] = KDIR
    p = subprocess.run(["bash", MIGRATE] + list(args), capture_output=True, text=True,
                       timeout=600, env=env, cwd=cwd)
    if p.returncode:
        raise AssertionError("si-migrate.sh %s: exit %d\n%s" % (args, p.returncode, p.stderr))
    return p.stdout, p.stderr


def left(stderr):
    """The 'left for you' lines, FILE:LINE: ..."""
    # What each FILE= was read as (its module) comes first.
    lines = [x for x in stderr.splitlines()
             if not re.match(r"si-migrate: (?!left for you)", x)]
    if not lines:
        return []
    assert lines[0].startswith("si-migrate: left for you"), stderr
    return lines[1:]


def build(kdir, d, names):
    """make modules of names (.c files of d) against kdir and include/."""
    objs = " ".join(n[:-2] + ".o" for n in names)
    with open(os.path.join(d, "Kbuild"), "w") as f:
        f.write("ccflags-y += -I%s/include\nobj-m := %s\n" % (TOP, objs))
    return subprocess.run(["make", "-C", kdir, "M=" + d, "KBUILD_MODPOST_WARN=1", "modules"],
                          capture_output=True, text=True, timeout=900)


def new_api(path):
    """The file uses hrtimer_setup(), which 6.12 has not."""
    return re.search(r"(?<!si_)\bhrtimer_setup\s*\(", read(path)) is not None


def code_lines(text):
    """Line numbers (1-based) inside an #if block."""
    depth, inside = 0, set()
    for i, l in enumerate(text.split("\n"), 1):
        if re.match(r"\s*#\s*if", l):
            depth += 1
        elif re.match(r"\s*#\s*endif", l):
            depth -= 1
        elif depth:
            inside.add(i)
    return inside


@unittest.skipUnless(HAVE_SPATCH, "spatch not installed (apt-get install coccinelle)")
class Convert(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="si-kit-")
        cls.dir = os.path.join(cls.tmp, "convert")
        shutil.copytree(SAMPLES, cls.dir)
        cls.out, cls.err = migrate(cls.dir)
        cls.conv = {n: read(os.path.join(cls.dir, n)) for n in os.listdir(cls.dir)
                    if os.path.isfile(os.path.join(cls.dir, n)) and n != "Kbuild"}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_kernel_owned_left_alone(self):
        c = self.conv["cnv_owned.c"]
        for kept in ("timer_setup(&dev->sk->sk_timer, cnv_sk_timer_fn, 0)",
                     "del_timer_sync(&dev->dwork.timer)", "del_timer_sync(&dev->sk->sk_timer)",
                     "mod_timer(&dev->hcd->rh_timer, jiffies)",
                     "timer_pending(&dev->hcd->rh_timer)",
                     "static void cnv_sk_timer_fn(struct timer_list *t)",
                     # its prototype, its parameter unnamed (net/netrom)
                     "static void cnv_sk_timer_fn(struct timer_list *);",
                     "from_timer(sk, t, sk_timer)"):
            self.assertIn(kept, c)
        for conv in ("struct si_timer poll_timer;", "si_timer_container_of(dev, t, poll_timer)",
                     "si_timer_setup(&dev->poll_timer, cnv_poll_fn, 0)",
                     "si_timer_shutdown_sync(&dev->poll_timer)",
                     "static void cnv_poll_fn(struct si_timer *t)",
                     # usb_hcd's member name, but the driver's struct: its own
                     "struct si_timer rh_timer;", "si_timer_setup(&dev->rh_timer, cnv_rh_fn, 0)",
                     "si_timer_shutdown_sync(&dev->rh_timer)",
                     "si_timer_container_of(dev, t, rh_timer)"):
            self.assertIn(conv, c)

    def test_kernel_owned_listed(self):
        lst = "\n".join(left(self.err))
        for call in ("timer_setup(&dev->sk->sk_timer, cnv_sk_timer_fn, 0)",
                     "del_timer_sync(&dev->dwork.timer)",
                     "mod_timer(&dev->hcd->rh_timer, jiffies)", "timer_pending(&dev->hcd->rh_timer)"):
            self.assertRegex(lst, r"cnv_owned\.c:\d+: %s: kernel-owned timer, left alone"
                             % re.escape(call))
        self.assertIn("delayed_work", lst)
        self.assertRegex(lst, r"cnv_owned\.c:\d+: static void cnv_sk_timer_fn\(struct timer_list \*t\)")

    def test_escaped_callbacks_kept(self):
        """Callbacks handed to a function the files do not define
        (inet_csk_init_xmit_timers(), net/dccp) keep their timer_list with
        their prototypes, and so does the driver's timer set up with one of
        them, its calls with it; each is listed with why; the other timer
        converts."""
        c = self.conv["cnv_escape.c"]
        for kept in ("static void cnv_esc_write_fn(struct timer_list *t);",
                     "static void cnv_esc_write_fn(struct timer_list *t)\n{",
                     "static void cnv_esc_delack_fn(struct timer_list *t)",
                     "static void cnv_esc_kick_fn(struct timer_list *t)",
                     "from_timer(icsk, t, icsk_retransmit_timer)", "from_timer(icsk, t, icsk_delack_timer)",
                     "struct timer_list kick_timer;", "timer_setup(&dev->kick_timer, cnv_esc_kick_fn, 0)",
                     "\tmod_timer(&dev->kick_timer", "\ttimer_shutdown_sync(&dev->kick_timer)"):
            self.assertIn(kept, c)
        for conv in ("struct si_timer scan_timer;", "static void cnv_esc_scan_fn(struct si_timer *t)",
                     "si_timer_container_of(dev, t, scan_timer)",
                     "si_timer_setup(&dev->scan_timer, cnv_esc_scan_fn, 0)",
                     "si_timer_shutdown_sync(&dev->scan_timer)"):
            self.assertIn(conv, c)
        lst = "\n".join(left(self.err))
        for fn in ("cnv_esc_write_fn", "cnv_esc_delack_fn", "cnv_esc_kick_fn"):
            self.assertRegex(lst, r"cnv_escape\.c:\d+: static void %s\(struct timer_list \*t\): kept a "
                             r"timer_list: its callback %s\(\) is passed to inet_csk_init_xmit_timers\(\)"
                             % (fn, fn))
        self.assertRegex(lst, r"cnv_escape\.c:\d+: static void cnv_esc_write_fn\(struct timer_list \*t\);: kept")
        self.assertRegex(lst, r"cnv_escape\.c:\d+: struct timer_list kick_timer;.*kept a timer_list: its "
                         r"callback cnv_esc_kick_fn\(\) is passed to inet_csk_init_xmit_timers\(\)")
        self.assertRegex(lst, r"cnv_escape\.c:\d+: timer_setup\(&dev->kick_timer, cnv_esc_kick_fn, 0\): kept")
        self.assertNotIn("scan_timer", "\n".join(x for x in left(self.err) if "cnv_escape" in x))

    @unittest.skipUnless(KDIR, "no 6.12 kernel headers to find the kernel's structs in")
    def test_kernel_header_struct_named(self):
        lst = "\n".join(left(self.err))
        self.assertIn("sk_timer is a member of struct sock (net/sock.h), a kernel header", lst)
        self.assertIn("rh_timer is a member of struct usb_hcd (linux/usb/hcd.h), a kernel header",
                      lst)

    def test_listed_lines_hold_what_they_say(self):
        for line in left(self.err):
            m = re.match(r"(\S+?):(\d+): (.*?): ", line)
            self.assertTrue(m, line)
            src = read(m.group(1)).split("\n")[int(m.group(2)) - 1]
            call = re.match(r"(\w+\(.*?\)): (?:kernel-owned|kept a timer_list)", line[m.start(3):])
            if call:
                self.assertIn(call.group(1), src, line)
            else:
                self.assertTrue(line[m.start(3):].startswith(src.strip() + ": "), line)

    def test_twins_converted(self):
        c = self.conv["cnv_apis.c"]
        self.assertIn("si_add_timer_local(&cnv_local)", c)
        self.assertIn("si_add_timer_global(&cnv_global)", c)
        self.assertRegex(c, r"static struct si_timer cnv_local = __SI_TIMER_INITIALIZER\(cnv_local_fn,"
                            r"\s*SI_TIMER_PINNED\)")
        self.assertRegex(c, r"__SI_TIMER_INITIALIZER\(cnv_global_fn,\s*SI_TIMER_DEFERRABLE\)")
        code = re.sub(r"/\*.*?\*/", "", c, flags=re.S)
        self.assertNotRegex(code, r"(?<!si_)\b(add_timer_local|add_timer_global|__TIMER_INITIALIZER)\(")
        # The header has the twins the converter writes.
        h = read(os.path.join(TOP, "include", "si_timer.h"))
        for twin in ("static inline void si_add_timer_local(struct si_timer *timer)",
                     "static inline void si_add_timer_global(struct si_timer *timer)",
                     "#define __SI_TIMER_INITIALIZER(_function, _flags)"):
            self.assertIn(twin, h)

    def test_sock_helpers_open_coded(self):
        """sk_reset_timer() and sk_stop_timer[_sync]() take a timer_list:
        on the protocol's own timer they become the si_timer calls they
        stand for; on sk_timer (struct sock's) they stay, listed."""
        c = self.conv["cnv_sock.c"]
        self.assertRegex(c, r"if \(!si_mod_timer\(&cs->retry_timer, jiffies \+ HZ\)\)\n\s+"
                            r"sock_hold\(&cs->sk\);")
        self.assertRegex(c, r"if \(si_timer_delete\(&cs->retry_timer\) == 1\)\n\s+__sock_put\(&cs->sk\);")
        self.assertRegex(c, r"if \(si_timer_delete_sync\(&cs->retry_timer\) == 1\)\n\s+"
                            r"__sock_put\(&cs->sk\);")
        self.assertIn("sk_stop_timer_sync(&cs->sk, &cs->sk.sk_timer);", c)
        self.assertRegex("\n".join(left(self.err)),
                         r"cnv_sock\.c:\d+: sk_stop_timer_sync\(&cs->sk, &cs->sk\.sk_timer\): kernel-owned")

    def test_header_without_includes(self):
        """A header with no include of its own gets <si_timer.h> before its
        code: its users may not include it (the build test compiles one)."""
        h = self.conv["cnv_frag.h"]
        self.assertIn("struct si_timer watchdog;", h)
        self.assertLess(h.index("#include <si_timer.h>"), h.index("struct cnv_frag {"))
        self.assertEqual(self.conv["cnv_frag_user.c"], read(os.path.join(SAMPLES, "cnv_frag_user.c")))

    def test_include_at_top_level(self):
        for name, text in self.conv.items():
            if name == "cnv_frag_user.c":
                continue        # no timer: unchanged (test_header_without_includes)
            lines = text.split("\n")
            # <si_timer.h> where an si_timer is used, <si_hrtimer.h> where an si_hrtimer is
            found = 0
            for h, used in (("si_timer.h", r"si_timer|SI_TIMER"), ("si_hrtimer.h", r"si_hrtimer")):
                at = [i for i, l in enumerate(lines, 1) if l == "#include <%s>" % h]
                self.assertEqual(len(at), 1 if re.search(used, text.replace(h, "")) else 0,
                                 "%s: <%s>" % (name, h))
                for i in at:
                    self.assertNotIn(i, code_lines(text), "%s: <%s> inside an #if" % (name, h))
                found += len(at)
            self.assertGreater(found, 0, name)

    def test_function_assignment_listed_comments_not(self):
        lst = left(self.err)
        self.assertTrue(any(re.match(r".*cnv_apis\.c:\d+: cnv_manual\.function = cnv_global_fn;", x)
                            for x in lst), lst)
        for x in lst:
            self.assertNotRegex(x, r":\d+: (/?\*|//)", "a comment listed: %s" % x)

    def test_single_file_mode(self):
        """FILE=: the same list for that file, comments left out (one file
        made grep leave the file name out, and the comment filter with it)."""
        d = os.path.join(self.tmp, "single")
        shutil.copytree(SAMPLES, d)
        _, err = migrate(os.path.join(d, "cnv_apis.c"))
        lst = left(err)
        self.assertTrue(lst)
        for x in lst:
            self.assertTrue(x.startswith(os.path.join(d, "cnv_apis.c") + ":"), x)
            self.assertNotRegex(x, r":\d+: (/?\*|//)", x)
        mine = [x.replace(self.dir, d) for x in left(self.err) if "cnv_apis.c" in x]
        self.assertEqual(lst, mine)

    def test_module_group_all_or_listed(self):
        """FILE= converts the file's module (Kbuild objects, the header they
        include): the member after an #endif is a member (converted whole,
        never half), and the timers handed to a helper that is also handed a
        kernel-owned timer stay timer_list with the helper and their
        callbacks, every line listed; the result builds."""
        d = os.path.join(self.tmp, "group")
        shutil.copytree(os.path.join(SAMPLES, "group"), d)
        _, err = migrate(os.path.join(d, "cnv_group_main.c"))
        self.assertRegex(err, r"converting all 3 files of it")
        h, c = read(os.path.join(d, "cnv_group.h")), read(os.path.join(d, "cnv_group_timer.c"))
        for kept in ("struct timer_list hello_timer;", "struct timer_list hold_timer;",
                     "unsigned long cnv_group_timer_value(const struct timer_list *timer);"):
            self.assertIn(kept, h)
        self.assertIn("struct si_timer tick_timer;", h)
        for kept in ("unsigned long cnv_group_timer_value(const struct timer_list *timer)\n{\n"
                     "\treturn timer_pending(timer)",
                     "static void cnv_group_hello_fn(struct timer_list *t)",
                     "from_timer(g, t, hello_timer)", "timer_setup(&g->hold_timer, cnv_group_hold_fn, 0)",
                     "static void cnv_group_tick_fn(struct si_timer *t)",
                     "si_timer_container_of(g, t, tick_timer)", "si_mod_timer(&g->tick_timer"):
            self.assertIn(kept, c)
        lst = "\n".join(left(err))
        for line in (r"cnv_group\.h:\d+: struct timer_list hello_timer;.*kept a timer_list: "
                     r"cnv_group_timer_value\(\) is also handed the kernel-owned timer "
                     r"&cnv_group\.gc_work\.timer \(\S+cnv_group_main\.c:\d+\)",
                     r"cnv_group_timer\.c:\d+: unsigned long cnv_group_timer_value\(const struct timer_list "
                     r"\*timer\): kept a timer_list",
                     r"cnv_group_timer\.c:\d+: static void cnv_group_hold_fn\(struct timer_list \*t\): kept",
                     r"cnv_group_timer\.c:\d+: timer_shutdown_sync\(&g->hello_timer\): kept a timer_list"):
            self.assertRegex(lst, line)
        self.assertNotIn("tick_timer", lst)
        if KDIR:
            with open(os.path.join(d, "Kbuild"), "a") as f:
                f.write("ccflags-y += -I%s/include\n" % TOP)
            p = subprocess.run(["make", "-C", KDIR, "M=" + d, "KBUILD_MODPOST_WARN=1", "modules"],
                               capture_output=True, text=True, timeout=900)
            self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
            self.assertNotIn("error:", p.stderr)

    def test_member_after_endif_never_half_converted(self):
        """struct net_bridge's hello_timer follows an #endif: it is read as
        the member it is, its from_timer(), callback and calls converted
        with its declaration (samples/audit/module, FILE= of one file)."""
        d = os.path.join(self.tmp, "audmod")
        shutil.copytree(os.path.join(TOP, "samples", "audit", "module"), d)
        migrate(os.path.join(d, "aud_mod_timer.c"))
        c = read(os.path.join(d, "aud_mod_timer.c"))
        self.assertIn("struct si_timer hello_timer;", read(os.path.join(d, "aud_mod.h")))
        for conv in ("static void aud_mod_hello_fn(struct si_timer *t)",
                     "si_timer_container_of(br, t, hello_timer)", "si_mod_timer(&br->hello_timer",
                     "si_timer_setup(&br->hello_timer", "si_timer_shutdown_sync(&br->hello_timer)"):
            self.assertIn(conv, c)
        self.assertNotRegex(c, r"(?<!si_)\b(timer_list|mod_timer|timer_setup|from_timer)\b")

    def test_types_from_the_parser(self):
        """samples/convert/cnv_types.c: members inside an #ifdef block and
        after an #endif are members; a variable's type is its declaration's
        in its function, read by the parser (the text scanner typed the
        second declarator n of "struct cnv_ty_dev *a, *n;" as an earlier
        function's struct neighbour *n and half converted the file)."""
        c = self.conv["cnv_types.c"]
        for conv in ("struct si_timer net_timer;", "struct si_timer timer;",
                     "static void cnv_ty_fn(struct si_timer *t)",
                     "static void cnv_ty_net_fn(struct si_timer *t)",
                     "si_mod_timer(&a->timer, jiffies + HZ);", "si_mod_timer(&n->timer, jiffies + 2 * HZ);",
                     "si_timer_setup(&cnv_ty_devs[i].net_timer, cnv_ty_net_fn, 0);"):
            self.assertIn(conv, c)
        code = "\n".join(x for x in c.split("\n") if not x.startswith((" *", "/*")))
        self.assertNotRegex(code, r"(?<!si_)\b(timer_list|mod_timer|timer_setup|from_timer)\b")
        self.assertEqual([x for x in left(self.err) if "cnv_types" in x], [])

    def test_diff_mode(self):
        """--diff changes nothing, prints the change and the same list."""
        d = os.path.join(self.tmp, "diff")
        shutil.copytree(SAMPLES, d)
        out, err = migrate("--diff", d)
        for n in os.listdir(d):
            if os.path.isfile(os.path.join(d, n)):
                self.assertEqual(read(os.path.join(d, n)), read(os.path.join(SAMPLES, n)))
        self.assertIn("+#include <si_timer.h>", out)
        self.assertTrue(left(err), "nothing listed with --diff")
        self.assertEqual(left(err), [x.replace(self.dir, d) for x in left(self.err)])

    def test_nothing_left_nothing_listed(self):
        """A driver with nothing left converts with exit 0 and no list, one
        file at a time as well (a grep finding nothing stopped the script)."""
        d = os.path.join(self.tmp, "migrate")
        shutil.copytree(os.path.join(TOP, "samples", "migrate"), d)
        for n in sorted(x for x in os.listdir(d) if x.endswith(".c")):
            _, err = migrate(os.path.join(d, n))
            self.assertEqual(left(err), [], n)
            self.assertRegex(read(os.path.join(d, n)), r"#include <si_(hr)?timer\.h>", n)

    def test_soft_hrtimers_converted_61(self):
        """6.1's hrtimer_init() + .function: the driver's SOFT hrtimers
        (a member, two sharing a callback, a global) become si_hrtimers
        with every call, callback parameter and prototype."""
        c = self.conv["cnv_hrtimer_61.c"]
        for conv in ("struct si_hrtimer poll;", "struct si_hrtimer tick, tock;",
                     "static struct si_hrtimer cnv_hr_global;",
                     "static enum hrtimer_restart cnv_hr_poll_fn(struct si_hrtimer *t);",
                     "static enum hrtimer_restart cnv_hr_poll_fn(struct si_hrtimer *t)\n{",
                     "static enum hrtimer_restart cnv_hr_ticktock_fn(struct si_hrtimer *t)",
                     "container_of(t, struct cnv_hr_dev, poll)",
                     "si_hrtimer_forward(t, si_hrtimer_cb_get_time(t), dev->period);",
                     "si_hrtimer_forward_now(t, ms_to_ktime(10));",
                     "si_hrtimer_start(&dev->poll, dev->period, HRTIMER_MODE_REL_SOFT);",
                     "si_hrtimer_cancel(&cnv_hr_global);",
                     "si_hrtimer_try_to_cancel(&dev->poll);",
                     "si_hrtimer_active(&dev->poll) && !si_hrtimer_callback_running(&dev->poll)",
                     "ktime_add(si_hrtimer_get_expires(&dev->poll), dev->period)",
                     # a nested struct's, and its callback's container_of() field
                     "struct si_hrtimer slot;",
                     "static enum hrtimer_restart cnv_hr_slot_fn(struct si_hrtimer *t)",
                     "si_hrtimer_cancel(&dev->sub.slot);"):
            self.assertIn(conv, c)
        for conv in (r"si_hrtimer_setup\(&dev->poll, cnv_hr_poll_fn, CLOCK_MONOTONIC,\s+"
                     r"HRTIMER_MODE_REL_SOFT, 0\);\n",
                     r"si_hrtimer_setup\(&dev->tock, cnv_hr_ticktock_fn, CLOCK_BOOTTIME,\s+"
                     r"HRTIMER_MODE_ABS_SOFT, 0\);\n",
                     r"si_hrtimer_setup\(&cnv_hr_global, cnv_hr_global_fn, CLOCK_MONOTONIC,\s+"
                     r"HRTIMER_MODE_ABS_SOFT, 0\);\n",
                     r"si_hrtimer_start_range_ns\(&dev->tick, ms_to_ktime\(5\), NSEC_PER_MSEC,\s+"
                     r"HRTIMER_MODE_REL_PINNED_SOFT\);",
                     # soft and hard expiries are one: start_expires is start at get_expires
                     r"si_hrtimer_set_expires\(&dev->tock,\s+ktime_add",
                     r"si_hrtimer_start\(&dev->tock, si_hrtimer_get_expires\(&dev->tock\),\s+"
                     r"HRTIMER_MODE_ABS_SOFT\);"):
            self.assertRegex(c, conv)
        self.assertRegex(c, r"si_hrtimer_setup\(&dev->sub\.slot, cnv_hr_slot_fn, CLOCK_MONOTONIC,\s+"
                            r"HRTIMER_MODE_REL_SOFT, 0\);")
        # on the stack: the on-stack twins
        self.assertRegex(c, r"struct si_hrtimer once;\n\n\tsi_hrtimer_setup_on_stack\(&once, cnv_hr_once_fn,"
                            r"\s+CLOCK_MONOTONIC,\s+HRTIMER_MODE_REL_SOFT, 0\);\n"
                            r"\tsi_hrtimer_start\(&once, ms_to_ktime\(1\), HRTIMER_MODE_REL_SOFT\);\n"
                            r"\tsi_hrtimer_cancel\(&once\);\n\tsi_destroy_hrtimer_on_stack\(&once\);")
        # compatible mode: never a flag, and no .function left on them
        self.assertNotIn("SOFTINTERRUPTIBLE", c)
        self.assertNotRegex(c, r"(poll|tick|tock|cnv_hr_global|slot|once)\.function")

    def test_hard_and_refused_hrtimers_left_alone(self):
        """Hard ones, and soft ones the converter cannot follow, keep every
        hrtimer call, their callbacks' parameters and .function."""
        c = self.conv["cnv_hrtimer_61.c"]
        for kept in ("struct hrtimer watchdog;", "struct hrtimer kick;", "struct hrtimer moded;",
                     "struct hrtimer soft_twin;", "struct hrtimer hard_twin;",
                     "hrtimer_init(&dev->watchdog, CLOCK_MONOTONIC, HRTIMER_MODE_REL);\n"
                     "\tdev->watchdog.function = cnv_hr_watchdog_fn;",
                     "hrtimer_init(&dev->kick, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);",
                     "hrtimer_init(&dev->moded, CLOCK_MONOTONIC, CNV_HR_MODE);",
                     "dev->soft_twin.function = cnv_hr_twin_fn;",
                     "dev->hard_twin.function = cnv_hr_twin_fn;",
                     "hrtimer_init(&dev->tp->pacing_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_SOFT);",
                     "static enum hrtimer_restart cnv_hr_twin_fn(struct hrtimer *t)",
                     "static enum hrtimer_restart cnv_hr_pace_fn(struct hrtimer *t)",
                     "static void cnv_hr_arm(struct hrtimer *t, ktime_t in)",
                     "hrtimer_start(t, in, HRTIMER_MODE_REL_SOFT);",
                     "if (hrtimer_is_queued(&dev->watchdog))",
                     "hrtimer_cancel(&dev->kick);", "hrtimer_cancel(&dev->hard_twin);"):
            self.assertIn(kept, c)
        c = self.conv["cnv_hrtimer.c"]
        for kept in ("struct hrtimer tick;", "struct hrtimer hard;", "struct hrtimer rearm;",
                     "hrtimer_setup(&dev->tick, cnv_hr6_tick_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);",
                     "hrtimer_setup(&dev->hard, cnv_hr6_hard_fn, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_HARD);",
                     "static enum hrtimer_restart cnv_hr6_rearm_fn(struct hrtimer *t)",
                     "hrtimer_cancel(&dev->tick);"):
            self.assertIn(kept, c)

    def test_refused_soft_hrtimers_listed(self):
        """Each soft hrtimer left alone is listed at its setup, with why;
        hard ones are not."""
        lst = "\n".join(left(self.err))
        for name, why in (
                ("kick", r"soft hrtimer left alone: used at \S+cnv_hrtimer_61\.c:\d+ "
                         r"\(cnv_hr_arm\(&dev->kick, ms_to_ktime\(1\)\);\)"),
                ("moded", r"hrtimer left alone: its mode CNV_HR_MODE is not a literal"),
                ("soft_twin", r"soft hrtimer left alone: its callback cnv_hr_twin_fn\(\) cannot be "
                              r"converted: it is also the callback of hard_twin, a hard hrtimer"),
                ("tp->pacing_timer", r"kernel-owned soft hrtimer, left alone: pacing_timer is a "
                                     r"member of struct tcp_sock")):
            self.assertRegex(lst, r"cnv_hrtimer_61\.c:\d+: hrtimer_init\(&dev->%s, [^\n]*: %s"
                             % (re.escape(name), why))
        self.assertRegex(lst, r"cnv_hrtimer\.c:\d+: hrtimer_setup\(&dev->rearm, .*soft hrtimer left "
                              r"alone: its callback cnv_hr6_rearm_fn\(\) cannot be converted: the "
                              r"parameter of cnv_hr6_rearm_fn\(\) is used at \S+:\d+ \(cnv_hr6_again")
        for hard in ("watchdog", "hard_twin", "tick", "hard", "poll"):
            self.assertNotRegex(lst, r"hrtimer_\w+\(&dev->%s," % hard)
        # an hrtimer's .function is no kernel-owned timer_list's
        self.assertNotRegex(lst, r"pacing_timer\.function = .*timer_list")

    def test_hrtimer_setup_converted(self):
        """6.13+'s hrtimer_setup(): two setups of one timer, its callback's
        timer_container_of() and forward."""
        c = self.conv["cnv_hrtimer.c"]
        self.assertEqual(len(re.findall(r"si_hrtimer_setup\(&dev->frame, cnv_hr6_frame_fn, "
                                        r"CLOCK_MONOTONIC,\s+HRTIMER_MODE_REL_SOFT, 0\);", c)), 2)
        for conv in ("struct si_hrtimer frame;",
                     "static enum hrtimer_restart cnv_hr6_frame_fn(struct si_hrtimer *t)",
                     "timer_container_of(dev, t, frame)",
                     "si_hrtimer_forward_now(t, ns_to_ktime(NSEC_PER_MSEC));",

                     "si_hrtimer_cancel(&dev->frame);"):
            self.assertIn(conv, c)
        # under scoped_guard(): si_timer_macros.h lets Coccinelle parse it
        self.assertRegex(c, r"scoped_guard\(spinlock_irqsave, &dev->lock\)\n\t\tsi_hrtimer_start\("
                            r"&dev->frame, ns_to_ktime\(0\),\s+HRTIMER_MODE_REL_SOFT\);")

    def test_hrtimer_never_half_converted(self):
        """A use Coccinelle cannot rewrite (here: code it cannot parse)
        leaves that timer's whole group alone, listed; the others convert."""
        d = os.path.join(self.tmp, "half")
        os.makedirs(d)
        with open(os.path.join(d, "half.c"), "w") as f:
            f.write(HALF_C)
        _, err = migrate(os.path.join(d, "half.c"))
        c = read(os.path.join(d, "half.c"))
        for kept in ("struct hrtimer bad_t;", "static enum hrtimer_restart half_bad_fn(struct hrtimer *t)",
                     "hrtimer_setup(&d->bad_t, half_bad_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);"):
            self.assertIn(kept, c)
        for conv in ("struct si_hrtimer ok_t;", "half_ok_fn(struct si_hrtimer *t)",
                     "si_hrtimer_start(&d->ok_t"):
            self.assertIn(conv, c)
        self.assertRegex("\n".join(left(err)), r"half\.c:\d+: hrtimer_setup\(&d->bad_t, .*soft "
                                               r"hrtimer left alone: the converter could not rewrite")

    def test_semantic_patch_alone_leaves_hrtimers(self):
        """Without the scan's plan, spatch changes no hrtimer: whether one
        is SOFT and its whole group can follow takes the scan."""
        p = subprocess.run(["spatch", "--very-quiet", "--sp-file", COCCI, "-D", "patch",
                            "--no-includes", os.path.join(SAMPLES, "cnv_hrtimer_61.c")],
                           capture_output=True, text=True, timeout=300, env={
                               k: v for k, v in os.environ.items() if not k.startswith("SI_")})
        self.assertNotIn("si_hrtimer", p.stdout)

    def test_reconvert_changes_nothing(self):
        out, _ = migrate("--diff", self.dir)
        self.assertEqual(out, "")

    @unittest.skipUnless(KDIR, "no 6.12 kernel headers installed: converted samples not built")
    def test_converted_samples_build(self):
        """What the converter wrote, kernel-owned timers left as they were,
        compiles against include/si_timer.h and include/si_hrtimer.h (the
        samples of hrtimer_setup(): test_converted_new_api_samples_build)."""
        d = os.path.join(self.tmp, "build")
        shutil.copytree(self.dir, d)
        names = [n for n in sorted(os.listdir(d))
                 if n.endswith(".c") and not new_api(os.path.join(SAMPLES, n))]
        p = build(KDIR, d, names)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
        self.assertNotIn("warning:", p.stderr.replace("WARNING: modpost", ""))

    @unittest.skipUnless(KDIR_NEW, "no 7.x build tree (make deps): hrtimer_setup() samples not built")
    def test_converted_new_api_samples_build(self):
        """The samples written with hrtimer_setup(), as written and as
        converted, compile against a kernel that has it."""
        for tag, src in (("orig", SAMPLES), ("conv", self.dir)):
            d = os.path.join(self.tmp, "build-new-" + tag)
            shutil.copytree(src, d)
            names = [n for n in sorted(os.listdir(d))
                     if n.endswith(".c") and new_api(os.path.join(SAMPLES, n))]
            self.assertTrue(names)
            p = build(KDIR_NEW, d, names)
            self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
            self.assertNotIn("warning:", p.stderr.replace("WARNING: modpost", ""))


if __name__ == "__main__":
    unittest.main()
