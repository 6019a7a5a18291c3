# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of scripts/c_facts.py, the kit's C front end on
Coccinelle's parser (make check-host): struct members across preprocessor
conditionals, functions with their parameters, calls with their arguments,
on a small file and on a real module's files (net/bridge of
linux-source-6.12, where it is installed). Skipped, and said so, without
spatch (apt-get install coccinelle)."""
import os
import shutil
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.path.insert(0, os.path.join(TOP, "selftests"))
import c_facts  # noqa: E402

HAVE_SPATCH = shutil.which("spatch") is not None
TARBALL = os.environ.get("SI_LINUX_SOURCE_TAR", "/usr/src/linux-source-6.12.tar.xz")

HEADER = """struct cft_inner {
\tint depth;
};

struct cft_dev {
\tint users;
#ifdef CONFIG_CFT_DEBUG
\tstruct timer_list debug_timer;
\tint hits;
#else
\tlong misses;
#endif
\tstruct timer_list hello_timer;
\tstruct timer_list a, *b, c[4];
\tconst struct cft_inner *inner;
\tvoid (*cb)(struct timer_list *t);
\tunsigned int flag:1;
\tunion {
\t\tstruct timer_list in_union;
\t\tint word;
\t};
};
"""

SOURCE = """#include "cft.h"

static void cft_fn(struct timer_list *t)
{
\tstruct cft_dev *dev = from_timer(dev, t, hello_timer);
\tint unused, *q;

\tspin_lock(&dev->lock);
#ifdef CONFIG_CFT_DEBUG
\tcft_helper(dev, cft_count(1, 2));
#endif
\tspin_unlock(&dev->lock);
}

int cft_init(struct cft_dev *dev, int n)
{
\ttimer_setup(&dev->hello_timer, cft_fn, 0);
\treturn n;
}

static const struct cft_ops cft_ops = {
\t.start = cft_fn,
\t.stop = &cft_init,
};

static struct cft_ops cft_table[] = {
\t[0] = { .start = cft_fn },
};

void cft_arm(struct cft_dev *dev)
{
\tdev->hello_timer.function = cft_fn;
}
"""


@unittest.skipUnless(HAVE_SPATCH, "spatch not installed (apt-get install coccinelle)")
class Facts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="si-facts-")
        cls.h, cls.c = os.path.join(cls.tmp, "cft.h"), os.path.join(cls.tmp, "cft.c")
        for path, text in ((cls.h, HEADER), (cls.c, SOURCE)):
            with open(path, "w") as f:
                f.write(text)
        os.environ["SI_C_FACTS_CACHE"] = os.path.join(cls.tmp, "cache")
        cls.facts = c_facts.parse([cls.c, cls.h])

    @classmethod
    def tearDownClass(cls):
        del os.environ["SI_C_FACTS_CACHE"]
        shutil.rmtree(cls.tmp)

    def test_members_across_conditionals(self):
        """Every #ifdef branch is read: the member inside the block, the one
        in its #else and the one right after its #endif."""
        m = self.facts.structs["cft_dev"]
        for name in ("debug_timer", "hits", "misses", "hello_timer"):
            self.assertIn(name, m)
        self.assertEqual(m["hello_timer"], "struct timer_list")
        self.assertEqual(c_facts.type_struct(m["debug_timer"]), "timer_list")

    def test_member_types(self):
        m = self.facts.structs["cft_dev"]
        timers = set(n for n, t in m.items() if c_facts.type_is_object(t, ("timer_list",)))
        self.assertEqual(timers, {"debug_timer", "hello_timer", "a", "c", "in_union"})
        self.assertTrue(c_facts.type_is_pointer(m["b"]))
        self.assertEqual(c_facts.type_struct(m["inner"]), "cft_inner")
        self.assertTrue(c_facts.type_is_pointer(m["cb"]))
        self.assertIn("flag", m)
        self.assertEqual(self.facts.structs["cft_inner"], {"depth": "int"})
        where = [x for x in self.facts.members if x[4] == "hello_timer"]
        self.assertEqual([(x[1], x[2]) for x in where], [(13, 19)])

    def test_functions_params_calls(self):
        fn = self.facts.functions["cft_fn"][0]
        self.assertEqual(fn.params, [("t", "struct timer_list *")])
        self.assertEqual((fn.start, fn.end), (3, 13))
        calls = [(c.callee, [c_facts.norm(a) for a in c.args], c.line) for c in fn.calls]
        self.assertEqual(calls, [("from_timer", ["dev", "t", "hello_timer"], 5),
                                 ("spin_lock", ["&dev->lock"], 8),
                                 ("cft_helper", ["dev", "cft_count(1,2)"], 10),
                                 ("cft_count", ["1", "2"], 10),
                                 ("spin_unlock", ["&dev->lock"], 12)])
        init = self.facts.functions["cft_init"][0]
        self.assertEqual(init.params, [("dev", "struct cft_dev *"), ("n", "int")])
        self.assertEqual([c.callee for c in init.calls], ["timer_setup"])
        decls = set((d.name, d.type, d.function) for d in self.facts.decls)
        self.assertIn(("dev", "struct cft_dev *", "cft_fn"), decls)
        self.assertIn(("q", "int *", "cft_fn"), decls)

    def test_fields_given_a_name(self):
        """Ops-table initializers (&fn too, an array's [i] = { }) and
        assignments of a field: the struct, or the left side's text."""
        got = sorted((f.struct or "", f.field, f.value, c_facts.norm(f.lhs or ""), f.line)
                     for f in self.facts.fields if f.path == self.c)
        self.assertEqual(got, [("", "function", "cft_fn", "dev->hello_timer", 32),
                               ("cft_ops", "start", "cft_fn", "", 22),
                               ("cft_ops", "start", "cft_fn", "", 27),
                               ("cft_ops", "stop", "cft_init", "", 23)])

    def test_cached_facts_are_the_same(self):
        again = c_facts.parse([self.c, self.h])
        self.assertEqual(again.members, self.facts.members)
        self.assertEqual([(c.callee, c.args, c.line) for c in again.calls],
                         [(c.callee, c.args, c.line) for c in self.facts.calls])

    @unittest.skipUnless(os.path.exists(TARBALL), "no %s: the real module not parsed" % TARBALL)
    def test_real_module(self):
        """net/bridge of linux-source-6.12: struct net_bridge's hello_timer
        (after an #endif) and the members of its #ifdef blocks, the STP
        timers' setups with their callbacks, and the callbacks' spin_lock()
        of &br->lock."""
        from test_kit_truth import source_tree
        d = os.path.join(source_tree(), "net", "bridge")
        os.environ["SI_C_FACTS_CACHE"] = os.path.join(self.tmp, "cache-bridge")
        f = c_facts.parse([os.path.join(d, n) for n in ("br_private.h", "br_stp_timer.c")])
        br = f.structs["net_bridge"]
        self.assertEqual(br["hello_timer"], "struct timer_list")
        # in #ifdef CONFIG_BRIDGE_IGMP_SNOOPING, and in #if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
        self.assertIn("multicast_lock", br)
        self.assertIn("fake_rtable", br)
        self.assertIn("mep_list", br)         # in #if IS_ENABLED(CONFIG_BRIDGE_CFM), unset on Debian
        setups = dict((c.args[1], c_facts.norm(c.args[0])) for c in f.calls if c.callee == "timer_setup")
        self.assertEqual(setups["br_hello_timer_expired"], "&br->hello_timer")
        self.assertEqual(len(setups), 6)
        locks = set(c.caller for c in f.calls if c.callee == "spin_lock" and
                    c_facts.norm(c.args[0]) == "&br->lock")
        self.assertIn("br_hello_timer_expired", locks)
        self.assertIn("br_tcn_timer_expired", locks)


if __name__ == "__main__":
    unittest.main()
