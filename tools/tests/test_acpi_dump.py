# SPDX-License-Identifier: MIT
"""Tests of tools/trigos/acpi_dump.py, acpi_machines.py and acpi_check.py."""
import contextlib
import io
import os
import shutil
import struct
import tempfile
import unittest
from unittest import mock

from trigos import acpi_check, acpi_dump, acpi_machines

DATA = os.path.join(os.path.dirname(__file__), "data", "acpi")


def read(name):
    with open(os.path.join(DATA, name), encoding="latin-1") as file:
        return file.read()


class AcpidumpTest(unittest.TestCase):
    def test_tables_are_read_whole(self):
        tables = acpi_dump.parse_acpidump(read("t3500.acpidump"))
        self.assertEqual([signature for signature, _ in tables], ["APIC", "FACP", "HPET"])
        for signature, data in tables:
            self.assertEqual(data[:4].decode(), signature)
            self.assertEqual(len(data), struct.unpack_from("<I", data, 4)[0])
            self.assertEqual(sum(data) & 0xff, 0, signature)

    def test_a_directory_of_binary_tables_is_read(self):
        tables = acpi_dump.parse_acpidump(read("t3500.acpidump"))
        with tempfile.TemporaryDirectory() as directory:
            for signature, data in tables:
                with open(os.path.join(directory, f"{signature.lower()}.dat"), "wb") as file:
                    file.write(data)
            with open(os.path.join(directory, "notes.txt"), "w", encoding="ascii") as file:
                file.write("not a table\n")
            self.assertEqual(sorted(acpi_dump.read_dump(directory)), sorted(tables))

    def test_not_a_dump_is_refused(self):
        with self.assertRaises(acpi_dump.DumpError):
            acpi_dump.parse_acpidump("Intel ACPI Component Architecture\n")

    def test_image_keeps_a_bad_checksum_bad_and_points_the_fadt_at_the_dsdt(self):
        tables = acpi_dump.parse_acpidump(read("t3500.acpidump"))
        fadt = bytearray(dict(tables)["FACP"])
        fadt[9] ^= 1                    # a wrong checksum: it must stay wrong by as much
        dsdt = b"DSDT" + struct.pack("<I", 36) + bytes(28)
        image = acpi_dump.memory_image([("FACP", bytes(fadt)), ("DSDT", dsdt)])
        chunks = acpi_dump.tables_from_image(image)
        placed = dict(chunks)
        self.assertEqual(sum(placed["FACP"]) & 0xff, sum(fadt) & 0xff)
        dsdt_address = struct.unpack_from("<I", placed["FACP"], 40)[0]
        self.assertEqual(struct.unpack_from("<Q", placed["FACP"], 140)[0], dsdt_address)
        self.assertEqual(struct.unpack_from("<QI", image, 0)[0], acpi_dump.RSDP_ADDRESS)


class DecodeFactsTest(unittest.TestCase):
    def test_t3500_facts_follow_acpica_widths(self):
        facts = acpi_dump.facts(read("t3500.iasl"))
        # Stated: PM timer 32 bits with byte access, PM1a_CNT 16 bits with byte access.
        self.assertIn("pm-timer io 0x808 4 bytes, 24 bits", facts)
        self.assertIn("pm1a-control io 0x804 2 bytes", facts)
        self.assertIn("hpet 0xfed00000", facts)
        self.assertEqual([f for f in facts if f.startswith("cpu ")], ["cpu 0x0", "cpu 0x4"])
        self.assertFalse([f for f in facts if f.startswith("reset")])   # RESET_REG_SUP clear

    def test_s5_comes_from_the_first_package_of_numbers(self):
        asl = ("If (X) { Name (_S5, Package (0x04) { SS5A, Zero, Zero, Zero }) }\n"
               "Name (_S5, Package (0x02)  // _S5_: S5 System State\n{\n    0x07, \n    One\n})")
        self.assertEqual(acpi_dump.s5_facts([asl]), ["s5 7 1"])
        self.assertEqual(acpi_dump.s5_facts(["Name (_S5, Package (0x01) { 0x0507 })"]),
                         ["s5 7 5"])

    def test_spcr_at_address_0_is_unusable(self):
        section = ("[024h 0036   1]               Interface Type : 00\n"
                   "[028h 0040  12]         Serial Port Register : [Generic Address Structure]\n"
                   "[028h 0040   1]                     Space ID : 01 [SystemIO]\n"
                   "[029h 0041   1]                    Bit Width : 08\n"
                   "[02Ah 0042   1]                   Bit Offset : 00\n"
                   "[02Bh 0043   1]         Encoded Access Width : 00 [Undefined/Legacy]\n"
                   "[02Ch 0044   8]                      Address : {}\n"
                   "[03Ah 0058   1]                    Baud Rate : 07\n")
        self.assertEqual(acpi_dump.spcr_facts(section.format("0000000000000000")),
                         ["spcr unusable"])
        self.assertEqual(acpi_dump.spcr_facts(section.format("00000000000002F8")),
                         ["spcr io 0x2f8 1 bytes, 115200 baud"])


class MachinesTest(unittest.TestCase):
    def test_records_round_trip(self):
        data = acpi_machines.record("A/B", ["cpu 0x0"], b"\x01\x02") + \
            acpi_machines.record("C/D", [], b"")
        self.assertEqual(list(acpi_machines.records(data)),
                         [("A/B", "cpu 0x0\n", b"\x01\x02"), ("C/D", "", b"")])

    def test_servers_then_kinds_and_vendors_in_turn(self):
        machines = ["Desktop/A/x/1/1", "Desktop/A/x/2/2", "Desktop/B/x/1/3",
                    "Notebook/C/x/1/4", "Server/D/x/1/5"]
        self.assertEqual(acpi_machines.choose(machines, 4),
                         ["Server/D/x/1/5", "Desktop/A/x/1/1", "Notebook/C/x/1/4",
                          "Desktop/B/x/1/3"])


class GrubScriptTest(unittest.TestCase):
    def test_only_the_given_tables_reach_the_kernel(self):
        script = acpi_dump.grub_script(["t00apic.dat", "t01facp.dat"])
        self.assertIn("acpi -1 -2 --no-ebda --load-only=none ($acpi_disk)/t00apic.dat "
                      "($acpi_disk)/t01facp.dat", script)
        self.assertIn("\tacpi -1 -2 --load-only=none ($acpi_disk)/t00apic.dat", script)


class IaslDecodeTest(unittest.TestCase):
    """A dump without a decode: iasl (acpica-tools, which tools/deps installs) makes one."""

    @unittest.skipUnless(shutil.which("iasl"), "no iasl (Debian: acpica-tools)")
    def test_iasls_own_decode_gives_the_facts_of_the_collections(self):
        dump = read("t3500.acpidump")
        made = acpi_dump.decode_with_iasl(acpi_dump.parse_acpidump(dump))
        self.assertEqual(sorted(acpi_dump.decode_sections(made)), ["APIC", "FACP", "HPET"])
        self.assertEqual(acpi_dump.facts(made), acpi_dump.facts(read("t3500.iasl")))
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "dump")
            with open(path, "w", encoding="latin-1") as file:
                file.write(dump)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(acpi_machines.main(["convert", path]), 0)
        self.assertEqual(out.getvalue().splitlines(), acpi_dump.facts(read("t3500.iasl")))

    def test_a_table_iasl_cannot_decode_is_left_out_and_named(self):
        warnings = []
        made = acpi_dump.decode_with_iasl([("APIC", b"APIC")], iasl="true", warn=warnings.append)
        self.assertEqual(made, "")
        self.assertEqual(warnings, ["iasl -d gave no decode of APIC; left out (no message)"])

    def test_no_iasl_is_an_error_not_a_crash(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "dump")
            with open(path, "w", encoding="latin-1") as file:
                file.write(read("t3500.acpidump"))
            with mock.patch.object(acpi_dump, "decode_with_iasl",
                                   side_effect=FileNotFoundError(2, "No such file", "iasl")), \
                    contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertEqual(acpi_machines.main(["convert", path]), 2)
        self.assertIn("acpi-machines: convert:", err.getvalue())


class AcpiCheckTest(unittest.TestCase):
    def test_no_madt_means_trigos_cannot_run(self):
        out = io.StringIO()
        lines = ["info madt not found", "info cpus 0 listed", "info fadt ok revision 5",
                 "pm-timer io 0x408 4 bytes, 24 bits"]
        self.assertEqual(acpi_check.report([("FACP", b"")], lines, out), 1)
        self.assertIn("no usable MADT", out.getvalue())
        self.assertIn("verdict: trigos cannot run here", out.getvalue())

    def test_reports_are_worded_as_the_kernel_words_them(self):
        out = io.StringIO()
        lines = ["info madt ok", "info cpus 3 listed", "cpu 0x0", "cpu 0x2",
                 "report MADT: 1 CPU entries repeat an APIC ID (0 of them enabled); IDs 0x0",
                 "report APIC at 0x10001000: bad checksum (sum 0x01); used anyway, as Linux does",
                 "hpet 0xfed00000", "spcr io 0x2f8 1 bytes, 115200 baud"]
        self.assertEqual(acpi_check.report([("APIC", b"")], lines, out), 0)
        text = out.getvalue()
        self.assertIn("  smp: MADT: 1 CPU entries repeat an APIC ID", text)
        self.assertIn("  acpi: APIC at 0x10001000: bad checksum", text)
        self.assertIn("ttyS1 (COM2); console=auto prints there", text)

    def test_a_real_machines_width_corrections_are_reported_as_the_kernel_does(self):
        """Dell Inspiron 530 (tests/machines) states PM1a_CNT and PM_TMR 8 bits wide."""
        out = io.StringIO()
        tables = acpi_machines.tables_of("@Inspiron 530")
        self.assertEqual(acpi_check.report(tables, acpi_check.describe(tables), out), 0)
        text = out.getvalue()
        self.assertIn("reports (2):\n"
                      "  acpi: FADT PM1a_CNT states a 8-bit width; accessed 2 bytes wide as "
                      "ACPICA does\n"
                      "  acpi: FADT PM_TMR states a 8-bit width; accessed 4 bytes wide as "
                      "ACPICA does\n", text)

    def test_an_unusable_spcr_is_reported_as_the_kernel_does(self):
        """Dell PowerEdge R820 (tests/machines): its SPCR has address 0."""
        out = io.StringIO()
        tables = acpi_machines.tables_of("@E5985CCBA349")
        acpi_check.report(tables, acpi_check.describe(tables), out)
        self.assertIn("reports (1):\n  acpi: SPCR (interface type 0x0): no UART address (0); "
                      "not used\n", out.getvalue())

    def test_a_machine_named_by_text_must_be_one(self):
        with self.assertRaises(ValueError):
            acpi_machines.tables_of("@no such machine")


if __name__ == "__main__":
    unittest.main()
