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

// --lockset predicts from one execution what happens-before sees only in another: in the first
// execution of lockset_prediction.c the mutex orders the two writes (no data race there), but no
// lock guards x; the replay file reproduces the report.
TEST(LocksetEndToEnd, PredictsAViolationFromOneExecutionAndReplaysIt) {
  const CliRun plain = check("lockset_prediction.c", "--max-executions 1");
  EXPECT_EQ(plain.exit_code, 3) << plain.out << plain.err;
  EXPECT_TRUE(plain.result["bugs"].empty());
  const CliRun r = check("lockset_prediction.c", "--lockset --max-executions 1");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug_kind(r), "locking discipline violation");
  const std::string m = first_bug_message(r);
  EXPECT_NE(m.find("on x"), std::string::npos) << m;
  EXPECT_NE(m.find("holding mutex a"), std::string::npos) << m;
  EXPECT_NE(m.find("holding no lock"), std::string::npos) << m;
  const CliRun again = weft_cli("replay " + replay_file("lockset_prediction.c"));
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE(again.out.find("locking discipline violation"), std::string::npos) << again.out;
}

// What a read-write lock guards the lockset does not see (weft keeps its holds in the runtime):
// a report then says it may be a false alarm rather than blame the program outright.
TEST(LocksetEndToEnd, SaysWhatItCannotSeeOfReadWriteLocks) {
  const CliRun r = check("split_sync.c", "--lockset -- -DRWLOCK");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug_kind(r), "locking discipline violation");
  EXPECT_NE(first_bug_message(r).find("may be a false alarm"), std::string::npos)
      << first_bug_message(r);
  const CliRun mutexes = check("split_sync.c", "--lockset");
  ASSERT_EQ(mutexes.exit_code, 1) << mutexes.out << mutexes.err;  // its assertion, no violation
  EXPECT_EQ(first_bug_kind(mutexes), "assertion failure");
}

// With --lockset, ExitBlock-DD's verdict on a program that keeps the discipline is complete;
// on one that breaks it, the violation is reported and the claim withdrawn.
TEST(LocksetEndToEnd, ExitBlockVerdictRestsOnTheCheckedDiscipline) {
  const CliRun kept = check("abba_deadlock.c", "--strategy exitblock --deadlocks --lockset");
  ASSERT_EQ(kept.exit_code, 1) << kept.out << kept.err;
  EXPECT_EQ(first_bug_kind(kept), "deadlock");
  const CliRun broken =
      check("lockset_prediction.c", "--strategy exitblock --deadlocks --lockset --all-bugs");
  ASSERT_EQ(broken.exit_code, 1) << broken.out << broken.err;
  EXPECT_EQ(first_bug_kind(broken), "locking discipline violation");
  EXPECT_NE(broken.result["incomplete_because"].get<std::string>().find("as --lockset found"),
            std::string::npos)
      << broken.out;
}

}  // namespace
}  // namespace weft::test
