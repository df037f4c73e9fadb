// ExitBlock on native programs (weft check --strategy exitblock / exitblock-rw): the error
// classes of Bruening and Chapin §7, each in a small C program of tests/native/: a module-ordering
// error (SplitSync), `if` instead of `while` around a wait, a signal where a broadcast was
// needed (a condition deadlock), and a lock-cycle deadlock, which ExitBlock itself rarely runs
// into and --deadlocks (ExitBlock-DD, reverse lock chain analysis) finds.
#include <gtest/gtest.h>

#include "native_cli.hpp"

namespace weft::test {
namespace {

struct Case {
  const char* program;
  const char* kind;        // of the first bug
  const char* flags = "";  // for the compiler
};

TEST(ExitBlockEndToEnd, FindsTheErrorClassesOfSection7WithBothStrategies) {
  for (const Case c :
       {Case{"split_sync.c", "assertion failure"},
        Case{"split_sync.c", "assertion failure", "-- -DRWLOCK"},
        Case{"cond_if.c", "assertion failure"}, Case{"notify_one_two_conditions.c", "deadlock"},
        Case{"abba_deadlock.c", "deadlock"}})
    for (const char* strategy : {"exitblock", "exitblock-rw"}) {
      SCOPED_TRACE(std::string(c.program) + " " + c.flags + " with " + strategy);
      const CliRun r =
          check(c.program, std::string("--deadlocks --strategy ") + strategy + " " + c.flags);
      ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
      EXPECT_EQ(first_bug_kind(r), c.kind);
    }
}

TEST(ExitBlockEndToEnd, LockCycleNeedsTheAnalysisAndTheVerdictSaysWhatItAssumes) {
  const CliRun plain = check("abba_deadlock.c", "--strategy exitblock");
  ASSERT_EQ(plain.exit_code, 3) << plain.out << plain.err;  // no bug, not every behaviour
  EXPECT_TRUE(plain.result["bugs"].empty());
  EXPECT_EQ(plain.result["verdict"], "incomplete");
  const std::string why = plain.result["incomplete_because"].get<std::string>();
  EXPECT_NE(why.find("locking discipline"), std::string::npos) << why;
  EXPECT_NE(why.find("--deadlocks"), std::string::npos) << why;
  const CliRun dd = check("abba_deadlock.c", "--strategy exitblock --deadlocks");
  ASSERT_EQ(dd.exit_code, 1) << dd.out << dd.err;
  EXPECT_EQ(first_bug_kind(dd), "deadlock");
}

}  // namespace
}  // namespace weft::test
