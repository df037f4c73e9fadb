"""Unit tests of bench/svcomp/run's task parsing and verdict rules, on fixed files."""

import json
import os
import unittest

import svcomp_tasks as st

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


def load(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return st.parse_weft_output(f.read())


class ParseTask(unittest.TestCase):
    def test_two_properties_with_comments(self):
        t = st.parse_task(os.path.join(DATA, "two_properties.yml"))
        self.assertEqual(t["name"], "two_properties")
        self.assertEqual(t["dir"], "testdata")
        self.assertEqual(os.path.basename(t["source"]), "racy.c")
        self.assertEqual(t["properties"], [("unreach-call", "false"), ("no-data-race", "true")])
        self.assertEqual(t["data_model"], "ILP32")

    def test_data_model_note_names_the_tasks_compiled_otherwise(self):
        ilp32 = st.parse_task(os.path.join(DATA, "two_properties.yml"))
        lp64 = dict(ilp32, data_model="LP64")
        self.assertEqual(st.compiled_data_model(ilp32), "LP64")
        self.assertIsNone(st.data_model_note([lp64]))
        note = st.data_model_note([ilp32, lp64, dict(ilp32, name="other")])
        self.assertIn("2 task(s) ask for ILP32", note)
        self.assertIn("compiled LP64", note)

    def test_list_input_and_missing_verdict(self):
        t = st.parse_task(os.path.join(DATA, "list_input.yml"))
        self.assertEqual(os.path.basename(t["source"]), "first.c")
        self.assertEqual(t["properties"], [("termination", "true"), ("unreach-call", None)])

    def test_no_input_is_an_error(self):
        with self.assertRaises(st.TaskError):
            st.parse_task(os.path.join(DATA, "no_input.yml"))


class Verdicts(unittest.TestCase):
    def test_violation_needs_the_property_not_just_any_bug(self):
        result = load("weft_violation.json")
        verdict, reason = st.verdict_of("unreach-call", result)
        self.assertEqual(verdict, "false")
        self.assertIn("reach_error", reason)
        # A deadlock is no data race: incomplete exploration gives unknown.
        self.assertEqual(st.verdict_of("no-data-race", result)[0], "unknown")

    def test_complete_exploration_is_true_only_without_a_violation(self):
        result = load("weft_complete.json")
        self.assertEqual(st.verdict_of("unreach-call", result)[0], "true")
        self.assertEqual(st.verdict_of("no-data-race", result)[0], "false")

    def test_incomplete_is_unknown_with_the_reason(self):
        verdict, reason = st.verdict_of("unreach-call", load("weft_incomplete.json"))
        self.assertEqual(verdict, "unknown")
        self.assertIn("cut short", reason)

    def test_a_bound_reached_is_unknown_even_when_explored_within_it(self):
        verdict, reason = st.verdict_of("unreach-call", load("weft_within_bounds.json"))
        self.assertEqual(verdict, "unknown")
        self.assertTrue(reason.startswith("bound reached"))
        self.assertIn("--max-threads", reason)

    def test_which_bound_cut_executions_short(self):
        self.assertEqual(st.bound_hit(load("weft_within_bounds.json")), "threads")
        steps = {"incomplete_code": "cut-short",
                 "incomplete_because": "3 of 9 executions were cut short; the first: thread 0.1 "
                 "reached the bound of 50 visible operations"}
        self.assertEqual(st.bound_hit(steps), "steps")
        timed = {"incomplete_code": "limit",
                 "incomplete_because": "stopped by --max-executions or --time-limit"}
        self.assertIsNone(st.bound_hit(timed))
        self.assertIsNone(st.bound_hit(None))
        # Bounds are tried smallest first.
        self.assertEqual(st.THREAD_BOUNDS, sorted(st.THREAD_BOUNDS))
        self.assertEqual(st.STEP_BOUNDS, sorted(st.STEP_BOUNDS))

    def test_garbage_and_unchecked_properties_are_unknown(self):
        self.assertIsNone(st.parse_weft_output("weft: error: something"))
        self.assertEqual(st.verdict_of("unreach-call", None)[0], "unknown")
        self.assertEqual(st.verdict_of("termination", load("weft_complete.json"))[0], "unknown")

    def test_violation_without_schedule_is_no_witness(self):
        result = load("weft_violation.json")
        for bug in result["bugs"]:
            del bug["schedule"]
        self.assertEqual(st.verdict_of("unreach-call", result)[0], "unknown")

    def test_classification(self):
        self.assertEqual(st.classify("true", "true"), "correct-true")
        self.assertEqual(st.classify("false", "false"), "correct-false")
        self.assertEqual(st.classify("false", "true"), "wrong-true")
        self.assertEqual(st.classify("true", "false"), "wrong-false")
        self.assertEqual(st.classify("true", "unknown"), "unknown")
        self.assertEqual(st.classify(None, "true"), "unknown")


if __name__ == "__main__":
    unittest.main()
