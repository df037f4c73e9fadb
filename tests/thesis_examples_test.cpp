// The worked examples of thesis §2.4 (Examples 4–6, Fig. 2.6 and 2.7).
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace weft {
namespace {

// Fig. 2.6: thread 1: a = X; Y = 1;   thread 2: b = X; Y = 2;
void fig_2_6() {
  shared<int> x{0}, y{0};
  thread t1([&] {
    int a = x;
    (void)a;
    y = 1;
  });
  thread t2([&] {
    int b = x;
    (void)b;
    y = 2;
  });
  t1.join();
  t2.join();
}

// Schedules that make the first execution the one each example starts from. Threads: 0 is the
// test's main thread, 0.0 is thread 1 and 0.1 thread 2 of the figure.
// Example 4: t1: read(X), t2: read(X), t1: write(Y), t2: write(Y).
const char* kExample4First = "w1:0*2,0.0,0.1,0.0,0.1";
// Example 5: both operations of thread 1 first, then thread 2's.
const char* kExample5First = "w1:0*2,0.0*2,0.1*2";

Options dpor(bool sleep_sets, const char* first) {
  Options o = testing::with(StrategyKind::kDporCommutingReads, sleep_sets);
  o.start_from = first;
  return o;
}

TEST(ThesisExample4, DporTakesTwoExecutions) {
  const Result r = explore(dpor(false, kExample4First), fig_2_6);
  EXPECT_EQ(r.verdict, Verdict::kNoBugFound);
  EXPECT_EQ(r.stats.executions, 2u);
  EXPECT_EQ(r.stats.traces, 2u);  // the two orders of the writes to Y
}

TEST(ThesisExample5, DporTakesThreeExecutionsFromTheOtherStart) {
  const Result r = explore(dpor(false, kExample5First), fig_2_6);
  EXPECT_EQ(r.stats.executions, 3u);
  EXPECT_EQ(r.stats.complete, 3u);
  EXPECT_EQ(r.stats.traces, 2u);  // one trace covered twice
}

TEST(ThesisExample5, DporTakesTwoOrThreeExecutionsWithTheDefaultStart) {
  const Result r = explore(dpor(false, ""), fig_2_6);
  EXPECT_GE(r.stats.executions, 2u);
  EXPECT_LE(r.stats.executions, 3u);
}

TEST(ThesisExample6, SleepSetsLeaveExactlyTwoCompleteExecutions) {
  for (const char* first : {kExample4First, kExample5First}) {
    const Result r = explore(dpor(true, first), fig_2_6);
    EXPECT_EQ(r.stats.complete, 2u) << first;
    EXPECT_EQ(r.stats.traces, 2u) << first;
  }
}

TEST(ThesisExample6, OptimalDporExploresEachTraceOnce) {
  for (const char* first : {kExample4First, kExample5First, ""}) {
    Options o = testing::with(StrategyKind::kOptimalDpor);
    o.start_from = first;
    const Result r = explore(o, fig_2_6);
    EXPECT_EQ(r.stats.executions, 2u) << first;
    EXPECT_EQ(r.stats.sleep_blocked, 0u);
  }
}

TEST(ThesisExample4, FlanaganGodefroidReadsConflictSeesMoreTraces) {
  // Without commuting reads the two reads of X are dependent too: 4 traces (2 x 2).
  Options o = testing::with(StrategyKind::kDpor, true);
  const Result r = explore(o, fig_2_6);
  EXPECT_EQ(r.stats.traces, 4u);
  EXPECT_EQ(r.stats.complete, 4u);
}

}  // namespace
}  // namespace weft
