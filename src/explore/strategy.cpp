#include "weft/explore/strategy.hpp"

#include <array>

#include "strategies.hpp"

namespace weft::explorer {

namespace {

// The one table of strategies (the default first).
const std::array<StrategyInfo, 13> kStrategies = {{
    {StrategyKind::kOptimalDpor, "optimal",
     "optimal DPOR: source sets and wakeup trees, one execution per Mazurkiewicz trace",
     ReadPolicy::kReadsCommute, make_optimal_dpor},
    {StrategyKind::kDporCommutingReads, "dpor-cr", "DPOR in which reads commute",
     ReadPolicy::kReadsCommute,
     [](const StrategyConfig& c) { return make_dpor(c, ReadPolicy::kReadsCommute); }},
    {StrategyKind::kDpor, "dpor", "Flanagan-Godefroid DPOR, every two accesses dependent",
     ReadPolicy::kReadsConflict,
     [](const StrategyConfig& c) { return make_dpor(c, ReadPolicy::kReadsConflict); }},
    {StrategyKind::kDfs, "dfs", "every interleaving (the oracle)", ReadPolicy::kReadsCommute,
     make_dfs},
    {StrategyKind::kUnfolding, "unfolding",
     "unfolding testing with a copy of each variable per thread (thesis ch. 3): every reachable "
     "local state of every thread; not deadlocks or races",
     ReadPolicy::kReadsCommute, make_unfolding},
    {StrategyKind::kContextualUnfolding, "contextual",
     "contextual unfolding testing: every reachable local state of every thread, often in far "
     "fewer tests than traces; not deadlocks or races",
     ReadPolicy::kReadsCommute, make_contextual_unfolding},
    {StrategyKind::kRandom, "random", "seeded random scheduling, not exhaustive",
     ReadPolicy::kReadsCommute, make_random},
    {StrategyKind::kPct, "pct",
     "probabilistic concurrency testing: random thread priorities changed at --depth - 1 random "
     "steps; finds a bug of that depth with a known probability per execution, not exhaustive",
     ReadPolicy::kReadsCommute, make_pct},
    {StrategyKind::kPartialOrderSampling, "pos",
     "partial order sampling (Yuan et al., CAV 2018): random priorities per event, redrawn for "
     "the events that race with the one that ran; --executions samples, not exhaustive",
     ReadPolicy::kReadsCommute, make_partial_order_sampling},
    {StrategyKind::kPreemptionBound, "preemption-bound",
     "every schedule with at most 0, 1, 2, ... preemptions (up to --bound), each bound "
     "completely before the next; no sleep sets",
     ReadPolicy::kReadsCommute, make_preemption_bounded},
    {StrategyKind::kDelayBound, "delay-bound",
     "every schedule with at most 0, 1, 2, ... delays of a round-robin scheduler (up to "
     "--bound), each bound completely before the next; no sleep sets",
     ReadPolicy::kReadsCommute, make_delay_bounded},
    {StrategyKind::kPortfolio, "portfolio",
     "optimal DPOR if its estimated size fits in --time-limit, else the time shared with pct "
     "(depths 2 and 3) and delay-bound; the default when --time-limit is given",
     ReadPolicy::kReadsCommute, make_portfolio},
    {StrategyKind::kEstimate, "estimate",
     "only estimate how many executions optimal DPOR would run, from --executions random walks "
     "(Knuth's estimator)",
     ReadPolicy::kReadsCommute, make_size_estimate},
}};

}  // namespace

std::span<const StrategyInfo> strategies() {
  return kStrategies;
}

const StrategyInfo& strategy_info(StrategyKind kind) {
  for (const StrategyInfo& s : kStrategies)
    if (s.kind == kind) return s;
  return kStrategies.front();  // every kind has a row (tests/api_test.cpp checks it)
}

ReadPolicy read_policy_of(StrategyKind kind) {
  return strategy_info(kind).read_policy;
}

std::unique_ptr<Strategy> make_strategy(const StrategyConfig& config) {
  const StrategyInfo& info = strategy_info(config.kind);
  auto strategy = info.make(config);
  // The estimate counts Mazurkiewicz traces: what optimal DPOR runs, one execution each.
  if (config.estimate_size && config.kind == StrategyKind::kOptimalDpor)
    return with_size_estimate(std::move(strategy), config, info.read_policy);
  return strategy;
}

const char* strategy_name(StrategyKind kind) {
  return strategy_info(kind).name;
}

std::optional<StrategyKind> parse_strategy(std::string_view name) {
  for (const StrategyInfo& s : kStrategies)
    if (name == s.name) return s.kind;
  return std::nullopt;
}

std::string strategy_names() {
  std::string out;
  for (const StrategyInfo& s : kStrategies) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

}  // namespace weft::explorer
