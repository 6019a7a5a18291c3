#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of scripts/build-debug-kernel.sh that build nothing
(`make check-host`): which config fragments a debug kernel's name selects,
and the names it refuses. The cache key hashes the fragments and the kernel
patches (selftests/config/patches/): adding an architecture must not change
the x86 kernels' keys. A cache directory with a `done` stamp at the expected
key is the script's fast path."""
import glob
import hashlib
import os
import re
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(TOP, "scripts", "build-debug-kernel.sh")
CONFIGS = os.path.join(TOP, "selftests", "config")


def source_version():
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "linux-source-6.12"],
                       capture_output=True, text=True)
    return r.stdout if r.returncode == 0 and r.stdout else None


def run(name, cache):
    return subprocess.run(["bash", SCRIPT, name], capture_output=True, text=True,
                          env=dict(os.environ, SI_CACHE=cache,
                                   SI_LINUX_SOURCE_TAR=os.devnull))


class Fragments(unittest.TestCase):
    def setUp(self):
        self.version = source_version()
        if not self.version:
            self.skipTest("linux-source-6.12 not installed")
        with open(SCRIPT) as f:
            self.script_version = re.search(r"^SCRIPT_VERSION=(\S+)$", f.read(), re.M).group(1)
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def expect(self, name, fragments):
        """The cache dir of NAME if its key hashes FRAGMENTS, in order."""
        h = hashlib.sha256()
        patches = sorted(glob.glob(os.path.join(CONFIGS, "patches", "*.patch")))
        for path in [os.path.join(CONFIGS, frag) for frag in fragments] + patches:
            with open(path, "rb") as f:
                h.update(f.read())
        key = re.sub(r"[^A-Za-z0-9._+\n-]", "_", "%s-%s-%s-v%s" % (
            name, self.version, h.hexdigest()[:12], self.script_version))
        d = os.path.join(self.tmp.name, "debug-kernel", key)
        os.makedirs(d)
        open(os.path.join(d, "done"), "w").close()
        return d

    def test_x86(self):
        for name in ("kasan", "kasan-rt", "kcsan-rt"):
            d = self.expect(name, ["debug-rt.config", name + ".config"])
            r = run(name, self.tmp.name)
            self.assertEqual((r.returncode, r.stdout), (0, d + "\n"), r.stderr)

    def test_arm64(self):
        d = self.expect("kasan-rt-arm64",
                        ["debug-rt.config", "debug-rt-arm64.config", "kasan-rt.config"])
        r = run("kasan-rt-arm64", self.tmp.name)
        self.assertEqual((r.returncode, r.stdout), (0, d + "\n"), r.stderr)

    def test_refused(self):
        for name in ("", "debug-rt", "debug-rt-arm64", "kasan-rt-arm64-mttcg", "../kasan",
                     "nosuch-arm64"):
            r = run(name, self.tmp.name)
            self.assertEqual((r.returncode, r.stdout), (1, ""), name)
            self.assertIn("error:", r.stderr, name)
        self.assertEqual(os.listdir(self.tmp.name), [])


if __name__ == "__main__":
    unittest.main()
