// The contextual unfolding strategy (thesis ch. 5, Fig. 5.5) on the thesis' worked examples,
// with their test counts (the differential test against DFS: unfolding_differential_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <vector>

#include "test_support.hpp"
#include "weft/weft.hpp"

namespace weft::testing {
namespace {

// Thesis Fig. 3.1 and Example 9: n pairs of threads, the first of each pair reads a variable the
// second writes. 2^n Mazurkiewicz traces; two tests cover the unfolding, reads first and writes
// first, for every n. (The threads are detached, as the figure's program joins none.)
// The threads share the variables' ownership, since they outlive the function that starts them.
void pairs(int n) {
  for (int i = 0; i < n; ++i) {
    auto v = std::make_shared<shared<int>>(0);
    thread([v] {
      const int a = *v;
      (void)a;
    }).detach();
    thread([v] { *v = 1; }).detach();
  }
}

class UnfoldingPairs : public ::testing::TestWithParam<int> {};

TEST_P(UnfoldingPairs, ThesisExample9_TwoTestsForEveryN) {
  const int n = GetParam();
  for (StrategyKind kind : kUnfoldings) {
    const Result r = explore(with(kind), [n] { pairs(n); });
    EXPECT_EQ(r.stats.executions, 2u) << explorer::strategy_name(kind) << ", n = " << n;
    EXPECT_TRUE(r.bugs.empty());
    EXPECT_EQ(r.incomplete_code, Incompleteness::kLocalStatesOnly) << r.summary();
  }
  if (n <= 8) {  // against the traces optimal DPOR enumerates
    Options o;
    o.stop_on_first_bug = false;
    EXPECT_EQ(explore(o, [n] { pairs(n); }).stats.complete, 1u << n);
  }
}

INSTANTIATE_TEST_SUITE_P(N1to20, UnfoldingPairs, ::testing::Range(1, 21));

// Thesis Example 10 (Fig. 3.12) without its input: thread 1 reads X and fails if it is positive;
// thread 2 reads X and, if it was 0, writes it. The unfolding has 4 events (two reads of the
// initial X, the write, thread 1's read of the written X): 2 tests cover it, the second reaching
// the failure.
TEST(UnfoldingSearch, ThesisExample10_ReachesTheErrorInTwoTests) {
  const Result r = explore(contextual(), [] {
    shared<int> x(0);
    thread t1([&] {
      if (x > 0) detail::scheduler("test").fail(Outcome::kAssertionFailure, "error()");
    });
    thread t2([&] {
      if (x == 0) x = 1;
    });
    t1.join();
    t2.join();
  });
  EXPECT_EQ(r.stats.executions, 2u);
  ASSERT_EQ(r.bugs.size(), 1u);
  EXPECT_EQ(r.bugs[0].message, "error()");
}

// Thesis Example 10 with its input (Fig. 3.12, §3.4): thread 2 writes an input to X if it read
// 0; thread 1 fails if it reads X positive. Three tests, as in the example: the first runs
// thread 1 first, the second thread 2 first (its write, read by thread 1 with the branch on the
// input as an event of thread 1), the third takes that branch's other side, with the input the
// solver gives for "input > 0" (§3.5), and reaches the error. Both unfoldings.
TEST(UnfoldingSearch, ThesisExample10WithItsInputReachesTheErrorInThreeTests) {
  for (StrategyKind kind : kUnfoldings) {
    const Result r = explore(with(kind), [] {
      shared<value<int>> x{0};
      thread t1([&] {
        value<int> a = x.load();
        if (a > 0) detail::scheduler("test").fail(Outcome::kAssertionFailure, "error()");
      });
      thread t2([&] {
        value<int> b = x.load();
        if (b == 0) x = input<int>("input");
      });
      t1.join();
      t2.join();
    });
    EXPECT_EQ(r.stats.executions, 3u) << explorer::strategy_name(kind) << ": " << r.summary();
    ASSERT_EQ(r.bugs.size(), 1u) << explorer::strategy_name(kind);
    EXPECT_EQ(r.bugs[0].message, "error()");
    ASSERT_EQ(r.bugs[0].inputs.size(), 1u);
    EXPECT_GT(static_cast<std::int32_t>(r.bugs[0].inputs[0].value), 0);
    EXPECT_EQ(r.stats.inputs.flips, 1u);
  }
}

// Thesis Fig. 5.1 (§5.1): threads 1 and 3 read X, thread 2 writes 5 to it. The place-replicated
// unfolding needs four tests, one per set of reads before the write, as a test has one write
// event ("The unfolding based testing algorithm needs four test executions"). Two tests can
// cover the contextual one (both reads before the write, both after); weft's take two or three,
// as a test adds to its target only the targets that can fire in the same marking, and which
// those are depends on the first, free, test. The threads are detached: joins would add local
// states of main.
TEST(UnfoldingSearch, ThesisFigure5_1_FourTestsWithPlaceReplicationTwoContextual) {
  const auto program = [] {
    auto x = std::make_shared<shared<int>>(0);
    thread([x] { (void)static_cast<int>(*x); }).detach();
    thread([x] { *x = 5; }).detach();
    thread([x] { (void)static_cast<int>(*x); }).detach();
  };
  const Result replicated = explore(place_unfolding(), program);
  EXPECT_EQ(replicated.stats.executions, 4u) << replicated.summary();
  EXPECT_EQ(replicated.stats.unfolding->restarts, 0u);  // the first test showed every thread
  const Result contextual_result = explore(contextual(), program);
  EXPECT_LE(contextual_result.stats.executions, 3u) << contextual_result.summary();
}

// A lock-protected counter incremented by three threads: the lock events are the thesis' (free
// and held conditions, Fig. 3.4); every order of the critical sections is a different local state
// for the threads after them, so the unfolding needs a test per order (3! = 6), as many as traces.
TEST(UnfoldingSearch, LockOrdersAreCoveredOnce) {
  int last = 0;
  std::set<int> seen;
  const Result r = explore(contextual(), [&] {
    shared<int> counter(0);
    mutex m;
    std::vector<thread> ts;
    for (int i = 0; i < 3; ++i)
      ts.emplace_back([&, i] {
        m.lock();
        counter = counter * 10 + i + 1;
        m.unlock();
      });
    for (auto& t : ts) t.join();
    last = counter;
    seen.insert(last);
  });
  EXPECT_EQ(seen, (std::set<int>{123, 132, 213, 231, 312, 321}));
  EXPECT_EQ(r.stats.executions, 6u);
  EXPECT_EQ(r.incomplete_code, Incompleteness::kLocalStatesOnly);
}

// A thread only some tests create. Place replication gives the threads the first test shows a
// copy of each variable (thesis §3.7 fixes the threads); the first test runs main until it
// blocks, so it reads x before the writer runs and creates no second thread. The test that
// creates it makes the exploration start over, once, with copies for it too; every local state
// is still reached (the values main and the second thread read, as DFS finds them).
TEST(UnfoldingSearch, PlaceReplicationStartsOverForAThreadTheFirstTestDidNotShow) {
  const auto program = [](std::set<std::pair<int, int>>& seen) {
    return [&seen] {
      shared<int> x(0), y(0);
      thread writer([&] { x = 1; });
      const int saw = x;
      int second_saw = -1;
      if (saw == 1) {
        thread second([&] {
          y = 2;
          second_saw = x;
        });
        second.join();
      }
      writer.join();
      seen.insert({saw, second_saw});
    };
  };
  std::set<std::pair<int, int>> by_unfolding, by_dfs;
  const Result r = explore(place_unfolding(), program(by_unfolding));
  explore(with(StrategyKind::kDfs), program(by_dfs));
  EXPECT_EQ(by_unfolding, by_dfs);
  EXPECT_EQ(by_dfs, (std::set<std::pair<int, int>>{{0, -1}, {1, 1}}));
  ASSERT_TRUE(r.stats.unfolding.has_value());
  EXPECT_EQ(r.stats.unfolding->restarts, 1u) << r.summary();
  EXPECT_EQ(r.incomplete_code, Incompleteness::kLocalStatesOnly) << r.summary();
}

// Dining philosophers as the thesis' Dining benchmark has them (§8.2; bench/thesis/dining.c):
// each eats twice, taking its left fork, then its right. Every local state is covered before
// any test runs into the deadlock (the tests that would are not needed for a new local state);
// the deadlock search of thesis §6.3 finds it in the unfolding and a test runs into it.
void dining(int n) {
  std::vector<std::unique_ptr<mutex>> forks;
  for (int i = 0; i < n; ++i) forks.push_back(std::make_unique<mutex>());
  std::vector<thread> philosophers;
  for (int i = 0; i < n; ++i)
    philosophers.emplace_back([&, i] {
      for (int meal = 0; meal < 2; ++meal) {
        forks[i]->lock();
        forks[(i + n - 1) % n]->lock();
        forks[(i + n - 1) % n]->unlock();
        forks[i]->unlock();
      }
    });
  for (auto& p : philosophers) p.join();
}

std::size_t deadlocks(const Result& r) {
  return static_cast<std::size_t>(std::count_if(
      r.bugs.begin(), r.bugs.end(), [](const Bug& b) { return b.kind == Outcome::kDeadlock; }));
}

TEST(UnfoldingSearch, ThesisSection6_3_FindsTheDeadlockNoTestRanInto) {
  const int n = 4;  // the thesis' Dining 1
  const Result plain = explore(contextual(), [] { dining(n); });
  EXPECT_EQ(deadlocks(plain), 0u) << plain.summary();
  Options o = contextual();
  o.search_deadlocks = true;
  const Result searched = explore(o, [] { dining(n); });
  EXPECT_EQ(deadlocks(searched), 1u) << searched.summary();
  ASSERT_TRUE(searched.stats.unfolding.has_value());
  EXPECT_GE(searched.stats.unfolding->deadlock_candidates, 1u);
  EXPECT_EQ(searched.stats.executions,
            plain.stats.executions + searched.stats.unfolding->deadlock_candidates);
  // The report replays: the schedule runs into the same deadlock.
  for (const Bug& b : searched.bugs) {
    const Result again = replay(b.schedule, [] { dining(n); });
    ASSERT_EQ(again.bugs.size(), 1u);
    EXPECT_EQ(again.bugs[0].kind, Outcome::kDeadlock);
  }
}

// A deadlock only an input leads to (§3.5 with §6.3): thread 1 takes m2 inside m1 only for an
// input above 5, thread 2 takes m1 inside m2. The deadlock's configuration holds the branch
// event, so the test the search runs into it solves for the input.
TEST(UnfoldingSearch, ADeadlockThatNeedsAnInputIsRunIntoWithIt) {
  for (StrategyKind kind : kUnfoldings) {
    Options o = with(kind);
    o.search_deadlocks = true;
    const Result r = explore(o, [] {
      mutex m1, m2;
      thread t1([&] {
        value<int> v = input<int>("v");
        m1.lock();
        if (v > 5) {
          m2.lock();
          m2.unlock();
        }
        m1.unlock();
      });
      thread t2([&] {
        m2.lock();
        m1.lock();
        m1.unlock();
        m2.unlock();
      });
      t1.join();
      t2.join();
    });
    const auto found = std::find_if(r.bugs.begin(), r.bugs.end(),
                                    [](const Bug& b) { return b.kind == Outcome::kDeadlock; });
    ASSERT_NE(found, r.bugs.end()) << explorer::strategy_name(kind) << ": " << r.summary();
    ASSERT_EQ(found->inputs.size(), 1u);
    EXPECT_GT(static_cast<std::int32_t>(found->inputs[0].value), 5);
  }
}

}  // namespace
}  // namespace weft::testing
