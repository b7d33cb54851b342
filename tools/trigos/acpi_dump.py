# SPDX-License-Identifier: MIT
"""A machine's ACPI tables as `acpidump` prints them, and iasl's decode of them.

Two inputs, kept apart on purpose:

  - the tables' bytes: the text `acpidump` prints on any Linux machine
    ("APIC @ 0x...", then offset: hex lines), or a directory of binary
    tables (`acpidump -b`, `acpixtract -a`: apic.dat, ssdt1.dat, ...);
    parse_acpidump() and read_table_directory() give [(signature, bytes)];
  - iasl's decode of the same tables (`iasl -d`, what linuxhw/ACPI keeps
    beside each dump, or decode_with_iasl() for a dump that has none):
    decode_sections() splits it per table and facts()
    reads from it the facts trigos must find, written independently of
    trigos's C parser so that each checks the other.

memory_image() lays chosen tables out as the kernel/lib memory image the
parsers read (lib/memory_image.h), behind a new RSDP and XSDT, as GRUB's
`acpi` command does for a booted kernel: a dump carries no RSDP, and the
tables' own addresses are not kept (acpidump -b and sysfs give none).
"""

import os
import re
import struct
import subprocess
import tempfile

RSDP_ADDRESS = 0x000e0000
XSDT_ADDRESS = 0x10000000
FIRST_TABLE_ADDRESS = 0x10001000

# What trigos reads: the MADT, FADT, HPET, MCFG, SPCR and the AML it searches
# for \_S5 (the DSDT, and SSDTs that name _S5_).
KEPT_SIGNATURES = ("APIC", "FACP", "HPET", "MCFG", "SPCR", "DSDT")

FADT_DSDT = 40
FADT_X_DSDT = 140
FADT_FIRMWARE_CTRL = 36
FADT_X_FIRMWARE_CTRL = 132


class DumpError(Exception):
    """The input is not an acpidump text or a directory of tables."""


_HEADER = re.compile(r"^\s*([A-Za-z0-9_!]{4}) @ 0x([0-9A-Fa-f]+)\s*$")
_HEX_LINE = re.compile(r"^\s*([0-9A-Fa-f]{4,8}): ((?:[0-9A-Fa-f]{2} ){1,16})")


def parse_acpidump(text):
    """The tables of an acpidump text: [(signature, bytes)] in the dump's order.

    Each table starts with "SIG @ 0xADDRESS" and continues with lines of
    "OFFSET: up to 16 hex bytes  ascii"; anything else ends it.  A table
    whose bytes are fewer than its header's Length is kept as it is (the
    parsers then report it truncated).
    """
    tables, signature, data = [], None, None
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            if signature is not None:
                tables.append((signature, bytes(data)))
            signature, data = header.group(1), bytearray()
            continue
        hex_line = _HEX_LINE.match(line) if signature is not None else None
        if hex_line:
            offset = int(hex_line.group(1), 16)
            if offset != len(data):
                raise DumpError(f"{signature}: offset 0x{offset:x} where 0x{len(data):x} was due")
            data += bytes.fromhex(hex_line.group(2))
    if signature is not None:
        tables.append((signature, bytes(data)))
    if not tables:
        raise DumpError("no 'SIG @ 0x...' table in it: not an acpidump text")
    return tables


def tables_from_decode(decode_text):
    """The data tables whose raw bytes iasl's decode quotes ("Raw Table Data").

    For collections that kept only the decode: the DSDT and SSDTs are
    disassembled there, their bytes absent, so \\_S5 cannot be checked.
    """
    tables = []
    for signature, sections in decode_sections(decode_text).items():
        for section in sections:
            raw = section.partition("Raw Table Data")[2]
            data = bytearray()
            for line in raw.splitlines()[1:]:
                hex_line = _HEX_LINE.match(line)
                if hex_line:
                    data += bytes.fromhex(hex_line.group(2))
            if len(data) >= 36:
                tables.append((signature, bytes(data)))
    return tables


def read_table_directory(path):
    """The binary tables in a directory (acpidump -b: apic.dat, dsdt.dat, ssdt1.dat...)."""
    tables = []
    for name in sorted(os.listdir(path)):
        with open(os.path.join(path, name), "rb") as file:
            data = file.read()
        if len(data) >= 36 and re.fullmatch(rb"[A-Za-z0-9_!]{4}", data[:4]):
            tables.append((data[:4].decode("ascii"), data))
    if not tables:
        raise DumpError(f"{path}: no binary ACPI table in it")
    return tables


def read_dump(path):
    """acpidump's text, or a directory of binary tables, as [(signature, bytes)]."""
    if os.path.isdir(path):
        return read_table_directory(path)
    with open(path, "rb") as file:
        text = file.read().decode("latin-1")
    return parse_acpidump(text)


def names_s5(data):
    """Whether an AML table mentions _S5_ at all (the kernel searches only such SSDTs)."""
    return b"_S5_" in data


def kept_tables(tables):
    """The tables trigos reads, in the dump's order: see KEPT_SIGNATURES."""
    return [(signature, data) for signature, data in tables
            if signature in KEPT_SIGNATURES or (signature == "SSDT" and names_s5(data))]


def _fix_field(data, offset, size, value):
    """Write @value at @offset and move the checksum by as much, so a bad one stays bad."""
    if len(data) < offset + size:
        return
    old = sum(data[offset:offset + size])
    data[offset:offset + size] = value.to_bytes(size, "little")
    if len(data) > 9:
        data[9] = (data[9] - (sum(data[offset:offset + size]) - old)) & 0xff


def _checksummed(data, offset=9, length=None):
    data = bytearray(data)
    length = len(data) if length is None else length
    data[offset] = 0
    data[offset] = (-sum(data[:length])) & 0xff
    return bytes(data)


def memory_image(tables):
    """A memory image (lib/memory_image.h) of @tables behind a new RSDP and XSDT.

    The RSDP (revision 2) is the first chunk; the XSDT lists every table but
    the DSDT and FACS, in order, each at its own 4 KiB-aligned address; the
    FADT's DSDT and X_DSDT point at the DSDT and its FACS pointers are
    cleared (no FACS is kept), with the FADT's checksum moved by the same
    amount, so that a table whose checksum was wrong stays wrong.
    """
    placed, address = [], FIRST_TABLE_ADDRESS
    for signature, data in tables:
        placed.append([signature, address, bytearray(data)])
        address += (len(data) + 0xfff) & ~0xfff
    dsdt = next((address for signature, address, _ in placed if signature == "DSDT"), 0)
    for signature, _, data in placed:
        if signature == "FACP":
            _fix_field(data, FADT_FIRMWARE_CTRL, 4, 0)
            _fix_field(data, FADT_X_FIRMWARE_CTRL, 8, 0)
            _fix_field(data, FADT_DSDT, 4, dsdt)
            _fix_field(data, FADT_X_DSDT, 8, dsdt)
    entries = [address for signature, address, _ in placed if signature not in ("DSDT", "FACS")]
    body = b"".join(struct.pack("<Q", entry) for entry in entries)
    xsdt = _checksummed(struct.pack("<4sIBB6s8sIII", b"XSDT", 36 + len(body), 1, 0, b"TRIGOS",
                                    b"MACHINES", 1, 0x54524947, 1) + body)
    rsdp = struct.pack("<8sB6sBIIQB3s", b"RSD PTR ", 0, b"TRIGOS", 2, 0, 36, XSDT_ADDRESS, 0,
                       b"\0\0\0")
    rsdp = _checksummed(_checksummed(rsdp, 8, 20), 32)
    chunks = [(RSDP_ADDRESS, rsdp), (XSDT_ADDRESS, xsdt)]
    chunks += [(address, bytes(data)) for _, address, data in placed]
    return b"".join(struct.pack("<QI", address, len(data)) + data for address, data in chunks)


# --- iasl's decode -------------------------------------------------------------

def decode_with_iasl(tables, iasl="iasl", warn=None):
    """iasl's decode of @tables, laid out as linuxhw/ACPI's decode files are.

    For a dump that came without one (a user's own `acpidump`): each table
    goes through `iasl -d` (Debian's acpica-tools) and its disassembly is
    put under its signature, underlined, which decode_sections() splits.
    A table iasl cannot disassemble is left out; @warn(text) is told which.
    Raises OSError when iasl cannot be run.
    """
    parts = []
    with tempfile.TemporaryDirectory(prefix="trigos-iasl-") as directory:
        names = []
        for number, (signature, data) in enumerate(tables):
            name = f"t{number:03d}"
            with open(os.path.join(directory, name + ".dat"), "wb") as file:
                file.write(data)
            names.append((signature, name))
        result = subprocess.run([iasl, "-d", *(name + ".dat" for _, name in names)],
                                cwd=directory, capture_output=True, text=True, errors="replace")
        for signature, name in names:
            try:
                with open(os.path.join(directory, name + ".dsl"), encoding="latin-1") as file:
                    text = file.read()
            except OSError:
                if warn:
                    last = (result.stdout + result.stderr).strip().splitlines()[-1:]
                    warn(f"iasl -d gave no decode of {signature}; left out "
                         f"({last[0] if last else 'no message'})")
                continue
            parts.append(f"{signature}\n{'-' * len(signature)}\n{text}\n")
    return "\n".join(parts)


_FIELD = re.compile(r"^\[([0-9A-Fa-f]+)h \d+ +[0-9A-Fa-f]+h?\] +(.+?) : (.*)$")


def decode_sections(text):
    """iasl's decode split per table: {signature: [section text, ...]} in order.

    A section starts with a line holding only the signature (SSDT1, SSDT2...
    in some decodes), underlined with dashes.
    """
    sections, lines = {}, text.splitlines()
    starts = [i for i in range(len(lines) - 1)
              if re.fullmatch(r"[A-Z0-9_!]{4}\d*", lines[i].strip())
              and re.fullmatch(r"-{4,}", lines[i + 1].strip())]
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(lines)
        signature = lines[start].strip()[:4]
        sections.setdefault(signature, []).append("\n".join(lines[start + 2:end]))
    return sections


def _fields(section):
    """[(name, value)] of a decoded data table, in order, with decoded flag lines."""
    fields = []
    for line in section.splitlines():
        if line.startswith("Raw Table Data"):
            break
        match = _FIELD.match(line.strip())
        if match:
            fields.append((match.group(2).strip(), match.group(3).strip()))
    return fields


def _number(value):
    return int(value.split()[0].strip('"'), 16)


def _gas_after(fields, title):
    """The GAS whose title line is @title: space, width, offset, access, address."""
    for index, (name, value) in enumerate(fields):
        if name == title and "Generic Address Structure" in value:
            values = [_number(v) for _, v in fields[index + 1:index + 6]]
            if len(values) == 5:
                return tuple(values)
    return None


def _field(fields, name, default=None):
    for field, value in fields:
        if field == name:
            return _number(value)
    return default


def madt_facts(section):
    """CPUs, I/O APICs and overrides from iasl's decode of the MADT.

    Each kind in table order, the kinds one after the other: enabled CPUs
    ("cpu") and online-capable ones in one list, as the order of both matters.
    """
    cpus, io_apics, overrides, entry = [], [], [], None
    entries = []
    for name, value in _fields(section):
        if name == "Subtable Type":
            entry = {"type": _number(value)}
            entries.append(entry)
        elif entry is not None:
            entry.setdefault(name, value)
    for entry in entries:
        kind = entry["type"]
        if kind in (0, 9):
            flags = _number(entry.get("Flags (decoded below)", "0"))
            apic_id = _number(entry["Local Apic ID" if kind == 0 else "Processor x2Apic ID"])
            x2apic = " x2apic" if kind == 9 else ""
            if flags & 1:
                cpus.append(f"cpu 0x{apic_id:x}{x2apic}")
            elif flags & 2:
                cpus.append(f"online-capable 0x{apic_id:x}{x2apic}")
        elif kind == 1:
            io_apics.append(f"io-apic {_number(entry['I/O Apic ID'])} "
                         f"0x{_number(entry['Address']):x} gsi {_number(entry['Interrupt'])}")
        elif kind == 2:
            overrides.append(f"override bus {_number(entry['Bus'])} irq {_number(entry['Source'])} "
                         f"gsi {_number(entry['Interrupt'])} "
                         f"flags 0x{_number(entry['Flags (decoded below)']):x}")
    return cpus + io_apics + overrides


# The width each FADT register has (ACPI 6.5 4.8.3.2.1, 4.8.3.3, 4.8.3.6), which
# ACPICA forces on the GAS before using it (tbfadt.c).
_FADT_WIDTHS = {"pm1a-control": 16, "pm1b-control": 16, "pm-timer": 32, "reset": 8}
_SPACES = {0: "memory", 1: "io", 2: "pci"}


def _access_bytes(gas, width):
    """ACPICA's access width for a FADT register (hwregs.c, acpi_hw_get_access_bit_width())."""
    space, _, offset, access, address = gas
    if offset == 0 and width in (8, 16, 32, 64):
        bits = width
    elif access:
        bits = 8 << (access - 1)
    else:
        bits = 8
        while bits < offset + width and bits < 64:
            bits *= 2
        while bits > 8 and address % (bits // 8):
            bits //= 2
    return min(bits, 32 if space == 1 else 64) // 8


def fadt_facts(section):
    """The PM timer, PM1x control and reset registers, as the kernel will access them."""
    fields = _fields(section)
    facts = []
    flags = _field(fields, "Flags (decoded below)", 0)
    revision = _field(fields, "Revision", 0)
    legacy = {
        "pm1a-control": ("PM1A Control Block Address", "PM1A Control Block"),
        "pm1b-control": ("PM1B Control Block Address", "PM1B Control Block"),
        "pm-timer": ("PM Timer Block Address", "PM Timer Block"),
    }
    for fact, (port_name, gas_name) in legacy.items():
        gas = _gas_after(fields, gas_name)
        port = _field(fields, port_name, 0)
        if gas and gas[4]:
            space, address = gas[0], gas[4]
        elif port:
            gas, space, address = (1, 0, 0, 0, port), 1, port
        else:
            continue
        line = f"{fact} {_SPACES.get(space, space)} 0x{address:x} " \
               f"{_access_bytes(gas, _FADT_WIDTHS[fact])} bytes"
        if fact == "pm-timer":
            line += f", {32 if flags & (1 << 8) else 24} bits"
        facts.append(line)
    reset = _gas_after(fields, "Reset Register")
    if reset and reset[4] and revision >= 2 and flags & (1 << 10):
        facts.append(f"reset {_SPACES.get(reset[0], reset[0])} 0x{reset[4]:x} "
                     f"{_access_bytes(reset, 8)} bytes, value "
                     f"0x{_field(fields, 'Value to cause reset', 0):x}")
    return facts


def hpet_facts(section):
    gas = _gas_after(_fields(section), "Timer Block Register")
    return [f"hpet 0x{gas[4]:x}"] if gas else []


def mcfg_facts(section):
    facts, base = [], None
    for name, value in _fields(section):
        if name == "Base Address":
            base = _number(value)
        elif name == "Segment Group Number" and base is not None:
            segment = _number(value)
        elif name == "Start Bus Number" and base is not None:
            start = _number(value)
        elif name == "End Bus Number" and base is not None:
            facts.append(f"mcfg 0x{base:x} segment {segment} buses {start}-{_number(value)}")
            base = None
    return facts


# SPCR baud rate codes (Microsoft's SPCR specification; 0: as the firmware left it).
_SPCR_BAUDS = {0: 0, 3: 9600, 4: 19200, 6: 57600, 7: 115200}


def spcr_facts(section):
    """The SPCR's UART when it is a 16550 with an address, as Linux's spcr.c takes it.

    Interface types 0, 1 and 0x12 are 16550s; an I/O UART takes byte
    accesses, a memory one the width its access size gives (8, 16, 32 bits,
    anything else 8); baud codes 3, 4, 6, 7 and 0 are known.
    """
    fields = _fields(section)
    kind = _field(fields, "Interface Type")
    gas = _gas_after(fields, "Serial Port Register")
    baud = _field(fields, "Baud Rate", 0)
    if kind not in (0, 1, 0x12) or not gas or not gas[4] or gas[0] not in (0, 1) or \
            baud not in _SPCR_BAUDS or (gas[0] == 1 and gas[4] > 0xffff):
        return ["spcr unusable"]
    width = 1 if gas[0] == 1 else {1: 1, 2: 2, 3: 4}.get(gas[3], 1)
    speed = f"{_SPCR_BAUDS[baud]} baud" if _SPCR_BAUDS[baud] else "baud as left"
    return [f"spcr {_SPACES[gas[0]]} 0x{gas[4]:x} {width} bytes, {speed}"]


_S5 = re.compile(r"Name\s*\(\s*\\?_S5_?\s*,\s*Package\s*\(\s*(0x[0-9A-Fa-f]+|\d+)\s*\)[^{]*\{(.*?)\}",
                 re.S)
_CONSTANTS = {"Zero": 0, "One": 1, "Ones": 0xff}


def _integer(text):
    text = re.sub(r"//.*", "", text).strip()
    if text in _CONSTANTS:
        return _CONSTANTS[text]
    if re.fullmatch(r"0x[0-9A-Fa-f]+|\d+", text):
        return int(text, 0)
    return None


def s5_facts(aml_sections):
    """\\_S5 from the disassembled ASL: the first Name (_S5, Package) whose values are numbers.

    SLP_TYPa and SLP_TYPb are the package's first two elements (ACPI 6.5
    7.4.2); older firmware packs both in one integer, SLP_TYPa in bits 0-7
    and SLP_TYPb in bits 8-15.  An element that is not a number (a name, an
    expression) makes the candidate unusable: the next one is tried.
    """
    for section in aml_sections:
        for match in _S5.finditer(section):
            elements = [e for e in (re.sub(r"//[^\n]*", "", match.group(2)).split(","))
                        if e.strip()]
            values = [_integer(e) for e in elements[:2]]
            if len(values) == 1 and values[0] is not None:
                return [f"s5 {values[0] & 0xff} {values[0] >> 8 & 0xff}"]
            if len(values) == 2 and None not in values:
                return [f"s5 {values[0] & 0xff} {values[1] & 0xff}"]
    return []


def facts(decode_text):
    """Every fact iasl's decode gives that trigos must find, one line each."""
    sections = decode_sections(decode_text)
    lines = []
    for section in sections.get("APIC", [])[:1]:
        lines += madt_facts(section)
    for section in sections.get("FACP", [])[:1]:
        lines += fadt_facts(section)
    for section in sections.get("HPET", [])[:1]:
        lines += hpet_facts(section)
    for section in sections.get("MCFG", [])[:1]:
        lines += mcfg_facts(section)
    for section in sections.get("SPCR", [])[:1]:
        lines += spcr_facts(section)
    lines += s5_facts(sections.get("DSDT", [])[:1] + sections.get("SSDT", []))
    return lines


def tables_from_image(image):
    """The tables of a memory image memory_image() wrote, its RSDP and XSDT left out."""
    tables, position = [], 0
    while position + 12 <= len(image):
        _, length = struct.unpack_from("<QI", image, position)
        data = image[position + 12:position + 12 + length]
        position += 12 + length
        if len(data) >= 36 and data[:4] not in (b"RSD ", b"XSDT", b"RSDT"):
            tables.append((data[:4].decode("latin-1"), data))
    return tables


# The FAT volume label iso/grub.cfg looks for, and the script it sources there.
GRUB_DISK_LABEL = "TRIGOSACPI"
GRUB_SCRIPT = "acpi.cfg"


def grub_script(files):
    """GRUB commands loading @files as the only ACPI tables the kernel sees.

    GRUB's `acpi` command (grub-core/commands/acpi.c) builds new RSDT/XSDT
    and RSDPs (-1 -2) holding the files' tables, and its multiboot2 loader
    hands the new RSDP to the kernel.  It also copies the host's tables
    unless told which to keep: --load-only takes a list of signatures, and
    `none` matches no table, which is what this relies on to keep none of
    QEMU's.  It places the DSDT file where the FADT points and rewrites the
    FADT's DSDT and FACS pointers.  On UEFI there is no EBDA to put the
    RSDP in: --no-ebda, the tables reach the kernel through the multiboot2
    RSDP tags only.
    """
    paths = " ".join(f"($acpi_disk)/{name}" for name in files)
    return (f"# Written by tools/run --acpi-tables.\n"
            f"if [ \"$grub_platform\" = efi ]; then\n"
            f"\tacpi -1 -2 --no-ebda --load-only=none {paths}\n"
            f"else\n"
            f"\tacpi -1 -2 --load-only=none {paths}\n"
            f"fi\n"
            f"echo \"trigos: {len(files)} ACPI tables loaded by GRUB's acpi command\"\n")


def write_grub_disk(tables, path, size=8 << 20):
    """A FAT disk image labelled GRUB_DISK_LABEL with @tables as files and GRUB_SCRIPT.

    Uses mtools (mformat, mcopy); raises OSError or CalledProcessError.
    """
    directory = path + ".files"
    os.makedirs(directory, exist_ok=True)
    names = []
    for number, (signature, data) in enumerate(tables):
        name = f"t{number:02d}{signature.lower().replace('!', '_')}.dat"
        with open(os.path.join(directory, name), "wb") as file:
            file.write(data)
        names.append(name)
    with open(os.path.join(directory, GRUB_SCRIPT), "w", encoding="ascii") as file:
        file.write(grub_script(names))
    with open(path, "wb") as file:
        file.truncate(size)
    subprocess.run(["mformat", "-i", path, "-v", GRUB_DISK_LABEL, "::"], check=True,
                   capture_output=True)
    subprocess.run(["mcopy", "-i", path] + [os.path.join(directory, n)
                                             for n in names + [GRUB_SCRIPT]] + ["::/"],
                   check=True, capture_output=True)
    return names
