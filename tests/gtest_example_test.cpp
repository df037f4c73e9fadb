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

// Inputs: a bounded buffer whose capacity comes from outside. The code under test is generic in
// its integer type, so the test gives it weft::value<int> and weft chooses the capacity; the bug
// needs one particular capacity (0), which fixed test values would have to guess.
template <class Int>
class Buffer {
 public:
  explicit Buffer(Int capacity) : capacity_(capacity) {}
  bool put(weft::shared<Int>& size) {
    weft::value<bool> full = size.load() >= capacity_;
    if (full) return false;
    size = size.load() + 1;
    return true;
  }

 private:
  Int capacity_;
};

TEST(BufferUnderWeft, ACapacityOfZeroIsFoundWithItsInterleaving) {
  weft::Options options;
  options.strategy = weft::StrategyKind::kOptimalDpor;
  const weft::Result r = weft::explore(options, [] {
    weft::value<int> capacity = weft::input<int>("capacity");
    weft::assume(capacity >= 0);
    weft::assume(capacity <= 4);
    Buffer<weft::value<int>> buffer(capacity);
    weft::shared<weft::value<int>> size{0};
    weft::shared<weft::value<int>> consumed{0};
    weft::thread producer([&] { buffer.put(size); });
    weft::thread consumer([&] { consumed = size.load(); });
    producer.join();
    consumer.join();
    // Nothing consumed and nothing stored: the producer's item was refused.
    WEFT_ASSERT(!(consumed.load() == 0 && size.load() == 0));
  });
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.bugs[0].inputs.size(), 1u);
  EXPECT_EQ(r.bugs[0].inputs[0].value, 0u);  // the capacity
  // The report shows the input beside the interleaving, and replay reproduces both.
  EXPECT_NE(r.bugs[0].report.find("capacity = 0"), std::string::npos) << r.bugs[0].report;
}

}  // namespace
