// SYN-sequences of reachability testing (src/explore/reachability/syn_sequence.hpp) against the
// paper's semaphore example (Lei and Carver §V-B, Fig. 4): race_set(e1) = {c3}, the other race
// sets empty, because after T1's P completed the semaphore had no unit left for T2's P.
#include "../src/explore/reachability/syn_sequence.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <set>

#include "weft/runtime/scheduler.hpp"
#include "weft/weft.hpp"

namespace weft::testing {
namespace {

using explorer::reachability::Call;
using explorer::reachability::Lines;
using explorer::reachability::SynSequence;

// T1 and T2 each P() then V() a semaphore of one unit; the default schedule runs T1 first.
Trace figure4_trace(ThreadRegistry& threads) {
  runtime::Scheduler scheduler(threads);
  return scheduler.run(
      TestDirective{},
      [] {
        weft::counting_semaphore<> s(1);
        weft::thread t1([&] {
          s.acquire();
          s.release();
        });
        weft::thread t2([&] {
          s.acquire();
          s.release();
        });
        t1.join();
        t2.join();
      },
      runtime::RunLimits{});
}

TEST(SynSequence, Figure4SemaphoreRaceSets) {
  ThreadRegistry threads;
  const Trace t = figure4_trace(threads);
  Lines lines;
  const SynSequence q(t, lines);
  std::vector<std::size_t> completions;  // e1..e4: the semaphore's line
  for (std::size_t j = 0; j < t.events.size(); ++j)
    if (domain_of(t.events[j].op.kind) == Domain::kSemaphore) completions.push_back(j);
  ASSERT_EQ(completions.size(), 4u);
  const ThreadId t1 = t.events[completions[0]].thread, t2 = t.events[completions[2]].thread;
  ASSERT_NE(t1, t2);
  EXPECT_EQ(q.race_set(completions[0], nullptr), (std::vector<Call>{{t2, 0}}));  // {c3}
  for (std::size_t k = 1; k < 4; ++k) EXPECT_TRUE(q.race_set(completions[k], nullptr).empty()) << k;
  // Every completion is on one line; the events of T2 happen after T1's V (the line's order).
  const auto& events = q.events();
  EXPECT_EQ(events[completions[0]].line, events[completions[3]].line);
  EXPECT_TRUE(q.in_past(completions[1], events[completions[2]].done));
  EXPECT_FALSE(q.in_past(completions[2], events[completions[1]].done));
}

TEST(SynSequence, ReachabilityExercisesBothSequencesOfFigure4) {
  Options o;
  o.strategy = StrategyKind{"reachability"};
  o.stop_on_first_bug = false;
  std::set<std::vector<int>> orders;
  const Result r = explore(o, [&] {
    weft::counting_semaphore<> s(1);
    std::vector<int> order;
    weft::thread t1([&] {
      s.acquire();
      order.push_back(1);
      s.release();
    });
    weft::thread t2([&] {
      s.acquire();
      order.push_back(2);
      s.release();
    });
    t1.join();
    t2.join();
    orders.insert(order);
  });
  EXPECT_EQ(r.stats.executions, 2u);
  EXPECT_EQ(orders, (std::set<std::vector<int>>{{1, 2}, {2, 1}}));
}

// A rendezvous whose message is taken before the channel closes: the sender's wait completes
// with the taking even when it runs after the close (the close changes nothing for it), so it is
// on no line and races with nothing. Were it on the channel's line, a close before it and one
// after it would be two sequences of one partial order, run twice (docs/richtest.md).
TEST(SynSequence, ARendezvousTakenBeforeTheCloseCompletesWithTheTaking) {
  ThreadRegistry threads;
  runtime::Scheduler scheduler(threads);
  // The sticky policy runs the sender until its wait blocks, then the receiver through its
  // receive and close, and the sender's wait last.
  const Trace t = scheduler.run(
      TestDirective{},
      [] {
        weft::channel<int> ch;
        weft::thread sender([&] { ch.send(1); });
        weft::thread receiver([&] {
          (void)ch.receive();
          ch.close();
        });
        sender.join();
        receiver.join();
      },
      runtime::RunLimits{});
  Lines lines;
  const SynSequence q(t, lines);
  std::optional<std::size_t> wait, close;
  for (std::size_t j = 0; j < t.events.size(); ++j) {
    const Operation& op = t.events[j].op;
    if (op.kind == OpKind::kChannelReceive && op.partner != 0) wait = j;  // the sender's wait
    if (op.kind == OpKind::kChannelClose) close = j;
  }
  ASSERT_TRUE(wait && close);
  ASSERT_LT(*close, *wait);
  EXPECT_EQ(q.events()[*wait].line, 0u);
  EXPECT_TRUE(q.race_set(*close, nullptr).empty());
}

}  // namespace
}  // namespace weft::testing
