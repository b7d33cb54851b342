# SPDX-License-Identifier: MIT
"""tools/ktap fuzzed with generated logs.

Random well-formed KTAP logs are generated, then broken the ways a serial
console breaks them: truncated, two runs interleaved, binary noise, huge
lines, deep nesting, CRLF line ends, bytes that are not UTF-8.  Whatever the
input, tools/ktap must not raise (a traceback would turn a broken run into a
tool error instead of a FAIL), must exit 0 or 1, and must never pass a log
whose last non-blank line is not exactly "# RESULT: PASS", nor one a
mutation is known to have made invalid.

The quick run (part of `make check`) takes a few seconds with a fixed seed.
TRIGOS_KTAP_FUZZ_ROUNDS=N runs N rounds instead (default 150), and
TRIGOS_KTAP_FUZZ_SEED=S changes the seed; a failure prints both.
"""

import os
import random
import subprocess
import sys
import tempfile
import unittest

from tools.tests.test_ktap import KTAP_TOOL, ktap

ROUNDS = int(os.environ.get("TRIGOS_KTAP_FUZZ_ROUNDS", "150"))
SEED = int(os.environ.get("TRIGOS_KTAP_FUZZ_SEED", "20261203"))
PASS_LINE = "# RESULT: PASS"


def generate_body(rng, level, prefix, depth_left, failing):
    """Lines of one KTAP body at @level: a plan, then results (subtests first)."""
    pad = " " * (4 * level)
    lines = [f"{pad}1..{0}"]
    count = rng.randint(1, 4)
    lines[0] = f"{pad}1..{count}"
    tally = {"pass": 0, "fail": 0, "skip": 0}
    for number in range(1, count + 1):
        name = f"{prefix}_{number}"
        if rng.random() < 0.2:
            lines.append(f"{pad}# diag-{name}: {rng.randint(0, 10 ** 6)}")
        if depth_left > 0 and rng.random() < 0.4:
            inner = " " * (4 * (level + 1))
            lines.append(f"{inner}KTAP version 1")
            lines.append(f"{inner}# Subtest: {name}")
            body, inner_failed = generate_body(rng, level + 1, name, depth_left - 1, failing)
            lines.extend(body)
            status = "not ok" if inner_failed else "ok"
            tally["fail" if inner_failed else "pass"] += 1
        else:
            kind = rng.choice(("pass", "pass", "pass", "skip") + (("fail",) if failing else ()))
            status = "not ok" if kind == "fail" else "ok"
            tally[kind] += 1
            name += " # SKIP not here" if kind == "skip" else ""
        lines.append(f"{pad}{status} {number} {name}")
    return lines, tally["fail"] > 0


def generate_log(rng, prefix="s", failing=False, depth=2):
    """A complete log and whether it passes; noise before the header."""
    body, failed = generate_body(rng, 0, prefix, depth, failing)
    lines = ["SeaBIOS (version 1.16.2)", "Booting `trigos'", "KTAP version 1"] + body
    lines.append("# RESULT: FAIL" if failed else PASS_LINE)
    return "\n".join(lines) + "\n", not failed


def deep_log(depth):
    """A valid log of @depth nested subtests, one case at the bottom."""
    lines = ["KTAP version 1", "1..1"]
    for level in range(1, depth + 1):
        pad = " " * (4 * level)
        lines += [f"{pad}KTAP version 1", f"{pad}# Subtest: d{level}", f"{pad}1..1"]
    lines.append(" " * (4 * depth) + "ok 1 leaf")
    for level in range(depth, 0, -1):
        lines.append(" " * (4 * (level - 1)) + f"ok 1 d{level}")
    lines.append(PASS_LINE)
    return "\n".join(lines) + "\n"


def last_non_blank_line(data):
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    for line in reversed(text.split("\n")):
        if line.strip(" \t\r"):
            return line.rstrip(" \t\r")
    return ""


class KtapFuzzTest(unittest.TestCase):
    def setUp(self):
        self.rng = random.Random(SEED)

    def judge(self, data, what, must_fail=False, must_pass=False):
        """Check @data in-process; the universal rules, then the expectation."""
        try:
            result = ktap.check(ktap.parse(data, "fuzz"))
        except Exception as error:      # pylint: disable=broad-except
            self.fail(f"{what}: tools/ktap raised {type(error).__name__}: {error} "
                      f"(seed {SEED}, {len(data)} bytes)")
        if result.ok:
            self.assertEqual(last_non_blank_line(data), PASS_LINE,
                             f"{what}: passed without ending in '{PASS_LINE}' (seed {SEED})")
        if must_fail:
            self.assertFalse(result.ok, f"{what}: a broken log passed (seed {SEED})")
        if must_pass:
            self.assertTrue(result.ok, f"{what}: a good log failed: {result.problems[:3]} "
                                       f"(seed {SEED})")
        return result

    def test_generated_logs_are_judged_right(self):
        for _ in range(ROUNDS):
            text, passes = generate_log(self.rng, failing=self.rng.random() < 0.3)
            result = self.judge(text, "generated log", must_pass=passes, must_fail=not passes)
            self.assertEqual(result.ok, passes)
            # A RESULT: PASS line does not excuse a failed case.
            if not passes:
                self.judge(text.replace("# RESULT: FAIL", PASS_LINE), "failed case, PASS line",
                           must_fail=True)

    def test_truncated_logs_never_pass(self):
        for _ in range(ROUNDS):
            text, _ = generate_log(self.rng)
            data = text.encode()
            cut = self.rng.randrange(0, data.rindex(PASS_LINE.encode()))
            self.judge(data[:cut], f"log cut at byte {cut}", must_fail=True)
            crlf = text.replace("\n", "\r\n").encode()
            self.judge(crlf, "CRLF log", must_pass=True)
            self.judge(crlf[:self.rng.randrange(len(crlf))], "cut CRLF log")

    def test_interleaved_runs_never_pass(self):
        for _ in range(ROUNDS):
            first = generate_log(self.rng, "a")[0].splitlines()
            second = generate_log(self.rng, "b")[0].splitlines()
            # Interleave from the second run's header on, keeping each run's order,
            # with at least one result of the first run after that header.
            start = second.index("KTAP version 1")
            merged = second[:start + 1]
            rest_first, rest_second = first[:], second[start + 1:]
            while rest_first or rest_second:
                if rest_second and (not rest_first or self.rng.random() < 0.5):
                    merged.append(rest_second.pop(0))
                else:
                    merged.append(rest_first.pop(0))
            after = merged[merged.index("KTAP version 1", start):]
            if not any(line.lstrip().startswith(("ok ", "not ok ")) and "a_" in line
                       for line in after):
                continue
            self.judge("\n".join(merged) + "\n", "interleaved runs", must_fail=True)

    def test_noise_and_bad_utf8(self):
        for _ in range(ROUNDS):
            text, _ = generate_log(self.rng)
            data = bytearray(text.encode())
            noise = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 64)))
            at = self.rng.randrange(len(data))
            self.judge(bytes(data[:at] + noise + data[at:]), "binary noise")
            # Bytes that are not UTF-8 inside a diagnostic change nothing.
            lines = text.split("\n")
            diagnostics = [i for i, line in enumerate(lines) if "# diag-" in line]
            if diagnostics:
                index = self.rng.choice(diagnostics)
                raw = [line.encode() for line in lines]
                raw[index] += b" \xff\xfe\xc3\x28\xed\xa0\x80"
                self.judge(b"\n".join(raw), "bad UTF-8 in a diagnostic", must_pass=True)
            # A flipped result word, or a dropped result or plan, always fails.
            results = [i for i, line in enumerate(lines) if line.lstrip().startswith("ok ")
                       and "# SKIP" not in line]
            if results:
                index = self.rng.choice(results)
                flipped = lines[:]
                flipped[index] = flipped[index].replace("ok ", "not ok ", 1)
                self.judge("\n".join(flipped), "ok turned into not ok", must_fail=True)
                dropped = lines[:index] + lines[index + 1:]
                self.judge("\n".join(dropped), "a result line dropped", must_fail=True)

    def test_huge_lines(self):
        text, _ = generate_log(self.rng)
        lines = text.split("\n")
        for payload in ("x" * (4 << 20), "\x00" * (1 << 20), "ok 1 " * (1 << 18),
                        "    " * (1 << 18) + "ok 1 deep", "# " + "\xff" * (1 << 20)):
            for index in (0, len(lines) // 2, len(lines) - 2):
                mutated = lines[:index] + [payload] + lines[index:]
                self.judge("\n".join(mutated), f"a {len(payload)}-character line")

    def test_deep_nesting(self):
        for depth in (2, ktap.MAX_NESTING, ktap.MAX_NESTING + 1, 400, 1100):
            log = deep_log(depth)
            # Up to MAX_NESTING it is KTAP; deeper, garbage that fails the log.
            self.judge(log, f"nesting {depth} deep", must_pass=depth <= ktap.MAX_NESTING,
                       must_fail=depth > ktap.MAX_NESTING)
            self.judge(log[:len(log) // 2], f"nesting {depth} deep, cut", must_fail=True)

    def test_the_command_never_prints_a_traceback(self):
        cases = [generate_log(self.rng)[0].encode()[:100], b"\xff" * 1000, b"",
                 deep_log(1100).encode(), ("    " * 50000 + "ok 1 x\n").encode(),
                 b"KTAP version 1\r\n1..1\r\n\x00\x00ok 1 a\r\n# RESULT: PASS\r\n"]
        with tempfile.TemporaryDirectory() as directory:
            for index, data in enumerate(cases):
                path = os.path.join(directory, f"log{index}")
                with open(path, "wb") as file:
                    file.write(data)
                run = subprocess.run([sys.executable, KTAP_TOOL, "--quiet", path],
                                     capture_output=True, text=True, errors="replace",
                                     check=False, timeout=60)
                self.assertIn(run.returncode, (0, 1), f"case {index}: {run.stderr[-500:]}")
                self.assertNotIn("Traceback", run.stderr + run.stdout, f"case {index}")


if __name__ == "__main__":
    unittest.main()
