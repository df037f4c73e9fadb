// Differential test of the weak memory models: on seeded random programs over atomics of every
// order and fences (and programs grown from the litmus shapes), every strategy that explores
// x86-TSO reports the same final states (the locations and every value read) and bugs as exhaustive
// DFS, the oracle: every interleaving of the threads and of their store buffers' flushes, TSO's
// operational semantics (Owens et al. 2009). Optimal DPOR and DFS with sleep sets run exactly one
// complete execution per Mazurkiewicz trace DFS enumerates, optimal DPOR none sleep-set blocked;
// the bounded searches without a bound run exactly DFS's interleavings; with bound 1, and random
// and PCT, only what DFS reaches. And TSO allows every SC behaviour.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "atomic_program.hpp"
#include "weft/weft.hpp"

namespace weft::testing {
namespace {

constexpr double kMaxInterleavings = 2e6;

int seed_setting(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
// The seeds run: 0..1999 by default; WEFT_MEMORY_MODEL_FIRST_SEED and
// WEFT_MEMORY_MODEL_PROGRAMS choose others (a longer soak outside CI).
const int kFirstSeed = seed_setting("WEFT_MEMORY_MODEL_FIRST_SEED", 0);
const int kPrograms = seed_setting("WEFT_MEMORY_MODEL_PROGRAMS", 2000);

ProgramRun run(const AtomicProgram& p, MemoryModel model, StrategyKind kind, bool sleep_sets,
               std::uint32_t max_bound = 0xffffffffu) {
  Options o;
  o.strategy = kind;
  o.memory_model = model;
  o.sleep_sets = sleep_sets;
  o.max_bound = max_bound;
  o.random_executions = 100;
  o.count_traces = true;
  return explore_atomic_program(p, o);
}

bool includes(const Observed& all, const Observed& some) {
  return std::includes(all.final_states.begin(), all.final_states.end(), some.final_states.begin(),
                       some.final_states.end()) &&
         std::includes(all.bugs.begin(), all.bugs.end(), some.bugs.begin(), some.bugs.end());
}

void expect_strategies_agree_with_dfs(const AtomicProgram& p, const std::string& seed) {
  const auto where = [&] { return seed + ", program:\n" + p.describe(); };
  constexpr MemoryModel kTso = MemoryModel::kTso;

  const ProgramRun oracle = run(p, kTso, StrategyKind::kDfs, false);
  ASSERT_NE(oracle.result.verdict, Verdict::kIncomplete) << where();

  struct Config {
    StrategyKind kind;
    bool sleep;
  };
  for (const Config c :
       {Config{StrategyKind::kDfs, true}, Config{StrategyKind::kDpor, false},
        Config{StrategyKind::kDpor, true}, Config{StrategyKind::kDporCommutingReads, false},
        Config{StrategyKind::kDporCommutingReads, true},
        Config{StrategyKind::kOptimalDpor, true}}) {
    const ProgramRun r = run(p, kTso, c.kind, c.sleep);
    const std::string name =
        std::string(explorer::strategy_name(c.kind)) + (c.sleep ? "+sleep" : "");
    EXPECT_EQ(r.observed.final_states, oracle.observed.final_states) << name << "; " << where();
    EXPECT_EQ(r.observed.bugs, oracle.observed.bugs) << name << "; " << where();
    EXPECT_LE(r.result.stats.executions, oracle.result.stats.executions) << name << "; " << where();
    if (c.kind == StrategyKind::kOptimalDpor || c.kind == StrategyKind::kDfs) {
      EXPECT_EQ(r.result.stats.complete, oracle.result.stats.traces) << name << "; " << where();
    }
    if (c.kind == StrategyKind::kOptimalDpor) {
      EXPECT_EQ(r.result.stats.sleep_blocked, 0u) << name << "; " << where();
    }
  }

  for (const StrategyKind kind : {StrategyKind::kPreemptionBound, StrategyKind::kDelayBound}) {
    const std::string name = explorer::strategy_name(kind);
    const ProgramRun all = run(p, kTso, kind, false);
    EXPECT_EQ(all.observed.final_states, oracle.observed.final_states) << name << "; " << where();
    EXPECT_EQ(all.observed.bugs, oracle.observed.bugs) << name << "; " << where();
    EXPECT_EQ(all.result.stats.executions, oracle.result.stats.executions)
        << name << "; " << where();
    EXPECT_TRUE(includes(oracle.observed, run(p, kTso, kind, false, 1).observed))
        << name << " with bound 1; " << where();
  }
  for (const StrategyKind kind : {StrategyKind::kRandom, StrategyKind::kPct}) {
    EXPECT_TRUE(includes(oracle.observed, run(p, kTso, kind, false).observed))
        << explorer::strategy_name(kind) << "; " << where();
  }

  // Every sequentially consistent execution is one of TSO's (its buffers flushed at once).
  const ProgramRun sc =
      run(p, MemoryModel::kSequentialConsistency, StrategyKind::kOptimalDpor, true);
  EXPECT_TRUE(includes(oracle.observed, sc.observed)) << "sc within tso; " << where();
}

class TsoDifferential : public ::testing::TestWithParam<int> {};

TEST_P(TsoDifferential, StrategiesAgreeWithExhaustiveDfs) {
  const std::uint64_t seed = static_cast<std::uint64_t>(GetParam());
  expect_strategies_agree_with_dfs(generate_atomic_program(seed, kMaxInterleavings),
                                   "seed " + std::to_string(seed));
}

INSTANTIATE_TEST_SUITE_P(Seeds, TsoDifferential,
                         ::testing::Range(kFirstSeed, kFirstSeed + kPrograms));

// Programs grown from the litmus shapes, where store buffers change the outcomes far more often.
class TsoDifferentialWeak : public ::testing::TestWithParam<int> {};

TEST_P(TsoDifferentialWeak, StrategiesAgreeWithExhaustiveDfs) {
  const std::uint64_t seed = static_cast<std::uint64_t>(GetParam());
  expect_strategies_agree_with_dfs(generate_weak_program(seed, kMaxInterleavings),
                                   "weak seed " + std::to_string(seed));
}

INSTANTIATE_TEST_SUITE_P(Seeds, TsoDifferentialWeak,
                         ::testing::Range(kFirstSeed, kFirstSeed + kPrograms / 2));

}  // namespace
}  // namespace weft::testing
