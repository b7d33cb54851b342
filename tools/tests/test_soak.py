# SPDX-License-Identifier: MIT
"""Tests of tools/soak: what it draws, how it seeds, how it counts, and whole
soaks through tools/run against the fake QEMU of test_run.py."""

import json
import os
import subprocess
import sys
import textwrap
import unittest

# The fake QEMU and its fixture live in test_run.py.
from tools.tests import TOOLS
from tools.tests.test_run import FakeQemuCase
from trigos import matrix, soak

SOAK = os.path.join(TOOLS, "soak")

CONFIG = textwrap.dedent("""\
    [plain]
    run = --boot kernel --cpus 2
    cmdline = cpus=2 seed=1

    [in-run]
    run = --boot kernel --cmdline "test=lib_* seed=7"

    [no-cmdline]
    run = --cpus 1

    [deliberate]
    cmdline = test=selftest_panic
    expect = crash
    """)


class SelectionTest(unittest.TestCase):
    def setUp(self):
        self.entries = matrix.parse_config(CONFIG, "soak.cfg")

    def test_expectations_are_left_out_unless_all(self):
        self.assertEqual([e.name for e in soak.candidates(self.entries)],
                         ["plain", "in-run", "no-cmdline"])
        self.assertEqual(len(soak.candidates(self.entries, include_expectations=True)), 4)

    def test_plan_depends_on_the_seed_only(self):
        pool = soak.candidates(self.entries)
        first = soak.make_plan(pool, 50, 1234)
        self.assertEqual(first, soak.make_plan(pool, 50, 1234))
        self.assertNotEqual(first, soak.make_plan(pool, 50, 1235))
        self.assertEqual([step[0] for step in first], list(range(1, 51)))
        self.assertEqual({step[1] for step in first}, {"plain", "in-run", "no-cmdline"})
        for _, _, seed in first:
            self.assertTrue(1 <= seed < soak.SEED_LIMIT)

    def test_seed_replaces_the_configurations_own(self):
        by_name = {e.name: e for e in self.entries}
        plain = soak.with_seed(by_name["plain"], 42, "0001-plain")
        self.assertEqual(plain.cmdline, "cpus=2 seed=42")
        self.assertEqual(plain.name, "0001-plain")
        self.assertEqual(by_name["plain"].cmdline, "cpus=2 seed=1")     # not modified
        in_run = soak.with_seed(by_name["in-run"], 9, "x")
        self.assertEqual(in_run.run_args, ["--boot", "kernel"])
        self.assertEqual(in_run.cmdline, "test=lib_* seed=9")
        self.assertEqual(soak.with_seed(by_name["no-cmdline"], 5, "y").cmdline, "seed=5")

    def test_split_cmdline_forms(self):
        self.assertEqual(soak.split_cmdline(["--cmdline=a b", "--cpus", "2"]),
                         (["--cpus", "2"], "a b"))
        self.assertEqual(soak.split_cmdline(["--cmdline"]), (["--cmdline"], None))


class Outcome:
    def __init__(self, ok, verdict):
        self.ok, self.verdict = ok, verdict


class CountingTest(unittest.TestCase):
    def test_classify(self):
        self.assertEqual(soak.classify(Outcome(True, "PASS")), "pass")
        self.assertEqual(soak.classify(Outcome(True, "SKIP")), "pass")
        self.assertEqual(soak.classify(Outcome(False, "TIMEOUT")), "hang")
        self.assertEqual(soak.classify(Outcome(False, "CRASH")), "fail")
        self.assertEqual(soak.classify(Outcome(False, "NO-VERDICT")), "fail")
        # A self-test that expects a timeout and got something else failed.
        self.assertEqual(soak.classify(Outcome(False, "FAIL"), expect="timeout"), "fail")

    def test_summary(self):
        records = [
            {"boot": 1, "config": "a", "seed": 5, "kind": "pass", "verdict": "PASS",
             "seconds": 2.0, "command": "tools/run a", "log": ""},
            {"boot": 2, "config": "b", "seed": 6, "kind": "fail", "verdict": "CRASH",
             "seconds": 3.0, "command": "tools/run b", "log": "logs/0002-b.log"},
            {"boot": 3, "config": "b", "seed": 7, "kind": "hang", "verdict": "TIMEOUT",
             "seconds": 60.0, "command": "tools/run c", "log": "logs/0003-b.log"},
        ]
        summary = soak.summarize(records, 99, 40.04)
        self.assertEqual((summary["boots"], summary["passes"], summary["failures"],
                          summary["hangs"]), (3, 1, 1, 1))
        self.assertEqual(summary["per_config"]["b"], {"pass": 0, "fail": 1, "hang": 1})
        self.assertEqual([bad["seed"] for bad in summary["bad"]], [6, 7])
        self.assertEqual(summary["wall_seconds"], 40.0)
        text = "\n".join(soak.format_summary(summary, 3))
        self.assertIn("3 of 3 boots: 1 passed, 1 failed, 1 hung", text)
        self.assertIn("boot 2 FAIL b seed=6 (CRASH); log logs/0002-b.log", text)
        self.assertIn("repeat: tools/run c", text)
        self.assertIn("tools/soak --seed 99 --boots 3", text)


class SoakRunTest(FakeQemuCase):
    RUN_CONFIG = textwrap.dedent("""\
        [good]
        run = --boot kernel
        cmdline = fake=pass

        [bad]
        cmdline = fake=crash

        [stuck]
        cmdline = fake=hang
        timeout = 2

        [selftest]
        cmdline = fake=fail
        expect = fail
        """)

    def soak(self, *args):
        config = os.path.join(self.dir, "s.cfg")
        with open(config, "w") as out:
            out.write(self.RUN_CONFIG)
        out_dir = os.path.join(self.dir, "soak")
        result = subprocess.run([sys.executable, SOAK, "--iso", self.iso, "--kernel", self.elf,
                                 "--out", out_dir, *args, config], env=self.env, cwd=self.dir,
                                capture_output=True, text=True, timeout=120,
                                stdin=subprocess.DEVNULL)
        with open(os.path.join(out_dir, "soak.json")) as stream:
            return result, json.load(stream), out_dir

    def test_counts_and_reproduction(self):
        result, record, out_dir = self.soak("--boots", "8", "--seed", "3")
        plan = soak.make_plan(soak.candidates(matrix.parse_config(self.RUN_CONFIG)), 8, 3)
        want = {"good": 0, "bad": 0, "stuck": 0}
        for _, name, _ in plan:
            want[name] += 1
        self.assertTrue(want["bad"] and want["stuck"], plan)    # seed 3 draws every kind
        summary = record["summary"]
        self.assertEqual((summary["passes"], summary["failures"], summary["hangs"]),
                         (want["good"], want["bad"], want["stuck"]))
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual([list(step) for step in plan], record["plan"])
        # Every bad boot names its seed and a command that repeats it, and keeps its log.
        for bad in summary["bad"]:
            self.assertIn(f"seed={bad['seed']}", bad["command"])
            self.assertIn(f"{bad['config']} seed={bad['seed']}", result.stdout)
            self.assertTrue(os.path.isfile(bad["log"]), bad)
        kept = sorted(os.listdir(os.path.join(out_dir, "logs")))
        self.assertEqual(len(kept), want["bad"] + want["stuck"])
        # The fake QEMU saw each planned seed on its command line.
        argv = [" ".join(r["argv"]) for r in self.records()]
        for _, _, seed in plan:
            self.assertTrue(any(f"seed={seed}" in a for a in argv), seed)

    def test_all_draws_the_expectations_too(self):
        result, record, _ = self.soak("--boots", "6", "--seed", "11", "--all",
                                      "--only", "selftest", "--only", "good")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(record["summary"]["passes"], 6)
        self.assertIn("selftest", {step[1] for step in record["plan"]})
