// Helpers shared by the tests: run a test closure under a strategy and collect what happened.
#pragma once

#include <functional>

#include "weft/weft.hpp"

namespace weft::testing {

inline Options with(StrategyKind kind, bool sleep_sets = true) {
  Options o;
  o.strategy = kind;
  o.sleep_sets = sleep_sets;
  o.stop_on_first_bug = false;
  o.count_traces = true;  // the tests check a strategy's reduction against the traces
  return o;
}

/// The contextual unfolding strategy, exploring on after bugs.
inline Options contextual() {
  return with(StrategyKind::kContextualUnfolding);
}

/// The place-replication unfolding strategy (thesis ch. 3), exploring on after bugs.
inline Options place_unfolding() {
  return with(StrategyKind::kUnfolding);
}

/// Both unfolding strategies.
inline constexpr StrategyKind kUnfoldings[] = {StrategyKind::kUnfolding,
                                               StrategyKind::kContextualUnfolding};

inline constexpr StrategyKind kExhaustive[] = {StrategyKind::kDfs, StrategyKind::kDpor,
                                               StrategyKind::kDporCommutingReads,
                                               StrategyKind::kOptimalDpor};

}  // namespace weft::testing
