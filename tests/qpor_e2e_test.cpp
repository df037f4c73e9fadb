// Quasi-optimal POR (--strategy qpor, alternative_tree.hpp) natively, through the weft command
// line on tests/native/ fixtures: it finds each bug optimal DPOR finds (a deadlock of two locks,
// a lost update, a lost wake-up, an assertion behind input branches), explores a correct program
// with condition variables completely, and with large k runs as many complete tests as optimal
// DPOR (one per trace); with k = 1 no fewer. --alternatives belongs to it alone. With every
// shared access an event, its cut-offs by state fingerprints (POET §3.8, cut_off_events.hpp)
// close the cycles of programs that poll or spin.
#include <gtest/gtest.h>

#include <string>

#include "native_cli.hpp"

namespace weft::test {
namespace {

TEST(Qpor, FindsTheBugsOptimalDporFinds) {
  for (const char* file : {"abba_deadlock.c", "lost_update.c", "lost_signal.c"}) {
    const CliRun optimal = check(file, "--strategy optimal");
    for (const char* k : {"1", "1000"}) {
      const CliRun r = check(file, std::string("--strategy qpor --alternatives ") + k);
      EXPECT_EQ(r.exit_code, optimal.exit_code) << file << " k " << k << r.out << r.err;
      EXPECT_EQ(first_bug_kind(r), first_bug_kind(optimal)) << file << " k " << k << r.out;
    }
  }
}

// Correct programs: a producer handing two items to two consumers with condition variables, and
// two threads that branch on inputs (3 paths each) before taking one lock (18 executions). With
// the lock alone no test is sleep-set blocked; with condition variables some tests end blocked,
// as QPOR's unfolding orders lost notifications, which the traces do not (the next test).
TEST(Qpor, ExploresCorrectProgramsWithOneTestPerTraceAtLargeK) {
  for (const char* program : {"cond_handover.c -- -DITEMS=2", "input_branches_in_two_threads.c"}) {
    const std::string file = std::string(program).substr(0, std::string(program).find(' '));
    const std::string flags = std::string(program).substr(file.size());
    const CliRun optimal = check(file, "--strategy optimal" + flags);
    ASSERT_EQ(optimal.exit_code, 0) << optimal.out << optimal.err;
    const CliRun exact = check(file, "--strategy qpor --alternatives 1000" + flags);
    ASSERT_EQ(exact.exit_code, 0) << program << exact.out << exact.err;
    EXPECT_EQ(exact.result["complete"], true) << program << exact.out;
    EXPECT_EQ(stat(exact, "complete"), stat(optimal, "complete")) << program << exact.out;
    if (file != "cond_handover.c") {
      EXPECT_EQ(stat(exact, "sleep_blocked"), 0u) << program << exact.out;
    }
    const CliRun cheap = check(file, "--strategy qpor" + flags);
    ASSERT_EQ(cheap.exit_code, 0) << program << cheap.out << cheap.err;
    EXPECT_EQ(cheap.result["complete"], true) << program << cheap.out;
    EXPECT_GE(stat(cheap, "complete"), stat(optimal, "complete")) << program << cheap.out;
  }
}

// Lost notifications (cond_lost_notifications.c; POET §3.1, Table 3): three threads that signal
// or broadcast a condition variable nobody waits on make one trace, which optimal DPOR runs once
// (6 executions before lost notifications commuted, 2026-11-30), and so does QPOR, as POET
// would: its unfolding replicates the variable's waiters per thread (docs/unfolding.md), so a
// lost notification takes its own thread's copy (5 executions, 4 of them blocked, while it took
// the one condition). With a thread that waits for a flag main sets, a notification may wake it
// or be lost: optimal DPOR runs one test per trace, 102 (324 before), and so does QPOR, at k = 1
// and k = 1000 alike, none blocked (167 tests, 65 blocked, while the unfolding offered wakes
// with no signal left to take).
TEST(Qpor, LostNotificationsCommuteWithEachOther) {
  const CliRun optimal = check("cond_lost_notifications.c", "--strategy optimal");
  ASSERT_EQ(optimal.exit_code, 0) << optimal.out << optimal.err;
  EXPECT_EQ(stat(optimal, "executions"), 1u) << optimal.out;
  const CliRun qpor = check("cond_lost_notifications.c", "--strategy qpor");
  ASSERT_EQ(qpor.exit_code, 0) << qpor.out << qpor.err;
  EXPECT_EQ(stat(qpor, "complete"), 1u) << qpor.out;
  EXPECT_EQ(stat(qpor, "executions"), 1u) << qpor.out;

  const CliRun dfs = check("cond_lost_notifications.c", "--strategy dfs -- -DWAITER");
  ASSERT_EQ(dfs.exit_code, 0) << dfs.out << dfs.err;
  EXPECT_EQ(stat(dfs, "traces"), 102u) << dfs.out;
  const CliRun waiting = check("cond_lost_notifications.c", "--strategy optimal -- -DWAITER");
  ASSERT_EQ(waiting.exit_code, 0) << waiting.out << waiting.err;
  EXPECT_EQ(stat(waiting, "complete"), stat(dfs, "traces")) << waiting.out;
  EXPECT_EQ(stat(waiting, "traces"), stat(dfs, "traces")) << waiting.out;
  for (const char* k : {"1", "1000"}) {
    const CliRun r = check("cond_lost_notifications.c",
                           std::string("--strategy qpor --alternatives ") + k + " -- -DWAITER");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.result["complete"], true) << r.out;
    EXPECT_EQ(stat(r, "traces"), stat(dfs, "traces")) << "k " << k << r.out;
    EXPECT_EQ(stat(r, "complete"), stat(dfs, "traces")) << "k " << k << r.out;
    EXPECT_EQ(stat(r, "sleep_blocked"), 0u) << "k " << k << r.out;
  }
}

// A consumer polls a flag under a mutex until a producer sets it: DFS unrolls the cycle to the
// step bound. QPOR with --points=all holds states: the consumer's first poll that finds nothing
// brings the program back to the state right after main created it, so that unlock is a cut-off
// (its local configuration, 4 events, is larger than the creation's, 1), and nothing after it is
// explored: 2 tests, both complete, none stopped by the bound. Setting the flag before the data
// is caught. Without every access an event there are no states and it unrolls the cycle too.
TEST(Qpor, CutOffsCloseACycleInTheStateSpace) {
  const CliRun r = check("cycle_polling_consumer.c", "--points=all --strategy qpor");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_EQ(stat(r, "executions"), 2u) << r.out;
  EXPECT_EQ(stat(r, "bound_reached"), 0u) << r.out;
  EXPECT_EQ(cut_offs(r), 1u) << r.out;
  const CliRun bug =
      check("cycle_polling_consumer.c", "--points=all --strategy qpor -- -DREADY_BEFORE_DATA");
  ASSERT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  EXPECT_EQ(first_bug_kind(bug), "assertion failure");
  const CliRun stateless = check("cycle_polling_consumer.c", "--strategy qpor --max-steps 200");
  EXPECT_EQ(stateless.exit_code, 3) << stateless.out << stateless.err;
  EXPECT_GT(stat(stateless, "bound_reached"), 0u) << stateless.out;
  EXPECT_FALSE(stateless.result["statistics"].contains("state_matching")) << stateless.out;
}

// A ticket lock, whose waiters spin on the tickets served: 22 tests against DFS's 117
// executions, with 6 cut-offs; without the lock the lost update is found. A
// loop counter in thread-local storage, which no event shows, keeps its rounds apart.
TEST(Qpor, SpinningProgramsAreExploredCompletelyWithCutOffs) {
  const CliRun r = check("cycle_ticket_lock.c", "--points=all --strategy qpor");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_EQ(stat(r, "executions"), 22u) << r.out;
  EXPECT_EQ(cut_offs(r), 6u) << r.out;
  const CliRun dfs = check("cycle_ticket_lock.c", "--points=all --strategy dfs");
  EXPECT_LT(stat(r, "executions"), stat(dfs, "executions")) << dfs.out;
  for (const char* program : {"cycle_ticket_lock.c -- -DNO_LOCK", "cycle_thread_local_counter.c"}) {
    const std::string file = std::string(program).substr(0, std::string(program).find(' '));
    const CliRun bug =
        check(file, "--points=all --strategy qpor" + std::string(program).substr(file.size()));
    ASSERT_EQ(bug.exit_code, 1) << program << bug.out << bug.err;
    EXPECT_EQ(first_bug_kind(bug), "assertion failure") << program;
  }
}

TEST(Qpor, AlternativesAreItsOptionAlone) {
  const CliRun r = check("lost_update.c", "--strategy optimal --alternatives 2");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("option --alternatives is not used by --strategy optimal (it is for qpor)"),
            std::string::npos)
      << r.err;
  const CliRun zero = check("lost_update.c", "--strategy qpor --alternatives 0");
  EXPECT_EQ(zero.exit_code, 2) << zero.out << zero.err;
}

// --time-limit holds inside one execution's analysis: QPOR takes in an execution of 16,000 events
// (eight threads adding to one counter) for minutes, and stops within the limit, saying so.
TEST(Qpor, TheTimeLimitStopsTheAnalysisOfOneLongExecution) {
  const CliRun r =
      check("long_execution.c", "--strategy qpor --points=all --max-steps 20000 --time-limit 1");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.result["incomplete_code"], "limit") << r.out;
  EXPECT_NE(r.result["incomplete_because"].get<std::string>().find(
                "still taking in an execution at the time limit"),
            std::string::npos)
      << r.out;
  EXPECT_LT(r.result["statistics"]["seconds"].get<double>(), 5.0) << r.out;
}

}  // namespace
}  // namespace weft::test
