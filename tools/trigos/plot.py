#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Charts (gnuplot, PNG and SVG) and a Markdown report from a tools/bench results file.

  tools/plot [--out-dir DIR] [--report FILE] [RESULTS]

RESULTS defaults to build/bench/results.json; the charts go to DIR
(default: a "plots" directory beside RESULTS), each as NAME.png and NAME.svg
with the NAME.dat and NAME.gp they were drawn from:

  wake_latency    trigger wake latency per backend (box p50..p90, whiskers
                  min..p99, a cross at max), short and long waits, fewest vCPUs
  host_cpu        QEMU's host CPU while the APs wait, per backend and vCPUs
  stop_machine    stop_machine latency (p50) per backend against vCPUs; the
                  axis says the overcommit (vCPUs per host core)
  bringup         AP bring-up time against vCPUs, trigos beside Linux

--report FILE writes a Markdown report: machine, date, command, the tables,
links to the charts, and the quoted figures labelled as such.  Without gnuplot
(Debian package gnuplot-nox) the charts are skipped and the report says so.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys

from . import bench_results


class Chart:
    """One chart: its data file text and its gnuplot script (both pure text)."""

    def __init__(self, name, title, data, script):
        self.name, self.title, self.data, self.script = name, title, data, script


def _figures(report, family=None, name=None):
    """{(label, vcpus int): [records]} of one benchmark from collect_figures().

    Figures simulated under Bochs (counts of simulated instructions) are left
    out: the charts show what the host measured; the report's tables have them.
    """
    chosen = {}
    for key, records in bench_results.collect_figures(report).items():
        records = [record for record in records if not record.get("simulated")]
        if records and (family is None or key[0] == family) and key[1] == name and \
                key[4].isdigit():
            chosen.setdefault((key[2], int(key[4])), []).extend(records)
    return chosen


def _median(records, field):
    values = [record[field] for record in records if field in record]
    return statistics.median(values) if values else None


def _quote(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def backend_order(label):
    """Sort key: trigger backends in their README order, anything else after, by name."""
    order = bench_results.TRIGGER_BACKENDS
    return (order.index(label) if label in order else len(order), label)


def _outputs(name, width=800, height=480):
    """gnuplot lines that draw the plot commands in @name.png and @name.svg."""
    return ("set terminal pngcairo size %d,%d noenhanced\nset output %s\nPLOT\n"
            "set terminal svg size %d,%d noenhanced\nset output %s\nPLOT\n"
            % (width, height, _quote(name + ".png"), width, height, _quote(name + ".svg")))


def _script(name, title, settings, plot):
    return ("# gnuplot script written by tools/plot from %s.dat\n" % name +
            "set title %s\n" % _quote(title) + settings +
            _outputs(name).replace("PLOT", plot))


def wake_latency_chart(report):
    figures = {}
    for workload in ("trigger_wake_short", "trigger_wake_long"):
        for (label, vcpus), records in _figures(report, None, workload).items():
            figures.setdefault(vcpus, {})[(workload, label)] = records
    if not figures:
        return None
    vcpus = min(figures)
    rows, position = [], 0
    for workload in ("trigger_wake_short", "trigger_wake_long"):
        position += 1
        order = lambda item: (bench_results.TRIGGER_BACKENDS + (item[0][1],)).index(item[0][1])
        for (name, label), records in sorted(figures[vcpus].items(), key=order):
            if name != workload:
                continue
            fields = [_median(records, field) for field in ("min", "p50", "p90", "p99", "max")]
            if None in fields:
                continue
            rows.append("%d %s %s\n" % (position, _quote("%s %s" % (label, workload[13:])),
                                        " ".join(bench_results.number(value) for value in fields)))
            position += 1
    if not rows:
        return None
    data = "# x label min p50 p90 p99 max (ns)\n" + "".join(rows)
    title = ("trigger wake latency per backend, %d vCPUs (ns; box p50..p90, whiskers min..p99, "
             "x max)" % vcpus)
    settings = ("set logscale y\nset ylabel \"ns\"\nset boxwidth 0.6\nset xtics rotate by -30\n"
                "set key off\nset grid ytics\nset xrange [0.3:%d.7]\n" % (position - 1))
    plot = ("plot 'wake_latency.dat' using 1:4:3:6:5:xtic(2) with candlesticks whiskerbars, "
            "'' using 1:7 with points pointtype 2")
    return Chart("wake_latency", title, data, _script("wake_latency", title, settings, plot))


def host_cpu_chart(report):
    figures = _figures(report, None, "host_cpu_idle")
    if not figures:
        return None
    backends = sorted({label for label, _ in figures}, key=backend_order)
    counts = sorted({vcpus for _, vcpus in figures})
    lines = ["# backend " + " ".join("%dvcpu" % count for count in counts) + " (% of a host CPU)\n"]
    for backend in backends:
        values = [figures.get((backend, count)) for count in counts]
        cells = (bench_results.number(_median(records, "value")) if records else "NaN"
                 for records in values)
        lines.append(_quote(backend) + " " + " ".join(cells) + "\n")
    title = "host CPU of QEMU while the APs wait, per backend (% of one host core)"
    settings = ("set style data histograms\nset style fill solid 0.6 border -1\n"
                "set yrange [0:*]\nset ylabel \"% of one host core\"\nset grid ytics\n"
                "set key outside right top\n")
    plot = "plot " + ", ".join(
        "'host_cpu.dat' using %d:xtic(1) title %s" % (index + 2, _quote("%d vCPUs" % count))
        for index, count in enumerate(counts))
    return Chart("host_cpu", title, "".join(lines), _script("host_cpu", title, settings, plot))


def _overcommit_tics(counts, cores):
    if not cores:
        return ""
    return "set xtics (%s)\n" % ", ".join(
        '"%d (%gx)" %d' % (count, round(count / cores, 2), count) for count in counts)


def series_chart(name, title, ylabel, series, cores):
    """Lines against vCPUs: @series is {label: {vcpus: value}}."""
    counts = sorted({count for values in series.values() for count in values})
    labels = sorted(series, key=backend_order)
    lines = ["# vcpus " + " ".join(label.replace(" ", "_") for label in labels) + "\n"]
    for count in counts:
        lines.append("%d " % count + " ".join(
            bench_results.number(series[label][count]) if count in series[label] else "NaN"
            for label in labels) + "\n")
    # A margin either side: gnuplot drops a tic that rounding puts just outside.
    settings = ("set xrange [%g:%g]\n" % (counts[0] / 1.3, counts[-1] * 1.3) +
                "set logscale y\nset logscale x 2\nset xlabel \"vCPUs (overcommit: vCPUs per "
                "host core)\"\nset ylabel %s\nset grid\nset key left top\n" % _quote(ylabel) +
                _overcommit_tics(counts, cores))
    plot = "plot " + ", ".join("'%s.dat' using 1:%d with linespoints title %s"
                               % (name, index + 2, _quote(label))
                               for index, label in enumerate(labels))
    return Chart(name, title, "".join(lines), _script(name, title, settings, plot))


# How many of each time unit make a microsecond.
PER_MICROSECOND = {"ns": 1000.0, "us": 1.0, "ms": 0.001}


def stop_machine_chart(report):
    figures = _figures(report, None, "stop_machine")
    series = {}
    for (label, vcpus), records in figures.items():
        records = [record for record in records if record.get("unit") in PER_MICROSECOND]
        if records:
            series.setdefault(label, {})[vcpus] = bench_results.median_headline(
                [dict(record, p50=record["p50"] / PER_MICROSECOND[record["unit"]])
                 for record in records])
    if not series:
        return None
    title = "stop_machine latency (p50, us) per trigger backend against vCPUs"
    return series_chart("stop_machine", title, "us", series, report.get("host", {}).get("cores"))


def bringup_chart(report):
    figures = _figures(report, "bringup", "ap_bringup")
    series = {}
    for (label, vcpus), records in figures.items():
        # A label without a peer's name is trigos's: its own TSC figure ("-") or its
        # host-observed one (tools/bench stamps its bring-up lines as the peers').
        if label == "-":
            name = "trigos"
        elif label.split()[0] in bench_results.PEERS:
            name = label
        else:
            name = "trigos " + label
        series.setdefault(name, {})[vcpus] = bench_results.median_headline(records) / 1000.0
    if not series:
        return None
    title = ("AP bring-up (first INIT to all online) against vCPUs, trigos beside its peers "
             "(ms)")
    return series_chart("bringup", title, "ms", series, report.get("host", {}).get("cores"))


CHARTS = (wake_latency_chart, host_cpu_chart, stop_machine_chart, bringup_chart)


def charts(report):
    return [chart for chart in (make(report) for make in CHARTS) if chart]


def draw(chart_list, out_dir, gnuplot="gnuplot"):
    """Write each chart's .dat and .gp to @out_dir and run gnuplot; return the problems."""
    os.makedirs(out_dir, exist_ok=True)
    problems = []
    for chart in chart_list:
        with open(os.path.join(out_dir, chart.name + ".dat"), "w") as data:
            data.write(chart.data)
        with open(os.path.join(out_dir, chart.name + ".gp"), "w") as script:
            script.write(chart.script)
        done = subprocess.run([gnuplot, chart.name + ".gp"], cwd=out_dir, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
        if done.returncode != 0:
            problems.append("%s: gnuplot failed: %s" % (chart.name, done.stdout.strip()[-300:]))
    return problems


def machine_lines(report):
    host = report.get("host", {})
    lines = ["- host: %s, %s cores, %s" % (host.get("cpu_model", "?"), host.get("cores", "?"),
                                          host.get("system", "?")),
             "- emulator: %s, TCG, -cpu max" % host.get("qemu", "?")]
    if "load_before" in host:
        lines.append("- host load average (1 min) before / after the run: %s / %s (other work "
                     "on the host slows the guests and skews every figure)"
                     % (host["load_before"], host.get("load_after", "?")))
    headers = [run["header"] for run in report.get("runs", []) if run.get("header")]
    trigos = next((header for header in headers if "tsc_hz" in header), None)
    if trigos:
        lines.append("- guest (trigos header): %s, hypervisor %s, TSC %.1f MHz (from %s), "
                     "default trigger backend %s"
                     % (trigos.get("cpu_model"), trigos.get("hypervisor"),
                        trigos.get("tsc_hz", 0) / 1e6, trigos.get("tsc_source"),
                        trigos.get("trigger_backend")))
    linux = next((header for header in headers if header.get("peer") == "linux"), None)
    if linux:
        lines.append("- Linux peer: Debian %s (%s), busybox initramfs, %s MB"
                     % (linux.get("kernel_release"), ", ".join(linux.get("packages", [])),
                        linux.get("memory_mb")))
    kut = next((header for header in headers if header.get("peer") == "kvm-unit-tests"), None)
    if kut:
        lines.append("- kvm-unit-tests peer: commit %s, built from %s, %s MB; timed by the host's "
                     "arrival times of its serial lines, and its own vmexit figures"
                     % (kut.get("commit") or "unknown", kut.get("source"), kut.get("memory_mb")))
    return lines


def report_markdown(report, chart_list, plot_dir_link, plot_problems):
    """The Markdown report as text."""
    parts = ["# trigos benchmarks, %s" % report.get("date", "undated"), ""]
    parts += ["- command: `%s` (%s s wall)" % (report.get("command", "tools/bench"),
                                               report.get("wall_seconds", "?"))]
    parts += machine_lines(report) + [""]
    parts += ["Figures are medians (p50) with p99 in brackets, or single values; \"xN\" = "
              "median of N runs. Columns are vCPUs; the host has %s cores, so more vCPUs than "
              "that is overcommit. Benchmarks measure, they do not pass or fail." %
              report.get("host", {}).get("cores", "?"), ""]
    for note in report.get("notes", []):
        parts += ["**Note:** %s" % note, ""]
    ratios = bench_results.peer_ratio_table(report)
    parts += [bench_results.render_markdown(([ratios] if ratios else []) +
                                            bench_results.build_tables(report))]
    parts += ["## Charts", ""]
    if chart_list and not plot_problems:
        for chart in chart_list:
            parts.append("- [%s](%s/%s.svg) ([PNG](%s/%s.png))" % (
                chart.title, plot_dir_link, chart.name, plot_dir_link, chart.name))
    else:
        parts.append("Charts not drawn: %s" % ("; ".join(plot_problems) or "no figures to chart"))
    parts += ["", "## Quoted, not measured in this run", ""]
    quoted = report.get("quoted") or []
    if quoted:
        parts += ["| figure | value | unit | source |", "|---|---|---|---|"]
        parts += ["| %s | %s | %s | quoted from %s |" % (q["what"], q["figure"], q["unit"],
                                                        q.get("source", "?")) for q in quoted]
    else:
        parts.append("(none)")
    return "\n".join(parts) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="?",
                        default=os.path.join("build", "bench", "results.json"))
    parser.add_argument("--out-dir", help="where the charts go (default: plots/ beside RESULTS)")
    parser.add_argument("--report", metavar="FILE", help="also write a Markdown report")
    args = parser.parse_args(argv)
    try:
        report = bench_results.load_results(args.results)
    except (OSError, ValueError) as error:
        sys.stderr.write("plot: %s: %s\n" % (args.results, error))
        return 2
    out_dir = args.out_dir or os.path.join(os.path.dirname(args.results) or ".", "plots")
    chart_list = charts(report)
    if shutil.which("gnuplot"):
        problems = draw(chart_list, out_dir)
    else:
        problems = ["gnuplot not found (Debian package gnuplot-nox; `make deps`)"]
    for problem in problems:
        sys.stderr.write("plot: %s\n" % problem)
    if not problems:
        sys.stderr.write("plot: %d charts in %s\n" % (len(chart_list), out_dir))
    if args.report:
        link = os.path.relpath(out_dir, os.path.dirname(os.path.abspath(args.report)))
        with open(args.report, "w", encoding="utf-8") as out:
            out.write(report_markdown(report, chart_list, link, problems))
        sys.stderr.write("plot: report written to %s\n" % args.report)
    return 1 if problems else 0
