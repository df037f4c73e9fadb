#!/usr/bin/env python3
"""Unit tests of bench/real/run's pure functions: the deb-src entry it derives from apt's
configuration, and its reading of weft's output. Not in ctest (nor is the runner):
`python3 -m unittest discover -s bench/real`."""

import importlib.machinery
import importlib.util
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
_loader = importlib.machinery.SourceFileLoader("real_run", str(HERE / "run"))
_spec = importlib.util.spec_from_loader("real_run", _loader)
run = importlib.util.module_from_spec(_spec)
_loader.exec_module(run)

# Example hosts only: the runner copies whatever the machine's own entries name.
DEB822 = """Types: deb
# a comment
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://mirror.example/debian
Suites: bookworm
Components: main
"""


class DebSrcEntry(unittest.TestCase):
    def test_deb822_stanzas_become_deb_src(self):
        [stanza] = run.deb822_to_src(DEB822)
        self.assertIn("Types: deb-src", stanza)
        self.assertIn("URIs: http://mirror.example/debian", stanza)
        self.assertIn("Suites: bookworm bookworm-updates", stanza)
        self.assertNotIn("# a comment", stanza)

    def test_one_line_entries_keep_their_key(self):
        text = ("deb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main\n"
                "# deb http://commented.example/debian bookworm main\n"
                "deb-src http://mirror.example/debian bookworm main\n")
        [stanza] = run.one_line_to_src(text)
        self.assertEqual(stanza.splitlines(), [
            "Types: deb-src", "URIs: http://mirror.example/debian", "Suites: bookworm",
            "Components: main", "Signed-By: /k.gpg"])


class WeftOutput(unittest.TestCase):
    def test_bug(self):
        text = ("BUG: data race\n  thread 0.1: write of x at a.c:3\n\n"
                "weft: 1 bug found (7 executions (5 complete, 2 sleep-set blocked, 0 bound "
                "reached), 5 distinct traces, 40 events, 0.01 s, 700 executions/s)\n")
        executions, verdict, bug = run.parse_weft_output(text)
        self.assertEqual(executions, 7)
        self.assertTrue(verdict.startswith("weft: 1 bug found"))
        self.assertEqual(bug, "BUG: data race -- thread 0.1: write of x at a.c:3")

    def test_error_has_no_executions(self):
        self.assertEqual(run.parse_weft_output("weft: error: not built by weft-cc\n"),
                         (None, "weft: error: not built by weft-cc", ""))

    def test_summary_keeps_the_worst_run(self):
        runs = [{"label": "a", "exit_code": 0, "executions": 3, "verdict": "weft: ok"},
                {"label": "b", "exit_code": 3, "executions": 4, "verdict": "weft: cut"},
                {"label": "c", "exit_code": 1, "executions": None, "verdict": "weft: bug"}]
        self.assertEqual(run.summarize(runs),
                         {"exit_code": 3, "verdict": "b: weft: cut", "executions": 7})


class VerdictLine(unittest.TestCase):
    def test_caveat_lines_after_the_verdict_are_not_the_verdict(self):
        out = ("weft: no bug found; every behaviour under sequential consistency was explored "
               "(12 executions (9 complete, 3 sleep-set blocked, 0 bound reached), 90 events)\n"
               "weft: the program uses atomics weaker than seq_cst (at a.cpp:3), which ...\n")
        executions, verdict, _ = run.parse_weft_output(out)
        self.assertEqual(executions, 12)
        self.assertTrue(verdict.startswith("weft: no bug found"))


class DriverExpectations(unittest.TestCase):
    def test_exit_code_and_names(self):
        check = run.expect_exit(3, names=["libglib"], no_confident_bug=True)
        self.assertEqual(check(3, "weft: ... uses libglib-2.0.so.0 ..."), (True, ""))
        self.assertFalse(check(0, "libglib")[0])
        self.assertIn("libglib", check(3, "weft: no bug found")[1])

    def test_a_bug_must_be_marked_as_possibly_false(self):
        check = run.expect_exit(1, names=["libtbb"], no_confident_bug=True)
        marked = "BUG 1: data race\n...\nweft: the data races above may be false: ... libtbb"
        self.assertTrue(check(1, marked)[0])
        self.assertFalse(check(1, "BUG: data race ... libtbb")[0])


if __name__ == "__main__":
    unittest.main()
