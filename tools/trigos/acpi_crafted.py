#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the crafted, malformed ACPI tables of the acpi_crafted boot tests.

Each case is a memory image (kernel/lib/memory_image.h: chunks of
<u64 address, u32 length, bytes>, the RSDP first) of a small, otherwise
valid set of tables (RSDP, RSDT or XSDT, MADT, HPET) with one thing broken,
and the text the kernel's report must contain.  tests/matrix.cfg boots one
configuration per case, passing the image as fw_cfg opt/trigos/acpi_crafted
and the text (expect/NAME) as opt/trigos/acpi_crafted_expect (tests/acpi_crafted.c); the
images are kept in tests/fuzz/crafted/ (make check replays them through the
acpi_walk fuzz target too, and checks they are what this tool writes).

Usage: tools/acpi-crafted [--out DIR]    write DIR/NAME.img and DIR/expect/NAME (the
                                         text, no newline) for every case
       tools/acpi-crafted --list         print "NAME<TAB>EXPECTED TEXT" lines
"""

import argparse
import os
import struct

from .cli import ROOT

RSDP_ADDRESS = 0x000e0000
ROOT_ADDRESS = 0x07fe0000
MADT_ADDRESS = 0x07fe1000
HPET_ADDRESS = 0x07fe2000
GARBAGE_ADDRESS = 0x07fe3000
UNMAPPED_ADDRESS = 0x07ff0000


def checksum_fix(data, offset, length=None):
    """Set byte @offset of @data so that its first @length bytes sum to 0 mod 256."""
    data = bytearray(data)
    length = len(data) if length is None else length
    data[offset] = 0
    data[offset] = (-sum(data[:length])) & 0xff
    return bytes(data)


def table(signature, body, revision=1, length=None):
    """An ACPI table: the 36-byte header (ACPI 6.5 5.2.6) and @body, checksummed."""
    length = 36 + len(body) if length is None else length
    header = struct.pack("<4sIBB6s8sIII", signature.encode(), length, revision, 0,
                         b"TRIGOS", b"CRAFTED ", 1, 0x54524947, 1)
    return checksum_fix(header + body, 9, min(length, 36 + len(body)))


def rsdp(rsdt=ROOT_ADDRESS, xsdt=None):
    """ACPI 1.0 RSDP (20 bytes), or a 2.0 one (36) when @xsdt is given (5.2.5.3)."""
    if xsdt is None:
        return checksum_fix(struct.pack("<8sB6sBI", b"RSD PTR ", 0, b"TRIGOS", 0, rsdt), 8)
    data = struct.pack("<8sB6sBIIQB3s", b"RSD PTR ", 0, b"TRIGOS", 2, rsdt, 36, xsdt, 0,
                       b"\0\0\0")
    return checksum_fix(checksum_fix(data, 8, 20), 32)


def madt_entries(cpus=(0, 1)):
    """Processor Local APIC entries (type 0, 8 bytes) and one I/O APIC (type 1, 12)."""
    entries = b"".join(struct.pack("<BBBBI", 0, 8, uid, apic_id, 1)
                       for uid, apic_id in enumerate(cpus))
    return entries + struct.pack("<BBBBII", 1, 12, 0, 0, 0xfec00000, 0)


def madt(entries=None, length=None):
    body = struct.pack("<II", 0xfee00000, 1) + (madt_entries() if entries is None else entries)
    return table("APIC", body, revision=3, length=length)


def hpet():
    body = struct.pack("<IBBBBQBHB", 0x8086a201, 0, 64, 0, 0, 0xfed00000, 0, 0x80, 0)
    return table("HPET", body)


def rsdt(entries):
    return table("RSDT", b"".join(struct.pack("<I", e) for e in entries))


def image(chunks):
    return b"".join(struct.pack("<QI", address, len(data)) + data for address, data in chunks)


def standard(madt_table=None, root=None, rsdp_bytes=None, extra=()):
    """The valid set, with any part replaced."""
    return image([(RSDP_ADDRESS, rsdp_bytes or rsdp()),
                  (ROOT_ADDRESS, root or rsdt([MADT_ADDRESS, HPET_ADDRESS])),
                  (MADT_ADDRESS, madt_table or madt()),
                  (HPET_ADDRESS, hpet()), *extra])


def broken_checksum(data, offset=9):
    data = bytearray(data)
    data[offset] ^= 0x5a
    return bytes(data)


def xsdt_with_odd_length():
    # Three 32-bit addresses in an "XSDT": 12 bytes, one and a half 64-bit entries.
    body = struct.pack("<III", MADT_ADDRESS, HPET_ADDRESS, MADT_ADDRESS)
    xsdt = table("XSDT", body)
    return image([(RSDP_ADDRESS, rsdp(xsdt=ROOT_ADDRESS)), (ROOT_ADDRESS, xsdt),
                  (MADT_ADDRESS, madt()), (HPET_ADDRESS, hpet())])


def xsdt_broken_rsdt_fallback(broken=lambda xsdt: b"XSDX" + xsdt[4:]):
    """An XSDT made unusable by @broken (its signature, by default) beside a valid RSDT."""
    xsdt = broken(table("XSDT", struct.pack("<QQ", MADT_ADDRESS, HPET_ADDRESS)))
    return image([(RSDP_ADDRESS, rsdp(rsdt=ROOT_ADDRESS + 0x800, xsdt=ROOT_ADDRESS)),
                  (ROOT_ADDRESS, xsdt),
                  (ROOT_ADDRESS + 0x800, rsdt([MADT_ADDRESS, HPET_ADDRESS])),
                  (MADT_ADDRESS, madt()), (HPET_ADDRESS, hpet())])


def garbage_bytes(length):
    """Deterministic noise (a linear congruential sequence)."""
    state, out = 12345, bytearray()
    for _ in range(length):
        state = (state * 1103515245 + 12345) & 0x7fffffff
        out.append(state >> 16 & 0xff)
    return bytes(out)


def spcr(space, address, baud_code=7, interface_type=0, bit_width=8, access_size=1):
    """An SPCR (Microsoft's Serial Port Console Redirection Table, revision 2, 80 bytes)."""
    body = struct.pack("<B3xBBBBQBBIBBBBBBHHBBBIB4x", interface_type, space, bit_width, 0,
                       access_size, address,
                       1, 3, 3, baud_code, 0, 1, 0, 0, 0, 0xffff, 0xffff, 0, 0, 0, 0, 0)
    return table("SPCR", body, revision=2)


# Single tables QEMU adds to its own with -acpitable file=tables/NAME.dat (tests/matrix.cfg).
TABLES = {
    "spcr-com2": lambda: spcr(1, 0x2f8),                # a BMC's UART at COM2, 115200 baud
    "spcr-address-0": lambda: spcr(0, 0),               # a desktop's SPCR naming nothing
    "spcr-io-0x2e0": lambda: spcr(1, 0x2e0),            # a UART at none of COM1-COM4's ports
    # A 16550 in memory, 32-bit registers 4 bytes apart (Linux: "mmio32"), where the
    # machine has nothing: its probe must find no UART there.
    "spcr-mmio32-absent": lambda: spcr(0, 0xd0000000, bit_width=32, access_size=3),
}

# name: (image builder, text a report must contain)
CASES = {
    # Kept with a warning, as Linux keeps it (ACPICA only warns of a bad checksum).
    "madt-bad-checksum": (lambda: standard(madt_table=broken_checksum(madt())),
                          "APIC at 0x7fe1000: bad checksum (sum 0x3a); used anyway"),
    "madt-length-below-header": (lambda: standard(madt_table=madt(length=20)),
                                 "APIC at 0x7fe1000: implausible length 20"),
    "madt-length-past-table": (lambda: standard(madt_table=madt(length=4096)),
                               "APIC at 0x7fe1000: length 4096 runs past mapped memory"),
    "madt-entry-length-0": (lambda: standard(madt_table=madt(
        madt_entries() + struct.pack("<BB", 0, 0) + b"\0" * 6)), "has length 0"),
    # The last two bytes of the table start an entry of 200 bytes.
    "madt-entry-past-end": (lambda: standard(madt_table=madt(
        madt_entries() + struct.pack("<BB", 0, 200))), "has length 200"),
    "madt-duplicate-apic-id": (lambda: standard(madt_table=madt(madt_entries((0, 1, 1)))),
                               "1 CPU entries repeat an APIC ID (1 of them enabled); IDs 0x1"),
    "rsdt-points-at-garbage": (lambda: standard(
        root=rsdt([MADT_ADDRESS, GARBAGE_ADDRESS, UNMAPPED_ADDRESS, HPET_ADDRESS]),
        extra=[(GARBAGE_ADDRESS, garbage_bytes(64))]), "header not mapped"),
    "rsdp-bad-checksum": (lambda: standard(rsdp_bytes=broken_checksum(rsdp(), 8)),
                          "RSDP: bad checksum"),
    "xsdt-odd-length": (xsdt_with_odd_length, "root XSDT (ok by copy, ok by address), 1 entries"),
    "xsdt-bad-rsdt-fallback": (xsdt_broken_rsdt_fallback,
                               "XSDT at 0x7fe0000 unusable, trying the RSDT"),
    "xsdt-bad-checksum-kept": (lambda: xsdt_broken_rsdt_fallback(broken_checksum),
                               "XSDT at 0x7fe0000: bad checksum (sum 0x5a); used anyway"),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "tests", "fuzz", "crafted"))
    parser.add_argument("--list", action="store_true", help="print the cases and their texts")
    args = parser.parse_args(argv)
    if args.list:
        for name, (_, expect) in CASES.items():
            print(f"{name}\t{expect}")
        return 0
    os.makedirs(os.path.join(args.out, "expect"), exist_ok=True)
    for name, (build, expect) in CASES.items():
        with open(os.path.join(args.out, f"{name}.img"), "wb") as file:
            file.write(build())
        with open(os.path.join(args.out, "expect", name), "w", encoding="ascii") as file:
            file.write(expect)
    os.makedirs(os.path.join(args.out, "tables"), exist_ok=True)
    for name, build in TABLES.items():
        with open(os.path.join(args.out, "tables", f"{name}.dat"), "wb") as file:
            file.write(build())
    print(f"acpi-crafted: {len(CASES)} images, {len(TABLES)} tables in {args.out}")
    return 0
