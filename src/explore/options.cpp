#include "weft/explore/options.hpp"

namespace weft::explorer {

StrategyConfig strategy_config(const ExploreOptions& options) {
  StrategyConfig config;
  config.kind = options.strategy;
  config.sleep_sets = options.sleep_sets;
  config.search_deadlocks = options.search_deadlocks;
  config.random_executions = options.random_executions;
  config.seed = options.seed;
  config.pct_depth = options.pct_depth;
  config.pct_steps = options.pct_steps;
  config.max_bound = options.max_bound;
  config.time_budget = options.max_seconds;
  config.estimate_size = options.estimate_size;
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
