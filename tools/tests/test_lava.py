# SPDX-License-Identifier: MIT
"""Tests of tools/lava (LAVA's results against tools/ktap's) and of the
monitor patterns of ci/lava/qemu-job.yaml, applied the way lava_dispatcher
2023.01 applies them (no lava-dispatcher needed)."""

import os
import re
import unittest

from tools.tests import TOOLS, read_data
from trigos import ktap, lava

JOB = os.path.join(os.path.dirname(TOOLS), "ci", "lava", "qemu-job.yaml")

LOG = read_data("lava/two-suites-fail.log")
WANT = [("first_case", "pass"), ("second_case", "fail"), ("third_case", "skip"),
        ("faults", "fail"), ("mixed_name_case", "pass")]


def single_quoted(value):
    """A YAML single-quoted scalar ('' is a quote), or a plain one, as the job writes them."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    return value


def job_monitors(path=JOB):
    """The monitors of the job file: [{name, start, end, pattern, fixupdict}]."""
    monitors, current, in_fixup = [], None, False
    with open(path, encoding="utf-8") as stream:
        for line in stream:
            item = re.match(r"\s*- name: (.*)", line)
            if item:
                current = {"name": item.group(1).strip(), "fixupdict": {}}
                monitors.append(current)
                in_fixup = False
                continue
            if current is None:
                continue
            key = re.match(r"\s+(start|end|pattern|fixupdict):(.*)", line)
            if key:
                in_fixup = key.group(1) == "fixupdict"
                if not in_fixup:
                    current[key.group(1)] = single_quoted(key.group(2))
                continue
            pair = re.match(r"\s{8,}(\S[^:]*): (\S+)\s*$", line)
            if in_fixup and pair:
                current["fixupdict"][pair.group(1)] = pair.group(2)
    return monitors


def run_monitors(monitors, text, chunk):
    """LAVA's monitor loop over @text arriving @chunk characters at a time.

    As lava_dispatcher/actions/test/monitor.py with pexpect: each monitor
    waits for its start, then looks for [end, pattern] in the buffer; the
    earliest match wins (the end on a tie), and the buffer is consumed up to
    the match's end.  The pty that QEMU's stdio is on turns LF into CRLF.
    """
    stream = text.replace("\n", "\r\n")
    position, buffer, results = 0, "", []

    def expect(patterns):
        nonlocal position, buffer
        compiled = [re.compile(p, re.DOTALL) for p in patterns]
        while True:
            best = None
            for index, regex in enumerate(compiled):
                match = regex.search(buffer)
                if match and (best is None or match.start() < best[1].start()):
                    best = (index, match)
            if best:
                buffer = buffer[best[1].end():]
                return best
            if position >= len(stream):
                return None, None
            buffer += stream[position:position + chunk]
            position += chunk

    for monitor in monitors:
        index, _ = expect([monitor["start"]])
        if index is None:
            break
        while True:
            index, match = expect([monitor["end"], monitor["pattern"]])
            if index != 1:
                break
            groups = match.groupdict()
            result = monitor["fixupdict"].get(groups["result"], groups["result"])
            results.append({"definition": monitor["name"],
                            "case": lava.lava_case_id(groups["test_case_id"]),
                            "result": result})
    return results


def records_for(text, results):
    """lava-run log records: the console line by line, the results, the job's result."""
    records = [{"lvl": "target", "msg": line} for line in text.split("\n")[:-1]]
    records += [{"lvl": "results", "msg": result} for result in results]
    records.append({"lvl": "input", "msg": "poweroff\n"})
    records.append({"lvl": "target", "msg": "poweroff"})
    records.append({"lvl": "results", "msg": {"definition": "lava", "case": "job",
                                              "result": "pass"}})
    return records


class MonitorPatternTest(unittest.TestCase):
    def test_the_job_maps_every_case_in_any_chunking(self):
        monitors = job_monitors()
        self.assertEqual([m["name"] for m in monitors], ["trigos", "trigos-verdict"])
        # One character at a time is the worst case for a pattern that could
        # match a half-received line (a cut name, a SKIP not yet seen).
        for chunk in (1, 7, 64, 100000):
            results = run_monitors(monitors, LOG, chunk)
            cases = [(r["case"], r["result"]) for r in results if r["definition"] == "trigos"]
            self.assertEqual(cases, WANT, f"chunk {chunk}")
            verdict = [(r["case"], r["result"]) for r in results
                       if r["definition"] == "trigos-verdict"]
            self.assertEqual(verdict, [("result", "fail")], f"chunk {chunk}")

    def test_parameters_are_cases_too(self):
        text = read_data("ktap/params.log")
        want = lava.expected_results(ktap.parse(text))
        self.assertEqual(want, [("plain_case", "pass"), ("spin", "pass"), ("hlt", "pass"),
                                ("mwait", "skip"), ("kick_before_wait_returns_at_once", "pass")])
        spaced = text.replace("ok 2 hlt", "ok 2 colour green")
        for chunk in (1, 7, 100000):
            for log, wanted in ((text, want), (spaced, lava.expected_results(ktap.parse(spaced)))):
                results = run_monitors(job_monitors(), log, chunk)
                cases = [(r["case"], r["result"]) for r in results
                         if r["definition"] == "trigos"]
                self.assertEqual(cases, wanted, f"chunk {chunk}")
        self.assertIn(("colour_green", "pass"), lava.expected_results(ktap.parse(spaced)))

    def test_the_board_job_has_the_same_test_action(self):
        board = os.path.join(os.path.dirname(JOB), "x86-board-job.yaml")
        self.assertEqual(job_monitors(board), job_monitors())

    def test_crash_without_totals_still_gives_the_verdict(self):
        text = LOG.split("    KTAP version 1\n    # Subtest: beta")[0] + \
            "# PANIC on cpu 0: deliberate\n# RESULT: CRASH\n"
        results = run_monitors(job_monitors(), text, 5)
        self.assertEqual([(r["case"], r["result"]) for r in results],
                         WANT[:3] + [("result", "fail")])


class CheckTest(unittest.TestCase):
    def results(self, cases, verdict="fail"):
        found = [{"definition": "trigos", "case": c, "result": r} for c, r in cases]
        return found + [{"definition": "trigos-verdict", "case": "result", "result": verdict}]

    def test_matching_results_pass(self):
        problems, summary = lava.check_records(records_for(LOG, self.results(WANT)), ktap,
                                               expect="fail")
        self.assertEqual(problems, [])
        self.assertIn("LAVA reported 5 cases (2 fail, 2 pass, 1 skip) and verdict fail", summary)

    def test_serial_log_ends_at_the_dispatchers_input(self):
        text = lava.serial_text(records_for(LOG, []))
        self.assertTrue(text.endswith("# RESULT: FAIL\n"), text[-40:])
        self.assertEqual(ktap.check(ktap.parse(text)).result, "FAIL")

    def test_every_difference_is_found(self):
        wrong = list(WANT)
        wrong[2] = ("third_case", "pass")          # skip reported as pass
        wrong[4] = ("mixed_name", "pass")          # a cut name
        problems, _ = lava.check_records(records_for(LOG, self.results(wrong)), ktap,
                                         expect="fail")
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("case 3: the serial log says third_case skip, LAVA says third_case pass",
                      problems[0])
        missing, _ = lava.check_records(records_for(LOG, self.results(WANT[:4])), ktap,
                                        expect="fail")
        self.assertIn("trigos: LAVA reported 4 cases, the serial log has 5", missing)
        self.assertTrue(any("mixed_name_case pass is missing" in p for p in missing))
        verdict, _ = lava.check_records(records_for(LOG, self.results(WANT, "pass")), ktap,
                                        expect="fail")
        self.assertEqual(len(verdict), 1)
        self.assertIn("trigos-verdict", verdict[0])
        judged, _ = lava.check_records(records_for(LOG, self.results(WANT)), ktap)
        self.assertEqual(judged, ["tools/ktap judges the serial log fail, expected pass"])

    def test_a_failed_job_is_a_problem(self):
        records = records_for(LOG, self.results(WANT))
        records[-1]["msg"].update(result="fail", error_type="Infrastructure",
                                  error_msg="qemu died")
        problems, _ = lava.check_records(records, ktap, expect="fail")
        self.assertEqual(problems, ["the LAVA job failed: Infrastructure: qemu died"])
        problems, _ = lava.check_records(records[:-1], ktap, expect="fail")
        self.assertEqual(problems, ["LAVA logged no result for the job (lava-run died?)"])

    def test_case_ids_as_lava_makes_them(self):
        self.assertEqual(lava.lava_case_id(" Mixed-Name.case "), "mixed_name_case")
        self.assertEqual(lava.lava_case_id("a--b"), "a_b")

    def test_job_template_needs_the_iso(self):
        self.assertIn("file:///tmp/t.iso", lava.render_job("url: file://@ISO@", "/tmp/t.iso"))
        with self.assertRaises(ValueError):
            lava.render_job("url: file:///x.iso", "/tmp/t.iso")
