// Reports of bugs in native programs: messages with source locations and variable names, the
// interleaving with file:line per event, and the same as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "weft/driver/symbolizer.hpp"
#include "weft/explore/exploration.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft::driver {

/// Looks up what the reports of `bugs` name, all before any is written.
void prepare_symbols(const std::vector<explorer::FoundBug>& bugs, Symbolizer& symbols);

/// "weft replay FILE" with the hint the text report gives after it (--gdb).
std::string replay_with_hint(const std::string& replay_command);

/// The bug's one-line message with {pc:…}/{data:…} resolved.
std::string bug_message(const explorer::FoundBug& bug, Symbolizer& symbols);

/// The bug, its interleaving (each event with its file:line, objects by their variable names),
/// and how to replay it.
std::string format_native_bug(const explorer::FoundBug& bug, const ThreadRegistry& threads,
                              Symbolizer& symbols, const std::string& replay_command);

/// Several bugs found in one execution: each bug's message, then the execution's interleaving
/// once with each bug marked where it happened, each bug's schedule, and the replay command.
/// Bugs are numbered from `first_number`. One bug: format_native_bug.
std::string format_native_bugs(const std::vector<const explorer::FoundBug*>& bugs,
                               std::size_t first_number, const ThreadRegistry& threads,
                               Symbolizer& symbols, const std::string& replay_command);

/// The same as JSON: kind, message, schedule, inputs, the interleaving step by step and the
/// threads still pending at its end; and, for the report files (sarif_report.hpp,
/// junit_report.hpp, html_report.hpp): `bug_step` (the bug happened as step interleaving + 1),
/// `thread` (the thread it happened in, when one did), `location` (its own file, line and
/// function), `accesses` (a data race's two accesses, each with its thread and place),
/// `threads` (the execution's threads in order of appearance), `stuck` (each thread a deadlock
/// or livelock leaves stuck: what it waits for and where), `report` (the text report) and
/// `replay_command` (when given).
nlohmann::json native_bug_json(const explorer::FoundBug& bug, const ThreadRegistry& threads,
                               Symbolizer& symbols, const std::string& replay_command = "");

/// With the peak resident memory (KiB) of weft itself and of the program's processes
/// (`program_peak_kib`, ForkServer::peak_rss_kib).
nlohmann::json statistics_json(const explorer::Statistics& stats, std::uint64_t program_peak_kib);

}  // namespace weft::driver
