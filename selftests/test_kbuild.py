# SPDX-License-Identifier: GPL-2.0
"""make check-host: the checkout builds with plain kbuild, as a packager or
anyone without our Makefile runs it: `make -C <headers> M=<dir> -jN modules`
on a clean copy. Every object is compiled with the probe of the target's
headers (generated/si_compat_probed.h) force-included, so Kbuild must make
each one depend on it; one left out compiles before the probe ran, now and
then, under -j (fatal error: generated/si_compat_probed.h: No such file).

Against the 6.12 RT headers that `make deps` installs; their absence is a
failure, not a skip. SI_KBUILD_KDIR picks other headers, SI_KBUILD_JOBS the
-j (default 4), SI_KBUILD_SRC another checkout to copy (to show the check
fail on an older Kbuild)."""
import glob
import os
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.environ.get("SI_KBUILD_SRC") or TOP
JOBS = os.environ.get("SI_KBUILD_JOBS", "4")
KDIR_GLOB = "/lib/modules/6.12*-rt-amd64/build"
# Products of a build in place, never copied (the copy must be clean).
BUILT = ("*.o", "*.ko", "*.mod", "*.mod.c", "*.cmd", "*.order", "Module.symvers",
         "generated", "build", ".git", "__pycache__", ".tmp_versions", "*.tmp", ".*.o.d")


def kdir():
    """The kernel build tree to build against, or None."""
    if os.environ.get("SI_KBUILD_KDIR"):
        return os.environ["SI_KBUILD_KDIR"]
    found = sorted(d for d in glob.glob(KDIR_GLOB) if os.path.isfile(os.path.join(d, "Makefile")))
    return found[-1] if found else None


def clean_copy(src, dst):
    """The source files of @src into @dst: git's view of the checkout
    (tracked and new, not ignored) when it is one, else the tree without
    build products."""
    try:
        out = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns(*BUILT))
        return
    for rel in out.decode().split("\0"):
        path = os.path.join(src, rel)
        if not rel or not os.path.isfile(path):
            continue
        os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
        shutil.copy2(path, os.path.join(dst, rel))


class PlainKbuild(unittest.TestCase):
    def test_parallel_build_of_clean_copy(self):
        kd = kdir()
        self.assertTrue(kd and os.path.isdir(kd),
                        "no kernel headers: %s (or SI_KBUILD_KDIR) missing; `make deps` "
                        "installs them" % KDIR_GLOB)
        with tempfile.TemporaryDirectory(prefix="si-kbuild-") as tmp:
            tree = os.path.join(tmp, "si_timer")
            clean_copy(SRC, tree)
            self.assertFalse(os.path.exists(os.path.join(tree, "generated")),
                             "the copy is not clean")
            log = os.path.join(tmp, "build.log")
            with open(log, "w") as f:
                rc = subprocess.run(["nice", "-n", "5", "make", "-C", kd, "M=" + tree,
                                     "-j" + JOBS, "modules"],
                                    stdout=f, stderr=subprocess.STDOUT, timeout=1800).returncode
            with open(log, errors="replace") as f:
                tail = "".join(f.readlines()[-30:])
            self.assertEqual(rc, 0, "make -C %s M=<clean copy> -j%s modules failed (%d):\n%s"
                             % (kd, JOBS, rc, tail))
            # every module Kbuild names, the tests' and the benchmarks' too
            for ko in ("si_timer.ko", "selftests/si_timer_smoke.ko",
                       "bench/si_timer_bench.ko", "bench/si_bench_empty.ko"):
                self.assertTrue(os.path.isfile(os.path.join(tree, ko)),
                                "%s not built:\n%s" % (ko, tail))


if __name__ == "__main__":
    unittest.main()
