// Execution counts against known numbers of Mazurkiewicz traces.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "test_support.hpp"

namespace weft {
namespace {

std::uint64_t factorial(unsigned n) { return n <= 1 ? 1 : n * factorial(n - 1); }

// Thesis Fig. 3.1 generalised: n pairs of threads, in each pair one reads and one writes its own
// variable. 2^n Mazurkiewicz traces.
std::function<void()> pairs(int n) {
  return [n] {
    std::vector<std::unique_ptr<shared<int>>> vars;
    for (int i = 0; i < n; ++i) vars.push_back(std::make_unique<shared<int>>(0));
    std::vector<thread> threads;
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([&, i] { int v = *vars[i]; (void)v; });
      threads.emplace_back([&, i] { *vars[i] = i + 1; });
    }
    for (auto& t : threads) t.join();
  };
}

// n threads each increment a mutex-protected counter once: n! orders of the critical sections.
std::function<void()> locked_counter(int n) {
  return [n] {
    mutex m;
    shared<int> counter{0};
    std::vector<thread> threads;
    for (int i = 0; i < n; ++i)
      threads.emplace_back([&] {
        std::lock_guard<mutex> g(m);
        counter = counter + 1;
      });
    for (auto& t : threads) t.join();
    WEFT_ASSERT(counter == n);
  };
}

// n readers and one writer of one variable: each read is before or after the write, 2^n traces.
std::function<void()> readers_writer(int n) {
  return [n] {
    shared<int> x{0};
    std::vector<thread> threads;
    for (int i = 0; i < n; ++i) threads.emplace_back([&] { int v = x; (void)v; });
    threads.emplace_back([&] { x = 1; });
    for (auto& t : threads) t.join();
  };
}

class PairsTest : public ::testing::TestWithParam<int> {};
TEST_P(PairsTest, OptimalDporExploresTwoToTheN) {
  const int n = GetParam();
  const Result r = explore(testing::with(StrategyKind::kOptimalDpor), pairs(n));
  EXPECT_EQ(r.verdict, Verdict::kNoBugFound);
  EXPECT_EQ(r.stats.complete, 1u << n);
  EXPECT_EQ(r.stats.executions, 1u << n);
  EXPECT_EQ(r.stats.traces, 1u << n);
  EXPECT_EQ(r.stats.sleep_blocked, 0u);
}
INSTANTIATE_TEST_SUITE_P(N1to8, PairsTest, ::testing::Range(1, 9));

class LockedCounterTest : public ::testing::TestWithParam<int> {};
TEST_P(LockedCounterTest, OptimalDporExploresNFactorial) {
  const int n = GetParam();
  const Result r = explore(testing::with(StrategyKind::kOptimalDpor), locked_counter(n));
  EXPECT_EQ(r.verdict, Verdict::kNoBugFound);
  EXPECT_EQ(r.stats.complete, factorial(n));
  EXPECT_EQ(r.stats.executions, factorial(n));
  EXPECT_EQ(r.stats.traces, factorial(n));
}
INSTANTIATE_TEST_SUITE_P(N1to6, LockedCounterTest, ::testing::Range(1, 7));

class ReadersWriterTest : public ::testing::TestWithParam<int> {};
TEST_P(ReadersWriterTest, OptimalDporExploresTwoToTheN) {
  const int n = GetParam();
  const Result r = explore(testing::with(StrategyKind::kOptimalDpor), readers_writer(n));
  EXPECT_EQ(r.stats.complete, 1u << n);
  EXPECT_EQ(r.stats.executions, 1u << n);
  EXPECT_EQ(r.stats.traces, 1u << n);
}
INSTANTIATE_TEST_SUITE_P(N1to8, ReadersWriterTest, ::testing::Range(1, 9));

TEST(Counts, DfsEnumeratesTheSameTracesAsOptimal) {
  for (int n = 1; n <= 3; ++n) {
    const Result dfs = explore(testing::with(StrategyKind::kDfs, false), locked_counter(n));
    const Result opt = explore(testing::with(StrategyKind::kOptimalDpor), locked_counter(n));
    EXPECT_EQ(dfs.stats.traces, opt.stats.complete) << n;
    EXPECT_GE(dfs.stats.executions, opt.stats.executions) << n;
  }
}

TEST(Counts, DfsWithSleepSetsHasOneCompleteExecutionPerTrace) {
  for (int n = 1; n <= 4; ++n) {
    const Result r = explore(testing::with(StrategyKind::kDfs, true), readers_writer(n));
    EXPECT_EQ(r.stats.complete, r.stats.traces) << n;
    EXPECT_EQ(r.stats.traces, 1u << n) << n;
  }
}

TEST(Counts, EveryExhaustiveStrategyCoversEveryTrace) {
  for (auto kind : testing::kExhaustive) {
    const Result r = explore(testing::with(kind), pairs(3));
    // Reads-conflict DPOR distinguishes nothing more here (one reader per variable).
    EXPECT_EQ(r.stats.traces, 8u) << explorer::strategy_name(kind);
  }
}

}  // namespace
}  // namespace weft
