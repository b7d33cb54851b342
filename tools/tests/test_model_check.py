"""Tests of tools/model-check's reading of Spin's verifier (pan) and its trails."""
import unittest

from tools.tests import read_data
from trigos import model_check



# The shape of what pan 6.5.2 prints (numbers invented, layout as printed).
PASSED = read_data("spin/pan-passed.txt")

FAILED = read_data("spin/pan-failed.txt")

CYCLE_TRAIL = read_data("spin/cycle.trail")


class ParsePan(unittest.TestCase):
    def test_a_passing_search(self):
        result = model_check.parse_pan(PASSED)
        self.assertEqual(result.errors, 0)
        self.assertEqual(result.states, 1777456)
        self.assertEqual(result.incomplete, "")
        # The "-end-" of a process and the never claim's statements do not count.
        self.assertEqual(result.unreached, [])

    def test_an_unreached_statement_of_the_model_is_named(self):
        unreached = '\ttrigger_halt.pml:218, state 345, "pc[c] = 14"\n\t(2 of 362 states)'
        output = PASSED.replace('\t(1 of 362 states)', unreached)
        result = model_check.parse_pan(output)
        self.assertEqual(result.unreached,
                         ['proctype cpu: trigger_halt.pml:218, state 345, "pc[c] = 14"'])

    def test_a_failing_search(self):
        result = model_check.parse_pan(FAILED)
        self.assertEqual(result.errors, 1)
        self.assertEqual(result.error_kind, "invalid end state")
        self.assertEqual(result.states, 314)
        self.assertEqual(result.incomplete, "Search not completed")


class TrailSteps(unittest.TestCase):
    def test_without_a_claim_every_step_counts(self):
        self.assertEqual(model_check.trail_steps(CYCLE_TRAIL, claim=False), (5, 4))

    def test_the_never_claim_steps_do_not(self):
        self.assertEqual(model_check.trail_steps(CYCLE_TRAIL, claim=True), (2, 2))


class Judge(unittest.TestCase):
    model = model_check.Variant("model", (), False, "")
    mutant = model_check.Variant("mutant", ("X",), True, "")
    safety = model_check.CHECKS[0]
    liveness = model_check.CHECKS[1]

    def judge(self, variant, check, output, steps=0, cycle=0):
        return model_check.judge(variant, check, model_check.parse_pan(output), steps, cycle)

    def test_the_model_holds(self):
        ok, words = self.judge(self.model, self.safety, PASSED)
        self.assertTrue(ok, words)

    def test_the_model_failing_is_reported(self):
        ok, words = self.judge(self.model, self.safety, FAILED, 84)
        self.assertFalse(ok)
        self.assertIn("invalid end state, trail 84 steps", words)

    def test_a_model_that_reaches_nothing_does_not_pass(self):
        output = PASSED.replace('\t(1 of 362 states)', '\tx.pml:1, state 2, "hlt"\n')
        ok, words = self.judge(self.model, self.safety, output)
        self.assertFalse(ok)
        self.assertIn("never reached", words)

    def test_an_incomplete_search_does_not_pass(self):
        ok, words = self.judge(self.model, self.safety,
                               PASSED + "error: max search depth too small\n")
        self.assertFalse(ok)
        self.assertIn("did not complete", words)

    def test_a_mutant_that_passes_is_a_failure(self):
        ok, words = self.judge(self.mutant, self.safety, PASSED)
        self.assertFalse(ok)
        self.assertIn("the mutant passed", words)

    def test_a_mutant_failing_the_right_way(self):
        ok, words = self.judge(self.mutant, self.safety, FAILED, 84)
        self.assertTrue(ok, words)
        self.assertIn("trail 84 steps", words)

    def test_a_mutant_failing_the_wrong_way_is_a_failure(self):
        ok, words = self.judge(self.mutant, self.liveness, FAILED, 84)
        self.assertFalse(ok)
        self.assertIn("not an acceptance cycle", words)

    def test_a_cycle_that_is_the_last_state_repeated(self):
        output = FAILED.replace("invalid end state", "acceptance cycle")
        ok, words = self.judge(self.mutant, self.liveness, output, 85, 85)
        self.assertTrue(ok, words)
        self.assertIn("ending in a state that repeats forever", words)

    def test_pan_output_not_understood(self):
        ok, words = self.judge(self.model, self.safety, "something else\n")
        self.assertFalse(ok)
        self.assertIn("not understood", words)


class Variants(unittest.TestCase):
    def test_only_the_model_must_hold(self):
        self.assertEqual([v.name for v in model_check.VARIANTS if not v.must_fail], ["model"])

    def test_names_are_unique(self):
        names = [v.name for v in model_check.VARIANTS]
        self.assertEqual(len(names), len(set(names)))


if __name__ == "__main__":
    unittest.main()
