// The lockset check (explore/lockset.hpp, --lockset) in-process: it passes a program that keeps
// the discipline (initialised by main before the threads start and read after they are joined,
// which Eraser's ownership allows), reports a location written under two different locks, and
// lets ExitBlock claim every behaviour only when the discipline held on everything it ran.
#include <gtest/gtest.h>

#include "weft/weft.hpp"

namespace weft {
namespace {

void disciplined() {
  mutex m;
  shared<int> x{0};
  x = 5;  // main owns x before the threads exist
  auto add = [&] {
    std::lock_guard<mutex> g(m);
    x = x + 1;
  };
  thread t1(add), t2(add);
  t1.join();
  t2.join();
  WEFT_ASSERT(x == 7);  // main owns x again after the joins
}

void two_locks() {
  mutex a, b;
  shared<int> x{0};
  thread t1([&] {
    std::lock_guard<mutex> g(a);
    x = 1;
  });
  thread t2([&] {
    std::lock_guard<mutex> g(b);
    x = 2;
  });
  t1.join();
  t2.join();
}

Options with(const char* strategy, bool lockset, bool deadlocks = true) {
  Options o;
  o.strategy = StrategyKind{strategy};
  o.lockset = lockset;
  o.search_deadlocks = deadlocks;
  return o;
}

TEST(Lockset, ExitBlockClaimsEveryBehaviourWhenTheDisciplineHeld) {
  const Result checked = explore(with("exitblock", true), disciplined);
  EXPECT_TRUE(checked.bugs.empty());
  EXPECT_EQ(checked.verdict, Verdict::kNoBugFound) << checked.incomplete_reason;
  // Without the check it only assumes the discipline, and says so.
  const Result assumed = explore(with("exitblock", false), disciplined);
  EXPECT_EQ(assumed.verdict, Verdict::kIncomplete);
  EXPECT_NE(assumed.incomplete_reason.find("--lockset checks it"), std::string::npos);
  // ExitBlock-RW with the analysis still misses some deadlocks (§6.1), checked or not.
  EXPECT_EQ(explore(with("exitblock-rw", true), disciplined).verdict, Verdict::kIncomplete);
}

TEST(Lockset, ReportsALocationWrittenUnderTwoLocks) {
  Options o = with("optimal", true, false);
  o.stop_on_first_bug = false;
  const Result r = explore(o, two_locks);
  ASSERT_EQ(r.bugs.size(), 1u);  // one location, however many executions show it
  EXPECT_EQ(r.bugs[0].kind, Outcome::kLockDiscipline);
  EXPECT_NE(r.bugs[0].message.find("holding mutex"), std::string::npos) << r.bugs[0].message;
  EXPECT_NE(r.bugs[0].message.find("no lock is held at every access"), std::string::npos);
  // Replayed with the check, the execution shows it again.
  EXPECT_EQ(replay(r.bugs[0].schedule, two_locks, o).bugs.at(0).kind, Outcome::kLockDiscipline);
  // ExitBlock's verdict withdraws its claim (and the violation is reported).
  Options e = with("exitblock", true);
  e.stop_on_first_bug = false;
  const Result x = explore(e, two_locks);
  ASSERT_FALSE(x.bugs.empty());
  EXPECT_EQ(x.bugs[0].kind, Outcome::kLockDiscipline);
  EXPECT_NE(x.incomplete_reason.find("as --lockset found"), std::string::npos)
      << x.incomplete_reason;
  // Without the check, nothing is reported: the in-process API sees no race between them.
  EXPECT_TRUE(explore(with("optimal", false, false), two_locks).bugs.empty());
}

}  // namespace
}  // namespace weft
