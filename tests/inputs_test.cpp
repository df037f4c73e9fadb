// Inputs explored together with interleavings (dynamic symbolic execution with DPOR and sleep
// sets, thesis §2.2–2.4), through the in-process API's weft::input and weft::value.
#include <gtest/gtest.h>

#include <cstdint>

#include "test_support.hpp"

namespace weft {
namespace {

using testing::with;

constexpr StrategyKind kTreeSearches[] = {StrategyKind::kDfs, StrategyKind::kDpor,
                                          StrategyKind::kDporCommutingReads,
                                          StrategyKind::kOptimalDpor};

// Thesis Fig. 2.1: the loop reads an input twice; error() is reached when x + 5 == i.
void fig_2_1() {
  value<int> i = 0;
  while ((i < 2).concrete()) {  // the loop condition does not depend on inputs
    value<int> x = input<int>("x");
    x = x + 5;
    if (x == i) WEFT_ASSERT(!"error() of thesis Fig. 2.1");
    i = i + 1;
  }
}

// Example 1: the first test (inputs 0, 0) takes both false branches; negating the last
// constraint gives the second test, which reaches the error.
TEST(ThesisFigure2_1, TheSecondTestReachesTheError) {
  Options o = with(StrategyKind::kDfs);
  o.stop_on_first_bug = true;
  const Result r = explore(o, fig_2_1);
  ASSERT_EQ(r.verdict, Verdict::kBugFound);
  EXPECT_EQ(r.stats.executions, 2u);
  ASSERT_EQ(r.bugs[0].inputs.size(), 2u);
  EXPECT_EQ(static_cast<std::int32_t>(r.bugs[0].inputs[1].value) + 5, 1);
  EXPECT_NE(r.bugs[0].report.find("x = -4 (0xfffffffc)"), std::string::npos) << r.bugs[0].report;
}

// Every path of the tree (Fig. 2.2): F F, F T, T; both errors are found, and a replay of the
// reported test reproduces its bug.
TEST(ThesisFigure2_1, EveryPathOnceAndTheBugReplays) {
  for (StrategyKind kind : kTreeSearches) {
    const Result r = explore(with(kind), fig_2_1);
    EXPECT_EQ(r.stats.executions, 3u) << explorer::strategy_name(kind);
    EXPECT_EQ(r.bugs.size(), 1u);  // one assertion, one message
    ASSERT_FALSE(r.bugs.empty());
    const Result again = replay(r.bugs[0].schedule, fig_2_1);
    ASSERT_EQ(again.verdict, Verdict::kBugFound) << r.bugs[0].schedule;
    EXPECT_EQ(again.bugs[0].message, r.bugs[0].message);
  }
}

// Thesis Fig. 2.3: x > y, x * y == 1452, x / 2 == 5: with 32-bit integers the product overflows
// and the error is reachable (Example 2). The tree has four leaves, each one test.
void fig_2_3() {
  value<int> x = input<int>("x");
  value<int> y = input<int>("y");
  if (x > y)
    if (x * y == 1452)
      if (x / 2 == 5) WEFT_ASSERT(!"error() of thesis Fig. 2.3");
}

TEST(ThesisFigure2_3, FourPathsAndTheOverflowingError) {
  const Result r = explore(with(StrategyKind::kDfs), fig_2_3);
  ASSERT_EQ(r.verdict, Verdict::kBugFound);
  EXPECT_EQ(r.stats.executions, 4u);
  EXPECT_EQ(r.stats.inputs.infeasible, 0u);
  const auto x = static_cast<std::int32_t>(r.bugs[0].inputs[0].value);
  const auto y = static_cast<std::int32_t>(r.bugs[0].inputs[1].value);
  EXPECT_EQ(x / 2, 5);
  EXPECT_GT(x, y);
  EXPECT_EQ(
      static_cast<std::int32_t>(static_cast<std::uint32_t>(x) * static_cast<std::uint32_t>(y)),
      1452);
}

// A side no input can take is never executed: the solver refutes it and no test runs for it.
TEST(InfeasibleBranch, IsNeverExecuted) {
  const Result r = explore(with(StrategyKind::kDfs), [] {
    value<int> x = input<int>("x");
    if (x > 10)
      if (x < 5) WEFT_ASSERT(!"unreachable");
  });
  EXPECT_EQ(r.verdict, Verdict::kNoBugFound) << r.summary();
  EXPECT_EQ(r.stats.executions, 2u);
  EXPECT_EQ(r.stats.inputs.infeasible, 1u);
}

// Thesis Fig. 2.4: thread 1 writes X when its input is 4, else reads X; thread 2 reads X and
// then branches on its own input. Eight paths when the two reads are ordered (plain DPOR, reads
// dependent, as the figure's tree); with reads commuting the two read orders are one trace, six.
void fig_2_4() {
  shared<value<int>> X{0};
  thread t1([&] {
    value<int> i1 = input<int>("i1");
    i1 = i1 + 1;
    if (i1 == 5)
      X = value<int>(5);
    else
      (void)X.load();
  });
  thread t2([&] {
    value<int> i2 = input<int>("i2");
    value<int> b = X.load();
    if (i2 > 10) b = 0;
    (void)b;
  });
  t1.join();
  t2.join();
}

TEST(ThesisFigure2_4, OneExecutionPerPathAndTrace) {
  const Result reads_ordered = explore(with(StrategyKind::kDpor), fig_2_4);
  EXPECT_EQ(reads_ordered.verdict, Verdict::kNoBugFound) << reads_ordered.summary();
  EXPECT_EQ(reads_ordered.stats.complete, 8u) << reads_ordered.summary();
  for (StrategyKind kind :
       {StrategyKind::kDfs, StrategyKind::kDporCommutingReads, StrategyKind::kOptimalDpor}) {
    const Result r = explore(with(kind), fig_2_4);
    EXPECT_EQ(r.verdict, Verdict::kNoBugFound) << r.summary();
    // Sleep sets: each (path, trace) pair is one complete execution.
    EXPECT_EQ(r.stats.complete, 6u) << explorer::strategy_name(kind) << ": " << r.summary();
  }
}

// A bug that needs a 32-bit magic value and one interleaving: the reader must run between the
// writer's two writes, and only with the magic input does the writer make the state bad.
void magic_and_interleaving() {
  shared<value<std::uint32_t>> state{0};
  thread writer([&] {
    value<std::uint32_t> key = input<std::uint32_t>("key");
    if (key == 0xC0FFEE42u) {
      state = value<std::uint32_t>(1);
      state = value<std::uint32_t>(2);
    }
  });
  thread reader([&] { WEFT_ASSERT(state.load() != 1u); });
  writer.join();
  reader.join();
}

TEST(MagicValue, FoundWithItsInterleaving) {
  for (StrategyKind kind : kTreeSearches) {
    Options o = with(kind);
    o.stop_on_first_bug = true;
    const Result r = explore(o, magic_and_interleaving);
    ASSERT_EQ(r.verdict, Verdict::kBugFound) << explorer::strategy_name(kind);
    ASSERT_EQ(r.bugs[0].inputs.size(), 1u);
    EXPECT_EQ(r.bugs[0].inputs[0].value, 0xC0FFEE42u);
    EXPECT_NE(r.bugs[0].report.find("0xc0ffee42"), std::string::npos);
    const Result again = replay(r.bugs[0].schedule, magic_and_interleaving);
    EXPECT_EQ(again.verdict, Verdict::kBugFound) << r.bugs[0].schedule;
  }
}

// Random search takes the other side of a random branch of the last execution half the time
// (the solver's values), so it finds the magic value too, and then the interleaving.
TEST(MagicValue, FoundByRandomSearch) {
  Options o = with(StrategyKind::kRandom);
  o.stop_on_first_bug = true;
  o.random_executions = 200;
  const Result r = explore(o, magic_and_interleaving);
  ASSERT_EQ(r.verdict, Verdict::kBugFound) << r.summary();
  EXPECT_EQ(r.bugs[0].inputs[0].value, 0xC0FFEE42u);
  EXPECT_GT(r.stats.inputs.flips, 0u);
}

// A correct program with input branches in two threads: every path explored, exact count.
TEST(CorrectProgram, NoBugWithEveryPathExplored) {
  auto test = [] {
    shared<value<int>> total{0};
    mutex m;
    auto work = [&](const char* name) {
      value<int> v = input<int>(name);
      value<int> add = 0;
      if (v > 100) add = 1;
      if (v < -100) add = 2;
      m.lock();
      total = total.load() + add;
      m.unlock();
    };
    thread a([&] { work("a"); });
    thread b([&] { work("b"); });
    a.join();
    b.join();
    WEFT_ASSERT(total.load() <= 4);
  };
  for (StrategyKind kind : kTreeSearches) {
    const Result r = explore(with(kind), test);
    EXPECT_EQ(r.verdict, Verdict::kNoBugFound) << r.summary();
    // Three paths per thread (v > 100; v < -100; neither) and two lock orders.
    EXPECT_EQ(r.stats.complete, 3u * 3u * 2u) << explorer::strategy_name(kind) << r.summary();
    EXPECT_GT(r.stats.inputs.infeasible, 0u);  // v > 100 && v < -100, in each subtree
  }
}

// Assumptions restrict the inputs: executions where one fails are discarded, and the side where
// it holds is found even when the first test fails it.
TEST(Assume, OnlyExecutionsWhereItHoldsMatter) {
  const Result r = explore(with(StrategyKind::kDfs), [] {
    value<int> x = input<int>("x");
    assume(x > 100);
    WEFT_ASSERT(x != 150);
  });
  ASSERT_EQ(r.verdict, Verdict::kBugFound);
  EXPECT_EQ(r.bugs[0].inputs[0].value, 150u);
}

// A value concretised with a constraint (a symbolic divisor) keeps the explored paths sound, but
// the values it did not have are not explored: the verdict says so.
TEST(Concretisation, OfADivisorMakesTheVerdictIncomplete) {
  const Result r = explore(with(StrategyKind::kDfs), [] {
    value<int> d = input<int>("d");
    assume(d != 0);
    value<int> q = value<int>(100) / d;
    WEFT_ASSERT(q != 7);
  });
  // 100 / d == 7 needs d in {13, 14}; d is pinned to its first value once divided by.
  EXPECT_EQ(r.stats.executions, 2u);
  EXPECT_EQ(r.stats.inputs.concretisations, 1u) << r.summary();
  EXPECT_EQ(r.verdict, Verdict::kIncomplete);
  EXPECT_NE(r.incomplete_reason.find("1 value computed from inputs was made concrete"),
            std::string::npos)
      << r.incomplete_reason;
}

// A loop that reads inputs until one is not 0 makes no visible operation: inputs count against
// the step bound, so it stops there instead of spinning on the first value (0) for ever. Each
// loop length below the bound is a path, twice (the branch on the value read), and the path
// that reads only zeros ends at the bound: 2 * 5 + 1 executions with a bound of 5.
TEST(InputLoop, IsCutAtTheStepBoundAndEveryShorterPathIsExplored) {
  Options o = with(StrategyKind::kDfs);
  o.max_steps_per_thread = 5;
  o.stop_on_first_bug = false;
  const Result r = explore(o, [] {
    value<int> x = input<int>("x");
    while (x == 0) x = input<int>("x");
    WEFT_ASSERT(x != 7);
  });
  EXPECT_EQ(r.stats.executions, 11u) << r.summary();
  EXPECT_EQ(r.stats.bound_reached, 1u) << r.summary();
  ASSERT_EQ(r.bugs.size(), 1u);
  EXPECT_EQ(r.bugs[0].inputs.back().value, 7u);
  EXPECT_EQ(r.verdict, Verdict::kBugFound);
}

}  // namespace
}  // namespace weft
