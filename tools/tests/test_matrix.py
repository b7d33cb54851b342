# SPDX-License-Identifier: MIT
"""Tests of tools/matrix: config parsing, selection, `make check` counting, and
whole matrix runs through tools/run against the fake QEMU of test_run.py."""

import json
import io
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
import xml.etree.ElementTree as ET

from tools.tests import TOOLS, read_data, read_data_bytes
# The fake QEMU and its fixture live in test_run.py (imported as a module, so
# that its own tests are not collected here a second time).
from tools.tests import test_run
from trigos import matrix, qemu

REPO = os.path.dirname(TOOLS)
MATRIX = os.path.join(TOOLS, "matrix")

SAMPLE = """\
# comment
; another comment

[bios-cdrom-1cpu]
run = --firmware bios --boot cdrom --cpus 1
cmdline = seed=1
timeout = 60
groups = quick

[uefi-usb]
  run=--firmware uefi --boot usb   # trailing comment
groups = slow, uefi
cmdline = "test=lib_* seed=7"

[kernel.cmdline_2]
run = --boot kernel --cmdline "test=lib_* seed=7" --qemu-arg '-cpu max'
timeout = 2.5
"""


class ConfigTest(unittest.TestCase):
    def test_sample(self):
        entries = matrix.parse_config(SAMPLE, "sample.cfg")
        self.assertEqual([e.name for e in entries], ["bios-cdrom-1cpu", "uefi-usb",
                                                     "kernel.cmdline_2"])
        first, second, third = entries
        self.assertEqual(first.run_args, ["--firmware", "bios", "--boot", "cdrom", "--cpus", "1"])
        self.assertEqual((first.cmdline, first.timeout, first.groups, first.line),
                         ("seed=1", 60.0, ["quick"], 4))
        self.assertEqual(second.run_args, ["--firmware", "uefi", "--boot", "usb"])
        self.assertEqual(second.groups, ["slow", "uefi"])
        self.assertEqual(second.cmdline, "test=lib_* seed=7")
        self.assertEqual(third.run_args, ["--boot", "kernel", "--cmdline", "test=lib_* seed=7",
                                          "--qemu-arg", "-cpu max"])
        self.assertEqual((third.cmdline, third.timeout, third.groups), (None, 2.5, []))

    def test_errors_name_the_line(self):
        cases = [
            ("run = --cpus 1\n", 1, "before the first"),
            ("[a]\nrun --cpus 1\n", 2, "expected '[name]'"),
            ("[a]\n\n\nsmp = 2\n", 4, "unknown key 'smp'"),
            ("[a b]\n", 1, "bad configuration name"),
            ("[]\n", 1, "bad configuration name"),
            ("[a/b]\n", 1, "bad configuration name"),
            ("[a]\n[b]\n[a]\n", 3, "already defined at line 1"),
            ("[a]\nrun = x\nrun = y\n", 3, "already set"),
            ("[a]\ntimeout = soon\n", 2, "positive number"),
            ("[a]\ntimeout = -1\n", 2, "positive number"),
            ("[a]\ntimeout = nan\n", 2, "positive number"),
            ("[a]\ntimeout = 0\n", 2, "positive number"),
            ("[a]\nrun = --cmdline \"unbalanced\n", 2, "cannot split"),
            ("[a]\nrun = --cpus 1 --log x.log\n", 2, "set by tools/matrix"),
            ("[a]\nrun = --quiet\n", 2, "set by tools/matrix"),
            ("[a]\nrun = --gdb=1234\n", 2, "set by tools/matrix"),
            ("[a]\ngdb =\n", 2, "gdb needs a file of gdb commands"),
            ("[a]\n\ngdb_line = Thread 2 hit *\n", 3, "gdb_line without gdb = FILE"),
            ("[a]\ngroups = ok b@d\n", 2, "bad group name"),
            ("[a]\n[b\n", 2, "expected '[name]'"),
            ("[a]\nexpect = xfail\n", 2, "expect must be one of pass, fail, skip, crash"),
            ("[a]\nexpect =\n", 2, "expect must be one of"),
            ("[a]\nexpect = crash\nexpect = fail\n", 3, "already set"),
            ("[a]\nexpect_line = x\nexpect_line =\n", 3, "expect_line needs a TEXT"),
            ("[a]\nexpect_line = \"\"\n", 2, "expect_line needs a TEXT"),
            ("[a]\nexpect_line = '   '\n", 2, "expect_line needs a TEXT"),
            ("[a]\n\nforbid_line =   \n", 3, "forbid_line needs a TEXT"),
            ("expect = fail\n", 1, "before the first"),
        ]
        for text, line, fragment in cases:
            with self.subTest(text=text):
                with self.assertRaises(matrix.ConfigError) as raised:
                    matrix.parse_config(text, "m.cfg")
                message = str(raised.exception)
                self.assertTrue(message.startswith(f"m.cfg:{line}: "), message)
                self.assertIn(fragment, message)

    def test_empty_section_uses_defaults(self):
        entry, = matrix.parse_config("[plain]\n")
        self.assertEqual((entry.run_args, entry.cmdline, entry.timeout), ([], None, None))
        self.assertEqual((entry.expect, entry.expect_lines, entry.forbid_lines),
                         ("pass", [], []))

    def test_expectation_keys(self):
        entry, = matrix.parse_config(textwrap.dedent("""\
            [self-test]
            expect = crash
            expect_line = # PANIC: #PF page fault at 0x*
            expect_line = "    ok 1 one"
            forbid_line = *this line must never be printed*
            expect_line = ok 2 tw?   # not a comment
            """), "e.cfg")
        self.assertEqual(entry.expect, "crash")
        self.assertEqual([(p.key, p.text, p.where) for p in entry.expect_lines],
                         [("expect_line", "# PANIC: #PF page fault at 0x*", "e.cfg:3"),
                          ("expect_line", "    ok 1 one", "e.cfg:4"),
                          ("expect_line", "ok 2 tw?   # not a comment", "e.cfg:6")])
        self.assertEqual([(p.key, p.text, p.where) for p in entry.forbid_lines],
                         [("forbid_line", "*this line must never be printed*", "e.cfg:5")])
        for word in matrix.EXPECTATIONS:
            self.assertEqual(matrix.parse_config(f"[a]\nexpect = {word}\n")[0].expect, word)

    def test_project_matrix(self):
        entries = matrix.load_config(os.path.join(REPO, "tests", "matrix.cfg"))
        names = [entry.name for entry in entries]
        for name in ("bios-cdrom-1cpu", "bios-cdrom-2cpu", "uefi-cdrom-2cpu", "bios-usb-2cpu",
                     "kernel-2cpu", "kernel-cmdline"):
            self.assertIn(name, names)
        by_name = {entry.name: entry for entry in entries}
        self.assertEqual(by_name["uefi-cdrom-2cpu"].timeout, 90.0)
        self.assertIn("test=lib_* seed=7", by_name["kernel-cmdline"].run_args)
        # Every entry is a valid tools/run command line.
        for entry in entries:
            with self.subTest(entry=entry.name):
                args = test_run.run.parse_args(entry.run_args)
                qemu.build_command(test_run.run.config_from_args(args, "vars"))

    def test_missing_config_file(self):
        with self.assertRaises(matrix.ConfigError) as raised:
            matrix.load_config("/nonexistent/m.cfg")
        self.assertIn("cannot read", str(raised.exception))


class SelectionTest(unittest.TestCase):
    def setUp(self):
        self.entries = matrix.parse_config(SAMPLE)

    def names(self, only=None, groups=None):
        return [entry.name for entry in matrix.select(self.entries, only, groups)]

    def test_select(self):
        self.assertEqual(self.names(), ["bios-cdrom-1cpu", "uefi-usb", "kernel.cmdline_2"])
        self.assertEqual(self.names(only=["*usb*"]), ["uefi-usb"])
        self.assertEqual(self.names(only=["bios-*", "kernel*"]),
                         ["bios-cdrom-1cpu", "kernel.cmdline_2"])
        self.assertEqual(self.names(groups=["uefi"]), ["uefi-usb"])
        self.assertEqual(self.names(groups=["quick", "slow"]), ["bios-cdrom-1cpu", "uefi-usb"])
        self.assertEqual(self.names(only=["bios*"], groups=["slow"]), [])

    def test_run_command(self):
        entry = self.entries[0]
        command = matrix.run_command(entry, "logs/x.log", iso="a.iso", kernel="a.elf",
                                     python="py")
        self.assertEqual(command, ["py", matrix.RUN_TOOL, "--iso", "a.iso", "--kernel", "a.elf",
                                   "--firmware", "bios", "--boot", "cdrom", "--cpus", "1",
                                   "--cmdline", "seed=1", "--timeout", "60", "--quiet",
                                   "--log", "logs/x.log"])
        command = matrix.run_command(self.entries[2], "y.log", python="py")
        self.assertNotIn("--iso", command)
        self.assertEqual(command[-5:], ["--timeout", "2.5", "--quiet", "--log", "y.log"])
        self.assertEqual(os.path.dirname(matrix.RUN_TOOL), TOOLS)


class ScheduleTest(unittest.TestCase):
    """With several jobs the longest sections start first."""

    def entries(self):
        return [matrix.Entry("short", 1, timeout=30.0), matrix.Entry("plain", 2),
                matrix.Entry("bochs", 3, timeout=300.0), matrix.Entry("other", 4)]

    def test_unknown_sections_go_by_their_timeout_then_the_file(self):
        order = [entry.name for entry in matrix.longest_first(self.entries(), {})]
        self.assertEqual(order, ["bochs", "plain", "other", "short"])

    def test_known_sections_go_by_their_last_wall_time(self):
        durations = {"short": 50.0, "plain": 2.0, "bochs": 40.0, "other": 3.0}
        order = [entry.name for entry in matrix.longest_first(self.entries(), durations)]
        self.assertEqual(order, ["short", "bochs", "other", "plain"])

    def test_durations_are_kept_beside_the_logs(self):
        holder = tempfile.TemporaryDirectory()
        self.addCleanup(holder.cleanup)
        directory = holder.name
        self.assertEqual(matrix.load_durations(directory), {})
        outcomes = [matrix.Outcome("a", "PASS", True, seconds=12.34),
                    matrix.Outcome("make-check", "PASS", True, seconds=None)]
        matrix.save_durations(directory, outcomes, {"b": 3.0})
        self.assertEqual(matrix.load_durations(directory), {"a": 12.3, "b": 3.0})
        with open(os.path.join(directory, matrix.DURATIONS_FILE), "w") as stream:
            stream.write("not json")
        self.assertEqual(matrix.load_durations(directory), {})


class LineMatchTest(unittest.TestCase):
    """expect_line / forbid_line against a log, without booting anything."""

    LOG = read_data_bytes("matrix/line-match.log")

    def setUp(self):
        self.tmp = test_run.tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, "x.log")
        with open(self.log, "wb") as out:
            out.write(self.LOG)

    def tearDown(self):
        self.tmp.cleanup()

    def problems(self, *keys):
        text = "[x]\n" + "".join(f"{key} = {value}\n" for key, value in keys)
        entry, = matrix.parse_config(text, "l.cfg")
        return matrix.check_lines(entry, self.log)

    def test_expect_line_matches(self):
        for text in ("KTAP version 1", "ok 1 one", '"    ok 1 one"', "'    ok 1 *'",
                     "# Subtest: alpha", "*Subtest: al?ha", "? Subtest: alpha",
                     "not ok 2 two [cpu 1]", "not ok ? two [cpu ?]", "*",
                     "BdsDxe: loading Boot0001", "# RESULT: *", "*RESULT*"):
            with self.subTest(text=text):
                self.assertEqual(self.problems(("expect_line", text)), [])

    def test_expect_line_mismatches(self):
        for text in ("KTAP version", "ok 1", "ok 1 one two", '"  ok 1 one"', '"     ok 1 one"',
                     "# Subtest: alpha?", "not ok 2 two [cpu 2]", "not ok 2 two [cpu]",
                     "ok 1 ONE", "# RESULT: PASS"):
            with self.subTest(text=text):
                problems = self.problems(("expect_line", "KTAP*"), ("expect_line", text))
                self.assertEqual(len(problems), 1, problems)
                self.assertIn(f"expect_line '{text.strip(chr(34))}' (l.cfg:3) matches no line "
                              f"of the log (6 lines)", problems[0])

    def test_the_parameter_level(self):
        """A parameter's result (8 spaces, a description with spaces) is a line like any."""
        with open(self.log, "wb") as out:
            out.write(read_data_bytes("ktap/params.log").replace(b"ok 2 hlt", b"ok 2 hlt now"))
        for text in ("ok 2 hlt now", '"        ok 2 hlt now"', "ok 3 mwait # SKIP *",
                     "# kick_before_wait_returns_at_once: a diagnostic of the hlt parameter"):
            with self.subTest(text=text):
                self.assertEqual(self.problems(("expect_line", text)), [])
        self.assertEqual(len(self.problems(("expect_line", '"    ok 2 hlt now"'))), 1)

    def test_forbid_line(self):
        self.assertEqual(self.problems(("forbid_line", "*this line must never be printed*"),
                                       ("forbid_line", "ok 2 two"),
                                       ("forbid_line", '"  ok 1 one"')), [])
        problems = self.problems(("forbid_line", "*never*"), ("forbid_line", "not ok *"),
                                 ("forbid_line", "*RESULT: FAIL"))
        self.assertEqual(problems, [
            "forbid_line 'not ok *' (l.cfg:3) matches line 5 of the log: "
            "'\tnot ok 2 two [cpu 1]'",
            "forbid_line '*RESULT: FAIL' (l.cfg:4) matches line 6 of the log: "
            "'# RESULT: FAIL'"])

    def test_unreadable_log(self):
        entry, = matrix.parse_config("[x]\nforbid_line = *oops*\n")
        problems = matrix.check_lines(entry, os.path.join(self.tmp.name, "absent.log"))
        self.assertEqual(len(problems), 1)
        self.assertIn("cannot read the log", problems[0])
        entry, = matrix.parse_config("[x]\n")
        self.assertEqual(matrix.check_lines(entry, "/nonexistent.log"), [])

    def test_judge_expectation(self):
        entry, = matrix.parse_config("[x]\nexpect = fail\nexpect_line = not ok 2 two*\n")
        outcome = matrix.judge(entry, 1, "", self.log, 0.5)
        self.assertTrue(outcome.ok, outcome.reasons)
        self.assertEqual((outcome.verdict, outcome.passed, outcome.failed, outcome.skipped),
                         ("PASS", 1, 0, 0))
        self.assertIn("expected fail, got fail", outcome.note)
        for status, got in ((0, "pass"), (3, "crash"), (4, "timeout"), (5, "no-verdict"),
                            (6, "setup-error"), (-9, "tools/run killed by signal 9"),
                            (77, "tools/run exit status 77")):
            with self.subTest(status=status):
                outcome = matrix.judge(entry, status, "", self.log, 0.5)
                self.assertFalse(outcome.ok)
                self.assertEqual((outcome.verdict, outcome.passed, outcome.failed), ("FAIL", 0, 1))
                self.assertEqual(outcome.reasons, [f"expected fail, got {got}"])
        outcome = matrix.judge(entry, 1, "", self.log, 100, outer_timeout=True)
        self.assertFalse(outcome.ok)
        self.assertIn("expected fail, got no end (tools/run was killed", outcome.reasons[0])


class NothingSelectedTest(unittest.TestCase):
    """A run whose test= or bench= selects nothing is a failure, not a skip."""

    def judge(self, log, status):
        with test_run.tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "typo.log")
            with open(path, "w") as out:
                out.write(log)
            entry, = matrix.parse_config("[typo]\ncmdline = test=smpp,stop_machin\n")
            return matrix.judge(entry, status, "", path, 0.5)

    def test_the_kernel_fail_names_the_patterns(self):
        outcome = self.judge("KTAP version 1\n1..0\n"
                             "# test=smpp: no suite or case matches this pattern\n"
                             "# no test case matched test=smpp: a run that selects nothing "
                             "fails\n# Totals: pass:0 fail:0 skip:0 total:0\n"
                             "# RESULT: FAIL\n", 1)
        self.assertFalse(outcome.ok)
        self.assertEqual(outcome.verdict, "FAIL")
        self.assertIn("line 3: test=smpp selects no test case", outcome.reasons)

    def test_a_kernel_that_calls_it_a_skip_still_fails(self):
        # What trigos did before: "# RESULT: PASS" with nothing run, tools/run status 2.
        outcome = self.judge("KTAP version 1\n1..0\n# no test case matched test=smpp\n"
                             "# Totals: pass:0 fail:0 skip:0 total:0\n# RESULT: PASS\n", 2)
        self.assertFalse(outcome.ok)
        self.assertEqual(outcome.verdict, "FAIL")
        self.assertIn("no test case ran: a run that selects nothing fails", outcome.reasons)

    def test_a_failed_case_is_reported_with_its_own_diagnostics(self):
        # The log's tail is about another case: the failed one's why must still show.
        log = ("KTAP version 1\n1..2\n"
               "# one: 3 waiters, 2 ended by the one kick\n"
               "# one: expected by_kick == waiters\nnot ok 1 one\n" +
               "".join(f"# two: line {i}\n" for i in range(12)) +
               "ok 2 two\n# Totals: pass:1 fail:1 skip:0 total:2\n# RESULT: FAIL\n")
        outcome = self.judge(log, 1)
        self.assertFalse(outcome.ok)
        start = outcome.details.index("why one failed (its last 2 diagnostics):")
        self.assertEqual(outcome.details[start + 1:start + 3],
                         ["case | # one: 3 waiters, 2 ended by the one kick",
                          "case | # one: expected by_kick == waiters"])
        self.assertNotIn("log | # one: 3 waiters, 2 ended by the one kick", outcome.details)


# A stand-in for gdb: prints $FAKE_GDB_TRANSCRIPT, sleeps $FAKE_GDB_SLEEP
# seconds, exits with $FAKE_GDB_STATUS; its arguments are written to $FAKE_GDB_ARGS.
FAKE_GDB = """#!PYTHON
import json, os, sys, time
with open(os.environ["FAKE_GDB_ARGS"], "w") as out:
    json.dump(sys.argv[1:], out)
sys.stdout.write(os.environ.get("FAKE_GDB_TRANSCRIPT", ""))
sys.stdout.flush()
time.sleep(float(os.environ.get("FAKE_GDB_SLEEP", "0")))
sys.exit(int(os.environ.get("FAKE_GDB_STATUS", "0")))
""".replace("PYTHON", sys.executable)

GOOD_SESSION = read_data("gdb/kmain-and-ap-session.txt")


class GdbSessionTest(unittest.TestCase):
    """gdb = FILE / gdb_line: gdb's status and output judged (a stand-in gdb, no QEMU)."""

    CONFIG = ("[gdb-x]\nrun = --boot kernel --cpus 2\ngdb = tests/gdb/kmain-and-ap.gdb\n"
              "gdb_line = Thread 1 hit Breakpoint 1, kmain (*) at kernel/main.c:*\n"
              "gdb_line = Thread 2 hit Breakpoint 2, ap_online (*) at kernel/smp/smp.c:*\n")

    def setUp(self):
        self.tmp = test_run.tempfile.TemporaryDirectory()
        self.gdb = os.path.join(self.tmp.name, "gdb")
        with open(self.gdb, "w") as out:
            out.write(FAKE_GDB)
        os.chmod(self.gdb, 0o755)
        self.args = os.path.join(self.tmp.name, "args.json")
        self.saved = dict(os.environ)
        os.environ["FAKE_GDB_ARGS"] = self.args
        self.entry, = matrix.parse_config(self.CONFIG, "g.cfg")

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.saved)
        self.tmp.cleanup()

    def session(self, transcript, status=0, sleep=0, grace=30):
        os.environ.update(FAKE_GDB_TRANSCRIPT=transcript, FAKE_GDB_STATUS=str(status),
                          FAKE_GDB_SLEEP=str(sleep))
        session = matrix.GdbSession(self.entry, "build/trigos.elf",
                                    os.path.join(self.tmp.name, "gdb-x.gdb.log"), gdb=self.gdb)
        session.start()
        return session, session.finish(grace=grace)

    def test_keys_are_parsed(self):
        self.assertEqual(self.entry.gdb, "tests/gdb/kmain-and-ap.gdb")
        self.assertEqual([pattern.key for pattern in self.entry.gdb_lines], ["gdb_line"] * 2)

    def test_a_good_session_passes_on_a_free_port(self):
        session, problems = self.session(GOOD_SESSION)
        self.assertEqual(problems, [])
        with open(self.args) as recorded:
            argv = json.load(recorded)
        self.assertEqual(argv[-3:], ["-x", "tests/gdb/kmain-and-ap.gdb", "build/trigos.elf"])
        self.assertIn(f"target remote 127.0.0.1:{session.port}", argv)
        self.assertIn("-batch", argv)
        self.assertNotEqual(session.port, 1234)

    def test_the_ap_breakpoint_on_the_boot_cpu_is_not_enough(self):
        transcript = GOOD_SESSION.replace("Thread 2 hit Breakpoint 2", "Thread 1 hit Breakpoint 2")
        _, problems = self.session(transcript)
        self.assertIn("gdb_line 'Thread 2 hit Breakpoint 2, ap_online (*) at kernel/smp/smp.c:*' "
                      "(g.cfg:5) matches no line of gdb's output (9 lines)", problems)

    def test_a_failed_command_fails_the_session(self):
        _, problems = self.session(GOOD_SESSION + "Remote connection closed\n", status=1)
        self.assertTrue(problems[0].startswith("gdb exited with status 1"), problems)

    def test_a_gdb_that_does_not_end_is_killed(self):
        _, problems = self.session(GOOD_SESSION, sleep=60, grace=0.5)
        self.assertIn("gdb was still running 0.5 s after tools/run ended and was killed",
                      problems)

    def test_no_gdb_installed(self):
        session = matrix.GdbSession(self.entry, "build/trigos.elf",
                                    os.path.join(self.tmp.name, "x.gdb.log"),
                                    gdb=os.path.join(self.tmp.name, "absent-gdb"))
        session.start()
        problems = session.finish()
        self.assertIn("Debian package gdb", problems[0])

    def test_judge_fails_the_run_with_the_sessions_problems(self):
        log = os.path.join(self.tmp.name, "gdb-x.log")
        with open(log, "w") as out:
            out.write("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: smp\n    1..1\n"
                      "    ok 1 a\n    # smp: pass:1 fail:0 skip:0 total:1\nok 1 smp\n"
                      "# Totals: pass:1 fail:0 skip:0 total:1\n# RESULT: PASS\n")
        outcome = matrix.judge(self.entry, 0, "", log, 1.0, gdb_problems=["gdb exited with "
                                                                           "status 1"])
        self.assertFalse(outcome.ok)
        self.assertIn("gdb exited with status 1", outcome.reasons)
        self.assertTrue(matrix.judge(self.entry, 0, "", log, 1.0).ok)


class CheckStepTest(unittest.TestCase):
    def setUp(self):
        self.tmp = test_run.tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def files(self, status, log):
        status_path = os.path.join(self.dir, "check.status")
        log_path = os.path.join(self.dir, "check.log")
        with open(status_path, "w") as out:
            out.write(status)
        with open(log_path, "w") as out:
            out.write(log)
        return status_path, log_path

    UNIT_LOG = ("KTAP version 1\n...\n12 passed, 0 failed, 1 skipped\n# RESULT: PASS\n"
                "12 passed, 0 failed, 1 skipped\n")

    def test_pass(self):
        outcome = matrix.check_step(*self.files("0\n", self.UNIT_LOG))
        self.assertTrue(outcome.ok, outcome.reasons)
        self.assertEqual((outcome.passed, outcome.failed, outcome.skipped), (12, 0, 1))

    def test_unittest_summary_is_added(self):
        log = self.UNIT_LOG + "......s.\n------\nRan 8 tests in 1.2s\n\nOK (skipped=1)\n"
        outcome = matrix.check_step(*self.files("0", log))
        self.assertEqual((outcome.passed, outcome.failed, outcome.skipped), (19, 0, 2))
        log = self.UNIT_LOG + "Ran 8 tests in 1.2s\n\nFAILED (failures=1, errors=2)\n"
        outcome = matrix.check_step(*self.files("2", log))
        self.assertFalse(outcome.ok)
        self.assertEqual((outcome.passed, outcome.failed), (17, 3))

    def test_a_unittest_summary_without_its_verdict_is_not_counted(self):
        log = self.UNIT_LOG + "Ran 8 tests in 1.2s\n\nmodel-check: ok\nmodel-check: ok\n"
        outcome = matrix.check_step(*self.files("0", log))
        self.assertFalse(outcome.ok)
        self.assertEqual((outcome.passed, outcome.failed), (12, 1))
        self.assertIn("'Ran 8 tests in 1.2s' is not followed by unittest's OK or FAILED line",
                      outcome.reasons[0])

    def test_nonzero_status_is_a_failure(self):
        outcome = matrix.check_step(*self.files("2\n", self.UNIT_LOG))
        self.assertFalse(outcome.ok)
        self.assertEqual(outcome.failed, 1)
        self.assertIn("status 2", outcome.reasons[0])

    def test_a_failed_target_is_named_though_the_tail_is_elsewhere(self):
        # As in a CI run: every counted case passed, one uncounted recipe failed,
        # and make -j4 went on with the model checker, whose lines end the log.
        log = ("cmp build/trigos.iso build/reproducible/trigos.iso\n"
               "build/trigos.iso build/reproducible/trigos.iso differ: byte 32769, line 3\n"
               "make[1]: *** [Makefile:197: check-reproducible] Error 1\n"
               "make[1]: *** Waiting for unfinished jobs....\n" + self.UNIT_LOG +
               "".join(f"model-check: ok   mutant-{n}\n" for n in range(20)))
        outcome = matrix.check_step(*self.files("2", log))
        self.assertFalse(outcome.ok)
        self.assertEqual(outcome.details[-3:], [
            "failed | cmp build/trigos.iso build/reproducible/trigos.iso",
            "failed | build/trigos.iso build/reproducible/trigos.iso differ: byte 32769, line 3",
            "failed | make[1]: *** [Makefile:197: check-reproducible] Error 1"])
        self.assertEqual(outcome.details[-4], "log | model-check: ok   mutant-19")
        passing = matrix.check_step(*self.files("0", self.UNIT_LOG + "make: *** [x] Error 1\n"))
        self.assertFalse([line for line in passing.details if line.startswith("failed |")])

    def test_no_closing_line_or_unreadable(self):
        outcome = matrix.check_step(*self.files("0", "gcc: error: something\n"))
        self.assertFalse(outcome.ok)
        self.assertIn("no 'N passed, N failed' line", outcome.reasons[0])
        outcome = matrix.check_step(os.path.join(self.dir, "absent"), None)
        self.assertFalse(outcome.ok)
        outcome = matrix.check_step(*self.files("garbage", self.UNIT_LOG))
        self.assertFalse(outcome.ok)


class MatrixRunTest(test_run.FakeQemuCase):
    CONFIG = textwrap.dedent("""\
        [good-cdrom]
        run = --cpus 1
        groups = quick

        [good-kernel]
        run = --boot kernel
        cmdline = fake=pass seed=1,2
        groups = quick

        [fails]
        run = --boot usb
        cmdline = fake=fail

        [crashes]
        cmdline = fake=crash

        [skips]
        cmdline = fake=skip

        [hangs]
        cmdline = fake=hang
        timeout = 5
        """)

    def setUp(self):
        super().setUp()
        self.config = os.path.join(self.dir, "m.cfg")
        with open(self.config, "w") as out:
            out.write(self.CONFIG)
        self.logs = os.path.join(self.dir, "logs")

    def matrix(self, *args, timeout=60):
        return subprocess.run([sys.executable, MATRIX, "--iso", self.iso, "--kernel", self.elf,
                               "--log-dir", self.logs, *args], env=self.env, cwd=self.dir,
                              capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)

    def test_good_configurations(self):
        junit = os.path.join(self.dir, "junit")
        result = self.matrix("--group", "quick", "--jobs", "2", "--junit-dir", junit,
                             self.config)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[-1], "4 passed, 0 failed, 2 skipped")
        self.assertEqual(len(lines), 3, lines)
        for name in ("good-cdrom", "good-kernel"):
            line, = [line for line in lines if f" {name} " in line]
            self.assertTrue(line.startswith("PASS "), line)
            self.assertIn("pass:2 fail:0 skip:1", line)
            self.assertIn(os.path.join(self.logs, name + ".log"), line)
            self.assertTrue(os.path.isfile(os.path.join(self.logs, name + ".log")))
            root = ET.parse(os.path.join(junit, name + ".xml")).getroot()
            self.assertEqual(root.get("tests"), "3")
            self.assertEqual(root.find("testsuite").get("name"), f"{name}/alpha")
        argv = {tuple(record["argv"]) for record in self.records()}
        self.assertEqual(len(argv), 2)
        kernel_argv, = [a for a in argv if "-kernel" in a]
        self.assertIn(self.elf, kernel_argv)
        self.assertIn("fake=pass seed=1,2", kernel_argv)
        cdrom_argv, = [a for a in argv if "-cdrom" in a]
        self.assertIn(self.iso, cdrom_argv)
        self.assertEqual(cdrom_argv[cdrom_argv.index("-smp") + 1], "1")

    def test_every_outcome(self):
        status, log = os.path.join(self.dir, "status"), os.path.join(self.dir, "check.log")
        with open(status, "w") as out:
            out.write("0\n")
        with open(log, "w") as out:
            out.write("7 passed, 0 failed, 0 skipped\n")
        result = self.matrix("--jobs", "3", "--check-status", status, "--check-log", log,
                             self.config)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        lines = result.stdout.splitlines()
        verdicts = {}
        for line in lines:
            words = line.split()
            if len(words) > 2 and words[1] in ("make-check", "good-cdrom", "good-kernel",
                                               "fails", "crashes", "skips", "hangs"):
                verdicts[words[1]] = words[0]
        self.assertEqual(verdicts, {"make-check": "PASS", "good-cdrom": "PASS",
                                    "good-kernel": "PASS", "fails": "FAIL", "crashes": "CRASH",
                                    "skips": "SKIP", "hangs": "TIMEOUT"})
        # make check 7, good 2+2, fails 2 (+1 failed), crashes 1 passed and a
        # failure, skips 0 (1 skipped), hangs 1 passed and a failure.
        self.assertEqual(lines[-1], "15 passed, 3 failed, 3 skipped")
        self.assertIn("matrix: failed: ", result.stdout)
        text = result.stdout
        self.assertIn("not ok 2 alpha/two", text)            # the failing case is named
        self.assertIn("crashed", text)
        self.assertIn("timeout", text)
        self.assertIn("log | ", text)                         # the log's last lines

    def test_check_step_failure_fails_the_matrix(self):
        status, log = os.path.join(self.dir, "status"), os.path.join(self.dir, "check.log")
        with open(status, "w") as out:
            out.write("2\n")
        with open(log, "w") as out:
            out.write("make: *** [Makefile:1: check-unit] Error 1\n")
        result = self.matrix("--only", "good-cdrom", "--check-status", status, "--check-log",
                             log, self.config)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout.splitlines()[-1], "2 passed, 1 failed, 1 skipped")

    def test_check_beside_the_boots_is_judged_after_them(self):
        status, log = os.path.join(self.dir, "status"), os.path.join(self.dir, "check.log")
        with open(log, "w") as out:
            out.write("7 passed, 0 failed, 0 skipped\n")
        # The status file appears while the boots run, as check-recorded writes it.
        writer = subprocess.Popen(["sh", "-c", f"sleep 1; echo 0 > {status}"])
        try:
            result = self.matrix("--only", "good-cdrom", "--check-status", status,
                                 "--check-log", log, "--check-wait", "30", self.config)
        finally:
            writer.wait()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        lines = result.stdout.splitlines()
        self.assertTrue(lines[-2].split()[:2] == ["PASS", "make-check"], lines)
        self.assertEqual(lines[-1], "9 passed, 0 failed, 1 skipped")

    def test_check_that_never_finishes_fails_the_matrix(self):
        status, log = os.path.join(self.dir, "status"), os.path.join(self.dir, "check.log")
        with open(log, "w") as out:
            out.write("7 passed, 0 failed, 0 skipped\n")
        result = self.matrix("--only", "good-cdrom", "--check-status", status, "--check-log",
                             log, "--check-wait", "1", self.config)
        self.assertEqual(result.returncode, 1)
        self.assertIn("make check did not finish within 1 s after the boots", result.stdout)
        self.assertEqual(self.matrix("--check-wait", "5", self.config).returncode, 2)

    def test_wait_for_check_says_it_waits(self):
        ticks = iter(range(0, 1000, 10))
        out = io.StringIO()
        self.assertFalse(matrix.wait_for_check(os.path.join(self.dir, "absent"), 65, out=out,
                                               clock=lambda: next(ticks), sleep=lambda _: None))
        self.assertEqual(out.getvalue().count("matrix: waiting for make check"), 2)

    def test_missing_iso_is_a_failure(self):
        result = subprocess.run([sys.executable, MATRIX, "--iso", "/nonexistent.iso",
                                 "--log-dir", self.logs, "--only", "good-cdrom", self.config],
                                env=self.env, capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 1)
        self.assertIn("SETUP-ERROR", result.stdout)
        self.assertIn("make iso", result.stdout)
        self.assertEqual(result.stdout.splitlines()[-1], "0 passed, 1 failed, 0 skipped")

    def test_list_and_errors(self):
        result = self.matrix("--list", self.config)
        self.assertEqual(result.returncode, 0)
        self.assertEqual(len(result.stdout.splitlines()), 6)
        self.assertFalse(os.path.exists(self.record))      # nothing was booted
        result = self.matrix("--only", "nothing*", self.config)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no configuration", result.stderr)
        bad = os.path.join(self.dir, "bad.cfg")
        with open(bad, "w") as out:
            out.write("[a]\nrun = --cpus 1\nbogus line\n")
        result = self.matrix(bad)
        self.assertEqual(result.returncode, 2)
        self.assertIn("bad.cfg:3:", result.stderr)
        self.assertEqual(self.matrix("--jobs", "0", self.config).returncode, 2)

    def test_help(self):
        result = subprocess.run([sys.executable, MATRIX, "--help"], capture_output=True,
                                text=True)
        self.assertEqual(result.returncode, 0)
        for option in ("--jobs", "--only", "--group", "--junit-dir", "--check-status",
                       "--check-log", "--list"):
            self.assertIn(option, result.stdout)


class ExpectationRunTest(test_run.FakeQemuCase):
    """Whole matrix runs of configurations that fail on purpose."""

    MET = textwrap.dedent("""\
        [fails-as-expected]
        cmdline = fake=fail
        expect = fail
        expect_line = not ok 2 two
        expect_line = "    # two: EXPECTATION FAILED at tests/?.c:*"
        expect_line = *EXPECTATION FAILED at tests/x.c:3
        expect_line = # RESULT: FAIL
        forbid_line = *this line must never be printed*

        [crashes-as-expected]
        cmdline = fake=crash
        expect = crash
        expect_line = # PANIC: #PF page fault at 0x*
        expect_line = BdsDxe: loading Boot0001
        forbid_line = *RESULT: PASS*

        [hangs-as-expected]
        cmdline = fake=hang
        timeout = 5
        expect = timeout
        expect_line = ok 1 one
        forbid_line = # RESULT: *

        [skips-as-expected]
        cmdline = fake=skip
        expect = skip

        [passes-with-lines]
        cmdline = fake=pass
        expect_line = ok 1 three # SKIP no x2APIC
        forbid_line = not ok *
        """)

    UNMET = textwrap.dedent("""\
        [passes-unexpectedly]
        cmdline = fake=pass
        expect = fail

        [wrong-line]
        cmdline = fake=fail
        expect = fail
        expect_line = "  not ok 2 two"
        expect_line = *EXPECTATION FAILED at tests/y.c:*

        [forbidden-line]
        cmdline = fake=crash
        expect = crash
        forbid_line = *PANIC*

        [pass-missing-line]
        cmdline = fake=pass
        expect_line = ok 1 four

        [no-timeout]
        cmdline = fake=crash
        expect = timeout
        """)

    def matrix(self, text, *args):
        config = os.path.join(self.dir, "e.cfg")
        with open(config, "w") as out:
            out.write(text)
        self.junit = os.path.join(self.dir, "junit")
        return subprocess.run([sys.executable, MATRIX, "--iso", self.iso, "--kernel", self.elf,
                               "--log-dir", os.path.join(self.dir, "logs"), "--jobs", "8",
                               "--junit-dir", self.junit, *args, config],
                              env=self.env, cwd=self.dir, capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)

    @staticmethod
    def config_lines(stdout):
        lines = {}
        for line in stdout.splitlines():
            words = line.split()
            if len(words) > 2 and not line.startswith(" "):
                lines[words[1]] = line
        return lines

    def junit_counts(self, name):
        root = ET.parse(os.path.join(self.junit, name + ".xml")).getroot()
        return {key: root.get(key) for key in ("tests", "failures", "errors")}

    def test_expectations_met(self):
        result = self.matrix(self.MET)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        lines = self.config_lines(result.stdout)
        for name, expected, got in (("fails-as-expected", "fail", "fail"),
                                    ("crashes-as-expected", "crash", "crash"),
                                    ("hangs-as-expected", "timeout", "timeout"),
                                    ("skips-as-expected", "skip", "skip")):
            with self.subTest(name=name):
                line = lines[name]
                self.assertTrue(line.startswith("PASS "), line)
                self.assertIn("pass:1 fail:0 skip:0", line)
                self.assertIn(f"(expected {expected}, got {got}; not counted: the log's pass:",
                              line)
                self.assertEqual(self.junit_counts(name),
                                 {"tests": "1", "failures": "0", "errors": "0"})
        self.assertIn("not counted: the log's pass:2 fail:1 skip:0)",
                      lines["fails-as-expected"])
        self.assertTrue(lines["passes-with-lines"].startswith("PASS "))
        self.assertIn("pass:2 fail:0 skip:1", lines["passes-with-lines"])
        self.assertNotIn("expected", lines["passes-with-lines"])
        # 4 expectations + the 2 passed (1 skipped) cases of passes-with-lines.
        self.assertEqual(result.stdout.splitlines()[-1], "6 passed, 0 failed, 1 skipped")
        self.assertNotIn("failed:", result.stdout)

    def test_expectations_unmet(self):
        result = self.matrix(self.UNMET)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        lines = self.config_lines(result.stdout)
        for name in ("passes-unexpectedly", "wrong-line", "forbidden-line", "no-timeout",
                     "pass-missing-line"):
            self.assertTrue(lines[name].startswith("FAIL "), lines[name])
        self.assertIn("pass:0 fail:1 skip:0", lines["passes-unexpectedly"])
        self.assertIn("(expected fail, got pass;", lines["passes-unexpectedly"])
        self.assertIn("(expected crash, got crash;", lines["forbidden-line"])
        self.assertIn("(expected timeout, got crash;", lines["no-timeout"])
        self.assertIn("pass:2 fail:1 skip:1", lines["pass-missing-line"])
        text = result.stdout
        self.assertIn("\n    expected fail, got pass\n", text)
        self.assertIn("\n    expected timeout, got crash\n", text)
        self.assertIn("expect_line '  not ok 2 two' (", text)
        self.assertIn("e.cfg:8) matches no line of the log", text)
        self.assertIn("expect_line '*EXPECTATION FAILED at tests/y.c:*' (", text)
        self.assertIn("forbid_line '*PANIC*' (", text)
        self.assertIn("matches line 9 of the log: '# PANIC: #PF page fault at 0xdead'", text)
        self.assertIn("expect_line 'ok 1 four' (", text)
        self.assertNotIn("expected fail, got fail\n", text)   # wrong-line: only its lines
        self.assertIn("log | ", text)
        self.assertEqual(self.junit_counts("passes-unexpectedly"),
                         {"tests": "1", "failures": "1", "errors": "0"})
        # 4 unmet expectations count 1 failure each; pass-missing-line its 2
        # passed and 1 skipped cases and a failure.
        self.assertEqual(text.splitlines()[-1], "2 passed, 5 failed, 1 skipped")
        result = self.matrix(self.UNMET, "--list")
        self.assertEqual(result.returncode, 0)
        self.assertIn("wrong-line:   (cmdline='fake=fail'; expect=fail; "
                      "expect_line='  not ok 2 two'; ", result.stdout)


if __name__ == "__main__":
    unittest.main()
