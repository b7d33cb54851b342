# SPDX-License-Identifier: MIT
"""Tests of tools/ktap: crafted good and broken KTAP logs, garbage, JUnit output."""

import os
import random
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

from tools.tests import TOOLS, read_data
from trigos import ktap

KTAP_TOOL = os.path.join(TOOLS, "ktap")

GOOD = read_data("ktap/good.log")
# A parameterized case, printed as KUnit prints one: a third level.
PARAMS = read_data("ktap/params.log")

# What OVMF and GRUB write to the serial port before the kernel starts.
FIRMWARE_NOISE = read_data("ktap/firmware-noise.log")


def check(text, **options):
    return ktap.check(ktap.parse(text, "test"), **options)


def replace_line(text, old, new):
    assert old in text, old
    return text.replace(old, new, 1)


class GoodLogTest(unittest.TestCase):
    def test_good(self):
        result = check(GOOD)
        self.assertTrue(result.ok, result.problems)
        self.assertEqual((result.passed, result.failed, result.skipped, result.errors),
                         (5, 0, 1, 0))
        self.assertEqual([s.name for s in result.suites], ["lib_glob", "lib_random", "smp_boot"])
        self.assertEqual((result.suites[0].passed, result.suites[0].skipped), (2, 1))
        self.assertEqual(result.warnings, [])
        self.assertEqual(result.result, "PASS")

    def test_tree(self):
        doc = ktap.parse(GOOD)
        self.assertEqual(doc.root.plan, 3)
        suite = doc.root.children[0]
        self.assertEqual((suite.name, suite.subtest_name, suite.number, suite.plan),
                         ("lib_glob", "lib_glob", 1, 3))
        self.assertEqual([c.status for c in suite.children], ["pass", "pass", "skip"])
        self.assertEqual(suite.children[0].diagnostics, [(6, "star_matches: 12 patterns")])
        self.assertEqual(suite.children[2].directive, "SKIP not implemented")
        self.assertEqual(len(list(doc.root.leaves())), 6)

    def test_bytes_and_noise_before_ktap(self):
        data = (FIRMWARE_NOISE + "SeaBIOS (version 1.16.2-debian-1.16.2-1)\n").encode() + \
            b"\xff\xfe\x00garbage\x80\n" + GOOD.encode()
        result = ktap.check(ktap.parse(data))
        self.assertTrue(result.ok, result.problems)
        self.assertEqual(result.passed, 5)

    def test_crlf(self):
        result = check(GOOD.replace("\n", "\r\n"))
        self.assertTrue(result.ok, result.problems)
        self.assertEqual(result.passed, 5)

    def test_trailing_blank_lines_after_result(self):
        self.assertTrue(check(GOOD + "\n\r\n   \n").ok)
        self.assertTrue(check(GOOD.rstrip("\n")).ok)    # no final newline

    def test_no_totals_and_no_counts_lines(self):
        text = "".join(line + "\n" for line in GOOD.splitlines()
                       if ": pass:" not in line)
        result = check(text)
        self.assertTrue(result.ok, result.problems)

    def test_old_kunit_style_subtest_without_version_line(self):
        text = GOOD.replace("    KTAP version 1\n", "")
        self.assertTrue(check(text).ok)

    def test_unknown_and_diagnostic_lines_are_tolerated(self):
        text = replace_line(GOOD, "    ok 2 spread\n",
                            "cpu1: something odd\n      three spaces\n\tTab\n"
                            "    # spread: 1000 samples\n    ok 2 spread\n"
                            "        # deeper diagnostic\n")
        result = check(text)
        self.assertTrue(result.ok, result.problems)
        self.assertGreaterEqual(result.document.unknown_lines, 3)

    def test_deeper_nesting(self):
        text = """\
KTAP version 1
1..1
    KTAP version 1
    # Subtest: outer
    1..2
        KTAP version 1
        # Subtest: inner
        1..2
        ok 1 a
        ok 2 b # SKIP no
    ok 1 inner
    ok 2 c
ok 1 outer
# Totals: pass:2 fail:0 skip:1 total:3
# RESULT: PASS
"""
        result = check(text)
        self.assertTrue(result.ok, result.problems)
        self.assertEqual((result.passed, result.skipped), (2, 1))
        broken = text.replace("        ok 2 b # SKIP no", "        not ok 2 b")
        result = check(broken.replace("pass:2 fail:0 skip:1", "pass:2 fail:1 skip:0")
                       .replace("# RESULT: PASS", "# RESULT: FAIL"))
        self.assertFalse(result.ok)
        self.assertTrue(any("outer/inner/b" in p for p in result.problems), result.problems)

    def test_flat_top_level_cases(self):
        text = "KTAP version 1\n1..2\nok 1 a\nok 2 b\n# RESULT: PASS\n"
        result = check(text)
        self.assertTrue(result.ok, result.problems)
        self.assertEqual(result.passed, 2)


class SkipTest(unittest.TestCase):
    ALL_SKIPPED = """\
KTAP version 1
1..1
    KTAP version 1
    # Subtest: x2apic
    1..2
    ok 1 enable # SKIP no x2APIC under TCG
    ok 2 ipi # SKIP no x2APIC under TCG
    # x2apic: pass:0 fail:0 skip:2 total:2
ok 1 x2apic # SKIP all its cases were skipped
# Totals: pass:0 fail:0 skip:2 total:2
# RESULT: PASS
"""

    def test_all_skipped_passes_with_a_warning_by_default(self):
        result = check(self.ALL_SKIPPED)
        self.assertTrue(result.ok, result.problems)
        self.assertEqual(result.skipped, 2)
        self.assertEqual(len(result.warnings), 1)
        self.assertIn("skipped", result.warnings[0])

    def test_skip_only_modes(self):
        self.assertFalse(check(self.ALL_SKIPPED, skip_only="fail").ok)
        quiet = check(self.ALL_SKIPPED, skip_only="pass")
        self.assertTrue(quiet.ok)
        self.assertEqual(quiet.warnings, [])
        # One passing case is enough for --skip-only fail.
        self.assertTrue(check(GOOD, skip_only="fail").ok)

    def test_no_tests_at_all_fails_whatever_the_skip_mode(self):
        # A selection that matched nothing: even a kernel that said PASS is no pass.
        for mode in ktap.SKIP_ONLY_MODES:
            result = check("KTAP version 1\n1..0\n# Totals: pass:0 fail:0 skip:0 total:0\n"
                           "# RESULT: PASS\n", skip_only=mode)
            self.assertFalse(result.ok, mode)
            self.assertIn("no test case ran: a run that selects nothing fails", result.problems)

    NOTHING_MATCHED = """\
KTAP version 1
1..0
# test=smpp: no suite or case matches this pattern
# test=stop_machin: no suite or case matches this pattern
# no test case matched test=smpp,stop_machin: a run that selects nothing fails
# Totals: pass:0 fail:0 skip:0 total:0
# RESULT: FAIL
"""

    def test_nothing_matched_names_the_patterns(self):
        result = check(self.NOTHING_MATCHED)
        self.assertFalse(result.ok)
        self.assertEqual(result.problems, [
            "the kernel reported '# RESULT: FAIL' (line 7)",
            "line 3: test=smpp selects no test case",
            "line 4: test=stop_machin selects no test case",
            "no test case ran: a run that selects nothing fails"])

    def test_one_unmatched_pattern_beside_good_ones_fails(self):
        # Even if the kernel had said PASS: the checker reads the pattern line itself.
        text = GOOD.replace("# Totals:", "# bench=ipii: no suite or case matches this pattern\n"
                                         "# Totals:")
        result = check(text)
        self.assertFalse(result.ok)
        self.assertEqual(result.problems, ["line 26: bench=ipii selects no test case"])
        self.assertEqual(result.passed, 5)

    def test_a_backend_that_cannot_run_fails(self):
        # The tests ran on auto's choice: whatever RESULT says, mwaitx was not tested.
        text = GOOD.replace("# Totals:", "# trigger=mwaitx cannot run: this CPU lacks "
                                         "CPUID.80000001H:ECX[29] (MONITORX/MWAITX): the run "
                                         "fails (trigger=auto asks for the best available)\n"
                                         "# Totals:")
        result = check(text)
        self.assertFalse(result.ok)
        self.assertEqual(result.problems, [
            "line 26: trigger=mwaitx cannot run: this CPU lacks CPUID.80000001H:ECX[29] "
            "(MONITORX/MWAITX): what was asked for was not tested"])

    def test_all_skipped_selection_stays_a_skip(self):
        # Cases were selected and ran: a skip, not a failure, in the default mode.
        self.assertTrue(check(self.ALL_SKIPPED).ok)

    def test_suite_with_no_cases(self):
        text = replace_line(GOOD, "# RESULT: PASS", "")
        text = text.replace("1..3\n    KTAP", "1..4\n    KTAP", 1)
        text += ("    KTAP version 1\n    # Subtest: empty\n    1..0\n"
                 "ok 4 empty # SKIP no tests\n# RESULT: PASS\n")
        text = text.replace("# Totals: pass:5 fail:0 skip:1 total:6\n", "")
        result = check(text)
        self.assertTrue(result.ok, result.problems)
        self.assertEqual((result.passed, result.skipped), (5, 1))

    def test_not_ok_with_skip_is_a_skip(self):
        text = replace_line(GOOD, "    ok 3 classes # SKIP", "    not ok 3 classes # SKIP")
        self.assertTrue(check(text).ok)


class FailingLogTest(unittest.TestCase):
    def assertFails(self, text, *fragments, **options):
        result = check(text, **options)
        self.assertFalse(result.ok, "accepted a broken log")
        joined = "\n".join(result.problems)
        for fragment in fragments:
            self.assertIn(fragment, joined)
        self.assertGreaterEqual(result.counted_failed, 1)
        return result

    def test_not_ok_case(self):
        text = replace_line(GOOD, "    ok 2 question_mark", "    # question_mark: EXPECTATION "
                            "FAILED at tests/lib/glob.c:42\n    not ok 2 question_mark")
        text = replace_line(text, "ok 1 lib_glob", "not ok 1 lib_glob")
        text = replace_line(text, "pass:2 fail:0 skip:1 total:3", "pass:1 fail:1 skip:1 total:3")
        text = replace_line(text, "pass:5 fail:0", "pass:4 fail:1")
        text = replace_line(text, "# RESULT: PASS", "# RESULT: FAIL")
        result = self.assertFails(text, "RESULT: FAIL", "not ok 2 lib_glob/question_mark")
        self.assertEqual((result.passed, result.failed), (4, 1))
        path, failure = result.failures[0]
        self.assertEqual(path, ["lib_glob", "question_mark"])
        self.assertIn("glob.c:42", failure.diagnostics[0][1])

    def test_not_ok_even_if_result_says_pass(self):
        text = replace_line(GOOD, "    ok 2 spread", "    not ok 2 spread")
        self.assertFails(text, "not ok 2 lib_random/spread")

    def test_error_case(self):
        text = replace_line(GOOD, "    ok 1 all_cpus_online",
                            "    not ok 1 all_cpus_online # ERROR #PF page fault")
        text = replace_line(text, "pass:1 fail:0 skip:0 total:1", "pass:0 fail:1 skip:0 total:1")
        text = replace_line(text, "ok 3 smp_boot", "not ok 3 smp_boot")
        text = replace_line(text, "pass:5 fail:0", "pass:4 fail:1")
        text = replace_line(text, "# RESULT: PASS", "# RESULT: FAIL")
        result = self.assertFails(text, "ERROR #PF page fault")
        self.assertEqual((result.errors, result.failed, result.suites[2].errors), (1, 1, 1))
        # The totals agree (an error is counted as a failure): no complaint about them.
        self.assertFalse(any("Totals" in p for p in result.problems), result.problems)

    def test_not_ok_suite_line(self):
        self.assertFails(replace_line(GOOD, "ok 2 lib_random", "not ok 2 lib_random"),
                         "not ok 2 lib_random")

    def test_missing_suite_plan(self):
        self.assertFails(replace_line(GOOD, "    1..2\n", ""), "lib_random", "no plan")

    def test_missing_top_plan(self):
        self.assertFails(replace_line(GOOD, "1..3\n", ""), "top level", "no plan")

    def test_short_plan(self):
        text = replace_line(GOOD, "    ok 2 spread\n", "")
        text = replace_line(text, "pass:2 fail:0 skip:0 total:2", "pass:1 fail:0 skip:0 total:1")
        text = replace_line(text, "pass:5 fail:0 skip:1 total:6", "pass:4 fail:0 skip:1 total:5")
        self.assertFails(text, "planned 2", "1 missing")

    def test_too_many_results(self):
        text = replace_line(GOOD, "    ok 2 spread\n", "    ok 2 spread\n    ok 3 extra\n")
        self.assertFails(text, "too many")

    def test_top_level_short(self):
        self.assertFails(replace_line(GOOD, "1..3", "1..4"), "planned 4", "1 missing")

    def test_numbering_gap(self):
        text = replace_line(GOOD, "    ok 2 question_mark", "    ok 4 question_mark")
        self.assertFails(text, "result number 4 where 2")

    def test_numbering_repeat_and_order(self):
        self.assertFails(replace_line(GOOD, "    ok 2 spread", "    ok 1 spread"),
                         "result number 1 where 2")
        self.assertFails(replace_line(GOOD, "ok 3 smp_boot", "ok 0 smp_boot"),
                         "result number 0 where 3")

    def test_name_mismatch(self):
        self.assertFails(replace_line(GOOD, "ok 2 lib_random", "ok 2 lib_randomm"),
                         "'lib_randomm' differs from '# Subtest: lib_random'")

    def test_totals_disagree(self):
        self.assertFails(replace_line(GOOD, "# Totals: pass:5", "# Totals: pass:6"),
                         "Totals", "disagrees")

    def test_suite_counts_disagree(self):
        self.assertFails(replace_line(GOOD, "# lib_random: pass:2", "# lib_random: pass:3"),
                         "lib_random: pass:3", "disagrees")

    def test_no_ktap(self):
        self.assertFails(FIRMWARE_NOISE + "Booting from DVD/CD...\n", "no KTAP")
        self.assertFails("", "empty")
        self.assertFails(GOOD.replace("KTAP version 1", "KTAP version 2"), "no KTAP")
        # Not at column 0, or not alone on its line: not the start of the KTAP.
        self.assertFails(" " + GOOD, "no KTAP")
        self.assertFails("noise" + GOOD, "no KTAP")

    def test_result_missing(self):
        text = replace_line(GOOD, "# RESULT: PASS\n", "")
        self.assertFails(text, "no RESULT line: the kernel crashed or hung after suite "
                         "smp_boot (3 of 3)")

    def test_result_missing_mid_suite(self):
        text = GOOD[:GOOD.index("    ok 2 spread")]
        result = self.assertFails(text, "no RESULT line: the kernel crashed or hung after "
                                  "case same_seed_same_stream of suite lib_random")
        self.assertEqual(result.passed, 3)

    def test_result_missing_before_first_case(self):
        text = GOOD[:GOOD.index("    ok 1 same_seed")]
        self.assertFails(text, "before the first case of suite lib_random")

    def test_result_fail(self):
        self.assertFails(replace_line(GOOD, "# RESULT: PASS", "# RESULT: FAIL"),
                         "RESULT: FAIL")

    def test_result_crash_with_dump(self):
        text = GOOD[:GOOD.index("    ok 2 spread")]
        text += ("# PANIC on CPU 1: #PF page fault, error code 0x2\n# CR2 0x0000000000000008\n"
                 "# RIP 0x102345 spread+0x45\n# RESULT: CRASH\n")
        result = self.assertFails(text, "crashed", "after case same_seed_same_stream of suite "
                                  "lib_random")
        self.assertEqual(result.result, "CRASH")
        self.assertIn("RIP 0x102345 spread+0x45", result.dump)

    def test_result_unknown(self):
        self.assertFails(replace_line(GOOD, "# RESULT: PASS", "# RESULT: MAYBE"), "MAYBE")
        self.assertFails(replace_line(GOOD, "# RESULT: PASS", "# RESULT: PASSED"), "PASSED")

    def test_result_indented_is_not_the_result(self):
        self.assertFails(replace_line(GOOD, "# RESULT: PASS", "    # RESULT: PASS"),
                         "no RESULT line")

    def test_result_not_last(self):
        self.assertFails(GOOD + "trailing noise\n", "goes on after")
        self.assertFails(GOOD + GOOD, "again at column 0")

    def test_restart_keeps_the_last_run(self):
        truncated = GOOD[:GOOD.index("ok 2 lib_random")]
        result = self.assertFails(truncated + GOOD, "again at column 0")
        self.assertEqual(result.passed, 5)

    def test_subtest_without_parent_result(self):
        text = replace_line(GOOD, "ok 2 lib_random\n", "")
        self.assertFails(text, "'lib_random' has no result line")

    def test_second_plan(self):
        self.assertFails(replace_line(GOOD, "    1..2\n", "    1..2\n    1..2\n"), "second plan")

    def test_truncated_at_every_line(self):
        lines = GOOD.splitlines(keepends=True)
        for count in range(len(lines)):
            with self.subTest(lines=count):
                self.assertFalse(check("".join(lines[:count])).ok)
        self.assertTrue(check("".join(lines)).ok)

    def test_truncated_at_every_byte(self):
        data = (FIRMWARE_NOISE + GOOD).encode()
        # The full log, with or without its final newline, is the only good prefix.
        for size in range(len(data) - 1):
            result = ktap.check(ktap.parse(data[:size]))
            if result.ok:
                self.fail(f"a log cut after {size} of {len(data)} bytes passed")

    def test_garbled_structure_lines(self):
        for old, new in (("    ok 2 spread", "    o\xffk 2 spread"),
                         ("    ok 2 spread", "    ok\x002 spread"),
                         ("    1..2", "    1..\ufffd"),
                         ("ok 3 smp_boot", "ok 3smp_boot"),
                         ("# RESULT: PASS", "# RESULT: P\x00SS"),
                         ("# RESULT: PASS", "# RE\ufffdULT: PASS"),
                         ("# RESULT: PASS", "#\x1cRESULT: PASS"),
                         ("# RESULT: PASS", "# RESULT: PASS\n\x1c"),
                         ("# RESULT: PASS", "# RESULT:PASS")):
            with self.subTest(new=new):
                self.assertFalse(check(replace_line(GOOD, old, new)).ok)

    def test_random_byte_corruption_never_crashes(self):
        rng = random.Random(1234)
        data = bytearray(GOOD.encode())
        for _ in range(300):
            corrupt = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                corrupt[rng.randrange(len(corrupt))] = rng.randrange(256)
            result = ktap.check(ktap.parse(bytes(corrupt)))
            if result.ok:
                # Only harmless damage (a diagnostic, a description) can pass,
                # and never without the final PASS line intact.
                self.assertEqual(bytes(corrupt).rstrip(b"\n").rsplit(b"\n", 1)[1].rstrip(),
                                 b"# RESULT: PASS")
                self.assertEqual(result.passed + result.skipped, 6)

    def test_binary_noise(self):
        rng = random.Random(99)
        noise = bytes(rng.randrange(256) for _ in range(65536))
        result = ktap.check(ktap.parse(noise))
        self.assertFalse(result.ok)
        # Noise before the KTAP is skipped...
        self.assertTrue(ktap.check(ktap.parse(noise + b"\n" + GOOD.encode())).ok)
        # ...noise after the RESULT line is not a PASS...
        self.assertFalse(ktap.check(ktap.parse(GOOD.encode() + noise)).ok)
        # ...and noise replacing part of the KTAP breaks it.
        good = GOOD.encode()
        cut = good.index(b"    ok 2 spread")
        self.assertFalse(ktap.check(ktap.parse(good[:cut] + noise[:300] + b"\n" +
                                               good[cut + 20:])).ok)

    def test_two_cpus_interleaved_mid_line(self):
        # CPU 1 printed "    # cpu1: online\n" while CPU 0 was half-way through a
        # result line: the result is destroyed, and that must be noticed.
        text = replace_line(GOOD, "    ok 2 spread\n", "    ok     # cpu1: online\n2 spread\n")
        self.assertFails(text, "1 missing")
        text = replace_line(GOOD, "    ok 1 star_matches\n",
                            "    ok 1 sta    ok 1 same_seed\nr_matches\n")
        result = check(text)
        self.assertFalse(result.ok)
        # Two whole lines interleaved (each intact): still a valid log.
        text = replace_line(GOOD, "    ok 2 spread\n", "    ok 2 spread\n    # cpu1: online\n")
        self.assertTrue(check(text).ok)

    def test_huge_lines(self):
        huge = "x" * (1 << 20)
        started = time.monotonic()
        inside = replace_line(GOOD, "    ok 2 spread\n", f"    # spread: {huge}\n    ok 2 spread\n")
        self.assertTrue(check(inside).ok)
        self.assertTrue(check(huge + "\n" + GOOD).ok)
        result = check(replace_line(GOOD, "    ok 2 spread\n", f"    ok 2 {huge} # WHAT{huge}\n"))
        self.assertTrue(all(len(p) < 1000 for p in result.problems + result.warnings))
        result = check(replace_line(GOOD, "    ok 2 spread\n", f"    ok {huge}\n"))
        self.assertFalse(result.ok)
        result = check(GOOD + huge)
        self.assertFalse(result.ok)
        self.assertTrue(all(len(p) < 1000 for p in result.problems))
        # Linear work is well under a second; a quadratic parse of 1 MiB lines, hours.
        self.assertLess(time.monotonic() - started, 60)

    def test_only_garbage_lines(self):
        for text in ("\n" * 1000, "\r\r\r", "\x00" * 100, "KTAP version 1", "KTAP version 1\n",
                     "KTAP version 1\n1..1\n", "KTAP version 1\n# RESULT: PASS\n",
                     "KTAP version 1\n        ok 1 deep\n# RESULT: PASS\n",
                     "KTAP version 1\n1..1\nok 1 x\n    1..1\n# RESULT: PASS\n",
                     "# RESULT: PASS\n", "ok 1 x\n# RESULT: PASS\n"):
            with self.subTest(text=text[:40]):
                self.assertFalse(check(text).ok)


class ParameterTest(unittest.TestCase):
    def test_parameters_are_results(self):
        result = check(PARAMS)
        self.assertTrue(result.ok, result.problems)
        self.assertEqual((result.passed, result.failed, result.skipped), (3, 0, 1))
        case = result.document.root.children[0].children[1]
        self.assertEqual([p.name for p in case.children], ["spin", "hlt", "mwait"])
        self.assertEqual(case.children[1].diagnostics[0][1],
                         "kick_before_wait_returns_at_once: a diagnostic of the hlt parameter")

    def test_a_failed_parameter_fails_the_log(self):
        text = replace_line(PARAMS, "        ok 2 hlt", "        not ok 2 hlt")
        text = replace_line(text, "pass:2 fail:0 skip:1 total:3", "pass:1 fail:1 skip:1 total:3")
        text = replace_line(text, "    ok 2 kick_before", "    not ok 2 kick_before")
        text = text.replace("pass:3 fail:0 skip:1 total:4", "pass:2 fail:1 skip:1 total:4")
        text = replace_line(text, "ok 1 trigger", "not ok 1 trigger")
        result = check(text.replace("# RESULT: PASS", "# RESULT: FAIL"))
        self.assertFalse(result.ok)
        self.assertIn("line 12: not ok 2 trigger/kick_before_wait_returns_at_once/hlt",
                      result.problems)
        self.assertEqual(result.failed, 1)

    def test_the_case_counts_line_is_checked(self):
        text = replace_line(PARAMS, "pass:2 fail:0 skip:1 total:3", "pass:3 fail:0 skip:0 total:3")
        result = check(text)
        self.assertFalse(result.ok)
        self.assertTrue(any("'# kick_before_wait_returns_at_once: pass:3" in problem
                            for problem in result.problems), result.problems)

    def test_a_missing_parameter_is_a_problem(self):
        result = check(PARAMS.replace("        ok 3 mwait # SKIP not on this CPU\n", ""))
        self.assertFalse(result.ok)
        self.assertTrue(any("planned 3 results" in problem for problem in result.problems),
                        result.problems)

    def test_junit_has_a_case_per_parameter(self):
        root = ET.fromstring(ET.tostring(ktap.junit_element([check(PARAMS)])))
        names = [case.get("name") for case in root.iter("testcase")]
        self.assertEqual(names, ["plain_case", "kick_before_wait_returns_at_once/spin",
                                 "kick_before_wait_returns_at_once/hlt",
                                 "kick_before_wait_returns_at_once/mwait"])
        self.assertEqual((root.get("tests"), root.get("skipped")), ("4", "1"))


class JunitTest(unittest.TestCase):
    def element(self, *texts, prefix=None):
        checks = [ktap.check(ktap.parse(text, f"log{index}"))
                  for index, text in enumerate(texts)]
        xml = ET.tostring(ktap.junit_element(checks, prefix_labels=prefix), encoding="unicode")
        return ET.fromstring(xml)

    def test_structure(self):
        text = replace_line(GOOD, "    ok 2 question_mark", "    # question_mark: EXPECTATION "
                            "FAILED at glob.c:42 <&> \x01\x1b[0m\n    not ok 2 question_mark")
        root = self.element(text)
        self.assertEqual(root.tag, "testsuites")
        suites = root.findall("testsuite")
        self.assertEqual([s.get("name") for s in suites], ["lib_glob", "lib_random", "smp_boot",
                                                           "log"])
        glob = suites[0]
        self.assertEqual((glob.get("tests"), glob.get("failures"), glob.get("skipped")),
                         ("3", "1", "1"))
        cases = glob.findall("testcase")
        self.assertEqual([c.get("name") for c in cases],
                         ["star_matches", "question_mark", "classes"])
        failure = cases[1].find("failure")
        self.assertIn("glob.c:42 <&>", failure.text)
        self.assertEqual(cases[2].find("skipped").get("message"), "not implemented")
        self.assertIsNone(cases[0].find("failure"))
        # The log's problem (a failed case) is reported, but is no test case.
        self.assertEqual(root.get("tests"), "6")
        self.assertEqual(suites[-1].get("tests"), "0")
        self.assertEqual(len(suites[-1].findall("testcase")), 0)

    def test_counts_are_the_ktap_results(self):
        """Two failed cases are tests="2", not 3 with a case for the log."""
        text = GOOD.replace("ok 1 same_seed_same_stream", "not ok 1 same_seed_same_stream")
        text = text.replace("    ok 2 spread", "    not ok 2 spread")
        root = self.element(text)
        random_suite = root.findall("testsuite")[1]
        self.assertEqual((random_suite.get("tests"), random_suite.get("failures")), ("2", "2"))
        self.assertEqual((root.get("tests"), root.get("failures"), root.get("errors")),
                         ("6", "2", "0"))

    def test_crash_is_reported_without_a_test_case(self):
        text = GOOD[:GOOD.index("    ok 2 spread")] + "# PANIC: oops\n# RESULT: CRASH\n"
        root = self.element(text)
        log_suite = root.findall("testsuite")[-1]
        self.assertEqual(log_suite.get("name"), "log")
        self.assertEqual(log_suite.get("tests"), "0")
        self.assertIsNone(log_suite.find("testcase"))
        self.assertIn("crashed", log_suite.find("properties/property[@name='problem']")
                      .get("value"))
        self.assertEqual(log_suite.find("properties/property[@name='verdict']").get("value"),
                         "FAIL")
        self.assertIn("PANIC: oops", log_suite.find("system-err").text)
        self.assertEqual(root.get("tests"), "4")

    def test_several_logs_are_prefixed(self):
        root = self.element(GOOD, "garbage \x00\xff")
        names = [s.get("name") for s in root.findall("testsuite")]
        self.assertIn("log0/lib_glob", names)
        self.assertIn("log1/log", names)

    def test_garbage_makes_well_formed_xml(self):
        rng = random.Random(7)
        for _ in range(20):
            noise = bytes(rng.randrange(256) for _ in range(2000))
            data = GOOD.encode().replace(b"12 patterns", noise.replace(b"\n", b" "))
            checks = [ktap.check(ktap.parse(data))]
            with tempfile.TemporaryDirectory() as directory:
                path = os.path.join(directory, "sub", "out.xml")
                ktap.write_junit(path, checks)
                ET.parse(path)


class CommandLineTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as log:
            log.write(text.encode() if isinstance(text, str) else text)
        return path

    def tool(self, *args):
        return subprocess.run([sys.executable, KTAP_TOOL, *args], capture_output=True,
                              text=True, stdin=subprocess.DEVNULL)

    def test_good_log(self):
        result = self.tool(self.write("good.log", GOOD))
        self.assertEqual(result.returncode, 0, result.stdout)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[-1], "5 passed, 0 failed, 1 skipped")
        self.assertTrue(any("lib_glob" in line and "2" in line for line in lines))
        self.assertEqual(result.stderr, "")

    def test_several_logs_are_summed(self):
        good = self.write("good.log", GOOD)
        crashed = self.write("crashed.log", GOOD[:GOOD.index("    ok 2 spread")])
        result = self.tool("--quiet", good, crashed, good)
        self.assertEqual(result.returncode, 1)
        lines = result.stdout.splitlines()
        # The crash counts as a failure though no case printed "not ok".
        self.assertEqual(lines[-1], "13 passed, 1 failed, 3 skipped")
        self.assertTrue(all("crashed.log" in line for line in lines[:-1]), lines)
        self.assertIn("no RESULT line", result.stdout)

    def test_quiet_good_log_prints_only_the_closing_line(self):
        result = self.tool("-q", self.write("good.log", GOOD))
        self.assertEqual(result.stdout, "5 passed, 0 failed, 1 skipped\n")

    def test_name_and_missing_file(self):
        result = self.tool("--name", "uefi-2cpu", os.path.join(self.dir, "absent.log"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("uefi-2cpu: cannot read the log", result.stdout)
        self.assertEqual(result.stdout.splitlines()[-1], "0 passed, 1 failed, 0 skipped")

    def test_skip_only_option(self):
        path = self.write("skip.log", SkipTest.ALL_SKIPPED)
        result = self.tool(path)
        self.assertEqual(result.returncode, 0)
        self.assertIn("warning", result.stdout)
        self.assertEqual(self.tool("--skip-only", "fail", path).returncode, 1)

    def test_junit_option(self):
        junit = os.path.join(self.dir, "out", "junit.xml")
        result = self.tool("--junit", junit, self.write("good.log", GOOD))
        self.assertEqual(result.returncode, 0)
        root = ET.parse(junit).getroot()
        self.assertEqual(len(root.findall("testsuite/testcase")), 6)

    def test_usage_error(self):
        self.assertEqual(self.tool().returncode, 2)
        self.assertEqual(self.tool("--bogus", "x").returncode, 2)

    def test_help(self):
        result = self.tool("--help")
        self.assertEqual(result.returncode, 0)
        for option in ("--junit", "--quiet", "--skip-only", "--name", "--compare"):
            self.assertIn(option, result.stdout)

    def test_compare_two_logs(self):
        old = self.write("old.log", GOOD)
        # Another boot of the same build: other timings, same cases and verdicts.
        same = self.write("same.log", replace_line(replace_line(
            GOOD, "# star_matches: 12 patterns", "# star_matches: 13 patterns"),
            "# all_cpus_online: 2 CPUs", "# all_cpus_online: 2 CPUs in 1234 us"))
        result = self.tool("--compare", old, same)
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertIn("1 identical, 0 differ", result.stdout)
        changed = self.write("changed.log", replace_line(
            GOOD, "ok 2 spread", "ok 2 spread # SKIP 3 CPUs short"))
        result = self.tool("--compare", old, changed)
        self.assertEqual(result.returncode, 1)
        self.assertIn("changed.log: the outlines differ", result.stdout)
        self.assertIn("+    skip 2 spread # SKIP N CPUs short", result.stdout)
        self.assertIn("0 identical, 1 differ", result.stdout)

    def test_compare_directories(self):
        for side in ("a", "b"):
            os.makedirs(os.path.join(self.dir, side))
            self.write(os.path.join(side, "both.log"), GOOD)
        self.write(os.path.join("a", "gone.log"), GOOD)
        self.write(os.path.join("b", "new.log"), GOOD)
        result = self.tool("--compare", os.path.join(self.dir, "a"), os.path.join(self.dir, "b"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("gone.log: only in", result.stdout)
        self.assertIn("new.log: only in", result.stdout)
        self.assertIn("1 identical, 0 differ, 1 only in the old, 1 only in the new",
                      result.stdout)
        self.assertEqual(self.tool("--compare", os.path.join(self.dir, "a")).returncode, 2)
        self.assertEqual(self.tool("--compare", os.path.join(self.dir, "a"),
                                   os.path.join(self.dir, "b", "both.log")).returncode, 2)


class OutlineTest(unittest.TestCase):
    def test_outline_keeps_results_and_masks_directive_numbers(self):
        text = replace_line(GOOD, "ok 3 classes # SKIP not implemented",
                            "not ok 3 classes # ERROR #PF at 0xffff8000 after 12.5 ms")
        lines = ktap.outline(ktap.parse(text, "x"))
        self.assertIn("    error 3 classes # ERROR #PF at 0x? after N ms", lines)
        self.assertIn("    # Subtest: lib_random", lines)
        self.assertIn("pass 3 smp_boot", lines)
        self.assertEqual(lines[-1], "# RESULT: PASS")
        self.assertFalse(any("patterns" in line for line in lines))


if __name__ == "__main__":
    unittest.main()
