// The report files of `weft check` (--sarif, --junit, --html; docs/reports.md) on fixtures of
// tests/native/: an assertion failure, a data race, a deadlock and a correct program. Each form
// is read back by an outside tool: SARIF validated by python3-jsonschema against
// tests/data/sarif-2.1.0-weft.schema.json, JUnit parsed by Python's XML parser, and the HTML
// page loaded in headless Chromium, whose DOM after its script ran is checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "native_cli.hpp"

namespace {

using namespace weft::test;
using nlohmann::json;
namespace fs = std::filesystem;

// A file of this test in the temporary directory: tests may run in parallel.
std::string temp_file(const std::string& name) {
  const std::string test = weft::test::test_name();
  return (fs::temp_directory_path() / ("weft-forms-" + test + "-" + name)).string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// One `weft check` with all three report files and --json, from the directory `cwd`.
struct Forms {
  CliRun run;
  std::string sarif_path, junit_path, html_path;
  json sarif;
};

Forms check_with_forms(const std::string& file, const std::string& options = "",
                       const std::string& cwd = fs::temp_directory_path().string()) {
  Forms f;
  f.sarif_path = temp_file(file + ".sarif");
  f.junit_path = temp_file(file + ".junit.xml");
  f.html_path = temp_file(file + ".html");
  for (const auto& p : {f.sarif_path, f.junit_path, f.html_path}) fs::remove(p);
  f.run =
      shell("cd " + cwd + " && " + std::string(WEFT_BIN) + " check " + fixture(file) +
            " --json -q --replay-file " + temp_file(file + ".replay.json") + " --sarif " +
            f.sarif_path + " --junit " + f.junit_path + " --html " + f.html_path + " " + options);
  f.sarif = json::parse(read_text(f.sarif_path), nullptr, false);
  return f;
}

// python3-jsonschema's verdict on a SARIF file ("" when valid, else what it says). Debian's
// python3 is named by its path: the package installs there, whatever python3 PATH finds.
std::string schema_errors(const std::string& sarif_path) {
  const CliRun r = shell("/usr/bin/python3 -m jsonschema -i " + sarif_path + " " +
                         std::string(WEFT_TEST_DATA) + "/sarif-2.1.0-weft.schema.json");
  if (r.exit_code == 0) return "";
  return "exit code " + std::to_string(r.exit_code) + ": " + r.out + r.err;
}

const json& first_result(const Forms& f) {
  return f.sarif["runs"][0]["results"][0];
}

std::string uri_of(const json& location) {
  return location["physicalLocation"]["artifactLocation"]["uri"].get<std::string>();
}

int line_of(const json& location) {
  return location["physicalLocation"]["region"]["startLine"].get<int>();
}

// Checks one code flow against the bug's JSON: one thread flow per thread, every step in its
// thread's flow with its step number, increasing within each flow, and the bug's operations at
// the bug's step.
void expect_interleaving_as_code_flow(const json& result, const json& bug,
                                      std::size_t expected_threads) {
  const json& flows = result["codeFlows"][0]["threadFlows"];
  ASSERT_EQ(flows.size(), expected_threads) << flows.dump(1);
  std::map<int, std::string> thread_at_step;
  for (const auto& flow : flows) {
    int previous = 0;
    for (const auto& loc : flow["locations"]) {
      const int order = loc["executionOrder"].get<int>();
      EXPECT_GE(order, previous) << flow["id"];
      previous = order;
      if (order < bug["bug_step"].get<int>()) thread_at_step[order] = flow["id"];
    }
  }
  ASSERT_EQ(thread_at_step.size(), bug["interleaving"].size());
  for (const auto& step : bug["interleaving"])
    EXPECT_EQ(thread_at_step[step["step"].get<int>()], step["thread"].get<std::string>());
}

TEST(ReportForms, DataRaceInSarifHasBothAccessesAndOneThreadFlowPerThread) {
  // From the tests' parent directory: the fixture is under it, so its URI is relative.
  const Forms f =
      check_with_forms("racy_counter.c", "", fs::path(WEFT_NATIVE_FIXTURES).parent_path().string());
  ASSERT_EQ(f.run.exit_code, 1) << f.run.out << f.run.err;
  EXPECT_EQ(schema_errors(f.sarif_path), "");
  ASSERT_FALSE(f.sarif.is_discarded());
  EXPECT_EQ(f.sarif["version"], "2.1.0");
  EXPECT_EQ(f.sarif["runs"][0]["tool"]["driver"]["name"], "weft");
  EXPECT_FALSE(f.sarif["runs"][0]["tool"]["driver"]["version"].get<std::string>().empty());
  const json& result = first_result(f);
  EXPECT_EQ(result["ruleId"], "data-race");
  EXPECT_EQ(result["level"], "error");
  EXPECT_EQ(result["message"]["text"], f.run.result["bugs"][0]["message"]);
  // The primary location is one access; the related locations are both, each with its thread.
  EXPECT_EQ(uri_of(result["locations"][0]), "native/racy_counter.c");
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"],
            "%SRCROOT%");
  std::set<int> lines;
  std::set<std::string> texts;
  for (const auto& loc : result["relatedLocations"]) {
    lines.insert(line_of(loc));
    texts.insert(loc["message"]["text"].get<std::string>());
  }
  EXPECT_EQ(lines, (std::set<int>{10, 11}));  // the read and the write of `counter`
  EXPECT_EQ(texts, (std::set<std::string>{"read (4 bytes) by thread 0.1",
                                          "write (4 bytes) by thread 0.0"}));
  EXPECT_TRUE(lines.count(line_of(result["locations"][0])));
  // Threads 0, 0.0 and 0.1: main's two steps, and each racing access at the bug's step.
  expect_interleaving_as_code_flow(result, f.run.result["bugs"][0], 3);
  const std::string srcroot =
      f.sarif["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"].get<std::string>();
  EXPECT_EQ(srcroot, "file://" + fs::path(WEFT_NATIVE_FIXTURES).parent_path().string() + "/");
}

TEST(ReportForms, SourcesOutsideTheWorkingDirectoryGetAbsoluteFileUris) {
  // A fresh empty directory cannot hold the fixtures.
  const std::string elsewhere = temp_file("cwd");
  fs::remove_all(elsewhere);
  fs::create_directory(elsewhere);
  const Forms f = check_with_forms("racy_counter.c", "", elsewhere);
  ASSERT_EQ(f.run.exit_code, 1) << f.run.out << f.run.err;
  const json& loc = first_result(f)["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(loc["uri"], "file://" + fixture("racy_counter.c"));
  EXPECT_FALSE(loc.contains("uriBaseId"));
  EXPECT_EQ(schema_errors(f.sarif_path), "");
  fs::remove_all(elsewhere);
}

TEST(ReportForms, DeadlockInSarifHasEachBlockedThreadsOperation) {
  const Forms f = check_with_forms("abba_deadlock.c");
  ASSERT_EQ(f.run.exit_code, 1) << f.run.out << f.run.err;
  EXPECT_EQ(schema_errors(f.sarif_path), "");
  const json& result = first_result(f);
  EXPECT_EQ(result["ruleId"], "deadlock");
  std::map<std::string, int> line_of_thread;
  for (const auto& loc : result["relatedLocations"]) {
    const std::string text = loc["message"]["text"].get<std::string>();
    line_of_thread[text.substr(0, text.find(" waits"))] = line_of(loc);
  }
  // main joins (line 29), forward waits for `second` (10), backward for `first` (19).
  EXPECT_EQ(line_of_thread,
            (std::map<std::string, int>{{"thread 0", 29}, {"thread 0.0", 10}, {"thread 0.1", 19}}));
  expect_interleaving_as_code_flow(result, f.run.result["bugs"][0], 3);
}

TEST(ReportForms, AssertionFailureInSarifIsAtTheAssertion) {
  const Forms f = check_with_forms("lost_update.c");
  ASSERT_EQ(f.run.exit_code, 1) << f.run.out << f.run.err;
  EXPECT_EQ(schema_errors(f.sarif_path), "");
  const json& result = first_result(f);
  EXPECT_EQ(result["ruleId"], "assertion-failure");
  EXPECT_EQ(line_of(result["locations"][0]), 26);
  EXPECT_FALSE(result.contains("relatedLocations"));
  expect_interleaving_as_code_flow(result, f.run.result["bugs"][0], 3);
  // Every kind of bug has its rule, each id once.
  std::set<std::string> ids;
  for (const auto& rule : f.sarif["runs"][0]["tool"]["driver"]["rules"]) ids.insert(rule["id"]);
  for (const char* id : {"data-race", "deadlock", "assertion-failure", "crash", "livelock",
                         "use-after-free", "heap-overflow", "double-free", "memory-leak"})
    EXPECT_TRUE(ids.count(id)) << id;
  EXPECT_EQ(ids.size(), f.sarif["runs"][0]["tool"]["driver"]["rules"].size());
  const int index = result["ruleIndex"].get<int>();
  EXPECT_EQ(f.sarif["runs"][0]["tool"]["driver"]["rules"][index]["id"], "assertion-failure");
}

TEST(ReportForms, LivelockInSarifIsAtTheSpinningLoop) {
  const Forms f = check_with_forms("spin_forever.c", "--points=all");
  ASSERT_EQ(f.run.exit_code, 1) << f.run.out << f.run.err;
  EXPECT_EQ(schema_errors(f.sarif_path), "");
  const json& result = first_result(f);
  EXPECT_EQ(result["ruleId"], "livelock");
  // The spinner's loop (it has no blocked operation: where it last was), then main's join.
  EXPECT_EQ(line_of(result["locations"][0]), 13);
  ASSERT_EQ(result["relatedLocations"].size(), 2u);
  EXPECT_EQ(line_of(result["relatedLocations"][1]), 22);
}

TEST(ReportForms, CorrectProgramHasNoResultsAndNoFailure) {
  const Forms f = check_with_forms("locked_counter.c");
  ASSERT_EQ(f.run.exit_code, 0) << f.run.out << f.run.err;
  EXPECT_EQ(schema_errors(f.sarif_path), "");
  EXPECT_TRUE(f.sarif["runs"][0]["results"].empty());
}

// The JUnit file as Python's XML parser reads it: the root's tag and attributes, and per test
// case its attributes and its failure, skipped and error elements.
json parse_junit(const std::string& path) {
  const std::string script = temp_file("junit.py");
  std::ofstream(script) << R"py(
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
def element(e):
    return {"attributes": dict(e.attrib), "text": e.text or ""}
cases = []
for case in root.iter("testcase"):
    cases.append({"attributes": dict(case.attrib),
                  "failures": [element(x) for x in case.findall("failure")],
                  "skipped": [element(x) for x in case.findall("skipped")],
                  "errors": [element(x) for x in case.findall("error")]})
print(json.dumps({"tag": root.tag, "attributes": dict(root.attrib), "cases": cases,
                  "suites": len([root] if root.tag == "testsuite" else root.findall("testsuite"))}))
)py";
  const CliRun r = shell("/usr/bin/python3 " + script + " " + path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.result;
}

TEST(ReportForms, JUnitHasAFailurePerBugWithItsReport) {
  const Forms f = check_with_forms("racy_counter.c");
  ASSERT_EQ(f.run.exit_code, 1) << f.run.out;
  const json junit = parse_junit(f.junit_path);
  ASSERT_FALSE(junit.is_discarded());
  EXPECT_EQ(junit["tag"], "testsuite");
  EXPECT_EQ(junit["attributes"]["name"], "weft");
  EXPECT_EQ(junit["suites"], 1);
  ASSERT_EQ(junit["cases"].size(), 1u);
  const json& test_case = junit["cases"][0];
  EXPECT_EQ(test_case["attributes"]["classname"], "racy_counter.c");
  EXPECT_EQ(test_case["attributes"]["name"], "optimal");
  const json& bugs = f.run.result["bugs"];
  ASSERT_EQ(test_case["failures"].size(), bugs.size());
  for (std::size_t i = 0; i < bugs.size(); ++i) {
    const json& failure = test_case["failures"][i];
    EXPECT_EQ(failure["attributes"]["type"], "data race");
    EXPECT_EQ(failure["attributes"]["message"], bugs[i]["message"]);
    EXPECT_EQ(failure["text"], bugs[i]["report"]);
  }
  // The first failure's report has the interleaving and the replay command.
  const std::string report = test_case["failures"][0]["text"];
  EXPECT_TRUE(contains(report, "Interleaving (2 steps")) << report;
  EXPECT_TRUE(contains(report, "Replay:   weft replay ")) << report;
  EXPECT_TRUE(test_case["skipped"].empty());
  EXPECT_GE(std::stod(test_case["attributes"]["time"].get<std::string>()), 0.0);
}

TEST(ReportForms, JUnitSkipsAnIncompleteRunAndPassesACorrectOne) {
  const Forms cut = check_with_forms("locked_counter.c", "--max-executions 1");
  ASSERT_EQ(cut.run.exit_code, 3) << cut.run.out;
  const json skipped = parse_junit(cut.junit_path);
  ASSERT_EQ(skipped["cases"].size(), 1u);
  EXPECT_TRUE(skipped["cases"][0]["failures"].empty());
  ASSERT_EQ(skipped["cases"][0]["skipped"].size(), 1u);
  EXPECT_EQ(skipped["cases"][0]["skipped"][0]["attributes"]["message"],
            "stopped by --max-executions or --time-limit");
  EXPECT_EQ(skipped["attributes"]["skipped"], "1");

  const Forms clean = check_with_forms("locked_counter.c");
  ASSERT_EQ(clean.run.exit_code, 0);
  const json passed = parse_junit(clean.junit_path);
  ASSERT_EQ(passed["cases"].size(), 1u);
  EXPECT_TRUE(passed["cases"][0]["failures"].empty());
  EXPECT_TRUE(passed["cases"][0]["skipped"].empty());
  EXPECT_EQ(passed["attributes"]["failures"], "0");
}

// The page's DOM after Chromium ran its script.
std::string browser_dom(const std::string& html_path) {
  const std::string profile = temp_file("chromium-profile");
  fs::remove_all(profile);
  const CliRun r = shell(
      "timeout 120 chromium --headless --no-sandbox --disable-gpu "
      "--user-data-dir=" +
      profile + " --dump-dom file://" + html_path);
  fs::remove_all(profile);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// data-step of each step row, in order, and which rows are bug steps.
struct Rows {
  std::vector<int> steps;
  std::vector<int> bug_steps;
};
Rows rows_of(const std::string& dom) {
  Rows rows;
  const std::regex row(R"re(<tr class="step( bug-step)?" data-step="(\d+)")re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), row); it != std::sregex_iterator();
       ++it) {
    rows.steps.push_back(std::stoi((*it)[2]));
    if ((*it)[1].matched) rows.bug_steps.push_back(std::stoi((*it)[2]));
  }
  return rows;
}

std::vector<std::string> thread_columns(const std::string& dom) {
  std::vector<std::string> threads;
  const std::regex column(R"re(class="thread-column" data-thread="([^"]+)")re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), column); it != std::sregex_iterator();
       ++it)
    threads.push_back((*it)[1]);
  return threads;
}

// The threads of the cells whose class list has `css_class` (the script may add classes, such
// as "selected", after the page's own).
std::vector<std::string> cells_with_class(const std::string& dom, const std::string& css_class) {
  std::vector<std::string> threads;
  const std::regex cell("<td class=\"([^\"]*)\" data-thread=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), cell); it != std::sregex_iterator();
       ++it) {
    std::istringstream classes((*it)[1].str());
    for (std::string c; classes >> c;)
      if (c == css_class) threads.push_back((*it)[2]);
  }
  return threads;
}

// What every page must be: one column per thread, every step a row in order, the bug's step
// the one marked, the replay command there, and nothing loaded from elsewhere.
void expect_page(const Forms& f, const std::string& dom, const std::vector<std::string>& threads) {
  const json& bug = f.run.result["bugs"][0];
  EXPECT_EQ(thread_columns(dom), threads);
  const Rows rows = rows_of(dom);
  std::vector<int> expected;
  for (const auto& step : bug["interleaving"]) expected.push_back(step["step"].get<int>());
  expected.push_back(bug["bug_step"].get<int>());
  EXPECT_EQ(rows.steps, expected);
  ASSERT_EQ(rows.bug_steps.size(), 1u);
  EXPECT_EQ(rows.bug_steps[0], bug["bug_step"].get<int>());
  EXPECT_EQ(rows.bug_steps[0], static_cast<int>(bug["interleaving"].size()) + 1);
  EXPECT_TRUE(contains(dom, bug["replay_command"].get<std::string>())) << dom;
  const std::string page = read_text(f.html_path);
  for (const auto& text : {page, dom}) {
    EXPECT_FALSE(contains(text, "http://"));
    EXPECT_FALSE(contains(text, "https://"));
  }
}

TEST(ReportForms, HtmlShowsTheRaceAsSwimlanesWithBothAccessesLinked) {
  const Forms f = check_with_forms("racy_counter.c");
  ASSERT_EQ(f.run.exit_code, 1) << f.run.out;
  const std::string dom = browser_dom(f.html_path);
  // Two bugs of one execution: the first one's section is checked.
  const std::string first = dom.substr(0, dom.find("<section class=\"bug\" id=\"bug-2\""));
  expect_page(f, first, {"0", "0.0", "0.1"});
  const std::vector<std::string> racing = cells_with_class(first, "related-step");
  EXPECT_EQ(std::set<std::string>(racing.begin(), racing.end()),
            (std::set<std::string>{"0.0", "0.1"}));
  EXPECT_EQ(racing.size(), 2u);
  EXPECT_TRUE(contains(first, "read (4 bytes) by thread 0.1"));
  EXPECT_TRUE(contains(first, "racy_counter.c:10 (increment"));
  // The source lines around each step are in the page, and the script showed the bug's own.
  EXPECT_TRUE(contains(dom, "counter = seen + 1;"));
  const std::string panel = dom.substr(dom.find("id=\"source-view\""));
  EXPECT_TRUE(contains(panel.substr(0, panel.find("</aside>")), "source-line current"));
}

TEST(ReportForms, HtmlLinksEachDeadlockedThreadsOperation) {
  const Forms f = check_with_forms("abba_deadlock.c");
  ASSERT_EQ(f.run.exit_code, 1) << f.run.out;
  const std::string dom = browser_dom(f.html_path);
  expect_page(f, dom, {"0", "0.0", "0.1"});
  EXPECT_EQ(cells_with_class(dom, "related-step"), (std::vector<std::string>{"0", "0.0", "0.1"}));
  EXPECT_TRUE(contains(dom, "thread 0.0 waits to lock mutex second"));
}

TEST(ReportForms, HtmlOfAnAssertionFailureMarksTheFailingThread) {
  const Forms f = check_with_forms("lost_update.c");
  ASSERT_EQ(f.run.exit_code, 1) << f.run.out;
  const std::string dom = browser_dom(f.html_path);
  expect_page(f, dom, {"0", "0.0", "0.1"});
  EXPECT_TRUE(cells_with_class(dom, "related-step").empty());
  EXPECT_EQ(cells_with_class(dom, "bug-op"), std::vector<std::string>{"0"});
  EXPECT_TRUE(contains(dom, "lost_update.c:26"));
  EXPECT_TRUE(contains(dom, "assert(counter == 2);"));
}

TEST(ReportForms, HtmlOfACorrectProgramSaysSo) {
  const Forms f = check_with_forms("locked_counter.c");
  ASSERT_EQ(f.run.exit_code, 0);
  const std::string dom = browser_dom(f.html_path);
  EXPECT_TRUE(contains(dom, "No bug found; every behaviour was explored"));
  EXPECT_EQ(count(dom, "class=\"step"), 0u);
}

TEST(ReportForms, HtmlSaysWhenASourceCannotBeRead) {
  // A program whose source is gone by the time weft reports on it.
  const std::string source = temp_file("gone.c");
  const std::string program = temp_file("gone");
  fs::copy_file(fixture("lost_update.c"), source, fs::copy_options::overwrite_existing);
  ASSERT_EQ(shell(std::string(WEFT_CC) + " -O0 " + source + " -o " + program).exit_code, 0);
  fs::remove(source);
  const std::string html = temp_file("gone.html");
  const CliRun r = weft_cli("run -q --replay-file " + temp_file("gone.json") + " --html " + html +
                            " " + program);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string page = read_text(html);
  EXPECT_TRUE(contains(page, "The source is not shown: cannot read " + source)) << page;
  EXPECT_TRUE(contains(page, "No such file or directory"));
  EXPECT_TRUE(contains(page, "class=\"step bug-step\""));
  fs::remove(program);
}

TEST(ReportForms, ReplayWritesTheReplayedBugsReports) {
  const Forms f = check_with_forms("abba_deadlock.c");
  ASSERT_EQ(f.run.exit_code, 1);
  const std::string sarif = temp_file("replay.sarif");
  const std::string html = temp_file("replay.html");
  const CliRun r = weft_cli("replay " + temp_file("abba_deadlock.c.replay.json") + " --sarif " +
                            sarif + " --html " + html);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(schema_errors(sarif), "");
  const json log = json::parse(read_text(sarif));
  ASSERT_EQ(log["runs"][0]["results"].size(), 1u);
  EXPECT_EQ(log["runs"][0]["results"][0]["ruleId"], "deadlock");
  EXPECT_EQ(log["runs"][0]["results"][0]["relatedLocations"].size(), 3u);
  const std::string page = read_text(html);
  EXPECT_EQ(count(page, "class=\"step bug-step\""), 1u);
  EXPECT_TRUE(contains(page, "weft replay " + temp_file("abba_deadlock.c.replay.json")));
}

TEST(ReportForms, TextOutputIsUnchangedBesideReportFiles) {
  const std::string html = temp_file("page.html");
  const CliRun with = weft_cli("check " + fixture("lost_update.c") + " -q --replay-file " +
                               temp_file("replay.json") + " --html " + html);
  const CliRun without = weft_cli("check " + fixture("lost_update.c") + " -q --replay-file " +
                                  temp_file("replay.json"));
  ASSERT_EQ(with.exit_code, 1);
  const auto cut_statistics = [](const std::string& text) {
    return text.substr(0, text.rfind("weft: 1 bug found"));  // times differ
  };
  EXPECT_EQ(cut_statistics(with.out), cut_statistics(without.out));
  EXPECT_TRUE(contains(read_text(html), "<!DOCTYPE html>"));
}

TEST(ReportForms, AnUnwritableFileIsOneErrorLineAndExitCode2) {
  for (const char* option : {"--sarif", "--junit", "--html"}) {
    const CliRun r = weft_cli("check " + fixture("lost_update.c") + " -q " + option +
                              " /nonexistent-dir/report");
    EXPECT_EQ(r.exit_code, 2) << option;
    EXPECT_EQ(count(r.err, "\n"), 1u) << r.err;
    EXPECT_TRUE(r.err.starts_with("weft: error: cannot write /nonexistent-dir/report: ")) << r.err;
    EXPECT_TRUE(contains(r.err, std::string("give ") + option)) << r.err;
  }
  // A directory is not a file either.
  const CliRun dir = weft_cli("check " + fixture("lost_update.c") + " -q --sarif " +
                              fs::temp_directory_path().string());
  EXPECT_EQ(dir.exit_code, 2);
  EXPECT_TRUE(contains(dir.err, "it is a directory")) << dir.err;
  const CliRun twice = weft_cli("check " + fixture("lost_update.c") + " -q --sarif " +
                                temp_file("x") + " --html " + temp_file("x"));
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_TRUE(contains(twice.err, "it is given to both --sarif and --html")) << twice.err;
}

}  // namespace
