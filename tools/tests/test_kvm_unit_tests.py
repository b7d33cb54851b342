"""Tests of tools/peer --kvm-unit-tests (trigos.kvm_unit_tests) against a fake kvm-unit-tests
tree made here (a configure and a Makefile that make two tiny files) and a fake QEMU that
prints the logs of tools/tests/data/kvm-unit-tests/: no kvm-unit-tests, no real QEMU."""
import io
import json
import os
import statistics
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

from tools.tests import DATA, read_data
from trigos import bench, kvm_unit_tests, peer, plot

# The fake tree's configure: as kvm-unit-tests' own, it configures the directory it is run
# in for the tree it lives in (config.mak's SRCDIR, a link to the tree's Makefile).  Each
# run leaves a line in configure-runs, so that a test sees whether it ran again.
FAKE_CONFIGURE = textwrap.dedent('''\
    #!/bin/sh
    srcdir=$(cd "$(dirname "$0")"; pwd)
    [ "$1" = "--arch=x86_64" ] || { echo "configure: unexpected $*"; exit 1; }
    echo "SRCDIR=$srcdir" > config.mak
    [ -e Makefile ] || ln -s "$srcdir/Makefile" Makefile
    echo "configured" >> configure-runs
    ''')
FAKE_MAKEFILE = textwrap.dedent('''\
    include config.mak
    all:
    \tmkdir -p x86
    \techo smptest > x86/smptest.flat
    \techo vmexit > x86/vmexit.flat
    \techo fake1234 > build-head
    ''')
# Twenty lines of compiling before the error: the message shows the end of the log only.
BROKEN_MAKEFILE = textwrap.dedent('''\
    include config.mak
    all:
    \t@for n in $$(seq 1 20); do echo "gcc -c -o lib/file$$n.o lib/file$$n.c"; done
    \t@echo "x86/smptest.c:7:1: error: expected ';' before '}' token"
    \t@exit 1
    ''')

# The fake QEMU: prints data/kvm-unit-tests/NAME.log for -kernel DIR/x86/NAME.flat and
# -append ARGS (NAME-ARGS.log), a line at a time, then exits as kvm-unit-tests' exit(0)
# through isa-debug-exit does (status 1).  $FAKE_KUT_QEMU=hang: it prints the first line
# and never ends; =fail: it exits as exit(1) does, a failed report_summary() (status 3).  It records its argv in $FAKE_KUT_RECORD.
FAKE_QEMU = textwrap.dedent('''\
    #!PYTHON
    import json, os, sys, time
    argv = sys.argv[1:]
    if os.environ.get("FAKE_KUT_RECORD"):
        with open(os.environ["FAKE_KUT_RECORD"], "a") as out:
            out.write(json.dumps(argv) + "\\n")
    name = os.path.basename(argv[argv.index("-kernel") + 1])[:-len(".flat")]
    if "-append" in argv:
        name += "-" + argv[argv.index("-append") + 1]
    with open(os.path.join(DATA_DIRECTORY, "kvm-unit-tests", name + ".log"), "rb") as log:
        lines = log.read().splitlines(True)
    for number, line in enumerate(lines):
        sys.stdout.buffer.write(line)
        sys.stdout.flush()
        if os.environ.get("FAKE_KUT_QEMU") == "hang":
            time.sleep(600)
        time.sleep(0.002)
    sys.exit(3 if os.environ.get("FAKE_KUT_QEMU") == "fail" else 1)
    ''').replace("PYTHON", sys.executable).replace("DATA_DIRECTORY", repr(DATA))


def make_fake_tree(directory, makefile=FAKE_MAKEFILE):
    """A directory with what makes a kvm-unit-tests tree, and the fake configure and Makefile."""
    for name in kvm_unit_tests.TREE_FILES:
        path = os.path.join(directory, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as out:
            out.write("/* stands in for kvm-unit-tests' %s */\n" % name)
    with open(os.path.join(directory, "configure"), "w") as out:
        out.write(FAKE_CONFIGURE)
    os.chmod(os.path.join(directory, "configure"), 0o755)
    with open(os.path.join(directory, "Makefile"), "w") as out:
        out.write(makefile)
    return directory


def snapshot(directory):
    """{relative path: (size, mtime, bytes)} of every file under @directory."""
    found = {}
    for root, _, files in os.walk(directory):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as content:
                found[os.path.relpath(path, directory)] = (os.path.getsize(path),
                                                           os.stat(path).st_mtime_ns,
                                                           content.read())
    return found


def timed(text, host_start=0.1, step=0.001):
    return [(host_start + step * index, line) for index, line in enumerate(text.splitlines(True))]


class TreeCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="trigos-kut-")
        self.source = os.path.join(self.tmp.name, "kvm-unit-tests")
        self.build_dir = os.path.join(self.tmp.name, "build", "peer", "kvm-unit-tests")
        self.bin = os.path.join(self.tmp.name, "bin")
        os.makedirs(self.bin)
        qemu = os.path.join(self.bin, "qemu-system-x86_64")
        with open(qemu, "w") as out:
            out.write(FAKE_QEMU)
        os.chmod(qemu, 0o755)
        self.record = os.path.join(self.tmp.name, "qemu-argv.jsonl")
        environment = {"PATH": self.bin + os.pathsep + os.environ.get("PATH", ""),
                       "FAKE_KUT_RECORD": self.record}
        self.environ = mock.patch.dict(os.environ, environment)
        self.environ.start()
        os.environ.pop("FAKE_KUT_QEMU", None)

    def tearDown(self):
        self.environ.stop()
        self.tmp.cleanup()

    def qemu_argvs(self):
        with open(self.record) as lines:
            return [json.loads(line) for line in lines]


class Build(TreeCase):
    def test_builds_out_of_tree_and_leaves_the_tree_as_it_was(self):
        make_fake_tree(self.source)
        before = snapshot(self.source)
        said = []
        built = kvm_unit_tests.build(self.source, self.build_dir, said.append)
        self.assertEqual(snapshot(self.source), before)
        self.assertEqual(built["commit"], "fake1234")
        self.assertEqual(built["build_dir"], os.path.realpath(self.build_dir))
        for binary in ("x86/smptest.flat", "x86/vmexit.flat", "config.mak", "build.log"):
            self.assertTrue(os.path.isfile(os.path.join(self.build_dir, binary)), binary)
        self.assertIn("configuring kvm-unit-tests", said[0])
        # Built again: configured already for this tree, so only make runs.
        kvm_unit_tests.build(self.source, self.build_dir)
        with open(os.path.join(self.build_dir, "configure-runs")) as runs:
            self.assertEqual(runs.read().count("configured"), 1)
        self.assertEqual(snapshot(self.source), before)

    def test_refuses_what_is_not_a_kvm_unit_tests_tree(self):
        with self.assertRaises(kvm_unit_tests.Unavailable) as missing:
            kvm_unit_tests.build(self.source, self.build_dir)
        self.assertIn("no such directory", str(missing.exception))
        self.assertIn("gitlab.com/kvm-unit-tests", str(missing.exception))
        make_fake_tree(self.source)
        os.remove(os.path.join(self.source, "x86", "smptest.c"))
        with self.assertRaises(kvm_unit_tests.Unavailable) as other:
            kvm_unit_tests.build(self.source, self.build_dir)
        self.assertIn("is not a kvm-unit-tests tree: it has no x86/smptest.c",
                      str(other.exception))
        self.assertFalse(os.path.exists(self.build_dir))

    def test_never_builds_inside_the_tree(self):
        make_fake_tree(self.source)
        before = snapshot(self.source)
        with self.assertRaises(kvm_unit_tests.Unavailable) as inside:
            kvm_unit_tests.build(self.source, os.path.join(self.source, "build"))
        self.assertIn("must not be written into", str(inside.exception))
        self.assertEqual(snapshot(self.source), before)

    def test_a_build_failure_shows_the_end_of_its_log(self):
        make_fake_tree(self.source, BROKEN_MAKEFILE)
        with self.assertRaises(kvm_unit_tests.Unavailable) as failed:
            kvm_unit_tests.build(self.source, self.build_dir)
        message = str(failed.exception)
        self.assertIn("building kvm-unit-tests failed (exit 2)", message)
        self.assertIn("build.log", message)
        self.assertIn("x86/smptest.c:7:1: error: expected ';'", message)
        self.assertIn("lib/file20.o", message)
        self.assertNotIn("lib/file1.o", message)


class ReadLog(unittest.TestCase):
    def test_bringup_from_its_bsp_line_to_the_last_ap_online(self):
        found = kvm_unit_tests.analyse_log(timed(read_data("kvm-unit-tests/smptest.log")), 4)
        self.assertEqual(found["problems"], [])
        self.assertEqual((found["aps_online"], found["waiting_for"]), ([1, 2, 3], 3))
        records = {r["name"]: r for r in kvm_unit_tests.records(found, kvm_unit_tests.SMPTEST,
                                                                  4)}
        self.assertEqual(sorted(records), ["ap_bringup", "qemu_start_to_first_line"])
        # Line 1 (its BSP's "enabling apic") to line 8 (CPU 1, the third AP online).
        self.assertEqual(records["ap_bringup"]["value"], 7000)
        self.assertEqual(records["qemu_start_to_first_line"]["value"], 100000)
        for record in records.values():
            self.assertEqual((record["peer"], record["clock"], record["cpus"], record["unit"]),
                             ("kvm-unit-tests", "host-observed", 4, "us"))

    def test_an_ap_that_never_came_says_so(self):
        text = read_data("kvm-unit-tests/smptest.log").replace("setup: CPU 3 online", "")
        found = kvm_unit_tests.analyse_log(timed(text), 4)
        self.assertEqual(found["problems"], ["2 of 3 APs said 'setup: CPU n online'"])
        self.assertEqual([r["name"] for r in kvm_unit_tests.records(
            found, kvm_unit_tests.SMPTEST, 4)], ["qemu_start_to_first_line"])
        found = kvm_unit_tests.analyse_log(timed(read_data("kvm-unit-tests/smptest.log")), 8)
        self.assertIn("it waited for 3 APs, not 7", found["problems"])

    def test_its_own_ipi_figures_labelled_its_own(self):
        for test, log, name, value in (
                (kvm_unit_tests.VMEXIT_IPI, "vmexit-ipi", "vmexit_ipi", 40741),
                (kvm_unit_tests.VMEXIT_IPI_HALT, "vmexit-ipi_halt", "vmexit_ipi_halt", 52751)):
            found = kvm_unit_tests.analyse_log(timed(read_data("kvm-unit-tests/%s.log" % log)),
                                               2)
            self.assertEqual(found["problems"], [])
            self.assertEqual(kvm_unit_tests.records(found, test, 2), [
                {"v": 1, "name": name, "cpus": 2, "unit": "cycles", "value": value,
                 "peer": "kvm-unit-tests", "clock": "its own"}])

    def test_qemu_command_is_tools_runs_with_its_devices(self):
        command = kvm_unit_tests.qemu_command({"build_dir": "/b"}, kvm_unit_tests.VMEXIT_IPI, 2)
        self.assertEqual(command[command.index("-smp") + 1], "2")
        self.assertEqual(command[command.index("-accel") + 1], "tcg")
        self.assertEqual(command[command.index("-cpu") + 1], "max")
        self.assertEqual(command[command.index("-kernel") + 1], "/b/x86/vmexit.flat")
        self.assertEqual(command[command.index("-append") + 1], "ipi")
        self.assertIn("isa-debug-exit,iobase=0xf4,iosize=0x04", command)
        self.assertIn("pc-testdev", command)
        self.assertIn("pci-testdev", command)


class Boot(TreeCase):
    def built(self):
        make_fake_tree(self.source)
        return kvm_unit_tests.build(self.source, self.build_dir)

    def test_measure_builds_and_boots_each_test(self):
        make_fake_tree(self.source)
        runs = []
        note = kvm_unit_tests.measure(self.source, [4], os.path.join(self.tmp.name, "build",
                                                                     "peer"),
                                      self.tmp.name, lambda text: None, runs.append)
        self.assertIsNone(note)
        self.assertEqual([run["config"] for run in runs],
                         ["kvm-unit-tests-smptest-4cpu", "kvm-unit-tests-vmexit-ipi-2cpu",
                          "kvm-unit-tests-vmexit-ipi_halt-2cpu"])
        for run in runs:
            self.assertEqual((run["problems"], run["exit"]), ([], 1), run["config"])
        self.assertEqual([r["name"] for r in runs[0]["results"]],
                         ["qemu_start_to_first_line", "ap_bringup"])
        self.assertEqual(runs[1]["results"][0]["value"], 40741)
        self.assertEqual(runs[0]["header"]["commit"], "fake1234")
        smp = [argv[argv.index("-smp") + 1] for argv in self.qemu_argvs()]
        self.assertEqual(smp, ["4", "2", "2"])

    def test_a_test_that_does_not_end_is_killed_and_said(self):
        built = self.built()
        os.environ["FAKE_KUT_QEMU"] = "hang"
        run = kvm_unit_tests.boot(built, kvm_unit_tests.SMPTEST, 4,
                                  os.path.join(self.tmp.name, "smptest.log"), timeout=1)
        self.assertEqual(run["problems"][0], "x86/smptest.flat did not end within 1 s: "
                                             "QEMU killed")
        self.assertLess(run["wall_seconds"], 30)       # killed, not waited for (the fake hangs)
        self.assertIn("0 of 3 APs said", " ".join(run["problems"]))

    def test_a_failing_test_is_a_problem(self):
        built = self.built()
        os.environ["FAKE_KUT_QEMU"] = "fail"
        run = kvm_unit_tests.boot(built, kvm_unit_tests.VMEXIT_IPI, 2,
                                  os.path.join(self.tmp.name, "ipi.log"))
        self.assertEqual(run["problems"], ["the test exited with code 1 (QEMU status 3)"])
        self.assertEqual(run["results"][0]["value"], 40741)


class BenchOption(TreeCase):
    CONFIG = ("[bringup-4cpu]\nrun = --boot kernel --cpus 4\ncmdline = bench=boot\n"
              "groups = bringup\n")

    def fake_run_entry(self, entry, args, log_path, tick=None, seed=None, build=None):
        return {"config": entry.name, "run": " ".join(entry.run_args), "exit": 0,
                "wall_seconds": 0.3, "log": log_path, "header": {"cpus": 4},
                "results": [{"v": 1, "name": "ap_bringup", "cpus": 4, "unit": "us",
                             "value": 1000}], "problems": []}

    def bench(self, *argv):
        config = os.path.join(self.tmp.name, "bench.cfg")
        with open(config, "w") as out:
            out.write(self.CONFIG)
        results = os.path.join(self.tmp.name, "bench", "results.json")
        quiet_progress = bench.Progress
        stdout = io.StringIO()
        with mock.patch.object(bench, "run_entry", self.fake_run_entry), \
                mock.patch.object(bench, "Progress", lambda *args, **keywords:
                                  quiet_progress(*args, out=io.StringIO(), **keywords)), \
                mock.patch("sys.stdout", stdout), \
                mock.patch("sys.stderr", new_callable=io.StringIO):
            status = bench.main(["--no-peer", "--no-plot", "--out", results, "--peer-dir",
                                 os.path.join(self.tmp.name, "peer"), *argv, config])
        with open(results) as report:
            return status, json.load(report), stdout.getvalue()

    def test_off_by_default(self):
        status, report, _ = self.bench()
        self.assertEqual(status, 0)
        self.assertEqual([run["config"] for run in report["runs"]], ["bringup-4cpu"])
        self.assertEqual(report["notes"], [])

    def test_its_runs_sit_beside_trigos_in_the_tables(self):
        make_fake_tree(self.source)
        status, report, out = self.bench("--kvm-unit-tests", self.source)
        self.assertEqual(status, 0)
        self.assertEqual([run["config"] for run in report["runs"]],
                         ["bringup-4cpu", "kvm-unit-tests-smptest-4cpu"])
        self.assertEqual(report["notes"], [])
        self.assertRegex(out, r"ap_bringup +trigos +us +1000\n")
        self.assertRegex(out, r"ap_bringup +kvm-unit-tests host-observed +us +\d+\n")

    def test_boots_are_interleaved_and_the_ratios_come_first(self):
        make_fake_tree(self.source)
        status, report, out = self.bench("--kvm-unit-tests", self.source, "--repeat", "2")
        self.assertEqual(status, 0)
        self.assertEqual([run["config"] for run in report["runs"]],
                         ["bringup-4cpu", "kvm-unit-tests-smptest-4cpu"] * 2)
        # The first table is trigos / kvm-unit-tests: the whole run, boot i against boot i.
        first = out.strip().split("\n\n")[0]
        self.assertIn("trigos / kvm-unit-tests", first.splitlines()[0])
        wall = [line for line in first.splitlines() if line.startswith("whole QEMU run")]
        self.assertEqual(len(wall), 1)
        ratios = [run["wall_seconds"] / peer["wall_seconds"]
                  for run, peer in zip(report["runs"][0::2], report["runs"][1::2])]
        self.assertIn("%.2f [%.2f-%.2f]" % (statistics.median(ratios), min(ratios),
                                            max(ratios)), wall[0])
        self.assertRegex(wall[0], r" 2$")

    def test_the_report_names_the_tree_and_its_commit(self):
        make_fake_tree(self.source)
        _, report, _ = self.bench("--kvm-unit-tests", self.source)
        lines = [line for line in plot.machine_lines(report) if "kvm-unit-tests" in line]
        self.assertEqual(len(lines), 1)
        self.assertIn("commit fake1234, built from %s" % os.path.realpath(self.source), lines[0])

    def test_a_missing_tree_is_a_note_and_the_run_goes_on(self):
        status, report, out = self.bench("--kvm-unit-tests", self.source)
        self.assertEqual(status, 0)
        self.assertEqual([run["config"] for run in report["runs"]], ["bringup-4cpu"])
        self.assertEqual(len(report["notes"]), 1)
        self.assertIn("kvm-unit-tests not measured: %s: no such directory"
                      % os.path.realpath(self.source),
                      report["notes"][0])
        self.assertIn("bench: kvm-unit-tests not measured", out)

    def test_a_test_that_does_not_end_is_a_note(self):
        make_fake_tree(self.source)
        os.environ["FAKE_KUT_QEMU"] = "hang"
        with mock.patch.object(kvm_unit_tests, "default_timeout", lambda cpus: 1):
            status, report, _ = self.bench("--kvm-unit-tests", self.source)
        self.assertEqual(status, 0)
        self.assertIn("kvm-unit-tests-smptest-4cpu: x86/smptest.flat did not end within 1 s",
                      report["notes"][0])


class PeerCommand(TreeCase):
    def test_no_linux_boots_only_kvm_unit_tests(self):
        make_fake_tree(self.source)
        out = io.StringIO()
        with mock.patch("sys.stdout", out), mock.patch("sys.stderr", new_callable=io.StringIO):
            status = peer.main(["--kvm-unit-tests", self.source, "--no-linux", "--cpus", "4",
                                "--dir", os.path.join(self.tmp.name, "peer"),
                                "--log-dir", os.path.join(self.tmp.name, "logs")])
        self.assertEqual(status, 0)
        configs = [json.loads(line)["config"] for line in out.getvalue().splitlines()]
        self.assertEqual(configs, ["kvm-unit-tests-smptest-4cpu",
                                   "kvm-unit-tests-vmexit-ipi-2cpu",
                                   "kvm-unit-tests-vmexit-ipi_halt-2cpu"])

    def test_not_a_tree_is_a_message_and_status_1(self):
        os.makedirs(self.source)
        errors = io.StringIO()
        with mock.patch("sys.stdout", new_callable=io.StringIO), mock.patch("sys.stderr", errors):
            status = peer.main(["--kvm-unit-tests", self.source, "--no-linux",
                                "--dir", os.path.join(self.tmp.name, "peer"),
                                "--log-dir", os.path.join(self.tmp.name, "logs")])
        self.assertEqual(status, 1)
        self.assertIn("peer: kvm-unit-tests not measured: %s is not a kvm-unit-tests tree"
                      % os.path.realpath(self.source), errors.getvalue())


if __name__ == "__main__":
    unittest.main()
