// The progress line and the digit grouping of reports (report.hpp).
#include "weft/driver/report.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using weft::driver::format_progress;
using weft::driver::group_digits;

TEST(Report, GroupsDigitsInThousands) {
  EXPECT_EQ(group_digits(0), "0");
  EXPECT_EQ(group_digits(999), "999");
  EXPECT_EQ(group_digits(1000), "1,000");
  EXPECT_EQ(group_digits(1234567), "1,234,567");
}

TEST(Report, ProgressShowsRateBugsLongestExecutionAndTime) {
  weft::explorer::Statistics s;
  s.executions = 12345;
  s.seconds = 2.5;
  s.bugs = 1;
  s.longest_execution = 1042;
  EXPECT_EQ(format_progress(s, 0),
            "weft: 12,345 executions, 4,938/s, 1 bug, longest execution 1,042 steps, 2.5 s "
            "elapsed");
  s.bugs = 3;
  EXPECT_EQ(format_progress(s, 60),
            "weft: 12,345 executions, 4,938/s, 3 bugs, longest execution 1,042 steps, 2.5 s "
            "elapsed, 57.5 s left");
  s.seconds = 61;  // the last execution may end past the limit
  EXPECT_NE(format_progress(s, 60).find("0.0 s left"), std::string::npos);
}

TEST(Report, ProgressShowsTheEstimatedSizeAndTheTimeToGo) {
  weft::explorer::Statistics s;
  s.executions = 1100;
  s.seconds = 11;
  s.longest_execution = 40;
  // 100 walks of weight 13,000: the search has run 1,000 of ~13,000, at 100 executions a
  // second 12,000 more take 120 s.
  weft::explorer::SizeEstimate estimate;
  weft::Trace walk;
  walk.walk_log2_weight = std::log2(13000.0);
  for (int i = 0; i < 100; ++i) estimate.add(walk);
  s.estimate = estimate;
  EXPECT_EQ(format_progress(s, 0),
            "weft: 1,100 executions of ~13,000 estimated (~2.0 min to go), 100/s, 0 bugs, "
            "longest execution 40 steps, 11.0 s elapsed");
  // Past its estimate, the search has at least what it ran.
  s.executions = 20100;
  s.seconds = 201;
  EXPECT_EQ(format_progress(s, 0),
            "weft: 20,100 executions of ~20,000 estimated (~0.0 s to go), 100/s, 0 bugs, "
            "longest execution 40 steps, 201.0 s elapsed");
  EXPECT_NE(weft::driver::format_statistics(s).find(", 100 random walks of the estimate, "),
            std::string::npos)
      << weft::driver::format_statistics(s);
}

}  // namespace
