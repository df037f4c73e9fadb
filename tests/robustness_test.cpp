// Bad input: endless loops, exceptions, misuse.
#include <gtest/gtest.h>

#include <stdexcept>

#include "test_support.hpp"

namespace weft {
namespace {

TEST(Robustness, SpinningThreadReachesTheBoundWithItsSchedule) {
  Options o;
  o.max_steps_per_thread = 50;
  const Result r = explore(o, [] {
    atomic<bool> flag{false};
    thread spinner([&] {
      while (!flag.load()) {
      }
    });
    spinner.join();  // nobody ever sets the flag
  });
  EXPECT_EQ(r.verdict, Verdict::kIncomplete);
  EXPECT_TRUE(r.ok());
  EXPECT_GT(r.stats.bound_reached, 0u);
  EXPECT_NE(r.incomplete_reason.find("bound"), std::string::npos);
}

// A thread stopped by the step bound must not end the execution: the others run on, within the
// bound. Here the waiter's write comes after its first read, and the checker sees it only if it
// runs after that write while the waiter still spins. When the first thread to reach the bound
// ended the whole execution, no DPOR found this: the checker's read never ran after the write in
// any execution, so no race brought it there (only the oracle, dfs, did).
TEST(Robustness, OtherThreadsRunOnWhenOneReachesTheStepBound) {
  for (const StrategyKind kind : testing::kExhaustive) {
    Options o = testing::with(kind);
    o.max_steps_per_thread = 8;
    const Result r = explore(o, [] {
      atomic<int> flag{0}, written{0};
      thread checker([&] {
        WEFT_ASSERT(written.load() == 0);
        flag.store(1);
      });
      thread waiter([&] {
        int rounds = 0;
        while (flag.load() == 0)
          if (++rounds == 1) written.store(1);
      });
      checker.join();
      waiter.join();
    });
    ASSERT_EQ(r.bugs.size(), 1u) << kind.name();
    EXPECT_EQ(r.bugs[0].kind, Outcome::kAssertionFailure);
    EXPECT_GT(r.stats.bound_reached, 0u);
  }
}

TEST(Robustness, ThrowingThreadIsAReportedBug) {
  const Result r = explore([] {
    thread t([] { throw std::runtime_error("boom"); });
    t.join();
  });
  ASSERT_EQ(r.bugs.size(), 1u);
  EXPECT_EQ(r.bugs[0].kind, Outcome::kUncaughtException);
  EXPECT_NE(r.bugs[0].message.find("std::runtime_error"), std::string::npos);
  EXPECT_NE(r.bugs[0].message.find("boom"), std::string::npos);
  EXPECT_NE(r.bugs[0].message.find("0.0"), std::string::npos);
}

TEST(Robustness, DestructorsRunWhenAnExecutionIsCutShort) {
  static int alive = 0;
  struct Counted {
    Counted() { ++alive; }
    ~Counted() { --alive; }
  };
  alive = 0;
  const Result r = explore(testing::with(StrategyKind::kOptimalDpor), [] {
    Counted c;
    shared<int> x{0};
    mutex m;
    thread t([&] {
      Counted d;
      std::lock_guard<mutex> g(m);
      x = 1;
    });
    WEFT_ASSERT(x == 0);  // fails in one interleaving, cutting the other thread short
    t.join();
  });
  EXPECT_EQ(r.bugs.size(), 1u);
  EXPECT_EQ(alive, 0);
}

TEST(Robustness, UnlockOfAMutexNotHeldIsMisuse) {
  const Result r = explore([] {
    mutex m;
    m.unlock();
  });
  ASSERT_EQ(r.bugs.size(), 1u);
  EXPECT_EQ(r.bugs[0].kind, Outcome::kMisuse);
  EXPECT_NE(r.bugs[0].message.find("not locked"), std::string::npos);
}

TEST(Robustness, ForgottenJoinIsMisuse) {
  const Result r = explore([] { thread t([] {}); });
  ASSERT_EQ(r.bugs.size(), 1u);
  EXPECT_EQ(r.bugs[0].kind, Outcome::kMisuse);
  EXPECT_NE(r.bugs[0].message.find("joinable"), std::string::npos);
}

TEST(Robustness, AbbaDeadlockReportsBothPendingLocks) {
  for (auto kind : testing::kExhaustive) {
    Options o;
    o.strategy = kind;
    const Result r = explore(o, [] {
      mutex a, b;
      thread t1([&] {
        std::lock_guard<mutex> ga(a);
        std::lock_guard<mutex> gb(b);
      });
      thread t2([&] {
        std::lock_guard<mutex> gb(b);
        std::lock_guard<mutex> ga(a);
      });
      t1.join();
      t2.join();
    });
    ASSERT_EQ(r.bugs.size(), 1u) << explorer::strategy_name(kind);
    EXPECT_EQ(r.bugs[0].kind, Outcome::kDeadlock);
    EXPECT_NE(r.bugs[0].message.find("thread 0.0 waits to lock mutex"), std::string::npos)
        << r.bugs[0].message;
    EXPECT_NE(r.bugs[0].message.find("thread 0.1 waits to lock mutex"), std::string::npos);
    EXPECT_NE(r.bugs[0].message.find(", held by thread 0."), std::string::npos);
  }
}

}  // namespace
}  // namespace weft
