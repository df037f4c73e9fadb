// `--junit FILE`: the result of `weft check`/`weft run` as a JUnit XML report, for CI systems
// that show test results (GitLab, Jenkins, GitHub actions that publish JUnit files).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace weft::driver {

/// The JUnit XML for `result`, the result JSON of a run (the one --json prints): one
/// <testsuite name="weft"> with one <testcase> for the program (classname: the program's name,
/// name: the strategy), holding a <failure> per bug (type: its kind, message: its message, text:
/// its report with the interleaving and replay command), a <skipped> with the reason when the
/// exploration was incomplete without a bug, or an <error> when weft could not give a verdict.
/// Times are in seconds.
std::string junit_report(const nlohmann::json& result);

}  // namespace weft::driver
