// `--html FILE`: the result of `weft check`/`weft run` as one self-contained HTML page (inline
// CSS and script, nothing fetched), to read an interleaving as swimlanes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace weft::driver {

/// The page for `result`, the result JSON of a run (the one --json prints, with the report
/// fields native_bug_json adds). Per bug: a table with one column per thread
/// (`th.thread-column[data-thread]`) and one row per step (`tr.step[data-step]`), each step's
/// operation and `file:line (function)` in its thread's column; the bug's own step last
/// (`tr.bug-step`), with the operations that make the bug (a race's two accesses, a deadlock's
/// blocked threads) marked `related-step` and highlighted together; the source lines around
/// each step (read from the source files now; a file that cannot be read is said to be so),
/// shown on hover or click; the inputs; the schedule and the replay command, each copyable.
std::string html_report(const nlohmann::json& result);

/// The page's style sheet and script (html_report_assets.cpp), inlined into every page.
const char* html_report_style();
const char* html_report_script();

}  // namespace weft::driver
