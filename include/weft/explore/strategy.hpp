// Exploration strategies: given what was observed, choose the next test.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weft/explore/global_state.hpp"
#include "weft/explore/input_statistics.hpp"
#include "weft/explore/size_estimate.hpp"
#include "weft/explore/unfolding_dot.hpp"
#include "weft/explore/unfolding_statistics.hpp"
#include "weft/trace/directive.hpp"
#include "weft/trace/trace.hpp"

namespace weft::explorer {

/// Every strategy is driven the same way: ask next() for a directive, run it, hand the observed
/// trace to observe(), repeat until next() returns nullopt (the strategy is exhausted). The
/// strategies own all exploration state; the runner that executes a directive is stateless, so it
/// can live in another process or on another machine (Saarikivi et al. §IV).
class Strategy {
 public:
  virtual ~Strategy() = default;
  /// The next test to run, or nullopt when the strategy has nothing left to explore.
  virtual std::optional<TestDirective> next() = 0;
  /// The trace observed when running the directive last returned by next().
  virtual void observe(const Trace& trace) = 0;
  /// Whether exhausting this strategy means every behaviour was covered (false for random).
  virtual bool exhaustive() const { return true; }
  /// For a strategy that is not exhaustive: what its executions did cover, for the verdict
  /// (PCT's probability of finding a bug of its depth), or "".
  virtual std::string coverage() const { return {}; }
  /// The estimate of how many executions the strategy will run in all (size_estimate.hpp), for
  /// one built with StrategyConfig::estimate_size; else nullptr.
  virtual const SizeEstimate* size_estimate() const { return nullptr; }
  /// How the strategy explored inputs, or nullptr if it does not explore them.
  virtual const InputStatistics* input_statistics() const { return nullptr; }
  /// What it built, for an unfolding strategy; else nullptr.
  virtual const UnfoldingStatistics* unfolding_statistics() const { return nullptr; }
  /// What exhausting it does not cover ("deadlocks and data races" for a strategy that covers
  /// every local state, not every global one), or nullptr.
  virtual const char* uncovered() const { return nullptr; }
  /// Why it did not cover all it set out to (one line), or "".
  virtual std::string gaps() const { return {}; }
  /// The unfolding it built, in Graphviz's dot language (unfolding_dot.hpp), or "" for a
  /// strategy that builds none.
  virtual std::string unfolding_dot(const UnfoldingNames& names) const {
    (void)names;
    return {};
  }
  /// For an unfolding strategy (built with StrategyConfig::record_written_values): a test into
  /// a global state of its unfolding where `query` may hold (thesis §6.2). Others say they
  /// cannot (GlobalStateSearch::problem).
  virtual GlobalStateSearch search_global_state(const GlobalStateQuery& query) const {
    (void)query;
    GlobalStateSearch none;
    none.problem = "only the unfolding strategies (contextual, unfolding) check global states";
    return none;
  }
};

enum class StrategyKind {
  kDfs,   ///< every interleaving (the oracle)
  kDpor,  ///< Flanagan–Godefroid DPOR, every pair of accesses dependent (thesis §2.4)
  kDporCommutingReads,  ///< DPOR where reads commute (Saarikivi et al. §II-D)
  kOptimalDpor,  ///< source sets + wakeup trees (Abdulla et al. 2014): one execution per trace
  kRandom,       ///< seeded random scheduling, a baseline
  /// Probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010): random priorities with
  /// depth-1 priority change points; a bug of that depth with a guaranteed probability.
  kPct,
  /// Every schedule with at most 0, 1, 2, ... preemptions, each bound completely before the next
  /// (Musuvathi, Qadeer, PLDI 2007); exhaustive once no schedule costs more.
  kPreemptionBound,
  /// The same with delays of a round-robin scheduler (Emmi, Qadeer, Rakamaric, POPL 2011).
  kDelayBound,
  /// Optimal DPOR alone if its estimated size fits in the time budget, else the time shared
  /// with PCT and delay bounding (portfolio.cpp).
  kPortfolio,
  /// Only Knuth's estimate of optimal DPOR's size (size_estimate.hpp), from random walks.
  kEstimate,
  /// Unfolding testing with place replication (thesis ch. 3-4): every reachable local state
  /// of every thread.
  kUnfolding,
  /// Contextual unfolding testing (thesis ch. 5): every reachable local state of every thread.
  kContextualUnfolding,
  /// Partial order sampling (Yuan, Yang, Gu, CAV 2018): random priorities per event, redrawn for
  /// the events that race with the one that ran.
  kPartialOrderSampling,
};
/// The last StrategyKind: every kind up to it has a row in the table (tests/api_test.cpp).
inline constexpr StrategyKind kLastStrategyKind = StrategyKind::kPartialOrderSampling;

/// Whether the strategy builds an unfolding (so --deadlocks and --dump-unfolding apply).
inline bool builds_unfolding(StrategyKind kind) {
  return kind == StrategyKind::kUnfolding || kind == StrategyKind::kContextualUnfolding;
}

struct StrategyConfig {
  StrategyKind kind = StrategyKind::kOptimalDpor;
  /// Sleep sets (thesis §2.4) for DFS and both DPORs; optimal DPOR always uses them.
  bool sleep_sets = true;
  /// Random and PCT: how many executions, and the seed of the first.
  std::uint64_t random_executions = 1000;
  std::uint64_t seed = 1;
  /// PCT: the depth of the bugs it aims at (d: d-1 priority change points per execution), and
  /// the number of steps k among which the change points are placed (0: the longest execution
  /// seen so far, measured as it goes).
  std::uint32_t pct_depth = 3;
  std::uint64_t pct_steps = 0;
  /// The bounded searches: the highest bound to explore (they stop after its round).
  std::uint32_t max_bound = 0xffffffffu;
  /// Unfolding strategies: once the unfolding is complete, search it for deadlocks (thesis
  /// §6.3) and run a test into each one found.
  bool search_deadlocks = false;
  /// Unfolding strategies: keep what each write event wrote, for search_global_state.
  bool record_written_values = false;
  /// The portfolio: the seconds it has (it shares them among its strategies).
  double time_budget = 0;
  /// Optimal DPOR: estimate how many executions it will run (size_estimate.hpp), with random
  /// walks among its executions (16 after every 320 of them).
  bool estimate_size = false;
  /// A schedule prefix the first execution follows (e.g. to start from a given interleaving).
  std::vector<ThreadId> initial_prefix;
};

/// One row of the table of strategies: what the front ends (the command line, the in-process
/// API, the benchmarks) know of a strategy. A new strategy is a StrategyKind, a row in the table
/// (strategy.cpp) and its factory; nothing else switches on the kind.
struct StrategyInfo {
  StrategyKind kind;
  const char* name;         ///< as --strategy takes it
  const char* description;  ///< a few words for --help
  ReadPolicy read_policy;   ///< the dependence between reads it explores with
  std::unique_ptr<Strategy> (*make)(const StrategyConfig& config);
};

/// Every strategy, the default first.
std::span<const StrategyInfo> strategies();
const StrategyInfo& strategy_info(StrategyKind kind);

/// The dependence between reads that a strategy explores with.
ReadPolicy read_policy_of(StrategyKind kind);
std::unique_ptr<Strategy> make_strategy(const StrategyConfig& config);

const char* strategy_name(StrategyKind kind);
/// Parses a strategy's name ("optimal", "dpor-cr", "dpor", "dfs", "random").
std::optional<StrategyKind> parse_strategy(std::string_view name);
/// The names, comma-separated, for messages ("optimal, dpor-cr, ...").
std::string strategy_names();

}  // namespace weft::explorer
