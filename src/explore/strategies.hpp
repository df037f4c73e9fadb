// What the strategies' files (src/explore/strategies/) share, internal to explore/: how a file
// lists its rows of the table of strategies, and the helpers more than one strategy builds on.
#pragma once

#include <memory>
#include <span>

#include "execution_tree_search.hpp"
#include "weft/explore/strategy.hpp"

namespace weft::explorer {

/// In src/explore/strategies/FILE.cpp: WEFT_STRATEGY_ROWS(FILE, row, ...) lists the file's
/// strategies (StrategyInfo rows). The table of strategies is generated from the names of the
/// files in that directory (src/CMakeLists.txt), so a file that lists none fails to link.
#define WEFT_STRATEGY_ROWS(file, ...)                    \
  std::span<const StrategyInfo> strategy_rows_##file() { \
    static const StrategyInfo rows[] = {__VA_ARGS__};    \
    return rows;                                         \
  }

/// A row's factory for a strategy class built from the configuration alone (`made<Pct>`).
template <class S>
std::unique_ptr<Strategy> made(const StrategyConfig& config) {
  return std::make_unique<S>(config);
}

/// Random scheduling of `config.random_executions` executions, each drawn by `policy` from its
/// own seed (strategies/random.cpp); `name` is what the verdict calls the samples ("" for none).
std::unique_ptr<Strategy> make_random_walk(const StrategyConfig& config, SchedulePolicy policy,
                                           const char* name);
/// `search` with Knuth's estimate of its size beside it (strategies/estimate.cpp).
std::unique_ptr<Strategy> with_size_estimate(std::unique_ptr<Strategy> search,
                                             const StrategyConfig& config, ReadPolicy policy);

}  // namespace weft::explorer
