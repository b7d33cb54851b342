#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run a boot matrix: every configuration of a config file through tools/run, every log checked.

The config file is a list of sections, in the spirit of kvm-unit-tests'
unittests.cfg:

    # comment
    [bios-cdrom-1cpu]               one configuration; the name names its log
    run = --firmware bios --boot cdrom --cpus 1     tools/run arguments (shell words)
    cmdline = seed=1                passed as --cmdline (the rest of the line, as is)
    timeout = 60                    passed as --timeout (seconds)
    groups = quick smoke            for --group
    expect = crash                  pass (default), fail, skip, crash, timeout,
                                    reset, poweroff or halt
    expect_line = # PANIC: #PF *    a line the serial log must have (repeatable)
    forbid_line = *never printed*   a line the serial log must not have (repeatable)

Each configuration runs `tools/run ARGS --quiet --log LOGDIR/NAME.log`, and its
log is then checked by tools/ktap.  The last line printed is
"N passed, N failed, N skipped", summed over the test cases of every log (and
of `make check`, with --check-status/--check-log); a configuration that failed
without a failed case (a crash, a timeout, no boot) counts one failure.

Expectations (harness self-tests that fail on purpose):

  expect = fail|skip|crash|timeout: the configuration passes when tools/run
  exits with 1, 2, 3 or 4 respectively (and every expect_line/forbid_line
  holds); reset|poweroff|halt likewise with 7, 8 or 9 (the machine's end as
  QEMU or Bochs reported it, for exit=reboot|poweroff|halt); any other outcome fails ("expected crash, got pass").  Such a
  configuration counts as ONE passed (or failed) check in the totals, never
  with its log's own test cases.  expect = pass (the default) is the normal
  judgement: tools/run passes or skips and the log passes tools/ktap.

  expect_line = TEXT / forbid_line = TEXT: TEXT is matched against whole log
  lines (each without its '\r' and trailing white space; escape sequences are
  also tried removed).  '*' matches any run of characters and '?' any one
  character; everything else, '[' included, is literal.  TEXT is the rest of
  the config line ('#' is not a comment there); quote it ("...") to keep
  leading spaces.  A TEXT without leading white space matches a line with any
  indentation; one with leading white space must match the indentation too.
  Both keys may be given several times; they apply to every expectation.

Emulators built by tools/emulators (Bochs 3.0, QEMU 10.0):

  A configuration whose run says --emulator-version VERSION runs only where
  tools/emulators built that emulator (`make deps-emulators`); elsewhere it is
  SKIP, and the line says why.

Debugging (tools/run --gdb):

  gdb = FILE: the configuration runs with tools/run --gdb=PORT on a free
  port of 127.0.0.1 (jobs run in parallel: never a fixed one), and beside it
  real gdb in batch mode on the kernel ELF: "target remote" to that port,
  then the commands of FILE.  gdb must exit with status 0 (a command that
  fails ends a batch session with 1) and its output is kept in
  LOGDIR/NAME.gdb.log.  gdb_line = TEXT (repeatable) is a line that output
  must have, matched as expect_line is.
"""

import argparse
import fnmatch
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from . import emulators, ktap, verdict
from . import cli
from .cli import entry_script

RUN_TOOL = entry_script("run")
DEFAULT_RUN_TIMEOUT = 60.0      # tools/run's own default
# tools/run's status -> verdict word.
RUN_VERDICTS = verdict.RUN_STATUS_WORDS
KEYS = ("run", "cmdline", "timeout", "groups", "expect", "expect_line", "forbid_line", "gdb",
        "gdb_line")
REPEATABLE_KEYS = ("expect_line", "forbid_line", "gdb_line")
# expect = WORD -> the tools/run exit status it expects.
EXPECTATIONS = {"pass": verdict.RUN_PASS, "fail": verdict.RUN_FAIL, "skip": verdict.RUN_SKIP,
                "crash": verdict.RUN_CRASH, "timeout": verdict.RUN_TIMEOUT,
                "reset": verdict.RUN_RESET, "poweroff": verdict.RUN_POWEROFF,
                "halt": verdict.RUN_HALTED}
# tools/matrix owns these tools/run options.
RESERVED_RUN_OPTIONS = ("--log", "--quiet", "-q", "--dry-run", "--gdb")
DEFAULT_KERNEL = os.path.join("build", "trigos.elf")     # tools/run's default
# gdb keeps retrying its connection this long (QEMU may be slow to listen
# when the machine is loaded), and is given this long to end once tools/run
# has (QEMU gone, its connection closes).
GDB_CONNECT_SECONDS = 120
GDB_GRACE_SECONDS = 10
LOG_TAIL = 10
FAILED_CASE_DIAGNOSTICS = 8
MAKE_ERROR_CONTEXT = 6
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class ConfigError(Exception):
    """A malformed config file; the message names the file and line."""


def _line_regex(text):
    """A regex for an expect_line/forbid_line TEXT: '*' and '?' are wildcards."""
    parts = []
    for char in text:
        if char == "*":
            parts.append(".*")
        elif char == "?":
            parts.append(".")
        else:
            parts.append(re.escape(char))
    return re.compile("".join(parts), re.DOTALL)


@dataclass
class LinePattern:
    """One expect_line or forbid_line: its TEXT and where it was written."""
    key: str
    text: str
    where: str                      # "file:line" of the config
    regex: object = None

    def __post_init__(self):
        if self.regex is None:
            self.regex = _line_regex(self.text)

    def matches(self, variants):
        """Whether one of a log line's @variants (see _line_variants) matches."""
        indented = self.text[:1].isspace()
        for variant in variants:
            if self.regex.fullmatch(variant):
                return True
            if not indented and self.regex.fullmatch(variant.lstrip()):
                return True
        return False

    def describe(self):
        return f"{self.key} '{self.text}' ({self.where})"


@dataclass
class Entry:
    name: str
    line: int
    run_args: list = field(default_factory=list)
    cmdline: str = None
    timeout: float = None
    groups: list = field(default_factory=list)
    expect: str = "pass"
    expect_lines: list = field(default_factory=list)
    forbid_lines: list = field(default_factory=list)
    gdb: str = None                 # gdb command file: run beside tools/run --gdb
    gdb_lines: list = field(default_factory=list)
    keys_seen: dict = field(default_factory=dict)


_SECTION = re.compile(r"\[(.*)\]")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_KEY_VALUE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)")


def _unquote(value):
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse_config(text, path="<config>"):
    """Parse a matrix config file; raise ConfigError with the line number."""
    entries = []
    names = {}
    current = None

    def fail(number, message):
        raise ConfigError(f"{path}:{number}: {message}")

    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith(";"):
            continue
        section = _SECTION.fullmatch(line)
        if section:
            name = section.group(1).strip()
            if not _NAME.fullmatch(name):
                fail(number, f"bad configuration name '[{name}]': use letters, digits, "
                             f"'.', '_' and '-' (it names the log file)")
            if name in names:
                fail(number, f"configuration '{name}' is already defined at line {names[name]}")
            names[name] = number
            current = Entry(name=name, line=number)
            entries.append(current)
            continue
        pair = _KEY_VALUE.fullmatch(line)
        if not pair:
            fail(number, f"expected '[name]', 'key = value' or a '#' comment, not "
                         f"'{line[:80]}'")
        key, value = pair.group(1), pair.group(2).strip()
        if current is None:
            fail(number, f"'{key}' before the first '[name]' section")
        if key not in KEYS:
            fail(number, f"unknown key '{key}' (known: {', '.join(KEYS)})")
        if key in current.keys_seen and key not in REPEATABLE_KEYS:
            fail(number, f"'{key}' is already set for '{current.name}' at line "
                         f"{current.keys_seen[key]}")
        current.keys_seen[key] = number
        if key == "run":
            try:
                current.run_args = shlex.split(value, comments=True)
            except ValueError as error:
                fail(number, f"cannot split 'run' into words: {error}")
            for word in current.run_args:
                if word.split("=", 1)[0] in RESERVED_RUN_OPTIONS:
                    fail(number, f"'{word}' is set by tools/matrix itself; remove it from 'run'")
        elif key == "cmdline":
            current.cmdline = _unquote(value)
        elif key == "timeout":
            try:
                seconds = float(value)
            except ValueError:
                seconds = -1.0
            if not seconds > 0 or seconds != seconds or seconds == float("inf"):
                fail(number, f"timeout must be a positive number of seconds, not '{value}'")
            current.timeout = seconds
        elif key == "groups":
            try:
                words = shlex.split(value.replace(",", " "), comments=True)
            except ValueError as error:
                fail(number, f"cannot split 'groups': {error}")
            for word in words:
                if not _NAME.fullmatch(word):
                    fail(number, f"bad group name '{word}'")
            current.groups = words
        elif key == "expect":
            word = _unquote(value)
            if word not in EXPECTATIONS:
                fail(number, f"expect must be one of {', '.join(EXPECTATIONS)}, not '{value}'")
            current.expect = word
        elif key == "gdb":
            current.gdb = _unquote(value)
            if not current.gdb:
                fail(number, "gdb needs a file of gdb commands")
        elif key in REPEATABLE_KEYS:
            text = _unquote(value).rstrip()
            if not text.strip():
                fail(number, f"{key} needs a TEXT to match a log line against "
                             f"('*' and '?' are wildcards)")
            pattern = LinePattern(key, text, f"{path}:{number}")
            {"expect_line": current.expect_lines, "forbid_line": current.forbid_lines,
             "gdb_line": current.gdb_lines}[key].append(pattern)
    for entry in entries:
        if entry.gdb_lines and not entry.gdb:
            raise ConfigError(f"{path}:{entry.keys_seen['gdb_line']}: gdb_line without "
                              f"gdb = FILE in '{entry.name}'")
    return entries


def load_config(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as config:
            text = config.read()
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}")
    return parse_config(text, path)


def select(entries, only=None, groups=None):
    """The entries matching any --only GLOB (if given) and in any --group (if given)."""
    chosen = []
    for entry in entries:
        if only and not any(fnmatch.fnmatchcase(entry.name, glob) for glob in only):
            continue
        if groups and not set(groups) & set(entry.groups):
            continue
        chosen.append(entry)
    return chosen


def built_emulator(entry):
    """The tools/emulators build @entry's run needs (NAME-VERSION, from its --emulator and
    --emulator-version), or None for the system's emulators."""
    emulator, version = "qemu", "system"
    words = list(entry.run_args)
    for index, word in enumerate(words):
        for option in ("--emulator", "--emulator-version"):
            value = None
            if word == option and index + 1 < len(words):
                value = words[index + 1]
            elif word.startswith(option + "="):
                value = word[len(option) + 1:]
            if value is not None and option == "--emulator":
                emulator = value
            elif value is not None:
                version = value
    return None if version == "system" else f"{emulator}-{version}"


def skip_reason(entry, root=None):
    """Why @entry cannot run on this machine (its emulator is not built), or None."""
    name = built_emulator(entry)
    return emulators.missing_reason(name, root) if name else None


def run_command(entry, log_path, iso=None, kernel=None, python=sys.executable):
    """The tools/run command line for @entry."""
    command = [python, RUN_TOOL]
    if iso:
        command += ["--iso", iso]
    if kernel:
        command += ["--kernel", kernel]
    command += entry.run_args
    if entry.cmdline is not None:
        command += ["--cmdline", entry.cmdline]
    if entry.timeout is not None:
        command += ["--timeout", f"{entry.timeout:g}"]
    command += ["--quiet", "--log", log_path]
    return command


@dataclass
class Outcome:
    name: str
    verdict: str
    ok: bool
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    seconds: float = 0.0
    log: str = ""
    reasons: list = field(default_factory=list)
    details: list = field(default_factory=list)
    check: object = None
    expect: str = "pass"
    note: str = ""                  # "expected crash, got crash" for expect != pass


# Each section's wall time in the last run, kept beside the logs, so that
# the next run can start the longest first.
DURATIONS_FILE = "durations.json"


def load_durations(log_dir):
    """{section: seconds} of the last run in @log_dir; {} if none or unreadable."""
    try:
        with open(os.path.join(log_dir, DURATIONS_FILE), encoding="utf-8") as stream:
            durations = json.load(stream)
    except (OSError, ValueError):
        return {}
    if not isinstance(durations, dict):
        return {}
    return {name: float(seconds) for name, seconds in durations.items()
            if isinstance(name, str) and isinstance(seconds, (int, float))}


def save_durations(log_dir, outcomes, previous):
    """Add this run's wall times to @previous and write them; a failure to write is harmless."""
    durations = dict(previous)
    durations.update({outcome.name: round(outcome.seconds, 1) for outcome in outcomes
                      if outcome.seconds})
    try:
        with open(os.path.join(log_dir, DURATIONS_FILE), "w", encoding="utf-8") as stream:
            json.dump(durations, stream, indent=0, sort_keys=True)
    except OSError:
        pass


def longest_first(entries, durations):
    """@entries in the order to start them with several jobs: the longest first.

    With jobs in parallel, a long section started last runs alone at the end
    while the other jobs have nothing left to do (the Bochs full runs, at the
    end of the file, took 40-60 s).  Started longest first, the short ones fill
    the gaps.  A section's length is its wall time in the last run, or, never
    run here (a clean clone), its timeout, which the long ones set high; the
    file's order breaks ties.
    """
    def expected(indexed):
        index, entry = indexed
        estimate = durations.get(entry.name)
        if estimate is None:
            estimate = entry.timeout or DEFAULT_RUN_TIMEOUT
        return (-estimate, index)

    return [entry for _, entry in sorted(enumerate(entries), key=expected)]


class Runner:
    """Runs configurations, possibly several at once, and can stop them all."""

    def __init__(self, iso, kernel, log_dir):
        self.iso = iso
        self.kernel = kernel
        self.log_dir = log_dir
        self.lock = threading.Lock()
        self.processes = set()
        self.stopping = False

    def stop_all(self):
        with self.lock:
            self.stopping = True
            for process in self.processes:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except OSError:
                    pass

    def run(self, entry):
        log_path = os.path.join(self.log_dir, f"{entry.name}.log")
        reason = skip_reason(entry)
        if reason:
            return Outcome(entry.name, verdict.SKIP, True, skipped=1, seconds=None, log=log_path,
                           reasons=[f"not run: {reason}"])
        command = run_command(entry, log_path, self.iso, self.kernel)
        limit = (entry.timeout or DEFAULT_RUN_TIMEOUT) + 30.0
        session = None
        if entry.gdb:
            session = GdbSession(entry, self.kernel or DEFAULT_KERNEL,
                                 os.path.join(self.log_dir, f"{entry.name}.gdb.log"))
            command += [f"--gdb={session.port}"]
        started = time.monotonic()
        try:
            if os.path.exists(log_path):
                os.unlink(log_path)     # never check a previous run's log
        except OSError:
            pass
        with self.lock:
            if self.stopping:
                return Outcome(entry.name, "STOPPED", False, failed=1, log=log_path,
                               reasons=["not run: the matrix was interrupted"])
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       start_new_session=True)
            self.processes.add(process)
        if session:
            session.start()
        outer_timeout = False
        try:
            output, _ = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            outer_timeout = True
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                pass
            output, _ = process.communicate()
        finally:
            with self.lock:
                self.processes.discard(process)
        gdb_problems = session.finish() if session else []
        seconds = time.monotonic() - started
        text = output.decode("utf-8", errors="replace")
        return judge(entry, process.returncode, text, log_path, seconds, outer_timeout,
                     gdb_problems)


def judge(entry, status, run_output, log_path, seconds, outer_timeout=False, gdb_problems=()):
    """Combine tools/run's status, the log check, gdb's session (@gdb_problems,
    from GdbSession.finish()) and the expectations into an Outcome."""
    check = ktap.check_file(log_path, label=entry.name)
    run_lines = [line[len("run: "):] if line.startswith("run: ") else line
                 for line in run_output.splitlines()
                 if line.strip() and not _is_command_echo(line) and not _RUN_SUMMARY.match(line)]
    line_problems = check_lines(entry, log_path) + list(gdb_problems)
    if entry.expect != "pass":
        return _judge_expectation(entry, status, check, run_lines, line_problems, log_path,
                                  seconds, outer_timeout)
    if outer_timeout:
        word = verdict.RUN_STATUS_WORDS[verdict.RUN_TIMEOUT]
        reasons = [f"tools/run did not end within {seconds:.0f} s and was killed"]
    elif status in (verdict.RUN_PASS, verdict.RUN_SKIP) and check.ok and line_problems:
        word = verdict.FAIL
        reasons = []
    elif status in (verdict.RUN_PASS, verdict.RUN_SKIP) and check.ok:
        word = verdict.SKIP if status == verdict.RUN_SKIP or check.passed == 0 else verdict.PASS
        reasons = []
    elif status in (verdict.RUN_PASS, verdict.RUN_SKIP):
        word = verdict.FAIL
        reasons = ["the log check failed"]
    else:
        word = RUN_VERDICTS.get(status, "ERROR")
        reasons = [f"tools/run exited with status {status} ({word})"]
        if status is not None and status < 0:
            reasons = [f"tools/run was killed by signal {-status}"]
    ok = word in (verdict.PASS, verdict.SKIP)
    outcome = Outcome(entry.name, word, ok, check.passed, check.failed, check.skipped,
                      seconds, log_path, check=check)
    if not ok:
        outcome.failed = max(outcome.failed, 1)
        outcome.reasons = reasons + line_problems + [problem for problem in check.problems[:6]]
        _add_failure_details(outcome, status, run_lines, outer_timeout)
    elif check.warnings:
        outcome.reasons = [f"warning: {warning}" for warning in check.warnings[:3]]
    return outcome


def _judge_expectation(entry, status, check, run_lines, line_problems, log_path, seconds,
                       outer_timeout):
    """expect = fail|skip|crash|timeout: one check, met or not, whatever the log's cases."""
    got = describe_status(status, outer_timeout, seconds)
    status_ok = not outer_timeout and status == EXPECTATIONS[entry.expect]
    ok = status_ok and not line_problems
    note = f"expected {entry.expect}, got {got}"
    if check.document is not None:
        note += (f"; not counted: the log's pass:{check.passed} fail:{check.failed} "
                 f"skip:{check.skipped}")
    outcome = Outcome(entry.name, verdict.PASS if ok else verdict.FAIL, ok, passed=1 if ok else 0,
                      failed=0 if ok else 1, seconds=seconds, log=log_path, check=check,
                      expect=entry.expect, note=note)
    if not ok:
        outcome.reasons = ([] if status_ok else [f"expected {entry.expect}, got {got}"]) + \
            line_problems
        _add_failure_details(outcome, status, run_lines, outer_timeout)
    return outcome


def describe_status(status, outer_timeout=False, seconds=0.0):
    """tools/run's exit status as the word an 'expect' names ("crash"), or what happened."""
    if outer_timeout:
        return f"no end (tools/run was killed after {seconds:.0f} s)"
    if status is None:
        return "no exit status"
    if status < 0:
        return f"tools/run killed by signal {-status}"
    if status in RUN_VERDICTS:
        return RUN_VERDICTS[status].lower()
    return f"tools/run exit status {status}"


def _add_failure_details(outcome, status, run_lines, outer_timeout):
    outcome.details = [f"tools/run: {line}" for line in run_lines[-25:]]
    outcome.details += _failed_case_diagnostics(outcome.check)
    if status not in (4, 5) or outer_timeout:
        outcome.details += [f"log | {line}" for line in _log_tail(outcome.log)]


def _failed_case_diagnostics(check, cases=3, lines=FAILED_CASE_DIAGNOSTICS):
    """The diagnostics of the first failed cases, which say why each failed: a CI
    log shows them even when the log's tail is about something else."""
    details = []
    for path, case in (check.failures if check else [])[:cases]:
        texts = [text for _, text in case.diagnostics][-lines:]
        if texts:
            details.append(f"why {'/'.join(path)} failed (its last {len(texts)} diagnostics):")
            details += [f"case | # {text}"[:300] for text in texts]
    return details


def _line_variants(raw):
    """The forms of one log line that patterns are matched against."""
    line = raw.rstrip()             # its '\r' and trailing white space
    variants = [line]
    clean = _TERMINAL_NOISE.sub("", line).rstrip()
    if clean != line:
        variants.append(clean)
    return variants


def check_lines(entry, log_path):
    """The problems with @entry's expect_line and forbid_line keys in the log at @log_path."""
    return _check_patterns(entry.expect_lines, entry.forbid_lines, log_path, "the log",
                           "expect_line/forbid_line")


def _check_patterns(expected, forbidden, path, what, keys):
    """The problems with @expected and @forbidden LinePatterns in the file at @path
    (@what names it in messages, @keys the config keys being checked)."""
    if not expected and not forbidden:
        return []
    try:
        with open(path, "rb") as log:
            data = log.read()
    except OSError as error:
        return [f"cannot check {keys}: cannot read {what} {path}: {error.strerror or error}"]
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    variants = [_line_variants(line) for line in lines]
    problems = []
    for pattern in expected:
        if not any(pattern.matches(forms) for forms in variants):
            problems.append(f"{pattern.describe()} matches no line of {what} "
                            f"({len(lines)} lines)")
    for pattern in forbidden:
        for number, forms in enumerate(variants, start=1):
            if pattern.matches(forms):
                shown = forms[-1] if len(forms[-1]) <= 200 else forms[-1][:200] + "..."
                problems.append(f"{pattern.describe()} matches line {number} of {what}: "
                                f"'{shown}'")
                break
    return problems


def free_tcp_port():
    """A TCP port of 127.0.0.1 that nothing listens on now (the kernel picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class GdbSession:
    """Real gdb, in batch mode, against an entry's tools/run --gdb (key gdb = FILE)."""

    def __init__(self, entry, kernel, log_path, gdb="gdb"):
        self.entry = entry
        self.kernel = kernel
        self.log_path = log_path
        self.gdb = gdb
        self.port = free_tcp_port()
        self.process = None
        self.problems = []

    def command(self):
        # gdb loads the ELF, then runs -ex and -x in the order given.
        return [self.gdb, "-q", "-nx", "-batch",
                "-ex", f"set tcp connect-timeout {GDB_CONNECT_SECONDS}",
                "-ex", f"target remote 127.0.0.1:{self.port}",
                "-x", self.entry.gdb, self.kernel]

    def start(self):
        try:
            if os.path.exists(self.log_path):
                os.unlink(self.log_path)    # never check a previous session's output
            with open(self.log_path, "wb") as log:
                self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                                stdout=log, stderr=subprocess.STDOUT,
                                                start_new_session=True)
        except OSError as error:
            self.problems.append(f"gdb could not be started: {error.strerror or error} "
                                 f"(Debian package gdb; tools/deps installs it)")

    def finish(self, grace=GDB_GRACE_SECONDS):
        """After tools/run ended: wait for gdb (QEMU is gone, so its connection is
        too), kill it after @grace seconds, and judge its status and output."""
        if self.process is None:
            return self.problems
        try:
            status = self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                pass
            self.process.wait()
            status = None
            self.problems.append(f"gdb was still running {grace} s after tools/run ended "
                                 f"and was killed")
        if status:
            self.problems.append(f"gdb exited with status {status} ({self.log_path})")
        self.problems += _check_patterns(self.entry.gdb_lines, [], self.log_path,
                                         "gdb's output", "gdb_line")
        if self.problems:
            self.problems += [f"gdb | {line}" for line in _log_tail(self.log_path, 15)]
        return self.problems


# tools/run's closing line: the per-configuration line says it better.
_RUN_SUMMARY = re.compile(r"run: [A-Z ]+ \((QEMU exit [-0-9a-zA-Z]+|Bochs: [-a-z ]+)\) in ")


def _is_command_echo(line):
    """tools/run's first line repeats the QEMU or Bochs command: not a reason."""
    if not line.startswith("run: "):
        return False
    words = line[len("run: "):].split(None, 1)
    return bool(words) and (os.path.basename(words[0]).startswith("qemu-system") or
                            os.path.basename(words[0]) == "bochs")


def _log_tail(path, count=LOG_TAIL):
    try:
        with open(path, "rb") as log:
            data = log.read()
    except OSError:
        return [f"(no log: {path})"]
    lines = [line.rstrip("\r") for line in data.decode("utf-8", errors="replace").split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    lines = lines[-count:]
    return [_TERMINAL_NOISE.sub("", line)[:300] for line in lines] or ["(the log is empty)"]


# Escape sequences (OVMF clears the screen and sets colours) and other control
# characters, as tools/run keeps them off the terminal.
_TERMINAL_NOISE = re.compile(r"\x1b\[[0-9;?=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b.?|"
                             r"[\x00-\x08\x0b-\x1f\x7f]")


# --- make check ---------------------------------------------------------------

_CLOSING = re.compile(r"(?:\S+: )?([0-9]+) passed, ([0-9]+) failed(?:, ([0-9]+) skipped)?")
_UNITTEST_RAN = re.compile(r"Ran ([0-9]+) tests? in .*")
_UNITTEST_END = re.compile(r"(OK|FAILED)(?: \((.*)\))?")


def check_step(status_path, log_path):
    """Judge an earlier `make check` from its status file and its log.

    Counts: the log's last "N passed, N failed[, N skipped]" line (the unit
    tests), plus each Python unittest "Ran N tests" summary (the tool tests),
    whose OK or FAILED line must follow it.  A non-zero status is a failure,
    with at least one failed case, and names the failed make targets.
    """
    outcome = Outcome("make-check", verdict.PASS, True, log=log_path or "", seconds=None)
    status, lines = 0, None
    if status_path:
        try:
            with open(status_path, encoding="utf-8", errors="replace") as status_file:
                status = int(status_file.read().strip() or "x")
        except (OSError, ValueError) as error:
            status = None
            outcome.reasons.append(f"cannot read an exit status from {status_path}: "
                                   f"{getattr(error, 'strerror', None) or error}")
    if log_path:
        try:
            with open(log_path, "rb") as log:
                lines = [line.rstrip("\r") for line in
                         log.read().decode("utf-8", errors="replace").split("\n")]
        except OSError as error:
            lines = None
            outcome.reasons.append(f"cannot read {log_path}: {error.strerror or error}")
        if lines is not None:
            closing = None
            for line in lines:
                match = _CLOSING.fullmatch(line.strip())
                if match:
                    closing = match
            if closing:
                outcome.passed += int(closing.group(1))
                outcome.failed += int(closing.group(2))
                outcome.skipped += int(closing.group(3) or 0)
            else:
                outcome.reasons.append(f"{log_path} has no 'N passed, N failed' line")
            _add_unittest_counts(lines, outcome)
            outcome.details = [f"log | {line}" for line in lines if line.strip()][-LOG_TAIL:]
    if status is None or status != 0 or outcome.reasons or outcome.failed:
        outcome.ok = False
        outcome.verdict = verdict.FAIL
        if status:
            outcome.reasons.insert(0, f"make check exited with status {status}")
        outcome.failed = max(outcome.failed, 1)
        if lines:
            outcome.details += _make_errors(lines)
    return outcome


# make's own line for a recipe that failed: "make[1]: *** [Makefile:197:
# check-reproducible] Error 1".  It names the target, which the log's tail (the
# model checker usually ends last) does not; printed after the tail, last,
# where a CI page that keeps only the end of the output still shows it.
_MAKE_ERROR = re.compile(r"make(?:\[[0-9]+\])?: \*\*\* \[(?P<where>[^\]]*)\] (?P<what>.*)")


def _make_errors(lines, errors=2, context=MAKE_ERROR_CONTEXT):
    """Each failed target's make error line (the first @errors of them), after the
    @context lines the log held before it: the end of what the failing recipe printed
    (make check's --output-sync keeps a recipe's lines and its error line together)."""
    where = [index for index, line in enumerate(lines) if _MAKE_ERROR.fullmatch(line.strip())]
    shown = sorted({before for index in where[:errors]
                    for before in range(max(index - context, 0), index + 1)})
    return [f"failed | {lines[index]}" for index in shown if lines[index].strip()]


def _add_unittest_counts(lines, outcome):
    for index, line in enumerate(lines):
        ran = _UNITTEST_RAN.fullmatch(line.strip())
        if not ran:
            continue
        total = int(ran.group(1))
        for follow in lines[index + 1:index + 4]:
            end = _UNITTEST_END.fullmatch(follow.strip())
            if not end:
                continue
            counts = dict(re.findall(r"(\w+)=([0-9]+)", end.group(2) or ""))
            failed = int(counts.get("failures", 0)) + int(counts.get("errors", 0)) + \
                int(counts.get("unexpected_successes", 0))
            skipped = int(counts.get("skipped", 0)) + int(counts.get("expected_failures", 0))
            outcome.passed += max(total - failed - skipped, 0)
            outcome.failed += failed
            outcome.skipped += skipped
            break
        else:
            # Never counted as passed: unittest prints its verdict on the next
            # line but one (make check's --output-sync keeps it there).
            outcome.reasons.append(f"'{line.strip()}' is not followed by unittest's OK or "
                                   "FAILED line: its tests are not counted")


# --- Output -------------------------------------------------------------------

def format_outcome(outcome, width):
    seconds = f"{outcome.seconds:6.1f} s" if outcome.seconds is not None else "       -"
    line = (f"{outcome.verdict:<11} {outcome.name:<{width}}  pass:{outcome.passed} "
            f"fail:{outcome.failed} skip:{outcome.skipped}  {seconds}  {outcome.log}")
    if outcome.note:
        line += f"  ({outcome.note})"
    lines = [line.rstrip()]
    lines += [f"    {reason}" for reason in outcome.reasons]
    lines += [f"    {detail}" for detail in outcome.details] if not outcome.ok else []
    return "\n".join(lines)


def write_expectation_junit(path, outcome):
    """JUnit XML for an expect != pass configuration: one case, its expectation met or not
    (its log's deliberately failing cases are not reported as failures)."""
    text = ktap._xml_text
    failures = "0" if outcome.ok else "1"
    counts = {"tests": "1", "failures": failures, "errors": "0", "skipped": "0"}
    top = ET.Element("testsuites", counts)
    suite = ET.SubElement(top, "testsuite", dict(counts, name=text(f"{outcome.name}/expect")))
    case = ET.SubElement(suite, "testcase", classname=text(f"{outcome.name}/expect"),
                         name=text(f"expect {outcome.expect}"))
    if outcome.seconds is not None:
        case.set("time", f"{outcome.seconds:.3f}")
    if not outcome.ok:
        message = outcome.reasons[0] if outcome.reasons else outcome.note
        failure = ET.SubElement(case, "failure", message=text(message[:300]))
        failure.text = text("\n".join([outcome.note] + outcome.reasons))
    else:
        ET.SubElement(case, "system-out").text = text(outcome.note)
    tree = ET.ElementTree(top)
    ET.indent(tree)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    tree.write(path, encoding="utf-8", xml_declaration=True)


def parse_args(argv=None):
    parser = cli.ArgumentParser(
        usage_status=EXIT_USAGE,
        prog="matrix",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Boot trigos in every configuration of CONFIG (through tools/run),\n"
                    "check every serial log (tools/ktap) and sum the test cases.",
        epilog="config file:\n"
               "  # comment\n"
               "  [bios-cdrom-1cpu]\n"
               "  run = --firmware bios --boot cdrom --cpus 1\n"
               "  cmdline = seed=1\n"
               "  timeout = 60\n"
               "  groups = quick\n"
               "  expect = crash                 pass (default), fail, skip, crash, timeout\n"
               "  expect_line = # PANIC: *       the log must have such a line (repeatable)\n"
               "  forbid_line = *never printed*  the log must not (repeatable)\n"
               "  gdb = tests/gdb/FILE.gdb       also run gdb -batch with FILE against\n"
               "                                 tools/run --gdb on a free port\n"
               "  gdb_line = Thread 2 hit *      gdb's output must have such a line\n\n"
               "An entry with expect = fail|skip|crash|timeout passes when tools/run exits\n"
               "with 1|2|3|4 (reset|poweroff|halt: 7|8|9) and its expect_line/forbid_line\n"
               "hold; it counts as one check,\n"
               "not as its log's cases.  Lines: '*' and '?' are wildcards, whole lines;\n"
               "TEXT without leading spaces matches any indentation (quote it to keep them).\n\n"
               "The last line printed is 'N passed, N failed, N skipped'.\n"
               "exit status: 0 all passed, 1 something failed, 2 usage or config error")
    parser.add_argument("config", metavar="CONFIG", help="matrix config file "
                        "(e.g. tests/matrix.cfg)")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                        help="boot N configurations in parallel (default 1)")
    parser.add_argument("--iso", metavar="PATH", help="passed to tools/run --iso")
    parser.add_argument("--kernel", metavar="PATH", help="passed to tools/run --kernel")
    parser.add_argument("--only", action="append", default=[], metavar="GLOB",
                        help="run only configurations whose name matches GLOB (repeatable)")
    parser.add_argument("--group", action="append", default=[], metavar="NAME",
                        help="run only configurations in group NAME (repeatable)")
    parser.add_argument("--log-dir", default=os.path.join("build", "logs"), metavar="DIR",
                        help="where the serial logs go, as NAME.log (default build/logs)")
    parser.add_argument("--junit-dir", metavar="DIR",
                        help="write one JUnit XML file per configuration, DIR/NAME.xml")
    parser.add_argument("--check-status", metavar="FILE",
                        help="exit status of an earlier `make check` (non-zero is a failure)")
    parser.add_argument("--check-log", metavar="FILE",
                        help="log of that `make check`: its 'N passed, N failed, N skipped' "
                             "line is added to the totals")
    parser.add_argument("--check-wait", type=float, default=0, metavar="SECONDS",
                        help="that `make check` runs beside the boots: judge it after them, "
                             "waiting up to SECONDS for its status file to appear (its writer "
                             "must write it last, whole)")
    parser.add_argument("--list", action="store_true",
                        help="list the selected configurations and exit")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, not {args.jobs}")
    if args.check_wait < 0 or (args.check_wait and not args.check_status):
        parser.error("--check-wait takes seconds, at least 0, and needs --check-status")
    return args


def wait_for_check(status_path, seconds, out=sys.stdout, clock=time.monotonic,
                   sleep=time.sleep, every=30):
    """Wait until @status_path exists, at most @seconds, saying so every @every seconds.

    Returns whether it appeared: `make check` ran beside the boots and is done.
    """
    start = clock()
    said = start
    while not os.path.exists(status_path):
        now = clock()
        if now - start >= seconds:
            return False
        if now - said >= every:
            print(f"matrix: waiting for make check ({status_path}), {now - start:.0f} s so far",
                  file=out, flush=True)
            said = now
        sleep(0.5)
    return True


def _on_sigterm(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    args = parse_args(argv)
    try:
        entries = load_config(args.config)
    except ConfigError as error:
        print(f"matrix: {error}", file=sys.stderr)
        return EXIT_USAGE
    chosen = select(entries, args.only, args.group)
    if args.list:
        for entry in chosen:
            extra = []
            if entry.cmdline is not None:
                extra.append(f"cmdline={entry.cmdline!r}")
            if entry.timeout is not None:
                extra.append(f"timeout={entry.timeout:g}")
            if entry.groups:
                extra.append(f"groups={','.join(entry.groups)}")
            if entry.expect != "pass":
                extra.append(f"expect={entry.expect}")
            if entry.gdb:
                extra.append(f"gdb={entry.gdb}")
            for pattern in entry.expect_lines + entry.forbid_lines + entry.gdb_lines:
                extra.append(f"{pattern.key}={pattern.text!r}")
            print(f"{entry.name}: {shlex.join(entry.run_args)}"
                  + (f"  ({'; '.join(extra)})" if extra else ""))
        return EXIT_OK
    if not chosen:
        print(f"matrix: no configuration of {args.config} is selected "
              f"(--only {args.only or '*'}, --group {args.group or 'any'})", file=sys.stderr)
        return EXIT_USAGE
    try:
        os.makedirs(args.log_dir, exist_ok=True)
    except OSError as error:
        print(f"matrix: cannot create {args.log_dir}: {error.strerror or error}",
              file=sys.stderr)
        return EXIT_USAGE

    outcomes = []
    width = max(len(entry.name) for entry in chosen)
    if args.check_status or args.check_log:
        width = max(width, len("make-check"))
    if (args.check_status or args.check_log) and not args.check_wait:
        outcome = check_step(args.check_status, args.check_log)
        outcomes.append(outcome)
        print(format_outcome(outcome, width), flush=True)

    runner = Runner(args.iso, args.kernel, args.log_dir)
    interrupted = False
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    durations = load_durations(args.log_dir)
    if args.jobs > 1:
        chosen = longest_first(chosen, durations)
    pool = ThreadPoolExecutor(max_workers=args.jobs)
    try:
        futures = [pool.submit(runner.run, entry) for entry in chosen]
        for future in as_completed(futures):
            outcome = future.result()
            outcomes.append(outcome)
            print(format_outcome(outcome, width), flush=True)
            if args.junit_dir and outcome.check is not None:
                extra = {outcome.name: outcome.reasons} if not outcome.ok else {}
                path = os.path.join(args.junit_dir, f"{outcome.name}.xml")
                try:
                    if outcome.expect != "pass":
                        write_expectation_junit(path, outcome)
                    else:
                        ktap.write_junit(path, [outcome.check], extra, prefix_labels=True)
                except OSError as error:
                    print(f"matrix: cannot write {path}: {error.strerror or error}", flush=True)
    except KeyboardInterrupt:
        interrupted = True
        runner.stop_all()
        print("matrix: interrupted; stopping the running boots", flush=True)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)

    if not interrupted:
        save_durations(args.log_dir, outcomes, durations)
    if args.check_wait and not interrupted:
        finished = wait_for_check(args.check_status, args.check_wait)
        outcome = check_step(args.check_status, args.check_log)
        if not finished:
            outcome.ok = False
            outcome.reasons.insert(0, f"make check did not finish within {args.check_wait:g} s "
                                      f"after the boots")
        outcomes.append(outcome)
        print(format_outcome(outcome, width), flush=True)
    failed_names = [outcome.name for outcome in outcomes if not outcome.ok]
    if failed_names:
        print(f"matrix: failed: {' '.join(failed_names)}", flush=True)
    passed = sum(outcome.passed for outcome in outcomes)
    failed = sum(outcome.failed for outcome in outcomes) + (1 if interrupted else 0)
    skipped = sum(outcome.skipped for outcome in outcomes)
    sys.stderr.flush()
    print(ktap.closing_line(passed, failed, skipped), flush=True)
    return EXIT_FAILED if failed_names or interrupted or failed else EXIT_OK
