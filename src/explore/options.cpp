#include "weft/explore/options.hpp"

#include <cmath>
#include <cstdio>

namespace weft::explorer {

std::optional<OptionProblem> problem_with(const ExploreOptions& options) {
  if (!parse_strategy(options.strategy.name()))
    return OptionProblem{"strategy", "names no strategy (\"" +
                                         std::string(options.strategy.name()) +
                                         "\"; the strategies: " + strategy_names() + ")"};
  if (!std::isfinite(options.max_seconds) || options.max_seconds < 0 ||
      options.max_seconds > kMaxSeconds) {
    char text[96];
    std::snprintf(text, sizeof text, "must be a number of seconds between 0 and %g (it is %g)",
                  kMaxSeconds, options.max_seconds);
    return OptionProblem{"max_seconds", text};
  }
  if (options.pct_depth < 1 || options.pct_depth > kMaxPctDepth)
    return OptionProblem{"pct_depth", "must be between 1 and " + std::to_string(kMaxPctDepth) +
                                          " (it is " + std::to_string(options.pct_depth) + ")"};
  if (options.alternatives < 1 || options.alternatives > kMaxAlternatives)
    return OptionProblem{"alternatives", "must be between 1 and " +
                                             std::to_string(kMaxAlternatives) + " (it is " +
                                             std::to_string(options.alternatives) + ")"};
  const StrategyInfo& strategy = strategy_info(options.strategy);
  const MemoryModel model = memory_model_of(options);
  const StrategyTakes needed = model == MemoryModel::kRc11 ? kExploresOptions : kWeakMemory;
  if (model != MemoryModel::kSequentialConsistency && !strategy.has(needed))
    return OptionProblem{"memory_model", "is " + std::string(memory_model_name(model)) +
                                             ", which " + strategy.name +
                                             " does not explore: use it with one of " +
                                             strategies_taking(needed) + ", or explore sc"};
  if (model != MemoryModel::kRc11 && strategy.has(kExploresGraphs))
    return OptionProblem{"memory_model", "is " + std::string(memory_model_name(model)) + ", but " +
                                             strategy.name +
                                             " explores the C/C++ model only: use rc11 with it, "
                                             "or another strategy"};
  if (options.search_deadlocks && !strategy.has(kBuildsUnfolding) &&
      !strategy.has(kSearchesDeadlocks))
    return OptionProblem{"search_deadlocks",
                         "looks for deadlocks no execution runs into: use it with a strategy "
                         "that builds an unfolding (" +
                             strategies_taking(kBuildsUnfolding) + ") or with " +
                             strategies_taking(kSearchesDeadlocks) + " (" + strategy.name +
                             " runs into every deadlock by itself)"};
  return std::nullopt;
}

MemoryModel memory_model_of(const ExploreOptions& options) {
  if (options.memory_model) return *options.memory_model;
  return strategy_info(options.strategy).has(kExploresOptions)
             ? MemoryModel::kRc11
             : MemoryModel::kSequentialConsistency;
}

StrategyConfig strategy_config(const ExploreOptions& options) {
  StrategyConfig config;
  static_cast<StrategyChoice&>(config) = options;
  config.time_budget = options.max_seconds;
  config.access_options = memory_model_of(options) == MemoryModel::kRc11;
  return config;
}

ExplorationLimits exploration_limits(const ExploreOptions& options) {
  ExplorationLimits limits;
  limits.stop_on_first_bug = options.stop_on_first_bug;
  limits.max_executions = options.max_executions;
  limits.max_seconds = options.max_seconds;
  limits.count_traces = options.count_traces;
  return limits;
}

}  // namespace weft::explorer
