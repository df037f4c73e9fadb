// Schedules and tests as short strings, for replay files and reports, and the marks of code and
// data addresses in messages. Directives and traces cross between weft and programs in one
// binary form only (weft/runtime/native_protocol.hpp).
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "weft/trace/directive.hpp"
#include "weft/trace/thread_id.hpp"
#include "weft/trace/trace.hpp"

namespace weft {

/// Thrown when a serialized form cannot be parsed; the message says what is wrong.
class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A schedule as a short string: "w1:" then comma-separated steps, each a thread name with an
/// optional repeat count, e.g. "w1:0*3,0.0*2,0.1,0". Thread names are creation paths, so the
/// string means the same thing to any process running the same program.
/// Decoding expands the repeat counts, so it refuses schedules longer than kMaxScheduleSteps
/// before it allocates anything for them: a count is only a claim until the steps exist.
inline constexpr std::size_t kMaxScheduleSteps = 10'000'000;
/// Marks a code or data address in a message for the driver to symbolise (symbolizer.hpp,
/// collect_addresses): "{pc:HEX}" and "{data:HEX}". ("{in:HEX}", written by the runtime's
/// sanitizer reports, becomes " in FUNCTION" of a code address.)
std::string code_mark(std::uint64_t address);
std::string data_mark(std::uint64_t address);

std::string encode_schedule(const std::vector<ThreadId>& schedule, const ThreadRegistry& threads);
std::vector<ThreadId> decode_schedule(std::string_view text, ThreadRegistry& threads);

/// A test as one string: its schedule and, when it has any, its input values after ";i=", each
/// as thread#ordinal=value (e.g. "w1:0*2,0.0;i=0#0=41,0.0#1=7"), and the options its steps took
/// other than the first (TestDirective::choices) after ";c=", each as step.option ("c=3.1,7.2").
/// Without inputs and options it is the schedule alone, so schedules from before inputs
/// existed still decode.
struct EncodedTest {
  std::vector<ThreadId> schedule;
  std::vector<InputValue> inputs;      ///< sorted by key
  std::vector<std::uint32_t> choices;  ///< by step (TestDirective::choices)
};
std::string encode_test(const std::vector<ThreadId>& schedule, std::span<const InputValue> inputs,
                        const ThreadRegistry& threads, std::span<const std::uint32_t> choices = {});
EncodedTest decode_test(std::string_view text, ThreadRegistry& threads);

}  // namespace weft
