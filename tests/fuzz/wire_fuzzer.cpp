// libFuzzer target: every parser weft applies to bytes from outside, fed the same bytes. The replay
// file (JSON, then its schedule), the schedule and the test string alone, and the binary
// directive and log records that cross the shared memory between weft and a program
// (weft/runtime/native_protocol.hpp). Each may reject its input, only with its own error
// type; anything else (a crash, another exception, an allocation the input merely asked for) is
// a finding. A schedule that decodes must encode back to one that decodes to the same steps.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "weft/driver/native_runner.hpp"
#include "weft/driver/replay_file.hpp"
#include "weft/runtime/native_protocol.hpp"
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

template <class Parse>
void rejects_only_with_protocol_errors(Parse&& parse) {
  try {
    parse();
  } catch (const weft::native::ProtocolError&) {
  }
}

// The bytes as a log: a header saying they are all records, then the bytes.
void read_as_log(std::string_view bytes, std::size_t sent_threads) {
  std::string log(sizeof(weft::native::LogHeader), '\0');
  weft::native::LogHeader header{};
  header.magic = weft::native::kLogMagic;
  header.used = header.capacity = bytes.size();
  std::memcpy(log.data(), &header, sizeof header);
  log += bytes;
  weft::ThreadRegistry threads;
  for (std::size_t t = 1; t < sent_threads; ++t)
    threads.child(0, static_cast<std::uint32_t>(t - 1));
  weft::native::read_log_records(log.data(), sent_threads, threads);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    weft::ThreadRegistry threads;
    weft::TestDirective test;
    const auto file = weft::driver::parse_replay_file(text, "fuzz.json", threads, test);
    // What was accepted can be written and read back the same.
    weft::ThreadRegistry again_threads;
    weft::TestDirective again_test;
    const auto again = weft::driver::parse_replay_file(weft::driver::replay_file_text(file),
                                                       "again.json", again_threads, again_test);
    if (again.schedule != file.schedule || again.args != file.args ||
        again_test.prefix != test.prefix || again_test.inputs != test.inputs ||
        again_test.track_inputs != test.track_inputs)
      __builtin_trap();
  } catch (const weft::driver::DriverError&) {
  }
  schedule_round_trips(text);
  rejects_only_with_wire_errors([&] {
    weft::ThreadRegistry threads;
    weft::decode_test(text, threads);
  });
  rejects_only_with_protocol_errors([&] {
    weft::ThreadRegistry threads;
    weft::native::decode_directive(text.data(), text.size(), threads);
  });
  rejects_only_with_protocol_errors([&] { read_as_log(text, 1); });
  rejects_only_with_protocol_errors([&] { read_as_log(text, 3); });
  return 0;
}
