# SPDX-License-Identifier: MIT
"""The BENCH records and what is made of them: tools/bench's results model.

A boot's serial log holds one `# BENCH {json}` line per figure (format
version BENCH_FORMAT_VERSION; docs/ktap.md and docs/measurements.md say
what the keys mean) and `# BENCH-PHASE begin|end NAME` marks around the
phases whose host CPU tools/bench samples.  This module reads those lines,
checks the records, names each figure (benchmark, variant, vCPUs), builds the
tables tools/bench prints and tools/plot draws, compares two results files
against their noise, and reads results files back.  It boots nothing: the
running is tools/bench's (bench.py), the drawing tools/plot's (plot.py), and
both import this module, never each other's internals.
"""
import itertools
import json
import math
import re
import statistics

from .peer_timing import HOST_OBSERVED


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
# The peers booted beside trigos (tools/peer), as their runs and records name them.
PEERS = ("linux", "kvm-unit-tests")
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
        if any(row[1].split(" ")[0] in PEERS for row in rows):
            # Beside the peer's rows, an unlabelled row is trigos's own.
            for row in rows:
                row[1] = "trigos" if row[1] == "-" else row[1]
        tables.append((title, header + ["%s vCPU" % column for column in columns], rows))
    return tables


# --- trigos against kvm-unit-tests ----------------------------------------------

KUT = "kvm-unit-tests"
WALL = None     # a pairing's figure name for the whole QEMU run's wall time
# How a run's wall time was taken (its "timed" key): from QEMU's start to its exit,
# as the peers' are (tools/bench starts QEMU), or around tools/run (older files too).
TIMED_QEMU = "QEMU start to exit"
TIMED_RUN = "tools/run"
ANY_CLOCK = object()
# (family, trigos figure, kvm-unit-tests figure, what the ratio compares).  The
# halted round trip's mean is vmexit `ipi`'s own statistic (tests/bench_ipi.c);
# the p50 rows set trigos's per-boot median beside that mean.  A figure named
# (name, clock) is that clock's: AP bring-up is paired host-observed on both
# sides (tools/bench starts trigos's bring-up QEMU itself and stamps its two
# bring-up lines as it stamps the peer's), never trigos's TSC against the host.
PEER_PAIRS = (
    ("ipi-call-stop", "ipi_unicast_round_trip_halted_mean", "vmexit_ipi",
     "IPI round trip to a halted CPU, mean over >= 2^30 cycles, / vmexit ipi"),
    ("ipi-call-stop", "ipi_unicast_round_trip_halted", "vmexit_ipi",
     "IPI round trip to a halted CPU, p50, / vmexit ipi"),
    ("ipi-call-stop", "call_single_wait_halted", "vmexit_ipi",
     "smp_call_function_single, wait, halted target, p50, / vmexit ipi"),
    ("bringup", ("ap_bringup", HOST_OBSERVED), ("ap_bringup", HOST_OBSERVED),
     "AP bring-up, host-observed: line before the first INIT to the last AP's online line"),
    ("bringup", WALL, WALL, "whole QEMU run, bring-up-only boot / smptest"),
)


def _boot_values(report, family, name, peer):
    """{vCPUs: [value of @name per boot, in boot order]} of @peer's runs (None: trigos's).
    A boot of a section that gave the figure in another boot keeps its place as None, so
    that boot i still pairs with boot i; sections that never give it (vmexit ipi_halt for
    vmexit ipi's figure) are left out."""
    name_only, clock = name if isinstance(name, tuple) else (name, ANY_CLOCK)
    boots = []
    for run in report.get("runs", []):
        run_peer = run.get("peer")
        if run_peer != peer or run_family(run)[0] != family:
            continue
        if run_peer is None and run_family(run)[1]:
            continue    # trigos's variant sections (bringup-8cpu-sdm) are no pair
        if name is WALL:
            value = run.get("wall_seconds")
        else:
            value = next((headline(record) for record in run.get("results", [])
                          if record.get("name") == name_only
                          and clock in (ANY_CLOCK, record.get("clock"))
                          and headline(record) is not None), None)
        boots.append((run_vcpus(run), run.get("config"),
                      value if isinstance(value, (int, float)) else None))
    giving = {config for _, config, value in boots if value is not None}
    values = {}
    for vcpus, config, value in boots:
        if config in giving:
            values.setdefault(vcpus, []).append(value)
    return values


def _wall_label(report, family, vcpus, what):
    """@what, saying how trigos's whole runs were timed: from QEMU's start to its exit as
    the peer's (tools/bench starts QEMU), or through tools/run (older results files)."""
    timed = {run.get("timed", TIMED_RUN) for run in report.get("runs", [])
             if run.get("peer") is None and run_family(run)[0] == family
             and not run_family(run)[1]
             and run_vcpus(run) == vcpus}
    return what + (", both " + TIMED_QEMU if timed == {TIMED_QEMU} else
                   ", trigos's through tools/run (a Python start more)")


def _median_present(values):
    return statistics.median(value for value in values if value is not None)


def peer_ratio_table(report):
    """(title, header, rows): trigos / kvm-unit-tests per figure and vCPU count, the median
    of the per-boot ratios (boot i of trigos against boot i of the peer: tools/bench
    interleaves them) and their range; None when no kvm-unit-tests figure was measured."""
    rows = []
    for family, ours, theirs, what in PEER_PAIRS:
        mine, peer = _boot_values(report, family, ours, None), \
            _boot_values(report, family, theirs, KUT)
        for vcpus in sorted(set(mine) & set(peer), key=lambda count: count or 0):
            # 0 on either side: a host-observed span whose two lines came in one read of
            # QEMU's output, below the host's resolution: no ratio, on either side alike.
            ratios = [a / b for a, b in zip(mine[vcpus], peer[vcpus]) if a and b]
            if not ratios:
                continue
            rows.append([_wall_label(report, family, vcpus, what) if ours is WALL else what,
                         str(vcpus), number(_median_present(mine[vcpus])),
                         number(_median_present(peer[vcpus])),
                         "%.2f [%.2f-%.2f]" % (statistics.median(ratios), min(ratios),
                                               max(ratios)),
                         str(len(ratios))])
    if not rows:
        return None
    return ("trigos / kvm-unit-tests, same run, boots interleaved: median of the per-boot "
            "ratios [range]; < 1 is trigos ahead",
            ["figure", "vCPUs", "trigos", KUT, "ratio", "boots"], rows)


def sign_test(higher, lower):
    """Two-sided sign test: the probability of a split at least as uneven as @higher
    against @lower pairs if either side were equally likely to be the higher (ties left
    out by the caller)."""
    pairs = higher + lower
    if not pairs:
        return 1.0
    tail = sum(math.comb(pairs, i) for i in range(min(higher, lower) + 1))
    return min(1.0, 2 * tail / 2 ** pairs)


SIGN_TEST_LEVEL = 0.05


def _per_boot_figures(runs):
    """[(config, seed, {figure key: headline})] per boot of @runs, in boot order."""
    return [(run.get("config"), run.get("seed"),
             {figure_key(run, record): headline(record) for record in run.get("results", [])
              if headline(record) is not None})
            for run in runs]


def against_table(report):
    """(title, header, rows): this build / the --against build, per figure the median of
    the per-pair ratios (boot i of a section with this build against boot i with that
    one: tools/bench boots them one after the other), their range, and a sign test; None
    when nothing was paired.  Every headline figure is a time or a count of cycles, so
    "worse" is a ratio above 1."""
    against = report.get("against") or {}
    mine = _per_boot_figures(report.get("runs", []))
    theirs = _per_boot_figures(against.get("runs", []))
    queues = {}
    for config, seed, figures in theirs:
        queues.setdefault((config, seed), []).append(figures)
    pairs = {}
    for config, seed, figures in mine:
        queue = queues.get((config, seed))
        if not queue:
            continue
        other = queue.pop(0)
        for key, value in figures.items():
            if key in other and other[key]:
                pairs.setdefault(key, []).append((value, other[key]))
    rows = []
    for key in sorted(pairs, key=lambda k: (k[0], k[1], k[2], cpu_order(k[4]))):
        ratios = [new / old for new, old in pairs[key]]
        higher = sum(1 for ratio in ratios if ratio > 1)
        lower = sum(1 for ratio in ratios if ratio < 1)
        chance = sign_test(higher, lower)
        middle = statistics.median(ratios)
        verdict = "within noise" if chance >= SIGN_TEST_LEVEL else \
            "worse" if middle > 1 else "better"
        rows.append([key[0], key[1], key[2], key[4], key[3],
                     number(statistics.median(new for new, _ in pairs[key])),
                     number(statistics.median(old for _, old in pairs[key])),
                     "%.3f [%.3f-%.3f]" % (middle, min(ratios), max(ratios)),
                     "%d of %d" % (higher, len(ratios)), "%.3f" % chance, verdict])
    if not rows:
        return None
    return ("this build / %s, same run, boots paired: median of the per-pair ratios [range]; "
            "'higher': pairs where this build's figure was the higher; p: two-sided sign "
            "test; 'worse' or 'better' only when p < %.2f" % (against.get("build", "against"),
                                                             SIGN_TEST_LEVEL),
            ["family", "benchmark", "variant", "vCPU", "unit", "this", "against", "ratio",
             "higher", "p", "verdict"], rows)


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




def load_results(path):
    with open(path, encoding="utf-8") as results:
        report = json.load(results)
    if not isinstance(report, dict) or not isinstance(report.get("runs"), list):
        raise ValueError("not a tools/bench results file (no \"runs\" list)")
    return report
