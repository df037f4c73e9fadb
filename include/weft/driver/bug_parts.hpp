// The parts of a bug's raw message (before {pc:}/{data:} marks are resolved) that the report
// files need as structured data: where the bug happened, a data race's two accesses, and what
// each thread of a deadlock or livelock waits for. The runtime writes these messages in fixed
// forms (race_detector.cpp, Scheduler::Impl::blocked_wait); these functions read them back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weft::driver {

/// The code address of the first {pc:HEX} mark in `raw`: where an assertion failed, a crash or a
/// memory error happened (the first mark of those messages is the bug's own instruction).
std::optional<std::uint64_t> first_code_mark(const std::string& raw);

/// `raw` without its places in the code (" at {pc:HEX}"): what --stop-on matches, so that a
/// file name does not match.
std::string without_code_places(std::string raw);

/// A place an assertion message states in words: the C library's __assert_fail gives the file,
/// line and function as text ("assertion `x' failed at file.c:41 in int main(void)"), not as a
/// code address.
struct StatedPlace {
  std::string file;
  std::uint32_t line = 0;
  std::string function;
};
std::optional<StatedPlace> assertion_place(const std::string& raw);

/// One access of a data race, as the message states it.
struct RaceAccess {
  std::string access;      ///< "read (4 bytes)", "atomic write (8 bytes)", "free"
  std::string thread;      ///< the thread's name, "0.1"
  std::uint64_t site = 0;  ///< its code address (0: the message gives none)
};

/// The two accesses of a data race message ("data race on X: A by thread T at {pc:..} and B by
/// thread U at {pc:..}"), in the message's order; empty if `raw` is not in that form.
std::vector<RaceAccess> race_accesses(const std::string& raw);

/// What one thread of a deadlock or livelock is stuck in, as the message says it.
struct ThreadWait {
  std::string thread;      ///< the thread's name
  std::string text;        ///< the message's words for it, marks unresolved ("thread 0.1 waits...")
  std::uint64_t site = 0;  ///< the code address of the blocked operation (0: none given)
};

/// Each "thread T ..." clause of a deadlock or livelock message, in order.
std::vector<ThreadWait> thread_waits(const std::string& raw);

}  // namespace weft::driver
