// Differential test of quasi-optimal POR (alternative_tree.hpp; QPOR, Nguyen et al. 2018, as
// POET §3.7 explores with it) against exhaustive DFS on seeded random programs (plain, lock-heavy
// and blocking, the shapes of differential_test.cpp): with 1-partial alternatives and with
// alternatives as large as any branching, it reaches every local and final state DFS reaches,
// finds the same assertion failures and deadlocks, and gives a complete verdict. Where the
// unfolding's conflicts are the traces' dependence (memory and mutexes) it runs no more
// executions than DFS, and with large k it is optimal: one complete test per Mazurkiewicz trace
// (reads commuting), none sleep-set blocked. The unfolding orders every two operations of a
// semaphore, posts included, which the traces let commute: there (the blocking programs) it may
// run more than DFS with sleep sets.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "random_program.hpp"
#include "test_support.hpp"
#include "weft/weft.hpp"

namespace weft::testing {
namespace {

constexpr StrategyKind kQpor{"qpor"};
constexpr double kMaxInterleavings = 20000;
constexpr std::uint32_t kOptimal = 1000;  // beyond the branching of these programs

int seed_setting(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
const int kPrograms = seed_setting("WEFT_QPOR_PROGRAMS", 2000);

// What QPOR with `k` made of `p`, checked against DFS's `oracle`.
void agrees_with(const Program& p, const ProgramRun& oracle, std::uint32_t k, bool exact,
                 const std::string& where) {
  Options o = with(kQpor);
  o.alternatives = k;
  const ProgramRun r = explore_program(p, o);
  const std::string which = "qpor with k = " + std::to_string(k) + "; ";
  EXPECT_EQ(r.observed.local_states, oracle.observed.local_states) << which << where;
  EXPECT_EQ(r.observed.final_states, oracle.observed.final_states) << which << where;
  EXPECT_EQ(r.observed.bugs, oracle.observed.bugs) << which << where;
  EXPECT_EQ(r.result.stats.traces, oracle.result.stats.traces) << which << where;
  EXPECT_EQ(r.result.incomplete_code, Incompleteness::kNone)
      << which << r.result.summary() << where;
  if (exact) {
    EXPECT_LE(r.result.stats.executions, oracle.result.stats.executions) << which << where;
  }
  if (k == kOptimal && exact) {
    EXPECT_EQ(r.result.stats.complete, oracle.result.stats.traces) << which << where;
    EXPECT_EQ(r.result.stats.sleep_blocked, 0u) << which << where;
  } else {
    EXPECT_GE(r.result.stats.complete, oracle.result.stats.traces) << which << where;
  }
}

// The first program from `seed` on (stepping by 1000) that DFS explores in under
// kMaxOracleExecutions, against QPOR with both k.
constexpr std::uint64_t kMaxOracleExecutions = 3000;

template <class Generate>
void compare(std::uint64_t seed, Generate generate, bool exact = true) {
  Program p;
  ProgramRun oracle;
  while (true) {
    p = generate(seed);
    Options dfs = with(StrategyKind::kDfs);
    dfs.max_executions = kMaxOracleExecutions;
    oracle = explore_program(p, dfs);
    if (oracle.result.stats.executions < kMaxOracleExecutions) break;
    seed += 1000;  // too large for the oracle: the next program
  }
  const std::string where = "seed " + std::to_string(seed) + ", program:\n" + p.describe();
  ASSERT_EQ(oracle.result.stats.complete, oracle.result.stats.traces) << where;
  for (const std::uint32_t k : {1u, kOptimal}) agrees_with(p, oracle, k, exact, where);
}

class QporDifferential : public ::testing::TestWithParam<int> {};

TEST_P(QporDifferential, FindsWhatDfsFindsWithOneTestPerTraceAtLargeK) {
  compare(static_cast<std::uint64_t>(GetParam()),
          [](std::uint64_t seed) { return generate_program(seed, kMaxInterleavings); });
}

INSTANTIATE_TEST_SUITE_P(Seeds, QporDifferential, ::testing::Range(0, kPrograms));

class QporLockDifferential : public ::testing::TestWithParam<int> {};

TEST_P(QporLockDifferential, FindsWhatDfsFindsWithOneTestPerTraceAtLargeK) {
  compare(2000000 + static_cast<std::uint64_t>(GetParam()), generate_lock_program);
}

INSTANTIATE_TEST_SUITE_P(Seeds, QporLockDifferential, ::testing::Range(0, kPrograms / 5));

class QporBlockingDifferential : public ::testing::TestWithParam<int> {};

TEST_P(QporBlockingDifferential, FindsWhatDfsFinds) {
  compare(static_cast<std::uint64_t>(GetParam()), generate_blocking_program, /*exact=*/false);
}

INSTANTIATE_TEST_SUITE_P(Seeds, QporBlockingDifferential, ::testing::Range(0, kPrograms / 2));

}  // namespace
}  // namespace weft::testing
