#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run the trigos benchmark matrix beside a Linux peer and collect its figures.

  tools/bench [--quick] [--only GLOB] [--repeat N] [--no-peer] [--out FILE]
              [--no-plot] [--compare OLD.json] [CONFIG]
  tools/bench --compare OLD.json --results NEW.json     (compare only, no boot)

Each section of the configuration (tests/bench.cfg, the tools/matrix format)
is booted with tools/run; every `# BENCH {json}` line of its serial log
becomes a result, beside the QEMU run's wall time.  Then the Linux peer
(tools/peer: Debian's cloud kernel and a busybox initramfs) is booted with the
-smp value of every selected section in group "bringup".  Everything goes
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
change within the noise is marked "within noise".
"""
import argparse
import datetime
import itertools
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

from . import matrix, peer
from .cli import ROOT, entry_script

BENCH_FORMAT_VERSION = 1
BENCH_LINE = re.compile(r"^\s*# BENCH (\{.*\})\s*$")
PHASE_LINE = re.compile(r"^\s*# BENCH-PHASE (begin|end) (\S+)(.*)$")
PHASE_MARK = "# BENCH-PHASE "
REQUIRED_KEYS = ("name", "unit")
NUMBER_KEYS = ("value", "n", "min", "p50", "p90", "p99", "max", "outliers", "overhead",
               "warmup", "cpus")
STRING_KEYS = ("name", "unit", "backend", "lock")
# The keys that tell two figures of one benchmark apart, in the order shown.
VARIANT_KEYS = ("peer", "clock", "backend", "lock")
TRIGGER_BACKENDS = ("spin", "mwait", "hlt", "adaptive", "mwaitx", "umwait")
CONFIG_NAME = re.compile(r"^(.*?)-(\d+)cpus?(?:-(.+))?$")
SIMULATED = ("simulated under Bochs 2.7: counts of simulated instructions sliced by Bochs's "
             "CPU quantum (its TSC runs at the ips rate), not hardware costs")

# Figures measured side by side with a peer that this repository cannot build
# (kvm-unit-tests is not a Debian package), shown for scale and labelled
# "quoted": not measured by this run, and not reproducible from here.
QUOTED_SOURCE = ("the maintainers' side-by-side measurement of 2026-12-03: QEMU 7.2 TCG, "
                 "2 host cores, load 1.5-3.5, runs interleaved, kvm-unit-tests commit 1da1819e "
                 "with its AP bring-up timed by TSC reads around its INIT/SIPI and online wait; "
                 "median [range]; not reproducible from this repository")
QUOTED = [
    {"what": "AP bring-up, 8 vCPUs, kvm-unit-tests (42 runs)", "figure": "11.09 [2.35-52.1]",
     "unit": "ms"},
    {"what": "AP bring-up, 8 vCPUs, kvm-unit-tests with its two AP printfs removed (42 runs)",
     "figure": "2.73 [1.27-15.0]", "unit": "ms"},
    {"what": "AP bring-up, 8 vCPUs, trigos in the same runs (42 runs)",
     "figure": "2.31 [1.47-38.3]", "unit": "ms"},
    {"what": "AP bring-up, 2/4/16 vCPUs, kvm-unit-tests without AP printfs",
     "figure": "1.19 / 1.64 / 3.15", "unit": "ms"},
    {"what": "AP bring-up, 2/4/16 vCPUs, trigos in the same runs", "figure": "1.08 / 1.61 / 2.95",
     "unit": "ms"},
    {"what": "whole run, QEMU start to exit, kvm-unit-tests without AP printfs / trigos",
     "figure": "365 / 430", "unit": "ms"},
    {"what": "IPI round trip, 2 vCPUs: kvm-unit-tests vmexit ipi (its APs idle in HLT; 22 runs)",
     "figure": "47.1 k [15.1-89.1 k]", "unit": "TSC cycles"},
    {"what": "IPI round trip, 2 vCPUs: kvm-unit-tests vmexit ipi_halt", "figure": "48.7 k",
     "unit": "TSC cycles"},
    {"what": "IPI round trip, 2 vCPUs: trigos to a halted / a spinning CPU (22 runs)",
     "figure": "31.6 k [29.1-95.1 k] / 19.9 k", "unit": "TSC cycles"},
]



# --- BENCH lines -------------------------------------------------------------

def record_problem(record):
    """Why @record (a parsed BENCH object) is unusable, or None."""
    if not isinstance(record, dict) or any(key not in record for key in REQUIRED_KEYS):
        return "BENCH record lacks %s" % "/".join(REQUIRED_KEYS)
    if record.get("v", BENCH_FORMAT_VERSION) != BENCH_FORMAT_VERSION:
        return "BENCH format version %r, expected %d" % (record.get("v"), BENCH_FORMAT_VERSION)
    for key in NUMBER_KEYS:
        value = record.get(key)
        if key in record and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return "BENCH key %r is %r, not a number" % (key, value)
    for key in STRING_KEYS:
        if key in record and not isinstance(record[key], str):
            return "BENCH key %r is %r, not a string" % (key, record[key])
    if record["name"] != "header" and "value" not in record and "p50" not in record:
        return "BENCH record %r has neither value nor p50" % record["name"]
    return None


def parse_bench_lines(lines):
    """Return (results, problems) from serial-log lines; never raises on bad input."""
    results, problems = [], []
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        match = BENCH_LINE.match(line)
        if not match:
            if "# BENCH" in line and PHASE_MARK not in line:
                problems.append("line %d: a BENCH line without a JSON object" % number)
            continue
        try:
            record = json.loads(match.group(1))
        except ValueError as error:
            problems.append("line %d: bad BENCH JSON (%s)" % (number, error))
            continue
        problem = record_problem(record)
        if problem:
            problems.append("line %d: %s" % (number, problem))
            continue
        results.append(record)
    return results, problems


TIME_UNITS = ("ns", "us", "ms", "s")


def refuse_unreliable_times(header, results):
    """(kept, refused names): with a header saying "unreliable_clock", no time figure is kept.

    The kernel already prints none (kernel/harness/bench.c); a figure in a unit of
    time that still comes from such a run is TSC cycles scaled by a rate
    that its own calibration did not trust, and is refused here too.
    """
    if (header or {}).get("unreliable_clock") is not True:
        return results, []
    kept = [record for record in results if record.get("unit") not in TIME_UNITS]
    refused = [record["name"] for record in results if record.get("unit") in TIME_UNITS]
    return kept, refused


def headline(record):
    """The one number a record is compared by: its value, else its median."""
    return record["value"] if "value" in record else record.get("p50")


def number(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        for limit, form in ((10, "%.2f"), (100, "%.1f")):
            if abs(value) < limit:
                return form % value
        return "%.0f" % value
    return "%d" % value


def figure(record):
    """The headline figure of a record, as text."""
    if "value" in record:
        return number(record["value"])
    if "p50" in record:
        return "p50 %s  p99 %s  (n=%s)" % (number(record["p50"]), number(record.get("p99")),
                                           record.get("n", "?"))
    return "?"


# --- Naming figures ----------------------------------------------------------

def split_config_name(name):
    """(family, vCPUs or None, suffix or "") of a section name like spinlock-8cpu-mcs-spinning."""
    match = CONFIG_NAME.match(name)
    if not match:
        return name, None, ""
    return match.group(1), int(match.group(2)), match.group(3) or ""


def run_vcpus(run):
    header = run.get("header") or {}
    if isinstance(header.get("cpus"), int):
        return header["cpus"]
    words = (run.get("run") or "").split()
    for flag in ("--cpus", "-smp"):
        if flag in words and words.index(flag) + 1 < len(words):
            value = words[words.index(flag) + 1].split(",")[0]
            if value.isdigit():
                return int(value)
    return split_config_name(run.get("config", ""))[1]


def run_family(run):
    family, _, suffix = split_config_name(run.get("config", ""))
    return run.get("family") or family, suffix


def run_emulator(run_args):
    """"bochs" for a section booted with tools/run --emulator bochs, else "qemu"."""
    words = list(run_args)
    for index, word in enumerate(words):
        if word == "--emulator" and index + 1 < len(words):
            return words[index + 1]
        if word.startswith("--emulator="):
            return word.split("=", 1)[1]
    return "qemu"


def simulated(run):
    return run.get("emulator") == "bochs"


def benchmark_and_variant(record):
    """(base name, variant dict) of a record: a trailing _BACKEND leaves the name."""
    name = record["name"]
    variant = {key: record[key] for key in VARIANT_KEYS if isinstance(record.get(key), str)}
    backend = variant.get("backend")
    if backend is None:
        for candidate in TRIGGER_BACKENDS:
            if name.endswith("_" + candidate):
                backend = variant["backend"] = candidate
                break
    if backend and name.endswith("_" + backend):
        name = name[:-len(backend) - 1]
    return name, variant


def figure_key(run, record):
    """What identifies one figure across runs and results files (a tuple of text)."""
    family, suffix = run_family(run)
    name, variant = benchmark_and_variant(record)
    cpus = record.get("cpus")
    vcpus = run_vcpus(run)
    label = " ".join(variant[key] for key in VARIANT_KEYS if key in variant)
    if suffix:
        label = (label + " " + suffix).strip()
    if cpus is not None and vcpus is not None and cpus != vcpus:
        label = (label + " %s CPU%s" % (cpus, "" if cpus == 1 else "s")).strip()
    return (family, name, label or "-", record.get("unit", ""), str(vcpus or "?"))


def collect_figures(report):
    """{figure key: [record, ...]} over every run of @report (several with --repeat)."""
    figures = {}
    for run in report.get("runs", []):
        for record in run.get("results", []):
            if headline(record) is None:
                continue
            figures.setdefault(figure_key(run, record), []).append(record)
        wall = run.get("wall_seconds")
        if isinstance(wall, (int, float)):
            family, suffix = run_family(run)
            label = " ".join(part for part in (run.get("peer", "trigos"), suffix) if part)
            whole = "whole Bochs run" if simulated(run) else "whole QEMU run"
            key = (whole, family, label, "s wall", str(run_vcpus(run) or "?"))
            figures.setdefault(key, []).append({"name": "wall", "unit": "s", "value": wall})
    return figures


def median_headline(records):
    return statistics.median(headline(record) for record in records)


# --- Tables ------------------------------------------------------------------

def cpu_order(value):
    return int(value) if value.isdigit() else 1 << 30


def build_tables(report):
    """[(title, header row, rows)]: a table per family, benchmarks x variants by vCPUs."""
    figures = collect_figures(report)
    simulated_families = {run_family(run)[0] for run in report.get("runs", []) if simulated(run)}
    families = []
    for key in figures:
        if key[0] not in families:
            families.append(key[0])
    tables = []
    for family in families:
        keys = [key for key in figures if key[0] == family]
        columns = sorted({key[4] for key in keys}, key=cpu_order)
        rows, index = [], {}
        for key in keys:
            row_id = key[1:4]
            if row_id not in index:
                index[row_id] = len(rows)
                rows.append([key[1], key[2], key[3]] + [""] * len(columns))
            records = figures[key]
            cell = number(median_headline(records))
            if all("p99" in record for record in records):
                cell += " (p99 %s)" % number(statistics.median(r["p99"] for r in records))
            if len(records) > 1:
                cell += " x%d" % len(records)
            rows[index[row_id]][3 + columns.index(key[4])] = cell
        if family == "whole QEMU run":
            title = "whole QEMU run, wall seconds (boot to power-off)"
            header = ["family", "who", "unit"]
        elif family == "whole Bochs run":
            title = "whole Bochs run, wall seconds of the host (boot to shutdown)"
            header = ["family", "who", "unit"]
        else:
            title = "%s: p50 (p99), or the value" % family
            if family in simulated_families:
                title += "; " + SIMULATED
            header = ["benchmark", "variant", "unit"]
        if any(row[1].startswith("linux") for row in rows):
            # Beside the peer's rows, an unlabelled row is trigos's own.
            for row in rows:
                row[1] = "trigos" if row[1] == "-" else row[1]
        tables.append((title, header + ["%s vCPU" % column for column in columns], rows))
    return tables


def render_text(tables, out):
    for title, header, rows in tables:
        widths = [max(len(str(row[column])) for row in [header] + rows)
                  for column in range(len(header))]
        out.write("\n%s\n" % title)
        for row in [header] + rows:
            out.write("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths))
                      .rstrip() + "\n")


def render_markdown(tables):
    parts = []
    for title, header, rows in tables:
        lines = ["**%s**" % title, "", "| " + " | ".join(header) + " |",
                 "|" + "---|" * len(header)]
        for row in rows:
            lines.append("| " + " | ".join(cell.replace("|", "\\|") or " " for cell in row) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def quoted_table():
    return ("quoted from %s, not measured by this run" % QUOTED_SOURCE,
            ["figure", "value", "unit"], [[q["what"], q["figure"], q["unit"]] for q in QUOTED])


def seed_spread_table(report):
    """(title, header, rows) of each figure's spread across the seeds of --seeds, or None."""
    figures = {}
    for run in report.get("runs", []):
        if run.get("seed") is None:
            continue
        for record in run.get("results", []):
            if headline(record) is not None:
                figures.setdefault(figure_key(run, record), {}).setdefault(
                    run["seed"], []).append(headline(record))
    rows = []
    for key, by_seed in figures.items():
        if len(by_seed) < 2:
            continue
        values = [statistics.median(values) for values in by_seed.values()]
        middle = statistics.median(values)
        spread = (max(values) - min(values)) / abs(middle) if middle else None
        rows.append([key[0], key[1], key[2], key[3], key[4], str(len(by_seed)),
                     number(min(values)), number(middle), number(max(values)),
                     "-" if spread is None else "%.1f%%" % (100 * spread)])
    if not rows:
        return None
    return ("spread across seeds (p50, or the value, per seed; spread = (max-min)/median)",
            ["family", "benchmark", "variant", "unit", "vCPU", "seeds", "min", "median", "max",
             "spread"], rows)


def bench_lines(log_path):
    """The BENCH lines of a serial log, as written (white space stripped)."""
    try:
        with open(log_path, encoding="utf-8", errors="replace") as log:
            return [line.strip() for line in log if BENCH_LINE.match(line.rstrip("\r\n"))]
    except OSError:
        return []


def repeatability(boots):
    """Compare the BENCH lines of two or more boots of one configuration (their logs).

    Returns {"boots", "lines", "identical", "difference"}: "difference" is
    None or (line number, first boot's line, the other boot's line).
    """
    first = bench_lines(boots[0]["log"])
    difference = None
    for other in boots[1:]:
        lines = bench_lines(other["log"])
        for line, (one, two) in enumerate(itertools.zip_longest(first, lines, fillvalue=""), 1):
            if one != two:
                difference = (line, one, two)
                break
        if difference:
            break
    return {"boots": len(boots), "lines": len(first), "identical": difference is None and
            bool(first), "difference": difference}


# --- Comparing two results files -------------------------------------------

def noise_of(records):
    """(relative noise, how it was derived) for one file's records of one figure."""
    values = [headline(record) for record in records]
    middle = statistics.median(values)
    if len(values) > 1 and middle:
        return (max(values) - min(values)) / abs(middle), "repeats"
    if all("p90" in record and record.get("p50") for record in records):
        spreads = [(record["p90"] - record["p50"]) / abs(record["p50"]) for record in records]
        return max(spreads), "p50..p90"
    return None, "none"


def compare(old_report, new_report):
    """Rows (key, old, new, change, noise, noise source, verdict) for figures in both files."""
    old_figures, new_figures = collect_figures(old_report), collect_figures(new_report)
    rows = []
    for key, new_records in new_figures.items():
        old_records = old_figures.get(key)
        if not old_records:
            continue
        old, new = median_headline(old_records), median_headline(new_records)
        change = (new - old) / abs(old) if old else None
        noises = [noise_of(old_records), noise_of(new_records)]
        repeats = [noise for noise in noises if noise[1] == "repeats"]
        chosen = repeats or [noise for noise in noises if noise[0] is not None]
        noise, source = (max(chosen)[0], chosen[0][1]) if chosen else (None, "none")
        if change is None:
            verdict = "old figure is 0"
        elif noise is None:
            verdict = "no noise estimate"
        elif abs(change) <= noise:
            verdict = "within noise"
        else:
            verdict = "CHANGED"
        rows.append((key, old, new, change, noise, source, verdict))
    return rows


def percent(value):
    return "-" if value is None else "%+.1f%%" % (100 * value)


def compare_tables(rows):
    tables, families = [], []
    for row in rows:
        if row[0][0] not in families:
            families.append(row[0][0])
    for family in families:
        body = [[key[1], key[2], key[4], key[3], number(old), number(new), percent(change),
                 "-" if noise is None else "%.1f%% (%s)" % (100 * noise, source), verdict]
                for key, old, new, change, noise, source, verdict in rows if key[0] == family]
        tables.append(("%s: change against the old results" % family,
                       ["benchmark", "variant", "vCPU", "unit", "old", "new", "change",
                        "noise (from)", "verdict"], body))
    return tables


COMPARE_NOTE = ("noise: 'repeats' = spread (max-min)/median of the figure over repeated runs "
                "(--repeat) in either file; 'p50..p90' = (p90-p50)/p50 of the figure's own "
                "samples, the larger of the two files'; 'none' = a single value, no estimate.\n")


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
            match = PHASE_LINE.match(line.rstrip("\r"))
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
                    record = {"v": BENCH_FORMAT_VERSION, "name": "host_cpu_" + name,
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
        self.out.write("bench: [%d/%d] %s: %.1f s, %d figures%s (elapsed %s)\n"
                       % (self.index, self.total, run["config"], run["wall_seconds"] or 0,
                          len(run["results"]), "" if run["exit"] in (0, 2) else
                          ", exit %s" % run["exit"], self.elapsed()))
        self.out.flush()


def run_entry(entry, args, log_path, tick=None, seed=None):
    command = [sys.executable, entry_script("run"), "--quiet", "--log", log_path,
               "--iso", args.iso, "--kernel", args.kernel] + list(entry.run_args)
    cmdline = entry.cmdline
    if seed is not None:        # the last seed= word wins
        cmdline = ((cmdline or "") + " seed=%d" % seed).strip()
    if cmdline is not None:
        command += ["--cmdline", cmdline]
    if entry.timeout:
        command += ["--timeout", str(entry.timeout)]
    if os.path.exists(log_path):
        os.remove(log_path)
    sampler = PhaseSampler(log_path)
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
    wall = time.monotonic() - start
    try:
        with open(log_path, encoding="utf-8", errors="replace") as log:
            results, problems = parse_bench_lines(log)
    except OSError as error:
        results, problems = [], ["no log: %s" % error]
    headers = [record for record in results if record["name"] == "header"]
    results = [record for record in results if record["name"] != "header"]
    header = headers[0] if headers else None
    results, refused = refuse_unreliable_times(header, results)
    run = {"config": entry.name, "run": " ".join(entry.run_args), "cmdline": cmdline,
           "emulator": run_emulator(entry.run_args), "seed": seed,
           "exit": process.returncode, "wall_seconds": round(wall, 3), "log": log_path,
           "header": header, "unreliable_clock": bool(header and header.get("unreliable_clock")),
           "refused": refused, "results": results + sampler.results, "problems": problems}
    if simulated(run):
        run["simulated"] = SIMULATED
        for record in run["results"]:
            record["simulated"] = True
    return run


def peer_cpu_counts(entries):
    """The vCPU counts of the selected bring-up sections, for the Linux peer."""
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


def load_results(path):
    with open(path, encoding="utf-8") as results:
        report = json.load(results)
    if not isinstance(report, dict) or not isinstance(report.get("runs"), list):
        raise ValueError("not a tools/bench results file (no \"runs\" list)")
    return report


def print_compare(old_path, report, out=sys.stdout):
    try:
        old = load_results(old_path)
    except (OSError, ValueError) as error:
        sys.stderr.write("bench: --compare %s: %s\n" % (old_path, error))
        return False
    rows = compare(old, report)
    out.write("\nchange against %s (%s)\n" % (old_path, old.get("date", "undated")))
    loads = [(result.get("host") or {}).get("load_before", "unknown") for result in (old, report)]
    out.write("host load average (1 min) before the run: old %s, new %s\n" % tuple(loads))
    render_text(compare_tables(rows), out)
    changed = sum(1 for row in rows if row[6] == "CHANGED")
    out.write("\n%d figures compared, %d changed beyond noise\n" % (len(rows), changed) +
              COMPARE_NOTE)
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", nargs="?", default=os.path.join(ROOT, "tests", "bench.cfg"))
    parser.add_argument("--quick", action="store_true", help="only the sections in group 'quick'")
    parser.add_argument("--only", metavar="GLOB", help="only the sections whose name matches")
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
    parser.add_argument("--compare", metavar="OLD.json", help="print the change against OLD.json")
    parser.add_argument("--results", metavar="FILE",
                        help="with --compare: compare FILE instead of running anything")
    parser.add_argument("--out", default=os.path.join("build", "bench", "results.json"),
                        help="results file (default build/bench/results.json); the charts "
                             "go to plots/ and the report to report.md beside it")
    parser.add_argument("--no-plot", action="store_true",
                        help="write no charts and no report (tools/plot draws them later)")
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
    if args.results:
        if not args.compare:
            parser.error("--results needs --compare")
        try:
            report = load_results(args.results)
        except (OSError, ValueError) as error:
            sys.stderr.write("bench: %s: %s\n" % (args.results, error))
            return 2
        return 0 if print_compare(args.compare, report) else 2

    try:
        entries = matrix.select(matrix.load_config(args.config),
                                only=[args.only] if args.only else None,
                                groups=["quick"] if args.quick else None)
    except matrix.ConfigError as error:
        sys.stderr.write("bench: %s\n" % error)
        return 2
    log_dir = os.path.join(os.path.dirname(args.out) or ".", "logs")
    os.makedirs(log_dir, exist_ok=True)
    counts = [] if args.no_peer else peer_cpu_counts(entries)
    expected = {}
    if os.path.exists(args.out):
        try:
            expected = {run["config"]: run["wall_seconds"]
                        for run in load_results(args.out)["runs"]}
        except (OSError, ValueError, KeyError, TypeError):
            expected = {}
    progress = Progress((len(entries) * len(seeds) + len(counts)) * args.repeat, expected)
    load_before = os.getloadavg()[0]

    runs, failed, notes, repeats = [], 0, [], []
    for entry in entries:
        for seed in seeds:
            boots = []
            for repeat in range(args.repeat):
                suffix = ("-seed%d" % seed if seed is not None else "") + \
                    ("-%d" % (repeat + 1) if args.repeat > 1 else "")
                progress.begin(entry.name + ("" if seed is None else " seed=%d" % seed))
                run = run_entry(entry, args, os.path.join(log_dir, entry.name + suffix + ".log"),
                                progress.tick, seed=seed)
                progress.end(run)
                for problem in run["problems"]:
                    sys.stderr.write("bench: %s: %s\n" % (entry.name, problem))
                if run.get("unreliable_clock"):
                    notes.append("%s%s: its TSC calibration was unreliable (the log's WARNING "
                                 "says why): no figure in a unit of time is reported from it%s"
                                 % (entry.name, suffix, " (%d refused here)" %
                                    len(run.get("refused")) if run.get("refused") else ""))
                if run["exit"] not in (0, 2) or not run["results"]:
                    failed += 1
                    sys.stderr.write("bench: %s: tools/run exit %d with %d results; log %s\n"
                                     % (entry.name, run["exit"], len(run["results"]),
                                        run["log"]))
                runs.append(run)
                boots.append(run)
            if args.repeatable:
                repeats.append(dict(repeatability(boots), config=entry.name, seed=seed,
                                    emulator=boots[0]["emulator"]))
    if counts:
        note = run_peer(counts, args, log_dir, progress, runs)
        if note:
            notes.append(note)
    elif not args.no_peer:
        notes.append("Linux peer not booted: no section of group 'bringup' was selected")

    command = "tools/bench " + " ".join(argv if argv is not None else sys.argv[1:])
    report = {"format": BENCH_FORMAT_VERSION,
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "command": command.strip(), "wall_seconds": round(time.monotonic() -
                                                                progress.started, 1),
              "host": dict(host_description(), load_before=round(load_before, 2),
                           load_after=round(os.getloadavg()[0], 2)),
              "notes": notes,
              "quoted": [dict(q, label="quoted", source=QUOTED_SOURCE) for q in QUOTED],
              "runs": runs}
    if repeats:
        report["repeatability"] = repeats
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(report, out, indent=1)
    spread = seed_spread_table(report)
    render_text(build_tables(report) + ([spread] if spread else []) + [quoted_table()],
                sys.stdout)
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
    from . import plot      # plot imports this module: import it when used
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
