#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Boot a real peer, Debian's Linux, in the same QEMU as trigos, and time its AP bring-up.

  tools/peer [--cpus N ...] [--dir build/peer] [--log-dir DIR] [--timeout S]
             [--kvm-unit-tests DIR [--no-linux]]

The peer is Debian's cloud kernel (package linux-image-cloud-amd64, which
depends on the versioned linux-image-*-cloud-amd64 holding the kernel) with a
busybox (busybox-static) initramfs whose /init prints a marker and powers off.
The packages are fetched with `apt-get download` into DIR/debs and unpacked
with `dpkg-deb -x`, keeping DIR/vmlinuz-* and DIR/busybox: they are never installed on the host (a
kernel package's hooks would rewrite the host's boot loader).  Both are kept
and reused; delete DIR to fetch them again.

Each boot uses tools/run's QEMU command for --boot kernel (TCG, -cpu max, the
same -smp), with -initrd and console=ttyS0.  Figures, read from the boot log:

  ap_bringup                  "smp: Bringing up secondary CPUs" to "smp: Brought
                              up N node(s), M CPUs", by the guest's own printk
                              timestamps (clock "guest printk") and by the host
                              time each line arrived on the serial port (clock
                              "host-observed"; under overcommit the guest clock
                              may fall behind, see the log's clocksource lines)
  kernel_entry_to_first_init  printk time of "Bringing up secondary CPUs"
                              (printk time starts near kernel entry)
  user_init_start             printk time of "Run /init as init process"
  and the whole QEMU run's wall time.

With --kvm-unit-tests DIR it also builds kvm-unit-tests from the clone DIR,
out of tree in --dir's kvm-unit-tests/ (DIR is not written into, its sources
are never changed), and boots its smptest.flat at each --cpus and vmexit.flat
ipi and ipi_halt at 2 vCPUs in the same QEMU, timed from outside by the host's
arrival times of its serial lines (tools/trigos/kvm_unit_tests.py says which
lines); --no-linux boots only those.  kvm-unit-tests is not a Debian package:
clone it first where there is a network, e.g.
  git clone https://gitlab.com/kvm-unit-tests/kvm-unit-tests ~/kvm-unit-tests
  tools/peer --kvm-unit-tests ~/kvm-unit-tests --no-linux --cpus 2 --cpus 8
Each run is printed as one JSON line (the tools/bench results format); the exit
status is 1 when a peer was not measured or a boot had a problem.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

from . import kvm_unit_tests, peer_timing, qemu
from .peer_timing import PeerUnavailable

KERNEL_PACKAGE = "linux-image-cloud-amd64"
BUSYBOX_PACKAGE = "busybox-static"
MARKER = "TRIGOS-PEER-INIT"
MEMORY_MB = 512
KERNEL_CMDLINE = "console=ttyS0 panic=-1"
PRINTK_LINE = re.compile(r"^\[\s*(\d+)\.(\d+)\]\s?(.*)$")
BRINGING_UP = "smp: Bringing up secondary CPUs"
BROUGHT_UP = re.compile(r"smp: Brought up (\d+) nodes?, (\d+) CPUs?")
RUN_INIT = "Run /init as init process"
INIT_SCRIPT = """#!/bin/busybox sh
# The whole user space of the peer: say it got here, then power off at once.
echo "%s cpus=$(/bin/busybox nproc)"
/bin/busybox poweroff -f
""" % MARKER


# --- Fetching and unpacking -------------------------------------------------

def _apt_download(packages, directory):
    """`apt-get download PACKAGES` in @directory; return (ok, output)."""
    try:
        done = subprocess.run(["apt-get", "download", "-q"] + packages, cwd=directory,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, str(error)
    return done.returncode == 0, done.stdout


def _download(packages, directory, say):
    ok, output = _apt_download(packages, directory)
    if not ok and "Unable to locate package" in output and os.geteuid() == 0:
        # A clean container has no package lists yet: fetch them once.
        say("peer: no package lists; running apt-get update")
        subprocess.run(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        ok, output = _apt_download(packages, directory)
    if not ok:
        last = [line for line in output.splitlines() if line.strip()][-3:]
        raise PeerUnavailable("apt-get download %s failed (no network or no apt sources?): %s"
                              % (" ".join(packages), " | ".join(last) or "no output"))


def _newest(pattern):
    found = sorted(glob.glob(pattern))
    return found[-1] if found else None


def versioned_kernel_package(depends):
    """The linux-image-* package a Depends: field of the meta package names, or None."""
    for alternative in depends.split(","):
        name = alternative.strip().split(" ")[0]
        if name.startswith("linux-image-") and name != KERNEL_PACKAGE:
            return name
    return None


def fetch(directory, say=lambda message: None):
    """Make sure the kernel and busybox are unpacked in @directory; return their paths.

    Reuses what an earlier run left; raises PeerUnavailable with the reason.
    """
    debs = os.path.join(directory, "debs")
    scratch = os.path.join(directory, "unpacked")
    os.makedirs(debs, exist_ok=True)
    if not _newest(os.path.join(debs, "busybox-static_*.deb")):
        say("peer: apt-get download %s" % BUSYBOX_PACKAGE)
        _download([BUSYBOX_PACKAGE], debs, say)
    if not _newest(os.path.join(debs, "linux-image-*-cloud-amd64_*.deb")):
        if not _newest(os.path.join(debs, KERNEL_PACKAGE + "_*.deb")):
            say("peer: apt-get download %s" % KERNEL_PACKAGE)
            _download([KERNEL_PACKAGE], debs, say)
        meta = _newest(os.path.join(debs, KERNEL_PACKAGE + "_*.deb"))
        depends = subprocess.run(["dpkg-deb", "-f", meta, "Depends"], stdout=subprocess.PIPE,
                                 universal_newlines=True).stdout if meta else ""
        versioned = versioned_kernel_package(depends)
        if not versioned:
            raise PeerUnavailable("%s names no linux-image package in Depends: %r"
                                  % (meta or KERNEL_PACKAGE, depends.strip()))
        say("peer: apt-get download %s" % versioned)
        _download([versioned], debs, say)
    kernel = _newest(os.path.join(directory, "vmlinuz-*"))
    busybox = os.path.join(directory, "busybox")
    if not kernel or not os.path.exists(busybox):
        # Only the two files are kept: the rest of the packages (modules, and
        # directories named *.d that the Makefile's dependency include would
        # take for its own) goes with the scratch tree.
        shutil.rmtree(scratch, ignore_errors=True)
        for deb in (_newest(os.path.join(debs, "busybox-static_*.deb")),
                    _newest(os.path.join(debs, "linux-image-*-cloud-amd64_*.deb"))):
            done = subprocess.run(["dpkg-deb", "-x", deb, scratch], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, universal_newlines=True)
            if done.returncode != 0:
                raise PeerUnavailable("dpkg-deb -x %s failed: %s" % (deb, done.stdout.strip()))
        unpacked = _newest(os.path.join(scratch, "boot", "vmlinuz-*"))
        if not unpacked or not os.path.exists(os.path.join(scratch, "bin", "busybox")):
            raise PeerUnavailable("the unpacked packages lack boot/vmlinuz-* or bin/busybox")
        shutil.move(os.path.join(scratch, "bin", "busybox"), busybox)
        kernel = os.path.join(directory, os.path.basename(unpacked))
        shutil.move(unpacked, kernel)
        shutil.rmtree(scratch, ignore_errors=True)
    return {"kernel": kernel, "busybox": busybox,
            "kernel_release": os.path.basename(kernel)[len("vmlinuz-"):],
            "packages": sorted(os.path.basename(path)
                               for path in glob.glob(os.path.join(debs, "*.deb")))}


# --- The initramfs (cpio "newc", see the kernel's ramfs-rootfs-initramfs docs) ----

def _cpio_member(name, mode, data=b"", inode=1, rdev=(0, 0)):
    encoded = name.encode() + b"\0"
    fields = (inode, mode, 0, 0, 2 if mode & 0o040000 else 1, 0, len(data), 0, 0,
              rdev[0], rdev[1], len(encoded), 0)
    header = b"070701" + b"".join(b"%08X" % value for value in fields)
    pad = lambda length: b"\0" * (-length % 4)
    return header + encoded + pad(len(header) + len(encoded)) + data + pad(len(data))


def cpio_newc(members):
    """A cpio newc archive of @members: (name, mode, data[, rdev (major, minor)]) tuples."""
    out = b""
    for inode, member in enumerate(members, 1):
        name, mode, data = member[:3]
        rdev = member[3] if len(member) > 3 else (0, 0)
        out += _cpio_member(name, mode, data, inode, rdev)
    return out + _cpio_member("TRAILER!!!", 0, inode=0)


def build_initramfs(busybox_path, out_path):
    with open(busybox_path, "rb") as binary:
        busybox = binary.read()
    members = [
        ("bin", 0o040755, b""),
        ("dev", 0o040755, b""),
        # The kernel opens /dev/console for init's standard streams.
        ("dev/console", 0o020600, b"", (5, 1)),
        ("proc", 0o040755, b""),
        ("bin/busybox", 0o100755, busybox),
        ("init", 0o100755, INIT_SCRIPT.encode()),
    ]
    with open(out_path, "wb") as out:
        out.write(cpio_newc(members))
    return out_path


# --- Reading the boot log ---------------------------------------------------

def analyse_boot(timed_lines):
    """Figures from a Linux boot log: @timed_lines are (host seconds or None, text) pairs.

    Returns a dict: printk_bringing_up, printk_brought_up, host_bringing_up,
    host_brought_up (seconds or None), nodes, cpus_up, printk_run_init,
    marker_cpus, powered_off, problems (list of text).
    """
    found = {"printk_bringing_up": None, "printk_brought_up": None, "host_bringing_up": None,
             "host_brought_up": None, "nodes": None, "cpus_up": None, "printk_run_init": None,
             "marker_cpus": None, "powered_off": False, "problems": []}
    for host_time, raw in timed_lines:
        line = raw.rstrip("\r\n")
        match = PRINTK_LINE.match(line)
        stamp, text = None, line
        if match:
            stamp = int(match.group(1)) + int(match.group(2)) / 10 ** len(match.group(2))
            text = match.group(3)
        if text.startswith(BRINGING_UP) and found["printk_bringing_up"] is None:
            found["printk_bringing_up"], found["host_bringing_up"] = stamp, host_time
        brought = BROUGHT_UP.search(text)
        if brought and found["printk_brought_up"] is None:
            found["printk_brought_up"], found["host_brought_up"] = stamp, host_time
            found["nodes"], found["cpus_up"] = int(brought.group(1)), int(brought.group(2))
        if text.startswith(RUN_INIT) and found["printk_run_init"] is None:
            found["printk_run_init"] = stamp
        if text.startswith(MARKER):
            cpus = re.search(r"cpus=(\d+)", text)
            found["marker_cpus"] = int(cpus.group(1)) if cpus else None
        if "reboot: Power down" in text:
            found["powered_off"] = True
    if found["printk_bringing_up"] is None:
        found["problems"].append("no '%s' line" % BRINGING_UP)
    if found["printk_brought_up"] is None:
        found["problems"].append("no 'smp: Brought up ... CPUs' line")
    if found["marker_cpus"] is None:
        found["problems"].append("the initramfs never printed %s" % MARKER)
    return found


def boot_records(found, cpus):
    """BENCH-style records (the tools/bench format) for one analysed boot of @cpus CPUs."""
    def record(name, value, clock):
        return peer_timing.peer_record("linux", name, cpus, value, clock)

    def microseconds(start, end):
        if start is None or end is None:
            return None
        return int(round((end - start) * 1e6))

    records = []
    bringup = microseconds(found["printk_bringing_up"], found["printk_brought_up"])
    if bringup is not None:
        records.append(record("ap_bringup", bringup, "guest printk"))
    observed = microseconds(found["host_bringing_up"], found["host_brought_up"])
    if observed is not None:
        records.append(record("ap_bringup", observed, peer_timing.HOST_OBSERVED))
    if found["printk_bringing_up"] is not None:
        records.append(record("kernel_entry_to_first_init",
                              microseconds(0.0, found["printk_bringing_up"]), "guest printk"))
    if found["printk_run_init"] is not None:
        records.append(record("user_init_start", microseconds(0.0, found["printk_run_init"]),
                              "guest printk"))
    return records


# --- Booting ----------------------------------------------------------------

def qemu_command(files, initramfs, cpus):
    """tools/run's QEMU command for --boot kernel, with the peer's kernel and initramfs."""
    config = qemu.RunConfig(boot="kernel", kernel=files["kernel"], cpus=cpus, cpu="max",
                           memory=MEMORY_MB, cmdline=KERNEL_CMDLINE,
                           qemu_args=["-initrd", initramfs])
    return qemu.build_command(config)


def default_timeout(cpus):
    # Measured here: 7 s wall for 8 vCPUs, 175 s for 64 (TCG on 2 host cores).
    return 60 + 8 * cpus


def boot(files, initramfs, cpus, log_path, timeout=None, tick=None):
    """Boot the peer once; return a run entry (the tools/bench results format)."""
    timeout = timeout or default_timeout(cpus)
    command = qemu_command(files, initramfs, cpus)
    entry = {"config": "linux-%dcpu" % cpus, "family": "bringup", "peer": "linux",
             "run": " ".join(command), "cmdline": KERNEL_CMDLINE, "log": log_path,
             "header": {"peer": "linux", "kernel_release": files["kernel_release"],
                        "packages": files["packages"], "memory_mb": MEMORY_MB}}
    done = peer_timing.run_timed(command, log_path, timeout, tick)
    problems = done["problems"]
    if done["exit"] is None:
        return dict(entry, exit=None, wall_seconds=None, results=[], problems=problems)
    if done["timed_out"]:
        problems.append("no power-off within %d s: QEMU killed" % timeout)
    if done["errors"] and done["exit"] != 0:
        problems.append("QEMU said: " + done["errors"].splitlines()[-1])
    found = analyse_boot(done["lines"])
    problems += found["problems"]
    if found["cpus_up"] is not None and found["cpus_up"] != cpus:
        problems.append("Linux brought up %d CPUs of %d" % (found["cpus_up"], cpus))
    return dict(entry, exit=done["exit"], wall_seconds=done["wall_seconds"],
                results=boot_records(found, cpus), problems=problems)


def prepare(directory, say=lambda message: None):
    """Fetch and unpack the packages and build the initramfs; return (files, initramfs)."""
    files = fetch(directory, say)
    initramfs = build_initramfs(files["busybox"], os.path.join(directory, "initramfs.cpio"))
    return files, initramfs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpus", type=int, action="append", metavar="N",
                        help="-smp value (repeatable; default 8)")
    parser.add_argument("--dir", default=os.path.join("build", "peer"),
                        help="where the packages are kept and unpacked, and kvm-unit-tests "
                             "built (default build/peer)")
    parser.add_argument("--log-dir", default=os.path.join("build", "bench", "logs"))
    parser.add_argument("--timeout", type=float, help="seconds per boot (default 60 + 8 per CPU "
                                                      "for Linux, 30 + 2 per CPU for "
                                                      "kvm-unit-tests)")
    parser.add_argument("--kvm-unit-tests", metavar="DIR",
                        help="also build kvm-unit-tests from the clone DIR (out of tree, in "
                             "--dir's kvm-unit-tests/; DIR itself is not written) and boot its "
                             "smptest at each --cpus and vmexit ipi/ipi_halt at 2 vCPUs")
    parser.add_argument("--no-linux", action="store_true",
                        help="do not boot Linux (with --kvm-unit-tests: only kvm-unit-tests)")
    args = parser.parse_args(argv)
    say = lambda message: sys.stderr.write(message + "\n")
    counts = args.cpus or [8]
    for cpus in counts:
        if cpus < 1:
            say("peer: --cpus %d: at least 1" % cpus)
            return 2
    if args.no_linux and not args.kvm_unit_tests:
        say("peer: --no-linux leaves nothing to boot without --kvm-unit-tests DIR")
        return 2
    os.makedirs(args.log_dir, exist_ok=True)
    problems = []

    def report(entry):
        for problem in entry["problems"]:
            say("peer: %s: %s" % (entry["config"], problem))
            problems.append(problem)
        print(json.dumps(entry), flush=True)

    if not args.no_linux:
        try:
            files, initramfs = prepare(args.dir, say)
        except PeerUnavailable as error:
            say("peer: Linux peer not available: %s" % error)
            problems.append(str(error))
        else:
            for cpus in counts:
                report(boot(files, initramfs, cpus,
                            os.path.join(args.log_dir, "linux-%dcpu.log" % cpus), args.timeout))
    if args.kvm_unit_tests:
        note = kvm_unit_tests.measure(args.kvm_unit_tests, counts, args.dir, args.log_dir, say,
                                      report, timeout=args.timeout)
        if note:
            say("peer: " + note)
            problems.append(note)
    return 1 if problems else 0
