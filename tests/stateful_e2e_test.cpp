// The stateful strategy (thesis §7.3) natively, through the weft command line, on the thesis'
// examples of ch. 7 (tests/native/ fixtures): it explores them completely with fewer executions
// than DFS because some states are reached again (cut-offs), finds the bug of each buggy variant,
// and refuses what its states cannot hold.
#include <gtest/gtest.h>

#include <string>

#include "native_cli.hpp"

namespace weft::test {
namespace {

std::uint64_t cut_offs(const CliRun& r) {
  return r.result["statistics"]["state_matching"]["cut_offs"].get<std::uint64_t>();
}
std::uint64_t states(const CliRun& r) {
  return r.result["statistics"]["state_matching"]["states"].get<std::uint64_t>();
}

// Fig. 7.3: the two orders of the critical sections meet in the same states. Counted by hand:
// main creates both threads, reads each pthread_t before joining it, joins them and exits (main
// at 0..7 steps done), each thread is at 0..3 of lock, write, unlock, and the mutex keeps them
// out of each other's section: 1 + 4 + 12 + 12 + 4 + 4 + 1 + 1 = 39 states (the same with and
// without sleep sets).
TEST(Stateful, Figure7_3LockingMeetsTheFirstOrdersStates) {
  const CliRun r = check("thesis_fig7_3_locking.c", "--points=all --strategy stateful");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_GT(cut_offs(r), 0u) << r.out;
  EXPECT_EQ(states(r), 39u) << r.out;
  // The second order adds nothing to the model (Example 25): one test, the rest computed.
  EXPECT_EQ(stat(r, "executions") - stat(r, "modelled"), 1u) << r.out;
  // Without sleep sets, the states cut the interleavings DFS runs (147) to a sixth.
  const CliRun every =
      check("thesis_fig7_3_locking.c", "--points=all --strategy stateful --no-sleep-sets");
  const CliRun dfs =
      check("thesis_fig7_3_locking.c", "--points=all --strategy dfs --no-sleep-sets");
  EXPECT_EQ(states(every), 39u) << every.out;
  EXPECT_LE(6 * stat(every, "executions"), stat(dfs, "executions")) << every.out << dfs.out;
  const CliRun bug =
      check("thesis_fig7_3_locking.c", "--points=all --strategy stateful -- -DBOTH_ZERO_ASSUMED");
  ASSERT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  EXPECT_EQ(first_bug_kind(bug), "assertion failure");
}

// Fig. 7.4: one test execution teaches the thread model every step, so the other orders are
// computed (the thesis builds the model from one test, §7.3); three end states. Counted by hand:
// with main at 0..10 steps done (3 creates, a read and a join per thread, the exit), a state is
// the set of writes done among the threads created (the joined ones' done) and the last writer:
// 1 + 2 + 5 + 13 + 13 + 8 + 8 + 5 + 5 + 3 + 3 = 66 states.
TEST(Stateful, Figure7_4WritesNeedOneTestExecution) {
  const CliRun r = check("thesis_fig7_4_writes.c", "--points=all --strategy stateful");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_EQ(stat(r, "executions") - stat(r, "modelled"), 1u) << r.out;
  EXPECT_GT(cut_offs(r), 0u) << r.out;
  EXPECT_EQ(states(r), 66u) << r.out;
  const CliRun bug =
      check("thesis_fig7_4_writes.c", "--points=all --strategy stateful -- -DLAST_WRITE_ASSUMED");
  ASSERT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  EXPECT_EQ(first_bug_kind(bug), "assertion failure");
}

// Its states hold the shared memory: without every access an event it would match states that
// differ, so the command line refuses it.
TEST(Stateful, NeedsEverySharedAccessAnEvent) {
  const CliRun r = check("thesis_fig7_4_writes.c", "--strategy stateful");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("stateful needs --points=all"), std::string::npos) << r.err;
}

// A semaphore's count is not in its states: the verdict says the exploration stopped, and why.
TEST(Stateful, AnOperationItsStatesDoNotHoldStopsItHonestly) {
  const CliRun r = check("eventfd_wakeups.c", "--points=all --strategy stateful");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], false) << r.out;
  EXPECT_NE(r.out.find("whose state the fingerprint does not hold"), std::string::npos) << r.out;
}

// Its states do not hold input values (the thesis' naive algorithm keeps their constraints on
// the model's transitions; weft's does not yet): a program that reads inputs stops it.
TEST(Stateful, InputsStopItHonestly) {
  const CliRun r = check("input_branches_in_two_threads.c", "--points=all --strategy stateful");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("the program reads inputs"), std::string::npos) << r.out;
}

// The portfolio (--time-limit without --strategy) shares the time when optimal DPOR will not
// finish, and with --points=all stateful testing is one of its parts: the thesis' Writes (six
// threads writing one variable twice, 7,484,400 traces) is then explored completely, and the
// verdict says which part answered.
TEST(Stateful, ThePortfolioAnswersWithItWhenOptimalDporWouldNotFinish) {
  const std::string writes = std::string(WEFT_THESIS_BENCH) + "/writes.c";
  const CliRun r = weft_cli("check " + writes + " --json -q --points=all --time-limit 60 " +
                            "--replay-file " + replay_file("writes.c"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_EQ(r.result["answered_by"], "stateful testing") << r.out;
  const CliRun text = weft_cli("check " + writes + " -q --points=all --time-limit 60 " +
                               "--replay-file " + replay_file("writes-text.c"));
  EXPECT_NE(text.out.find("every behaviour was explored (answered by stateful testing)"),
            std::string::npos)
      << text.out;
}

}  // namespace
}  // namespace weft::test
