// The progress line and the digit grouping of reports (report.hpp).
#include "weft/driver/report.hpp"

#include <gtest/gtest.h>

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

}  // namespace
