# SPDX-License-Identifier: MIT
"""A second peer: kvm-unit-tests, built from a tree the user gives, timed from outside.

  tools/peer --kvm-unit-tests DIR [--no-linux] [--cpus N ...]
  tools/bench --kvm-unit-tests DIR ...

kvm-unit-tests is not a Debian package and this repository holds none of it:
a user with a network clones it (https://gitlab.com/kvm-unit-tests/kvm-unit-tests)
and names the clone.  Only that tree's own `configure --arch=x86_64` and `make`
are run, in a separate build directory (build/peer/kvm-unit-tests): its
configure supports building outside the source tree (it writes config.mak
with SRCDIR and links the Makefile and scripts into the current directory;
the Makefile finds the sources through vpath), so nothing is written into DIR.
Its sources are never changed: its AP bring-up is timed from outside.

Each test boots in tools/run's QEMU for --boot kernel (TCG, -cpu max, the same
-smp and memory; -kernel FILE.flat, -append ARGS) with the devices its x86/run
script adds (pc-testdev, pci-testdev; the isa-debug-exit device at port 0xf4
is already there and turns its exit(code) into QEMU's status code << 1 | 1,
so 1 is a pass).  The tests:

  smptest.flat at every vCPU count           AP bring-up
  vmexit.flat ipi, vmexit.flat ipi_halt,     its own IPI round-trip figures
    2 vCPUs (smp = 2 in its x86/unittests.cfg)

Figures, clock "host-observed" (the host's time at which each serial line
arrived, as for the Linux peer):

  qemu_start_to_first_line  QEMU started to its first serial line
  ap_bringup                its BSP's "enabling apic" line (the last it prints
                            before it sends INIT and STARTUP to all but itself:
                            cstart64.S, then bringup_aps() in lib/x86/smp.c) to
                            the line that completes "setup: CPU n online" from
                            every AP (ap_online() prints it just before the AP
                            counts itself online).  The APs' own printing is part
                            of what is timed: kvm-unit-tests as it is.
  and the whole QEMU run's wall time.

Clock "its own", TSC cycles: vmexit's own figures, the lines "ipi N" and
"ipi_halt N" (cycles per iteration: an IPI to CPU 1 and the wait for its
handler, with CPU 1 idle in HLT; ipi_halt adds a 2000-cycle spin after each).
"""
import os
import re
import shutil
import subprocess

from . import peer_timing, qemu

PEER = "kvm-unit-tests"
ARCH = "x86_64"
MEMORY_MB = 256
# What makes a directory a kvm-unit-tests tree this module can build and boot.
TREE_FILES = ("configure", "Makefile", "x86/unittests.cfg", "x86/smptest.c", "x86/vmexit.c",
              "lib/x86/smp.c")
# Devices its x86/run adds to QEMU's command line (isa-debug-exit is tools/run's too).
TEST_DEVICES = ["-device", "pc-testdev", "-device", "pci-testdev"]
BUILD_LOG_TAIL = 15
BSP_LAST_LINE_BEFORE_SIPI = "enabling apic"
AP_ONLINE = re.compile(r"^setup: CPU (\d+) online$")
WAITING_FOR = re.compile(r"^smp: waiting for (\d+) APs?$")
OWN_FIGURE = re.compile(r"^(\w+) (\d+)$")      # vmexit's "NAME CYCLES" lines
PASS_STATUS = 1         # exit(0) through isa-debug-exit: (0 << 1) | 1


class Test:
    """One boot: which binary, with which arguments, at which vCPU count (None: each count)."""

    def __init__(self, name, binary, args=None, cpus=None, family="bringup", figures=()):
        self.name, self.binary, self.args = name, binary, args
        self.cpus, self.family, self.figures = cpus, family, figures


SMPTEST = Test("smptest", "x86/smptest.flat")
VMEXIT_IPI = Test("vmexit-ipi", "x86/vmexit.flat", "ipi", 2, "ipi-call-stop", ("ipi",))
VMEXIT_IPI_HALT = Test("vmexit-ipi_halt", "x86/vmexit.flat", "ipi_halt", 2, "ipi-call-stop",
                       ("ipi_halt",))
IPI_TESTS = (VMEXIT_IPI, VMEXIT_IPI_HALT)


class Unavailable(peer_timing.PeerUnavailable):
    """The tree is missing, is not kvm-unit-tests, or did not build; the message says which."""


# --- Building -----------------------------------------------------------------

def check_tree(source):
    """Raise Unavailable unless @source is a kvm-unit-tests tree."""
    if not os.path.isdir(source):
        raise Unavailable("%s: no such directory (clone "
                          "https://gitlab.com/kvm-unit-tests/kvm-unit-tests there)" % source)
    missing = [name for name in TREE_FILES if not os.path.isfile(os.path.join(source, name))]
    if missing:
        raise Unavailable("%s is not a kvm-unit-tests tree: it has no %s"
                          % (source, ", ".join(missing)))


def configured_source(build_dir):
    """The SRCDIR the build directory was configured for, or None."""
    try:
        with open(os.path.join(build_dir, "config.mak"), encoding="utf-8") as config:
            for line in config:
                if line.startswith("SRCDIR="):
                    return line[len("SRCDIR="):].strip()
    except OSError:
        pass
    return None


def _tail(path, lines=BUILD_LOG_TAIL):
    try:
        with open(path, encoding="utf-8", errors="replace") as log:
            text = log.read().splitlines()
    except OSError:
        return "(no build log)"
    return "\n".join("    " + line for line in text[-lines:]) or "    (the log is empty)"


def _step(command, build_dir, log_path, what):
    with open(log_path, "a", encoding="utf-8") as log:
        log.write("$ %s\n" % " ".join(command))
        log.flush()
        try:
            done = subprocess.run(command, cwd=build_dir, stdin=subprocess.DEVNULL,
                                  stdout=log, stderr=subprocess.STDOUT)
        except OSError as error:
            raise Unavailable("%s: cannot run %s: %s" % (what, command[0], error))
    if done.returncode != 0:
        raise Unavailable("%s failed (exit %d); the end of %s:\n%s"
                          % (what, done.returncode, log_path, _tail(log_path)))


def build(source, build_dir, say=lambda message: None, jobs=None):
    """Configure (once) and make kvm-unit-tests from @source in @build_dir.

    Returns {"source", "build_dir", "commit", "log"}; raises Unavailable with the reason.
    """
    source = os.path.realpath(source)
    check_tree(source)
    build_dir = os.path.realpath(build_dir)
    if build_dir == source or build_dir.startswith(source + os.sep):
        raise Unavailable("the build directory %s is inside %s: it must not be written into"
                          % (build_dir, source))
    log_path = os.path.join(build_dir, "build.log")
    if configured_source(build_dir) != source:
        # Configured for another tree, or not at all: start afresh.
        shutil.rmtree(build_dir, ignore_errors=True)
        os.makedirs(build_dir)
        say("peer: configuring kvm-unit-tests from %s in %s" % (source, build_dir))
        _step([os.path.join(source, "configure"), "--arch=" + ARCH], build_dir, log_path,
              "kvm-unit-tests' configure")
    say("peer: make in %s (log %s)" % (build_dir, log_path))
    _step(["make", "-j%d" % (jobs or os.cpu_count() or 1)], build_dir, log_path,
          "building kvm-unit-tests")
    missing = [test.binary for test in (SMPTEST,) + IPI_TESTS
               if not os.path.isfile(os.path.join(build_dir, test.binary))]
    if missing:
        raise Unavailable("the build made no %s; the end of %s:\n%s"
                          % (", ".join(sorted(set(missing))), log_path, _tail(log_path)))
    commit = None
    try:    # its Makefile records the tree's commit there
        with open(os.path.join(build_dir, "build-head"), encoding="utf-8") as head:
            commit = head.read().strip() or None
    except OSError:
        pass
    return {"source": source, "build_dir": build_dir, "commit": commit, "log": log_path}


# --- Reading its serial lines ---------------------------------------------------

def analyse_log(timed_lines, cpus):
    """Figures from a kvm-unit-tests log: @timed_lines are (host seconds, text) pairs.

    Returns a dict: host_first_line, host_bsp_before_sipi, host_all_online (seconds or None),
    aps_online (sorted APIC IDs), waiting_for (the APs it waited for), own ({name: value} of
    its "NAME VALUE" figure lines), problems (list of text).
    """
    found = {"host_first_line": None, "host_bsp_before_sipi": None, "host_all_online": None,
             "aps_online": [], "waiting_for": None, "own": {}, "problems": []}
    online = set()
    for host_time, raw in timed_lines:
        line = raw.rstrip("\r\n")
        if found["host_first_line"] is None and line.strip():
            found["host_first_line"] = host_time
        if line == BSP_LAST_LINE_BEFORE_SIPI and found["host_bsp_before_sipi"] is None:
            found["host_bsp_before_sipi"] = host_time
        ap = AP_ONLINE.match(line)
        if ap:
            online.add(int(ap.group(1)))
            if len(online) == cpus - 1 and found["host_all_online"] is None:
                found["host_all_online"] = host_time
        waiting = WAITING_FOR.match(line)
        if waiting and found["waiting_for"] is None:
            found["waiting_for"] = int(waiting.group(1))
        own = OWN_FIGURE.match(line)
        if own:
            found["own"][own.group(1)] = int(own.group(2))
    found["aps_online"] = sorted(online)
    if found["host_bsp_before_sipi"] is None:
        found["problems"].append("no '%s' line from its BSP" % BSP_LAST_LINE_BEFORE_SIPI)
    if cpus > 1 and found["host_all_online"] is None:
        found["problems"].append("%d of %d APs said 'setup: CPU n online'"
                                 % (len(online), cpus - 1))
    if found["waiting_for"] is not None and found["waiting_for"] != cpus - 1:
        found["problems"].append("it waited for %d APs, not %d" % (found["waiting_for"],
                                                                     cpus - 1))
    return found


def records(found, test, cpus):
    """BENCH-style records (the tools/bench format) of one analysed boot."""
    def record(name, value, clock, unit="us"):
        return peer_timing.peer_record(PEER, name, cpus, value, clock, unit)

    out = []
    # Its bring-up is timed in the smptest boots; the IPI tests' boots give their own figures.
    if test.family == "bringup" and found["host_first_line"] is not None:
        out.append(record("qemu_start_to_first_line",
                          int(round(found["host_first_line"] * 1e6)), peer_timing.HOST_OBSERVED))
    if test.family == "bringup" and None not in (found["host_bsp_before_sipi"],
                                                 found["host_all_online"]):
        out.append(record("ap_bringup", int(round((found["host_all_online"] -
                                                   found["host_bsp_before_sipi"]) * 1e6)),
                          peer_timing.HOST_OBSERVED))
    for name in test.figures:
        if name in found["own"]:
            out.append(record("vmexit_" + name, found["own"][name], "its own", "cycles"))
    return out


# --- Booting --------------------------------------------------------------------

def qemu_command(built, test, cpus):
    """tools/run's QEMU command for --boot kernel, with its test binary and devices."""
    config = qemu.RunConfig(boot="kernel", kernel=os.path.join(built["build_dir"], test.binary),
                            cpus=cpus, cpu="max", memory=MEMORY_MB, cmdline=test.args,
                            qemu_args=list(TEST_DEVICES))
    return qemu.build_command(config)


def default_timeout(cpus):
    # Measured here: 0.2 s for smptest at 8 vCPUs, 1.5 s for vmexit ipi (TCG on 2 host cores).
    return 30 + 2 * cpus


def config_name(test, cpus):
    return "%s-%s-%dcpu" % (PEER, test.name, cpus)


def boot(built, test, cpus, log_path, timeout=None, tick=None):
    """Boot one test once; return a run entry (the tools/bench results format)."""
    timeout = timeout or default_timeout(cpus)
    command = qemu_command(built, test, cpus)
    entry = {"config": config_name(test, cpus), "family": test.family, "peer": PEER,
             "run": " ".join(command), "cmdline": test.args, "log": log_path,
             "header": {"peer": PEER, "test": test.binary, "args": test.args, "cpus": cpus,
                        "source": built["source"], "commit": built["commit"],
                        "memory_mb": MEMORY_MB}}
    done = peer_timing.run_timed(command, log_path, timeout, tick)
    problems = done["problems"]
    if done["exit"] is None:
        return dict(entry, exit=None, wall_seconds=None, results=[], problems=problems)
    if done["timed_out"]:
        problems.append("%s did not end within %g s: QEMU killed" % (test.binary, timeout))
    elif done["exit"] != PASS_STATUS:
        problems.append(describe_exit(done["exit"]) +
                        (": QEMU said: " + done["errors"].splitlines()[-1]
                         if done["errors"] else ""))
    found = analyse_log(done["lines"], cpus)
    problems += found["problems"]
    for name in test.figures:
        if name not in found["own"]:
            problems.append("no '%s N' line (its own figure)" % name)
    return dict(entry, exit=done["exit"], wall_seconds=done["wall_seconds"],
                results=records(found, test, cpus), problems=problems)


def describe_exit(status):
    """What QEMU's exit status says of a kvm-unit-tests run that did not pass."""
    if status < 0:
        return "QEMU was killed by signal %d" % -status
    if status & 1:
        return "the test exited with code %d (QEMU status %d)" % (status >> 1, status)
    return "QEMU exited with status %d without the test's exit" % status


def plan(counts, ipi=True):
    """(test, cpus) pairs to boot: smptest at each of @counts, then the IPI tests."""
    boots = [(SMPTEST, cpus) for cpus in counts]
    if ipi:
        boots += [(test, test.cpus) for test in IPI_TESTS]
    return boots


def measure(source, counts, directory, log_dir, say, report, timeout=None):
    """Build kvm-unit-tests from @source in @directory/kvm-unit-tests and boot its tests
    (smptest at each of @counts, then the IPI tests), handing each run entry to @report;
    return None, or why it was not measured.  A boot that fails or does not end is a run
    with its problems, and the next boot goes on.
    """
    try:
        built = build(source, os.path.join(directory, PEER), say)
    except Unavailable as error:
        return "kvm-unit-tests not measured: %s" % error
    for test, cpus in plan(counts):
        report(boot(built, test, cpus, os.path.join(log_dir, config_name(test, cpus) + ".log"),
                    timeout))
    return None
