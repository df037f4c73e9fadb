// What a user chooses of an exploration, defined once: the command line (driver::ExploreSettings)
// and the in-process API (weft::Options) both extend it, so their defaults cannot drift apart.
#pragma once

#include <cstdint>

#include "weft/explore/exploration.hpp"
#include "weft/explore/strategy.hpp"

namespace weft::explorer {

/// The strategy and its parameters (StrategyChoice), and the limits of the exploration.
struct ExploreOptions : StrategyChoice {
  /// Stop at the first bug, or keep exploring and collect every distinct bug.
  bool stop_on_first_bug = true;
  std::uint64_t max_executions = 0;  ///< 0: no limit
  double max_seconds = 0;            ///< for the whole exploration; 0: no limit
  /// Count the distinct Mazurkiewicz traces among the executions (a Foata fingerprint of each),
  /// to check a strategy's reduction; off unless asked, since no verdict needs it.
  bool count_traces = false;
  friend bool operator==(const ExploreOptions&, const ExploreOptions&) = default;
};

/// The strategies' configuration of `options` (the rest of StrategyConfig at its defaults).
StrategyConfig strategy_config(const ExploreOptions& options);
/// The exploration loop's limits of `options` (the rest of ExplorationLimits at its defaults).
ExplorationLimits exploration_limits(const ExploreOptions& options);

}  // namespace weft::explorer
