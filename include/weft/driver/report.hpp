// Human-readable reports of bugs, interleavings and statistics.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "weft/explore/exploration.hpp"
#include "weft/trace/thread_id.hpp"
#include "weft/trace/trace.hpp"

namespace weft::driver {

/// How a report names an operation, and where (source location) event i happened.
struct EventText {
  std::function<std::string(const Operation&)> operation;  ///< default: describe()
  std::function<std::string(std::size_t)> location;        ///< default: none
  /// Lines printed after the first `n` steps (n = 0: before the first), marking where a bug
  /// happened.
  std::map<std::size_t, std::vector<std::string>> marks;
};

/// The trace as numbered steps, each event indented into its thread's column, so that what each
/// thread did and how the threads alternated can both be read off; with a location column when
/// `text` gives locations.
std::string format_interleaving(const Trace& trace, const ThreadRegistry& threads,
                                const EventText& text = {});

/// "bug: <message>", the interleaving, the schedule string and `replay_hint` (how to replay it).
std::string format_bug(const explorer::FoundBug& bug, const ThreadRegistry& threads,
                       const std::string& schedule, const std::string& replay_hint);

/// The inputs an execution read, one per line: name, which input it is, the value in decimal and
/// hex. Empty when it read none.
std::string format_inputs(const Trace& trace, const ThreadRegistry& threads);

/// What kept the exploration of inputs from covering every input path (InputStatistics), as
/// counts: "3 values were made concrete (...)". Empty when nothing did.
std::string describe_input_gaps(const explorer::InputStatistics& inputs);

/// One line of statistics.
std::string format_statistics(const explorer::Statistics& stats);

/// "12,345": counts for people to read.
std::string group_digits(std::uint64_t n);

/// The progress line of a run so far: executions, executions per second, bugs, the longest
/// execution, the time elapsed, and with a `time_limit` (seconds, 0: none) the time left.
std::string format_progress(const explorer::Statistics& stats, double time_limit);

}  // namespace weft::driver
