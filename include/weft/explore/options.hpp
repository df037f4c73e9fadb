// What a user chooses of an exploration, defined once: the command line (driver::ExploreSettings)
// and the in-process API (weft::Options) both extend it, so their defaults cannot drift apart.
#pragma once

#include <cstdint>

#include "weft/explore/exploration.hpp"
#include "weft/explore/strategy.hpp"

namespace weft::explorer {

struct ExploreOptions {
  StrategyKind strategy = StrategyKind::kOptimalDpor;
  /// Sleep sets (thesis §2.4) for DFS and both DPORs; optimal DPOR always uses them.
  bool sleep_sets = true;
  /// The unfolding strategies: search the unfolding for deadlocks (thesis §6.2, §6.3).
  bool search_deadlocks = false;
  /// Random, PCT and POS: how many executions, and the seed of the first.
  std::uint64_t random_executions = 1000;
  std::uint64_t seed = 1;
  /// PCT: the depth of the bugs it aims at (depth - 1 priority change points per execution),
  /// and the number of steps among which the change points are placed (0: measured).
  std::uint32_t pct_depth = 3;
  std::uint64_t pct_steps = 0;
  /// Preemption- and delay-bounded search: the highest bound to explore.
  std::uint32_t max_bound = 0xffffffffu;
  /// Stop at the first bug, or keep exploring and collect every distinct bug.
  bool stop_on_first_bug = true;
  std::uint64_t max_executions = 0;  ///< 0: no limit
  double max_seconds = 0;            ///< for the whole exploration; 0: no limit
  /// Count the distinct Mazurkiewicz traces among the executions (a Foata fingerprint of each),
  /// to check a strategy's reduction; off unless asked, since no verdict needs it.
  bool count_traces = false;
  /// Optimal DPOR: estimate how many executions it will run (size_estimate.hpp) with random walks
  /// among its executions (they count as executions too), so that a run cut short says what
  /// fraction it covered.
  bool estimate_size = false;
  friend bool operator==(const ExploreOptions&, const ExploreOptions&) = default;
};

/// The strategies' configuration of `options` (the rest of StrategyConfig at its defaults).
StrategyConfig strategy_config(const ExploreOptions& options);
/// The exploration loop's limits of `options` (the rest of ExplorationLimits at its defaults).
ExplorationLimits exploration_limits(const ExploreOptions& options);

}  // namespace weft::explorer
