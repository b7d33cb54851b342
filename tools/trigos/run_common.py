# SPDX-License-Identifier: MIT
"""What tools/run's two runners share: run.py (QEMU, and the dispatch) and
run_bochs.py (Bochs).

The exit statuses of tools/run, the verdict read from a log's last line (for
runs that have no isa-debug-exit), how a log is shown on the terminal and its
tail printed, how a run's emulator and its process group are ended, the
signals that stop a run, and the messages of a setup that lacks a file.
run.py imports run_bochs.py for --emulator bochs; both import this module,
which imports neither, so no module is loaded half-way through another.
"""

import os
import re
import signal
import subprocess
import sys
import time

from . import ktap, verdict

# Exit statuses of this tool.
EXIT_PASS = verdict.RUN_PASS
EXIT_FAIL = verdict.RUN_FAIL
EXIT_SKIP = verdict.RUN_SKIP            # every case skipped
EXIT_CRASH = verdict.RUN_CRASH
EXIT_TIMEOUT = verdict.RUN_TIMEOUT
EXIT_NO_VERDICT = verdict.RUN_NO_VERDICT    # no verdict, or verdict and log disagree
EXIT_SETUP = verdict.RUN_SETUP          # bad arguments or missing files: QEMU was not started
EXIT_RESET = verdict.RUN_RESET          # the guest reset the machine (QMP reason guest-reset)
EXIT_POWEROFF = verdict.RUN_POWEROFF    # the guest powered the machine off (guest-shutdown)
EXIT_HALTED = verdict.RUN_HALTED        # every vCPU halted with interrupts off; QEMU was killed

HALT_POLL_SECONDS = 1.0

TAIL_LINES = 20


# The word on the RESULT line -> this tool's status (SKIP is told by the totals).
RESULT_EXITS = {word: verdict.RUN_STATUS_OF[word] for word in verdict.RESULT_WORDS.values()}
_TOTALS = re.compile(r"^# Totals: pass:(\d+) fail:(\d+) skip:(\d+)")


def verdict_from_log(data):
    """(exit status, word) from a log's last line, for runs without isa-debug-exit.

    "# RESULT: PASS" after totals with nothing passed and something skipped
    is the all-skipped status, as QEMU's 37 would have said.
    """
    last = ktap.last_line(data)[1].rstrip()
    word = last[len(verdict.RESULT_PREFIX):] if last.startswith(verdict.RESULT_PREFIX) else None
    if word not in RESULT_EXITS:
        return EXIT_NO_VERDICT, None
    if word == verdict.PASS:
        for line in reversed(data.decode("utf-8", errors="replace").split("\n")):
            totals = _TOTALS.match(line.rstrip("\r"))
            if totals:
                if int(totals.group(1)) == 0 and int(totals.group(3)) > 0:
                    return EXIT_SKIP, verdict.SKIP
                break
    return RESULT_EXITS[word], word


# Escape sequences (OVMF clears the screen and sets colours) and other control
# characters are kept in the log but not sent to the terminal.
_TERMINAL_NOISE = re.compile(r"\x1b\[[0-9;?=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b.?|"
                             r"[\x00-\x08\x0b-\x1f\x7f]")


def printable(line):
    return _TERMINAL_NOISE.sub("", line)


class _Terminated(Exception):
    """SIGTERM or SIGHUP arrived: stop QEMU and leave."""


def _on_signal(signum, frame):
    raise _Terminated(signum)


def kill_group(process, grace=2.0):
    """End the emulator and everything in its process group: SIGTERM, then SIGKILL."""
    if process.poll() is not None:
        try:
            os.killpg(process.pid, signal.SIGKILL)     # leftovers of the group
        except OSError:
            pass
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        except OSError:
            process.send_signal(sig)
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def tail(path, count=TAIL_LINES):
    try:
        with open(path, "rb") as log:
            data = log.read()
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [printable(line.rstrip("\r")) for line in lines[-count:]]


def print_tail(log_path, port="the serial port"):
    lines = tail(log_path)
    if not lines:
        print(f"run: the log {log_path} is empty: nothing came out of {port}",
              file=sys.stderr)
        return
    print(f"run: the last {len(lines)} lines of {log_path}:", file=sys.stderr)
    for line in lines:
        print(f"  | {line}", file=sys.stderr)


def missing_file_message(path, what, package=None, hint=None):
    message = f"run: {what} not found: {path}"
    if package:
        message += f" (Debian package {package}; `make deps` installs it)"
    if hint:
        message += f" ({hint})"
    return message


def default_log_path():
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return os.path.join("build", "logs", f"run-{stamp}-{os.getpid()}.log")
