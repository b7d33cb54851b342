# SPDX-License-Identifier: MIT
"""Tests of tools/fuzz-corpus and tools/acpi-crafted, and that the tree's files match them."""

import contextlib
import io
import os
import struct
import tempfile
import unittest

from trigos import acpi_crafted, fuzz_corpus

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def dump_lines(kind, name, address, data, per_line=4):
    lines = [f"# DUMP {kind} {name} 0x{address:x} +{offset} {data[offset:offset + per_line].hex()}"
             for offset in range(0, len(data), per_line)]
    return lines + [f"# DUMP {kind} {name} 0x{address:x} end {len(data)}"]


def chunks(image):
    """Unpack a memory image (kernel/lib/memory_image.h)."""
    found, offset = [], 0
    while offset + 12 <= len(image):
        address, length = struct.unpack_from("<QI", image, offset)
        found.append((address, image[offset + 12:offset + 12 + length]))
        offset += 12 + length
    return found


class DumpParsingTest(unittest.TestCase):
    def test_dumps_are_reassembled(self):
        lines = (["noise", "    # DUMP indented lines are not dumps"] +
                 dump_lines("acpi", "RSDP", 0xf59d0, bytes(range(20))) +
                 dump_lines("acpi", "APIC", 0x7fe1000, b"APIC" + bytes(40)))
        dumps = fuzz_corpus.parse_dumps([line + "\n" for line in lines])
        self.assertEqual([(k, n, a) for k, n, a, _ in dumps],
                         [("acpi", "RSDP", 0xf59d0), ("acpi", "APIC", 0x7fe1000)])
        self.assertEqual(dumps[0][3], bytes(range(20)))

    def test_a_dump_missing_a_line_or_its_end_is_dropped(self):
        lines = dump_lines("acpi", "RSDP", 0, bytes(range(20)))
        del lines[1]
        with contextlib.redirect_stderr(io.StringIO()) as errors:
            self.assertEqual(fuzz_corpus.parse_dumps(lines), [])
        self.assertIn("a line is missing", errors.getvalue())
        self.assertEqual(fuzz_corpus.parse_dumps(dump_lines("acpi", "X", 0, b"abcdefgh")[:-1]), [])

    def test_seeds_per_target(self):
        dumps = [("acpi", "RSDP", 0, b"R" * 20), ("acpi", "RSDT", 0x1000, b"T" * 40),
                 ("mptable", "area", 0xf5800, b"M" * 1024), ("multiboot2", "info", 0x10000, b"I" * 8)]
        seeds = fuzz_corpus.seeds_from_dumps("cfg", dumps)
        self.assertEqual([name for name, _ in seeds["acpi_table"]], ["cfg-RSDP", "cfg-RSDT"])
        self.assertEqual(chunks(seeds["acpi_walk"][0][1]), [(0, b"R" * 20), (0x1000, b"T" * 40)])
        self.assertEqual(chunks(seeds["mptable"][0][1]), [(0xf5800, b"M" * 1024)])
        self.assertEqual(seeds["multiboot2"], [("cfg", b"I" * 8)])
        self.assertEqual(seeds["pvh"], [])


class CraftedTablesTest(unittest.TestCase):
    def test_the_tree_holds_what_the_tool_writes(self):
        committed = os.path.join(ROOT, "tests", "fuzz", "crafted")
        with tempfile.TemporaryDirectory() as directory:
            with contextlib.redirect_stdout(io.StringIO()):
                acpi_crafted.main(["--out", directory])
            files = [(f"{name}.img", os.path.join("expect", name)) for name in acpi_crafted.CASES]
            files += [(os.path.join("tables", f"{name}.dat"),) for name in acpi_crafted.TABLES]
            for group in files:
                for relative in group:
                    with open(os.path.join(directory, relative), "rb") as fresh, \
                            open(os.path.join(committed, relative), "rb") as kept:
                        self.assertEqual(fresh.read(), kept.read(),
                                         f"tests/fuzz/crafted/{relative} is stale: "
                                         "run tools/acpi-crafted")

    def test_every_case_boots_in_the_matrix(self):
        with open(os.path.join(ROOT, "tests", "matrix.cfg"), encoding="utf-8") as file:
            matrix = file.read()
        for name, (_, expect) in acpi_crafted.CASES.items():
            self.assertIn(f"[acpi-crafted-{name}]", matrix)
            self.assertIn(f"file=tests/fuzz/crafted/{name}.img", matrix)
            self.assertIn(f"*{expect}*", matrix)

    def test_images_have_valid_checksums_but_the_broken_part(self):
        image = acpi_crafted.standard()
        for address, data in chunks(image):
            covered = 20 if data.startswith(b"RSD PTR ") else len(data)
            self.assertEqual(sum(data[:covered]) & 0xff, 0, hex(address))
        broken = chunks(acpi_crafted.CASES["madt-bad-checksum"][0]())
        self.assertNotEqual(sum(broken[2][1]) & 0xff, 0)


if __name__ == "__main__":
    unittest.main()
