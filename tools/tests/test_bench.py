"""Tests of tools/bench's BENCH-line parsing (no QEMU needed)."""
import importlib.machinery
import importlib.util
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def load_bench():
    path = os.path.join(HERE, "..", "bench")
    loader = importlib.machinery.SourceFileLoader("bench_tool", path)
    spec = importlib.util.spec_from_loader("bench_tool", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


bench = load_bench()


class ParseBenchLines(unittest.TestCase):
    def test_value_and_distribution_records(self):
        lines = [
            "    # BENCH {\"v\":1,\"name\":\"ap_bringup\",\"cpus\":8,\"unit\":\"us\",\"value\":812}\r\n",
            "# BENCH {\"v\":1,\"name\":\"ipi\",\"cpus\":2,\"unit\":\"cycles\",\"n\":3,"
            "\"min\":1,\"p50\":2,\"p90\":3,\"p99\":3,\"max\":3}\n",
            "    ok 1 something\n",
        ]
        results, problems = bench.parse_bench_lines(lines)
        self.assertEqual(problems, [])
        self.assertEqual([r["name"] for r in results], ["ap_bringup", "ipi"])
        self.assertEqual(results[0]["value"], 812)
        self.assertEqual(results[1]["p50"], 2)
        self.assertEqual(bench.figure(results[1]), "p50 2  p99 3  (n=3)")
        self.assertEqual(bench.figure(results[0]), "812")

    def test_broken_records_are_reported_not_raised(self):
        lines = [
            "# BENCH {\"v\":1,\"name\":\"x\",\"unit\":\"us\",\"value\":\n",   # truncated JSON
            "# BENCH not json at all\n",
            "# BENCH {\"v\":1,\"unit\":\"us\",\"value\":3}\n",                 # no name
            "# BENCH {\"v\":2,\"name\":\"future\",\"unit\":\"us\",\"value\":3}\n",
            "# BENCH [1, 2]\n",
            "\x00\xff garbage # BENCH\n",
        ]
        results, problems = bench.parse_bench_lines(lines)
        self.assertEqual(results, [])
        self.assertEqual(len(problems), 6)
        self.assertIn("line 1", problems[0])
        self.assertIn("version", problems[3])

    def test_lines_that_only_mention_bench_are_ignored_quietly(self):
        results, problems = bench.parse_bench_lines(["# benchmarks follow\n", "KTAP version 1\n"])
        self.assertEqual((results, problems), ([], []))


if __name__ == "__main__":
    unittest.main()
