// weft in GoogleTest: a test whose body weft explores, failing with the bug's report.
//
//   #include <weft/gtest.hpp>
//
//   WEFT_TEST(Counter, IncrementsAreNeverLost) {      // a TEST whose body runs under weft
//     weft::shared<int> n{0};
//     weft::thread t([&] { n = n + 1; });
//     n = n + 1;
//     t.join();
//     WEFT_ASSERT(n == 2);
//   }
//
//   WEFT_TEST_WITH(Counter, Bounded, [] {             // with options for weft::explore
//     weft::Options o;
//     o.max_executions = 1000;
//     return o;
//   }()) { ... }
//
// A bug fails the test with weft's report (the interleaving, and the schedule that
// weft::replay reproduces). An exploration that ends incomplete without a bug (a bound or
// limit was hit) skips the test, as weft_add_test does; weft::testing::expect_no_bug with
// fail_on_incomplete fails it instead. The verdict and statistics become properties of the
// test, so they appear in GoogleTest's XML (JUnit) output (--gtest_output=xml).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "weft/weft.hpp"

namespace weft::testing {

/// Explores `test` under `options`; adds a GoogleTest failure per bug found (with its report),
/// and a failure (`fail_on_incomplete`) or a skip when the exploration was incomplete; a test
/// that used something weft does not model fails (there is no verdict).
/// Returns the result, for further checks.
/// The verdict as the command line's JSON names it: "bug", "no bug", "incomplete", "unsupported".
inline const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kBugFound:
      return "bug";
    case Verdict::kNoBugFound:
      return "no bug";
    case Verdict::kIncomplete:
      return "incomplete";
    case Verdict::kUnsupported:
      break;
  }
  return "unsupported";
}

inline Result expect_no_bug(const Options& options, const std::function<void()>& test,
                            bool fail_on_incomplete = false) {
  const Result result = explore(options, test);
  ::testing::Test::RecordProperty("weft_verdict", verdict_name(result.verdict));
  ::testing::Test::RecordProperty("weft_executions", std::to_string(result.stats.executions));
  ::testing::Test::RecordProperty("weft_complete_executions",
                                  std::to_string(result.stats.complete));
  for (const Bug& bug : result.bugs) ADD_FAILURE() << bug.report;
  if (result.verdict == Verdict::kUnsupported) {
    ADD_FAILURE() << "weft: no verdict: " << result.incomplete_reason;
  } else if (result.bugs.empty() && result.verdict != Verdict::kNoBugFound) {
    if (fail_on_incomplete)
      ADD_FAILURE() << "weft: no bug found, but the exploration is incomplete: "
                    << result.incomplete_reason;
    else
      [&] {  // GTEST_SKIP returns from the function it is in: this lambda
        GTEST_SKIP() << "weft: no bug found, but the exploration is incomplete: "
                     << result.incomplete_reason;
      }();
  }
  return result;
}

}  // namespace weft::testing

/// A GoogleTest test (suite, name) whose body is explored by weft::explore with default options.
#define WEFT_TEST(suite, name) WEFT_TEST_WITH(suite, name, ::weft::Options{})

/// As WEFT_TEST, with the given weft::Options (an expression; commas are allowed).
#define WEFT_TEST_WITH(suite, name, ...)                                             \
  static void weft_test_body_##suite##_##name();                                     \
  TEST(suite, name) {                                                                \
    ::weft::testing::expect_no_bug((__VA_ARGS__), &weft_test_body_##suite##_##name); \
  }                                                                                  \
  static void weft_test_body_##suite##_##name()
