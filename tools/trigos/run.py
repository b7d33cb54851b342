#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Boot trigos in QEMU or Bochs, stream its serial console and turn its verdict into an exit status.

The kernel ends a run by writing to QEMU's isa-debug-exit port (0xf4):
0x10 pass, 0x11 fail, 0x12 all skipped, 0x13 crash.  QEMU then exits with
(value << 1) | 1, i.e. 33, 35, 37 or 39 (docs/emulators.md); any other
QEMU status (0 after a reset under -no-reboot, 1 for QEMU's own errors) is no
verdict at all.  The verdict is cross-checked against the serial log's last
line, "# RESULT: ...".

Where the kernel ends the machine instead (exit=reboot, exit=poweroff,
exit=halt), QEMU's own account is asked over QMP: its SHUTDOWN event says
"guest-reset" or "guest-shutdown" (the guest's reset under -no-reboot, or
ACPI soft-off), and "info registers" says when every vCPU is halted with
interrupts off, which nothing but an NMI or INIT can end.

--screendump FILE takes a picture of the screen at the end of the run
through QEMU's monitor (QMP over a unix socket, "screendump") and checks its
verdict banner with tools/screencheck.  isa-debug-exit would end QEMU before
a picture can be taken, so in that mode the device is left out: the kernel
then powers off through ACPI, -no-shutdown stops the VM instead of ending
QEMU, the picture is taken, and the verdict comes from the log's
"# RESULT:" line (and "# Totals:" to tell an all-skipped run).  --serial none
gives the guest no UART at all; the log then comes from QEMU's debugcon
(port 0xe9), which the kernel writes only under QEMU.

--gdb[=PORT] starts QEMU halted (-S) with its gdb stub on 127.0.0.1:PORT
(1234 by default) and prints the gdb command to attach with.  The timeout
then counts only the time no debugger is attached (QMP "query-chardev" shows
the stub's chardev connected to a peer), and there is none unless --timeout
is given: an interactive session is never killed under the user.

--emulator bochs boots the same ISO under Bochs 2.7 instead: its runner is
tools/trigos/run_bochs.py (the verdict from the log and Bochs's own log, the
statuses it gives), the machine tools/trigos/bochs.py.  Options only QEMU has
are refused here (6), beside the parser that defines them.  What both
runners share (the exit statuses, the verdict of a log's last line, showing
a log, ending a process group) is tools/trigos/run_common.py.

qemu.build_command() and bochs.bochsrc() and grub_cfg() (tools/trigos/) are pure (no
files, no processes) so that tools/tests can check every boot path's
configuration without booting.
"""

import argparse
import json
import math
import os
import selectors
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from . import bochs, run_bochs  # the Bochs machine, and its runner (--emulator bochs)
from . import acpi_dump, acpi_machines  # --acpi-tables
from . import emulators         # Bochs 3.0 and QEMU 10.0, built (--emulator-version)
from . import cli, ktap, screencheck, vcpu_stall, verdict
from .cli import UsageError
from .qemu import (FW_CFG_CMDLINE, OVMF_VARS, PACKAGES, QEMU, SHUTDOWN_REASONS, RunConfig,
                   build_command, cross_check, describe_qemu_status, verdict_for_exit)
from .qmp import Qmp
from .run_common import (EXIT_HALTED, EXIT_NO_VERDICT, EXIT_PASS, EXIT_SETUP, EXIT_TIMEOUT,
                         HALT_POLL_SECONDS, _on_signal, _Terminated, default_log_path,
                         kill_group, missing_file_message, print_tail, printable,
                         verdict_from_log)


DEFAULT_TIMEOUT = 60.0
DEFAULT_GDB_PORT = 1234
GDB_CHARDEV = "gdb"             # QEMU's label for the -gdb chardev

# --- gdb: --gdb[=PORT] --------------------------------------------------------

def gdb_command(config):
    """The gdb command line that attaches to @config's stub, as a list.

    No "set architecture" is needed: the ELF is x86-64 and QEMU's
    qemu-system-x86_64 stub describes 64-bit registers in every CPU mode, so
    gdb follows the kernel from its 32-bit entry into long mode.  Under KVM a
    software breakpoint is an INT3 written into guest memory, which GRUB (or
    the PVH loader) overwrites when it loads the kernel: there only hardware
    breakpoints (hbreak) set before the load are kept.
    """
    breakpoint = "hbreak" if config.accel == "kvm" else "break"
    return ["gdb", config.kernel, "-ex", f"target remote 127.0.0.1:{config.gdb_port}",
            "-ex", f"{breakpoint} kmain", "-ex", "continue"]


def announce_gdb(config, timeout, out=sys.stderr):
    """Tell the user how to attach, and what the timeout does meanwhile."""
    print(f"run: QEMU is halted before its first instruction; gdb stub on "
          f"127.0.0.1:{config.gdb_port}. Attach from another terminal with:", file=out)
    print(f"run:   {shlex.join(gdb_command(config))}", file=out)
    if config.accel == "kvm":
        print("run: under KVM use hbreak, not break: software breakpoints set before the "
              "kernel is loaded are overwritten by the load", file=out)
    if math.isinf(timeout):
        print("run: no timeout (--timeout sets one, counted while no debugger is attached)",
              file=out)
    else:
        print(f"run: the {timeout:g} s timeout counts only while no debugger is attached",
              file=out)
    if not os.path.isfile(config.kernel):
        print(f"run: warning: gdb needs the kernel's symbols and {config.kernel} is missing "
              f"(`make` builds it; or pass --kernel)", file=out)
    out.flush()


def parse_gdb_port(text):
    """argparse type of --gdb's optional PORT."""
    try:
        port = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}")
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"port {port} is outside 1..65535")
    return port


def gdb_attached(chardevs):
    """Whether QMP query-chardev's answer shows a debugger connected to the stub:
    a connected socket chardev's filename names both ends ("... <-> PEER")."""
    for chardev in chardevs or []:
        if isinstance(chardev, dict) and chardev.get("label") == GDB_CHARDEV:
            return "<->" in str(chardev.get("filename", ""))
    return False


class DebuggerWatch:
    """Asks QEMU, at most once every @interval seconds, whether gdb is attached."""

    def __init__(self, qmp, interval=HALT_POLL_SECONDS):
        self.qmp = qmp
        self.interval = interval
        self.next_look = 0.0
        self.attached = False

    def __call__(self):
        now = time.monotonic()
        if now >= self.next_look and self.qmp.sock and not self.qmp.eof:
            self.next_look = now + self.interval
            try:
                self.attached = gdb_attached(self.qmp.command("query-chardev"))
            except OSError:
                self.attached = False
        return self.attached


class ScreenCapture(threading.Thread):
    """Over QMP: wait for the guest's shutdown (or request()), take the screendump, quit QEMU."""

    def __init__(self, socket_path, picture_path, timeout):
        super().__init__(daemon=True)
        self.socket_path = socket_path
        self.picture_path = picture_path
        self.deadline = time.monotonic() + timeout
        self.requested = threading.Event()
        self.taken = False
        self.error = None
        self._buffer = b""

    def request(self):
        """Take the picture now (the run timed out), without waiting for a shutdown."""
        self.requested.set()

    def _connect(self):
        while True:
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                connection.connect(self.socket_path)
                return connection
            except OSError:
                connection.close()
                if time.monotonic() > self.deadline or self.requested.is_set():
                    raise
                time.sleep(0.05)

    def _message(self, connection, stop_on_request=False):
        """The next QMP message, None when stop_on_request and request() came."""
        while b"\n" not in self._buffer:
            if stop_on_request and self.requested.is_set():
                return None
            if time.monotonic() > self.deadline + 10:
                raise OSError("QMP answered nothing in time")
            try:
                chunk = connection.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise OSError("QEMU closed its QMP socket")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def _execute(self, connection, command, **arguments):
        request = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        connection.sendall(json.dumps(request).encode() + b"\n")
        while True:
            reply = self._message(connection)
            if "return" in reply:
                return reply
            if "error" in reply:
                raise OSError(f"QMP {command}: {reply['error'].get('desc', reply['error'])}")

    def run(self):
        try:
            with self._connect() as connection:
                connection.settimeout(0.2)
                self._message(connection)                      # the greeting
                self._execute(connection, "qmp_capabilities")
                while True:
                    message = self._message(connection, stop_on_request=True)
                    if message is None or message.get("event") == "SHUTDOWN":
                        break
                self._execute(connection, "screendump", filename=self.picture_path)
                self.taken = True
                # Wait for the answer: a quit whose socket closes at once is dropped.
                try:
                    self._execute(connection, "quit")
                except OSError:
                    pass    # QEMU may close the socket before it answers
        except (OSError, ValueError) as error:
            self.error = str(error)


def stream(process, log, quiet, timeout, out=sys.stdout, qmp=None, halted=None, held=None,
           notes=None):
    """Copy QEMU's serial output to @log and (unless @quiet) to @out, line by line.

    Returns True if QEMU closed its output before @timeout seconds passed.
    With @qmp, its events are read as they come, and every HALT_POLL_SECONDS
    the vCPUs are looked at: when all of them are halted with interrupts off
    twice in a row, @halted (a list) gets their count and True is returned
    with QEMU still running.  While @held() is true (a debugger is attached)
    the timeout does not run, and the vCPUs are not looked at (that stops
    and continues the machine, which is the debugger's to do); afterwards
    the whole @timeout starts again.  @notes() gives lines of the host's own
    (the vCPU stopper's): each goes into the log as a "# host: " line where
    the serial output is at a line's start, until the "# RESULT:" line came
    (which must stay the last), and to stderr.
    """
    deadline = time.monotonic() + timeout
    at_line_start = True
    ended = False
    held_notes = []
    recent = b""
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    if qmp and qmp.sock:
        selector.register(qmp.sock, selectors.EVENT_READ)
    pending = b""
    finished = False
    next_poll = time.monotonic() + HALT_POLL_SECONDS
    halted_polls = 0
    try:
        while True:
            if notes:
                for text in notes():
                    print(f"run: host: {text}", file=sys.stderr, flush=True)
                    held_notes.append(text)
                if held_notes and at_line_start and not ended:
                    log.write("".join(vcpu_stall.NOTE_PREFIX + text + "\n"
                                      for text in held_notes).encode())
                    log.flush()
                    held_notes = []
            debugged = bool(held and held())
            if debugged:
                deadline = max(deadline, time.monotonic() + timeout)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            if qmp and qmp.sock and not qmp.eof and halted is not None and not halted and \
                    not debugged and time.monotonic() >= next_poll:
                next_poll = time.monotonic() + HALT_POLL_SECONDS
                counts = qmp.halted_cpus()
                halted_polls = halted_polls + 1 if counts and counts[0] == counts[1] > 0 else 0
                if halted_polls >= 2:
                    halted.append(counts[1])    # read what is still in the pipe, then stop
            events = selector.select(timeout=min(remaining, 0.2 if halted or notes else 0.5))
            if qmp and any(key.fileobj is qmp.sock for key, _ in events):
                if not qmp.pump():
                    selector.unregister(qmp.sock)
                events = [(key, mask) for key, mask in events if key.fileobj is not qmp.sock]
                if not events and not halted:
                    continue
            if not events:
                if halted or process.poll() is not None:
                    # QEMU is gone but something it left holds the pipe open.
                    finished = True
                    break
                continue
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                finished = True
                break
            log.write(chunk)
            log.flush()
            at_line_start = chunk.endswith(b"\n")
            recent = (recent + chunk)[-4096:]
            ended = ended or verdict.RESULT_PREFIX.encode() in recent
            if quiet:
                continue
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                out.write(printable(line.decode("utf-8", errors="replace").rstrip("\r")) + "\n")
            if len(pending) > 1 << 20:      # a runaway line: show it in pieces
                out.write(printable(pending.decode("utf-8", errors="replace")) + "\n")
                pending = b""
            out.flush()
    finally:
        selector.close()
        if pending and not quiet:
            out.write(printable(pending.decode("utf-8", errors="replace").rstrip("\r")) + "\n")
            out.flush()
    return finished


def parse_stall_spec(text):
    """argparse type of --stall-vcpus."""
    try:
        return vcpu_stall.parse_spec(text)
    except UsageError as error:
        raise argparse.ArgumentTypeError(str(error))


def check_prerequisites(config):
    """Raise UsageError naming what is missing (and its Debian package)."""
    if shutil.which(config.qemu) is None:
        raise UsageError(missing_file_message(config.qemu, "QEMU", PACKAGES[QEMU]))
    if config.firmware == "uefi":
        for path in (config.ovmf_code, OVMF_VARS):
            if not os.path.isfile(path):
                raise UsageError(missing_file_message(path, "OVMF firmware", "ovmf"))
    if config.boot == "kernel":
        if not os.path.isfile(config.kernel):
            raise UsageError(missing_file_message(config.kernel, "kernel ELF",
                                                  hint="`make` builds it; or pass --kernel"))
    elif not os.path.isfile(config.iso):
        raise UsageError(missing_file_message(config.iso, "ISO image",
                                              hint="`make iso` builds it; or pass --iso"))
    if config.accel == "kvm" and not os.access("/dev/kvm", os.R_OK | os.W_OK):
        raise UsageError("run: --accel kvm needs a usable /dev/kvm (use --accel tcg)")


def parse_args(argv=None):
    parser = cli.ArgumentParser(
        usage_status=EXIT_SETUP,    # 2 means 'all skipped' here
        prog="run",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Boot trigos in QEMU (TCG by default) or Bochs, stream its serial console "
                    "live and exit with the kernel's verdict.",
        epilog="exit status:\n"
               "  0  pass (QEMU 33)          1  some case failed, or the selection\n"
               "                                selects nothing (QEMU 35)\n"
               "  2  all cases skipped (37)  3  the kernel crashed (39)\n"
               "  4  timeout (QEMU killed)   5  no verdict: QEMU exited otherwise, or its\n"
               "                                status disagrees with '# RESULT:' in the log\n"
               "  6  usage error or missing file (QEMU not started)\n"
               "  7  machine reset by the guest (QMP SHUTDOWN reason guest-reset)\n"
               "  8  machine powered off by the guest (reason guest-shutdown)\n"
               "  9  every vCPU halted with interrupts off (QEMU killed)\n"
               "(docs/ktap.md, 'Verdicts and exit codes', has the whole table)\n\n"
               "under --emulator bochs the verdict comes from the log ('# RESULT:', '# Totals:')\n"
               "once the kernel (told machine=bochs) ends Bochs through its shutdown port,\n"
               "and Bochs's own log (NAME.bochs.log) stands for QMP: 0-4 and 6 as above;\n"
               "  5 no verdict, or Bochs panicked   7 the guest reset the machine\n"
               "  8 ACPI soft-off   9 every CPU halted with IF=0 and no NMI/INIT/SMI since\n"
               "QEMU-only options (--smp, --accel, --firmware uefi, --boot usb|kernel,\n"
               "--machine, --cpu, --qemu-arg, --serial none, --screendump, --gdb) are\n"
               "refused with status 6 under Bochs.\n\n"
               "examples:\n"
               "  tools/run --cpus 4 --cmdline 'test=lib_* seed=7'\n"
               "  tools/run --firmware uefi --boot usb --machine q35\n"
               "  tools/run --boot kernel --qemu-arg '-cpu max' --dry-run\n"
               "  tools/run --gdb --boot kernel --cpus 2     then: gdb build/trigos.elf "
               "-ex 'target remote 127.0.0.1:1234'\n"
               "  tools/run --emulator bochs --bochs-cpu ryzen --cmdline 'test=trigger*'")
    parser.add_argument("--emulator", choices=("qemu", "bochs"), default="qemu",
                        help="qemu (default) or bochs: Bochs 2.7 boots the same ISO as a CD "
                             "(BIOS), its command line in a generated grub.cfg")
    parser.add_argument("--emulator-version", default="system", metavar="VERSION",
                        choices=("system",) + tuple(EMULATOR_VERSIONS),
                        help="system (default: Debian 12's QEMU 7.2 or Bochs 2.7), or the "
                             "build tools/emulators made from Debian 13's source: 10.0 (QEMU: "
                             "x2APIC under TCG) or 3.0 (Bochs: WAITPKG)")
    parser.add_argument("--bochs-cpu", default=bochs.DEFAULT_CPU_MODEL, metavar="MODEL",
                        help=f"Bochs CPU model (default {bochs.DEFAULT_CPU_MODEL}; "
                             "corei7_icelake_u, ryzen (MONITORX), ...: `bochs --help cpu`)")
    parser.add_argument("--bochs-ips", type=int, default=bochs.DEFAULT_IPS, metavar="N",
                        help=f"Bochs instructions per simulated second, the TSC rate "
                             f"(default {bochs.DEFAULT_IPS})")
    parser.add_argument("--bochs-log-port", default=bochs.DEFAULT_LOG_PORT,
                        choices=bochs.LOG_PORTS,
                        help="where the log comes from under Bochs: lp0 (default; the kernel "
                             "is passed console=lp0, GRUB's output goes to NAME.com1.log) or "
                             "com1 (slower: Bochs's UART sends a byte every 87 simulated us); "
                             "console= words in --cmdline choose instead")
    parser.add_argument("--cpus", type=int, default=2, metavar="N",
                        help="number of CPUs (-smp N; default 2)")
    parser.add_argument("--smp", metavar="STRING",
                        help="raw -smp value, e.g. '4,maxcpus=8' or '6,sockets=2,cores=3' "
                             "(overrides --cpus)")
    parser.add_argument("--accel", choices=("tcg", "kvm"), default="tcg",
                        help="accelerator (default tcg; kvm only where real KVM exists: "
                             "it is never chosen automatically)")
    parser.add_argument("--firmware", choices=("bios", "uefi"), default="bios",
                        help="SeaBIOS or OVMF (UEFI, with a private copy of its variable "
                             "store); default bios")
    parser.add_argument("--boot", choices=("cdrom", "usb", "kernel"), default="cdrom",
                        help="cdrom: the ISO as a CD; usb: the ISO as a read-only USB stick "
                             "on xHCI; kernel: the ELF by -kernel (PVH, bios only); "
                             "default cdrom")
    parser.add_argument("--memory", type=int, default=256, metavar="MB",
                        help="guest RAM in MiB (default 256)")
    parser.add_argument("--machine", choices=("pc", "q35"), default="pc",
                        help="machine type (default pc)")
    parser.add_argument("--cpu", default="max", metavar="MODEL",
                        help="CPU model (default max: under TCG it offers MONITOR/MWAIT, "
                             "which qemu64 lacks; '' for QEMU's default)")
    parser.add_argument("--cmdline", metavar="STRING",
                        help="kernel command line: -append for --boot kernel, else the "
                             f"fw_cfg file {FW_CFG_CMDLINE}")
    parser.add_argument("--qemu-arg", action="append", default=[], metavar="ARGS",
                        help="extra QEMU arguments, split like a shell does "
                             "(repeatable): --qemu-arg '-cpu max'")
    parser.add_argument("--acpi-tables", metavar="DUMP",
                        help="boot with another machine's ACPI tables, loaded by GRUB's acpi "
                             "command from a second disk (--boot cdrom or usb, BIOS or UEFI): "
                             "an acpidump text, a directory of binary tables, or @TEXT for the "
                             "machine of tests/machines/acpi-machines.xz whose name contains "
                             "TEXT (tools/acpi-machines list)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help=f"kill QEMU after this many seconds (default {DEFAULT_TIMEOUT:g}; "
                             "with --gdb none, and a given one counts only while no debugger "
                             "is attached)")
    parser.add_argument("--gdb", nargs="?", const=DEFAULT_GDB_PORT, type=parse_gdb_port,
                        metavar="PORT",
                        help=f"start QEMU halted with its gdb stub on 127.0.0.1:PORT (default "
                             f"{DEFAULT_GDB_PORT}) and print the gdb command to attach with")
    parser.add_argument("--stall-vcpus", type=parse_stall_spec, metavar="SPEC",
                        help="stop QEMU vCPU threads from the host during the run (ptrace), "
                             "as a loaded host does, and write what was done into the log "
                             "as '# host:' lines; SPEC is " + vcpu_stall.SPEC_HELP +
                             ". e.g. --stall-vcpus 3,seed=7")
    parser.add_argument("--log", metavar="FILE",
                        help="serial log file (default build/logs/run-DATE-PID.log)")
    parser.add_argument("--iso", default="build/trigos.iso", metavar="PATH",
                        help="ISO image for cdrom/usb boot (default build/trigos.iso)")
    parser.add_argument("--kernel", default="build/trigos.elf", metavar="PATH",
                        help="kernel ELF for --boot kernel (default build/trigos.elf)")
    parser.add_argument("--serial", choices=("stdio", "none"), default="stdio",
                        help="stdio: COM1 is the log (default); none: the guest has no UART, "
                             "the log comes from QEMU's debugcon (port 0xe9)")
    parser.add_argument("--screendump", metavar="FILE.ppm",
                        help="at the end, save the screen (QMP screendump) and check its "
                             "verdict banner against the log (tools/screencheck); the run "
                             "then ends by ACPI poweroff, without isa-debug-exit")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="do not stream the console (the log is still written)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the QEMU command (with --emulator bochs: the bochsrc, the "
                             "grub.cfg and the Bochs command) and exit 0")
    args = parser.parse_args(argv)
    if args.timeout is None:
        args.timeout = math.inf if args.gdb is not None else DEFAULT_TIMEOUT
    if not args.timeout > 0:
        parser.error(f"--timeout must be positive, not {args.timeout:g}")
    qemu_args = []
    for value in args.qemu_arg:
        try:
            qemu_args += shlex.split(value)
        except ValueError as error:
            parser.error(f"--qemu-arg {value!r}: {error}")
    args.qemu_args = qemu_args
    return args


def acpi_tables_disk(source, workdir):
    """The QEMU arguments adding a disk that makes GRUB load @source's ACPI tables.

    The tables trigos reads (acpi_dump.kept_tables()) go on a FAT disk that
    iso/grub.cfg recognises by its label (acpi_dump.write_grub_disk()).
    """
    try:
        tables = acpi_machines.tables_of(source)
        path = os.path.join(workdir, "acpi-tables.img")
        names = acpi_dump.write_grub_disk(tables, path)
    except (OSError, ValueError, acpi_dump.DumpError, subprocess.CalledProcessError) as error:
        raise UsageError(f"--acpi-tables {source}: {error}") from error
    print(f"run: --acpi-tables: {len(names)} tables ({' '.join(s for s, _ in tables)}) for "
          "GRUB's acpi command", file=sys.stderr)
    # The disk is not bootable: SeaBIOS must not try it before the CD.
    return ["-drive", f"file={path},format=raw,if=ide,index=0,media=disk", "-boot", "order=d"]


# --emulator-version VERSION -> the emulator it belongs to (tools/emulators builds NAME-VERSION).
EMULATOR_VERSIONS = {"10.0": "qemu", bochs.RELEASE_BUILT: "bochs"}


def built_qemu(args, dry_run=False):
    """The QEMU executable of --emulator-version: Debian's, or tools/emulators' build
    (which a dry run only names when it is not built)."""
    if args.emulator_version == "system":
        return QEMU
    name = f"qemu-{args.emulator_version}"
    path = emulators.binary(name)
    if not path and not dry_run:
        raise UsageError(f"run: {emulators.missing_reason(name)}")
    return path or name


def config_from_args(args, ovmf_vars=None, qemu=QEMU):
    return RunConfig(iso=args.iso, kernel=args.kernel, cpus=args.cpus, smp=args.smp,
                     accel=args.accel, firmware=args.firmware, boot=args.boot,
                     memory=args.memory, machine=args.machine, cpu=args.cpu or None,
                     cmdline=args.cmdline, serial=args.serial,
                     qemu_args=args.qemu_args, ovmf_vars=ovmf_vars, gdb_port=args.gdb,
                     stall_qmp_socket="<temporary directory>/stall.sock"
                     if getattr(args, "stall_vcpus", None) else None,
                     qemu=qemu)


def check_picture(path, expected_word):
    """Compare the banner in the picture at @path with @expected_word; a message or None."""
    try:
        word, explanation = screencheck.check_file(path)
    except (OSError, screencheck.PictureError) as error:
        return f"the screendump {path} cannot be read: {error}"
    print(f"run: screendump {path}: {explanation}", file=sys.stderr)
    if word != expected_word:
        return (f"the log says {expected_word}, but the screen shows "
                f"{word + ' ' if word else 'no '}banner")
    return None


def start_staller(args, config, process, started):
    """Start --stall-vcpus's stopper on its own QMP connection; None without it."""
    if not args.stall_vcpus:
        return None
    connection = Qmp(config.stall_qmp_socket)
    if not connection.connect(process):
        print("run: --stall-vcpus: no QMP connection for the vCPU stopper; no vCPU is stopped",
              file=sys.stderr)
        return None
    staller = vcpu_stall.VcpuStaller(args.stall_vcpus, connection, process.pid, started)
    staller.start()
    return staller


def end_staller(staller):
    """Cancel the stops still to come and let a stopped vCPU go: QEMU must be able to exit."""
    if staller and staller.is_alive():
        staller.cancel()
        staller.join(timeout=10)
    if staller:
        for text in staller.notes():
            print(f"run: host: {text}", file=sys.stderr)
        staller.qmp.close()


def run_qemu(config, args, workdir):
    """Start QEMU, stream it, and return this tool's exit status."""
    log_path = args.log or default_log_path()
    log_directory = os.path.dirname(log_path)
    try:
        if log_directory:
            os.makedirs(log_directory, exist_ok=True)
        log = open(log_path, "wb")
    except OSError as error:
        raise UsageError(f"run: cannot write the log {log_path}: {error.strerror or error}")
    config.qmp_socket = os.path.join(workdir, "qmp.sock")
    if config.stall_qmp_socket:
        config.stall_qmp_socket = os.path.join(workdir, "stall.sock")
    command = build_command(config)
    if args.screendump and os.path.dirname(args.screendump):
        os.makedirs(os.path.dirname(args.screendump), exist_ok=True)
    print(f"run: {shlex.join(command)}", file=sys.stderr, flush=True)
    qemu_errors_path = os.path.join(workdir, "qemu-stderr")
    qmp = Qmp(config.qmp_socket)
    halted = []
    started = time.monotonic()
    with log, open(qemu_errors_path, "w+b") as qemu_errors:
        try:
            # Its own session: a timeout kills QEMU and anything it started.
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=qemu_errors,
                                       start_new_session=True)
        except OSError as error:
            raise UsageError(f"run: cannot start {config.qemu}: {error.strerror or error}")
        capture = None
        staller = None
        if args.screendump:
            # A picture left by an earlier run must never pass for this one's.
            try:
                os.remove(args.screendump)
            except FileNotFoundError:
                pass
            capture = ScreenCapture(config.screen_socket, os.path.abspath(args.screendump),
                                    args.timeout)
            capture.start()
        try:
            # Under --gdb the timeout waits for the debugger only through QMP.
            qmp_wait = 5.0 if config.gdb_port is not None else min(5.0, args.timeout / 2)
            if not qmp.connect(process, timeout=qmp_wait):
                print("run: no QMP connection to QEMU: resets, power-offs and halts "
                      "cannot be told apart", file=sys.stderr)
            if config.gdb_port is not None:
                announce_gdb(config, args.timeout)
            staller = start_staller(args, config, process, started)
            finished = stream(process, log, args.quiet,
                              max(0.1, args.timeout - (time.monotonic() - started)),
                              qmp=qmp, halted=None if capture else halted,
                              held=DebuggerWatch(qmp) if config.gdb_port is not None else None,
                              notes=staller.notes if staller else None)
            end_staller(staller)
            if capture and not finished:
                capture.request()
                capture.join(timeout=10)
            status = None
            if finished and halted:
                status = "halted"
            elif finished:
                try:
                    status = process.wait(timeout=max(1.0, args.timeout -
                                                      (time.monotonic() - started)))
                except subprocess.TimeoutExpired:
                    finished = False
                qmp.drain()
        finally:
            end_staller(staller)
            qmp.close()
            kill_group(process)
        elapsed = time.monotonic() - started
        qemu_errors.seek(0)
        qemu_messages = qemu_errors.read().decode("utf-8", errors="replace").strip()

    if not finished:
        print(f"run: timeout: no verdict after {args.timeout:g} s; QEMU (pid {process.pid}) "
              f"and its process group were killed", file=sys.stderr)
        if capture:
            print(f"run: the screen at the timeout is in {args.screendump}" if capture.taken
                  else f"run: no screendump: {capture.error or 'not taken'}", file=sys.stderr)
        print_tail(log_path)
        # QEMU's "terminating on signal 15 from pid ..." is our own doing.
        qemu_messages = "\n".join(line for line in qemu_messages.splitlines()
                                  if "terminating on signal" not in line).strip()
        if qemu_messages:
            print(f"run: QEMU said:\n{qemu_messages}", file=sys.stderr)
        print(f"run: TIMEOUT after {elapsed:.2f} s; log: {log_path}", file=sys.stderr)
        return EXIT_TIMEOUT

    if qemu_messages:
        qemu_messages = "\n".join(line for line in qemu_messages.splitlines()
                                  if "terminating on signal" not in line).strip()
    if status == "halted":
        if qemu_messages:
            print(f"run: QEMU said:\n{qemu_messages}", file=sys.stderr)
        print(f"run: machine halted: all {halted[0]} vCPUs halted with interrupts off "
              f"(QMP 'info registers'); QEMU was killed after {elapsed:.2f} s; log: {log_path}",
              file=sys.stderr)
        return EXIT_HALTED
    # In screendump mode the guest always powers off (no isa-debug-exit): the log decides.
    if status == 0 and qmp.shutdown_reason in SHUTDOWN_REASONS and not capture:
        code, what = SHUTDOWN_REASONS[qmp.shutdown_reason]
        if qemu_messages:
            print(f"run: QEMU said:\n{qemu_messages}", file=sys.stderr)
        print(f"run: {what} (QMP SHUTDOWN event, reason {qmp.shutdown_reason}) after "
              f"{elapsed:.2f} s; log: {log_path}", file=sys.stderr)
        return code

    with open(log_path, "rb") as log:
        data = log.read()
    if capture:
        capture.join(timeout=5)
        code, word = verdict_from_log(data)
        message = None
        if code == EXIT_NO_VERDICT:
            message = (f"no '# RESULT:' line at the end of the log ({describe_qemu_status(status)})")
        elif not capture.taken:
            code, message = EXIT_NO_VERDICT, f"no screendump: {capture.error or 'not taken'}"
        else:
            message = check_picture(args.screendump, verdict.RESULT_WORDS[word])
            if message:
                code = EXIT_NO_VERDICT
    else:
        code, message = cross_check(status, ktap.last_line(data)[1])
        word = verdict_for_exit(status)[1]
    if qemu_messages:
        print(f"run: QEMU said:\n{qemu_messages}", file=sys.stderr)
    if message:
        print(f"run: {message}", file=sys.stderr)
        if code == EXIT_NO_VERDICT:
            print_tail(log_path)
    shown = word if code != EXIT_NO_VERDICT else "NO VERDICT"
    print(f"run: {shown} (QEMU exit {status}) in {elapsed:.2f} s; log: {log_path}",
          file=sys.stderr)
    return code


# --- Which emulator: the dispatch (Bochs's runner is tools/trigos/run_bochs.py) -----

# tools/run options that only QEMU has -> (the option as the message shows it, why Bochs
# has nothing like it).  A value other than the default is refused under Bochs.
QEMU_ONLY_OPTIONS = {
    "smp": ("--smp", "Bochs takes a CPU count only: use --cpus"),
    "accel": ("--accel", "Bochs is an interpreter, with no accelerator"),
    "firmware": ("--firmware", "Bochs boots its own BIOS only (no UEFI firmware here)"),
    "boot": ("--boot", "Bochs boots the ISO as a CD only (no -kernel, no USB stick)"),
    "machine": ("--machine", "Bochs emulates one i440FX PC"),
    "cpu": ("--cpu", "that is a QEMU CPU model: use --bochs-cpu"),
    "qemu_arg": ("--qemu-arg", "those are QEMU's arguments"),
    "acpi_tables": ("--acpi-tables", "the tables come through GRUB on a QEMU disk"),
    "serial": ("--serial", "Bochs's lp0 or COM1 is the log (--bochs-log-port)"),
    "screendump": ("--screendump", "the picture is taken through QEMU's monitor"),
    "gdb": ("--gdb", "Debian's Bochs 2.7 is built without its gdb stub"),
    "stall_vcpus": ("--stall-vcpus", "Bochs runs every CPU on one host thread"),
}
BOCHS_ONLY_OPTIONS = {"bochs_cpu": "--bochs-cpu", "bochs_ips": "--bochs-ips",
                      "bochs_log_port": "--bochs-log-port"}


def refuse_other_emulators_options(args):
    """Raise UsageError for an option the chosen emulator does not have."""
    defaults = vars(parse_args([]))

    def given(dest):
        return dest in defaults and getattr(args, dest, defaults[dest]) != defaults[dest]

    version = getattr(args, "emulator_version", "system")
    if version != "system" and EMULATOR_VERSIONS[version] != args.emulator:
        raise UsageError(f"--emulator-version {version} is a {EMULATOR_VERSIONS[version]} "
                         f"version, not {args.emulator}'s")
    if args.emulator == "bochs":
        for dest, (option, why) in QEMU_ONLY_OPTIONS.items():
            if given(dest):
                value = getattr(args, dest)
                shown = f"{option} {value}" if isinstance(value, str) else option
                raise UsageError(f"{shown} cannot be used with --emulator bochs: {why}")
    else:
        for dest, option in BOCHS_ONLY_OPTIONS.items():
            if given(dest):
                raise UsageError(f"{option} needs --emulator bochs")


def main(argv=None):
    args = parse_args(argv)
    try:
        refuse_other_emulators_options(args)
        if args.emulator == "bochs":
            return run_bochs.bochs_main(args)
        placeholder = os.path.join("<temporary directory>", os.path.basename(OVMF_VARS))
        config = config_from_args(args, placeholder if args.firmware == "uefi" else None,
                                  built_qemu(args, args.dry_run))
        if args.screendump:
            config.screen_socket = os.path.join("<temporary directory>", "screen.sock")
        command = build_command(config)
        if args.dry_run:
            print(shlex.join(command))
            return EXIT_PASS
        check_prerequisites(config)
        with tempfile.TemporaryDirectory(prefix="trigos-run-") as workdir:
            if args.firmware == "uefi":
                config.ovmf_vars = os.path.join(workdir, os.path.basename(OVMF_VARS))
                shutil.copyfile(OVMF_VARS, config.ovmf_vars)
            if args.screendump:
                config.screen_socket = os.path.join(workdir, "screen.sock")
            if args.acpi_tables:
                config.qemu_args = acpi_tables_disk(args.acpi_tables, workdir) + \
                    config.qemu_args
            for sig in (signal.SIGTERM, signal.SIGHUP):
                signal.signal(sig, _on_signal)
            return run_qemu(config, args, workdir)
    except UsageError as error:
        text = str(error)
        print(text if text.startswith("run: ") else f"run: {text}", file=sys.stderr)
        return EXIT_SETUP
    except _Terminated as stop:
        print(f"run: stopped by signal {stop.args[0]}; "
              f"{'Bochs' if args.emulator == 'bochs' else 'QEMU'} was killed", file=sys.stderr)
        return 128 + stop.args[0]
