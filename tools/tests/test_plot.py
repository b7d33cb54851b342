"""Tests of tools/plot: chart data, gnuplot scripts and the Markdown report."""
import os
import shutil
import tempfile
import unittest

from trigos import plot


def wake(name, p50):
    return {"name": name, "cpus": 2, "unit": "ns", "n": 40, "min": p50 - 10, "p50": p50,
            "p90": p50 + 10, "p99": p50 + 20, "max": p50 + 30}


def run(config, cpus, results, **extra):
    entry = {"config": config, "run": "--boot kernel --cpus %d" % cpus, "exit": 0,
             "wall_seconds": 1.0, "header": {"name": "header", "cpus": cpus, "tsc_hz": 2245747539,
                                            "tsc_source": "HPET", "cpu_model": "QEMU TCG CPU",
                                            "hypervisor": "TCGTCGTCGTCG",
                                            "trigger_backend": "adaptive"},
             "results": results}
    entry.update(extra)
    return entry


REPORT = {
    "date": "2026-12-03T18:00:00+00:00", "command": "tools/bench --quick", "wall_seconds": 47.0,
    "host": {"cores": 2, "cpu_model": "AMD EPYC", "system": "Linux-6.1", "qemu": "QEMU 7.2.0",
             "load_before": 0.5, "load_after": 2.1},
    "notes": [],
    "quoted": [{"what": "kvm-unit-tests vmexit: IPI round trip", "figure": "4.5-6.5 k",
                "unit": "TSC cycles", "label": "quoted", "source": "a side-by-side measurement"}],
    "runs": [
        run("trigger-2cpu", 2, [wake("trigger_wake_short_spin", 300),
                                wake("trigger_wake_short_hlt", 9000),
                                wake("trigger_wake_long_spin", 400),
                                {"name": "host_cpu_idle_spin", "cpus": 2, "unit": "%",
                                 "value": 99.5},
                                {"name": "host_cpu_idle_hlt", "cpus": 2, "unit": "%",
                                 "value": 0.5}]),
        # As the kernel reports them (ns, the backend in its own key); plotted in us.
        run("trigger-users-2cpu", 2, [dict(wake("stop_machine", 10000), backend="spin"),
                                      dict(wake("stop_machine", 11000), backend="hlt")]),
        run("trigger-users-8cpu", 8, [dict(wake("stop_machine", 55000000), backend="spin",
                                           cpus=8)]),
        run("bringup-8cpu", 8, [{"name": "ap_bringup", "cpus": 8, "unit": "us", "value": 1100},
                                {"name": "ap_bringup", "cpus": 8, "unit": "us", "value": 1500,
                                 "clock": "host-observed"}]),
        run("bringup-2cpu", 2, [{"name": "ap_bringup", "cpus": 2, "unit": "us", "value": 400}]),
        run("linux-8cpu", 8, [{"name": "ap_bringup", "cpus": 8, "unit": "us", "value": 1130000,
                               "peer": "linux", "clock": "guest printk"}],
            family="bringup", peer="linux",
            header={"peer": "linux", "kernel_release": "6.1.0-57-cloud-amd64",
                    "packages": ["linux-image-6.1.0-57-cloud-amd64_6.1.192-3_amd64.deb"],
                    "memory_mb": 512}),
    ]}


class Charts(unittest.TestCase):
    def chart(self, name):
        return {chart.name: chart for chart in plot.charts(REPORT)}[name]

    def test_every_chart_is_made_from_the_results(self):
        self.assertEqual([chart.name for chart in plot.charts(REPORT)],
                         ["wake_latency", "host_cpu", "stop_machine", "bringup"])
        self.assertEqual(plot.charts({"runs": []}), [])

    def test_wake_latency_rows_follow_the_backend_order(self):
        chart = self.chart("wake_latency")
        rows = chart.data.splitlines()[1:]
        self.assertEqual(rows, ['1 "spin short" 290 300 310 320 330',
                                '2 "hlt short" 8990 9000 9010 9020 9030',
                                '4 "spin long" 390 400 410 420 430'])
        self.assertIn("using 1:4:3:6:5:xtic(2) with candlesticks", chart.script)
        self.assertIn("set xrange [0.3:4.7]", chart.script)

    def test_figures_simulated_under_bochs_are_not_charted(self):
        bochs_run = run("bochs-trigger-2cpu", 2, [dict(wake("trigger_wake_short_spin", 1099),
                                                       simulated=True)],
                        emulator="bochs", simulated="simulated under Bochs 2.7")
        report = dict(REPORT, runs=REPORT["runs"] + [bochs_run])
        chart = {chart.name: chart for chart in plot.charts(report)}["wake_latency"]
        self.assertEqual(chart.data, self.chart("wake_latency").data)

    def test_scripts_draw_png_and_svg(self):
        for chart in plot.charts(REPORT):
            script = chart.script
            self.assertIn('set output "%s.png"' % chart.name, script)
            self.assertIn('set output "%s.svg"' % chart.name, script)
            self.assertEqual(script.count("\nplot "), 2, chart.name)
            self.assertNotIn("PLOT", script)

    def test_host_cpu_bars_and_overcommit_axis(self):
        self.assertEqual(self.chart("host_cpu").data.splitlines()[1:],
                         ['"spin" 99.5', '"hlt" 0.50'])
        stop = self.chart("stop_machine")
        self.assertEqual(stop.data.splitlines()[1:], ["2 10.0 11.0", "8 55000 NaN"])
        self.assertIn('set xtics ("2 (1x)" 2, "8 (4x)" 8)', stop.script)

    def test_bringup_beside_linux_in_ms(self):
        chart = self.chart("bringup")
        self.assertEqual(chart.data.splitlines(),
                         ["# vcpus linux_guest_printk trigos trigos_host-observed",
                          "2 NaN 0.40 NaN", "8 1130 1.10 1.50"])
        self.assertIn('title "linux guest printk"', chart.script)
        self.assertIn('title "trigos host-observed"', chart.script)

    def test_gnuplot_draws_them(self):
        if not shutil.which("gnuplot"):
            self.skipTest("gnuplot not installed (Debian package gnuplot-nox; make deps)")
        with tempfile.TemporaryDirectory() as directory:
            self.assertEqual(plot.draw(plot.charts(REPORT), directory), [])
            for name in ("wake_latency", "host_cpu", "stop_machine", "bringup"):
                for suffix in (".png", ".svg", ".dat", ".gp"):
                    self.assertGreater(os.path.getsize(os.path.join(directory, name + suffix)), 0)


class Report(unittest.TestCase):
    def test_report_has_machine_command_tables_links_and_quoted_figures(self):
        text = plot.report_markdown(REPORT, plot.charts(REPORT), "plots", [])
        self.assertTrue(text.startswith("# trigos benchmarks, 2026-12-03T18:00:00+00:00\n"))
        self.assertIn("- command: `tools/bench --quick` (47.0 s wall)", text)
        self.assertIn("AMD EPYC, 2 cores", text)
        self.assertIn("TSC 2245.7 MHz (from HPET)", text)
        self.assertIn("before / after the run: 0.5 / 2.1", text)
        self.assertIn("Linux peer: Debian 6.1.0-57-cloud-amd64", text)
        self.assertIn("| ap_bringup | linux guest printk | us |", text)
        self.assertIn("| ap_bringup | trigos | us | 400 | 1100 |", text)
        self.assertIn("(plots/bringup.svg) ([PNG](plots/bringup.png))", text)
        self.assertIn("| kvm-unit-tests vmexit: IPI round trip | 4.5-6.5 k | TSC cycles | "
                      "quoted from a side-by-side measurement |", text)

    def test_report_says_why_charts_are_missing_and_shows_notes(self):
        report = dict(REPORT, notes=["Linux peer not measured: apt-get download failed"])
        text = plot.report_markdown(report, [], "plots", ["gnuplot not found"])
        self.assertIn("Charts not drawn: gnuplot not found", text)
        self.assertIn("**Note:** Linux peer not measured: apt-get download failed", text)


if __name__ == "__main__":
    unittest.main()
