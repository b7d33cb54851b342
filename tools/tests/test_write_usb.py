# SPDX-License-Identifier: MIT
"""Tests of tools/write-usb: every safety decision on fake sysfs/procfs trees
(never on a real disk), a whole write and read-back onto a regular file
standing in for /dev, and - where we are root and losetup works - onto a loop
device."""

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tools.tests import TOOLS
from trigos import write_usb

WRITE_USB = os.path.join(TOOLS, "write-usb")

USB_PATH = "pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0"
SATA_PATH = "pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0"
NVME_PATH = "pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0"
ISO_BYTES = 3 * 1024 * 1024


class FakeMachine:
    """A sysfs, procfs and /dev under one temporary directory."""

    def __init__(self, root):
        self.sys = os.path.join(root, "sys")
        self.proc = os.path.join(root, "proc")
        self.dev = os.path.join(root, "dev")
        for directory in (os.path.join(self.sys, "class", "block"),
                          os.path.join(self.sys, "dev", "block"),
                          os.path.join(self.proc, "self"), self.dev):
            os.makedirs(directory)
        self.mountinfo = []
        self.write_proc()

    def _link(self, name, real, major_minor):
        os.symlink(real, os.path.join(self.sys, "class", "block", name))
        os.symlink(real, os.path.join(self.sys, "dev", "block", major_minor))

    def add_disk(self, name, path, size, major_minor, removable=0, read_only=0,
                 vendor="SanDisk", model="Cruzer Blade"):
        real = os.path.join(self.sys, "devices", path, "block", name)
        os.makedirs(os.path.join(real, "device"))
        for key, value in (("size", size // 512), ("removable", removable), ("ro", read_only)):
            with open(os.path.join(real, key), "w") as out:
                out.write(f"{value}\n")
        for key, value in (("vendor", vendor), ("model", model)):
            with open(os.path.join(real, "device", key), "w") as out:
                out.write(f"{value:<16}\n")
        self._link(name, real, major_minor)
        with open(os.path.join(self.dev, name), "wb") as device:
            device.truncate(size)
        return real

    def add_partition(self, disk_real, name, major_minor):
        real = os.path.join(disk_real, name)
        os.makedirs(real)
        with open(os.path.join(real, "partition"), "w") as out:
            out.write("1\n")
        self._link(name, real, major_minor)
        return real

    def add_mapper(self, name, below_real, major_minor):
        """A dm device (LVM, dm-crypt) stacked on @below_real."""
        real = os.path.join(self.sys, "devices", "virtual", "block", name)
        os.makedirs(os.path.join(real, "slaves"))
        os.makedirs(os.path.join(below_real, "holders"), exist_ok=True)
        os.symlink(real, os.path.join(below_real, "holders", name))
        os.symlink(below_real, os.path.join(real, "slaves", os.path.basename(below_real)))
        self._link(name, real, major_minor)

    def mount(self, major_minor, source, point):
        self.mountinfo.append(f"{len(self.mountinfo) + 30} 1 {major_minor} / {point} rw - "
                              f"ext4 {source} rw")
        self.write_proc()

    def write_proc(self, swaps=()):
        with open(os.path.join(self.proc, "self", "mountinfo"), "w") as out:
            out.write("".join(line + "\n" for line in self.mountinfo))
        with open(os.path.join(self.proc, "swaps"), "w") as out:
            out.write("Filename\tType\tSize\tUsed\tPriority\n")
            out.writelines(f"{name}\tpartition\t1024\t0\t-2\n" for name in swaps)


class WriteUsbCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="trigos-write-usb-")
        self.fake = FakeMachine(self.tmp.name)
        self.iso = os.path.join(self.tmp.name, "trigos.iso")
        with open(self.iso, "wb") as image:
            image.write(bytes(range(256)) * (ISO_BYTES // 256))
        # The system disk: NVMe, / on its second partition, /boot/efi on the first.
        nvme = self.fake.add_disk("nvme0n1", NVME_PATH, 512 << 30, "259:0",
                                  vendor="", model="Samsung SSD 980")
        self.fake.add_partition(nvme, "nvme0n1p1", "259:1")
        self.fake.add_partition(nvme, "nvme0n1p2", "259:2")
        self.fake.mount("259:2", "/dev/nvme0n1p2", "/")
        self.fake.mount("259:1", "/dev/nvme0n1p1", "/boot/efi")
        self.stick = self.fake.add_disk("sdb", USB_PATH, 16 << 30, "8:16")

    def tearDown(self):
        self.tmp.cleanup()

    def machine(self):
        return write_usb.Machine(self.fake.sys, self.fake.proc)

    def refusal(self, name, force=False, iso_size=ISO_BYTES):
        with self.assertRaises(write_usb.Refused) as caught:
            write_usb.check_device(self.machine(), name, iso_size, force)
        return str(caught.exception)

    def run_tool(self, *args):
        return subprocess.run([sys.executable, WRITE_USB, "--iso", self.iso,
                               "--sysfs-root", self.fake.sys, "--proc-root", self.fake.proc,
                               "--dev-root", self.fake.dev, *args],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=60)


class DecisionTest(WriteUsbCase):
    def test_usb_stick_reporting_non_removable_is_accepted(self):
        info = write_usb.check_device(self.machine(), "sdb", ISO_BYTES, False)
        self.assertEqual(info["bus"], "usb")
        self.assertFalse(info["removable"])
        self.assertEqual(info["model"], "SanDisk Cruzer Blade")
        self.assertEqual(info["size"], 16 << 30)

    def test_system_disk_is_refused_even_with_force(self):
        self.assertIn("nvme0n1 holds /", self.refusal("nvme0n1", force=True))

    def test_system_disk_under_lvm_is_refused(self):
        sata = self.fake.add_disk("sda", SATA_PATH, 1 << 40, "8:0", model="WDC")
        partition = self.fake.add_partition(sata, "sda2", "8:2")
        self.fake.add_mapper("dm-0", partition, "253:0")
        self.fake.mount("253:0", "/dev/mapper/vg-home", "/boot")
        self.assertIn("sda holds /boot (through dm-0)", self.refusal("sda", force=True))

    def test_mounted_partition_is_refused(self):
        self.fake.add_partition(self.stick, "sdb1", "8:17")
        self.fake.mount("8:17", "/dev/sdb1", "/media/user/STICK")
        message = self.refusal("sdb", force=True)
        self.assertIn("sdb1 is mounted on /media/user/STICK", message)

    def test_mount_found_by_source_when_the_number_is_unknown(self):
        self.fake.add_partition(self.stick, "sdb1", "8:17")
        self.fake.mount("0:99", "/dev/sdb1", "/mnt/with\\040space")
        self.assertIn("sdb1 is mounted on /mnt/with space", self.refusal("sdb"))

    def test_holder_of_a_partition_in_use_is_refused(self):
        partition = self.fake.add_partition(self.stick, "sdb1", "8:17")
        self.fake.add_mapper("dm-3", partition, "253:3")
        self.fake.mount("253:3", "/dev/mapper/luks-stick", "/secret")
        self.assertIn("dm-3 is mounted on /secret", self.refusal("sdb"))

    def test_swap_on_the_device_is_refused(self):
        self.fake.add_partition(self.stick, "sdb2", "8:18")
        self.fake.write_proc(swaps=["/dev/sdb2"])
        self.assertIn("sdb2 is a swap area", self.refusal("sdb"))

    def test_partition_is_refused_naming_its_disk(self):
        self.fake.add_partition(self.stick, "sdb1", "8:17")
        self.assertIn("give the whole disk (sdb)", self.refusal("sdb1"))

    def test_too_small_device_is_refused(self):
        self.fake.add_disk("sdc", USB_PATH.replace("2-1", "2-2"), 1 << 20, "8:32")
        self.assertIn("less than the ISO's", self.refusal("sdc"))

    def test_read_only_device_is_refused(self):
        self.fake.add_disk("sdd", USB_PATH.replace("2-1", "2-3"), 1 << 30, "8:48", read_only=1)
        self.assertIn("read-only", self.refusal("sdd"))

    def test_other_buses_need_force(self):
        self.fake.add_disk("sde", SATA_PATH.replace("ata1", "ata2"), 1 << 30, "8:64")
        self.fake.add_disk("mmcblk0", "pci0000:00/0000:00:1e.6/mmc_host/mmc0/mmc0:aaaa",
                           1 << 30, "179:0", removable=1)
        self.assertIn("non-removable disk on the ata bus", self.refusal("sde"))
        self.assertIn("removable disk on the mmc bus", self.refusal("mmcblk0"))
        for name in ("sde", "mmcblk0"):
            write_usb.check_device(self.machine(), name, ISO_BYTES, True)

    def test_unknown_device_is_refused(self):
        self.assertIn("not a block device", self.refusal("sdz"))

    def test_bus_names(self):
        self.assertEqual(write_usb.bus_of("/sys/devices/" + USB_PATH + "/block/sdb"), "usb")
        self.assertEqual(write_usb.bus_of("/sys/devices/" + NVME_PATH + "/nvme0n1"), "nvme")
        self.assertEqual(write_usb.bus_of("/sys/devices/virtual/block/loop0"), "virtual")
        # "usb" inside a longer name is no USB bus.
        self.assertEqual(write_usb.bus_of("/sys/devices/platform/notusb1x/block/x"), "unknown")


class ConfirmationTest(unittest.TestCase):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    def test_only_yes_confirms(self):
        with contextlib.redirect_stderr(io.StringIO()) as prompts:
            self.assertTrue(write_usb.confirm("Sure?", False, self.Terminal("yes\n")))
            self.assertFalse(write_usb.confirm("Sure?", False, self.Terminal("y\n")))
        self.assertIn("Sure? Type 'yes' to go on: ", prompts.getvalue())
        self.assertTrue(write_usb.confirm("?", True, io.StringIO("")))

    def test_no_terminal_without_yes_is_refused(self):
        with self.assertRaises(write_usb.Refused):
            write_usb.confirm("?", False, io.StringIO("yes\n"))


class WholeRunTest(WriteUsbCase):
    def test_write_and_verify_on_a_stand_in_file(self):
        result = self.run_tool("--yes", "/dev/sdb")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("SanDisk Cruzer Blade, 17.2 GB (17179869184 bytes), bus usb, "
                      "reports non-removable", result.stderr)
        self.assertIn("verified", result.stderr)
        with open(os.path.join(self.fake.dev, "sdb"), "rb") as device, \
                open(self.iso, "rb") as image:
            self.assertEqual(device.read(ISO_BYTES), image.read())

    def test_refusals_write_nothing(self):
        for args in (["--yes", "nvme0n1", "--force"], ["sdb"], ["--yes", "/tmp/sdb"]):
            result = self.run_tool(*args)
            self.assertIn(result.returncode, (1, 2), result.stderr)
        with open(os.path.join(self.fake.dev, "sdb"), "rb") as device:
            self.assertEqual(device.read(ISO_BYTES).count(0), ISO_BYTES)

    def test_missing_iso_is_a_usage_error(self):
        os.unlink(self.iso)
        result = self.run_tool("--yes", "sdb")
        self.assertEqual(result.returncode, 2)
        self.assertIn("make iso", result.stderr)


@unittest.skipUnless(os.geteuid() == 0 and shutil.which("losetup"), "needs root and losetup")
class LoopDeviceTest(unittest.TestCase):
    """A real block device (a loop device over a file); never a real disk."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="trigos-write-usb-loop-")
        self.backing = os.path.join(self.tmp.name, "stick.img")
        with open(self.backing, "wb") as backing:
            backing.truncate(8 << 20)
        self.iso = os.path.join(self.tmp.name, "trigos.iso")
        with open(self.iso, "wb") as image:
            image.write(os.urandom(ISO_BYTES))
        attached = subprocess.run(["losetup", "--find", "--show", self.backing],
                                  capture_output=True, text=True)
        if attached.returncode != 0:
            self.tmp.cleanup()
            self.skipTest(f"losetup failed: {attached.stderr.strip()}")
        self.loop = attached.stdout.strip()

    def tearDown(self):
        subprocess.run(["losetup", "--detach", self.loop], capture_output=True)
        self.tmp.cleanup()

    def run_tool(self, *args):
        return subprocess.run([sys.executable, WRITE_USB, "--iso", self.iso, *args],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=60)

    def test_loop_device_needs_force_then_verifies(self):
        refused = self.run_tool("--yes", self.loop)
        self.assertEqual(refused.returncode, 1, refused.stderr)
        self.assertIn("on the virtual bus, not USB", refused.stderr)
        written = self.run_tool("--yes", "--force", self.loop)
        self.assertEqual(written.returncode, 0, written.stderr)
        self.assertIn("verified", written.stderr)
        with open(self.backing, "rb") as backing, open(self.iso, "rb") as image:
            self.assertEqual(backing.read(ISO_BYTES), image.read())


if __name__ == "__main__":
    unittest.main()
