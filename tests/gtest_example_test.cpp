// How weft is meant to be used in a project's own unit tests.
#include <gtest/gtest.h>

#include <mutex>

#include "weft/weft.hpp"

namespace {

// The code under test: a counter that is correct only if increments hold the lock.
template <class Mutex, class Int>
class Counter {
 public:
  void increment() {
    std::lock_guard<Mutex> g(m_);
    value_ = value_ + 1;
  }
  int get() {
    std::lock_guard<Mutex> g(m_);
    return value_;
  }

 private:
  Mutex m_;
  Int value_{0};
};

TEST(CounterUnderWeft, ConcurrentIncrementsAreNeverLost) {
  const weft::Result r = weft::explore([] {
    Counter<weft::mutex, weft::shared<int>> counter;
    weft::thread a([&] { counter.increment(); });
    weft::thread b([&] { counter.increment(); });
    a.join();
    b.join();
    WEFT_ASSERT(counter.get() == 2);
  });
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.bugs[0].report);
  EXPECT_EQ(r.verdict, weft::Verdict::kNoBugFound);
  EXPECT_EQ(r.stats.complete, 2u);  // the two orders of the critical sections
}

}  // namespace
