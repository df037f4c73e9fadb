// Condition variables and semaphores: every exhaustive strategy agrees with DFS.
#include <gtest/gtest.h>

#include <set>

#include "test_support.hpp"

namespace weft {
namespace {

// Two consumers and a producer of two items around a condition variable. With `if` instead of
// `while` around the wait (ExitBlock §7) a consumer can wake to find the item already taken.
void consumers(bool recheck_in_loop) {
  mutex m;
  condition_variable cv;
  shared<int> items{0};
  auto consume = [&] {
    std::unique_lock<mutex> lock(m);
    if (recheck_in_loop) {
      cv.wait(lock, [&] { return items > 0; });
    } else if (items == 0) {
      cv.wait(lock);
    }
    WEFT_ASSERT(items > 0);
    items = items - 1;
  };
  thread c1(consume), c2(consume);
  thread producer([&] {
    for (int i = 0; i < 2; ++i) {
      std::lock_guard<mutex> g(m);
      items = items + 1;
      cv.notify_one();
    }
  });
  c1.join();
  c2.join();
  producer.join();
}

void if_instead_of_while() {
  consumers(false);
}
void while_loop() {
  consumers(true);
}

TEST(CondVar, IfInsteadOfWhileIsFoundByEveryStrategy) {
  for (auto kind : testing::kExhaustive) {
    Options o;
    o.strategy = kind;
    const Result r = explore(o, if_instead_of_while);
    ASSERT_EQ(r.verdict, Verdict::kBugFound) << explorer::strategy_name(kind);
    EXPECT_EQ(r.bugs[0].kind, Outcome::kAssertionFailure);
  }
}

TEST(CondVar, WhileLoopIsCorrectUnderEveryStrategy) {
  for (auto kind : testing::kExhaustive) {
    const Result r = explore(testing::with(kind), while_loop);
    EXPECT_EQ(r.verdict, Verdict::kNoBugFound) << explorer::strategy_name(kind) << "\n"
                                               << (r.ok() ? "" : r.bugs[0].report);
  }
}

TEST(CondVar, LostSignalDeadlockIsFound) {
  for (auto kind : testing::kExhaustive) {
    Options o;
    o.strategy = kind;
    const Result r = explore(o, [] {
      mutex m;
      condition_variable cv;
      thread waiter([&] {
        std::unique_lock<mutex> lock(m);
        cv.wait(lock);  // no predicate: a signal sent before the wait is lost
      });
      thread signaller([&] {
        std::lock_guard<mutex> g(m);
        cv.notify_one();
      });
      waiter.join();
      signaller.join();
    });
    ASSERT_EQ(r.bugs.size(), 1u) << explorer::strategy_name(kind);
    EXPECT_EQ(r.bugs[0].kind, Outcome::kDeadlock);
    EXPECT_NE(r.bugs[0].message.find("waits on condition variable"), std::string::npos)
        << r.bugs[0].message;
    EXPECT_NE(r.bugs[0].message.find("no thread will signal it"), std::string::npos)
        << r.bugs[0].message;
  }
}

TEST(CondVar, BroadcastWakesEveryWaiter) {
  const Result r = explore(testing::with(StrategyKind::kDfs, true), [] {
    mutex m;
    condition_variable cv;
    shared<bool> go{false};
    auto wait_for_go = [&] {
      std::unique_lock<mutex> lock(m);
      cv.wait(lock, [&] { return bool(go); });
    };
    thread a(wait_for_go), b(wait_for_go);
    {
      std::lock_guard<mutex> g(m);
      go = true;
      cv.notify_all();
    }
    a.join();
    b.join();
  });
  EXPECT_EQ(r.verdict, Verdict::kNoBugFound) << (r.ok() ? "" : r.bugs[0].report);
}

// A semaphore-protected pool of 2 slots used by 3 threads: never more than 2 inside.
TEST(Semaphore, BoundsConcurrencyUnderEveryStrategy) {
  for (auto kind : testing::kExhaustive) {
    const Result r = explore(testing::with(kind), [] {
      counting_semaphore<2> slots(2);
      atomic<int> inside{0};
      auto use = [&] {
        slots.acquire();
        WEFT_ASSERT(++inside <= 2);
        --inside;
        slots.release();
      };
      thread a(use), b(use), c(use);
      a.join();
      b.join();
      c.join();
    });
    EXPECT_EQ(r.verdict, Verdict::kNoBugFound) << explorer::strategy_name(kind);
  }
}

TEST(Semaphore, FinalStatesAgreeWithDfs) {
  // Which of two waiters gets the single permit decides what is written last.
  std::set<int> seen[4];
  int i = 0;
  for (auto kind : testing::kExhaustive) {
    auto& out = seen[i++];
    explore(testing::with(kind), [&out] {
      binary_semaphore sem(0);
      shared<int> last{0};
      thread w1([&] {
        sem.acquire();
        last = 1;
      });
      thread w2([&] {
        sem.acquire();
        last = 2;
      });
      sem.release();
      sem.release();
      w1.join();
      w2.join();
      out.insert(last);
    });
  }
  for (int k = 1; k < 4; ++k) EXPECT_EQ(seen[k], seen[0]) << k;
  EXPECT_EQ(seen[0], (std::set<int>{1, 2}));
}

}  // namespace
}  // namespace weft
