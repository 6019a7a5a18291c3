#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of scripts/arch.sh, the harness's one table of
architecture differences (`make check-host`): which kernel names are arm64,
and what each architecture builds and boots with."""
import os
import subprocess
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bash(script):
    return subprocess.run(["bash", "-c", ". scripts/arch.sh; " + script], cwd=TOP,
                          capture_output=True, text=True, check=True,
                          env=dict(os.environ, SI_TSC_KHZ="2000000")).stdout


class ArchOf(unittest.TestCase):
    def test_names(self):
        for name, arch in (("6.12-rt-arm64", "arm64"), ("6.1-rt-arm64", "arm64"),
                           ("7.x-rt-arm64", "arm64"), ("6.12-rt-arm64-mttcg", "arm64"),
                           ("6.12-rt-arm64-lockdep-bh", "arm64"), ("kasan-rt-arm64", "arm64"),
                           ("6.12-rt", "x86_64"),
                           ("7.x-rt", "x86_64"), ("kasan-lockdep-bh", "x86_64"),
                           ("6.1.0-57-rt-amd64", "x86_64")):
            self.assertEqual(bash("si_arch_of %s" % name).strip(), arch, name)


class Setup(unittest.TestCase):
    SHOW = ('si_arch_setup %s; printf "%%s|" "${SI_KMAKE[*]}" "$SI_BUSYBOX" "$SI_USER_CC" '
            '"${SI_QEMU[*]}" "$SI_APPEND_ARCH" "$SI_TIMEOUT_FACTOR" "$SI_KIMAGE"')

    def test_arm64(self):
        kmake, busybox, cc, qemu, append, factor, image = bash(self.SHOW % "arm64").split("|")[:7]
        self.assertEqual(kmake, "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-")
        self.assertEqual(image, "arch/arm64/boot/Image")
        self.assertTrue(busybox.endswith("/arm64/busybox"))
        self.assertEqual(cc, "aarch64-linux-gnu-gcc-12")
        self.assertEqual(qemu, "qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on")
        self.assertEqual(append, "console=ttyAMA0")
        self.assertEqual(factor, "2")

    def test_x86(self):
        kmake, busybox, cc, qemu, append, factor, image = bash(self.SHOW % "x86_64").split("|")[:7]
        self.assertEqual((kmake, busybox, cc, qemu, factor, image),
                         ("", "/bin/busybox", "gcc", "qemu-system-x86_64", "1",
                          "arch/x86/boot/bzImage"))
        self.assertEqual(append, "console=ttyS0 tsc=reliable tsc_early_khz=2000000")

    def test_unknown(self):
        with self.assertRaises(subprocess.CalledProcessError):
            bash("si_arch_setup riscv64")


if __name__ == "__main__":
    unittest.main()
