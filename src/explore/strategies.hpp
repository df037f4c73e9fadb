// Factories of the individual strategies (internal to explore/).
#pragma once

#include <memory>

#include "execution_tree_search.hpp"
#include "weft/explore/strategy.hpp"

namespace weft::explorer {

std::unique_ptr<Strategy> make_dfs(const StrategyConfig& config);
std::unique_ptr<Strategy> make_dpor(const StrategyConfig& config, ReadPolicy policy);
std::unique_ptr<Strategy> make_optimal_dpor(const StrategyConfig& config);
std::unique_ptr<Strategy> make_random(const StrategyConfig& config);
std::unique_ptr<Strategy> make_pct(const StrategyConfig& config);
std::unique_ptr<Strategy> make_partial_order_sampling(const StrategyConfig& config);
std::unique_ptr<Strategy> make_preemption_bounded(const StrategyConfig& config);
std::unique_ptr<Strategy> make_delay_bounded(const StrategyConfig& config);
std::unique_ptr<Strategy> make_portfolio(const StrategyConfig& config);
std::unique_ptr<Strategy> make_size_estimate(const StrategyConfig& config);
std::unique_ptr<Strategy> make_contextual_unfolding(const StrategyConfig& config);
std::unique_ptr<Strategy> make_unfolding(const StrategyConfig& config);
/// `search` with Knuth's estimate of its size beside it (estimating_search.cpp).
std::unique_ptr<Strategy> with_size_estimate(std::unique_ptr<Strategy> search,
                                             const StrategyConfig& config, ReadPolicy policy);

}  // namespace weft::explorer
