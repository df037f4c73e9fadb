// ExitBlock and ExitBlock-RW (strategies/exitblock.cpp) against exhaustive DFS on random programs
// that follow the locking discipline (Bruening and Chapin §4.7, §5.3: every assertion violation
// of such a program shows in some schedule of atomic blocks): the same assertion failures, final
// states and local states.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "random_program.hpp"
#include "weft/weft.hpp"

namespace weft::testing {
namespace {

// DFS explores programs of at most this many executions completely; larger ones are skipped
// (few are: the programs are small).
constexpr std::uint64_t kMaxOracleExecutions = 4000;

ProgramRun run(const Program& p, const char* strategy, std::uint64_t max_executions = 0) {
  Options o;
  o.strategy = StrategyKind{strategy};
  o.max_executions = max_executions;
  return explore_program(p, o);
}

class ExitBlockDifferential : public ::testing::TestWithParam<int> {};

// Ten programs per seed, without lock-order deadlocks (ExitBlock runs into few of them, §6.1).
TEST_P(ExitBlockDifferential, FindsWhatDfsFindsOnDisciplinedPrograms) {
  int compared = 0;
  for (int i = 0; i < 10; ++i) {
    const std::uint64_t seed = static_cast<std::uint64_t>(GetParam()) * 10 + i;
    const Program p = generate_disciplined_program(seed, false);
    const ProgramRun dfs = run(p, "dfs", kMaxOracleExecutions);
    if (dfs.result.stats.executions >= kMaxOracleExecutions) continue;
    ++compared;
    for (const char* strategy : {"exitblock", "exitblock-rw"}) {
      const ProgramRun r = run(p, strategy);
      SCOPED_TRACE(std::string(strategy) + " on seed " + std::to_string(seed) + ":\n" +
                   p.describe());
      EXPECT_EQ(r.observed.bugs, dfs.observed.bugs);
      EXPECT_EQ(r.observed.final_states, dfs.observed.final_states);
      EXPECT_EQ(r.observed.local_states, dfs.observed.local_states);
      // Its verdict says it rests on the discipline, and it followed every path it set out on.
      EXPECT_NE(r.result.incomplete_reason.find("locking discipline"), std::string::npos);
      EXPECT_EQ(r.result.incomplete_reason.find("could not follow"), std::string::npos)
          << r.result.incomplete_reason;
    }
  }
  EXPECT_GT(compared, 5);
  RecordProperty("compared", compared);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ExitBlockDifferential, ::testing::Range(0, 205));

bool has_deadlock(const ProgramRun& r) {
  return std::any_of(r.result.bugs.begin(), r.result.bugs.end(),
                     [](const Bug& b) { return b.kind == Outcome::kDeadlock; });
}

class ExitBlockDeadlockDifferential : public ::testing::TestWithParam<int> {};

// Mutexes nested in any order: ExitBlock-DD (§6.4, Theorem 5) reports a deadlock exactly when DFS
// runs into one (not necessarily the same), with the same assertion failures besides; each
// deadlock it reports is one a run reached.
TEST_P(ExitBlockDeadlockDifferential, DeadlocksExactlyWhenDfsFindsOne) {
  int compared = 0, deadlocking = 0;
  for (int i = 0; i < 10; ++i) {
    const std::uint64_t seed = static_cast<std::uint64_t>(GetParam()) * 10 + i;
    const Program p = generate_disciplined_program(seed, true);
    const ProgramRun dfs = run(p, "dfs", kMaxOracleExecutions);
    if (dfs.result.stats.executions >= kMaxOracleExecutions) continue;
    ++compared;
    deadlocking += has_deadlock(dfs);
    Options o;
    o.strategy = StrategyKind{"exitblock"};
    o.search_deadlocks = true;
    const ProgramRun dd = explore_program(p, o);
    SCOPED_TRACE("seed " + std::to_string(seed) + ":\n" + p.describe());
    EXPECT_EQ(has_deadlock(dd), has_deadlock(dfs));
    std::set<std::string> dfs_failures, dd_failures;
    for (const Bug& b : dfs.result.bugs)
      if (b.kind == Outcome::kAssertionFailure) dfs_failures.insert(b.message);
    for (const Bug& b : dd.result.bugs)
      if (b.kind == Outcome::kAssertionFailure) dd_failures.insert(b.message);
    EXPECT_EQ(dd_failures, dfs_failures);
  }
  EXPECT_GT(compared, 5);
  RecordProperty("compared", compared);
  RecordProperty("deadlocking", deadlocking);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ExitBlockDeadlockDifferential, ::testing::Range(0, 60));

}  // namespace
}  // namespace weft::testing
