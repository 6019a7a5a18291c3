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
SAMPLES = os.path.join(TOP, "samples", "convert")
KDIRS = sorted(glob.glob("/usr/src/linux-headers-6.12*-amd64"))
KDIR = os.environ.get("KDIR") or (KDIRS[-1] if KDIRS else "")
HAVE_SPATCH = shutil.which("spatch") is not None


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
    lines = stderr.splitlines()
    if not lines:
        return []
    assert lines[0].startswith("si-migrate: left for you"), stderr
    return lines[1:]


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
        cls.conv = {n: read(os.path.join(cls.dir, n)) for n in os.listdir(cls.dir)}

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
            call = re.match(r"(\w+\(.*?\)): kernel-owned", line[m.start(3):])
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
            at = [i for i, l in enumerate(lines, 1) if l == "#include <si_timer.h>"]
            self.assertEqual(len(at), 1, name)
            self.assertNotIn(at[0], code_lines(text), "%s: <si_timer.h> inside an #if" % name)

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

    def test_diff_mode(self):
        """--diff changes nothing, prints the change and the same list."""
        d = os.path.join(self.tmp, "diff")
        shutil.copytree(SAMPLES, d)
        out, err = migrate("--diff", d)
        for n in os.listdir(d):
            self.assertEqual(read(os.path.join(d, n)), read(os.path.join(SAMPLES, n)))
        self.assertIn("+#include <si_timer.h>", out)
        self.assertTrue(left(err), "nothing listed with --diff")
        self.assertEqual(left(err), [x.replace(self.dir, d) for x in left(self.err)])

    def test_nothing_left_nothing_listed(self):
        """A driver with nothing left converts with exit 0 and no list, one
        file at a time as well (a grep finding nothing stopped the script)."""
        d = os.path.join(self.tmp, "migrate")
        shutil.copytree(os.path.join(TOP, "samples", "migrate"), d)
        for n in sorted(os.listdir(d)):
            _, err = migrate(os.path.join(d, n))
            self.assertEqual(left(err), [], n)
            self.assertIn("#include <si_timer.h>", read(os.path.join(d, n)))

    def test_reconvert_changes_nothing(self):
        out, _ = migrate("--diff", self.dir)
        self.assertEqual(out, "")

    @unittest.skipUnless(KDIR, "no 6.12 kernel headers installed: converted samples not built")
    def test_converted_samples_build(self):
        """What the converter wrote, kernel-owned timers left as they were,
        compiles against include/si_timer.h."""
        d = os.path.join(self.tmp, "build")
        shutil.copytree(self.dir, d)
        objs = " ".join(n[:-2] + ".o" for n in sorted(os.listdir(d)) if n.endswith(".c"))
        with open(os.path.join(d, "Kbuild"), "w") as f:
            f.write("ccflags-y += -I%s/include\nobj-m := %s\n" % (TOP, objs))
        p = subprocess.run(["make", "-C", KDIR, "M=" + d, "KBUILD_MODPOST_WARN=1", "modules"],
                           capture_output=True, text=True, timeout=900)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
        self.assertNotIn("warning:", p.stderr.replace("WARNING: modpost", ""))


if __name__ == "__main__":
    unittest.main()
