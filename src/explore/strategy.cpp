#include "weft/explore/strategy.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "strategy_files.hpp"

namespace weft::explorer {

namespace {

// The table: every row of every file in src/explore/strategies/, in the order --help lists them.
const std::vector<StrategyInfo>& table() {
  static const std::vector<StrategyInfo> rows = [] {
    std::vector<StrategyInfo> all;
    for (const auto file : strategy_files())
      for (const StrategyInfo& row : file()) all.push_back(row);
    std::stable_sort(all.begin(), all.end(), [](const StrategyInfo& a, const StrategyInfo& b) {
      return a.order < b.order;
    });
    return all;
  }();
  return rows;
}

}  // namespace

std::span<const StrategyInfo> strategies() {
  return table();
}

const StrategyInfo& strategy_info(StrategyKind kind) {
  for (const StrategyInfo& s : table())
    if (s.name == kind.name()) return s;
  throw std::invalid_argument("no strategy is named \"" + std::string(kind.name()) +
                              "\" (the strategies: " + strategy_names() + ")");
}

ReadPolicy read_policy_of(StrategyKind kind) {
  return strategy_info(kind).read_policy;
}

std::unique_ptr<Strategy> make_strategy(const StrategyConfig& config) {
  return strategy_info(config.strategy).make(config);
}

const char* strategy_name(StrategyKind kind) {
  return strategy_info(kind).name;
}

std::optional<StrategyKind> parse_strategy(std::string_view name) {
  for (const StrategyInfo& s : table())
    if (name == s.name) return s.kind();
  return std::nullopt;
}

std::string strategy_names() {
  std::string out;
  for (const StrategyInfo& s : table()) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

std::string strategies_taking(StrategyTakes option) {
  std::vector<const char*> names;
  for (const StrategyInfo& s : table())
    if (s.has(option)) names.push_back(s.name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

bool observe_and_tell_bound_gap(Strategy& strategy, const Trace& trace) {
  const auto covered = [&strategy] {
    const StateMatching* m = strategy.state_matching();
    return m ? m->bounds_covered : 0;
  };
  const std::uint64_t before = covered();
  strategy.observe(trace);
  return (trace.outcome == Outcome::kBoundReached || trace.outcome == Outcome::kTimeout) &&
         covered() == before;
}

}  // namespace weft::explorer
