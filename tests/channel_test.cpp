// weft::channel and weft::select (Lei and Carver §II-A/B): asynchronous channels with a
// capacity, rendezvous, selective waits with guards, close. Every exhaustive strategy must see
// the outcomes exhaustive search (DFS, no reduction) sees, and as many distinct behaviours.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "test_support.hpp"

namespace weft {
namespace {

constexpr StrategyKind kAll[] = {StrategyKind::kDfs, StrategyKind::kDpor,
                                 StrategyKind::kOptimalDpor, StrategyKind::kUnfolding,
                                 StrategyKind::kContextualUnfolding};

// What the consumer received, in order, over all executions of `body` under `kind`.
template <class Body>
std::set<std::vector<int>> outcomes(StrategyKind kind, Body body, Result* result = nullptr) {
  std::set<std::vector<int>> seen;
  Options o = testing::with(kind);
  o.count_traces = true;
  const Result r = explore(o, [&] { seen.insert(body()); });
  if (result) *result = r;
  return seen;
}

// Two producers send to one channel; the consumer receives both.
std::vector<int> two_producers(std::size_t capacity) {
  channel<int> c(capacity);
  thread a([&] { c.send(1); });
  thread b([&] { c.send(2); });
  std::vector<int> got{*c.receive(), *c.receive()};
  a.join();
  b.join();
  return got;
}

TEST(Channel, MessagesArriveInEitherOrderUnderEveryStrategy) {
  for (std::size_t capacity : {0u, 1u, 2u}) {
    Result dfs;
    const auto expected = outcomes(
        StrategyKind::kDfs, [&] { return two_producers(capacity); }, &dfs);
    EXPECT_EQ(expected, (std::set<std::vector<int>>{{1, 2}, {2, 1}})) << capacity;
    ASSERT_EQ(dfs.verdict, Verdict::kNoBugFound) << capacity;
    for (StrategyKind kind : kAll) {
      Result r;
      EXPECT_EQ(outcomes(
                    kind, [&] { return two_producers(capacity); }, &r),
                expected)
          << explorer::strategy_name(kind) << " capacity " << capacity;
      EXPECT_TRUE(r.verdict == Verdict::kNoBugFound || r.verdict == Verdict::kIncomplete)
          << explorer::strategy_name(kind);
      if (kind == StrategyKind::kDpor || kind == StrategyKind::kOptimalDpor) {
        EXPECT_EQ(r.stats.traces, dfs.stats.traces) << explorer::strategy_name(kind);
      }
    }
  }
}

// A rendezvous send returns only once its message is received: the receiver cannot see the
// sender's later write before it receives. With a buffer of one, it can.
TEST(Channel, ARendezvousSendWaitsForTheReceiver) {
  const auto program = [](std::size_t capacity) {
    return [capacity] {
      channel<int> c(capacity);
      shared<int> after_send{0};
      thread sender([&] {
        c.send(7);
        after_send = 1;
      });
      WEFT_ASSERT(after_send == 0);
      WEFT_ASSERT(*c.receive() == 7);
      sender.join();
    };
  };
  for (StrategyKind kind : testing::kExhaustive) {
    EXPECT_EQ(explore(testing::with(kind), program(0)).verdict, Verdict::kNoBugFound)
        << explorer::strategy_name(kind);
    EXPECT_EQ(explore(testing::with(kind), program(1)).verdict, Verdict::kBugFound)
        << explorer::strategy_name(kind);
  }
}

// A server's selective wait with guards (RichTest's bounded buffer, §VIII): deposits are taken
// while there is room, withdrawals while there is an item. The consumer must get the items in
// the order they were deposited; assuming the producers' order is a bug found.
void buffer_server(bool assume_order) {
  channel<int> deposit(0), withdraw_request(0), withdrawn(0);
  thread server([&] {
    std::vector<int> items;
    for (int served = 0; served < 4;) {
      select(when(items.size() < 2, deposit,
                  [&](int v) {
                    items.push_back(v);
                    ++served;
                  }),
             when(!items.empty(), withdraw_request, [&](int) {
               withdrawn.send(items.front());
               items.erase(items.begin());
               ++served;
             }));
    }
  });
  thread p1([&] { deposit.send(1); });
  thread p2([&] { deposit.send(2); });
  std::vector<int> got;
  for (int i = 0; i < 2; ++i) {
    withdraw_request.send(0);
    got.push_back(*withdrawn.receive());
  }
  WEFT_ASSERT((got == std::vector<int>{1, 2} || got == std::vector<int>{2, 1}));
  if (assume_order) WEFT_ASSERT(got[0] == 1);
  server.join();
  p1.join();
  p2.join();
}

TEST(Channel, ASelectiveWaitWithGuardsIsExploredAndAWrongAssumptionFound) {
  for (StrategyKind kind : kAll) {
    const Result ok = explore(testing::with(kind), [] { buffer_server(false); });
    EXPECT_TRUE(ok.verdict == Verdict::kNoBugFound || ok.verdict == Verdict::kIncomplete)
        << explorer::strategy_name(kind) << ok.bugs.size();
    const Result bad = explore(testing::with(kind), [] { buffer_server(true); });
    ASSERT_EQ(bad.verdict, Verdict::kBugFound) << explorer::strategy_name(kind);
    EXPECT_EQ(bad.bugs[0].kind, Outcome::kAssertionFailure);
  }
  Options counted = testing::with(StrategyKind::kDfs);
  counted.count_traces = true;
  const Result dfs = explore(counted, [] { buffer_server(false); });
  for (StrategyKind kind : {StrategyKind::kDpor, StrategyKind::kOptimalDpor}) {
    Options o = testing::with(kind);
    o.count_traces = true;
    EXPECT_EQ(explore(o, [] { buffer_server(false); }).stats.traces, dfs.stats.traces)
        << explorer::strategy_name(kind);
  }
}

// Nobody sends: the receiver waits for ever, and the report says on what.
TEST(Channel, AReceiveNoThreadWillSendToIsADeadlock) {
  const Result r = explore([] {
    channel<int> c(1);
    channel<int> other(1);
    thread t([&] { other.send(1); });
    c.receive();
    t.join();
  });
  ASSERT_EQ(r.verdict, Verdict::kBugFound);
  EXPECT_EQ(r.bugs[0].kind, Outcome::kDeadlock);
  EXPECT_NE(r.bugs[0].message.find("waits to receive on channel"), std::string::npos)
      << r.bugs[0].message;
  EXPECT_NE(r.bugs[0].message.find("no thread will send on it"), std::string::npos);
}

// After close, receivers drain what is left and then see the end; a send is misuse.
TEST(Channel, CloseEndsTheReceiversLoop) {
  for (StrategyKind kind : testing::kExhaustive) {
    const Result r = explore(testing::with(kind), [] {
      channel<int> c(2);
      shared<int> sum{0};
      thread consumer([&] {
        while (auto v = c.receive()) sum = sum + *v;
      });
      c.send(1);
      c.send(2);
      c.close();
      consumer.join();
      WEFT_ASSERT(sum == 3);
    });
    EXPECT_EQ(r.verdict, Verdict::kNoBugFound) << explorer::strategy_name(kind);
  }
  const Result misuse = explore([] {
    channel<int> c(1);
    c.close();
    c.send(1);
  });
  ASSERT_EQ(misuse.verdict, Verdict::kBugFound);
  EXPECT_EQ(misuse.bugs[0].kind, Outcome::kMisuse);
  EXPECT_NE(misuse.bugs[0].message.find("which is closed"), std::string::npos);
}

}  // namespace
}  // namespace weft

namespace weft {
namespace {

// A bounded buffer of one slot as a monitor, with `if` around each wait (not `while`): correct
// under signal-and-urgent-wait, where the signalled thread runs next; under signal-and-continue
// another thread can take the slot first (Lei and Carver §II-D), which is found.
void one_slot_buffer(monitor::discipline d, bool recheck) {
  monitor m(d);
  monitor::condition not_full(m), not_empty(m);
  int slot = 0;
  bool full = false;
  auto put = [&](int v) {
    monitor::method in(m);
    if (recheck) {
      while (full) not_full.wait();
    } else if (full) {
      not_full.wait();
    }
    WEFT_ASSERT(!full);
    slot = v;
    full = true;
    not_empty.signal();
  };
  auto get = [&] {
    monitor::method in(m);
    if (recheck) {
      while (!full) not_empty.wait();
    } else if (!full) {
      not_empty.wait();
    }
    WEFT_ASSERT(full);
    full = false;
    not_full.signal();
    return slot;
  };
  thread p1([&] { put(1); });
  thread p2([&] { put(2); });
  thread c1([&] { get(); });
  get();
  p1.join();
  p2.join();
  c1.join();
}

TEST(Monitor, SignalAndUrgentWaitNeedsNoRecheck) {
  for (StrategyKind kind : testing::kExhaustive) {
    const Result r = explore(testing::with(kind), [] {
      one_slot_buffer(monitor::discipline::signal_and_urgent_wait, false);
    });
    EXPECT_EQ(r.verdict, Verdict::kNoBugFound) << explorer::strategy_name(kind) << r.summary();
  }
}

TEST(Monitor, SignalAndContinueWithoutRecheckIsFoundAndWithItIsCorrect) {
  for (StrategyKind kind : testing::kExhaustive) {
    const Result bad = explore(testing::with(kind), [] {
      one_slot_buffer(monitor::discipline::signal_and_continue, false);
    });
    ASSERT_EQ(bad.verdict, Verdict::kBugFound) << explorer::strategy_name(kind);
    EXPECT_EQ(bad.bugs[0].kind, Outcome::kAssertionFailure);
    const Result ok = explore(testing::with(kind), [] {
      one_slot_buffer(monitor::discipline::signal_and_continue, true);
    });
    EXPECT_EQ(ok.verdict, Verdict::kNoBugFound) << explorer::strategy_name(kind) << ok.summary();
  }
}

}  // namespace
}  // namespace weft
