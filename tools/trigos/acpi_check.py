# SPDX-License-Identifier: MIT
"""Say what trigos will do on a machine, from that machine's ACPI tables.

Usage: tools/acpi-check DUMP

DUMP is what `acpidump` prints on the machine (sudo acpidump > DUMP), or a
directory of its binary tables (acpidump -b), or @TEXT: the machine of
tests/machines whose name contains TEXT (tools/acpi-machines list).  The tables go through
trigos's own parser (kernel/lib, built for the host as build/host/acpi-
machines, which this builds when missing) and this prints: the CPUs trigos
will start, the I/O APICs, the clocks it calibrates the TSC from, the
consoles it finds, how it ends a run (exit=poweroff, exit=reboot), and
every report the parser gives, in the kernel's words.

Exit status: 0 when trigos can run there; 1 when it cannot (no usable MADT,
so only the boot CPU, or no clock the tables offer on a hardware-reduced
platform, which has no PIT); 2 when DUMP cannot be read.
"""

import os
import subprocess
import sys
import tempfile

from . import acpi_dump, acpi_machines
from .cli import ROOT, ArgumentParser

BINARY = os.path.join(ROOT, "build", "host", "acpi-machines")
COM_PORTS = {0x3f8: 0, 0x2f8: 1, 0x3e8: 2, 0x2e8: 3}


def describe(tables, binary=BINARY):
    """The host parser's --describe output for @tables: reports, facts and info lines."""
    if not os.path.exists(binary):
        subprocess.run(["nice", "-n", "19", "make", "-s", "-C", ROOT,
                        os.path.relpath(binary, ROOT)], check=True, stdout=subprocess.DEVNULL)
    image = acpi_dump.memory_image(acpi_dump.kept_tables(tables))
    with tempfile.NamedTemporaryFile(suffix=".machines") as file:
        file.write(acpi_machines.record("dump", [], image))
        file.flush()
        result = subprocess.run([binary, file.name, "--describe", "dump"], check=True,
                                capture_output=True, text=True)
    return result.stdout.splitlines()


def _starting(word, lines):
    return [line[len(word) + 1:] for line in lines if line.startswith(word + " ")]


def report(tables, lines, out=sys.stdout):
    """Print what trigos will do; return the exit status (0 or 1)."""
    def say(text=""):
        print(text, file=out)

    info = {line.split()[1]: line.split(None, 2)[2] for line in lines if line.startswith("info ")}
    signatures = " ".join(signature for signature, _ in tables)
    say(f"tables ({len(tables)}): {signatures}")
    status = 0

    cpus = [line.split() for line in lines if line.startswith(("cpu ", "online-capable "))]
    enabled = [c for c in cpus if c[0] == "cpu"]
    say(f"CPUs: {info.get('cpus', 'no MADT')}")
    if info.get("madt") != "ok":
        say("  no usable MADT: trigos looks for an MP table, else runs on the boot CPU alone")
        status = 1
    else:
        ids = " ".join(c[1] + ("(x2APIC entry)" if len(c) > 2 else "") for c in enabled)
        say(f"  started: the enabled ones, in table order, but the boot CPU: APIC IDs {ids}")
        if any(int(c[1], 16) > 0xfe for c in enabled):
            say("  APIC IDs above 0xfe: reachable only in x2APIC mode (trigos uses it when "
                "the CPU has it; otherwise 'cannot be addressed in xAPIC mode; not started')")
        capable = [c[1] for c in cpus if c[0] == "online-capable"]
        if capable:
            say(f"  online-capable, not started: {' '.join(capable)}")
        say("  a CPU that never answers INIT/SIPI is reported 'did not start' after the "
            "bring-up deadline; the run goes on")
    for line in _starting("io-apic", lines):
        say(f"I/O APIC {line}: reported; trigos does not program I/O APICs")

    say("clocks (TSC calibration): CPUID leaf 0x15/0x16 if the CPU states its frequency, "
        "else:")
    hpet = _starting("hpet", lines)
    timer = _starting("pm-timer", lines)
    say(f"  HPET: {hpet[0] if hpet else 'none (' + info.get('hpet', '?') + ')'}")
    say(f"  ACPI PM timer: {timer[0] if timer else 'none'}")
    reduced = "hardware-reduced" in info.get("fadt", "")
    say("  PIT: " + ("none on a hardware-reduced platform" if reduced
                     else "tried last (a timer that does not count is detected, not used)"))
    if not hpet and not timer and reduced:
        say("  no clock the tables offer: trigos cannot calibrate unless CPUID states it")
        status = 1

    spcr = _starting("spcr", lines)
    say("consoles: COM1-COM4 where a UART answers (I/O 0x3f8 0x2f8 0x3e8 0x2e8), the "
        "boot loader's framebuffer")
    if spcr and spcr[0] != "unusable":
        space, address = spcr[0].split()[:2]
        port = COM_PORTS.get(int(address, 16)) if space == "io" else None
        where = f"ttyS{port} (COM{port + 1})" if port is not None else \
            "none of COM1-COM4: console 'spcr', if a UART answers there"
        say(f"  SPCR: {spcr[0]}: {where}; console=auto prints there")
    elif spcr:
        say("  SPCR: present, names no UART trigos can use (the report below says why); "
            "console=auto prints everywhere")
    else:
        say("  SPCR: none; console=auto prints everywhere")

    control, s5 = _starting("pm1a-control", lines), _starting("s5", lines)
    if control and s5 and not reduced:
        say(f"exit=poweroff: S5 through PM1a_CNT {control[0]}, SLP_TYPa/b {s5[0]}; "
            "if the machine is still on half a second later, trigos halts")
    else:
        why = "hardware-reduced (sleep control register not supported)" if reduced else \
            f"no usable \\_S5 ({info.get('s5', '?')})" if not s5 else "no PM1a_CNT"
        say(f"exit=poweroff: ACPI S5 not attempted: {why}; trigos halts")
    reset = _starting("reset", lines)
    say(f"exit=reboot: {('the ACPI reset register ' + reset[0] + ', then ') if reset else ''}"
        "the 8042 keyboard controller, then a triple fault")

    reports = _starting("report", lines)
    say(f"reports ({len(reports)}):")
    for text in reports:
        say(f"  {'smp' if text.startswith('MADT:') else 'acpi'}: {text}")
    say(f"verdict: trigos {'can' if status == 0 else 'cannot'} run here")
    return status


def main(argv=None):
    parser = ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dump", help="acpidump's output, a directory of binary tables, or "
                        "@TEXT: the machine of tests/machines whose name contains TEXT")
    parser.add_argument("--binary", default=BINARY,
                        help="the host build of trigos's parser (default: build/host/acpi-machines)")
    args = parser.parse_args(argv)
    try:
        tables = acpi_machines.tables_of(args.dump)
    except (OSError, ValueError, acpi_dump.DumpError) as error:
        print(f"acpi-check: {args.dump}: {error}", file=sys.stderr)
        return 2
    return report(tables, describe(tables, args.binary))

