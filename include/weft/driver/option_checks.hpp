// Range checks of the option values that reach the program or the exploration: values the types
// accept but that would overflow a conversion, or make the runtime reserve memory for what they
// merely claim (--max-threads sizes a table in every execution).
#pragma once

#include <cstdint>

#include "weft/driver/commands.hpp"
#include "weft/explore/options.hpp"
#include "weft/trace/wire.hpp"

namespace weft::driver {

inline constexpr std::uint32_t kMaxThreadsBound = 1'000'000;
inline constexpr std::uint32_t kMaxStepsBound = kMaxScheduleSteps;
using explorer::kMaxSeconds;
/// MiB: 1 PiB, still safe to turn into bytes.
inline constexpr std::uint64_t kMaxMemoryMb = std::uint64_t{1} << 30;

/// Throws DriverError naming the first option (as spelled on the command line) whose value is
/// out of range.
void check_options(const ProgramOptions& program, const ExploreSettings& settings);

}  // namespace weft::driver
