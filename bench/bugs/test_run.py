#!/usr/bin/env python3
"""Tests of bench/bugs: the runner's reading of `weft check --json` and its table (unit tests),
and, given a weft, each program's bug found by a fast strategy with a fixed seed and each fixed
variant explored without a bug (end to end, about 20 s).

  bench/bugs/test_run.py                      unit tests; end to end with build/bin/weft if it
                                              is there
  bench/bugs/test_run.py --build-dir DIR      end to end with DIR/bin/weft (a build directory
                                              or an install prefix)
  bench/bugs/test_run.py --weft PATH          end to end with this weft

Other arguments go to unittest (e.g. -v, or a test's name).
"""

import argparse
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
_loader = importlib.machinery.SourceFileLoader("bugs_run", str(HERE / "run"))
_spec = importlib.util.spec_from_loader("bugs_run", _loader)
run = importlib.util.module_from_spec(_spec)
_loader.exec_module(run)

WEFT = None  # set by main(): the weft of the end-to-end tests, or None to skip them


def weft_json(exit_code=1, bugs=(), **stats):
    """A `weft check --json` output as weft prints it; `stats` override its statistics."""
    statistics = {"bugs": len(bugs), "complete": 11, "executions": 12, "seconds": 0.0213,
                  "sleep_blocked": 0, "executions_per_second": 563.4}
    statistics.update(stats)
    verdict = {0: "no bug", 1: "bug", 3: "incomplete"}[exit_code]
    d = {"bugs": list(bugs), "complete": exit_code == 0, "exit_code": exit_code,
         "points": "sync", "program": "./reorder", "statistics": statistics,
         "strategy": "pct", "verdict": verdict}
    if exit_code == 3:
        d["incomplete_because"] = "stopped by --max-executions or --time-limit"
        d["incomplete_code"] = "limit"
    return json.dumps(d, indent=2)


ASSERTION = {"kind": "assertion failure", "execution": 12,
             "message": "thread 0.20: assertion `...' failed at reorder.c:50"}
RACE = {"kind": "data race", "execution": 3, "message": "data race on first"}


class ParseResult(unittest.TestCase):
    def test_bug(self):
        r = run.parse_result(weft_json(1, [ASSERTION, RACE], executions=40), 1)
        self.assertEqual(r["status"], "bug")
        # The first bug's execution, not the executions run (with --all-bugs they differ).
        self.assertEqual((r["execution"], r["executions"]), (12, 40))
        self.assertEqual(r["kind"], "assertion failure")
        self.assertAlmostEqual(r["seconds"], 0.0213)
        self.assertIsNone(r["error"])

    def test_time_limit(self):
        r = run.parse_result(weft_json(3, seconds=30.0, executions=123456), 3)
        self.assertEqual(r["status"], "limit")
        self.assertIsNone(r["execution"])
        self.assertEqual(r["executions"], 123456)
        self.assertIn("time-limit", r["incomplete_because"])

    def test_explored_without_a_bug(self):
        self.assertEqual(run.parse_result(weft_json(0), 0)["status"], "none")

    def test_build_error(self):
        r = run.parse_result("", 2)
        self.assertEqual(r["status"], "error")
        self.assertIn("exited with 2", r["error"])
        self.assertIn("no JSON", r["error"])

    def test_exit_1_without_a_bug_is_an_error(self):
        self.assertEqual(run.parse_result(weft_json(1), 1)["status"], "error")

    def test_unexpected_exit_code_with_json(self):
        self.assertEqual(run.parse_result(weft_json(1, [ASSERTION]), 139)["status"], "error")


class Cells(unittest.TestCase):
    def cell(self, text, code, limit=60):
        return run.cell_text(run.parse_result(text, code), limit)

    def test_bug(self):
        self.assertEqual(self.cell(weft_json(1, [ASSERTION]), 1), "12 / 0.021 s")
        bug = dict(ASSERTION, execution=1345)
        self.assertEqual(self.cell(weft_json(1, [bug], seconds=1.053), 1), "1,345 / 1.05 s")
        self.assertEqual(self.cell(weft_json(1, [bug], seconds=13.133), 1), "1,345 / 13.1 s")

    def test_another_kind_is_named(self):
        self.assertEqual(self.cell(weft_json(1, [RACE]), 1), "3 / 0.021 s (data race)")

    def test_not_found(self):
        self.assertEqual(self.cell(weft_json(3, seconds=59.995), 3), "-- (60 s)")
        self.assertEqual(self.cell(weft_json(3, seconds=29.99), 3, 30), "-- (30 s)")
        self.assertEqual(self.cell(weft_json(3, seconds=1.499), 3, 1.5), "-- (1.5 s)")
        # Stopped early by something else than the time limit: its own time.
        self.assertEqual(self.cell(weft_json(3, seconds=12.34), 3), "-- (12.3 s)")

    def test_explored_without_a_bug(self):
        self.assertEqual(self.cell(weft_json(0, seconds=2.5), 0), "none (2.50 s)")

    def test_error(self):
        self.assertEqual(self.cell("", 2), "error")

    def test_lines(self):
        line = run.text_line(["reorder20", "-- (60 s)", "251 / 0.025 s"])
        self.assertTrue(line.startswith("reorder20 "))
        self.assertEqual(line.split(), ["reorder20", "--", "(60", "s)", "251", "/", "0.025", "s"])
        self.assertEqual(len(line), run.NAME_WIDTH + 2 * (run.CELL_WIDTH + 2))
        self.assertEqual(run.markdown_line(["a", "b|c"]), "| a | b\\|c |")


class Commands(unittest.TestCase):
    ROW = run.Row("reorder20", "reorder.c", ["-DSETTERS=20"])

    def test_command(self):
        cmd = run.weft_command("/w/bin/weft", self.ROW, "pct2", 30)
        self.assertEqual(cmd[:2], ["/w/bin/weft", "check"])
        self.assertEqual(cmd[2], str(run.HERE / "reorder.c"))
        self.assertEqual(cmd[3:7], ["-q", "--json", "--time-limit", "30"])
        self.assertEqual(cmd[cmd.index("--"):], ["--", "-O0", "-DSETTERS=20"])
        options = cmd[7:cmd.index("--")]
        self.assertEqual(options, ["--strategy", "pct", "--depth", "2", "--executions",
                                   "100000000", "--seed", "1"])

    def test_seeds(self):
        for column in ("random", "pct2", "pct3"):
            options = run.column_options(column)
            self.assertEqual(options[options.index("--seed") + 1], "1")
            options = run.column_options(column, 7)
            self.assertEqual(options[options.index("--seed") + 1], "7")
        for column in ("optimal", "delay", "preemption"):
            self.assertNotIn("--seed", run.column_options(column, 7))

    def test_portfolio_has_no_strategy(self):
        self.assertEqual(run.column_options("portfolio"), [])
        self.assertEqual(run.column_options("portfolio", 7), ["--seed", "7"])
        cmd = run.weft_command("weft", self.ROW, "portfolio", 60)
        self.assertNotIn("--strategy", cmd)
        self.assertIn("--time-limit", cmd)

    def test_strategies(self):
        strategy = {c: run.column_options(c)[1] for c in run.COLUMNS if c != "portfolio"}
        self.assertEqual(strategy, {"optimal": "optimal", "random": "random", "pct2": "pct",
                                    "pct3": "pct", "delay": "delay-bound",
                                    "preemption": "preemption-bound"})
        self.assertEqual(list(run.COLUMNS)[-1], "portfolio")

    def test_find_weft(self):
        self.assertEqual(run.find_weft(build_dir="/tmp/prefix"), Path("/tmp/prefix/bin/weft"))
        self.assertEqual(run.find_weft(weft="/x/weft"), Path("/x/weft"))
        self.assertEqual(run.find_weft(), run.REPO / "build" / "bin" / "weft")


class Rows(unittest.TestCase):
    def test_rows_of_issue_19(self):
        self.assertEqual([r.name for r in run.ROWS],
                         ["reorder10", "reorder20", "pipeline100", "aba_stack", "work_stealing"])
        for row in run.ROWS:
            self.assertTrue((HERE / row.source).is_file(), row.source)
        by = {r.name: r for r in run.ROWS}
        self.assertEqual(by["reorder20"].flags, ["-DSETTERS=20"])
        self.assertEqual(by["pipeline100"].flags, ["-DTHREADS=100"])

    def test_each_program_says_what_it_is(self):
        for source in sorted({r.source for r in run.ROWS}):
            text = (HERE / source).read_text()
            self.assertTrue(text.startswith("/* " + source[:-2] + ": "), source)
            self.assertIn("-DFIXED", text[:text.index("*/")], source)

    def test_list(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(run.main(["--list"]), 0)
        self.assertEqual([line.split("\t")[0] for line in out.getvalue().splitlines()],
                         [r.name for r in run.ROWS])


class Check(unittest.TestCase):
    ROW = run.ROWS[0]

    def portfolio(self, text, code):
        return {"portfolio": run.parse_result(text, code)}

    def test_found_in_time(self):
        ok, message = run.check_row(self.ROW, self.portfolio(
            weft_json(1, [ASSERTION], seconds=9.5), 1))
        self.assertTrue(ok, message)

    def test_too_slow(self):
        ok, message = run.check_row(self.ROW, self.portfolio(
            weft_json(1, [ASSERTION], seconds=10.0), 1))
        self.assertFalse(ok)
        self.assertIn("10.0 s", message)

    def test_not_found(self):
        self.assertFalse(run.check_row(self.ROW, self.portfolio(weft_json(3, seconds=60), 3))[0])
        self.assertFalse(run.check_row(self.ROW, self.portfolio("", 2))[0])
        self.assertFalse(run.check_row(self.ROW, {})[0])


class EndToEnd(unittest.TestCase):
    """Runs weft: each row's bug with a strategy that finds it fast (seed 1), and small fixed
    variants explored completely by optimal DPOR."""

    def setUp(self):
        if WEFT is None:
            self.skipTest("no weft (give --build-dir or --weft)")
        scratch = tempfile.TemporaryDirectory(prefix="weft-bugs-test-")
        self.addCleanup(scratch.cleanup)
        self.scratch = scratch.name

    def test_each_bug_is_found(self):
        fast = {"reorder10": "pct2", "reorder20": "pct2", "pipeline100": "random",
                "aba_stack": "random", "work_stealing": "pct2"}
        self.assertEqual(set(fast), {r.name for r in run.ROWS})
        for row in run.ROWS:
            with self.subTest(row=row.name):
                r = run.run_cell(WEFT, row, fast[row.name], 20, self.scratch)
                self.assertIsNone(r["error"], r["error"])
                self.assertEqual(r["exit_code"], 1, r)
                self.assertEqual(r["kind"], "assertion failure", r["message"])
                self.assertLessEqual(r["execution"], r["executions"])

    def test_the_portfolio_finds_each_bug(self):
        # A time limit and no --strategy: weft's portfolio (docs/strategies.md). Its speed is
        # the benchmark's to measure (bench/bugs/run --check); here, that it finds each bug.
        for row in run.ROWS:
            with self.subTest(row=row.name):
                r = run.run_cell(WEFT, row, "portfolio", 60, self.scratch)
                self.assertIsNone(r["error"], r["error"])
                self.assertEqual(r["exit_code"], 1, r)
                self.assertEqual(r["kind"], "assertion failure", r["message"])

    def test_fixed_variants_have_no_bug(self):
        rows = [run.Row("reorder", "reorder.c", ["-DFIXED", "-DSETTERS=3"]),
                run.Row("pipeline", "pipeline.c", ["-DFIXED", "-DTHREADS=3"]),
                run.Row("aba_stack", "aba_stack.c", ["-DFIXED", "-DTHREADS=2", "-DPEEKERS=0"]),
                run.Row("work_stealing", "work_stealing.c",
                        ["-DFIXED", "-DITEMS=2", "-DTHIEVES=1"])]
        for row in rows:
            with self.subTest(row=row.name):
                r = run.run_cell(WEFT, row, "optimal", 20, self.scratch)
                self.assertIsNone(r["error"], r["error"])
                self.assertEqual((r["exit_code"], r["status"]), (0, "none"), r)


def main():
    global WEFT
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--build-dir", type=Path)
    ap.add_argument("--weft", type=Path)
    args, rest = ap.parse_known_args()
    weft = run.find_weft(args.weft, args.build_dir)
    if os.access(weft, os.X_OK):
        WEFT = weft
    elif args.weft is not None or args.build_dir is not None:
        sys.exit(f"{weft} not found")
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
