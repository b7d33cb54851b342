#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the trigos ISO to a USB stick, refusing anything that could be the wrong disk.

Before a byte is written the device must be a whole disk (not a partition),
not read-only, at least as large as the ISO, with neither it nor any of its
partitions or holders (LVM, dm-crypt, RAID) mounted or used as swap, and not
the disk that holds /, /boot or /boot/efi; those refusals cannot be
overridden.  It must also sit on a USB bus, judged by its sysfs path, since
many sticks report removable=0; any other disk (SATA, NVMe, SD reader, loop
device) needs --force.  The tool then shows the device's model, size and bus,
asks for confirmation (--yes for scripts), writes, flushes, and verifies by
reading the image back.

The roots of sysfs, procfs and /dev can be moved (--sysfs-root, --proc-root,
--dev-root) so that tools/tests can check every decision on fake trees.
"""

import argparse
import hashlib
import os
import re
import stat
import sys

EXIT_OK = 0
EXIT_REFUSED = 1        # a safety check said no, or the user did
EXIT_USAGE = 2
EXIT_FAILED = 3         # writing or verifying went wrong

CHUNK = 4 << 20
BLKFLSBUF = 0x1261      # <linux/fs.h>: drop a block device's buffer cache
SYSTEM_MOUNTS = ("/", "/boot", "/boot/efi", "/efi", "/usr")


class Refused(Exception):
    """A safety check failed; the message says which and why."""


def read_text(path, default=None):
    try:
        with open(path) as source:
            return source.read().strip()
    except OSError:
        return default


class Machine:
    """The block devices and mounts as sysfs and procfs describe them."""

    def __init__(self, sysfs="/sys", proc="/proc"):
        self.sysfs = sysfs
        self.proc = proc

    def block_dir(self, name):
        return os.path.join(self.sysfs, "class", "block", name)

    def exists(self, name):
        return os.path.isdir(self.block_dir(name))

    def is_partition(self, name):
        return os.path.exists(os.path.join(self.block_dir(name), "partition"))

    def disk_of_partition(self, name):
        """The whole disk a partition belongs to (its sysfs parent directory)."""
        real = os.path.realpath(self.block_dir(name))
        return os.path.basename(os.path.dirname(real))

    def partitions(self, disk):
        directory = self.block_dir(disk)
        try:
            entries = sorted(os.listdir(directory))
        except OSError:
            return []
        return [entry for entry in entries
                if os.path.exists(os.path.join(directory, entry, "partition"))]

    def _links(self, name, kind):
        try:
            return sorted(os.listdir(os.path.join(self.block_dir(name), kind)))
        except OSError:
            return []

    def related(self, disk):
        """The disk, its partitions, and whatever is stacked on any of them."""
        seen, todo = set(), [disk] + self.partitions(disk)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            todo += self._links(name, "holders")
        return seen

    def disks_under(self, name):
        """The whole disks a block device lives on (through slaves of dm/md)."""
        seen, disks, todo = set(), set(), [name]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            slaves = self._links(current, "slaves")
            if slaves:
                todo += slaves
            elif self.is_partition(current):
                disks.add(self.disk_of_partition(current))
            elif self.exists(current):
                disks.add(current)
        return disks

    def device_name(self, major_minor, source):
        """The kernel name of a mount's device: by its number, else by its source path."""
        if major_minor:
            link = os.path.join(self.sysfs, "dev", "block", major_minor)
            if os.path.exists(link):
                return os.path.basename(os.path.realpath(link))
        if source.startswith("/dev/"):
            name = os.path.basename(os.path.realpath(source))
            return name if self.exists(name) else os.path.basename(source)
        return None

    def mounts(self):
        """(kernel device name, mount point) of every block-backed mount."""
        found = []
        mountinfo = read_text(os.path.join(self.proc, "self", "mountinfo"))
        if mountinfo is not None:
            for line in mountinfo.splitlines():
                fields = line.split()
                if "-" not in fields or len(fields) < 5:
                    continue
                after = fields[fields.index("-") + 1:]
                source = after[1] if len(after) > 1 else ""
                name = self.device_name(fields[2], unescape(source))
                if name:
                    found.append((name, unescape(fields[4])))
            return found
        for line in (read_text(os.path.join(self.proc, "mounts")) or "").splitlines():
            fields = line.split()
            if len(fields) >= 2:
                name = self.device_name(None, unescape(fields[0]))
                if name:
                    found.append((name, unescape(fields[1])))
        return found

    def swaps(self):
        names = []
        for line in (read_text(os.path.join(self.proc, "swaps")) or "").splitlines()[1:]:
            fields = line.split()
            if fields and fields[0].startswith("/dev/"):
                names.append(self.device_name(None, unescape(fields[0])))
        return [name for name in names if name]

    def describe(self, disk):
        directory = self.block_dir(disk)
        words = [read_text(os.path.join(directory, "device", key), "") for key in ("vendor", "model")]
        model = " ".join(word for word in words if word) or "unknown model"
        sectors = read_text(os.path.join(directory, "size"), "0")
        return {
            "model": model,
            "size": int(sectors) * 512 if sectors.isdigit() else 0,
            "removable": read_text(os.path.join(directory, "removable"), "0") == "1",
            "read_only": read_text(os.path.join(directory, "ro"), "0") == "1",
            "bus": bus_of(os.path.realpath(directory)),
        }


def unescape(text):
    """/proc/mounts and mountinfo write space, tab, newline and backslash as octal."""
    return re.sub(r"\\([0-7]{3})", lambda match: chr(int(match.group(1), 8)), text)


def bus_of(sysfs_path):
    """The transport a block device's real sysfs path shows: usb, nvme, ata, mmc, ..."""
    parts = sysfs_path.split(os.sep)
    if any(re.fullmatch(r"usb\d+", part) for part in parts):
        return "usb"
    for pattern, bus in ((r"nvme\d+", "nvme"), (r"ata\d+", "ata"), (r"mmc\d+", "mmc"),
                         (r"virtio\d+", "virtio")):
        if any(re.fullmatch(pattern, part) for part in parts):
            return bus
    if "virtual" in parts:
        return "virtual"
    return "unknown"


def human(size):
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if size < 1000 or unit == "TB":
            return f"{size:.1f} {unit}" if unit != "bytes" else f"{size} bytes"
        size /= 1000
    return f"{size} bytes"


def check_device(machine, name, iso_size, force):
    """Every safety check; returns the description, raises Refused with the reason."""
    if not machine.exists(name):
        raise Refused(f"{name} is not a block device that this machine knows "
                      f"(no {machine.block_dir(name)})")
    if machine.is_partition(name):
        raise Refused(f"{name} is a partition; give the whole disk "
                      f"({machine.disk_of_partition(name)}): the ISO carries its own "
                      f"partition table")
    info = machine.describe(name)
    related = machine.related(name)
    for device, mount_point in machine.mounts():
        if mount_point in SYSTEM_MOUNTS and name in machine.disks_under(device):
            raise Refused(f"{name} holds {mount_point} (through {device}): never")
    for device, mount_point in machine.mounts():
        if device in related:
            raise Refused(f"{name} is in use: {device} is mounted on {mount_point} "
                          f"(unmount it first)")
    for device in machine.swaps():
        if device in related:
            raise Refused(f"{name} is in use: {device} is a swap area (swapoff it first)")
    if info["read_only"]:
        raise Refused(f"{name} is read-only (a write-protect switch?)")
    if info["size"] < iso_size:
        raise Refused(f"{name} has {human(info['size'])}, less than the ISO's "
                      f"{human(iso_size)}")
    if info["bus"] != "usb" and not force:
        kind = "removable" if info["removable"] else "non-removable"
        raise Refused(f"{name} is a {kind} disk on the {info['bus']} bus, not USB; "
                      f"pass --force if you are sure it is the stick")
    return info


def confirm(message, assume_yes, stdin=sys.stdin):
    if assume_yes:
        return True
    if not stdin.isatty():
        raise Refused("no terminal to confirm on; pass --yes to write without asking")
    print(f"{message} Type 'yes' to go on: ", end="", file=sys.stderr, flush=True)
    return stdin.readline().strip() == "yes"


def write_image(iso, target, progress=sys.stderr):
    """Copy @iso onto @target, flush it, drop cached pages; return the ISO's SHA-256."""
    digest = hashlib.sha256()
    total = os.path.getsize(iso)
    done = 0
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
    if stat.S_ISBLK(os.stat(target).st_mode):
        flags |= os.O_EXCL      # block devices: fails if the kernel has it in use
    descriptor = os.open(target, flags)
    try:
        with open(iso, "rb") as source:
            while True:
                chunk = source.read(CHUNK)
                if not chunk:
                    break
                digest.update(chunk)
                view = memoryview(chunk)
                while view:
                    written = os.write(descriptor, view)
                    view = view[written:]
                done += len(chunk)
                print(f"\rwrite-usb: wrote {done * 100 // max(total, 1)}% "
                      f"({human(done)})", end="", file=progress, flush=True)
        print("", file=progress)
        os.fsync(descriptor)
        drop_cache(descriptor)
    finally:
        os.close(descriptor)
    return digest.hexdigest()


def drop_cache(descriptor):
    """So that the read-back comes from the device, not from memory."""
    try:
        import fcntl
        fcntl.ioctl(descriptor, BLKFLSBUF, 0)
    except (OSError, ImportError):
        pass
    try:
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    except (OSError, AttributeError):
        pass


def read_back(target, length):
    digest = hashlib.sha256()
    with open(target, "rb") as device:
        drop_cache(device.fileno())
        left = length
        while left:
            chunk = device.read(min(CHUNK, left))
            if not chunk:
                break
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest(), length - left


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="write-usb", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0],
        epilog="exit status: 0 written and verified, 1 refused, 2 usage error, "
               "3 write or verify failed\n\n"
               "example:\n  sudo tools/write-usb /dev/sdb")
    parser.add_argument("device", metavar="DEVICE", help="the stick: /dev/sdX or sdX")
    parser.add_argument("--iso", default="build/trigos.iso",
                        help="the image to write (default build/trigos.iso; `make iso`)")
    parser.add_argument("--yes", "-y", action="store_true",
                        help="do not ask for confirmation (for scripts)")
    parser.add_argument("--force", action="store_true",
                        help="also write to a disk that is not on a USB bus (never to a "
                             "mounted disk or the system's own)")
    parser.add_argument("--sysfs-root", default="/sys", help=argparse.SUPPRESS)
    parser.add_argument("--proc-root", default="/proc", help=argparse.SUPPRESS)
    parser.add_argument("--dev-root", default="/dev", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    name = os.path.basename(args.device.rstrip("/"))
    if args.device.startswith("/") and os.path.dirname(os.path.abspath(args.device)) != "/dev":
        print(f"write-usb: {args.device}: give a device under /dev (or its name, e.g. sdb)",
              file=sys.stderr)
        return EXIT_USAGE
    target = os.path.join(args.dev_root, name)
    try:
        iso_size = os.path.getsize(args.iso)
    except OSError as error:
        print(f"write-usb: cannot read the ISO {args.iso}: {error.strerror} "
              f"(`make iso` builds it)", file=sys.stderr)
        return EXIT_USAGE
    machine = Machine(args.sysfs_root, args.proc_root)
    try:
        info = check_device(machine, name, iso_size, args.force)
        if not os.path.exists(target):
            raise Refused(f"{target} does not exist")
        if args.dev_root == "/dev" and not stat.S_ISBLK(os.stat(target).st_mode):
            raise Refused(f"{target} is not a block device")
        print(f"write-usb: {target}: {info['model']}, {human(info['size'])} "
              f"({info['size']} bytes), bus {info['bus']}, "
              f"{'removable' if info['removable'] else 'reports non-removable'}",
              file=sys.stderr)
        if not confirm(f"write-usb: write {args.iso} ({human(iso_size)}) to {target}, "
                       f"destroying everything on it?", args.yes):
            raise Refused("not confirmed; nothing written")
    except Refused as refusal:
        print(f"write-usb: refused: {refusal}", file=sys.stderr)
        return EXIT_REFUSED
    try:
        expected = write_image(args.iso, target)
        actual, length = read_back(target, iso_size)
    except OSError as error:
        print(f"write-usb: {target}: {error.strerror or error}", file=sys.stderr)
        return EXIT_FAILED
    if length != iso_size or actual != expected:
        print(f"write-usb: verify FAILED: {target} reads back {length} bytes with SHA-256 "
              f"{actual}, the ISO has {iso_size} with {expected}", file=sys.stderr)
        return EXIT_FAILED
    print(f"write-usb: verified: {target} reads back the ISO ({iso_size} bytes, SHA-256 "
          f"{expected[:16]}...); it can be removed now", file=sys.stderr)
    return EXIT_OK
