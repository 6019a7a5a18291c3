# SPDX-License-Identifier: GPL-2.0
"""The audit against ground truth on real modules (make check-host):
selftests/kit-truth/<module>.txt, written by reading linux-source-6.12 before
running the kit, name a file of the module (audited as a user would, FILE=)
and each callback's true verdict. The modules' directories are extracted from
/usr/src/linux-source-6.12.tar.xz once, into build/kit-truth/.

A `safe` where the truth is anything else fails: that is the verdict that
deadlocks a machine. A more cautious verdict (review where the truth is safe,
review where it is needs_bh) is allowed, and counted."""
import glob
import os
import shutil
import subprocess
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AUDIT = os.path.join(TOP, "scripts", "si-timer-audit.py")
TRUTH = os.path.join(TOP, "selftests", "kit-truth")
TARBALL = os.environ.get("SI_LINUX_SOURCE_TAR", "/usr/src/linux-source-6.12.tar.xz")
PREFIX = "linux-source-6.12/"
# Directories extracted whole; a directory too big for that (drivers/net):
# its Makefile and the files the truth names.
WHOLE_MAX_DEPTH = {"drivers/net": False}


def truths():
    out = {}
    for path in sorted(glob.glob(os.path.join(TRUTH, "*.txt"))):
        f, cbs = None, {}
        with open(path) as fh:
            for line in fh:
                if line.startswith("#") or not line.strip():
                    continue
                parts = line.rstrip("\n").split("\t")
                if parts[0] == "file":
                    f = parts[1]
                else:
                    cbs[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
        out[os.path.basename(path)[:-4]] = (f, cbs)
    return out


def source_tree():
    """build/kit-truth/<tarball's size and mtime>/: the modules' directories."""
    st = os.stat(TARBALL)
    root = os.path.join(TOP, "build", "kit-truth", "%d-%d" % (st.st_size, int(st.st_mtime)))
    done = os.path.join(root, ".done")
    if os.path.exists(done):
        return os.path.join(root, PREFIX)
    pats = set()
    for f, _ in truths().values():
        d = os.path.dirname(f)
        if WHOLE_MAX_DEPTH.get(d, True):
            pats.add(PREFIX + d + "/*")
        else:
            pats.update((PREFIX + d + "/Makefile", PREFIX + f))
    os.makedirs(root, exist_ok=True)
    p = subprocess.run(["nice", "-n", "10", "tar", "-xJf", TARBALL, "-C", root, "--wildcards"] +
                       sorted(pats), capture_output=True, text=True, timeout=600)
    if p.returncode:
        raise AssertionError("tar: %s" % p.stderr[-2000:])
    open(done, "w").close()
    return os.path.join(root, PREFIX)


@unittest.skipUnless(shutil.which("spatch"), "no spatch (apt-get install coccinelle): the audit reads "
                     "C with Coccinelle's parser")
@unittest.skipUnless(os.path.exists(TARBALL), "no %s (apt-get install linux-source-6.12): "
                     "the audit not checked against ground truth" % TARBALL)
class AuditTruth(unittest.TestCase):
    def test_no_wrong_safe(self):
        """0 wrong safe on every module with a ground truth; every callback
        of the truth reported."""
        src = source_tree()
        wrong, cautious, right, rows = [], [], 0, []
        for mod, (f, cbs) in truths().items():
            p = subprocess.run([sys.executable, AUDIT, "--format=tsv", os.path.join(src, f)],
                               capture_output=True, text=True, timeout=600, cwd=src)
            self.assertEqual(p.returncode, 0, "%s: %s" % (mod, p.stderr[-2000:]))
            got = {}
            for line in p.stdout.splitlines():
                c = line.split("\t")
                got[c[1]] = (c[2], c[4], c[5])
            for cb, (want, why) in cbs.items():
                self.assertIn(cb, got, "%s: %s() not reported by the audit (truth: %s)" % (mod, cb, want))
                v, reason, read = got[cb]
                self.assertIn("module %s " % mod, read, "%s: %s() did not read its module: %s"
                              % (mod, cb, read))
                if v == want:
                    right += 1
                elif v == "safe":
                    wrong.append("%s: %s() safe, truth %s (%s); audit: %s" % (mod, cb, want, why, reason))
                else:
                    cautious.append("%s: %s() %s, truth %s" % (mod, cb, v, want))
                rows.append((mod, cb, want, v))
        sys.stderr.write("\nkit truth: %d callbacks of %d modules: %d right, %d more cautious, %d wrong safe\n"
                         % (len(rows), len(truths()), right, len(cautious), len(wrong)))
        for c in cautious:
            sys.stderr.write("  cautious: %s\n" % c)
        self.assertGreaterEqual(len(truths()), 10)
        self.assertEqual(wrong, [], "wrong safe:\n" + "\n".join(wrong))


if __name__ == "__main__":
    unittest.main()
