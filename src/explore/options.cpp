#include "weft/explore/options.hpp"

namespace weft::explorer {

StrategyConfig strategy_config(const ExploreOptions& options) {
  StrategyConfig config;
  static_cast<StrategyChoice&>(config) = options;
  config.time_budget = options.max_seconds;
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
