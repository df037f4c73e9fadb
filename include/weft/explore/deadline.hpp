// When the run's time limit ends, for the work one step of an exploration does inside a strategy
// (observing a long execution, choosing the next test), which could otherwise run far past it.
#pragma once

#include <chrono>
#include <cstdint>

namespace weft::explorer {

/// Thrown by Deadline::check once the time is past; run_exploration stops there, as it does at
/// the limit between executions (the strategy is not asked for anything after it).
struct TimeLimitReached {};

/// A point in time (none by default) that long loops check every so often.
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  Deadline() = default;
  explicit Deadline(Clock::time_point at) : at_(at), set_(true) {}

  /// Throws TimeLimitReached if the time is past; reads the clock every 256th call only, so
  /// that a loop may call it at every turn.
  void check() {
    if (!set_ || ++calls_ % 256 != 0) return;
    if (Clock::now() >= at_) throw TimeLimitReached{};
  }

 private:
  Clock::time_point at_{};
  bool set_ = false;
  std::uint32_t calls_ = 0;
};

}  // namespace weft::explorer
