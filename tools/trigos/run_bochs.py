# SPDX-License-Identifier: MIT
"""tools/run --emulator bochs: boot the ISO under Bochs (2.7, or 3.0 with
--emulator-version 3.0) and judge its run.

tools/trigos/bochs.py writes Bochs's bochsrc and a copy of the ISO whose
grub.cfg carries the command line, with machine=bochs first.  There the
verdict comes from the log alone: the kernel, told it runs under Bochs, ends
the run through Bochs's shutdown port, and Bochs's exit status says nothing.
Bochs's own log (its stderr, kept beside the serial log as NAME.bochs.log)
is its account of the machine, as QMP is QEMU's: the shutdown port (then the
log's "# RESULT:" and "# Totals:" decide 0-3), a reset (7: Bochs is killed
before the BIOS boots the kernel again), ACPI soft-off (8), every CPU halted
with interrupts off (9: each CPU's last HLT with IF=0 was followed by no NMI,
INIT or SMI delivered to it, for a second), a Bochs panic (5).  A machine
that does none of these (a CPU spinning or in MWAIT) runs until the timeout
(4).  tools/run refuses the options only QEMU has (6) before it gets here
(run.refuse_other_emulators_options()).
"""

import os
import pty
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import bochs, emulators, ktap, verdict
from .cli import UsageError
from .run_common import (EXIT_HALTED, EXIT_NO_VERDICT, EXIT_PASS, EXIT_POWEROFF, EXIT_RESET,
                         EXIT_TIMEOUT, HALT_POLL_SECONDS, _on_signal, default_log_path,
                         kill_group, missing_file_message, print_tail, printable,
                         verdict_from_log)

BOCHS_TERMINAL = "vt100"        # what the term display library is told it draws on


def _beside(log_path, suffix):
    stem = log_path[:-len(".log")] if log_path.endswith(".log") else log_path
    return stem + suffix


def bochs_log_path(log_path):
    """Where Bochs's own log goes: beside the run's log, NAME.bochs.log."""
    return _beside(log_path, ".bochs.log")


def com1_log_path(log_path):
    """Where COM1's output goes when the log comes from lp0: NAME.com1.log."""
    return _beside(log_path, ".com1.log")


def bochs_binary(release):
    """The Bochs executable of @release: Debian's for 2.7, tools/emulators' build for 3.0."""
    if release == bochs.RELEASE_SYSTEM:
        return bochs.BOCHS
    return emulators.binary(f"bochs-{release}") or f"bochs-{release}"


def check_bochs_prerequisites(iso, release=bochs.RELEASE_SYSTEM):
    """Raise UsageError naming what a Bochs run lacks (and its Debian package)."""
    for path, (what, package) in bochs.PREREQUISITES.items():
        if release != bochs.RELEASE_SYSTEM and path in (bochs.BOCHS, bochs.TERM_DISPLAY_PLUGIN):
            continue        # built by tools/emulators, its display built in
        present = shutil.which(path) if not os.path.isabs(path) else os.path.exists(path)
        if not present:
            raise UsageError(missing_file_message(path, what, package))
    if release != bochs.RELEASE_SYSTEM and not emulators.binary(f"bochs-{release}"):
        raise UsageError(f"run: {emulators.missing_reason(f'bochs-{release}')}")
    if not os.path.isfile(iso):
        raise UsageError(missing_file_message(iso, "ISO image",
                                              hint="`make iso` builds it; or pass --iso"))


def bochs_setup(args, log_path, derive):
    """(BochsConfig, grub.cfg text) for @args; with @derive the ISO copy is made."""
    try:
        port = bochs.log_port(args.cmdline, args.bochs_log_port)
        cfg_text = bochs.grub_cfg(bochs.read_iso_file(args.iso, "/boot/grub/grub.cfg"),
                                  args.cmdline, bochs_release(args), port)
        iso = (bochs.derive_iso if derive else bochs.derived_iso_path)(args.iso, cfg_text)
        log = os.path.abspath(log_path)
        config = bochs.BochsConfig(iso=iso,
                                   serial_log=com1_log_path(log) if port == "lp0" else log,
                                   parallel_log=log if port == "lp0" else None,
                                   cpus=args.cpus, memory=args.memory, model=args.bochs_cpu,
                                   ips=args.bochs_ips, release=bochs_release(args))
        bochs.bochsrc(config)           # refuses what it cannot write
    except (bochs.BochsError, OSError) as error:
        raise UsageError(f"run: {error}")
    return config, cfg_text


def bochs_release(args):
    """The Bochs release of this run: --emulator-version, or the system's."""
    version = getattr(args, "emulator_version", None)
    return bochs.RELEASE_SYSTEM if version in (None, "system") else version


def bochs_command(config, bochsrc_file, rc_file):
    """Bochs's argument list for @config: its release's executable, -rc where it has a
    debugger (Debian's 2.7 only)."""
    return bochs.command(bochsrc_file, rc_file, bochs_binary(config.release),
                         debugger=config.release == bochs.RELEASE_SYSTEM)


def judge_bochs(ended, detail, data, finished, bochs_status):
    """(exit status, word or None, message or None) of a Bochs run (pure).

    @ended and @detail: how Bochs's own log says the machine ended
    (tools/trigos/bochs.py, BochsLog); @data: the serial log; @finished: Bochs or the
    machine ended before the timeout.
    """
    last = ktap.last_line(data)[1].rstrip()
    if not finished:
        if last.startswith(verdict.RESULT_PREFIX):
            return EXIT_TIMEOUT, None, (
                f"the log ends with its verdict ('{last}') but nothing ended Bochs: a kernel "
                f"not told machine=bochs, with a CPU still running or in MWAIT, keeps a Bochs "
                f"machine on until the timeout")
        return EXIT_TIMEOUT, None, None
    if ended == bochs.ENDED_RESET:
        return EXIT_RESET, verdict.RUN_STATUS_WORDS[EXIT_RESET], f"machine reset (Bochs: {detail}); Bochs was killed"
    if ended == bochs.ENDED_POWEROFF:
        return EXIT_POWEROFF, verdict.RUN_STATUS_WORDS[EXIT_POWEROFF], f"machine powered off (Bochs: {detail})"
    if ended == bochs.ENDED_HALT:
        return EXIT_HALTED, verdict.RUN_STATUS_WORDS[EXIT_HALTED], f"machine halted ({detail}, in Bochs's log); Bochs was killed"
    if ended == bochs.ENDED_PANIC:
        return EXIT_NO_VERDICT, None, f"Bochs panicked: {detail}"
    if ended == bochs.ENDED_SHUTDOWN_PORT:
        code, word = verdict_from_log(data)
        if code == EXIT_NO_VERDICT:
            return code, None, ("the kernel ended Bochs through its shutdown port, but the "
                                "log's last line is not a '# RESULT:' line")
        return code, word, None
    return EXIT_NO_VERDICT, None, (f"Bochs exited with status {bochs_status} without a shutdown "
                                   f"request, reset or power-off in its log")


class _LineEcho:
    """Shows a byte stream on @out line by line, without escape sequences."""

    def __init__(self, out, quiet):
        self.out = out
        self.quiet = quiet
        self.pending = b""

    def feed(self, chunk):
        if self.quiet or not chunk:
            return
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        for line in lines:
            self.out.write(printable(line.decode("utf-8", errors="replace").rstrip("\r")) + "\n")
        self.out.flush()

    def close(self):
        if self.pending and not self.quiet:
            self.out.write(printable(self.pending.decode("utf-8", errors="replace")) + "\n")
            self.out.flush()
        self.pending = b""


def stream_bochs(process, serial, terminal, bochs_log, watcher, quiet, timeout, out=sys.stdout):
    """Show the serial log as Bochs writes it, and follow Bochs's own log.

    @serial: the serial log, open for reading (Bochs appends to it);
    @terminal: the pseudo-terminal of Bochs's term display (drained, not
    kept); Bochs's stderr goes to @bochs_log and, line by line, to @watcher
    (a tools/trigos/bochs.py BochsLog).  Returns True when Bochs exited or its log says
    the machine ended (shut down, reset, powered off, panicked, every CPU
    halted with interrupts off for HALT_POLL_SECONDS), False after @timeout
    seconds.
    """
    deadline = time.monotonic() + timeout
    echo = _LineEcho(out, quiet)
    stderr = process.stderr.fileno()
    readers = [stderr, terminal]
    log_pending = b""
    finished = False
    halted_since = None

    def read_bochs_log(chunk):
        nonlocal log_pending
        bochs_log.write(chunk)
        log_pending += chunk
        *lines, log_pending = log_pending.split(b"\n")
        for line in lines:
            watcher.feed(line.decode("utf-8", errors="replace"))

    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select(readers, [], [],
                                        max(0.0, min(0.1, deadline - time.monotonic())))
            for reader in ready:
                try:
                    chunk = os.read(reader, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    readers.remove(reader)
                elif reader == stderr:
                    read_bochs_log(chunk)
            echo.feed(serial.read())
            if not watcher.all_halted():
                halted_since = None
            elif halted_since is None:
                halted_since = time.monotonic()
            elif time.monotonic() - halted_since >= HALT_POLL_SECONDS:
                watcher.halted()
            if watcher.ended or process.poll() is not None:
                finished = True
                break
        if finished and watcher.ended not in (bochs.ENDED_RESET, bochs.ENDED_HALT):
            # Bochs is leaving: what it still writes belongs to this run.
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            while stderr in readers and select.select([stderr], [], [], 0.5)[0]:
                chunk = os.read(stderr, 65536)
                if not chunk:
                    break
                read_bochs_log(chunk)
            echo.feed(serial.read())
    finally:
        echo.close()
    return finished


def run_bochs(config, args, log_path, workdir):
    """Start Bochs, stream it, and return this tool's exit status."""
    bochsrc_file = os.path.join(workdir, "bochsrc")
    rc_file = os.path.join(workdir, "debugger-commands")
    with open(bochsrc_file, "w", encoding="utf-8") as rc:
        rc.write(bochs.bochsrc(config))
    with open(rc_file, "w", encoding="utf-8") as commands:
        commands.write(bochs.DEBUGGER_COMMANDS)
    own_log_path = bochs_log_path(log_path)
    port = "lp0" if config.parallel_log else "com1"
    command = bochs_command(config, bochsrc_file, rc_file)
    print(f"run: {shlex.join(command)}", file=sys.stderr)
    print(f"run: Bochs {config.release} {config.model}, {config.cpus} CPUs, ips {config.ips}; "
          f"ISO {config.iso} (command line: "
          f"{' '.join(bochs.kernel_words(args.cmdline, config.release, port))}); the log from "
          f"{port}" + (f", COM1's (GRUB's) in {config.serial_log}" if config.parallel_log
                       else "") + f"; Bochs's log: {own_log_path}", file=sys.stderr, flush=True)
    watcher = bochs.BochsLog(config.cpus)
    started = time.monotonic()
    try:
        # Bochs opens the log (and COM1's) at the first byte: an old log must never pass
        # for this run's, and the reader needs a file to follow from the start.
        open(log_path, "wb").close()
        if config.parallel_log:
            open(config.serial_log, "wb").close()
        serial = open(log_path, "rb")
        own_log = open(own_log_path, "wb")
    except OSError as error:
        raise UsageError(f"run: cannot write the log {log_path}: {error.strerror or error}")
    terminal, terminal_peer = pty.openpty()
    with serial, own_log:
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=terminal_peer,
                                       stderr=subprocess.PIPE, start_new_session=True,
                                       env=dict(os.environ, TERM=BOCHS_TERMINAL))
        except OSError as error:
            os.close(terminal)
            os.close(terminal_peer)
            raise UsageError(f"run: cannot start {command[0]}: {error.strerror or error}")
        os.close(terminal_peer)
        try:
            finished = stream_bochs(process, serial, terminal, own_log, watcher, args.quiet,
                                    args.timeout)
        finally:
            # Nothing of Bochs's is lost by SIGKILL (both logs are written as they come),
            # and after a reset every moment counts: the BIOS would boot the kernel again.
            kill_group(process, grace=0.0)
            process.stderr.close()
            os.close(terminal)
    elapsed = time.monotonic() - started
    with open(log_path, "rb") as log:
        data = log.read()
    code, word, message = judge_bochs(watcher.ended, watcher.detail, data, finished,
                                      process.returncode)
    if code == EXIT_TIMEOUT:
        print(f"run: timeout: no end after {args.timeout:g} s; Bochs (pid {process.pid}) and "
              f"its process group were killed", file=sys.stderr)
    if message:
        print(f"run: {message}", file=sys.stderr)
    if code in (EXIT_TIMEOUT, EXIT_NO_VERDICT):
        if watcher.errors:
            print(f"run: the last errors in Bochs's log {own_log_path}:\n" +
                  "\n".join(f"  | {line}" for line in watcher.errors), file=sys.stderr)
        print_tail(log_path, port)
        if config.parallel_log:
            # What the kernel printed before it read console=lp0 (a panic that early).
            print_tail(config.serial_log, "COM1")
    shown = {EXIT_TIMEOUT: verdict.RUN_STATUS_WORDS[EXIT_TIMEOUT],
             EXIT_NO_VERDICT: "NO VERDICT"}.get(code, word)
    print(f"run: {shown} (Bochs: {watcher.ended or 'no end in its log'}) in {elapsed:.2f} s; "
          f"log: {log_path}", file=sys.stderr)
    return code


def bochs_main(args):
    """--emulator bochs: the bochsrc and ISO copy, then the run (or only print them)."""
    log_path = args.log or default_log_path()
    if args.dry_run:
        config, cfg_text = bochs_setup(args, log_path, derive=False)
        print("# bochsrc")
        print(bochs.bochsrc(config), end="")
        print(f"# grub.cfg of {config.iso} (derived from {args.iso})")
        print(cfg_text, end="")
        print("# command")
        print(shlex.join(bochs_command(config, "BOCHSRC", "DEBUGGER-COMMANDS")))
        return EXIT_PASS
    check_bochs_prerequisites(args.iso, bochs_release(args))
    log_directory = os.path.dirname(log_path)
    if log_directory:
        os.makedirs(log_directory, exist_ok=True)
    config, _ = bochs_setup(args, log_path, derive=True)
    with tempfile.TemporaryDirectory(prefix="trigos-run-") as workdir:
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, _on_signal)
        return run_bochs(config, args, log_path, workdir)
