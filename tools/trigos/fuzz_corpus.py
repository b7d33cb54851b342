#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Make the fuzzers' seed corpora (tests/fuzz/corpus/) from real QEMU boots.

Boots the kernel in several firmware and CPU configurations through tools/run,
one QEMU at a time, with `dump=all test=acpi` on its command line; the kernel
prints its multiboot2 block or PVH start_info, every ACPI table and the MP
tables as `# DUMP kind name 0xADDRESS +OFFSET HEX` lines (kernel/boot/firmware_dump.c).
This tool reassembles them into one seed per fuzz target and configuration:

  multiboot2/CONFIG       the multiboot2 information block
  acpi_table/CONFIG-SIG   each ACPI table (and the RSDP) on its own
  acpi_walk/CONFIG        a memory image (kernel/lib/memory_image.h): the RSDP
                          first, then every table at its address
  mptable/CONFIG          a memory image: the KiB holding the MP floating
                          pointer, then the configuration table
  pvh/CONFIG              a memory image: the start_info, then the command
                          line and memory map at their addresses

plus cmdline/ seeds from the cmdline= lines of tests/matrix.cfg and a few
fixed format/ seeds.  A seed whose bytes another seed of its target already
has is left out, so the corpus stays small.  The target directories are
rewritten from scratch.

Usage: tools/fuzz-corpus [--out DIR] [--only CONFIG] [--iso PATH] [--kernel PATH]
"""

import argparse
import hashlib
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

from .cli import ROOT, entry_script

# name: tools/run arguments.  BIOS and UEFI, several -smp shapes, q35, and
# acpi=off (MP tables only), through GRUB (multiboot2) and -kernel (PVH).
CONFIGS = {
    "bios-1cpu": ["--firmware", "bios", "--boot", "cdrom", "--cpus", "1"],
    "bios-4cpu": ["--firmware", "bios", "--boot", "cdrom", "--cpus", "4"],
    "bios-4of8": ["--firmware", "bios", "--boot", "cdrom", "--smp", "4,maxcpus=8"],
    "bios-2x3": ["--firmware", "bios", "--boot", "cdrom", "--smp", "6,sockets=2,cores=3"],
    "q35-2cpu": ["--firmware", "bios", "--boot", "cdrom", "--machine", "q35", "--cpus", "2"],
    "uefi-2cpu": ["--firmware", "uefi", "--boot", "cdrom", "--cpus", "2", "--timeout", "90"],
    "uefi-q35": ["--firmware", "uefi", "--boot", "cdrom", "--machine", "q35", "--cpus", "3",
                 "--timeout", "90"],
    "bios-acpi-off": ["--firmware", "bios", "--boot", "cdrom", "--cpus", "2",
                      "--qemu-arg", "-machine acpi=off"],
    "pvh-2cpu": ["--boot", "kernel", "--cpus", "2"],
    "pvh-acpi-off": ["--boot", "kernel", "--cpus", "2", "--qemu-arg", "-machine acpi=off"],
}
CMDLINE = "dump=all test=acpi"
TARGETS = ("multiboot2", "acpi_table", "acpi_walk", "mptable", "pvh", "cmdline", "format")

DUMP_LINE = re.compile(r"^# DUMP (\S+) (\S+) 0x([0-9a-f]+) (?:\+(\d+) ([0-9a-f]+)|end (\d+))\s*$")


def parse_dumps(lines):
    """Return [(kind, name, address, bytes)] of every complete dump, in log order."""
    pending = {}
    broken = set()
    dumps = []
    for line in lines:
        match = DUMP_LINE.match(line.rstrip("\r\n"))
        if not match:
            continue
        kind, name, address = match.group(1), match.group(2), int(match.group(3), 16)
        key = (kind, name, address)
        if match.group(6) is not None:
            data = pending.pop(key, b"")
            if key in broken:
                broken.discard(key)
            elif len(data) == int(match.group(6)):
                dumps.append((kind, name, address, data))
            else:
                print(f"fuzz-corpus: {kind} {name}: {len(data)} of {match.group(6)} bytes; "
                      "dropped", file=sys.stderr)
            continue
        if key in broken:
            continue
        data = pending.setdefault(key, bytearray())
        if int(match.group(4)) != len(data):
            print(f"fuzz-corpus: {kind} {name}: a line is missing; dropped", file=sys.stderr)
            broken.add(key)
            continue
        data.extend(bytes.fromhex(match.group(5)))
    return [(k, n, a, bytes(d)) for k, n, a, d in dumps]


def memory_image(chunks):
    """Pack [(address, bytes)] as kernel/lib/memory_image.h describes."""
    return b"".join(struct.pack("<QI", address, len(data)) + data for address, data in chunks)


def seeds_from_dumps(config, dumps):
    """Return {target: [(file name, bytes)]} for one boot."""
    seeds = {target: [] for target in TARGETS}
    by_kind = {}
    for kind, name, address, data in dumps:
        by_kind.setdefault(kind, []).append((name, address, data))
    for name, address, data in by_kind.get("multiboot2", []):
        seeds["multiboot2"].append((config, data))
    acpi = by_kind.get("acpi", [])
    for name, address, data in acpi:
        seeds["acpi_table"].append((f"{config}-{name}", data))
    if acpi and acpi[0][0] == "RSDP":
        seeds["acpi_walk"].append((config, memory_image([(a, d) for _, a, d in acpi])))
    mptable = by_kind.get("mptable", [])
    if mptable:
        seeds["mptable"].append((config, memory_image([(a, d) for _, a, d in mptable])))
    pvh = by_kind.get("pvh", [])
    if pvh and pvh[0][0] == "start_info":
        seeds["pvh"].append((config, memory_image([(a, d) for _, a, d in pvh])))
    return seeds


def matrix_cmdlines(path):
    """The cmdline= values of the boot matrix, as cmdline seeds."""
    seeds = []
    with open(path, encoding="utf-8") as file:
        for line in file:
            if line.startswith("cmdline ="):
                seeds.append(line.split("=", 1)[1].strip().encode())
    return sorted(set(seeds))


def fixed_seeds():
    """Seeds for the targets no boot feeds: cmdline oddities and format grammar choices."""
    cmdline = [b'label="two words" seed=0x10 test=lib_*,acpi', b'a=b=c ="x" k"ey=1 v=1"2',
               b'torture=long\tmcs_wait=spin\r\nrepeat=100000 cpus=256 exit=qemu']
    stream = random.Random(20261203)
    format_seeds = [bytes(stream.randrange(256) for _ in range(96)) for _ in range(6)]
    return cmdline, format_seeds


def boot(config, args, iso, kernel):
    with tempfile.TemporaryDirectory() as directory:
        log = os.path.join(directory, "serial.log")
        command = [sys.executable, entry_script("run"), *args, "--iso", iso,
                   "--kernel", kernel, "--quiet", "--log", log, "--cmdline", CMDLINE]
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, check=False)
        if result.returncode not in (0, 2):
            print(f"fuzz-corpus: {config}: tools/run exited {result.returncode}:\n"
                  f"{result.stdout}", file=sys.stderr)
        try:
            with open(log, encoding="utf-8", errors="replace") as file:
                return parse_dumps(file)
        except OSError:
            return []


def write_corpus(out, all_seeds):
    total_files = total_bytes = 0
    for target in TARGETS:
        directory = os.path.join(out, target)
        os.makedirs(directory, exist_ok=True)
        for name in os.listdir(directory):
            os.remove(os.path.join(directory, name))
        seen = set()
        for name, data in all_seeds[target]:
            digest = hashlib.sha256(data).digest()
            if digest in seen or not data:
                continue
            seen.add(digest)
            with open(os.path.join(directory, name), "wb") as file:
                file.write(data)
            total_files += 1
            total_bytes += len(data)
        print(f"fuzz-corpus: {target}: {len(seen)} seeds")
    print(f"fuzz-corpus: {total_files} files, {total_bytes} bytes in {out}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "tests", "fuzz", "corpus"))
    parser.add_argument("--only", action="append", choices=sorted(CONFIGS),
                        help="boot only this configuration (repeatable)")
    parser.add_argument("--iso", default=os.path.join(ROOT, "build", "trigos.iso"))
    parser.add_argument("--kernel", default=os.path.join(ROOT, "build", "trigos.elf"))
    args = parser.parse_args(argv)

    all_seeds = {target: [] for target in TARGETS}
    for config in args.only or CONFIGS:
        dumps = boot(config, CONFIGS[config], args.iso, args.kernel)
        print(f"fuzz-corpus: {config}: {len(dumps)} structures dumped")
        for target, seeds in seeds_from_dumps(config, dumps).items():
            all_seeds[target].extend(seeds)
    cmdline, format_seeds = fixed_seeds()
    for index, line in enumerate(matrix_cmdlines(os.path.join(ROOT, "tests", "matrix.cfg")) +
                                 cmdline):
        all_seeds["cmdline"].append((f"cmdline-{index:02d}", line))
    for index, data in enumerate(format_seeds):
        all_seeds["format"].append((f"format-{index:02d}", data))
    write_corpus(args.out, all_seeds)
    return 0
