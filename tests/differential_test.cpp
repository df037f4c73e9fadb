// Differential property test: on 2,000 seeded random programs every exhaustive strategy reports
// the same reachable final states, assertion failures and deadlocks as exhaustive DFS, and optimal
// DPOR has exactly one complete execution per Mazurkiewicz trace that DFS enumerates. The
// bounded searches without a bound run exactly DFS's interleavings; bounded ones and PCT report
// only what DFS reaches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "random_program.hpp"
#include "test_support.hpp"
#include "weft/weft.hpp"

namespace weft::testing {
namespace {

constexpr double kMaxInterleavings = 20000;

// The seeds run: 0..1999 by default; a soak outside CI sets WEFT_DIFFERENTIAL_FIRST_SEED and
// WEFT_DIFFERENTIAL_PROGRAMS (e.g. 100000 programs from 100000).
int seed_setting(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
const int kFirstSeed = seed_setting("WEFT_DIFFERENTIAL_FIRST_SEED", 0);
const int kPrograms = seed_setting("WEFT_DIFFERENTIAL_PROGRAMS", 2000);

using StrategyRun = ProgramRun;

StrategyRun run(const Program& p, StrategyKind kind, bool sleep_sets,
                std::uint32_t max_bound = 0xffffffffu) {
  Options o;
  o.strategy = kind;
  o.sleep_sets = sleep_sets;
  o.max_bound = max_bound;
  o.random_executions = 200;  // PCT
  o.count_traces = true;      // the oracle's traces are what the others are checked against
  return explore_program(p, o);
}

class Differential : public ::testing::TestWithParam<int> {};

TEST_P(Differential, StrategiesAgreeWithExhaustiveDfs) {
  const std::uint64_t seed = static_cast<std::uint64_t>(GetParam());
  const Program p = generate_program(seed, kMaxInterleavings);
  const auto where = [&] { return "seed " + std::to_string(seed) + ", program:\n" + p.describe(); };

  const StrategyRun oracle = run(p, StrategyKind::kDfs, false);
  ASSERT_EQ(oracle.result.verdict == Verdict::kIncomplete, false) << where();

  struct Config {
    StrategyKind kind;
    bool sleep;
  };
  for (const Config c :
       {Config{StrategyKind::kDfs, true}, Config{StrategyKind::kDpor, false},
        Config{StrategyKind::kDpor, true}, Config{StrategyKind::kDporCommutingReads, false},
        Config{StrategyKind::kDporCommutingReads, true},
        Config{StrategyKind::kOptimalDpor, true}}) {
    const StrategyRun r = run(p, c.kind, c.sleep);
    const std::string name =
        std::string(explorer::strategy_name(c.kind)) + (c.sleep ? "+sleep" : "");
    EXPECT_EQ(r.observed.final_states, oracle.observed.final_states) << name << "; " << where();
    EXPECT_EQ(r.observed.bugs, oracle.observed.bugs) << name << "; " << where();
    EXPECT_LE(r.result.stats.executions, oracle.result.stats.executions) << name << "; " << where();
    if (c.kind == StrategyKind::kOptimalDpor) {
      EXPECT_EQ(r.result.stats.complete, oracle.result.stats.traces) << name << "; " << where();
      EXPECT_EQ(r.result.stats.sleep_blocked, 0u) << name << "; " << where();
    }
    if (c.kind == StrategyKind::kDfs) {
      EXPECT_EQ(r.result.stats.complete, oracle.result.stats.traces) << name << "; " << where();
    }
  }

  // The bounded searches with no bound: every interleaving once, as the oracle (which has no
  // sleep sets either) runs them. With bound 1, and PCT: every bug they report is real, and what
  // they reach the oracle reaches.
  for (const StrategyKind kind : {StrategyKind::kPreemptionBound, StrategyKind::kDelayBound}) {
    const std::string name = explorer::strategy_name(kind);
    const StrategyRun all = run(p, kind, false);
    EXPECT_EQ(all.observed.final_states, oracle.observed.final_states) << name << "; " << where();
    EXPECT_EQ(all.observed.bugs, oracle.observed.bugs) << name << "; " << where();
    EXPECT_EQ(all.result.stats.executions, oracle.result.stats.executions)
        << name << "; " << where();
    EXPECT_EQ(all.result.verdict == Verdict::kBugFound, !oracle.observed.bugs.empty()) << name;
    const StrategyRun one = run(p, kind, false, 1);
    EXPECT_TRUE(std::includes(oracle.observed.bugs.begin(), oracle.observed.bugs.end(),
                              one.observed.bugs.begin(), one.observed.bugs.end()))
        << name << " with bound 1; " << where();
    EXPECT_TRUE(std::includes(oracle.observed.final_states.begin(),
                              oracle.observed.final_states.end(), one.observed.final_states.begin(),
                              one.observed.final_states.end()))
        << name << " with bound 1; " << where();
  }
  const StrategyRun pct = run(p, StrategyKind::kPct, false);
  EXPECT_TRUE(std::includes(oracle.observed.bugs.begin(), oracle.observed.bugs.end(),
                            pct.observed.bugs.begin(), pct.observed.bugs.end()))
      << "pct; " << where();
  EXPECT_TRUE(std::includes(oracle.observed.final_states.begin(),
                            oracle.observed.final_states.end(), pct.observed.final_states.begin(),
                            pct.observed.final_states.end()))
      << "pct; " << where();
}

INSTANTIATE_TEST_SUITE_P(Seeds, Differential, ::testing::Range(kFirstSeed, kFirstSeed + kPrograms));
// Programs a wider run found (issue 13): 115277, a thread that locks and never unlocks, made
// optimal DPOR run a sleep-set-blocked execution.
INSTANTIATE_TEST_SUITE_P(Found, Differential, ::testing::Values(115277));

// Lock-heavy programs (Dining-like). The oracle is DFS with sleep sets, which enumerates every
// trace; programs whose oracle run would exceed kMaxOracleExecutions are redrawn. Before the fix in
// OptimalDpor::reverse(), optimal DPOR missed traces here (e.g. 1 of the 400 programs).
constexpr int kLockPrograms = 400;
constexpr std::uint64_t kMaxOracleExecutions = 20000;

class LockDifferential : public ::testing::TestWithParam<int> {};

TEST_P(LockDifferential, OptimalDporHasOneExecutionPerTrace) {
  std::uint64_t seed = 1000000 + 1000 * static_cast<std::uint64_t>(GetParam());
  Program p;
  StrategyRun oracle;
  while (true) {
    p = generate_lock_program(seed);
    oracle = StrategyRun{};
    Options o = testing::with(StrategyKind::kDfs, true);
    o.max_executions = kMaxOracleExecutions;
    oracle.result = explore(o, [&] { run_program(p, oracle.observed); });
    // (The verdict says "bug found" when a deadlock was found before the limit.)
    if (oracle.result.stats.executions < kMaxOracleExecutions) break;
    ++seed;  // too large for the oracle: draw the next program
  }
  for (const auto& b : oracle.result.bugs) oracle.observed.bugs.insert(b.message);
  const auto where = [&] { return "seed " + std::to_string(seed) + ", program:\n" + p.describe(); };
  ASSERT_EQ(oracle.result.stats.complete, oracle.result.stats.traces) << where();

  for (const StrategyKind kind : {StrategyKind::kOptimalDpor, StrategyKind::kDporCommutingReads}) {
    const StrategyRun r = run(p, kind, true);
    const std::string name(explorer::strategy_name(kind));
    EXPECT_EQ(r.result.stats.traces, oracle.result.stats.traces) << name << "; " << where();
    EXPECT_EQ(r.observed.final_states, oracle.observed.final_states) << name << "; " << where();
    EXPECT_EQ(r.observed.bugs, oracle.observed.bugs) << name << "; " << where();
    if (kind == StrategyKind::kOptimalDpor) {
      EXPECT_EQ(r.result.stats.complete, oracle.result.stats.traces) << name << "; " << where();
      // No sleep-blocked-free guarantee here: with locks, optimal DPOR may run a few sleep-set
      // blocked executions (0.6% of all on these programs; see optimal_dpor.cpp, reverse()).
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, LockDifferential, ::testing::Range(0, kLockPrograms));

// Programs that block on semaphores and a condition variable (generate_blocking_program): every
// DPOR reaches the local states, final states, failures and deadlocks DFS reaches, and optimal
// DPOR runs one complete execution per trace. Before wakes raced with signals they did not need
// (race_candidates.cpp), optimal DPOR lost traces here (seed 277: a local state and a deadlock).
constexpr int kBlockingPrograms = 2000;

// Every DPOR reaches the local states, final states and bugs DFS reaches on `p`, and the DPORs
// whose reads commute see as many traces; with `one_run_per_trace`, optimal DPOR also runs one
// complete execution per trace.
void agree_with_dfs(const Program& p, std::uint64_t seed, bool one_run_per_trace) {
  const auto where = [&] { return "seed " + std::to_string(seed) + ", program:\n" + p.describe(); };
  const StrategyRun oracle = run(p, StrategyKind::kDfs, true);
  ASSERT_EQ(oracle.result.stats.complete, oracle.result.stats.traces) << where();
  for (const StrategyKind kind :
       {StrategyKind::kOptimalDpor, StrategyKind::kDporCommutingReads, StrategyKind::kDpor}) {
    const StrategyRun r = run(p, kind, true);
    const std::string name(explorer::strategy_name(kind));
    // (dpor counts traces under its own dependence, in which reads do not commute.)
    if (kind != StrategyKind::kDpor) {
      EXPECT_EQ(r.result.stats.traces, oracle.result.stats.traces) << name << "; " << where();
    }
    EXPECT_EQ(r.observed.local_states, oracle.observed.local_states) << name << "; " << where();
    EXPECT_EQ(r.observed.final_states, oracle.observed.final_states) << name << "; " << where();
    EXPECT_EQ(r.observed.bugs, oracle.observed.bugs) << name << "; " << where();
    if (one_run_per_trace && kind == StrategyKind::kOptimalDpor) {
      EXPECT_EQ(r.result.stats.complete, oracle.result.stats.traces) << name << "; " << where();
    }
  }
}

class BlockingDifferential : public ::testing::TestWithParam<int> {};

TEST_P(BlockingDifferential, StrategiesAgreeWithExhaustiveDfs) {
  const auto seed = static_cast<std::uint64_t>(GetParam());
  agree_with_dfs(generate_blocking_program(seed), seed, true);
}

INSTANTIATE_TEST_SUITE_P(Seeds, BlockingDifferential, ::testing::Range(0, kBlockingPrograms));

// Programs whose threads talk over channels (generate_channel_program): every DPOR reaches the
// local states, final states, failures and deadlocks DFS reaches, and the same number of traces
// (channel operations dependent as trace/dependence.cpp says; optimal DPOR's races from
// race_candidates.cpp).
constexpr int kChannelPrograms = 1000;

class ChannelDifferential : public ::testing::TestWithParam<int> {};

TEST_P(ChannelDifferential, StrategiesAgreeWithExhaustiveDfs) {
  const auto seed = static_cast<std::uint64_t>(GetParam());
  agree_with_dfs(generate_channel_program(seed), seed, false);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ChannelDifferential, ::testing::Range(0, kChannelPrograms));

}  // namespace
}  // namespace weft::testing
