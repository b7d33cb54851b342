# SPDX-License-Identifier: MIT
"""Real machines' ACPI tables as test data: tests/machines/acpi-machines.xz.

Each machine of the linuxhw/ACPI collection (https://github.com/linuxhw/ACPI,
CC BY 4.0) is two files: the acpidump text (NAME.bin) and iasl's decode of
it (NAME).  This tool turns a dump into what `make check` feeds
tests/host/acpi_machines.c: a memory image of the tables trigos reads
(acpi_dump.memory_image()) and the facts iasl's decode gives
(acpi_dump.facts()), and keeps a sample of machines in one xz file.

Usage:
  tools/acpi-machines convert DUMP [DECODE] [--image FILE] [--facts FILE]
        one machine: the image and the expected facts (to stdout by default);
        without DECODE, iasl (acpica-tools) decodes DUMP's tables first
  tools/acpi-machines build CORPUS [--count N] [--out FILE]
        choose machines from CORPUS (a checkout of linuxhw/ACPI, or its bare
        git directory) and write the data file
  tools/acpi-machines unpack [FILE] OUT     decompress for tests/host/acpi_machines.c
  tools/acpi-machines list [FILE]           the machines the data file holds

Which machines (build): every server the collection has, then the other
kinds (desktops, notebooks, all-in-ones, mini PCs, convertibles, tablets)
in turn, each time the next vendor of that kind in name order, so that
vendors, years and makers spread as far as the collection allows.
"""

import lzma
import os
import subprocess
import sys

from . import acpi_dump
from .cli import ROOT

DATA = os.path.join(ROOT, "tests", "machines", "acpi-machines.xz")
# Machines whose tables once showed trigos wrong (README, "Real machines"), kept
# whatever the spread: GAS access sizes contradicting bit widths (the Dells, HPs,
# Toshiba), 96 repeated APIC IDs (the X399 Taichi), APIC IDs out of order (the Acer).
NAMED = (
    "Desktop/Dell/Precision/Precision WorkStation T3500/2148E87727EE",
    "Desktop/Dell/Precision/Precision WorkStation T7500/428B8D25DDA9",
    "Notebook/Hewlett-Packard/EliteBook/EliteBook Folio 9470m/524B6B1AD490",
    "Notebook/Hewlett-Packard/ProBook/ProBook 4540s/F9464A10DAC3",
    "Notebook/Hewlett-Packard/ProBook/ProBook 470 G0/7206C3577DFF",
    "Notebook/Hewlett-Packard/ProBook/ProBook 6570b/F37B2DCEC897",
    "Notebook/Toshiba/TECRA/TECRA A50-A/36303D77C8F0",
    "Desktop/ASRock/X399/X399 Taichi/AB101543D5E5",
    "All In One/Acer/Aspire/Aspire Z3-715/9F6A5601CE04",
)
KINDS = ("Server", "Desktop", "Notebook", "All In One", "Mini Pc", "Convertible", "Tablet")


def record(name, facts, image):
    """One machine in the format tests/host/acpi_machines.c reads."""
    expect = "".join(line + "\n" for line in facts).encode("ascii")
    return (f"machine {name}\n".encode("utf-8") + f"expect {len(expect)}\n".encode() + expect +
            f"image {len(image)}\n".encode() + image)


def records(data):
    """(name, facts text, image) of each machine in an unpacked data file."""
    position = 0
    while position < len(data):
        fields = []
        for key in ("machine", "expect", "image"):
            end = data.index(b"\n", position)
            word, _, value = data[position:end].decode("utf-8").partition(" ")
            if word != key:
                raise ValueError(f"expected '{key}' at byte {position}")
            position = end + 1
            if key == "machine":
                fields.append(value)
            else:
                fields.append(data[position:position + int(value)])
                position += int(value)
        yield fields[0], fields[1].decode("ascii"), fields[2]


def machine_tables(text, data_file=DATA):
    """The tables of the one machine of @data_file whose name contains @text."""
    with open(data_file, "rb") as file:
        machines = [(name, image) for name, _, image in records(lzma.decompress(file.read()))
                    if text in name]
    if len(machines) != 1:
        raise ValueError(f"{len(machines)} machines of {data_file} match '{text}', not 1")
    return acpi_dump.tables_from_image(machines[0][1])


def tables_of(source, data_file=DATA):
    """The tables of @source: acpidump's output or a directory of its binary tables, or
    "@TEXT", the one machine of @data_file whose name contains TEXT."""
    if source.startswith("@"):
        return machine_tables(source[1:], data_file)
    return acpi_dump.kept_tables(acpi_dump.read_dump(source))


def convert(dump_text, decode_text):
    """(image, facts) of one machine; without a dump, the decode's raw data tables."""
    if dump_text is None:
        tables = acpi_dump.kept_tables(acpi_dump.tables_from_decode(decode_text))
    else:
        tables = acpi_dump.kept_tables(acpi_dump.parse_acpidump(dump_text))
    facts = acpi_dump.facts(decode_text)
    if not any(signature in ("DSDT", "SSDT") for signature, _ in tables):
        facts = [line for line in facts if not line.startswith("s5 ")]
    return acpi_dump.memory_image(tables), facts


class Corpus:
    """linuxhw/ACPI's files, from a checkout or from its bare git directory."""

    def __init__(self, path):
        self.path = path
        self.bare = os.path.isfile(os.path.join(path, "HEAD")) and \
            os.path.isdir(os.path.join(path, "objects"))

    def machines(self):
        """The decodes' paths (kind/vendor/prefix/model/HWID); self.dumps the .bin ones."""
        if self.bare:
            names = subprocess.run(["git", "-C", self.path, "ls-tree", "-r", "--name-only", "-z",
                                    "HEAD"], check=True, capture_output=True).stdout
            paths = names.decode("utf-8").split("\0")
        else:
            paths = [os.path.relpath(os.path.join(top, name), self.path)
                     for top, _, files in os.walk(self.path) for name in files]
        self.dumps = set(p for p in paths if p.endswith(".bin"))
        return sorted(p for p in paths if not p.endswith(".bin") and p.count("/") == 4 and
                      p.split("/")[0] in KINDS)

    def read(self, name):
        if self.bare:
            return subprocess.run(["git", "-C", self.path, "show", f"HEAD:{name}"], check=True,
                                  capture_output=True).stdout.decode("latin-1")
        with open(os.path.join(self.path, name), "rb") as file:
            return file.read().decode("latin-1")


def _round_robin(lists):
    """The first item of each list, then the second of each, and so on."""
    out, depth = [], 0
    while any(depth < len(items) for items in lists):
        out += [items[depth] for items in lists if depth < len(items)]
        depth += 1
    return out


def choose(machines, count):
    """Every server, the machines NAMED, then the other kinds in turn, vendors in turn."""
    chosen = [m for m in machines if m.startswith("Server/")]
    chosen += [m for m in NAMED if m in machines and m not in chosen]
    per_kind = []
    for kind in KINDS[1:]:
        vendors = {}
        for machine in machines:
            if machine.split("/")[0] == kind:
                vendors.setdefault(machine.split("/")[1], []).append(machine)
        per_kind.append(_round_robin([vendors[v] for v in sorted(vendors)]))
    chosen += [m for m in _round_robin(per_kind) if m not in chosen]
    return chosen[:max(count, 0)]


def build(corpus_path, count, out):
    corpus = Corpus(corpus_path)
    machines = corpus.machines()
    parts = []
    for name in choose(machines, len(machines)):
        if len(parts) == count:
            break
        try:
            decode = corpus.read(name)
            dump = corpus.read(name + ".bin") if name + ".bin" in corpus.dumps else None
        except (OSError, subprocess.CalledProcessError):
            print(f"acpi-machines: {name}: unreadable (absent from this copy?); skipped")
            continue
        image, facts = convert(dump, decode)
        parts.append(record(name, facts, image))
    data = lzma.compress(b"".join(parts), preset=9 | lzma.PRESET_EXTREME)
    with open(out, "wb") as file:
        file.write(data)
    print(f"acpi-machines: {len(parts)} machines, {len(data)} bytes in {out}")
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "convert" and rest:
        given = 2 if len(rest) > 1 and not rest[1].startswith("--") else 1   # DUMP [DECODE]
        try:
            with open(rest[0], "rb") as dump:
                dump_text = dump.read().decode("latin-1")
            if given == 2:
                with open(rest[1], "rb") as decode:
                    decode_text = decode.read().decode("latin-1")
            else:
                decode_text = acpi_dump.decode_with_iasl(
                    acpi_dump.parse_acpidump(dump_text),
                    warn=lambda text: print(f"acpi-machines: {text}", file=sys.stderr))
        except (OSError, acpi_dump.DumpError) as error:
            print(f"acpi-machines: convert: {error}", file=sys.stderr)
            return 2
        image, facts = convert(dump_text, decode_text)
        options = dict(zip(rest[given::2], rest[given + 1::2]))
        if "--image" in options:
            with open(options["--image"], "wb") as file:
                file.write(image)
        text = "".join(line + "\n" for line in facts)
        if "--facts" in options:
            with open(options["--facts"], "w", encoding="ascii") as file:
                file.write(text)
        else:
            sys.stdout.write(text)
        return 0
    if command == "build" and rest:
        options = dict(zip(rest[1::2], rest[2::2]))
        return build(rest[0], int(options.get("--count", 120)), options.get("--out", DATA))
    if command == "unpack" and rest:
        source, out = (DATA, rest[0]) if len(rest) == 1 else rest[:2]
        with open(source, "rb") as file, open(out, "wb") as target:
            target.write(lzma.decompress(file.read()))
        return 0
    if command == "list":
        with open(rest[0] if rest else DATA, "rb") as file:
            for name, _, _ in records(lzma.decompress(file.read())):
                print(name)
        return 0
    print(__doc__, file=sys.stderr)
    return 2
