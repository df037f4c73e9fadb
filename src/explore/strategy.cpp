#include "weft/explore/strategy.hpp"

#include "strategies.hpp"

namespace weft::explorer {

ReadPolicy read_policy_of(StrategyKind kind) {
  return kind == StrategyKind::kDpor ? ReadPolicy::kReadsConflict : ReadPolicy::kReadsCommute;
}

std::unique_ptr<Strategy> make_strategy(const StrategyConfig& config) {
  switch (config.kind) {
    case StrategyKind::kDfs:
      return make_dfs(config);
    case StrategyKind::kDpor:
    case StrategyKind::kDporCommutingReads:
      return make_dpor(config, read_policy_of(config.kind));
    case StrategyKind::kOptimalDpor:
      return make_optimal_dpor(config);
    case StrategyKind::kRandom:
      return make_random(config);
  }
  return nullptr;
}

const char* strategy_name(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::kDfs:
      return "dfs";
    case StrategyKind::kDpor:
      return "dpor";
    case StrategyKind::kDporCommutingReads:
      return "dpor-cr";
    case StrategyKind::kOptimalDpor:
      return "optimal";
    case StrategyKind::kRandom:
      return "random";
  }
  return "?";
}

std::optional<StrategyKind> parse_strategy(std::string_view name) {
  for (auto k : {StrategyKind::kDfs, StrategyKind::kDpor, StrategyKind::kDporCommutingReads,
                 StrategyKind::kOptimalDpor, StrategyKind::kRandom})
    if (name == strategy_name(k)) return k;
  return std::nullopt;
}

}  // namespace weft::explorer
