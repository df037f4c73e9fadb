// What a user chooses of an exploration, defined once: the command line (driver::ExploreSettings)
// and the in-process API (weft::Options) both extend it, so their defaults cannot drift apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "weft/explore/exploration.hpp"
#include "weft/explore/strategy.hpp"
#include "weft/trace/memory_model.hpp"

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
  /// The memory model the executions follow (docs/memory-models.md); only the strategies
  /// marked kWeakMemory explore another than sequential consistency. Unset: the C/C++ model
  /// (RC11) with a strategy that explores its options (kExploresOptions), else sequential
  /// consistency (memory_model_of).
  std::optional<MemoryModel> memory_model;
  friend bool operator==(const ExploreOptions&, const ExploreOptions&) = default;
};

/// The memory model `options` explore: the one set, or the default for their strategy.
MemoryModel memory_model_of(const ExploreOptions& options);

/// Seconds a limit may be: about eleven days, far beyond any run, yet safe to turn into
/// milliseconds.
inline constexpr double kMaxSeconds = 1e6;
/// The deepest bug PCT aims at (--depth).
inline constexpr std::uint32_t kMaxPctDepth = 1000;
/// QPOR's k (--alternatives): beyond any branching a program has.
inline constexpr std::uint32_t kMaxAlternatives = 1000000;

/// What is wrong with a value of ExploreOptions: the field, as ExploreOptions names it, and what
/// is wrong, for the front end to say in its own words ("option --time-limit " + problem).
struct OptionProblem {
  const char* field;
  std::string problem;
};
/// The first problem of `options`: a strategy no row names, a limit out of range, a parameter
/// the strategy cannot use (search_deadlocks without an unfolding); nullopt if none. Both front
/// ends check with it, before anything runs.
std::optional<OptionProblem> problem_with(const ExploreOptions& options);

/// The strategies' configuration of `options` (the rest of StrategyConfig at its defaults).
StrategyConfig strategy_config(const ExploreOptions& options);
/// The exploration loop's limits of `options` (the rest of ExplorationLimits at its defaults).
ExplorationLimits exploration_limits(const ExploreOptions& options);

}  // namespace weft::explorer
