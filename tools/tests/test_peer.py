"""Tests of tools/peer: the Linux boot-log reading, the initramfs writer (no QEMU, no network)."""
import io
import os
import tempfile
import unittest

from tools.tests import read_data
from trigos import bench, peer

# Shaped like what Debian's 6.1 cloud kernel prints on COM1 here (written for
# this test): APs print their own clock in between, lines end in CR LF.
BOOT_LOG = read_data("peer/linux-boot.log")


def timed(text, host_start=2.0, step=0.25):
    return [(host_start + step * index, line) for index, line in enumerate(text.splitlines(True))]


class AnalyseBoot(unittest.TestCase):
    def test_bringup_by_guest_clock_and_by_host_arrival(self):
        found = peer.analyse_boot(timed(BOOT_LOG))
        self.assertEqual(found["problems"], [])
        self.assertAlmostEqual(found["printk_bringing_up"], 0.750907)
        self.assertAlmostEqual(found["printk_brought_up"], 1.872253)
        self.assertEqual((found["nodes"], found["cpus_up"], found["marker_cpus"]), (1, 4, 4))
        self.assertTrue(found["powered_off"])
        records = {(r["name"], r["clock"]): r for r in peer.boot_records(found, 4)}
        self.assertEqual(records[("ap_bringup", "guest printk")]["value"], 1121346)
        # Lines 3 and 8 of the log arrived 5 steps of 0.25 s apart.
        self.assertEqual(records[("ap_bringup", "host-observed")]["value"], 1250000)
        self.assertEqual(records[("kernel_entry_to_first_init", "guest printk")]["value"], 750907)
        self.assertEqual(records[("user_init_start", "guest printk")]["value"], 4314015)
        for record in records.values():
            self.assertEqual((record["peer"], record["cpus"], record["unit"]), ("linux", 4, "us"))

    def test_singular_node_and_cpu_words_and_no_host_times(self):
        log = [(None, "[    1.000000] smp: Bringing up secondary CPUs ..."),
               (None, "[    1.500000] smp: Brought up 2 nodes, 1 CPU"),
               (None, "TRIGOS-PEER-INIT cpus=1")]
        found = peer.analyse_boot(log)
        self.assertEqual((found["nodes"], found["cpus_up"]), (2, 1))
        names = [(r["name"], r["clock"]) for r in peer.boot_records(found, 1)]
        self.assertIn(("ap_bringup", "guest printk"), names)
        self.assertNotIn(("ap_bringup", "host-observed"), names)

    def test_a_boot_that_stopped_early_says_what_is_missing(self):
        found = peer.analyse_boot(timed(BOOT_LOG.split("[    0.752359]")[0]))
        self.assertEqual(len(found["problems"]), 2)
        self.assertIn("Brought up", found["problems"][0])
        self.assertIn("TRIGOS-PEER-INIT", found["problems"][1])
        self.assertEqual([r["name"] for r in peer.boot_records(found, 4)],
                         ["kernel_entry_to_first_init"])
        found = peer.analyse_boot([(0.0, "garbage \x00\xff"), (1.0, "[ bad ] smp: x")])
        self.assertEqual(len(found["problems"]), 3)
        self.assertEqual(peer.boot_records(found, 2), [])


class Boot(unittest.TestCase):
    def test_a_qemu_that_cannot_start_is_a_problem_not_a_crash(self):
        saved = peer.qemu_command
        peer.qemu_command = lambda files, initramfs, cpus: ["/nonexistent/qemu-system-x86_64"]
        try:
            with tempfile.TemporaryDirectory() as directory:
                entry = peer.boot({"kernel_release": "6.1", "packages": []}, "initrd", 2,
                                  os.path.join(directory, "linux.log"))
        finally:
            peer.qemu_command = saved
        self.assertEqual((entry["config"], entry["results"]), ("linux-2cpu", []))
        self.assertIn("cannot start /nonexistent/qemu-system-x86_64", entry["problems"][0])
        out = io.StringIO()
        progress = bench.Progress(1, out=out)
        progress.begin("linux-2cpu")
        progress.end(entry)
        self.assertIn("linux-2cpu: 0.0 s, 0 figures, exit None", out.getvalue())


class Packages(unittest.TestCase):
    def test_versioned_kernel_from_the_meta_package_depends(self):
        self.assertEqual(peer.versioned_kernel_package(
            "linux-image-6.1.0-57-cloud-amd64 (= 6.1.192-3)\n"), "linux-image-6.1.0-57-cloud-amd64")
        self.assertEqual(peer.versioned_kernel_package("initramfs-tools | linux-initramfs-tool, "
                                                       "linux-image-6.1.0-9-cloud-amd64"),
                         "linux-image-6.1.0-9-cloud-amd64")
        self.assertIsNone(peer.versioned_kernel_package(""))

    def test_qemu_command_is_tools_runs_with_the_peer(self):
        command = peer.qemu_command({"kernel": "vmlinuz-x"}, "initrd.cpio", 8)
        self.assertEqual(command[command.index("-smp") + 1], "8")
        self.assertEqual(command[command.index("-accel") + 1], "tcg")
        self.assertEqual(command[command.index("-cpu") + 1], "max")
        self.assertEqual(command[command.index("-kernel") + 1], "vmlinuz-x")
        self.assertEqual(command[command.index("-initrd") + 1], "initrd.cpio")
        self.assertIn("console=ttyS0", command[command.index("-append") + 1])
        self.assertIn("-no-reboot", command)


def read_cpio(data):
    """(name, mode, rdev, body) of every member of a newc archive (to check the writer)."""
    members, offset = [], 0
    while True:
        assert data[offset:offset + 6] == b"070701", offset
        fields = [int(data[offset + 6 + 8 * i:offset + 14 + 8 * i], 16) for i in range(13)]
        name_size, file_size = fields[11], fields[6]
        name_start = offset + 110
        name = data[name_start:name_start + name_size - 1].decode()
        assert data[name_start + name_size - 1] == 0
        body_start = name_start + name_size + (-(110 + name_size) % 4)
        body = data[body_start:body_start + file_size]
        offset = body_start + file_size + (-file_size % 4)
        if name == "TRAILER!!!":
            return members, offset
        members.append((name, fields[1], (fields[9], fields[10]), body))


class Initramfs(unittest.TestCase):
    def test_newc_archive_reads_back(self):
        archive = peer.cpio_newc([("bin", 0o040755, b""), ("init", 0o100755, b"#!x\n12345"),
                                  ("dev/console", 0o020600, b"", (5, 1))])
        members, end = read_cpio(archive)
        self.assertEqual(end, len(archive))
        self.assertEqual(len(archive) % 4, 0)
        self.assertEqual(members, [("bin", 0o040755, (0, 0), b""),
                                   ("init", 0o100755, (0, 0), b"#!x\n12345"),
                                   ("dev/console", 0o020600, (5, 1), b"")])

    def test_init_script_prints_the_marker_and_powers_off(self):
        self.assertTrue(peer.INIT_SCRIPT.startswith("#!/bin/busybox sh\n"))
        self.assertIn('echo "%s cpus=' % peer.MARKER, peer.INIT_SCRIPT)
        self.assertIn("poweroff -f", peer.INIT_SCRIPT)


if __name__ == "__main__":
    unittest.main()
