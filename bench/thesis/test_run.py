#!/usr/bin/env python3
"""Unit tests of bench/thesis/run: its reading of table_8_1.tsv and of `weft run --json`."""

import importlib.machinery
import importlib.util
import json
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
_loader = importlib.machinery.SourceFileLoader("thesis_run", str(HERE / "run"))
_spec = importlib.util.spec_from_loader("thesis_run", _loader)
run = importlib.util.module_from_spec(_spec)
_loader.exec_module(run)


def weft_json(explored=True, verdict="no bug", exit_code=0, reason=None, code=None, bugs=(),
              **stats):
    """A `weft run --json` output as weft prints it; `stats` override its statistics."""
    statistics = {"bound_reached": 0, "bugs": len(bugs), "complete": 6, "diverged": 0,
                  "events": 66, "executions": 6, "executions_per_second": 1698.07,
                  "seconds": 0.0035, "sleep_blocked": 0, "timeouts": 0, "traces": 6}
    statistics.update(stats)
    d = {"bugs": list(bugs), "complete": explored, "exit_code": exit_code, "points": "all",
         "program": "./w", "statistics": statistics, "strategy": "optimal", "verdict": verdict}
    if reason:
        d["incomplete_because"] = reason
        d["incomplete_code"] = code
    return json.dumps(d, indent=2)


ROW = {"name": "x", "benchmark": "X 1", "source": "x.c", "flags": "", "inputs": "no",
       "dfs": "no", "m_traces": "6", "unf_tests": "3", "unf_time": "0m 0s", "unf_dl": "+0s",
       "cunf_tests": "3", "cunf_time": "0m 0s", "cunf_dl": "+0s", "dpor_tests": "9",
       "dpor_time": "0m 1s", "expected": "-", "note": ""}


class ParseResult(unittest.TestCase):
    def test_complete_run(self):
        r = run.parse_result(weft_json(complete=6, sleep_blocked=4, executions=10), 60)
        self.assertEqual(r["status"], "done")
        self.assertEqual((r["complete"], r["sleep_blocked"], r["executions"]), (6, 4, 10))
        self.assertEqual(r["traces_counted"], 6)
        self.assertEqual((r["bug_executions"], r["bug_kinds"]), (0, []))

    def test_assertion_failures_count_as_traces(self):
        # Fib 2: 7 of optimal DPOR's executions reach reach_error(); weft does not count them as
        # complete, the thesis' count (executions minus sleep-set-blocked ones) does.
        bug = {"kind": "assertion failure", "message": "reach_error() called"}
        text = weft_json(verdict="bug", exit_code=1, bugs=[bug], complete=218236,
                         executions=218243)
        r = run.parse_result(text, 900)
        self.assertEqual((r["complete"], r["traces_counted"]), (218236, 218243))

    def test_time_limit(self):
        text = weft_json(explored=False, verdict="incomplete", exit_code=3,
                         reason="stopped by --max-executions or --time-limit", code="limit",
                         seconds=60.0)
        self.assertEqual(run.parse_result(text, 60)["status"], "timeout")

    def test_time_limit_with_bugs_has_no_reason(self):
        bug = {"kind": "deadlock", "message": "deadlock: ..."}
        text = weft_json(explored=False, verdict="bug", exit_code=1, bugs=[bug], seconds=60.0)
        self.assertEqual(run.parse_result(text, 60)["status"], "timeout")

    def test_fixed_inputs(self):
        reason = ("every interleaving was explored, but the program reads __VERIFIER_nondet_* "
                  "inputs, which were fixed to 0 (--nondet) rather than explored")
        text = weft_json(explored=False, verdict="incomplete", exit_code=3, reason=reason,
                         code="fixed-inputs")
        self.assertEqual(run.parse_result(text, 60)["status"], "fixed inputs")

    def test_bugs(self):
        bugs = [{"kind": "deadlock", "message": "a"}, {"kind": "deadlock", "message": "b"},
                {"kind": "assertion failure", "message": "c"}]
        r = run.parse_result(weft_json(verdict="bug", exit_code=1, bugs=bugs), 60)
        self.assertEqual(r["bug_kinds"], ["assertion failure", "deadlock"])
        self.assertEqual(r["distinct_bugs"], 3)
        self.assertEqual(run.bugs_text(dict(r, bug_executions=45)),
                         "45 assertion failure/deadlock")


class Growth(unittest.TestCase):
    def test_each_interval_is_averaged_over_its_own_tests(self):
        growth = [{"tests": 10, "events": 1024, "conditions": 3000, "bytes": 2 * 2**20,
                   "co_checks": 500, "extension_seconds": 0.02},
                  {"tests": 30, "events": 2048, "conditions": 6100, "bytes": 5 * 2**20,
                   "co_checks": 2500, "extension_seconds": 0.12}]
        text = weft_json(unfolding={"events": 2100, "growth": growth})
        lines = run.growth_lines(dict(run.parse_result(text, 60), strategy="contextual"))
        self.assertEqual(len(lines), 4)
        self.assertIn("contextual", lines[0])
        self.assertEqual(lines[1].split()[0], "events")
        # 20 ms over the first 10 tests, then 100 ms over the next 20; 50 and 100 co-checks.
        self.assertEqual(lines[2].split(), ["1024", "3000", "10", "2.000", "50", "2.0"])
        self.assertEqual(lines[3].split(), ["2048", "6100", "30", "5.000", "100", "5.0"])

    def test_no_growth_without_an_unfolding(self):
        self.assertEqual(run.growth_lines(run.parse_result(weft_json(), 60)), [])


class Table(unittest.TestCase):
    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False, encoding="utf-8")
        self.addCleanup(Path(f.name).unlink)
        f.write(text)
        f.close()
        return f.name

    def test_reads_rows_and_skips_comments(self):
        header = "\t".join(ROW)
        lines = ["# Table 8.1, a comment", header, "\t".join(ROW.values()), "",
                 "\t".join(dict(ROW, name="y", m_traces="-", dpor_time="(> 30m)").values())]
        rows = run.read_table(self.write("\n".join(lines) + "\n"))
        self.assertEqual([r["name"] for r in rows], ["x", "y"])
        self.assertEqual(rows[1]["dpor_time"], "(> 30m)")
        self.assertIsNone(run.count(rows[1]["m_traces"]))
        self.assertEqual(run.count(rows[0]["m_traces"]), 6)

    def test_rejects_a_short_row(self):
        path = self.write("\t".join(ROW) + "\nx\t1\n")
        with self.assertRaises(ValueError):
            run.read_table(path)

    def test_the_real_table(self):
        rows = run.read_table()
        self.assertEqual(len(rows), 24)  # the rows of Table 8.1
        self.assertEqual(len({r["name"] for r in rows}), 24)
        for r in rows:
            self.assertTrue((HERE / r["source"]).is_file(), r["source"])
            self.assertIn(r["inputs"], ("yes", "no"))
            # Every row's count is either checked or explained.
            want, why = run.target(r)
            self.assertTrue(want is not None or r["note"], r["name"])
        by = {r["name"]: r for r in rows}
        self.assertEqual(by["fib2"]["m_traces"], "218243")
        self.assertEqual(by["dining4"]["dpor_time"], "(> 30m)")
        self.assertEqual(by["pi2"]["flags"], "-DTHREADS=7")


class Check(unittest.TestCase):
    def optimal(self, traces, status="done"):
        return {"traces_counted": traces, "status": status}

    def test_m_traces(self):
        self.assertTrue(run.check_row(ROW, self.optimal(6))[0])
        self.assertFalse(run.check_row(ROW, self.optimal(5))[0])
        self.assertFalse(run.check_row(ROW, self.optimal(6, "timeout"))[0])

    def test_explained_difference(self):
        row = dict(ROW, expected="5", note="why it is 5")
        self.assertTrue(run.check_row(row, self.optimal(5))[0])
        self.assertFalse(run.check_row(row, self.optimal(6))[0])

    def test_nothing_to_compare(self):
        row = dict(ROW, inputs="yes", note="reads inputs")
        self.assertTrue(run.check_row(row, self.optimal(180, "fixed inputs"))[0])
        # A note without a count is needed to skip the comparison.
        self.assertFalse(run.check_row(dict(ROW, inputs="yes"), self.optimal(180))[0])


class DiningTraces(unittest.TestCase):
    def test_dining_1(self):
        sys.path.insert(0, str(HERE))
        import dining_traces
        self.assertEqual(dining_traces.count_traces(4), (831, 45))  # Table 8.1: 831


if __name__ == "__main__":
    unittest.main()
