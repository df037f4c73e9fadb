// libFuzzer target: every parser weft applies to text from outside, fed the same bytes. The replay
// file (JSON, then its schedule), the schedule alone, and the directive and trace records that
// cross the pipe between weft and a program. Each may reject its input, only with its own error
// type; anything else (a crash, another exception, an allocation the input merely asked for) is
// a finding. A schedule that decodes must encode back to one that decodes to the same steps.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "weft/driver/native_runner.hpp"
#include "weft/driver/replay_file.hpp"
#include "weft/trace/wire.hpp"

namespace {

void schedule_round_trips(std::string_view text) {
  weft::ThreadRegistry threads;
  std::vector<weft::ThreadId> steps;
  try {
    steps = weft::decode_schedule(text, threads);
  } catch (const weft::WireError&) {
    return;
  }
  weft::ThreadRegistry fresh;
  const auto again = weft::decode_schedule(weft::encode_schedule(steps, threads), fresh);
  if (weft::encode_schedule(again, fresh) != weft::encode_schedule(steps, threads))
    __builtin_trap();
}

template <class Parse>
void rejects_only_with_wire_errors(Parse&& parse) {
  try {
    parse();
  } catch (const weft::WireError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    weft::ThreadRegistry threads;
    std::vector<weft::ThreadId> steps;
    const auto file = weft::driver::parse_replay_file(text, "fuzz.json", threads, steps);
    // What was accepted can be written and read back the same.
    weft::ThreadRegistry again_threads;
    std::vector<weft::ThreadId> again_steps;
    const auto again = weft::driver::parse_replay_file(weft::driver::replay_file_text(file),
                                                       "again.json", again_threads, again_steps);
    if (again.schedule != file.schedule || again.args != file.args || again_steps != steps)
      __builtin_trap();
  } catch (const weft::driver::DriverError&) {
  }
  schedule_round_trips(text);
  rejects_only_with_wire_errors([&] {
    weft::ThreadRegistry threads;
    weft::decode_directive(text, threads);
  });
  rejects_only_with_wire_errors([&] {
    weft::ThreadRegistry threads;
    weft::decode_trace(text, threads);
  });
  rejects_only_with_wire_errors([&] {
    weft::ThreadRegistry threads;
    weft::Trace trace;
    weft::decode_trace_event(text, trace, threads);
  });
  return 0;
}
