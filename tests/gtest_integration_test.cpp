// weft/gtest.hpp: WEFT_TEST passes on a correct body, and a bug or an incomplete exploration
// turns into the GoogleTest failure a user would see.
#include <gtest/gtest-spi.h>

#include "weft/gtest.hpp"

namespace {

WEFT_TEST(WeftTest, PassesWhenEveryInterleavingIsCorrect) {
  weft::mutex m;
  weft::shared<int> n{0};
  weft::thread t([&] {
    std::lock_guard<weft::mutex> g(m);
    n = n + 1;
  });
  {
    std::lock_guard<weft::mutex> g(m);
    n = n + 1;
  }
  t.join();
  WEFT_ASSERT(n == 2);
}

// The body of a test with a lost update: both threads read 0 in some interleaving.
void lost_update() {
  weft::shared<int> n{0};
  weft::thread t([&] { n = n + 1; });
  n = n + 1;
  t.join();
  WEFT_ASSERT(n == 2);
}

TEST(WeftTest, ABugFailsTheTestWithTheInterleavingAndTheScheduleToReplay) {
  // The failure's text is the bug's report: the assertion, then the interleaving.
  EXPECT_NONFATAL_FAILURE(weft::testing::expect_no_bug({}, &lost_update), "n == 2");
  EXPECT_NONFATAL_FAILURE(weft::testing::expect_no_bug({}, &lost_update), "interleaving (7 steps)");
  EXPECT_NONFATAL_FAILURE(weft::testing::expect_no_bug({}, &lost_update), "weft::replay");
}

void two_increments() {
  weft::shared<int> n{0};
  weft::thread t([&] { n = n + 1; });
  n = n + 2;
  t.join();
}

TEST(WeftTest, AnIncompleteExplorationFailsWhenAskedTo) {
  weft::Options bounded;
  bounded.max_executions = 1;
  EXPECT_NONFATAL_FAILURE(weft::testing::expect_no_bug(bounded, &two_increments, true),
                          "the exploration is incomplete");
}

TEST(WeftTest, AnIncompleteExplorationIsSkippedByDefault) {
  weft::Options bounded;
  bounded.max_executions = 1;
  // The skip is caught here, so that this test itself still passes or fails.
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter catch_results(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    weft::testing::expect_no_bug(bounded, &two_increments);
  }
  ASSERT_EQ(results.size(), 1);
  EXPECT_TRUE(results.GetTestPartResult(0).skipped());
  EXPECT_NE(std::string(results.GetTestPartResult(0).message()).find("incomplete"),
            std::string::npos);
}

// Options as an expression with commas, here a lambda: the DFS oracle must pass too.
WEFT_TEST_WITH(WeftTest, TakesOptions, [] {
  weft::Options dfs;
  dfs.strategy = weft::StrategyKind::kDfs;
  dfs.max_executions = 100, dfs.count_traces = false;
  return dfs;
}()) {
  two_increments();
}

}  // namespace
