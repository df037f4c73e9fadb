// The stateful strategy (thesis §7.3) natively, through the weft command line, on the thesis'
// examples of ch. 7 (tests/native/ fixtures): it explores them completely with fewer executions
// than DFS because some states are reached again (cut-offs), finds the bug of each buggy variant,
// and refuses what its states cannot hold.
#include <gtest/gtest.h>

#include <string>

#include "native_cli.hpp"

namespace weft::test {
namespace {

// A run of `file` that must explore it completely and find no bug.
CliRun explored(const std::string& file, const std::string& options) {
  CliRun r = check(file, options);
  EXPECT_EQ(r.exit_code, 0) << options << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << options << r.out;
  return r;
}

// Both stateful searches, with persistent sets and without, find the assertion failure of `file`
// built with `define`.
void expect_both_find_the_failure(const std::string& file, const std::string& define) {
  for (const char* strategy : {"stateful", "stateful-naive"}) {
    const CliRun bug =
        check(file, std::string("--points=all --strategy ") + strategy + " -- " + define);
    EXPECT_EQ(bug.exit_code, 1) << strategy << bug.out << bug.err;
    EXPECT_EQ(first_bug_kind(bug), "assertion failure") << strategy;
  }
}

// Fig. 7.3: the two orders of the critical sections meet in the same states. Counted by hand:
// main creates both threads, reads each pthread_t before joining it, joins them and exits (main
// at 0..7 steps done), each thread is at 0..3 of lock, write, unlock, and the mutex keeps them
// out of each other's section: 1 + 4 + 12 + 12 + 4 + 4 + 1 + 1 = 39 states (the same with and
// without sleep sets).
TEST(Stateful, Figure7_3LockingMeetsTheFirstOrdersStates) {
  const CliRun r = check("thesis_fig7_3_locking.c", "--points=all --strategy stateful-naive");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_GT(cut_offs(r), 0u) << r.out;
  EXPECT_EQ(states(r), 39u) << r.out;
  // The second order adds nothing to the model (Example 25): one test, the rest computed.
  EXPECT_EQ(stat(r, "executions") - stat(r, "modelled"), 1u) << r.out;
  // With DPOR's persistent sets, a subset of those states, no more executions, one test.
  const CliRun dpor = explored("thesis_fig7_3_locking.c", "--points=all --strategy stateful");
  EXPECT_LE(states(dpor), 39u) << dpor.out;
  EXPECT_LE(stat(dpor, "executions"), stat(r, "executions")) << dpor.out;
  EXPECT_EQ(stat(dpor, "executions") - stat(dpor, "modelled"), 1u) << dpor.out;
  // Without sleep sets, the states cut the interleavings DFS runs (147) to a sixth.
  const CliRun every =
      check("thesis_fig7_3_locking.c", "--points=all --strategy stateful-naive --no-sleep-sets");
  const CliRun dfs =
      check("thesis_fig7_3_locking.c", "--points=all --strategy dfs --no-sleep-sets");
  EXPECT_EQ(states(every), 39u) << every.out;
  EXPECT_LE(6 * stat(every, "executions"), stat(dfs, "executions")) << every.out << dfs.out;
  expect_both_find_the_failure("thesis_fig7_3_locking.c", "-DBOTH_ZERO_ASSUMED");
}

// Fig. 7.4: one test execution teaches the thread model every step, so the other orders are
// computed (the thesis builds the model from one test, §7.3); three end states. Counted by hand:
// with main at 0..10 steps done (3 creates, a read and a join per thread, the exit), a state is
// the set of writes done among the threads created (the joined ones' done) and the last writer:
// 1 + 2 + 5 + 13 + 13 + 8 + 8 + 5 + 5 + 3 + 3 = 66 states.
TEST(Stateful, Figure7_4WritesNeedOneTestExecution) {
  const CliRun r = check("thesis_fig7_4_writes.c", "--points=all --strategy stateful-naive");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_EQ(stat(r, "executions") - stat(r, "modelled"), 1u) << r.out;
  EXPECT_GT(cut_offs(r), 0u) << r.out;
  EXPECT_EQ(states(r), 66u) << r.out;
  // With DPOR's persistent sets: the same one test, no more states or executions.
  const CliRun dpor = explored("thesis_fig7_4_writes.c", "--points=all --strategy stateful");
  EXPECT_EQ(stat(dpor, "executions") - stat(dpor, "modelled"), 1u) << dpor.out;
  EXPECT_LE(states(dpor), 66u) << dpor.out;
  EXPECT_LE(stat(dpor, "executions"), stat(r, "executions")) << dpor.out;
  const CliRun bug =
      check("thesis_fig7_4_writes.c", "--points=all --strategy stateful -- -DLAST_WRITE_ASSUMED");
  ASSERT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  EXPECT_EQ(first_bug_kind(bug), "assertion failure");
}

// A correct program whose state space has a cycle: a consumer polls a flag under a mutex until
// a producer sets it. DFS unrolls the cycle up to the step bound, so it can only say "within the
// bounds"; the stateful strategy holds each thread's local state (its registers, stack and
// thread-local storage), in which a poll that finds nothing returns the consumer to a state
// explored before: explored completely, with cut-offs. The executions that went round the cycle
// up to the bound end below a cut-off and leave no gap.
TEST(Stateful, ACycleInTheStateSpaceIsExploredCompletely) {
  const CliRun r = check("cycle_polling_consumer.c", "--points=all --strategy stateful");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_EQ(stat(r, "bound_reached"), 0u) << r.out;
  EXPECT_EQ(stat(r, "executions"), 4u) << r.out;
  EXPECT_EQ(states(r), 20u) << r.out;
  EXPECT_EQ(cut_offs(r), 1u) << r.out;
  // Every thread at every state: more of each.
  const CliRun naive =
      explored("cycle_polling_consumer.c", "--points=all --strategy stateful-naive");
  EXPECT_EQ(stat(naive, "executions"), 11u) << naive.out;
  EXPECT_EQ(states(naive), 42u) << naive.out;
  EXPECT_EQ(cut_offs(naive), 3u) << naive.out;
  const CliRun dfs =
      check("cycle_polling_consumer.c", "--points=all --strategy dfs --max-steps 100");
  EXPECT_EQ(dfs.exit_code, 3) << dfs.out << dfs.err;
  EXPECT_GT(stat(dfs, "bound_reached"), 0u) << dfs.out;
  const CliRun bug =
      check("cycle_polling_consumer.c", "--points=all --strategy stateful -- -DREADY_BEFORE_DATA");
  ASSERT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  EXPECT_EQ(first_bug_kind(bug), "assertion failure");
}

// A ticket lock: each waiter spins on the tickets served. The same behaviours as DFS, in fewer
// executions, and the lost update without the lock is found.
TEST(Stateful, ATicketLockIsExploredCompletely) {
  const CliRun r = check("cycle_ticket_lock.c", "--points=all --strategy stateful");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_EQ(stat(r, "executions"), 29u) << r.out;
  EXPECT_EQ(states(r), 191u) << r.out;
  EXPECT_EQ(cut_offs(r), 8u) << r.out;
  const CliRun naive = explored("cycle_ticket_lock.c", "--points=all --strategy stateful-naive");
  EXPECT_EQ(stat(naive, "executions"), 117u) << naive.out;
  EXPECT_EQ(states(naive), 510u) << naive.out;
  EXPECT_EQ(cut_offs(naive), 24u) << naive.out;
  const CliRun dfs = check("cycle_ticket_lock.c", "--points=all --strategy dfs");
  ASSERT_EQ(dfs.exit_code, 0) << dfs.out << dfs.err;
  EXPECT_LT(stat(r, "executions"), stat(dfs, "executions")) << dfs.out;
  expect_both_find_the_failure("cycle_ticket_lock.c", "-DNO_LOCK");
}

// Threads that share nothing (independent_workers.c): the naive search runs through every
// combination of their progress, DPOR's persistent sets need one execution (the thesis'
// Filesystem is this on a larger scale, §8.3.3). With one shared counter, the lost update is
// found by both.
TEST(Stateful, IndependentThreadsNeedOneExecution) {
  const CliRun r = explored("independent_workers.c", "--points=all --strategy stateful");
  EXPECT_EQ(stat(r, "executions"), 1u) << r.out;
  const CliRun naive = explored("independent_workers.c", "--points=all --strategy stateful-naive");
  EXPECT_GT(stat(naive, "executions"), 100u) << naive.out;
  EXPECT_GT(states(naive), 10 * states(r)) << naive.out << r.out;
  expect_both_find_the_failure("independent_workers.c", "-DSHARED_COUNTER");
}

// A loop counter in thread-local storage, which no event shows: only the thread's local state
// tells the rounds apart (without it, the second round would be a cut-off of the first and the
// write after the loop, which the other thread's assertion sees, would be missed).
TEST(Stateful, ALoopCounterInThreadLocalStorageIsPartOfTheState) {
  for (const char* strategy : {"stateful", "stateful-unfolding"}) {
    const CliRun r =
        check("cycle_thread_local_counter.c", std::string("--points=all --strategy ") + strategy);
    ASSERT_EQ(r.exit_code, 1) << strategy << r.out << r.err;
    EXPECT_EQ(first_bug_kind(r), "assertion failure") << strategy;
  }
}

// Its states hold the shared memory: without every access an event it would match states that
// differ, so the command line refuses it.
TEST(Stateful, NeedsEverySharedAccessAnEvent) {
  const CliRun r = check("thesis_fig7_4_writes.c", "--strategy stateful");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("stateful needs --points=all"), std::string::npos) << r.err;
}

// An eventfd's count is not in its states: the verdict says the exploration stopped, and why.
TEST(Stateful, AnOperationItsStatesDoNotHoldStopsItHonestly) {
  const CliRun r = check("eventfd_wakeups.c", "--points=all --strategy stateful");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], false) << r.out;
  EXPECT_NE(r.out.find("whose state the fingerprint does not hold"), std::string::npos) << r.out;
}

// Memory an uninstrumented library wrote between events: std::thread's constructor hands its
// state to libstdc++, which empties the caller's unique_ptr; the caller's read of it then sees
// bytes no event wrote. The strategy stops and says where, as file and line.
TEST(Stateful, MemoryALibraryWroteStopsItAndSaysWhere) {
  const CliRun r = check("cpp_bank.cpp", "--points=all --strategy stateful");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("memory changed between events (a read of 8 bytes at unique_ptr.h:"),
            std::string::npos)
      << r.out;
}

// A semaphore set again by sem_init after a thread used it has a count its operations did not
// make: both stateful strategies stop with the reason, and DFS's verdict is incomplete with it
// (the setting is not ordered with the poster's posts). Set once, the program is explored.
TEST(Stateful, ASemaphoreSetAgainStopsItHonestly) {
  for (const char* strategy : {"stateful", "stateful-unfolding"}) {
    const CliRun r = check("semaphore_reset.c", std::string("--points=all --strategy ") + strategy);
    EXPECT_EQ(r.exit_code, 3) << strategy << r.out << r.err;
    EXPECT_NE(r.out.find("sem_init set a semaphore again"), std::string::npos) << r.out;
  }
  const CliRun dfs = check("semaphore_reset.c", "--points=all --strategy dfs");
  EXPECT_EQ(dfs.exit_code, 3) << dfs.out << dfs.err;
  EXPECT_EQ(dfs.result["incomplete_code"], "semaphore-reset") << dfs.out;
  ASSERT_TRUE(dfs.result.contains("semaphore_resets")) << dfs.out;
  EXPECT_NE(dfs.result["semaphore_resets"][0].get<std::string>().find("semaphore_reset.c:22"),
            std::string::npos)
      << dfs.out;
  const CliRun once = check("semaphore_reset.c", "--points=all --strategy stateful -- -DONCE");
  EXPECT_EQ(once.exit_code, 0) << once.out << once.err;
  EXPECT_EQ(once.result["complete"], true) << once.out;
}

// Condition variables are in its states (their waiters and the signals' tokens, in order): a
// producer handing two items to two consumers through a one-slot buffer is explored completely,
// with fewer executions than DFS runs (1,323 against 2,009: the consumers' loops meet states
// again), and a consumer that checks the buffer with `if` instead of `while` is caught. The same
// for stateful unfolding.
TEST(Stateful, ConditionVariablesAreInItsStates) {
  for (const char* strategy : {"stateful", "stateful-unfolding"}) {
    const std::string options = std::string("--points=all --strategy ") + strategy;
    const CliRun r = check("cond_handover.c", options + " -- -DITEMS=2");
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << strategy << r.out << r.err;
    EXPECT_EQ(r.result.dump().find("it stopped"), std::string::npos) << strategy << r.out;
    EXPECT_GT(cut_offs(r), 0u) << strategy << r.out;
    const CliRun bug = check("cond_handover.c", options + " -- -DITEMS=2 -DIF_NOT_WHILE");
    ASSERT_EQ(bug.exit_code, 1) << strategy << bug.out << bug.err;
    EXPECT_EQ(first_bug_kind(bug), "assertion failure") << strategy;
  }
  const CliRun naive = check("cond_handover.c", "--points=all --strategy stateful -- -DITEMS=2");
  EXPECT_EQ(naive.exit_code, 0) << naive.out;
  const CliRun dfs = check("cond_handover.c", "--points=all --strategy dfs -- -DITEMS=2");
  EXPECT_LT(stat(naive, "executions"), stat(dfs, "executions")) << naive.out << dfs.out;
}

// Inputs (thesis §3.5 in the naive search): a branch on inputs is a step of its thread, whose
// other side is explored below the scheduling choice it follows, and a thread's state holds the
// sides it took and the values it computed from inputs by their expressions, so states that
// match have one path constraint. Two threads branching three ways each: every path pair with
// both lock orders, 18 complete executions, as DFS; the orders meet where the thread locking
// second read what the first added, 0 (one cut-off). Its bug needs both threads' inputs flipped.
TEST(Stateful, InputsAreStepsOfTheirThreads) {
  const CliRun r = check("input_branches_in_two_threads.c", "--points=all --strategy stateful");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_EQ(stat(r, "complete"), 18u) << r.out;
  EXPECT_EQ(cut_offs(r), 1u) << r.out;
  const CliRun bug =
      check("input_branches_in_two_threads.c", "--points=all --strategy stateful -- -DONE_OF_EACH");
  ASSERT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  EXPECT_EQ(first_bug_kind(bug), "assertion failure") << bug.out;
}

// A branch whose sides do the same things still leaves them with different path constraints:
// the state holds the side taken, or the second side would be cut off as reached before and its
// bug (v == 7, feasible only where v > 0) lost. Checked: without the side in the state, the
// naive search says "no bug found" here.
TEST(Stateful, TheSideOfABranchOnInputsIsPartOfTheState) {
  for (const char* strategy : {"stateful", "stateful-unfolding"}) {
    const CliRun r =
        check("input_side_without_effect.c", std::string("--points=all --strategy ") + strategy);
    ASSERT_EQ(r.exit_code, 1) << strategy << r.out << r.err;
    EXPECT_EQ(first_bug_kind(r), "assertion failure") << strategy << r.out;
  }
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

// The polling consumer with the portfolio: optimal DPOR finishes first, within the step bound
// only; the other stateless parts cannot add anything within it, so stateful testing has the
// time left, closes the cycle, and answers (the bound its executions hit leaves no gap).
TEST(Stateful, ThePortfolioAnswersWithItWhereTheOthersStopAtTheBound) {
  const CliRun r =
      check("cycle_polling_consumer.c", "--points=all --time-limit 60 --max-steps 200");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_EQ(r.result["answered_by"], "stateful testing") << r.out;
  EXPECT_GT(stat(r, "bound_reached"), 0u) << r.out;  // optimal DPOR's, which did not answer
}

// Stateful unfolding (thesis §7.4, Fig. 7.6) on Fig. 7.3: one test (the other order's events are
// computed by the thread model, as the thesis' model needs no second test, Example 25). The
// prefix has one cut-off: the two orders' last unlocks reach the same marking (both threads done,
// X = Y = 1, the lock free, main after its creations), and the one whose local configuration is
// larger in ERV's Foata order (thread 1 first: its second Foata level holds thread 1's lock
// besides main's second creation) is cut off, with main's joins after it. 20 states: the
// initial one and those the local configurations of the prefix's other events reach.
TEST(StatefulUnfolding, Figure7_3OneTestAndOneCutOff) {
  const CliRun r = check("thesis_fig7_3_locking.c", "--points=all --strategy stateful-unfolding");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;  // not deadlocks or races: not "complete"
  EXPECT_EQ(stat(r, "executions") - stat(r, "modelled"), 1u) << r.out;
  EXPECT_EQ(cut_offs(r), 1u) << r.out;
  EXPECT_EQ(states(r), 20u) << r.out;
  EXPECT_NE(r.out.find("every reachable local state of every thread was covered"),
            std::string::npos)
      << r.out;
  const CliRun bug = check("thesis_fig7_3_locking.c",
                           "--points=all --strategy stateful-unfolding -- -DBOTH_ZERO_ASSUMED");
  ASSERT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  EXPECT_EQ(first_bug_kind(bug), "assertion failure");
}

// Fig. 7.1 (Example 23): two threads each take and give back a lock of their own for ever. The
// computation tree of every interleaving is infinite (DFS runs each execution to the step
// bound), but five markings are reachable: the naive search reaches each once and cuts the rest
// off; the unfolding's prefix has five events, two of them the cut-offs e4 and e5 (they come back
// to St(e1)), from one test; its four states are those of e1..e3's local configurations and the
// initial one (the fifth marking, both locks held, is no local configuration's). The bug in one
// of the markings is found by all three strategies that hold states.
TEST(StatefulUnfolding, Figure7_1PrefixOfAnInfiniteUnfolding) {
  const CliRun u = check("thesis_fig7_1_cycles.c", "--points=all --strategy stateful-unfolding");
  ASSERT_EQ(u.exit_code, 3) << u.out << u.err;  // not deadlocks or races: not "complete"
  EXPECT_EQ(stat(u, "executions") - stat(u, "modelled"), 1u) << u.out;
  EXPECT_EQ(stat(u, "bound_reached"), 0u) << u.out;
  EXPECT_EQ(u.result["statistics"]["unfolding"]["events"], 5) << u.out;
  EXPECT_EQ(cut_offs(u), 2u) << u.out;
  EXPECT_EQ(states(u), 4u) << u.out;
  const CliRun naive = check("thesis_fig7_1_cycles.c", "--points=all --strategy stateful");
  ASSERT_EQ(naive.exit_code, 0) << naive.out << naive.err;
  EXPECT_EQ(naive.result["complete"], true) << naive.out;
  EXPECT_EQ(states(naive), 5u) << naive.out;
  const CliRun qpor = check("thesis_fig7_1_cycles.c", "--points=all --strategy qpor");
  ASSERT_EQ(qpor.exit_code, 0) << qpor.out << qpor.err;
  EXPECT_EQ(cut_offs(qpor), 2u) << qpor.out;
  const CliRun dfs =
      check("thesis_fig7_1_cycles.c", "--points=all --strategy dfs --max-executions 2");
  EXPECT_EQ(stat(dfs, "bound_reached"), 2u) << dfs.out;
  for (const char* strategy : {"stateful", "stateful-unfolding", "qpor"}) {
    const CliRun bug = check("thesis_fig7_1_cycles.c",
                             std::string("--points=all --strategy ") + strategy + " -- -DBUG");
    ASSERT_EQ(bug.exit_code, 1) << strategy << bug.out << bug.err;
    EXPECT_EQ(first_bug_kind(bug), "assertion failure") << strategy;
  }
}

// Fig. 7.7 (Example 27): two threads read x under a lock, the first then branches on an input.
// The two orders meet in one marking: one cut-off (event 12 against 11). The thesis needs two
// tests, the second for the branch's other side (s9); weft's search makes four executions (the
// other order once per side of the branch) and its thread model computes two of them from the
// two tests, whose threads' steps and local code on the input they repeat. Its bug needs the
// other order and an input above 5.
TEST(StatefulUnfolding, Figure7_7ModelWithABranchOnAnInput) {
  const CliRun r = check("thesis_fig7_7_model.c", "--points=all --strategy stateful-unfolding");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(stat(r, "executions"), 4u) << r.out;
  EXPECT_EQ(stat(r, "executions") - stat(r, "modelled"), 2u) << r.out;
  EXPECT_EQ(cut_offs(r), 1u) << r.out;
  EXPECT_EQ(r.result["statistics"]["inputs"]["branch_sides_flipped"], 2) << r.out;
  const CliRun bug =
      check("thesis_fig7_7_model.c", "--points=all --strategy stateful-unfolding -- -DBUG");
  ASSERT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  EXPECT_EQ(first_bug_kind(bug), "assertion failure");
}

// Fig. 7.4 (Example 26): the model of the three writes comes from one test (§7.3); the orders
// meet in three end states, and the prefix cuts three events off.
TEST(StatefulUnfolding, Figure7_4WritesNeedOneTest) {
  const CliRun r = check("thesis_fig7_4_writes.c", "--points=all --strategy stateful-unfolding");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(stat(r, "executions") - stat(r, "modelled"), 1u) << r.out;
  EXPECT_EQ(cut_offs(r), 3u) << r.out;
  const CliRun bug = check("thesis_fig7_4_writes.c",
                           "--points=all --strategy stateful-unfolding -- -DLAST_WRITE_ASSUMED");
  ASSERT_EQ(bug.exit_code, 1) << bug.out << bug.err;
  EXPECT_EQ(first_bug_kind(bug), "assertion failure");
}

// The polling consumer's cycle: the unfolding does not follow a thread past its cut-off (the
// consumer's first poll that finds nothing), and the runtime takes the threads in turns, so the
// producer still runs while the consumer polls: 2 tests, none stopped by the step bound, where
// each test used to poll up to the bound (10,000 steps, 10 s of unfolding each).
TEST(StatefulUnfolding, ACycleInTheStateSpaceEndsAtItsCutOff) {
  const CliRun r = check("cycle_polling_consumer.c", "--points=all --strategy stateful-unfolding");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;  // not deadlocks or races: not "complete"
  EXPECT_EQ(stat(r, "executions"), 2u) << r.out;
  EXPECT_EQ(stat(r, "bound_reached"), 0u) << r.out;
  EXPECT_EQ(cut_offs(r), 1u) << r.out;
  EXPECT_NE(r.out.find("every reachable local state of every thread was covered"),
            std::string::npos)
      << r.out;
}

// The thesis' Locking 1 (bench/thesis/locking.c: 2,520 Mazurkiewicz traces): stateful unfolding
// needs at most the thesis' 18 tests (Table 8.3), and its cut-offs leave a third of the
// executions the unfolding without them takes (778 against 2,520).
TEST(StatefulUnfolding, ThesisLocking1WithinTable8_3) {
  const std::string locking = std::string(WEFT_THESIS_BENCH) + "/locking.c";
  const auto run = [&](const std::string& strategy) {
    return weft_cli("check " + locking + " --json -q --points=all --strategy " + strategy +
                    " --replay-file " + replay_file("locking-" + strategy + ".c") +
                    " -- -DVARIANT=1");
  };
  const CliRun r = run("stateful-unfolding");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_LE(stat(r, "executions") - stat(r, "modelled"), 18u) << r.out;
  EXPECT_GT(cut_offs(r), 0u) << r.out;
  const CliRun without = run("unfolding");
  EXPECT_LT(3 * stat(r, "executions"), stat(without, "executions")) << r.out << without.out;
}

// Its states need every shared access an event, as the naive strategy's.
TEST(StatefulUnfolding, NeedsEverySharedAccessAnEvent) {
  const CliRun r = check("thesis_fig7_4_writes.c", "--strategy stateful-unfolding");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("stateful-unfolding needs --points=all"), std::string::npos) << r.err;
}

// Inputs as in the other unfolding strategies (thesis §3.5): a branch on inputs is an event of
// its thread, and its states hold the side taken. Two threads branch three ways on their own
// inputs and then add under one lock: every path pair (3 x 3) with both lock orders, 18
// executions. The orders meet only where the thread locking second read what the first added,
// 0: one cut-off. The thread model computes the 4 whose every thread took paths and saw values
// that ran before (thread_model.hpp: a thread's local code on inputs is picked by the values):
// 14 tests.
TEST(StatefulUnfolding, InputsAreBranchEvents) {
  const CliRun r =
      check("input_branches_in_two_threads.c", "--points=all --strategy stateful-unfolding");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("every reachable local state of every thread was covered"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(stat(r, "executions"), 18u) << r.out;
  EXPECT_EQ(stat(r, "executions") - stat(r, "modelled"), 14u) << r.out;
  EXPECT_EQ(cut_offs(r), 1u) << r.out;
}

}  // namespace
}  // namespace weft::test
