#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run the trigos benchmark matrix beside a Linux peer and collect its figures.

  tools/bench [--quick] [--only GLOB ...] [--repeat N] [--no-peer] [--out FILE]
              [--no-plot] [--compare OLD.json] [--kvm-unit-tests DIR]
              [--against OLD_BUILD] [CONFIG]
  tools/bench --compare OLD.json --results NEW.json     (compare only, no boot)

Each section of the configuration (tests/bench.cfg, the tools/matrix format)
is booted with tools/run; every `# BENCH {json}` line of its serial log
becomes a result, beside the QEMU run's wall time.  A section of group
"bringup" booted by --boot kernel in Debian's QEMU is started by this tool
itself, with tools/run's QEMU command, as kvm-unit-tests is: its wall time
is QEMU's start to its exit, and its serial lines are stamped as they
arrive, which gives ap_bringup on the host's clock (clock "host-observed":
from the kernel's "smp: sending INIT and STARTUP" line to its "smp: all N
CPUs online" line) beside the kernel's own TSC figure.  Then the Linux peer
(tools/peer: Debian's cloud kernel and a busybox initramfs) is booted with the
-smp value of every selected section in group "bringup".  With
--kvm-unit-tests DIR (off by default) kvm-unit-tests is built from the clone
DIR as tools/peer does, its smptest booted at those -smp values and its vmexit
ipi and ipi_halt at 2 vCPUs when a section of group "ipi" is selected,
round by round with trigos's sections (each --repeat round boots every
section once, then kvm-unit-tests' tests once, so both see the same host
load), and the first table is trigos / kvm-unit-tests: per figure the
median of the per-boot ratios (boot i against boot i) and their range,
bring-up and whole runs on the host's clock for both (a host-observed span
of 0, two lines in one read of QEMU's output, makes no ratio); a
tree that is missing or does not build, or a test that does not end, is a
note and the run goes on.  Everything goes
into one JSON file (build/bench/results.json by default), with the figures
quoted from elsewhere (labelled "quoted"), and tables on stdout: one per
benchmark family, a row per benchmark and variant (backend, lock, peer), a
column per vCPU count.  Then tools/plot draws the charts (plots/ beside the
results, when gnuplot is installed) and writes report.md beside them,
however the run was chosen (--quick, --only); --no-plot leaves them out.

BENCH records (format version 1) are JSON objects with "v", "name", "unit",
usually "cpus", and either "value" or the distribution "n", "min", "p50",
"p90", "p99", "max"; optional "backend", "lock", "outliers", "overhead",
"warmup"; other keys are kept as they are.

Sections run with `--emulator bochs` boot under Bochs 2.7, whose clock is
simulated: the TSC runs at Bochs's ips rate, so their figures are counts of
simulated instructions sliced by Bochs's CPU quantum, not hardware costs.
They are labelled "simulated" in results.json and in their tables, and no
host CPU is measured for them (leave host-CPU and overcommit figures to
QEMU).  What they offer is that they repeat: --repeatable boots every
selected section twice and compares the two boots' BENCH lines (they must
be identical under Bochs: exit status 1 otherwise), and --seeds N boots it
with seed=1..N and reports each figure's spread across the seeds.  A change
in a backend's path then shows as a changed count that no host noise hides.

--compare OLD.json prints each figure's change against an earlier results
file and its noise level: the spread of the figure over repeated runs (when
either file has several runs of it, --repeat), else its own p50..p90 spread
relative to p50 (the larger of the two files'); the output names which.  A
change within the noise is marked "within noise".  Two results files are
two runs, each under its own host load: on a shared host that load, not the
change, can move a figure.

--against OLD_BUILD compares with another build in one run instead: a
directory holding that build's trigos.iso and trigos.elf (for a commit C:
`git worktree add /tmp/old C && make -C /tmp/old iso`, then --against
/tmp/old/build).  Each selected section is booted with this build and
with that one, round by round (--repeat N rounds; which goes first
alternates), so that each pair of boots sees the same host load; the first table is this build / that build,
per figure the median of the per-pair ratios, their range, and a sign test:
in how many pairs this build's figure was the higher, and the two-sided
probability of so uneven a split if neither build were faster.  A figure
is "worse" or "better" only when that probability is below 5 %, else
"within noise".  The other build's runs go to results.json under
"against", and no other table mixes them in.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time

from . import bench_results, kvm_unit_tests, matrix, peer, peer_timing, plot, qemu, verdict
from . import run as run_tool     # tools/run: its options and QEMU command
from .cli import ROOT, entry_script

# --- Running -----------------------------------------------------------------

def qemu_cpu_seconds(pid):
    """utime + stime of process @pid in seconds (/proc/PID/stat), or None."""
    try:
        with open("/proc/%d/stat" % pid) as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # After the command name: state is field 3, utime 14 and stime 15 (proc(5)).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def find_qemu(parent_pid):
    """The pid of a qemu-system process whose parent is @parent_pid, or None."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as stat:
                text = stat.read()
        except OSError:
            continue
        command, rest = text.split(")", 1)
        if "qemu-system" in command and int(rest.split()[1]) == parent_pid:
            return int(name)
    return None


class PhaseSampler:
    """Follow a growing serial log; measure QEMU's host CPU across each phase."""

    def __init__(self, log_path):
        self.log_path = log_path
        self.offset = 0
        self.pending = ""
        self.open_phases = {}
        self.results = []
        self.last_sample = None     # (monotonic time, QEMU CPU seconds) while it ran

    def sample(self, qemu_pid):
        cpu = qemu_cpu_seconds(qemu_pid) if qemu_pid else None
        if cpu is not None:
            self.last_sample = (time.monotonic(), cpu)

    def poll(self, qemu_pid):
        self.sample(qemu_pid)
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as log:
                log.seek(self.offset)
                data = log.read()
                self.offset = log.tell()
        except OSError:
            return
        self.pending += data
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            match = bench_results.PHASE_LINE.match(line.rstrip("\r"))
            if not match or self.last_sample is None:
                continue
            kind, name, rest = match.groups()
            # The newest sample: taken within one polling interval of the line.
            now, cpu = self.last_sample
            if kind == "begin":
                self.open_phases[name] = (now, cpu, rest.strip())
            elif name in self.open_phases:
                began, cpu_began, detail = self.open_phases.pop(name)
                wall = now - began
                if wall > 0:
                    record = {"v": bench_results.BENCH_FORMAT_VERSION, "name": "host_cpu_" + name,
                              "unit": "percent_of_one_host_cpu",
                              "value": round(100.0 * (cpu - cpu_began) / wall, 1),
                              "wall_seconds": round(wall, 2), "detail": detail,
                              "source": "host /proc/PID/stat of the QEMU process"}
                    cpus = re.search(r"\bcpus=(\d+)", detail)
                    if cpus:
                        record["cpus"] = int(cpus.group(1))
                    self.results.append(record)


class Progress:
    """One line per configuration on stderr, with the elapsed time; a ticker on a terminal."""

    def __init__(self, total, expected=None, out=sys.stderr):
        self.total, self.index, self.out = total, 0, out
        self.started = time.monotonic()
        self.expected = expected or {}
        self.live = out.isatty()
        self.last_tick = 0

    def elapsed(self):
        seconds = int(time.monotonic() - self.started)
        return "%d:%02d" % (seconds // 60, seconds % 60)

    def begin(self, name):
        self.index += 1
        self.name = name
        hint = self.expected.get(name)
        self.out.write("bench: [%d/%d] %s ... (elapsed %s%s)\n"
                       % (self.index, self.total, name, self.elapsed(),
                          ", last time %.0f s" % hint if hint else ""))
        self.out.flush()

    def tick(self, seconds):
        if self.live and seconds - self.last_tick >= 1:
            self.last_tick = seconds
            self.out.write("\r  %s: %.0f s" % (self.name, seconds))
            self.out.flush()

    def end(self, run):
        if self.live and self.last_tick:
            self.out.write("\r")
        self.last_tick = 0
        # QEMU's exit status of a kvm-unit-tests pass is 1; tools/run's and Linux's are 0 or 2.
        passed = (kvm_unit_tests.PASS_STATUS,) if run.get("peer") == kvm_unit_tests.PEER \
            else (0, 2)
        self.out.write("bench: [%d/%d] %s: %.1f s, %d figures%s (elapsed %s)\n"
                       % (self.index, self.total, run["config"], run["wall_seconds"] or 0,
                          len(run["results"]), "" if run["exit"] in passed else
                          ", exit %s" % run["exit"], self.elapsed()))
        self.out.flush()


# The two lines the kernel prints at once around AP bring-up (kernel/smp/smp.c).
BRINGUP_STARTS = re.compile(r"^# smp: sending INIT and STARTUP to \d+ APs$")
BRINGUP_ENDS = re.compile(r"^# smp: all \d+ CPUs online, cpu \d+ the last$")
DEFAULT_TIMEOUT = 60        # tools/run's


def host_timed_command(entry, iso, kernel, cmdline):
    """QEMU's command for @entry when this tool starts it itself, as it starts
    kvm-unit-tests (kvm_unit_tests.boot()), or None.

    A bring-up section booted by --boot kernel in Debian's QEMU is timed from
    QEMU's start to its exit with the peer's clock, the host's, its serial
    lines stamped as they arrive (peer_timing.run_timed()): through tools/run
    the whole run would include a Python start and tools/run's own work,
    which the peer's does not."""
    if "bringup" not in entry.groups:
        return None
    words = ["--iso", iso, "--kernel", kernel] + list(entry.run_args)
    if cmdline is not None:
        words += ["--cmdline", cmdline]
    try:
        options = run_tool.parse_args(words)
    except SystemExit:
        return None     # tools/run will say what is wrong with the section
    if (options.emulator, options.emulator_version, options.boot) != ("qemu", "system", "kernel") \
            or options.stall_vcpus or options.gdb is not None or options.acpi_tables \
            or options.screendump:
        return None
    return qemu.build_command(run_tool.config_from_args(options))


def host_observed_records(lines, cpus):
    """BENCH records of the host's clock from @lines [(seconds since QEMU started, text)]:
    QEMU start to the first line, and AP bring-up from the line before the first INIT to
    the last AP's "online" line, as kvm_unit_tests.records() times the peer's."""
    first = started = ended = None
    for seconds, raw in lines:
        line = raw.rstrip("\r")
        if first is None and line.strip():
            first = seconds
        if started is None and BRINGUP_STARTS.match(line):
            started = seconds
        if ended is None and BRINGUP_ENDS.match(line):
            ended = seconds
    records = []
    if first is not None:
        records.append(peer_timing.host_record("qemu_start_to_first_line", cpus, first))
    if started is not None and ended is not None:
        records.append(peer_timing.host_record("ap_bringup", cpus, ended - started))
    return records


def boot_host_timed(command, log_path, timeout, tick, sampler):
    """(tools/run's exit status, wall seconds QEMU start to exit, the serial lines stamped
    with their arrival, problems)."""
    def poll(process, seconds):
        sampler.poll(process.pid)
        if tick:
            tick(seconds)

    done = peer_timing.run_timed(command, log_path, timeout, on_tick=poll)
    sampler.poll(None)      # the log's last lines
    problems = list(done["problems"])
    if done["exit"] is None:
        status = verdict.RUN_SETUP
    elif done["timed_out"]:
        status = verdict.RUN_TIMEOUT
        problems.append("QEMU did not end within %g s: killed" % timeout)
    else:
        status = qemu.verdict_for_exit(done["exit"])[0]
    return status, done["wall_seconds"], done["lines"], problems


def boot_through_run(entry, iso, kernel, cmdline, log_path, tick, sampler):
    """(tools/run's exit status, wall seconds of tools/run): any other section."""
    command = [sys.executable, entry_script("run"), "--quiet", "--log", log_path,
               "--iso", iso, "--kernel", kernel] + list(entry.run_args)
    if cmdline is not None:
        command += ["--cmdline", cmdline]
    if entry.timeout:
        command += ["--timeout", str(entry.timeout)]
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    qemu_pid = None
    while process.poll() is None:
        if qemu_pid is None:
            qemu_pid = find_qemu(process.pid)
        sampler.poll(qemu_pid)
        if tick:
            tick(time.monotonic() - start)
        time.sleep(0.05)
    sampler.poll(qemu_pid)
    return process.returncode, time.monotonic() - start


def run_entry(entry, args, log_path, tick=None, seed=None, build=None):
    """Boot @entry once; @build: (iso, kernel) of another build than --iso/--kernel."""
    iso, kernel = build or (args.iso, args.kernel)
    cmdline = entry.cmdline
    if seed is not None:        # the last seed= word wins
        cmdline = ((cmdline or "") + " seed=%d" % seed).strip()
    if os.path.exists(log_path):
        os.remove(log_path)
    sampler = PhaseSampler(log_path)
    host_timed = host_timed_command(entry, iso, kernel, cmdline)
    host_lines, run_problems = None, []
    if host_timed:
        status, wall, host_lines, run_problems = boot_host_timed(
            host_timed, log_path, entry.timeout or DEFAULT_TIMEOUT, tick, sampler)
    else:
        status, wall = boot_through_run(entry, iso, kernel, cmdline, log_path, tick, sampler)
    try:
        with open(log_path, encoding="utf-8", errors="replace") as log:
            results, problems = bench_results.parse_bench_lines(log)
    except OSError as error:
        results, problems = [], ["no log: %s" % error]
    headers = [record for record in results if record["name"] == "header"]
    results = [record for record in results if record["name"] != "header"]
    header = headers[0] if headers else None
    results, refused = bench_results.refuse_unreliable_times(header, results)
    run = {"config": entry.name, "run": " ".join(entry.run_args), "cmdline": cmdline,
           "emulator": bench_results.run_emulator(entry.run_args), "seed": seed,
           "exit": status, "wall_seconds": round(wall, 3) if wall is not None else None,
           "log": log_path,
           "timed": bench_results.TIMED_QEMU if host_timed else bench_results.TIMED_RUN,
           "header": header, "unreliable_clock": bool(header and header.get("unreliable_clock")),
           "refused": refused, "problems": run_problems + problems}
    host_records = [] if host_lines is None else \
        host_observed_records(host_lines, bench_results.run_vcpus(run))
    run["results"] = results + host_records + sampler.results
    if bench_results.simulated(run):
        run["simulated"] = bench_results.SIMULATED
        for record in run["results"]:
            record["simulated"] = True
    return run


def boot_section(entry, args, log_dir, progress, suffix, seed, build, notes):
    """Boot @entry once with this build or @build; (its run, 1 if it gave no results)."""
    name = entry.name + ("" if seed is None else " seed=%d" % seed) + \
        (" (against)" if build else "")
    log_name = entry.name + suffix + ("-against" if build else "") + ".log"
    progress.begin(name)
    run = run_entry(entry, args, os.path.join(log_dir, log_name), progress.tick, seed=seed,
                    build=build)
    progress.end(run)
    for problem in run["problems"]:
        sys.stderr.write("bench: %s: %s\n" % (name, problem))
    if run.get("unreliable_clock"):
        notes.append("%s%s: its TSC calibration was unreliable (the log's WARNING says why): "
                     "no figure in a unit of time is reported from it%s"
                     % (entry.name, suffix + (" (against)" if build else ""),
                        " (%d refused here)" % len(run.get("refused"))
                        if run.get("refused") else ""))
    if run["exit"] not in (0, 2) or not run["results"]:
        sys.stderr.write("bench: %s: exit %d (tools/run's statuses) with %d results; log %s\n"
                         % (name, run["exit"], len(run["results"]), run["log"]))
        return run, 1
    return run, 0


def peer_cpu_counts(entries):
    """The vCPU counts of the selected bring-up sections, for the peers."""
    counts = []
    for entry in entries:
        if "bringup" not in entry.groups:
            continue
        words = entry.run_args
        if "--cpus" in words and words.index("--cpus") + 1 < len(words):
            value = words[words.index("--cpus") + 1]
            if value.isdigit() and int(value) not in counts:
                counts.append(int(value))
    return sorted(counts)


def host_description():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        qemu = subprocess.run(["qemu-system-x86_64", "--version"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, universal_newlines=True).stdout
        qemu = qemu.splitlines()[0] if qemu else "unknown"
    except OSError:
        qemu = "not found"
    return {"cores": os.cpu_count(), "machine": platform.machine(), "cpu_model": model,
            "system": platform.platform(), "qemu": qemu}


def print_compare(old_path, report, out=sys.stdout):
    try:
        old = bench_results.load_results(old_path)
    except (OSError, ValueError) as error:
        sys.stderr.write("bench: --compare %s: %s\n" % (old_path, error))
        return False
    rows = bench_results.compare(old, report)
    out.write("\nchange against %s (%s)\n" % (old_path, old.get("date", "undated")))
    loads = [(result.get("host") or {}).get("load_before", "unknown") for result in (old, report)]
    out.write("host load average (1 min) before the run: old %s, new %s\n" % tuple(loads))
    bench_results.render_text(bench_results.compare_tables(rows), out)
    changed = sum(1 for row in rows if row[6] == "CHANGED")
    out.write("\n%d figures compared, %d changed beyond noise\n" % (len(rows), changed) +
              bench_results.COMPARE_NOTE)
    return True


def run_peer(counts, args, log_dir, progress, runs):
    """Boot the Linux peer for each of @counts; append its runs; return a note or None."""
    try:
        files, initramfs = peer.prepare(args.peer_dir, lambda text: sys.stderr.write(text + "\n"))
    except peer.PeerUnavailable as error:
        note = "Linux peer not measured: %s" % error
        sys.stderr.write("bench: %s; going on with trigos only\n" % note)
        progress.total -= len(counts) * args.repeat
        return note
    for cpus in counts:
        for repeat in range(args.repeat):
            name = "linux-%dcpu" % cpus
            progress.begin(name)
            suffix = "-%d" % (repeat + 1) if args.repeat > 1 else ""
            run = peer.boot(files, initramfs, cpus, os.path.join(log_dir, name + suffix + ".log"),
                            tick=progress.tick)
            progress.end(run)
            for problem in run["problems"]:
                sys.stderr.write("bench: %s: %s\n" % (name, problem))
            runs.append(run)
    return None


class KutBoots:
    """kvm-unit-tests from --kvm-unit-tests DIR, built once, its tests booted a round at a
    time (round() after each round of trigos's sections); its runs go to @runs, a note for
    each problem, or for the whole peer when it cannot be built, to @notes."""

    def __init__(self, counts, ipi, args, log_dir, progress, runs, notes):
        self.boots = kvm_unit_tests.plan(counts, ipi)
        self.args, self.log_dir, self.progress = args, log_dir, progress
        self.runs, self.notes = runs, notes
        try:
            self.built = kvm_unit_tests.build(args.kvm_unit_tests,
                                              os.path.join(args.peer_dir, kvm_unit_tests.PEER),
                                              lambda text: sys.stderr.write(text + "\n"))
        except kvm_unit_tests.Unavailable as error:
            note = "kvm-unit-tests not measured: %s" % error
            sys.stderr.write("bench: %s; going on without it\n" % note)
            progress.total -= len(self.boots) * args.repeat
            notes.append(note)
            self.built = None

    def round(self, repeat):
        if self.built is None:
            return
        for test, cpus in self.boots:
            name = kvm_unit_tests.config_name(test, cpus)
            suffix = "-%d" % (repeat + 1) if self.args.repeat > 1 else ""
            self.progress.begin(name)
            run = kvm_unit_tests.boot(self.built, test, cpus,
                                      os.path.join(self.log_dir, name + suffix + ".log"),
                                      tick=self.progress.tick)
            self.progress.end(run)
            for problem in run["problems"]:
                sys.stderr.write("bench: %s: %s\n" % (name, problem))
                self.notes.append("%s%s: %s (log %s)" % (name, suffix, problem, run["log"]))
            self.runs.append(run)


def pair_order(round_index, against):
    """The builds a round boots, in order: this build alone, or both, taking turns to go
    first (an order kept fixed biased the pairs: a build that removes work from the kick
    still measured 2.5 times 67b368c's at high host load when always booted first)."""
    if not against:
        return [None]
    return [None, against] if round_index % 2 == 0 else [against, None]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", nargs="?", default=os.path.join(ROOT, "tests", "bench.cfg"))
    parser.add_argument("--quick", action="store_true", help="only the sections in group 'quick'")
    parser.add_argument("--only", action="append", default=[], metavar="GLOB",
                        help="only the sections whose name matches GLOB (repeatable)")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="boot every configuration N times (gives --compare a noise level)")
    parser.add_argument("--seeds", type=int, metavar="N",
                        help="boot every configuration with seed=1..N and report each figure's "
                             "spread across the seeds")
    parser.add_argument("--repeatable", action="store_true",
                        help="boot every configuration (and seed) twice and compare the BENCH "
                             "lines; under Bochs they must be identical (exit 1 otherwise)")
    parser.add_argument("--no-peer", action="store_true", help="do not boot the Linux peer")
    parser.add_argument("--peer-dir", default=os.path.join("build", "peer"),
                        help="the Linux peer's packages (default build/peer)")
    parser.add_argument("--kvm-unit-tests", metavar="DIR",
                        help="also build kvm-unit-tests from the clone DIR (out of tree, in "
                             "--peer-dir; DIR is not written) and boot its smptest with the "
                             "-smp of each bring-up section, its vmexit ipi/ipi_halt at 2 "
                             "vCPUs when an ipi section is selected; --no-peer leaves "
                             "only Linux out")
    parser.add_argument("--compare", metavar="OLD.json", help="print the change against OLD.json")
    parser.add_argument("--results", metavar="FILE",
                        help="with --compare: compare FILE instead of running anything")
    parser.add_argument("--out", default=os.path.join("build", "bench", "results.json"),
                        help="results file (default build/bench/results.json); the charts "
                             "go to plots/ and the report to report.md beside it")
    parser.add_argument("--no-plot", action="store_true",
                        help="write no charts and no report (tools/plot draws them later)")
    parser.add_argument("--against", metavar="OLD_BUILD",
                        help="also boot every section with the build in directory OLD_BUILD "
                             "(its trigos.iso and trigos.elf), right after this build's boot "
                             "of it, and print this build / that one first, with a sign test")
    parser.add_argument("--iso", default=os.path.join("build", "trigos.iso"))
    parser.add_argument("--kernel", default=os.path.join("build", "trigos.elf"))
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.seeds is not None and args.seeds < 1:
        parser.error("--seeds must be at least 1")
    if args.repeatable:
        args.repeat = max(args.repeat, 2)
    seeds = list(range(1, args.seeds + 1)) if args.seeds else [None]
    against = None
    if args.against:
        against = (os.path.join(args.against, "trigos.iso"),
                   os.path.join(args.against, "trigos.elf"))
        missing = [path for path in against if not os.path.isfile(path)]
        if missing:
            parser.error("--against %s: no %s (build it with make iso)"
                         % (args.against, " and no ".join(missing)))
    if args.results:
        if not args.compare:
            parser.error("--results needs --compare")
        try:
            report = bench_results.load_results(args.results)
        except (OSError, ValueError) as error:
            sys.stderr.write("bench: %s: %s\n" % (args.results, error))
            return 2
        return 0 if print_compare(args.compare, report) else 2

    try:
        entries = matrix.select(matrix.load_config(args.config),
                                only=args.only or None,
                                groups=["quick"] if args.quick else None)
    except matrix.ConfigError as error:
        sys.stderr.write("bench: %s\n" % error)
        return 2
    log_dir = os.path.join(os.path.dirname(args.out) or ".", "logs")
    os.makedirs(log_dir, exist_ok=True)
    counts = [] if args.no_peer else peer_cpu_counts(entries)
    kut_counts = peer_cpu_counts(entries) if args.kvm_unit_tests else []
    kut_ipi = bool(args.kvm_unit_tests) and any("ipi" in entry.groups for entry in entries)
    kut_boots = len(kvm_unit_tests.plan(kut_counts, kut_ipi))
    expected = {}
    if os.path.exists(args.out):
        try:
            expected = {run["config"]: run["wall_seconds"]
                        for run in bench_results.load_results(args.out)["runs"]}
        except (OSError, ValueError, KeyError, TypeError):
            expected = {}
    builds = 2 if against else 1
    progress = Progress((len(entries) * len(seeds) * builds + len(counts) + kut_boots) *
                        args.repeat, expected)
    load_before = os.getloadavg()[0]

    runs, failed, notes, repeats, against_runs = [], 0, [], [], []
    boots = {}
    kut = KutBoots(kut_counts, kut_ipi, args, log_dir, progress, runs, notes) \
        if kut_boots else None
    # Round by round: each round boots every section once, then kvm-unit-tests' tests once,
    # so that the two see the same host load (their ratios pair boot i with boot i).
    for repeat in range(args.repeat):
        for entry in entries:
            for seed in seeds:
                suffix = ("-seed%d" % seed if seed is not None else "") + \
                    ("-%d" % (repeat + 1) if args.repeat > 1 else "")
                for build in pair_order(repeat, against):
                    run, bad = boot_section(entry, args, log_dir, progress, suffix, seed, build,
                                            notes)
                    failed += bad
                    if build:
                        against_runs.append(run)
                        continue
                    runs.append(run)
                    boots.setdefault((entry.name, seed), []).append(run)
        if kut:
            kut.round(repeat)
    if args.repeatable:
        for entry in entries:
            for seed in seeds:
                done = boots.get((entry.name, seed), [])
                repeats.append(dict(bench_results.repeatability(done), config=entry.name,
                                    seed=seed, emulator=done[0]["emulator"]))
    if counts:
        note = run_peer(counts, args, log_dir, progress, runs)
        if note:
            notes.append(note)
    elif not args.no_peer:
        notes.append("Linux peer not booted: no section of group 'bringup' was selected")
    if args.kvm_unit_tests and not kut_boots:
        notes.append("kvm-unit-tests not booted: no section of group 'bringup' or 'ipi' "
                     "was selected")

    command = "tools/bench " + " ".join(argv if argv is not None else sys.argv[1:])
    report = {"format": bench_results.BENCH_FORMAT_VERSION,
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "command": command.strip(), "wall_seconds": round(time.monotonic() -
                                                                progress.started, 1),
              "host": dict(host_description(), load_before=round(load_before, 2),
                           load_after=round(os.getloadavg()[0], 2)),
              "notes": notes,
              "quoted": [dict(q, label="quoted", source=bench_results.QUOTED_SOURCE)
                         for q in bench_results.QUOTED],
              "runs": runs}
    if repeats:
        report["repeatability"] = repeats
    if against:
        report["against"] = {"build": args.against, "runs": against_runs}
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(report, out, indent=1)
    spread = bench_results.seed_spread_table(report)
    ratios = bench_results.peer_ratio_table(report)
    builds_compared = bench_results.against_table(report) if against else None
    tables = ([builds_compared] if builds_compared else []) + ([ratios] if ratios else []) + \
        bench_results.build_tables(report) + \
        ([spread] if spread else [])
    bench_results.render_text(tables + [bench_results.quoted_table()], sys.stdout)
    for note in notes:
        sys.stdout.write("\nbench: %s\n" % note)
    unrepeatable = print_repeatability(repeats)
    if args.compare:
        print_compare(args.compare, report)
    sys.stdout.write("bench: %d configurations in %s, %d without results; written to %s\n"
                     % (len(runs), progress.elapsed(), failed, args.out))
    plotted = args.no_plot or draw_charts(args.out) == 0
    return 1 if failed or unrepeatable or not plotted else 0


def report_path(results_path):
    """Where the Markdown report of @results_path goes: report.md beside it."""
    return os.path.join(os.path.dirname(results_path) or ".", "report.md")


def draw_charts(results_path):
    """tools/plot on @results_path: the charts (plots/ beside it, when gnuplot is
    there) and the Markdown report, whichever way the benchmarks were run
    (make bench, tools/bench --quick, --only).  Returns tools/plot's status."""
    status = plot.main([results_path, "--report", report_path(results_path)])
    sys.stdout.write("bench: report in %s\n" % report_path(results_path))
    return status


def print_repeatability(repeats, out=sys.stdout):
    """Say, per configuration, whether its boots gave identical BENCH lines; return how many
    simulated (Bochs) configurations did not, which is a failure: Bochs's clock is simulated."""
    failures = 0
    for entry in repeats:
        name = entry["config"] + ("" if entry["seed"] is None else " seed=%d" % entry["seed"])
        if entry["identical"]:
            out.write("bench: repeatable: %s: %d BENCH lines identical in %d boots\n"
                      % (name, entry["lines"], entry["boots"]))
            continue
        if entry["emulator"] == "bochs":
            failures += 1
        if entry["difference"] is None:
            out.write("bench: NOT repeatable: %s: no BENCH lines\n" % name)
            continue
        line, one, two = entry["difference"]
        out.write("bench: NOT repeatable%s: %s: BENCH line %d differs:\n  first: %s\n  other: %s\n"
                  % ("" if entry["emulator"] == "bochs" else " (QEMU: expected, its clock is the "
                     "host's)", name, line, one or "(none)", two or "(none)"))
    return failures
