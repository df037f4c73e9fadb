// The replay file: what `weft run` and `weft check` write for a bug, and `weft replay` reads
// back. Reading it treats the file as untrusted input: every field is checked, by its JSON path,
// before anything is run or allocated for it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "weft/driver/native_runner.hpp"
#include "weft/trace/directive.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft::driver {

/// Larger replay files are refused unread. A real one is a few hundred bytes; the bound leaves
/// room for schedules of millions of steps that alternate threads.
inline constexpr std::size_t kMaxReplayFileBytes = std::size_t{64} << 20;

struct ReplayFile {
  std::string program;  ///< absolute path of the program built by weft-cc
  std::vector<std::string> args;
  /// The options that decide what an execution does (points, bounds, nondet, keep_spinning,
  /// memory checks, leaks),
  /// and the time limit of one execution; the limits of exploration runs are not recorded.
  ProgramOptions options;
  std::string schedule;  ///< wire format, "w1:0*2,0.0,...", with ";i=..." inputs (encode_test)
  /// Whether the execution followed inputs (ran the functions' instrumented code rather than
  /// their plain copies): the replay runs the same code, whose addresses promoted sites name.
  bool track_inputs = true;
  std::string bug_kind;
  std::string bug_message;  ///< as bug_message() renders it, to tell whether replay reproduced it
  /// A global-state bug (--check-global): the predicate, and after how many events of the
  /// execution it holds; the replay evaluates it there again.
  std::string check_global;
  std::uint64_t global_steps = 0;
};

/// The file's text (JSON).
std::string replay_file_text(const ReplayFile& file);

/// Parses and checks `text`; throws DriverError naming `file_name`, the field and what is wrong.
/// The schedule (and the inputs after it) is checked by decoding it into `threads`, and the
/// decoded steps and input values are returned in `test`.
ReplayFile parse_replay_file(std::string_view text, const std::string& file_name,
                             ThreadRegistry& threads, TestDirective& test);

/// Reads `path` (a regular file no larger than kMaxReplayFileBytes) and parses it as above.
ReplayFile load_replay_file(const std::string& path, ThreadRegistry& threads, TestDirective& test);

}  // namespace weft::driver
