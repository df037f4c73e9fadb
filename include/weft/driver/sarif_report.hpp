// `--sarif FILE`: the result of `weft check`/`weft run` as SARIF 2.1.0 (OASIS Static Analysis
// Results Interchange Format), for GitHub code scanning and IDE SARIF viewers. See
// docs/reports.md for what each field holds.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "weft/trace/trace.hpp"

namespace weft::driver {

/// The rule a bug of this kind is reported under: a stable id ("data-race", "deadlock",
/// "assertion-failure", "use-after-free"...), and a one-sentence description of the rule.
struct SarifRule {
  const char* id;
  const char* description;
};
SarifRule sarif_rule(Outcome outcome);

/// The SARIF log for `result`, the result JSON of a run (the one --json prints, with the report
/// fields native_bug_json adds): one run with tool.driver "weft" and its rules, one result per
/// bug with its location, related locations (a race's two accesses, a deadlock's blocked
/// operations) and its interleaving as a code flow of one thread flow per thread. Files under
/// `working_directory` get URIs relative to it (base %SRCROOT%), others absolute file:// URIs.
std::string sarif_report(const nlohmann::json& result, const std::string& working_directory);

}  // namespace weft::driver
