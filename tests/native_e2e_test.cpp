// End-to-end tests of `weft check` / `weft run` / `weft replay` on real C and C++ programs
// (tests/native/): bugs found with their reports, clean programs explored with the expected
// number of executions (equal to the in-process API's for the same program and strategy), and
// robustness against programs that crash, hang, exit or create too many threads.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "native_cli.hpp"
#include "test_support.hpp"
#include "weft/weft.hpp"

namespace {

using namespace weft::test;
using nlohmann::json;
using weft::explorer::StrategyKind;

TEST(NativeEndToEnd, LostUpdateIsFoundWithSourceLocations) {
  const CliRun r = check("lost_update.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "assertion failure");
  EXPECT_NE(first_bug_message(r).find("counter == 2"), std::string::npos);
  // Every event has its file:line; the increments are on lines 11-16. Functions are named as
  // the program names them, not as the pass renamed (main) or copied them.
  bool saw_increment_line = false;
  std::set<std::string> functions;
  for (const auto& step : r.result["bugs"][0]["interleaving"]) {
    ASSERT_TRUE(step.contains("file")) << step.dump();
    EXPECT_NE(step["file"].get<std::string>().find("lost_update.c"), std::string::npos);
    const int line = step["line"].get<int>();
    saw_increment_line |= line >= 11 && line <= 16;
    functions.insert(step["function"].get<std::string>());
  }
  EXPECT_TRUE(saw_increment_line);
  EXPECT_EQ(functions, (std::set<std::string>{"main", "increment"}));
}

TEST(NativeEndToEnd, VersionNamesTheReleaseAndTheLlvmItWasBuiltFor) {
  const CliRun r = weft_cli("--version");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex(R"(^weft [0-9]+\.[0-9]+\.[0-9]+ \(built for LLVM [0-9]+\.[0-9]+\.[0-9]+\)\n$)")))
      << r.out;
}

TEST(NativeEndToEnd, HelpGroupsTheOptionsByPurpose) {
  for (const char* command : {"run --help", "check --help"}) {
    const CliRun r = weft_cli(command);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // Each group's heading, in order, each with one of its options under it.
    std::size_t at = 0;
    for (const auto& [group, option] :
         std::vector<std::pair<std::string, std::string>>{{"\nExploration:\n", "--strategy"},
                                                          {"\nBounds:\n", "--time-limit"},
                                                          {"\nProgram under test:\n", "--nondet"},
                                                          {"\nOutput:\n", "--json"}}) {
      const std::size_t heading = r.out.find(group, at);
      ASSERT_NE(heading, std::string::npos) << group << " in\n" << r.out;
      at = r.out.find(option, heading);
      ASSERT_NE(at, std::string::npos) << option << " in\n" << r.out;
    }
    // No option is left in the catch-all group but --help itself.
    const std::size_t options = r.out.find("\nOptions:\n");
    ASSERT_NE(options, std::string::npos) << r.out;
    const std::string catch_all = r.out.substr(options, r.out.find("\n\n", options + 1) - options);
    EXPECT_EQ(catch_all.find("--", catch_all.find("--help") + 6), std::string::npos) << catch_all;
  }
}

TEST(NativeEndToEnd, PctFindsADepthTwoBugThatDepthOneCannot) {
  // Depth 1 (no change point) never puts the load between the two stores; the verdict says
  // what PCT's executions covered.
  const CliRun one = check("pct_depth_two.c", "--strategy pct --depth 1 --executions 300");
  EXPECT_EQ(one.exit_code, 3) << one.out;
  EXPECT_EQ(one.result["incomplete_code"], "not-exhaustive");
  EXPECT_NE(one.result["incomplete_because"].get<std::string>().find("PCT with depth 1"),
            std::string::npos)
      << one.out;
  // Depth 2 finds it (about one execution in 2k), and its replay file reproduces it.
  const CliRun two = check("pct_depth_two.c", "--strategy pct --depth 2 --executions 300");
  ASSERT_EQ(two.exit_code, 1) << two.out;
  EXPECT_NE(first_bug_message(two).find("seen != 1"), std::string::npos);
  const CliRun replay = weft_cli("replay --json " + replay_file("pct_depth_two.c"));
  EXPECT_EQ(replay.exit_code, 1) << replay.out;
  EXPECT_TRUE(replay.result["reproduced"].get<bool>()) << replay.out;
}

TEST(NativeEndToEnd, ReplayReproducesTheBug) {
  ASSERT_EQ(check("lost_update.c").exit_code, 1);
  const CliRun r = weft_cli("replay --json " + replay_file("lost_update.c"));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  ASSERT_TRUE(r.result.contains("reproduced")) << r.out;
  EXPECT_TRUE(r.result["reproduced"].get<bool>());
}

TEST(NativeEndToEnd, ReplayUnderGdbStopsAtTheBug) {
  ASSERT_EQ(check("lost_update.c").exit_code, 1);
  const CliRun r = weft_cli("replay --gdb " + replay_file("lost_update.c"), "bt\nquit\n");
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("weft: stopped at the bug"), std::string::npos) << all;
  EXPECT_NE(all.find("__assert_fail"), std::string::npos) << all;  // in the backtrace
}

TEST(NativeEndToEnd, LockedCounterIsCleanWithOneExecutionPerOrder) {
  const CliRun three = check("locked_counter.c");
  ASSERT_EQ(three.exit_code, 0) << three.out;
  EXPECT_EQ(stat(three, "complete"), 6u);  // 3! orders of the critical sections
  EXPECT_EQ(stat(three, "executions"), 6u);
  const CliRun four = check("locked_counter.c", "-- -DTHREADS=4");
  ASSERT_EQ(four.exit_code, 0) << four.out;
  EXPECT_EQ(stat(four, "executions"), 24u);
}

// The same programs through the in-process API: the counts must be equal, strategy by strategy.
void locked_counter_in_process(int threads) {
  weft::mutex lock;
  int counter = 0;
  std::vector<weft::thread> workers;
  for (int i = 0; i < threads; ++i)
    workers.emplace_back([&] {
      lock.lock();
      counter = counter + 1;
      lock.unlock();
    });
  for (auto& w : workers) w.join();
}

void lost_update_in_process() {
  weft::mutex lock;
  int counter = 0;
  const auto increment = [&] {
    lock.lock();
    const int seen = counter;
    lock.unlock();
    lock.lock();
    counter = seen + 1;
    lock.unlock();
  };
  weft::thread a(increment), b(increment);
  a.join();
  b.join();
  WEFT_ASSERT(counter == 2);
}

TEST(NativeEndToEnd, ExecutionCountsEqualTheInProcessApi) {
  for (const auto& [kind, name] :
       {std::pair{StrategyKind::kOptimalDpor, "optimal"},
        std::pair{StrategyKind::kDporCommutingReads, "dpor-cr"},
        std::pair{StrategyKind::kDpor, "dpor"}, std::pair{StrategyKind::kDfs, "dfs"}}) {
    SCOPED_TRACE(name);
    weft::Options options = weft::testing::with(kind);
    options.stop_on_first_bug = false;
    const auto counter = weft::explore(options, [] { locked_counter_in_process(3); });
    const CliRun native_counter = check("locked_counter.c", std::string("--strategy ") + name);
    EXPECT_EQ(stat(native_counter, "executions"), counter.stats.executions);
    EXPECT_EQ(stat(native_counter, "complete"), counter.stats.complete);

    const auto lost = weft::explore(options, lost_update_in_process);
    const CliRun native_lost = check("lost_update.c", std::string("--all-bugs --strategy ") + name);
    EXPECT_EQ(stat(native_lost, "executions"), lost.stats.executions);
    EXPECT_EQ(stat(native_lost, "complete"), lost.stats.complete);
  }
}

TEST(NativeEndToEnd, AbbaDeadlockNamesBothPendingLocks) {
  const CliRun r = check("abba_deadlock.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "deadlock");
  const std::string m = first_bug_message(r);
  EXPECT_NE(m.find("waits to lock mutex first at abba_deadlock.c:"), std::string::npos) << m;
  EXPECT_NE(m.find("waits to lock mutex second at abba_deadlock.c:"), std::string::npos) << m;
  int blocked_on_locks = 0;
  for (const auto& p : r.result["bugs"][0]["pending"])
    blocked_on_locks +=
        p["blocked"].get<bool>() && p["operation"].get<std::string>().starts_with("lock mutex");
  EXPECT_EQ(blocked_on_locks, 2);
}

TEST(NativeEndToEnd, ConditionVariableIfInsteadOfWhileIsFound) {
  const CliRun r = check("cond_if.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(first_bug_message(r).find("items > 0"), std::string::npos);
}

TEST(NativeEndToEnd, RaceInSyncModeAssertionInAllMode) {
  const CliRun sync = check("racy_counter.c");
  ASSERT_EQ(sync.exit_code, 1) << sync.out;
  EXPECT_EQ(first_bug_kind(sync), "data race");
  const std::string m = first_bug_message(sync);
  EXPECT_NE(m.find("counter"), std::string::npos) << m;
  // Both access sites, with their lines (10: the read, 11: the write).
  EXPECT_NE(m.find("racy_counter.c:1"), m.rfind("racy_counter.c:1")) << m;

  const CliRun all = check("racy_counter.c", "--points=all");
  ASSERT_EQ(all.exit_code, 1) << all.out;
  EXPECT_EQ(first_bug_kind(all), "assertion failure");
  EXPECT_NE(first_bug_message(all).find("counter == 2"), std::string::npos);
}

TEST(NativeEndToEnd, JoinOrdersTheJoinedThreadsLastAccesses) {
  const CliRun r = check("join_orders_accesses.c");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(NativeEndToEnd, CppThreadsMutexesConditionVariablesAtomics) {
  const CliRun r = check("cpp_bank.cpp");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "assertion failure");
  EXPECT_NE(first_bug_message(r).find("balance >= 0"), std::string::npos);
}

TEST(NativeEndToEnd, PthreadApiProgramIsExploredCompletelyWithoutFalseAlarms) {
  // Recursive and errorcheck mutexes, rwlocks, barriers, once, keys, spinlocks, semaphores,
  // timed waits, pthread_exit: any modelling mistake shows up as a failed assertion or deadlock.
  // A time limit and no --strategy: the portfolio, which finds optimal DPOR's estimated size
  // fits in the time and lets it run alone to the end.
  const CliRun r = weft_cli("check " + fixture("pthread_api.c") + " --json --time-limit 3600");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_GT(stat(r, "complete"), 1000u);
  EXPECT_GT(stat(r, "longest_execution"), 10u);
  EXPECT_EQ(r.result["strategy"], "portfolio");
  EXPECT_GT(r.result["statistics"]["estimate"]["walks"].get<std::uint64_t>(), 32u);
}

TEST(NativeEndToEnd, ARunPastASecondShowsItsProgressWithTheEstimateAndTheTimeLeft) {
  // Without -q, a run that lasts over a second shows its progress line on stderr. Eight
  // threads adding 2,000 times each to one counter (long_execution.c) cannot be explored
  // within the time limit on any machine, so the run lasts until it: the progress line comes,
  // with the portfolio's estimate and the time left. (pthread_api.c's complete exploration,
  // which this test once used, now ends within the second on a fast machine.)
  const CliRun r = weft_cli("check " + fixture("long_execution.c") + " --json --time-limit 2");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find(" executions of ~"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" estimated (~"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/s, 0 bugs, longest execution "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" s left"), std::string::npos) << r.err;
}

TEST(NativeEndToEnd, TheEstimateStrategyEstimatesWithoutExploring) {
  // Five threads that each take one lock once: 5! = 120 traces. 5,000 walks estimate them; the
  // verdict is incomplete (an estimate covers nothing) and says the estimate.
  const CliRun exact = check("locked_counter.c", "--points=all -- -DTHREADS=5");
  const CliRun r = check("locked_counter.c",
                         "--points=all --strategy estimate --executions 5000 -- -DTHREADS=5");
  ASSERT_EQ(exact.exit_code, 0) << exact.out;
  EXPECT_EQ(stat(exact, "executions"), 120u);
  EXPECT_EQ(r.exit_code, 3) << r.out;
  const double estimate = r.result["statistics"]["estimate"]["executions"].get<double>();
  EXPECT_NEAR(estimate / 120, 1.0, 0.5) << estimate << " estimated";
  EXPECT_NE(
      r.result["incomplete_because"].get<std::string>().find("optimal DPOR would run an estimated"),
      std::string::npos)
      << r.out;
}

TEST(NativeEndToEnd, SvCompConventions) {
  // Inputs explored: the observer sees x == limit for limit 2 or 4, which weft finds.
  const CliRun explored = check("svcomp_conventions.c");
  ASSERT_EQ(explored.exit_code, 1) << explored.out;
  const auto limit = explored.result["bugs"][0]["inputs"][0]["value"].get<std::int64_t>();
  EXPECT_TRUE(limit == 2 || limit == 4) << limit;
  // Input 0, fixed: the atomic sections keep x even, so neither reach_error is reachable; the
  // input was fixed rather than explored, so that is not a full proof.
  const CliRun clean = check("svcomp_conventions.c", "--nondet 0");
  EXPECT_EQ(clean.exit_code, 3) << clean.out;
  EXPECT_EQ(clean.result["bugs"].size(), 0u);
  EXPECT_NE(clean.result["incomplete_because"].get<std::string>().find("(--nondet)"),
            std::string::npos);
  EXPECT_EQ(clean.result["incomplete_code"], "fixed-inputs");
  // Input 2: the observer can see x == 2.
  const CliRun found = check("svcomp_conventions.c", "--nondet 2");
  ASSERT_EQ(found.exit_code, 1) << found.out;
  EXPECT_NE(first_bug_message(found).find("reach_error() was called"), std::string::npos);
  // Input 3 is ruled out by assume: the one execution is discarded, which is not a bug.
  const CliRun discarded = check("svcomp_conventions.c", "--nondet 3");
  EXPECT_EQ(discarded.result["bugs"].size(), 0u) << discarded.out;
  EXPECT_EQ(stat(discarded, "executions"), 1u);
  // With every access a scheduling point, the atomic sections still do not interleave.
  const CliRun all = check("svcomp_conventions.c", "--points=all --nondet 0");
  EXPECT_EQ(all.result["bugs"].size(), 0u) << all.out;
  const CliRun all_found = check("svcomp_conventions.c", "--points=all --nondet 4");
  EXPECT_EQ(all_found.exit_code, 1) << all_found.out;
}

// With every access visible, an atomic section is one event that depends only on what it read
// and wrote. Two threads whose NUM sections each conflict give C(2 NUM, NUM) traces; a third
// thread's sections on other memory do not multiply them (if sections depended on everything,
// it would be (3 NUM)! / NUM!^3 = 90 for NUM = 2).
TEST(NativeEndToEnd, AtomicSectionsDependOnlyOnTheirFootprint) {
  const CliRun optimal = check("atomic_sections.c", "--points=all --nondet 1");
  ASSERT_EQ(optimal.result["bugs"].size(), 0u) << optimal.out;
  EXPECT_EQ(stat(optimal, "complete"), 6u);
  EXPECT_EQ(stat(optimal, "traces"), 6u);
  // The oracle: every interleaving, no sleep sets. Its executions fall into the same 6 classes.
  const CliRun every = check("atomic_sections.c",
                             "--points=all --nondet 1 --strategy dfs "
                             "--no-sleep-sets");
  EXPECT_EQ(stat(every, "traces"), 6u);
  EXPECT_GT(stat(every, "complete"), 6u);
  // And the same behaviours: main sees i in {3, 5, 7, 8} (the orders of i += j and j += i),
  // whichever strategy explores.
  for (int target = 2; target <= 9; ++target) {
    const bool reachable = target == 3 || target == 5 || target == 7 || target == 8;
    const std::string options = "--points=all --nondet " + std::to_string(target);
    EXPECT_EQ(check("atomic_sections.c", options).exit_code, reachable ? 1 : 3) << target;
    EXPECT_EQ(check("atomic_sections.c", options + " --strategy dfs --no-sleep-sets").exit_code,
              reachable ? 1 : 3)
        << target;
  }
}

// Dependence is exact to the byte: writes to neighbouring bytes of one 8-byte word commute.
// Only t1's read of flags[1] against t2's write of it matters: 2 traces, as every interleaving
// without sleep sets confirms.
TEST(NativeEndToEnd, NeighbouringBytesAreIndependent) {
  const CliRun optimal = check("neighbour_bytes.c", "--points=all");
  EXPECT_EQ(optimal.exit_code, 0) << optimal.out;
  EXPECT_EQ(stat(optimal, "complete"), 2u);
  const CliRun every = check("neighbour_bytes.c", "--points=all --strategy dfs --no-sleep-sets");
  EXPECT_EQ(stat(every, "traces"), 2u);
  EXPECT_GT(stat(every, "complete"), 100u);
  const CliRun buggy = check("neighbour_bytes.c", "--points=all -- -DBUG");
  ASSERT_EQ(buggy.exit_code, 1) << buggy.out;
  EXPECT_NE(first_bug_message(buggy).find("seen == 0"), std::string::npos);
}

// ---- the thread model ------------------------------------------------------------------------

// Executions made of steps seen before are computed, not run, with every access an event and with
// synchronisation points only (the default): the counts and the verdict are those of running
// every execution (Locking 1, bench/thesis).
TEST(NativeThreadModel, ComputedExecutionsGiveTheSameCountsAndVerdict) {
  const std::string locking = std::string(WEFT_THESIS_SOURCES) + "/locking.c";
  const CliRun on = weft_cli("check " + locking + " --json -q --points=all");
  const CliRun off = weft_cli("check " + locking + " --json -q --points=all --thread-model=off");
  ASSERT_EQ(on.exit_code, 0) << on.out << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.out << off.err;
  EXPECT_EQ(stat(on, "executions"), 2520u);  // 8! / 2!^4 (table_8_1.tsv)
  EXPECT_EQ(stat(off, "executions"), 2520u);
  EXPECT_EQ(on.result["thread_model"], "on");
  EXPECT_GT(stat(on, "modelled"), 2500u);
  EXPECT_EQ(stat(off, "modelled"), 0u);
  // With --points=sync, from what the threads' code between events read and wrote.
  const CliRun sync = weft_cli("check " + locking + " --json -q");
  const CliRun sync_off = weft_cli("check " + locking + " --json -q --thread-model=off");
  ASSERT_EQ(sync.exit_code, 0) << sync.out << sync.err;
  ASSERT_EQ(sync_off.exit_code, 0) << sync_off.out << sync_off.err;
  EXPECT_EQ(sync.result["thread_model"], "on");
  EXPECT_EQ(stat(sync, "executions"), 2520u);
  EXPECT_EQ(stat(sync_off, "executions"), 2520u);
  EXPECT_GT(stat(sync, "modelled"), 2500u);
  EXPECT_EQ(stat(sync_off, "modelled"), 0u);
}

// With --points=sync, atomics order computed executions as the race detector orders them: data
// handed over through an atomic flag is computed, race-free, and the counts are those of running
// every execution.
TEST(NativeThreadModel, AnAtomicHandOverIsComputedInTheDefaultMode) {
  const CliRun on = check("atomic_handover.c");
  const CliRun off = check("atomic_handover.c", "--thread-model=off");
  ASSERT_EQ(on.exit_code, 0) << on.out << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.out << off.err;
  EXPECT_EQ(stat(on, "executions"), stat(off, "executions"));
  EXPECT_GT(2 * stat(on, "modelled"), stat(on, "executions"));
  EXPECT_EQ(check("atomic_handover.c", "--thread-model=check").exit_code, 0);
}

// Under RC11 the model computes the executions whose atomics are all seq_cst (RC11 offers them
// the newest store only): the hand-over's, as under sequential consistency. Release/acquire
// Peterson's every execution leaves SC at its first store, which the model learns and never
// computes: the same executions and bugs as with the model off, and checking finds no
// difference.
TEST(NativeThreadModel, UnderRc11OnlyExecutionsOfSeqCstAtomicsAreComputed) {
  const CliRun on = check("atomic_handover.c", "--memory-model=rc11");
  const CliRun off = check("atomic_handover.c", "--memory-model=rc11 --thread-model=off");
  ASSERT_EQ(on.exit_code, 0) << on.out << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.out << off.err;
  EXPECT_EQ(on.result["thread_model"], "on");
  EXPECT_EQ(stat(on, "executions"), stat(off, "executions"));
  EXPECT_EQ(stat(on, "executions"), stat(check("atomic_handover.c"), "executions"));
  EXPECT_GT(2 * stat(on, "modelled"), stat(on, "executions"));
  EXPECT_EQ(check("atomic_handover.c", "--memory-model=rc11 --thread-model=check").exit_code, 0);

  const std::string weak = "--memory-model=rc11 --all-bugs";
  const CliRun weak_on = check("peterson_release_acquire.c", weak);
  const CliRun weak_off = check("peterson_release_acquire.c", weak + " --thread-model=off");
  ASSERT_EQ(weak_on.exit_code, 1) << weak_on.out << weak_on.err;
  EXPECT_EQ(weak_on.result["thread_model"], "on");
  EXPECT_EQ(stat(weak_on, "modelled"), 0u);
  EXPECT_EQ(stat(weak_on, "executions"), stat(weak_off, "executions"));
  EXPECT_EQ(stat(weak_on, "bugs"), stat(weak_off, "bugs"));
  const CliRun checked = check("peterson_release_acquire.c", weak + " --thread-model=check");
  EXPECT_EQ(checked.exit_code, 1) << checked.out << checked.err;
  EXPECT_EQ(stat(checked, "executions"), stat(weak_off, "executions"));
}

// A race that only some interleavings have, made of steps race-free runs saw: the model
// declines those executions (its own race check), so every execution with the race runs and
// reports it, as with the model off.
TEST(NativeThreadModel, ARaceInAnExecutionMadeOfKnownStepsIsRunAndReported) {
  const CliRun on = check("late_race.c", "--all-bugs --no-race-points");
  const CliRun off = check("late_race.c", "--all-bugs --no-race-points --thread-model=off");
  ASSERT_EQ(on.exit_code, 1) << on.out << on.err;
  ASSERT_EQ(off.exit_code, 1) << off.out << off.err;
  EXPECT_EQ(on.result["bugs"][0]["kind"], "data race");
  EXPECT_EQ(stat(on, "executions"), stat(off, "executions"));
  EXPECT_EQ(stat(on, "bugs"), stat(off, "bugs"));  // executions with a race: all run
  EXPECT_EQ(on.result["bugs"][0]["repeats"], off.result["bugs"][0]["repeats"]);
  EXPECT_GT(stat(on, "modelled"), 0u);
}

// Memory written behind the events' back (by an uninstrumented library function) makes two
// executions see different bytes that no event wrote: the model stops computing, says why, and
// the exploration is the one without it.
TEST(NativeThreadModel, MemoryWrittenOutsideTheEventsDisablesIt) {
  const CliRun on = check("written_behind_events.c", "--points=all --all-bugs");
  const CliRun off = check("written_behind_events.c", "--points=all --all-bugs --thread-model=off");
  ASSERT_EQ(on.exit_code, 0) << on.out << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.out << off.err;
  EXPECT_EQ(stat(on, "executions"), stat(off, "executions"));
  EXPECT_EQ(on.result["thread_model"].get<std::string>().rfind("disabled: memory held other", 0),
            0u)
      << on.result["thread_model"];
}

// An unknown mode is one error line; every mode applies with either kind of points.
TEST(NativeThreadModel, AnUnknownModeIsAnError) {
  const CliRun r = weft_cli("run --thread-model=sometimes /bin/true");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--thread-model"), std::string::npos) << r.err;
  for (const char* mode : {"check", "on", "off"}) {
    const CliRun sync = check("locked_counter.c", std::string("--thread-model=") + mode);
    EXPECT_EQ(sync.exit_code, 0) << mode << sync.err;
    EXPECT_EQ(stat(sync, "executions"), 6u) << mode;
  }
}

// ---- unfolding (--strategy contextual) ------------------------------------------------------

// Thesis Example 10: two tests, the second fails; the unfolding drawn by --dump-unfolding has the
// figure's events at their source lines, and the read arcs dashed.
TEST(NativeUnfolding, ThesisExample10IsFoundInTwoTestsAndDrawn) {
  const std::string dot = (std::filesystem::temp_directory_path() / "weft-e2e-example10.dot");
  const CliRun r = check("thesis_example10.c",
                         "--points=all --all-bugs --strategy contextual --dump-unfolding " + dot);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(stat(r, "executions"), 2u);
  EXPECT_EQ(r.result["incomplete_code"], "local-states-only");
  EXPECT_GE(r.result["statistics"]["unfolding"]["events"].get<int>(), 4);
  std::FILE* f = std::fopen(dot.c_str(), "r");
  ASSERT_NE(f, nullptr);
  const std::string text = slurp(f);
  std::fclose(f);
  std::filesystem::remove(dot);
  EXPECT_TRUE(text.starts_with("digraph unfolding {")) << text;
  // Thread 0.0 reads x twice (the initial x, then the written one), thread 0.1 once, and writes.
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("(x) thesis_example10.c:11"), 2u) << text;  // thread 0.0's two reads
  EXPECT_EQ(count("(x) thesis_example10.c:17"), 2u) << text;  // thread 0.1's read and write
  EXPECT_NE(text.find("style=dashed, arrowhead=none"), std::string::npos);
}

// The same with place replication (thesis ch. 3, where Example 10 comes from): two tests, the
// second fails, and the drawing has each thread's copy of x.
TEST(NativeUnfolding, ThesisExample10WithPlaceReplication) {
  const std::string dot = (std::filesystem::temp_directory_path() / "weft-e2e-example10u.dot");
  const CliRun r = check("thesis_example10.c",
                         "--points=all --all-bugs --strategy unfolding --dump-unfolding " + dot);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(stat(r, "executions"), 2u);
  EXPECT_EQ(r.result["incomplete_code"], "local-states-only");
  EXPECT_EQ(r.result["statistics"]["unfolding"]["restarts"].get<int>(), 0);
  std::FILE* f = std::fopen(dot.c_str(), "r");
  ASSERT_NE(f, nullptr);
  const std::string text = slurp(f);
  std::fclose(f);
  std::filesystem::remove(dot);
  EXPECT_NE(text.find("copy x of 0.0"), std::string::npos) << text;
  EXPECT_NE(text.find("copy x of 0.1"), std::string::npos) << text;
}

// The deadlock search finds the ABBA deadlock and reports it as a deadlock the runtime saw; the
// options that need an unfolding are refused with another strategy.
TEST(NativeUnfolding, DeadlocksAndTheOptionsThatNeedAnUnfolding) {
  for (const char* strategy : {"contextual", "unfolding"}) {
    const CliRun r =
        check("abba_deadlock.c", std::string("--strategy ") + strategy + " --deadlocks");
    ASSERT_EQ(r.exit_code, 1) << strategy << r.out << r.err;
    EXPECT_EQ(first_bug_kind(r), "deadlock") << strategy;
  }
  const CliRun wrong = check("abba_deadlock.c", "--strategy optimal --deadlocks");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("--deadlocks looks for deadlocks no execution runs into"),
            std::string::npos)
      << wrong.err;
  const CliRun no_dot = check("abba_deadlock.c", "--strategy dpor --dump-unfolding /tmp/x.dot");
  EXPECT_EQ(no_dot.exit_code, 2);
  EXPECT_NE(no_dot.err.find("--dump-unfolding"), std::string::npos) << no_dot.err;
  // Every option of one strategy, given to another, is refused rather than ignored (the rows of
  // the table say which options each strategy takes).
  for (const char* options : {"--depth 2", "--seed 3", "--bound 1", "--executions 9"}) {
    const CliRun ignored = check("abba_deadlock.c", std::string("--strategy optimal ") + options);
    EXPECT_EQ(ignored.exit_code, 2) << options;
    EXPECT_NE(ignored.err.find("is not used by --strategy optimal"), std::string::npos)
        << options << ": " << ignored.err;
  }
  EXPECT_EQ(check("abba_deadlock.c", "--strategy pct --depth 2 --executions 50").exit_code, 1);
}

// Inputs with the unfolding strategies (thesis §3.5): a branch on inputs is an event of its
// thread, its other side a target, solved for with the path constraint of its configuration.
// The magic key is found; the correct program's paths are all covered (two branches in each of
// two threads: four other sides), and its verdict is about local states only.
TEST(NativeUnfolding, InputsAreExploredThroughBranchEvents) {
  for (const char* strategy : {"contextual", "unfolding"}) {
    const CliRun ok =
        check("input_branches_in_two_threads.c", std::string("--strategy ") + strategy);
    EXPECT_EQ(ok.exit_code, 3) << strategy << ok.out << ok.err;
    EXPECT_EQ(ok.result["incomplete_code"], "local-states-only") << strategy;
    EXPECT_GE(ok.result["statistics"]["inputs"]["branch_sides_flipped"].get<std::uint64_t>(), 4u)
        << strategy;
    const CliRun magic = check("input_magic.c", std::string("--points=all --strategy ") + strategy);
    EXPECT_EQ(magic.exit_code, 1) << strategy << magic.out << magic.err;
  }
}

// ---- global states (--check-global, thesis §6.2) -------------------------------------------

// Thesis Fig. 6.1: a state with X > 40 and Y == 15 is in the unfolding although no test need
// pass through it; the solver's inputs and schedule reach it, the replay checks it again. No
// state has X > 40 and Y == 5. dfs checks the states of its executions only, whose inputs are
// not all values: it says so.
TEST(NativeGlobalState, ThesisFigure6_1_AStateNoTestRanThroughIsReachedWithItsInputs) {
  for (const char* strategy : {"contextual", "unfolding"}) {
    const std::string options = std::string("--points=all --strategy ") + strategy;
    const CliRun r =
        check("global_state_fig6_1.c", options + " --check-global 'X > 40 && Y == 15'");
    ASSERT_EQ(r.exit_code, 1) << strategy << r.out << r.err;
    EXPECT_EQ(first_bug_kind(r), "global state");
    EXPECT_NE(first_bug_message(r).find("Y = 15)"), std::string::npos) << first_bug_message(r);
    EXPECT_EQ(r.result["check_global"]["answer"], "reached");
    EXPECT_EQ(r.result["bugs"][0]["inputs"].size(), 2u) << r.out;
    const CliRun replay = weft_cli("replay --json " + replay_file("global_state_fig6_1.c"));
    EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
    EXPECT_EQ(replay.result["reproduced"], true) << replay.out;

    const CliRun none =
        check("global_state_fig6_1.c", options + " --check-global 'X > 40 && Y == 5'");
    EXPECT_EQ(none.exit_code, 3) << strategy << none.out << none.err;
    EXPECT_EQ(none.result["check_global"]["answer"], "unreachable");
    EXPECT_EQ(none.result["incomplete_code"], "local-states-only");
  }
  const CliRun dfs = check("global_state_fig6_1.c",
                           "--points=all --strategy dfs --check-global 'X > 40 && Y == 15'");
  EXPECT_EQ(dfs.exit_code, 3) << dfs.out << dfs.err;
  EXPECT_EQ(dfs.result["incomplete_code"], "strategy-gaps");
}

// Values of two variables of one 8-byte word (a lost update makes x + y > 200 with y < 100),
// and threads' locations (at(THREAD, LINE): the line of the thread's next access): each answer
// of the unfolding strategies is dfs's, which passes through every state.
TEST(NativeGlobalState, VariablesAndLocationsAgreeWithEveryStateOfDfs) {
  const struct {
    const char* predicate;
    bool reached;
  } cases[] = {
      {"x + y > 200 && y < 100", true},   {"x > 300", false},
      {"x == 100 && y == -20", true},     {"at(0.0, 12) && at(0.1, 19)", true},
      {"at(0.0, 11) && x == 220", false}, {"!(x >= 0) || y * 2 == -140", true},
  };
  for (const auto& c : cases)
    for (const char* strategy : {"contextual", "unfolding", "dfs"}) {
      const CliRun r =
          check("global_state_lost_update.c", std::string("--points=all --strategy ") + strategy +
                                                  " --check-global '" + c.predicate + "'");
      const bool dfs = std::string(strategy) == "dfs";
      EXPECT_EQ(r.exit_code, c.reached ? 1
                             : dfs     ? 0
                                       : 3)
          << strategy << " " << c.predicate << r.out << r.err;
      if (c.reached) {
        EXPECT_EQ(first_bug_kind(r), "global state") << c.predicate;
      }
      if (!dfs) {
        EXPECT_EQ(r.result["check_global"]["answer"], c.reached ? "reached" : "unreachable")
            << strategy << " " << c.predicate;
      }
    }
  const CliRun lost =
      check("global_state_lost_update.c",
            "--points=all --strategy contextual --check-global 'x + y > 200 && y < 100'");
  EXPECT_NE(first_bug_message(lost).find("(x = 220, y = 50)"), std::string::npos)
      << first_bug_message(lost);
}

// What --check-global cannot take is one line naming it.
TEST(NativeGlobalState, BadPredicatesAndOptionsAreOneLineErrors) {
  const struct {
    const char* options;
    const char* says;
  } cases[] = {
      {"--points=all --strategy contextual --check-global 'z > 1'",
       "'z' is not a global variable of the program"},
      {"--points=all --strategy contextual --check-global 'x + '", "unexpected end at column 5"},
      {"--points=all --strategy contextual --check-global 'at(x, 3)'", "expected a thread"},
      {"--points=all --strategy optimal --check-global 'x > 1'",
       "--check-global searches global states"},
      {"--points=sync --strategy contextual --check-global 'x > 1'", "needs --points=all"},
  };
  for (const auto& c : cases) {
    const CliRun r = check("global_state_lost_update.c", c.options);
    EXPECT_EQ(r.exit_code, 2) << c.options << r.out << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.options << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// ---- inputs ---------------------------------------------------------------------------------

// A bug that needs a 32-bit magic value and one interleaving is found, reported with its input
// (named, decimal, hex) and replayed with it.
TEST(NativeInputs, MagicValueAndInterleavingFoundAndReplayed) {
  const CliRun r = check("input_magic.c", "--points=all");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug_kind(r), "assertion failure");
  const auto& in = r.result["bugs"][0]["inputs"];
  ASSERT_EQ(in.size(), 1u) << r.out;
  EXPECT_EQ(in[0]["name"], "key");
  EXPECT_EQ(in[0]["value"].get<std::uint64_t>(), 0xC0FFEE42u);
  EXPECT_EQ(in[0]["hex"], "0xc0ffee42");
  EXPECT_LT(stat(r, "executions"), 10u);
  EXPECT_EQ(r.result["statistics"]["inputs"]["branch_sides_flipped"].get<std::uint64_t>(), 1u);
  const std::string file = r.result["bugs"][0]["replay_file"].get<std::string>();
  const CliRun again = weft_cli("replay " + file);
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE(again.out.find("key = 3237998146 (0xc0ffee42)"), std::string::npos) << again.out;
}

// A correct program with input branches in two threads: "no bug", every path of each thread
// (three) times both lock orders, each once.
TEST(NativeInputs, CorrectProgramExploredCompletelyWithTheExactCount) {
  for (const char* strategy : {"optimal", "dpor-cr", "dfs"}) {
    const CliRun r =
        check("input_branches_in_two_threads.c", std::string("--strategy=") + strategy);
    ASSERT_EQ(r.exit_code, 0) << strategy << r.out << r.err;
    EXPECT_EQ(r.result["verdict"], "no bug");
    EXPECT_EQ(stat(r, "complete"), 18u) << strategy;
    EXPECT_EQ(r.result["statistics"]["inputs"]["solver_unknown"].get<std::uint64_t>(), 0u);
  }
  // With fixed inputs every interleaving is explored, but not every input: incomplete.
  const CliRun fixed = check("input_branches_in_two_threads.c", "--nondet 5");
  EXPECT_EQ(fixed.exit_code, 3) << fixed.out << fixed.err;
  EXPECT_NE(fixed.result["incomplete_because"].get<std::string>().find("fixed to 5 (--nondet)"),
            std::string::npos);
}

// Thesis Fig. 2.1 and 2.3 compiled natively: the second test reaches Fig. 2.1's error; Fig. 2.3's
// needs the overflowing product.
TEST(NativeInputs, ThesisFigures2_1And2_3) {
  const CliRun fig_2_1 = check("thesis_fig_2_1.c");
  ASSERT_EQ(fig_2_1.exit_code, 1) << fig_2_1.out << fig_2_1.err;
  EXPECT_EQ(fig_2_1.result["bugs"][0]["execution"].get<std::uint64_t>(), 2u);
  EXPECT_EQ(fig_2_1.result["bugs"][0]["inputs"][1]["value"].get<std::int64_t>(), -4);
  const CliRun fig_2_3 = check("thesis_fig_2_3.c");
  ASSERT_EQ(fig_2_3.exit_code, 1) << fig_2_3.out << fig_2_3.err;
  const auto x = fig_2_3.result["bugs"][0]["inputs"][0]["value"].get<std::int64_t>();
  const auto y = fig_2_3.result["bugs"][0]["inputs"][1]["value"].get<std::int64_t>();
  EXPECT_EQ(x / 2, 5);
  EXPECT_GT(x, y);
  EXPECT_EQ(
      static_cast<std::int32_t>(static_cast<std::uint32_t>(x) * static_cast<std::uint32_t>(y)),
      1452);
}

// A crash right after the branch on an input that leads to it: the crashing execution's log
// carries that branch, so the exploration knows the crash's path and completes: three paths, no
// divergence, and the crash reported with v = 15.
TEST(NativeInputs, ACrashRightAfterAnInputBranchKeepsTheBranch) {
  const CliRun r = check("input_crash_path.c", "--all-bugs");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug_kind(r), "crash");
  EXPECT_EQ(r.result["bugs"][0]["inputs"][0]["value"].get<std::uint64_t>(), 15u);
  EXPECT_EQ(r.result["statistics"]["inputs"]["divergences"].get<std::uint64_t>(), 0u) << r.out;
  EXPECT_TRUE(r.result["complete"].get<bool>()) << r.out;
  EXPECT_EQ(stat(r, "executions"), 3u);
}

// Inputs used where weft cannot keep them symbolic (an index, a stack array's size, a float) are
// made concrete with a note in the verdict: never a crash, never a plain "no bug".
TEST(NativeInputs, ConcretisedValuesMakeTheVerdictIncomplete) {
  const CliRun r = check("input_concretised.c");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_GT(r.result["statistics"]["inputs"]["concretisations"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(r.result["incomplete_code"], "input-gaps");
  EXPECT_NE(r.result["incomplete_because"].get<std::string>().find("made concrete"),
            std::string::npos)
      << r.result["incomplete_because"];
  // Where: the index of `table[i] = 1`, the first value made concrete.
  EXPECT_NE(
      r.result["incomplete_because"].get<std::string>().find("the first at input_concretised.c:10"),
      std::string::npos)
      << r.result["incomplete_because"];
}

// Input bytes through the C library's string functions stay symbolic (their models): a bug that
// needs the command "stop" (strlen, strcmp) with the argument "42" (atoi) is found.
TEST(NativeInputs, LibraryModelsKeepStringInputsSymbolic) {
  const CliRun r = check("input_library_models.c", "--points=all");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug_kind(r), "assertion failure");
  std::string command, argument;
  for (const auto& in : r.result["bugs"][0]["inputs"]) {
    const auto byte = static_cast<char>(in["value"].get<int>());
    const std::string name = in["name"].get<std::string>();
    if (name.rfind("command[", 0) == 0) command.push_back(byte);
    if (name.rfind("argument[", 0) == 0) argument.push_back(byte);
  }
  EXPECT_EQ(command.substr(0, command.find('\0')), "stop");
  EXPECT_EQ(std::atoi(argument.c_str()), 42);
  EXPECT_EQ(r.result["statistics"]["inputs"]["unconstrained_concretisations"].get<std::uint64_t>(),
            0u);
}

// realloc moving a block takes its bytes' expressions along: the bug needs the moved byte.
TEST(NativeInputs, ReallocKeepsInputBytesSymbolic) {
  const CliRun r = check("input_heap_blocks.c");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.result["bugs"][0]["inputs"][1]["value"].get<int>(), 'k');
}

// Each input path through the models is explored once: strlen's four lengths times strcmp's four
// outcomes. A function with no model (sscanf) makes the verdict incomplete instead.
TEST(NativeInputs, LibraryModelPathsExploredOnceAndUnmodelledCallsReported) {
  const CliRun paths = check("input_string_paths.c");
  ASSERT_EQ(paths.exit_code, 0) << paths.out << paths.err;
  EXPECT_EQ(stat(paths, "complete"), 16u);
  const CliRun unmodelled = check("input_unmodelled_call.c");
  EXPECT_EQ(unmodelled.exit_code, 3) << unmodelled.out << unmodelled.err;
  EXPECT_NE(unmodelled.result["incomplete_because"].get<std::string>().find("no model"),
            std::string::npos)
      << unmodelled.result["incomplete_because"];
}

// ---- busy-wait loops -------------------------------------------------------------------------

// A thread that goes once around a busy-wait loop without leaving it is stopped (spin-assume):
// the correct programs are then explored completely, where letting threads spin only reaches
// the step bound; and the same bugs are found either way.
TEST(NativeSpinLoops, BusyWaitsAreExploredCompletelyAndFindTheSameBugs) {
  for (const char* program : {"spin_message_passing.c", "spin_peterson.c"}) {
    const CliRun correct = check(program, "--points=all");
    EXPECT_EQ(correct.exit_code, 0) << program << correct.out;
    EXPECT_GT(stat(correct, "spin_blocked"), 0u) << program;
    EXPECT_EQ(stat(correct, "bound_reached"), 0u) << program;
    // Left to spin, every thread runs on to the step bound (20: each interleaving of two spinning
    // threads within it is explored).
    const CliRun spinning = check(program, "--points=all --keep-spinning --max-steps 20");
    EXPECT_EQ(spinning.exit_code, 3) << program << spinning.out;  // only within the bound
    EXPECT_GT(stat(spinning, "bound_reached"), 0u) << program;

    const CliRun buggy = check(program, "--points=all -- -DBUG");
    const CliRun buggy_spinning =
        check(program, "--points=all --keep-spinning --max-steps 20 -- -DBUG");
    ASSERT_EQ(buggy.exit_code, 1) << program << buggy.out;
    ASSERT_EQ(buggy_spinning.exit_code, 1) << program << buggy_spinning.out;
    // The same assertion (the two consumers are alike: either may be the one that fails).
    const auto what = [](const std::string& m) { return m.substr(m.find(':')); };
    EXPECT_EQ(what(first_bug_message(buggy)), what(first_bug_message(buggy_spinning))) << program;
    EXPECT_EQ(first_bug_kind(buggy), "assertion failure") << program;
  }
  // Peterson: 48 traces in which every busy-wait is left at its first test (178 when the two
  // threads' `wants` flags, neighbours in one 8-byte granule, counted as one location). DPOR
  // (Flanagan-Godefroid) and every interleaving without sleep sets find the same 48.
  EXPECT_EQ(stat(check("spin_peterson.c", "--points=all"), "traces"), 48u);
  EXPECT_EQ(stat(check("spin_peterson.c", "--points=all --strategy dpor"), "traces"), 48u);
}

// A test-and-set lock taken by calling try_lock() until it succeeds: the loop calls a function,
// stores to a local, and the exchange on a held lock stores the 1 that was there. An iteration
// that leaves everything as it was is still a busy wait: explored completely, the same bug found.
TEST(NativeSpinLoops, IterationsThatChangeNothingThroughCallsAndWritesAreBusyWaits) {
  const CliRun correct = check("spin_lock_through_call.c", "--points=all");
  EXPECT_EQ(correct.exit_code, 0) << correct.out;
  EXPECT_GT(stat(correct, "spin_blocked"), 0u);
  EXPECT_EQ(stat(correct, "bound_reached"), 0u);
  // Each thread takes the lock once, so the two orders of the critical sections are the traces.
  EXPECT_EQ(stat(correct, "traces"), 2u);
  // Under RC11 an exchange on the held lock may read an older 1 and go right after it in
  // coherence order: it wrote what it read, so the iteration is still no change (before, each
  // such exchange counted as one and the waiter ran to the step bound).
  const CliRun rc11 =
      check("spin_lock_through_call.c", "--points=all --memory-model=rc11 --max-steps 50");
  EXPECT_EQ(rc11.exit_code, 0) << rc11.out << rc11.err;
  EXPECT_GT(stat(rc11, "spin_blocked"), 0u);
  EXPECT_EQ(stat(rc11, "bound_reached"), 0u);
  const CliRun spinning =
      check("spin_lock_through_call.c", "--points=all --keep-spinning --max-steps 20");
  EXPECT_EQ(spinning.exit_code, 3) << spinning.out;
  EXPECT_GT(stat(spinning, "bound_reached"), 0u);

  const CliRun buggy = check("spin_lock_through_call.c", "--points=all -- -DBUG");
  const CliRun buggy_spinning =
      check("spin_lock_through_call.c", "--points=all --keep-spinning --max-steps 20 -- -DBUG");
  ASSERT_EQ(buggy.exit_code, 1) << buggy.out;
  ASSERT_EQ(buggy_spinning.exit_code, 1) << buggy_spinning.out;
  EXPECT_EQ(first_bug_message(buggy), first_bug_message(buggy_spinning));
}

// A compare-exchange lock whose loop writes 0 back into the expected value the failure set to 1
// (and with -DGUARDED sets and clears a shared flag around each try): such an iteration ends as
// it began, so it is a busy wait, under SC and under RC11 (where the failure may also read an
// older store of the lock). Before plain writes were judged by what the iteration left, each
// waiter spun on to the step bound.
TEST(NativeSpinLoops, ACompareExchangeLoopThatResetsItsExpectedValueIsABusyWait) {
  for (const char* model : {"sc", "rc11"}) {
    for (const char* flags : {"", " -- -DTHROUGH_CALL", " -- -DTHROUGH_CALL -DGUARDED"}) {
      const std::string where = std::string(model) + flags;
      const CliRun r = check("spin_compare_exchange.c",
                             std::string("--max-steps 50 --memory-model=") + model + flags);
      EXPECT_EQ(r.exit_code, 0) << where << r.out << r.err;
      EXPECT_GT(stat(r, "spin_blocked"), 0u) << where;
      EXPECT_EQ(stat(r, "bound_reached"), 0u) << where;
    }
  }
}

// An iteration that changes memory (a shared counter, or with -DLOCAL a local one) is not a busy
// wait: stopping the waiter after it would hide the checker's failure, which needs three rounds.
TEST(NativeSpinLoops, IterationsThatChangeMemoryAreNotStopped) {
  for (const char* flags : {"", " -- -DLOCAL"}) {
    const CliRun r =
        check("spin_with_effects.c", std::string("--points=all --max-steps 20") + flags);
    ASSERT_EQ(r.exit_code, 1) << flags << r.out;
    EXPECT_NE(first_bug_message(r).find("reach_error"), std::string::npos) << flags;
    EXPECT_EQ(stat(r, "spin_blocked"), 0u) << flags;
  }
}

TEST(NativeSpinLoops, WaitingForAFlagNobodySetsIsALivelock) {
  const CliRun r = check("spin_forever.c", "--points=all");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "livelock");
  EXPECT_NE(first_bug_message(r).find("thread 0.0 spins forever"), std::string::npos) << r.out;
  const CliRun replay = weft_cli("replay --json " + replay_file("spin_forever.c"));
  EXPECT_EQ(replay.exit_code, 1) << replay.out;
  // A loop that reads and writes nothing is one too (not left to run into the time limit).
  const CliRun empty = check("spin_forever.c", "--points=all -- -DEMPTY");
  ASSERT_EQ(empty.exit_code, 1) << empty.out;
  EXPECT_EQ(first_bug_kind(empty), "livelock");
}

// ---- robustness ------------------------------------------------------------------------------

TEST(NativeRobustness, SegfaultIsACrashWithItsLocation) {
  const CliRun r = check("crash_in_thread.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "crash");
  const std::string m = first_bug_message(r);
  EXPECT_NE(m.find("thread 0.0 crashed: SIGSEGV"), std::string::npos) << m;
  EXPECT_NE(m.find("crash_in_thread.c:14"), std::string::npos) << m;
}

TEST(NativeRobustness, EndlessLoopHitsTheTimeLimitAndAllPointsEndIt) {
  const CliRun sync = check("endless_loop.c", "--execution-timeout 1");
  EXPECT_EQ(sync.exit_code, 3) << sync.out;
  EXPECT_NE(sync.result["incomplete_because"].get<std::string>().find("time limit"),
            std::string::npos);
  // With every access visible the loop is a busy-wait: stopped after one fruitless iteration,
  // so the exploration is complete.
  const CliRun all = check("endless_loop.c", "--points=all --max-steps 100");
  EXPECT_EQ(all.exit_code, 0) << all.out;
  EXPECT_EQ(stat(all, "spin_blocked"), 1u) << all.out;
  // Left to spin, it is cut by the step bound, but some executions finish.
  const CliRun spinning = check("endless_loop.c", "--points=all --max-steps 100 --keep-spinning");
  EXPECT_EQ(spinning.exit_code, 3) << spinning.out;
  EXPECT_GT(stat(spinning, "complete"), 0u);
}

TEST(NativeRobustness, MemoryHogHitsTheMemoryLimit) {
  const CliRun r = check("memory_hog.c", "--memory-limit 100");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.result["incomplete_because"].get<std::string>().find("memory limit of 100 MiB"),
            std::string::npos);
}

TEST(NativeRobustness, ExitFromAThreadEndsTheExecution) {
  const CliRun r = check("exit_in_thread.c");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_GE(stat(r, "complete"), 2u);
}

// The end of the process runs once no other thread can run: ending earlier only cuts threads
// short, and whatever goes wrong before an exit also goes wrong in the same prefix of an
// execution where the exit comes later. A worker main does not join is explored to its end.
TEST(NativeEndToEnd, TheProcessEndsOnlyWhenNoOtherThreadCanRun) {
  const CliRun clean = check("exit_without_join.c", "--points=all");
  EXPECT_EQ(clean.exit_code, 0) << clean.out;
  EXPECT_EQ(stat(clean, "complete"), 2u);  // the read before and after the write; no cut-offs
  const CliRun buggy = check("exit_without_join.c", "--points=all -- -DBUG");
  ASSERT_EQ(buggy.exit_code, 1) << buggy.out;
  EXPECT_NE(first_bug_message(buggy).find("seen == 0"), std::string::npos);
  const CliRun sync = check("exit_without_join.c", "-- -DBUG");  // a data race, then the bug
  EXPECT_EQ(sync.exit_code, 1) << sync.out;
}

// An execution whose events do not fit in the log shared with weft stops weft with one line
// naming the options to lower, rather than exploring on from a trace with events missing.
TEST(NativeRobustness, AnExecutionTooLongForTheLogIsOneClearError) {
  const CliRun r = check("log_overflow.c", "--points=all --max-executions 1");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("MiB of events"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("lower --max-steps or --max-threads"), std::string::npos) << r.err;
}

TEST(NativeRobustness, TenThousandThreadsHitTheThreadBound) {
  const CliRun r = check("many_threads.c");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.result["incomplete_because"].get<std::string>().find("1000 threads"),
            std::string::npos);
}

// --max-threads stops the creating thread at the bound and lets the others run on: the
// exploration within the bound is complete ("no bug found within the bounds", never exit 0),
// and a larger bound reaches the bug that needs more threads.
TEST(NativeRobustness, EndlessThreadCreationIsExploredWithinTheThreadBound) {
  const CliRun small = check("endless_threads.c", "--max-threads 4");
  EXPECT_EQ(small.exit_code, 3) << small.out;
  EXPECT_TRUE(small.result["complete_within_bounds"].get<bool>()) << small.out;
  EXPECT_EQ(small.result["incomplete_code"], "within-bounds");
  EXPECT_FALSE(small.result["complete"].get<bool>()) << small.out;
  EXPECT_NE(small.result["incomplete_because"].get<std::string>().find("within the bounds"),
            std::string::npos);
  // Three threads' critical sections in every order.
  EXPECT_EQ(stat(small, "executions"), 6u) << small.out;

  const CliRun large = check("endless_threads.c", "--max-threads 5");
  EXPECT_EQ(large.exit_code, 1) << large.out;
  EXPECT_EQ(first_bug_kind(large), "assertion failure");

  const CliRun text = weft_cli("check " + fixture("endless_threads.c") + " -q --max-threads 4");
  EXPECT_NE(text.out.find("no bug found within the bounds"), std::string::npos) << text.out;
}

// weft runs the executions in one worker process that restores its memory after each; every
// execution must still see what a freshly forked process sees. Each execution of the fixture
// leaves behind a global counter, marks in stack and heap memory, an open file and a mapping.
TEST(NativeRobustness, EveryExecutionInTheWorkerStartsFromAFreshState) {
  const CliRun worker = check("process_state.c");
  EXPECT_EQ(worker.exit_code, 0) << worker.out;
  EXPECT_EQ(stat(worker, "executions"), 120u) << worker.out;
  EXPECT_EQ(stat(worker, "traces"), 120u) << worker.out;
  const CliRun fresh = check("process_state.c", "--fresh-process");
  EXPECT_EQ(fresh.exit_code, 0) << fresh.out;
  EXPECT_EQ(stat(fresh, "executions"), 120u) << fresh.out;
}

// The stacks the worker clears without asking the kernel which pages are resident
// (Fiber::clear_used_stack): a stack used deeply in one execution and under a 24 KiB unwritten
// frame in the next, and one used past the 32 pages cleared in place, read as zero. With the
// scan below the pages known used cut to one page, or the known pages left as they are, the
// marks are found.
TEST(NativeRobustness, StacksReadAsFreshOnesHoweverDeepEarlierExecutionsWent) {
  const CliRun worker = check("stack_depths.c");
  EXPECT_EQ(worker.exit_code, 0) << worker.out << worker.err;
  EXPECT_EQ(stat(worker, "executions"), 6u) << worker.out;
}

// A worker that dies (here: in the executions that crash) is replaced and loses nothing: the
// same bugs and executions as with a fresh process per execution.
TEST(NativeRobustness, CrashingExecutionsLoseNothingInTheWorker) {
  for (const char* program : {"crash_in_thread.c", "kills_itself.c"}) {
    const CliRun worker = check(program, "--all-bugs");
    const CliRun fresh = check(program, "--all-bugs --fresh-process");
    ASSERT_EQ(worker.exit_code, 1) << worker.out;
    ASSERT_EQ(fresh.exit_code, 1) << fresh.out;
    EXPECT_EQ(worker.result["bugs"], fresh.result["bugs"]) << program;
    for (const char* s : {"executions", "complete", "traces", "bugs"})
      EXPECT_EQ(stat(worker, s), stat(fresh, s)) << program << " " << s;
  }
}

TEST(NativeRobustness, ProgramKillingItselfLosesNothing) {
  const CliRun r = check("kills_itself.c", "--all-bugs");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  ASSERT_EQ(r.result["bugs"].size(), 2u) << r.out;
  std::string kinds;
  for (const auto& b : r.result["bugs"]) kinds += b["kind"].get<std::string>() + ";";
  EXPECT_NE(kinds.find("crash"), std::string::npos);
  EXPECT_NE(kinds.find("assertion failure"), std::string::npos);
}

// What weft does not model stops the run with exit code 2 and one line naming the call: never
// a verdict about the program, never a crash blamed on it, never a hang until the time limit.
TEST(NativeRobustness, UnsupportedFunctionStopsTheRunNamingIt) {
  const struct {
    const char* program;
    const char* call;
  } cases[] = {{"cancel_thread.c", "pthread_cancel"}, {"fork_in_program.c", "fork"}};
  for (const auto& c : cases) {
    const CliRun r = check(c.program);
    EXPECT_EQ(r.exit_code, 2) << c.program << r.out;
    EXPECT_EQ(r.result["verdict"], "unsupported") << c.program;
    EXPECT_NE(r.result["incomplete_because"].get<std::string>().find(
                  std::string("the program called ") + c.call),
              std::string::npos)
        << r.out;
    const CliRun text = weft_cli("check -q " + fixture(c.program));
    EXPECT_EQ(text.exit_code, 2);
    EXPECT_NE(text.out.find(std::string("weft: the program called ") + c.call), std::string::npos)
        << text.out;
  }
}

TEST(NativeErrors, CompilerErrorsAndForeignBinariesExitWith2) {
  EXPECT_EQ(check("does_not_compile.c").exit_code, 2);
  EXPECT_EQ(weft_cli("run /bin/true").exit_code, 2);
  EXPECT_EQ(weft_cli("check /no/such/file.c").exit_code, 2);
  EXPECT_EQ(weft_cli("run --strategy nonsense /bin/true").exit_code, 2);
}

// Every word after the program is the program's: a weft option there is passed on, and said so.
TEST(NativeErrors, AWeftOptionAfterTheProgramIsNoted) {
  const CliRun r = weft_cli("run /bin/true --strategy=dfs");
  EXPECT_NE(r.err.find("weft: note: --strategy comes after the program, so it is the program's "
                       "argument"),
            std::string::npos)
      << r.err;
  const CliRun own = weft_cli("run --strategy dfs /bin/true --frobnicate");
  EXPECT_EQ(own.err.find("weft: note:"), std::string::npos) << own.err;
}

// ---- the program's own process state (issue 17) --------------------------------------------

// Builds a fixture with weft-cc (and `flags`) into the temporary directory; returns the
// program's path.
std::string build_fixture(const std::string& file, const std::string& flags = "") {
  const std::string test = weft::test::test_name();
  const std::string out =
      (std::filesystem::temp_directory_path() / ("weft-e2e-" + test + "-" + file + ".bin"))
          .string();
  const std::string command =
      std::string(WEFT_CC) + " -O1 " + flags + " " + fixture(file) + " -o " + out + " 2>/dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return out;
}

// Everything after PROG is the program's, verbatim: options that look like weft's included.
// Each execution then sees the arguments, environment and process settings a fresh process
// would, although the one before changed them all (the worker restores them).
TEST(NativeProcessState, ArgumentsEnvironmentAndSettingsAreTheProgramsInEveryExecution) {
  const std::string prog = build_fixture("arguments_restored.c");
  for (const char* second : {"x", "--json", "--strategy"}) {
    for (const char* mode : {"", "--fresh-process"}) {
      const std::string weft_part = std::string("run --json -q ") + mode + " --replay-file " +
                                    replay_file("arguments_restored.c");
      const std::string env =
          std::string("ARGUMENTS_TEST_VAR=original ARGUMENTS_TEST_SECOND=") + second + " ";
      for (const char* separator : {"", "-- "}) {
        const CliRun r =
            shell(env + WEFT_BIN + " " + weft_part + " " + separator + prog + " -l " + second);
        EXPECT_EQ(r.exit_code, 0) << second << " " << mode << "\n" << r.out << r.err;
        EXPECT_EQ(stat(r, "executions"), 2u) << second << " " << mode;
      }
    }
  }
}

// Each thread has its own thread-local storage, errno included: no race on a thread's own
// counter, every thread's copy starts from its initial value, and each finds its own errno.
TEST(NativeProcessState, EachThreadHasItsOwnThreadLocalsAndErrno) {
  const CliRun c = check("thread_locals.c");
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_EQ(stat(c, "executions"), 70u) << c.out;
  // C++: thread_local objects are constructed per thread and destroyed when it ends; the
  // exception being handled is the thread's own.
  const CliRun cxx = check("thread_local_objects.cpp");
  EXPECT_EQ(cxx.exit_code, 0) << cxx.out << cxx.err;
  EXPECT_GT(stat(cxx, "executions"), 1u) << cxx.out;
}

// A thread resumed at an access hook keeps the thread pointer another thread left until its code
// needs its own storage (RunLimits::lazy_thread_pointer): its thread-locals, a pointer to one,
// errno the C library set, a function using thread-locals, each after switches at plain writes,
// are all its own, as when the pointer is set at every switch (WEFT_EAGER_THREAD_POINTER=1).
// With the pass's requests removed, 36 of these executions fail.
TEST(NativeProcessState, ThreadLocalsStayTheThreadsOwnWhenTheThreadPointerIsSetLazily) {
  const std::string options = "--points=all --all-bugs";
  const CliRun lazy = check("thread_pointer_after_accesses.c", options);
  const CliRun eager = shell("WEFT_EAGER_THREAD_POINTER=1 " + std::string(WEFT_BIN) + " check " +
                             fixture("thread_pointer_after_accesses.c") + " --json -q " + options +
                             " --replay-file " + replay_file("eager.json"));
  EXPECT_EQ(lazy.exit_code, 0) << lazy.out << lazy.err;
  EXPECT_EQ(eager.exit_code, 0) << eager.out << eager.err;
  EXPECT_EQ(stat(lazy, "executions"), 7204u) << lazy.out;
  EXPECT_EQ(stat(eager, "executions"), stat(lazy, "executions"));
  // Optimised, where the backend computes thread-local addresses as it likes within a block.
  const CliRun optimised = check("thread_pointer_after_accesses.c", options + " -- -O1");
  EXPECT_EQ(optimised.exit_code, 0) << optimised.out << optimised.err;
}

// A thread resumed in a synchronisation operation called from code weft compiled, and a thread
// starting, keep the thread pointer another thread left until their code asks for their own:
// thread-locals and errno after create, join, mutex, condition, semaphore and spin lock
// operations are the thread's own, and a thread started at a C library function (which reads
// its storage at once) finds its own errno. With the request before such a start removed, the
// last assertion fails.
TEST(NativeProcessState, ThreadLocalsStayTheThreadsOwnAfterSynchronisation) {
  for (const std::string options : {"", "--points=all"}) {
    const CliRun lazy = check("thread_pointer_after_sync.c", options);
    const CliRun eager = shell("WEFT_EAGER_THREAD_POINTER=1 " + std::string(WEFT_BIN) + " check " +
                               fixture("thread_pointer_after_sync.c") + " --json -q " + options +
                               " --replay-file " + replay_file("eager_sync.json"));
    EXPECT_EQ(lazy.exit_code, 0) << options << "\n" << lazy.out << lazy.err;
    EXPECT_EQ(eager.exit_code, 0) << options << "\n" << eager.out << eager.err;
    EXPECT_GT(stat(lazy, "executions"), 1u) << lazy.out;
    EXPECT_EQ(stat(eager, "executions"), stat(lazy, "executions")) << options;
  }
}

// The pthread functions that act on a thread (names, scheduling, attributes, affinity, clocks,
// pthread_kill(t, 0), gettid, cancellation state) work on weft's threads instead of crashing.
TEST(NativeProcessState, PthreadFunctionsOnWeftThreadsWork) {
  const CliRun r = check("thread_identity.c");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(stat(r, "executions"), 2u) << r.out;
}

// C++20 waits and futures call the futex system call: weft runs its waits and wakes as visible
// operations. A correct program is explored to the end (before, its first execution hung until
// the time limit); a wake that is missing is a deadlock naming the futex word.
TEST(NativeFutex, CxxWaitsAndFuturesAreExploredAndAMissingWakeIsADeadlock) {
  const CliRun waits = check("atomic_wait.cpp", "-- -std=c++20");
  EXPECT_EQ(waits.exit_code, 0) << waits.out << waits.err;
  EXPECT_GT(stat(waits, "executions"), 2u);
  const CliRun missing = check("atomic_wait.cpp", "-- -std=c++20 -DBUG");
  ASSERT_EQ(missing.exit_code, 1) << missing.out << missing.err;
  EXPECT_EQ(first_bug_kind(missing), "deadlock");
  // The wait is in libstdc++'s code (atomic_wait.h), which the program instantiated.
  EXPECT_NE(first_bug_message(missing).find("waits on futex word flag at atomic_wait"),
            std::string::npos)
      << first_bug_message(missing);
  EXPECT_NE(first_bug_message(missing).find("no thread will wake it"), std::string::npos)
      << first_bug_message(missing);
  // counting_semaphore, latch, barrier, promise/future: every interleaving, no false alarm.
  const CliRun all = check("cxx20_sync.cpp", "-- -std=c++20");
  EXPECT_EQ(all.exit_code, 0) << all.out << all.err;
  EXPECT_GT(stat(all, "executions"), 1000u);
}

// A thread ten levels deep has a name too long for a short string; placing its heap by that
// name allocated through the allocator being placed, until the stack overflowed.
TEST(NativeRobustness, DeeplyNestedThreadsAllocate) {
  const CliRun r = check("deeply_nested_threads.c");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// With --points=sync, plain accesses are not scheduling points, so a bug that needs another
// thread to run between two of them was out of reach. Once a race is found, its instructions
// become scheduling points (race-directed) and the bug behind it is found and replayed.
TEST(NativeRaceDirectedPoints, TheBugBehindARaceIsFoundAndReplayed) {
  const CliRun first = check("race_enables_assertion.c");
  ASSERT_EQ(first.exit_code, 1) << first.out;
  EXPECT_EQ(first_bug_kind(first), "data race");  // the first bug stops the run, as before
  EXPECT_EQ(first.result["promoted_sites"], 0);

  const CliRun r = check("race_enables_assertion.c", "--stop-on assertion");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  std::string kinds;
  for (const auto& b : r.result["bugs"]) kinds += b["kind"].get<std::string>() + ";";
  EXPECT_NE(kinds.find("assertion failure"), std::string::npos) << kinds;
  EXPECT_EQ(r.result["promoted_sites"], 4) << r.out;
  EXPECT_EQ(r.result["rounds"], 2) << r.out;
  // The replay file holds the bug --stop-on named, with the points it needs.
  const CliRun replay = weft_cli("replay " + replay_file("race_enables_assertion.c") + " --json");
  EXPECT_EQ(replay.result["reproduced"], true) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("data == 42"), std::string::npos) << replay.out;
}

// An access that races with two earlier accesses reports both races: the second pair is the
// one whose promotion reaches the assertion (found by the race differential test).
TEST(NativeRaceDirectedPoints, EveryRaceOfAnAccessIsPromoted) {
  const CliRun all = check("race_behind_another_race.c", "--points=all --all-bugs");
  const CliRun sync = check("race_behind_another_race.c", "--all-bugs");
  ASSERT_EQ(all.exit_code, 1) << all.out;
  ASSERT_EQ(sync.exit_code, 1) << sync.out;
  const auto assertions = [](const CliRun& r) {
    std::set<std::string> found;
    for (const auto& b : r.result["bugs"])
      if (b["kind"] == "assertion failure") found.insert(b["message"].get<std::string>());
    return found;
  };
  EXPECT_EQ(assertions(all).size(), 2u) << all.out;
  EXPECT_EQ(assertions(sync), assertions(all)) << sync.out;
  bool read_race = false;
  for (const auto& b : sync.result["bugs"]) {
    const std::string m = b["message"].get<std::string>();
    read_race |= m.find("read (4 bytes) by thread 0.0 at race_behind_another_race.c:14") !=
                 std::string::npos;
  }
  EXPECT_TRUE(read_race) << sync.out;
}

// Inline assembly: memory operands are the atomic accesses they are, and a statement that
// names no memory is a barrier, so busy-wait loops around such statements are recognised (a
// ticket lock that stalls on an empty asm; a barrier counting with lock-prefixed asm) and a
// count never reached is a livelock. Assembly that may act on memory it does not name is
// dependent with everything; a thread that reaches the step bound in a loop around it is named
// with the place and the reason.
TEST(NativeInlineAsm, AssemblyOperandsBarriersAndOpaqueStatements) {
  const CliRun ticket = check("spin_on_asm_barrier.c", "--points=all");
  EXPECT_EQ(ticket.exit_code, 0) << ticket.out;
  EXPECT_GT(stat(ticket, "spin_blocked"), 0u);
  EXPECT_EQ(stat(ticket, "bound_reached"), 0u);
  const CliRun counted = check("asm_spin.c");
  EXPECT_EQ(counted.exit_code, 0) << counted.out;
  EXPECT_GT(stat(counted, "spin_blocked"), 0u);
  const CliRun never = check("asm_spin.c", "--points=all -- -DFOREVER");
  ASSERT_EQ(never.exit_code, 1) << never.out;
  EXPECT_EQ(first_bug_kind(never), "livelock");
  const CliRun opaque = check("asm_spin.c", "--max-steps 4 -- -DOPAQUE -DFOREVER");
  EXPECT_EQ(opaque.exit_code, 3) << opaque.out;
  const std::string why = opaque.result["incomplete_because"].get<std::string>();
  EXPECT_NE(why.find("visible operations at asm_spin.c:"), std::string::npos) << why;
  EXPECT_NE(why.find("in inline assembly weft cannot see into"), std::string::npos) << why;
}

// The exploration limits hold (a program with thousands of interleavings).
TEST(NativeEndToEnd, ExecutionAndTimeLimitsStopTheExploration) {
  const CliRun counted = check("cxx20_sync.cpp", "--max-executions 50 -- -std=c++20");
  EXPECT_EQ(counted.exit_code, 3) << counted.out;
  EXPECT_EQ(stat(counted, "executions"), 50u);
  const CliRun timed = check("cxx20_sync.cpp", "--time-limit 0.5 -- -std=c++20");
  EXPECT_EQ(timed.exit_code, 3) << timed.out;
  EXPECT_LT(timed.result["statistics"]["seconds"].get<double>(), 5.0);
}

// A trap clang put in the program (falling off the end of a non-void function) is explained.
TEST(NativeRobustness, ACompilerTrapIsExplained) {
  const CliRun r = check("missing_return.cpp", "-- -Wno-return-type");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug_kind(r), "crash");
  EXPECT_NE(first_bug_message(r).find("SIGILL"), std::string::npos) << first_bug_message(r);
  EXPECT_NE(first_bug_message(r).find("a trap (ud2) the compiler put"), std::string::npos)
      << first_bug_message(r);
}

// ---- OpenMP (weft's model of LLVM's OpenMP runtime, docs/openmp.md) -------------------------

// A parallel loop with a reduction: explored completely, the sum right in every execution. The
// threads' partial sums are combined under the reduction lock, in either order: 2 executions.
TEST(NativeOpenMp, ParallelForWithReductionIsExploredCompletely) {
  for (const char* points : {"", "--points=all"}) {
    const CliRun r = check("omp_reduction.c", std::string(points) + " -- -fopenmp");
    ASSERT_EQ(r.exit_code, 0) << points << r.out << r.err;
    EXPECT_EQ(stat(r, "executions"), 2u) << points;
    EXPECT_EQ(stat(r, "complete"), 2u) << points;
  }
}

// A shared counter incremented in a parallel loop without protection: a data race, and the
// lost update when every access is a scheduling point.
TEST(NativeOpenMp, UnprotectedCounterInParallelForIsFound) {
  const CliRun sync = check("omp_counter.c", "-- -fopenmp");
  ASSERT_EQ(sync.exit_code, 1) << sync.out << sync.err;
  EXPECT_EQ(first_bug_kind(sync), "data race");
  EXPECT_NE(first_bug_message(sync).find("counter"), std::string::npos) << first_bug_message(sync);
  const CliRun all = check("omp_counter.c", "--points=all -- -fopenmp");
  ASSERT_EQ(all.exit_code, 1) << all.out << all.err;
  EXPECT_EQ(first_bug_kind(all), "assertion failure");
  EXPECT_NE(first_bug_message(all).find("counter == N"), std::string::npos);
  // Every step is the program's: the team's creation, joins and accesses are at its lines, and
  // no OpenMP runtime code (a thread pool spinning on flags) runs under weft.
  for (const CliRun* r : {&sync, &all}) {
    for (const auto& step : r->result["bugs"][0]["interleaving"]) {
      ASSERT_TRUE(step.contains("file")) << step.dump();
      EXPECT_NE(step["file"].get<std::string>().find("omp_counter.c"), std::string::npos)
          << step.dump();
    }
  }
}

// critical and atomic make the same loop correct.
TEST(NativeOpenMp, CriticalOrAtomicFixesTheCounter) {
  for (const char* protect : {"-DPROTECT=1", "-DPROTECT=2"}) {
    for (const char* points : {"", "--points=all"}) {
      const CliRun r =
          check("omp_counter.c", std::string(points) + " -- -fopenmp " + std::string(protect));
      EXPECT_EQ(r.exit_code, 0) << protect << " " << points << r.out << r.err;
      EXPECT_EQ(stat(r, "executions"), stat(r, "complete")) << protect << " " << points;
    }
  }
}

// Without the barrier between two phases a thread reads its neighbour's slot too early; with it,
// nothing goes wrong. The barrier itself adds no choices (each thread posts one semaphore per
// other thread, and posts commute), so the correct program has one execution.
TEST(NativeOpenMp, MissingBarrierIsFoundAndTheBarrierFixesIt) {
  const CliRun missing = check("omp_barrier.c", "--points=all -- -fopenmp -DBARRIER=0");
  ASSERT_EQ(missing.exit_code, 1) << missing.out << missing.err;
  EXPECT_EQ(first_bug_kind(missing), "assertion failure");
  EXPECT_NE(first_bug_message(missing).find("slot[other] == other + 1"), std::string::npos);
  const CliRun racy = check("omp_barrier.c", "-- -fopenmp -DBARRIER=0");
  ASSERT_EQ(racy.exit_code, 1) << racy.out << racy.err;
  bool race_on_slot = false;
  for (const auto& bug : racy.result["bugs"])
    race_on_slot |= bug["kind"] == "data race" &&
                    bug["message"].get<std::string>().find("slot") != std::string::npos;
  EXPECT_TRUE(race_on_slot) << racy.out;
  for (const char* points : {"", "--points=all"}) {
    const CliRun fixed = check("omp_barrier.c", std::string(points) + " -- -fopenmp");
    EXPECT_EQ(fixed.exit_code, 0) << points << fixed.out << fixed.err;
    EXPECT_EQ(stat(fixed, "executions"), 1u) << points;
  }
}

// Each thread of the region takes the critical section once; creating and joining the team's
// threads commute with everything else, so the executions are the orders of the critical
// sections: 2! = 2 with the default team of two threads, 3! = 6 with OMP_NUM_THREADS=3.
TEST(NativeOpenMp, ExecutionsAreTheOrdersOfTheCriticalSections) {
  const CliRun two = check("omp_critical_count.c", "-- -fopenmp");
  ASSERT_EQ(two.exit_code, 0) << two.out << two.err;
  EXPECT_EQ(stat(two, "executions"), 2u);
  EXPECT_EQ(stat(two, "complete"), 2u);
  const CliRun three = shell("OMP_NUM_THREADS=3 " + std::string(WEFT_BIN) + " check " +
                             fixture("omp_critical_count.c") + " --json -q --replay-file " +
                             replay_file("omp_critical_count.c") + " -- -fopenmp");
  ASSERT_EQ(three.exit_code, 0) << three.out << three.err;
  EXPECT_EQ(stat(three, "executions"), 6u);
  EXPECT_EQ(stat(three, "complete"), 6u);
}

// Worksharing loops, each checked against what OpenMP promises (every iteration once, static
// schedules in the specification's layout, ordered regions in order): no bug, explored
// completely. Static schedules leave nothing to choose: 1 execution. A dynamic loop of 5
// iterations in chunks of 2 on two threads takes 5 turns at its counter's lock, 3 that get a
// chunk and then 1 per thread that finds none: 2^3 owners of the chunks times 2 orders of the
// last two turns = 16. Guided on 5 iterations gives chunks of 3, 1 and 1: also 16.
TEST(NativeOpenMp, LoopSchedulesHandOutEveryIterationOnce) {
  const std::uint64_t expected[] = {0, 1, 1, 16, 16};
  for (int part = 1; part <= 5; ++part) {
    const std::string flags = "-- -fopenmp -DPART=" + std::to_string(part);
    const CliRun r = check("omp_schedules.c", flags);
    ASSERT_EQ(r.exit_code, 0) << flags << r.out << r.err;
    EXPECT_EQ(stat(r, "traces"), stat(r, "complete")) << flags;
    if (part < 5) {
      EXPECT_EQ(stat(r, "executions"), expected[part]) << flags;
    }
    // The same program, run by itself, on the C library's threads.
    const std::string prog =
        build_fixture("omp_schedules.c", "-fopenmp -DPART=" + std::to_string(part));
    EXPECT_EQ(shell("OMP_NUM_THREADS=2 " + prog).exit_code, 0) << flags;
  }
}

// single, master, masked, locks, nestable locks, a named critical section, a nested region,
// single copyprivate and a region whose if clause is false: no bug. The choices are who runs
// each of the two single regions, and the order of the threads at the lock, the nestable lock
// and the critical section: 2^5 = 32 executions. Nothing else is a choice (barriers add none,
// the nested regions run alone). The program also runs by itself.
TEST(NativeOpenMp, SynchronisationConstructsBehaveAsOpenMpSays) {
  const CliRun r = check("omp_features.c", "-- -fopenmp");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(stat(r, "executions"), 32u);
  EXPECT_EQ(stat(r, "complete"), 32u);
  const std::string prog = build_fixture("omp_features.c", "-fopenmp");
  EXPECT_EQ(shell("OMP_NUM_THREADS=2 " + prog).exit_code, 0);
  EXPECT_EQ(shell("OMP_NUM_THREADS=4 " + build_fixture("omp_reduction.c", "-fopenmp")).exit_code,
            0);
  // LLVM's OpenMP runtime is not linked: weft's runtime defines its entry points.
  EXPECT_EQ(shell("readelf -d " + prog + " | grep -c libomp").out, "0\n");
}

// weft's OpenMP model comes in only with -fopenmp: a program built without it may define the
// omp_* routines itself.
TEST(NativeOpenMp, ProgramsWithTheirOwnOmpStubsLinkWithoutOpenMp) {
  const CliRun stubs = check("omp_stubs.c");
  EXPECT_EQ(stubs.exit_code, 0) << stubs.out << stubs.err;
  const CliRun openmp = check("omp_stubs.c", "-- -fopenmp");
  EXPECT_EQ(openmp.exit_code, 0) << openmp.out << openmp.err;
}

// Tasks are not modelled: one clear line and exit 2, under weft and in a plain run alike.
TEST(NativeOpenMp, TasksAreReportedAsNotModelled) {
  const CliRun r = weft_cli("check " + fixture("omp_task.c") + " -q -- -fopenmp");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err)
                .find("the program called __kmpc_omp_task_alloc (thread 0), which weft "
                      "does not model"),
            std::string::npos)
      << r.out << r.err;
  const CliRun plain = shell(build_fixture("omp_task.c", "-fopenmp"));
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_NE(plain.err.find("__kmpc_omp_task_alloc, which weft does not model"), std::string::npos)
      << plain.err;
  const CliRun gomp = shell(std::string(WEFT_CC) + " -fopenmp=libgomp -c " + fixture("omp_task.c"));
  EXPECT_EQ(gomp.exit_code, 2);
  EXPECT_NE(gomp.err.find("weft models only LLVM's OpenMP runtime"), std::string::npos) << gomp.err;
}

}  // namespace

// Readable reports (issue 17, item 8): memory in the program's terms, waits in the program's
// terms, a crash in a library by the library and the program's calling line, and several bugs
// of one execution under one interleaving.
namespace report_texts {

std::vector<std::string> bug_messages(const CliRun& r) {
  std::vector<std::string> out;
  for (const auto& b : r.result["bugs"]) out.push_back(b["message"].get<std::string>());
  return out;
}

bool some_message_has(const CliRun& r, const std::string& text) {
  for (const auto& m : bug_messages(r))
    if (m.find(text) != std::string::npos) return true;
  return false;
}

TEST(NativeReports, NameArrayElementsFieldsHeapBlocksAndLocals) {
  const CliRun r = check("report_names.c", "--all-bugs");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const auto messages = bug_messages(r);
  ASSERT_EQ(messages.size(), 4u) << r.out;  // each race once, whichever order it ran in
  EXPECT_TRUE(some_message_has(r, "data race on counts[3] (0x")) << r.out;
  EXPECT_TRUE(some_message_has(r, "data race on jobs.head (0x")) << r.out;
  EXPECT_TRUE(some_message_has(
      r, "data race on byte 4 of the 16-byte block allocated at report_names.c:27 by thread 0"))
      << r.out;
  EXPECT_TRUE(some_message_has(r, "data race on total (a local of main in thread 0, 0x")) << r.out;
}

TEST(NativeReports, TextReportShowsOneInterleavingPerExecutionWithBugsMarked) {
  const CliRun r = weft_cli("check " + fixture("report_names.c") + " -q --all-bugs --replay-file " +
                            replay_file("report_names.c"));
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("Interleaving of these 4 bugs (one execution"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("^^^ bug 1 (data race), bug 2 (data race)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Interleaving ("), std::string::npos) << r.out;  // no second copy
}

TEST(NativeReports, LostWakeUpIsDescribedInTheProgramsTerms) {
  const CliRun r = check("lost_signal.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "deadlock");
  const std::string m = first_bug_message(r);
  EXPECT_NE(m.find("thread 0.0 waits on condition variable ready_changed (with mutex lock) at "
                   "lost_signal.c:13; no thread will signal it"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("thread 0 waits to join thread 0.0 at lost_signal.c:24, which is blocked too"),
            std::string::npos)
      << m;
}

TEST(NativeReports, CrashInALibraryNamesTheLibraryAndTheCallingLine) {
  const CliRun r = check("crash_in_library.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "crash");
  const std::string m = first_bug_message(r);
  EXPECT_NE(m.find("accessing address 0x0 in "), std::string::npos) << m;
  EXPECT_NE(m.find("libc.so.6, called from crash_in_library.c:10"), std::string::npos) << m;
  EXPECT_EQ(m.find(" at ?"), std::string::npos) << m;
}

}  // namespace report_texts

TEST(NativeReports, StackOverflowIsNamed) {
  const CliRun r = check("stack_overflow.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "crash");
  const std::string m = first_bug_message(r);
  EXPECT_NE(m.find("the guard page below the stack of thread 0.0: its stack overflowed"),
            std::string::npos)
      << m;
}

// Weft's shared memory descriptor is closed on exec: the program's only copy is the one it
// closes once mapped, so the program sees no descriptor of weft's (a stray one also made the
// worker close descriptors range by range around it after every execution).
TEST(NativeProcessState, TheProgramSeesNoDescriptorOfWefts) {
  for (const std::string options : {"", "--fresh-process"}) {
    const CliRun r = check("no_weft_descriptors.c", options);
    EXPECT_EQ(r.exit_code, 0) << options << "\n" << r.out << r.err;
  }
}

// The worker closes the descriptors an execution opened only after an execution that ran code
// weft did not compile; every way of opening one without a call from the program's own code
// must count as such (descriptors_opened.c).
TEST(NativeProcessState, DescriptorsAnExecutionOpenedAreClosedHoweverItOpenedThem) {
  for (const std::string way : {"0", "1", "2"}) {
    const CliRun r = check("descriptors_opened.c", "-- -DOPEN_WITH=" + way);
    EXPECT_EQ(r.exit_code, 0) << way << "\n" << r.out << r.err;
    EXPECT_GE(stat(r, "executions"), 6u) << way << "\n" << r.out;
  }
}

TEST(NativeProcessState, UnrestoredChangesAreDetectedAndTheRunIsNotCalledComplete) {
  const CliRun worker = check("unrestored_state.c");
  EXPECT_EQ(worker.exit_code, 3) << worker.out;  // incomplete
  EXPECT_EQ(worker.result["complete"], false) << worker.out;
  ASSERT_TRUE(worker.result.contains("unrestored_state")) << worker.out;
  EXPECT_EQ(worker.result["unrestored_state"][0], "setpriority");
  EXPECT_NE(worker.result["incomplete_because"].get<std::string>().find("--fresh-process"),
            std::string::npos);
  // In a fresh process per execution nothing carries over: complete, no bug.
  const CliRun fresh = check("unrestored_state.c", "--fresh-process");
  EXPECT_EQ(fresh.exit_code, 0) << fresh.out;
  EXPECT_EQ(fresh.result["complete"], true) << fresh.out;
}

TEST(NativeProcessState, FilesOpenedBeforeMainAreReadFromTheStartInEveryExecution) {
  const CliRun r = check("premain_file_offset.c");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(stat(r, "executions"), 2u) << r.out;
}

TEST(NativeProcessState, DescriptorsOpenBeforeMainThatAnExecutionClosesArePutBack) {
  const CliRun r = check("premain_descriptor_closed.c");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(stat(r, "executions"), 2u) << r.out;
}

TEST(NativeProcessState, OutputLeftInStdioBuffersIsShown) {
  for (const char* mode : {"", "--fresh-process"}) {
    const CliRun r =
        weft_cli("check --show-output " + std::string(mode) + " " + fixture("unflushed_output.c") +
                 " --replay-file " + replay_file("unflushed_output.c"));
    EXPECT_EQ(r.exit_code, 0) << mode << r.out << r.err;
    EXPECT_NE(r.out.find("from the thread; unflushed at the end"), std::string::npos)
        << mode << r.out;
  }
}

// A thread that waits for a signal no thread sends (pbzip2's signal-handling thread) waits for
// ever: nothing if the process ends without it, a deadlock if main joins it. It used to stop the
// run as unsupported; before that it hung until the execution time limit.
TEST(NativeRobustness, WaitForASignalNoThreadSendsLastsForEver) {
  const CliRun ends = check("waits_for_signal.c");
  EXPECT_EQ(ends.exit_code, 0) << ends.out;
  EXPECT_EQ(ends.result["complete"], true) << ends.out;
  const CliRun joined = check("waits_for_signal.c", "-- -DJOIN_IT");
  ASSERT_EQ(joined.exit_code, 1) << joined.out;
  EXPECT_EQ(first_bug_kind(joined), "deadlock");
  EXPECT_NE(first_bug_message(joined).find("thread 0.0 waits for a signal at waits_for_signal.c:"),
            std::string::npos)
      << first_bug_message(joined);
}

TEST(NativeRobustness, SignalSentToASigwaitThreadIsTaken) {
  const CliRun ok = check("signal_thread.c");
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_EQ(ok.result["complete"], true) << ok.out;
  const CliRun bug = check("signal_thread.c", "-- -DFORGET_TO_FINISH");
  ASSERT_EQ(bug.exit_code, 1) << bug.out;
  EXPECT_NE(first_bug_message(bug).find("done"), std::string::npos) << first_bug_message(bug);
}
