"""Tests of tools/bench: BENCH-line parsing, naming, tables and --compare (no QEMU needed)."""
import io
import os
import re
import shutil
import sys
import tempfile
import unittest
from unittest import mock

from trigos import bench, bench_results, matrix


def distribution(name, p50, p90, cpus=2, **extra):
    record = {"v": 1, "name": name, "cpus": cpus, "unit": "ns", "n": 100, "min": p50 // 2,
              "p50": p50, "p90": p90, "p99": p90 * 2, "max": p90 * 3}
    record.update(extra)
    return record


def run(config, results, cpus=2, wall=1.5, **extra):
    entry = {"config": config, "run": "--boot kernel --cpus %d" % cpus, "exit": 0,
             "wall_seconds": wall, "header": {"name": "header", "cpus": cpus},
             "results": results}
    entry.update(extra)
    return entry


class ParseBenchLines(unittest.TestCase):
    def test_value_and_distribution_records(self):
        lines = [
            "    # BENCH {\"v\":1,\"name\":\"ap_bringup\",\"cpus\":8,\"unit\":\"us\","
            "\"value\":812}\r\n",
            "# BENCH {\"v\":1,\"name\":\"ipi\",\"cpus\":2,\"unit\":\"cycles\",\"n\":3,"
            "\"min\":1,\"p50\":2,\"p90\":3,\"p99\":3,\"max\":3}\n",
            "    ok 1 something\n",
        ]
        results, problems = bench_results.parse_bench_lines(lines)
        self.assertEqual(problems, [])
        self.assertEqual([r["name"] for r in results], ["ap_bringup", "ipi"])
        self.assertEqual(results[0]["value"], 812)
        self.assertEqual(results[1]["p50"], 2)
        self.assertEqual(bench_results.figure(results[1]), "p50 2  p99 3  (n=3)")
        self.assertEqual(bench_results.figure(results[0]), "812")

    def test_new_optional_keys_and_unknown_keys_are_kept(self):
        line = ("    # BENCH {\"v\":1,\"name\":\"trigger_wake_short_spin\",\"backend\":\"spin\","
                "\"cpus\":2,\"unit\":\"ns\",\"n\":400,\"min\":100,\"p50\":300,\"p90\":400,"
                "\"p99\":900,\"max\":5000,\"outliers\":3,\"overhead\":24,\"warmup\":10,"
                "\"future_key\":{\"nested\":[1,2]}}\n")
        results, problems = bench_results.parse_bench_lines([line])
        self.assertEqual(problems, [])
        self.assertEqual(results[0]["outliers"], 3)
        self.assertEqual(results[0]["overhead"], 24)
        self.assertEqual(results[0]["future_key"], {"nested": [1, 2]})
        self.assertEqual(bench_results.benchmark_and_variant(results[0]),
                         ("trigger_wake_short", {"backend": "spin"}))

    def test_header_record_needs_no_figure(self):
        line = ("# BENCH {\"v\":1,\"name\":\"header\",\"unit\":\"info\",\"cpus\":2,"
                "\"tsc_hz\":2245747539,\"tsc_source\":\"HPET\"}\n")
        results, problems = bench_results.parse_bench_lines([line])
        self.assertEqual((len(results), problems), (1, []))

    def test_an_unreliable_clock_keeps_cycles_and_refuses_times(self):
        lines = [
            "# BENCH {\"v\":1,\"name\":\"header\",\"unit\":\"info\",\"cpus\":2,"
            "\"tsc_hz\":3333329294,\"tsc_source\":\"HPET\",\"unreliable_clock\":true}\n",
            "# BENCH {\"v\":1,\"name\":\"ap_bringup\",\"cpus\":2,\"unit\":\"us\","
            "\"value\":432}\n",
            "# BENCH {\"v\":1,\"name\":\"ipi\",\"cpus\":2,\"unit\":\"cycles\",\"n\":3,"
            "\"min\":1,\"p50\":2,\"p90\":3,\"p99\":3,\"max\":3}\n",
        ]
        results, problems = bench_results.parse_bench_lines(lines)
        self.assertEqual(problems, [])
        header, figures = results[0], results[1:]
        kept, refused = bench_results.refuse_unreliable_times(header, figures)
        self.assertEqual([r["name"] for r in kept], ["ipi"])
        self.assertEqual(refused, ["ap_bringup"])
        header["unreliable_clock"] = False
        self.assertEqual(bench_results.refuse_unreliable_times(header, figures), (figures, []))
        self.assertEqual(bench_results.refuse_unreliable_times(None, figures), (figures, []))

    def test_broken_records_are_reported_not_raised(self):
        lines = [
            "# BENCH {\"v\":1,\"name\":\"x\",\"unit\":\"us\",\"value\":\n",   # truncated JSON
            "# BENCH not json at all\n",
            "# BENCH {\"v\":1,\"unit\":\"us\",\"value\":3}\n",                 # no name
            "# BENCH {\"v\":2,\"name\":\"future\",\"unit\":\"us\",\"value\":3}\n",
            "# BENCH [1, 2]\n",
            "\x00\xff garbage # BENCH\n",
            "# BENCH {\"v\":1,\"name\":\"x\",\"unit\":\"ns\",\"p50\":\"fast\"}\n",
            "# BENCH {\"v\":1,\"name\":\"x\",\"unit\":\"ns\",\"value\":true}\n",
            "# BENCH {\"v\":1,\"name\":\"x\",\"unit\":\"ns\",\"value\":1,\"backend\":7}\n",
            "# BENCH {\"v\":1,\"name\":\"x\",\"unit\":\"ns\",\"n\":4}\n",        # no figure
            "# BENCH {\"v\":1,\"name\":\"x\",\"unit\":\"ns\",\"value\":1,\"outliers\":null}\n",
        ]
        results, problems = bench_results.parse_bench_lines(lines)
        self.assertEqual(results, [])
        self.assertEqual(len(problems), len(lines))
        self.assertIn("line 1", problems[0])
        self.assertIn("version", problems[3])
        self.assertIn("'p50'", problems[6])
        self.assertIn("not a number", problems[7])
        self.assertIn("not a string", problems[8])
        self.assertIn("neither value nor p50", problems[9])
        self.assertIn("'outliers'", problems[10])

    def test_lines_that_only_mention_bench_are_ignored_quietly(self):
        lines = ["# benchmarks follow\n", "KTAP version 1\n",
                 "    # BENCH-PHASE begin idle_spin cpus=2 waiting=1\n"]
        results, problems = bench_results.parse_bench_lines(lines)
        self.assertEqual((results, problems), ([], []))


class Naming(unittest.TestCase):
    def test_backend_suffix_leaves_the_name_but_lookalikes_do_not(self):
        self.assertEqual(bench_results.benchmark_and_variant({"name": "stop_machine_adaptive"}),
                         ("stop_machine", {"backend": "adaptive"}))
        self.assertEqual(bench_results.benchmark_and_variant({"name": "call_single_wait_spinning"}),
                         ("call_single_wait_spinning", {}))
        # An explicit backend wins, and a name without its suffix stays whole.
        self.assertEqual(bench_results.benchmark_and_variant({"name": "wake", "backend": "hlt"}),
                         ("wake", {"backend": "hlt"}))

    def test_config_names(self):
        self.assertEqual(bench_results.split_config_name("spinlock-8cpu-mcs-spinning"),
                         ("spinlock", 8, "mcs-spinning"))
        self.assertEqual(bench_results.split_config_name("ipi-call-stop-2cpu"), ("ipi-call-stop", 2, ""))
        self.assertEqual(bench_results.split_config_name("odd"), ("odd", None, ""))

    def test_figure_key_names_cpus_that_differ_from_the_boot(self):
        entry = run("spinlock-4cpu", [], cpus=4)
        record = {"name": "lock_uncontended", "lock": "mcs", "cpus": 1, "unit": "cycles",
                  "p50": 3}
        self.assertEqual(bench_results.figure_key(entry, record),
                         ("spinlock", "lock_uncontended", "mcs 1 CPU", "cycles", "4"))

    def test_peer_cpu_counts_come_from_bringup_sections(self):
        entries = matrix.parse_config(
            "[bringup-8cpu]\nrun = --boot kernel --cpus 8\ngroups = bringup\n"
            "[bringup-2cpu]\nrun = --boot kernel --cpus 2\ngroups = bringup quick\n"
            "[other-4cpu]\nrun = --boot kernel --cpus 4\ngroups = quick\n", "test.cfg")
        self.assertEqual(bench.peer_cpu_counts(entries), [2, 8])


class Tables(unittest.TestCase):
    def report(self):
        return {"runs": [
            run("trigger-2cpu", [distribution("trigger_wake_short_spin", 300, 400),
                                 distribution("trigger_wake_short_hlt", 9000, 12000)]),
            run("trigger-4cpu", [distribution("trigger_wake_short_spin", 350, 500, cpus=4)],
                cpus=4, wall=3.0),
            run("bringup-8cpu", [{"name": "ap_bringup", "cpus": 8, "unit": "us", "value": 1100}],
                cpus=8, wall=0.25),
            run("linux-8cpu", [{"name": "ap_bringup", "cpus": 8, "unit": "us", "value": 1104276,
                                "peer": "linux", "clock": "guest printk"}],
                cpus=8, wall=6.5, family="bringup", peer="linux", header={"peer": "linux"}),
        ]}

    def test_one_table_per_family_backend_rows_vcpu_columns(self):
        tables = {title.split(":")[0]: (header, rows)
                  for title, header, rows in bench_results.build_tables(self.report())}
        header, rows = tables["trigger"]
        self.assertEqual(header, ["benchmark", "variant", "unit", "2 vCPU", "4 vCPU"])
        self.assertEqual(rows[0], ["trigger_wake_short", "spin", "ns", "300 (p99 800)",
                                   "350 (p99 1000)"])
        self.assertEqual(rows[1], ["trigger_wake_short", "hlt", "ns", "9000 (p99 24000)", ""])
        header, rows = tables["bringup"]
        self.assertEqual([row[1] for row in rows], ["trigos", "linux guest printk"])
        whole = [table for table in bench_results.build_tables(self.report())
                 if table[0].startswith("whole")][0]
        self.assertIn(["bringup", "linux", "s wall", "", "", "6.50"], whole[2])
        self.assertIn(["bringup", "trigos", "s wall", "", "", "0.25"], whole[2])

    def test_text_and_markdown_rendering(self):
        tables = bench_results.build_tables(self.report())
        out = io.StringIO()
        bench_results.render_text(tables, out)
        self.assertIn("trigger_wake_short  spin", out.getvalue())
        markdown = bench_results.render_markdown([("t", ["a", "b"], [["x|y", ""]])])
        self.assertIn("| a | b |\n|---|---|\n| x\\|y |   |", markdown)

    def test_peer_ratios_pair_boot_i_with_boot_i(self):
        def ipi(mean, p50):
            return run("ipi-call-stop-2cpu", [
                {"name": "ipi_unicast_round_trip_halted_mean", "cpus": 2, "unit": "cycles",
                 "value": mean}, distribution("ipi_unicast_round_trip_halted", p50, p50 * 2)])

        def vmexit(value):
            return run("kvm-unit-tests-vmexit-ipi-2cpu", [
                {"name": "vmexit_ipi", "cpus": 2, "unit": "cycles", "value": value,
                 "peer": "kvm-unit-tests", "clock": "its own"}], family="ipi-call-stop",
                peer="kvm-unit-tests")
        report = {"runs": [ipi(50, 20), vmexit(100), ipi(90, 30), vmexit(60), ipi(70, 40),
                           vmexit(70)]}
        title, header, rows = bench_results.peer_ratio_table(report)
        self.assertIn("trigos / kvm-unit-tests", title)
        self.assertEqual(header, ["figure", "vCPUs", "trigos", "kvm-unit-tests", "ratio",
                                  "boots"])
        self.assertEqual(rows[0][1:], ["2", "70", "70", "1.00 [0.50-1.50]", "3"])
        self.assertEqual(rows[1][1:], ["2", "30", "70", "0.50 [0.20-0.57]", "3"])
        self.assertEqual(len(rows), 2)
        self.assertIsNone(bench_results.peer_ratio_table({"runs": [ipi(50, 20)]}))

    def test_peer_ratios_keep_a_boot_without_the_figure_in_its_place(self):
        """A trigos boot that lost a host-observed line still pairs with the peer's boot i."""
        def bringup(observed):
            results = [] if observed is None else [
                {"name": "ap_bringup", "cpus": 2, "unit": "us", "value": observed,
                 "clock": "host-observed"}]
            return run("bringup-2cpu", results + [
                {"name": "ap_bringup", "cpus": 2, "unit": "us", "value": 1}],
                timed="QEMU start to exit")

        def smptest(observed):
            return run("kvm-unit-tests-smptest-2cpu", [
                {"name": "ap_bringup", "cpus": 2, "unit": "us", "value": observed,
                 "peer": "kvm-unit-tests", "clock": "host-observed"}], family="bringup",
                peer="kvm-unit-tests")
        report = {"runs": [bringup(100), smptest(200), bringup(None), smptest(1000),
                           bringup(300), smptest(300), bringup(0), smptest(50),
                           bringup(70), smptest(0)]}
        rows = bench_results.peer_ratio_table(report)[2]
        # Boot 2 has no trigos figure: pairs (100, 200) and (300, 300) only, never 300/1000;
        # a span of 0 (two lines in one read) makes no ratio on either side.
        self.assertEqual(rows[0][1:], ["2", "85.0", "200", "0.75 [0.50-1.00]", "2"])
        self.assertIn("host-observed", rows[0][0])
        # trigos's TSC figure (no clock) is never paired with the peer's host-observed one.
        self.assertNotIn("1", [row[2] for row in rows])
        self.assertIn("both QEMU start to exit", rows[1][0])

    def test_host_observed_bring_up_spans_the_kernels_two_lines(self):
        lines = [(0.30, ""), (0.31, "KTAP version 1"),
                 (0.40, "# smp: sending INIT and STARTUP to 7 APs"),
                 (0.4025, "# smp: all 8 CPUs online, cpu 3 the last"), (0.5, "# RESULT: PASS")]
        records = {record["name"]: record for record in bench.host_observed_records(lines, 8)}
        self.assertEqual(records["qemu_start_to_first_line"]["value"], 310000)
        self.assertEqual(records["ap_bringup"]["value"], 2500)
        self.assertEqual(records["ap_bringup"]["clock"], "host-observed")
        self.assertEqual(records["ap_bringup"]["cpus"], 8)
        self.assertEqual([record["name"] for record in
                          bench.host_observed_records(lines[:3], 8)],
                         ["qemu_start_to_first_line"])

    def test_the_bring_up_lines_are_the_kernels(self):
        """The patterns match what kernel/smp/smp.c prints, numbers put in."""
        with open(os.path.join(os.path.dirname(__file__), "..", "..", "kernel", "smp",
                               "smp.c")) as smp_c:
            source = smp_c.read()
        formats = re.findall(r'ktap_note_now\("([^"]*)"', source)
        self.assertEqual(len(formats), 2)
        printed = ["# " + re.sub(r"%u", "7", text) for text in formats]
        self.assertTrue(bench.BRINGUP_STARTS.match(printed[0]), printed[0])
        self.assertTrue(bench.BRINGUP_ENDS.match(printed[1]), printed[1])

    def test_a_host_timed_boot_that_hangs_or_cannot_start_says_so(self):
        sampler = mock.Mock()
        command = ["qemu-system-x86_64", "-smp", "4"]

        def done(**fields):
            return dict({"lines": [], "exit": 33, "wall_seconds": 0.3, "timed_out": False,
                         "errors": "", "problems": []}, **fields)
        with mock.patch.object(bench.peer_timing, "run_timed",
                               return_value=done(exit=-9, timed_out=True)):
            status, _, _, problems = bench.boot_host_timed(command, "x.log", 60, None, sampler)
        self.assertEqual(status, 4)
        self.assertEqual(problems, ["QEMU did not end within 60 s: killed"])
        with mock.patch.object(bench.peer_timing, "run_timed",
                               return_value=done(exit=None, problems=["cannot start qemu"])):
            status, wall, _, problems = bench.boot_host_timed(command, "x.log", 60, None,
                                                                sampler)
        self.assertEqual((status, problems), (6, ["cannot start qemu"]))
        with mock.patch.object(bench.peer_timing, "run_timed", return_value=done()):
            status, wall, _, problems = bench.boot_host_timed(command, "x.log", 60, None,
                                                                sampler)
        self.assertEqual((status, wall, problems), (0, 0.3, []))

    def test_bring_up_sections_booted_by_kernel_are_started_by_bench(self):
        def entry(name, words, groups=("bringup",)):
            return mock.Mock(name=name, run_args=words, groups=list(groups))
        command = bench.host_timed_command(entry("bringup-8cpu", ["--boot", "kernel", "--cpus",
                                                                  "8"]),
                                           "x.iso", "k.elf", "bench=boot")
        self.assertEqual(command[0], "qemu-system-x86_64")
        self.assertIn("k.elf", command)
        self.assertEqual(command[command.index("-smp") + 1], "8")
        self.assertEqual(command[command.index("-append") + 1], "bench=boot")
        self.assertNotIn("-qmp", command)
        self.assertIsNone(bench.host_timed_command(
            entry("ipi-2cpu", ["--boot", "kernel"], groups=("ipi",)), "x.iso", "k.elf", None))
        self.assertIsNone(bench.host_timed_command(
            entry("bringup-cd", ["--boot", "cdrom"]), "x.iso", "k.elf", None))
        self.assertIsNone(bench.host_timed_command(
            entry("bringup-bochs", ["--emulator", "bochs"]), "x.iso", "k.elf", None))

    def test_against_builds_take_turns_to_boot_first(self):
        from trigos import bench
        old = ("/tmp/old/build/trigos.iso", "/tmp/old/build/trigos.elf")
        self.assertEqual([bench.pair_order(i, old) for i in range(3)],
                         [[None, old], [old, None], [None, old]])
        self.assertEqual(bench.pair_order(1, None), [None])

    def test_against_pairs_each_boot_with_the_other_builds_next_boot(self):
        def kick(p50):
            return run("kick-8cpu", [distribution("trigger_kick_nobody_waiting", p50, p50 * 2,
                                                  cpus=8)], cpus=8)
        mine = [kick(value) for value in (110, 120, 130, 100, 140, 150, 160, 170, 180, 190)]
        theirs = [kick(100)] * 10
        report = {"runs": mine, "against": {"build": "/tmp/old/build", "runs": theirs}}
        title, header, rows = bench_results.against_table(report)
        self.assertIn("this build / /tmp/old/build", title)
        self.assertEqual(header[-4:], ["ratio", "higher", "p", "verdict"])
        self.assertEqual(rows[0][:7], ["kick", "trigger_kick_nobody_waiting", "-", "8", "ns",
                                       "145", "100"])
        # 9 pairs higher, one tie: the tie counts in neither side of the sign test.
        self.assertEqual(rows[0][7:], ["1.450 [1.000-1.900]", "9 of 10", "0.004", "worse"])
        # Higher in 6 of 10 pairs is a coin's doing as often as not.
        mixed = [kick(value) for value in (90, 95, 105, 110, 120, 80, 101, 102, 103, 99)]
        rows = bench_results.against_table({"runs": mixed, "against": {"runs": theirs}})[2]
        self.assertEqual(rows[0][8:], ["6 of 10", "0.754", "within noise"])
        faster = [kick(value) for value in (50, 60, 70, 80, 90, 91, 92, 93, 94, 95)]
        self.assertEqual(bench_results.against_table(
            {"runs": faster, "against": {"runs": theirs}})[2][0][-1], "better")
        self.assertIsNone(bench_results.against_table({"runs": mine}))

    def test_sign_test(self):
        self.assertAlmostEqual(bench_results.sign_test(10, 0), 2 / 1024)
        self.assertAlmostEqual(bench_results.sign_test(0, 10), 2 / 1024)
        self.assertEqual(bench_results.sign_test(5, 5), 1.0)
        self.assertAlmostEqual(bench_results.sign_test(8, 2), 112 / 1024)
        self.assertEqual(bench_results.sign_test(0, 0), 1.0)

    def test_repeated_runs_give_the_median(self):
        report = {"runs": [run("bringup-8cpu", [{"name": "ap_bringup", "cpus": 8, "unit": "us",
                                                 "value": value}], cpus=8)
                           for value in (900, 1000, 5000)]}
        rows = bench_results.build_tables(report)[0][2]
        self.assertEqual(rows[0][3], "1000 x3")


class Simulated(unittest.TestCase):
    """Sections booted under Bochs: labelled simulated; seeds and repeated boots compared."""

    def bochs_run(self, results, seed=None, log="", wall=20.0):
        return run("bochs-trigger-2cpu", results, wall=wall, emulator="bochs", seed=seed,
                   simulated=bench_results.SIMULATED, log=log, run="--emulator bochs --cpus 2")

    def test_the_emulator_comes_from_the_run_arguments(self):
        self.assertEqual(bench_results.run_emulator(["--emulator", "bochs", "--cpus", "2"]), "bochs")
        self.assertEqual(bench_results.run_emulator(["--emulator=bochs"]), "bochs")
        self.assertEqual(bench_results.run_emulator(["--boot", "kernel"]), "qemu")

    def test_tables_say_simulated_and_keep_bochs_apart_from_qemu(self):
        report = {"runs": [run("trigger-2cpu", [distribution("trigger_wake_short_spin", 300, 400)]),
                           self.bochs_run([distribution("trigger_wake_short_spin", 1099, 1099)])]}
        titles = [title for title, _, _ in bench_results.build_tables(report)]
        self.assertIn("trigger: p50 (p99), or the value", titles)
        self.assertIn("bochs-trigger: p50 (p99), or the value; " + bench_results.SIMULATED, titles)
        self.assertIn("whole Bochs run, wall seconds of the host (boot to shutdown)", titles)
        self.assertIn("whole QEMU run, wall seconds (boot to power-off)", titles)

    def test_spread_across_seeds(self):
        report = {"runs": [self.bochs_run([distribution("trigger_wake_short_spin", p50, p50)],
                                          seed=seed)
                           for seed, p50 in ((1, 1000), (2, 1100), (3, 1000))]}
        title, header, rows = bench_results.seed_spread_table(report)
        self.assertEqual(header[5:], ["seeds", "min", "median", "max", "spread"])
        self.assertEqual(rows, [["bochs-trigger", "trigger_wake_short", "spin", "ns", "2", "3",
                                 "1000", "1000", "1100", "10.0%"]])
        self.assertIsNone(bench_results.seed_spread_table({"runs": [self.bochs_run([])]}))

    def test_two_boots_compared_line_by_line(self):
        line = '    # BENCH {"v":1,"name":"stop_machine","unit":"ns","p50":%d}\n'
        with tempfile.TemporaryDirectory() as directory:
            logs = []
            for index, text in enumerate(("KTAP version 1\n" + line % 40749,
                                          "KTAP version 1\n" + line % 40749 + "# a note\n",
                                          "KTAP version 1\n" + line % 40750)):
                logs.append(os.path.join(directory, "%d.log" % index))
                with open(logs[-1], "w") as log:
                    log.write(text)
            same = bench_results.repeatability([{"log": logs[0]}, {"log": logs[1]}])
            other = bench_results.repeatability([{"log": logs[0]}, {"log": logs[2]}])
            empty = bench_results.repeatability([{"log": os.path.join(directory, "none")}] * 2)
        self.assertEqual((same["identical"], same["lines"], same["difference"]), (True, 1, None))
        self.assertFalse(other["identical"])
        self.assertEqual(other["difference"][0], 1)
        self.assertIn('"p50":40750', other["difference"][2])
        self.assertFalse(empty["identical"])            # no figures is no proof
        out = io.StringIO()
        failures = bench.print_repeatability(
            [dict(same, config="a", seed=1, emulator="bochs"),
             dict(other, config="b", seed=None, emulator="bochs"),
             dict(other, config="c", seed=None, emulator="qemu")], out)
        self.assertEqual(failures, 1)                   # QEMU's host clock never repeats
        text = out.getvalue()
        self.assertIn("bench: repeatable: a seed=1: 1 BENCH lines identical in 2 boots", text)
        self.assertIn("bench: NOT repeatable: b: BENCH line 1 differs:", text)
        self.assertIn("NOT repeatable (QEMU: expected", text)


class Compare(unittest.TestCase):
    def test_verdicts_and_noise_sources(self):
        old = {"runs": [
            run("trigger-2cpu", [distribution("wake_spin", 1000, 1100),
                                 distribution("wake_hlt", 1000, 1500),
                                 {"name": "host_cpu_idle_spin", "cpus": 2, "unit": "%",
                                  "value": 99.0},
                                 {"name": "zero", "unit": "x", "value": 0}])]}
        new = {"runs": [
            run("trigger-2cpu", [distribution("wake_spin", 1500, 1600),     # +50 % > 10 %
                                 distribution("wake_hlt", 1200, 1300),      # +20 % < 50 %
                                 {"name": "host_cpu_idle_spin", "cpus": 2, "unit": "%",
                                  "value": 98.0},
                                 {"name": "zero", "unit": "x", "value": 4},
                                 distribution("only_new", 5, 6)])]}
        rows = {(key[1], key[2]): row for row in bench_results.compare(old, new) for key in [row[0]]}
        spin = rows[("wake", "spin")]
        self.assertAlmostEqual(spin[3], 0.5)
        self.assertAlmostEqual(spin[4], 0.1)          # old (1100-1000)/1000, the larger
        self.assertEqual((spin[5], spin[6]), ("p50..p90", "CHANGED"))
        hlt = rows[("wake", "hlt")]
        self.assertEqual((hlt[5], hlt[6]), ("p50..p90", "within noise"))
        self.assertEqual(rows[("host_cpu_idle", "spin")][5:], ("none", "no noise estimate"))
        self.assertEqual(rows[("zero", "-")][6], "old figure is 0")
        self.assertNotIn(("only_new", "-"), rows)

    def test_repeats_give_the_noise_when_present(self):
        def boots(values):
            return {"runs": [run("bringup-8cpu", [{"name": "ap_bringup", "cpus": 8,
                                                   "unit": "us", "value": value}], cpus=8)
                             for value in values]}
        rows = bench_results.compare(boots([1000]), boots([1100, 1200, 1300]))
        bringup = [row for row in rows if row[0][1] == "ap_bringup"][0]
        self.assertAlmostEqual(bringup[3], 0.2)
        self.assertAlmostEqual(bringup[4], 200 / 1200)
        self.assertEqual((bringup[5], bringup[6]), ("repeats", "CHANGED"))
        rows = bench_results.compare(boots([1000, 1400]), boots([1300]))
        bringup = [row for row in rows if row[0][1] == "ap_bringup"][0]
        self.assertEqual((bringup[5], bringup[6]), ("repeats", "within noise"))

    def test_compare_tables_say_the_noise_source(self):
        rows = bench_results.compare({"runs": [run("t-2cpu", [distribution("w", 10, 20)])]},
                             {"runs": [run("t-2cpu", [distribution("w", 11, 20)])]})
        tables = bench_results.compare_tables(rows)
        body = [row for title, header, body in tables for row in body if row[0] == "w"]
        self.assertEqual(body[0][6:], ["+10.0%", "100.0% (p50..p90)", "within noise"])


if __name__ == "__main__":
    unittest.main()


class ChartsWhicheverWayItRuns(unittest.TestCase):
    """tools/bench draws the charts and the report itself: --quick and --only runs get
    them too, not only make bench (which used to call tools/plot after it)."""

    CONFIG = ("[wake-2cpus-quick]\nrun = --boot kernel --cpus 2\ncmdline = bench=trigger\n"
              "groups = quick\n\n[slow-4cpus]\nrun = --boot kernel --cpus 4\n"
              "cmdline = bench=trigger\n")

    def fake_run_entry(self, entry, args, log_path, tick=None, seed=None, build=None):
        cpus = 2 if "2cpus" in entry.name else 4
        self.boots.append((entry.name, build[0] if build else args.iso,
                           os.path.basename(log_path)))
        return run(entry.name, [distribution("trigger_wake_short", 900, 1200, cpus=cpus,
                                             backend="hlt"),
                                distribution("trigger_wake_short", 300, 400, cpus=cpus,
                                             backend="spin")], cpus=cpus,
                   problems=[], log=log_path)

    def bench(self, *argv, against=None):
        self.boots = []
        with tempfile.TemporaryDirectory() as directory:
            if against:
                os.makedirs(os.path.join(directory, against))
                for name in ("trigos.iso", "trigos.elf"):
                    open(os.path.join(directory, against, name), "w").close()
                argv = argv + ("--against", os.path.join(directory, against))
            config = os.path.join(directory, "bench.cfg")
            with open(config, "w") as out:
                out.write(self.CONFIG)
            results = os.path.join(directory, "bench", "results.json")
            quiet_progress = bench.Progress
            with mock.patch.object(bench, "run_entry", self.fake_run_entry), \
                    mock.patch.object(bench, "Progress", lambda *args, **keywords:
                                      quiet_progress(*args, out=io.StringIO(), **keywords)), \
                    mock.patch("sys.stdout", new_callable=io.StringIO), \
                    mock.patch("sys.stderr", new_callable=io.StringIO):
                status = bench.main(["--no-peer", "--out", results, *argv, config])
            plots = os.path.join(directory, "bench", "plots")
            self.configs_run = sorted(run["config"] for run in
                                      bench_results.load_results(results)["runs"])
            self.against = bench_results.load_results(results).get("against")
            return (status, os.path.exists(os.path.join(directory, "bench", "report.md")),
                    sorted(os.listdir(plots)) if os.path.isdir(plots) else [])

    def test_only_is_repeatable_and_selects_every_match(self):
        status, _, _ = self.bench("--no-plot", "--only", "wake-*", "--only", "slow-*")
        self.assertEqual(status, 0)
        self.assertEqual(self.configs_run, ["slow-4cpus", "wake-2cpus-quick"])
        self.bench("--no-plot", "--only", "slow-*")
        self.assertEqual(self.configs_run, ["slow-4cpus"])

    def test_against_boots_the_other_build_right_beside_each_boot(self):
        """Each pair of boots back to back; the other build goes first every second round."""
        status, _, _ = self.bench("--no-plot", "--repeat", "2", against="old")
        self.assertEqual(status, 0)
        self.assertEqual([(name, os.path.basename(iso_path), log)
                          for name, iso_path, log in self.boots], [
            ("wake-2cpus-quick", "trigos.iso", "wake-2cpus-quick-1.log"),
            ("wake-2cpus-quick", "trigos.iso", "wake-2cpus-quick-1-against.log"),
            ("slow-4cpus", "trigos.iso", "slow-4cpus-1.log"),
            ("slow-4cpus", "trigos.iso", "slow-4cpus-1-against.log"),
            ("wake-2cpus-quick", "trigos.iso", "wake-2cpus-quick-2-against.log"),
            ("wake-2cpus-quick", "trigos.iso", "wake-2cpus-quick-2.log"),
            ("slow-4cpus", "trigos.iso", "slow-4cpus-2-against.log"),
            ("slow-4cpus", "trigos.iso", "slow-4cpus-2.log")])
        old = [os.path.basename(os.path.dirname(iso_path)) == "old"
               for _, iso_path, _ in self.boots]
        self.assertEqual(old, [False, True, False, True, True, False, True, False])
        # Only this build's runs in "runs"; the other's apart.
        self.assertEqual(len(self.configs_run), 4)
        self.assertEqual(len(self.against["runs"]), 4)
        with self.assertRaises(SystemExit):
            with mock.patch("sys.stderr", new_callable=io.StringIO):
                bench.main(["--no-peer", "--against", "/nonexistent", "--no-plot"])

    @unittest.skipUnless(shutil.which("gnuplot"), "gnuplot-nox is not installed")
    def test_quick_run_draws_the_charts_and_writes_the_report(self):
        status, report, plots = self.bench("--quick")
        self.assertEqual(status, 0)
        self.assertTrue(report)
        self.assertIn("wake_latency.png", plots)
        self.assertIn("wake_latency.svg", plots)

    def test_no_plot_writes_neither(self):
        status, report, plots = self.bench("--quick", "--no-plot")
        self.assertEqual((status, report, plots), (0, False, []))
