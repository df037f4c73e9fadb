// Partial order sampling (Yuan, Yang, Gu, CAV 2018): the policy of directives, checked against
// the paper's point, and the strategy through the in-process API.
#include <gtest/gtest.h>

#include <vector>

#include "weft/trace/directive_follower.hpp"
#include "weft/weft.hpp"

namespace {

using weft::DirectiveFollower;
using weft::Event;
using weft::ObjectKey;
using weft::Operation;
using weft::OpKind;
using weft::SchedulePolicy;
using weft::TestDirective;
using weft::ThreadId;
using weft::ThreadSet;

// Thread 0 writes k locations of its own, then x; thread 1 writes x once. True if thread 1's
// write runs last, after thread 0's: the one order of the two racing writes that needs thread 1
// to wait out every one of thread 0's independent writes.
bool second_thread_writes_last(const TestDirective& d, std::size_t k) {
  constexpr ObjectKey kX = 0x1000;
  std::vector<Operation> ops[2];
  for (std::size_t i = 0; i < k; ++i)
    ops[0].push_back(Operation{OpKind::kWrite, 0, 4, 0x2000 + 8 * i, 0});
  ops[0].push_back(Operation{OpKind::kWrite, 0, 4, kX, 0});
  ops[1].push_back(Operation{OpKind::kWrite, 0, 4, kX, 0});
  std::size_t next[2] = {0, 0};
  struct Context {
    std::vector<Operation>* ops;
    std::size_t* next;
  } context{ops, next};
  const weft::PendingOperations pending{&context,
                                        [](const void* c, ThreadId t) -> const Operation& {
                                          const auto& ctx = *static_cast<const Context*>(c);
                                          return ctx.ops[t][ctx.next[t]];
                                        }};
  DirectiveFollower follower(d);
  std::optional<Event> previous;
  std::size_t followed = 0;
  std::optional<std::size_t> diverged;
  ThreadId last = 0;
  for (std::size_t step = 0; step < k + 2; ++step) {
    follower.start_step(step, previous ? &*previous : nullptr);
    ThreadSet enabled;
    for (ThreadId t = 0; t < 2; ++t)
      if (next[t] < ops[t].size()) enabled.insert(t);
    last = follower.choose(step, enabled, last, followed, diverged, pending);
    previous = Event{last, ops[last][next[last]]};
    ++next[last];
  }
  return last == 1;
}

// The paper's point (§3): under uniform random scheduling, thread 1 comes last only if it loses
// k + 1 coin flips (probability 2^-(k+1)); under POS its event keeps its priority while thread
// 0's events each draw a new one, so it comes last when its priority is the lowest of k + 2
// (probability 1/(k+2)).
TEST(PosPolicy, ARacingEventIsNotStarvedByIndependentOnes) {
  constexpr std::size_t k = 10, samples = 2400;
  std::size_t pos = 0, uniform = 0;
  TestDirective d;
  for (d.seed = 1; d.seed <= samples; ++d.seed) {
    d.policy = SchedulePolicy::kPartialOrderSampling;
    pos += second_thread_writes_last(d, k);
    d.policy = SchedulePolicy::kRandom;
    uniform += second_thread_writes_last(d, k);
  }
  const double expected = static_cast<double>(samples) / (k + 2);  // 200
  EXPECT_GT(pos, expected / 2) << pos;
  EXPECT_LT(pos, expected * 2) << pos;
  EXPECT_LT(uniform, 10u) << uniform;  // 2400 / 2048 expected
}

// Two threads increment without a lock: POS finds the lost update; on a correct program it
// runs its samples and says that it does not explore exhaustively.
void lost_update() {
  weft::shared<int> counter{0};
  weft::thread t([&] { counter = counter.load() + 1; });
  counter = counter.load() + 1;
  t.join();
  WEFT_ASSERT(counter.load() == 2);
}

void locked_update() {
  weft::shared<int> counter{0};
  weft::mutex m;
  weft::thread t([&] {
    m.lock();
    counter = counter.load() + 1;
    m.unlock();
  });
  m.lock();
  counter = counter.load() + 1;
  m.unlock();
  t.join();
  WEFT_ASSERT(counter.load() == 2);
}

TEST(Pos, FindsALostUpdateAndIsNotExhaustive) {
  weft::Options o;
  o.strategy = weft::StrategyKind{"pos"};
  o.random_executions = 200;
  const weft::Result found = weft::explore(o, lost_update);
  EXPECT_EQ(found.verdict, weft::Verdict::kBugFound);
  const weft::Result correct = weft::explore(o, locked_update);
  EXPECT_EQ(correct.verdict, weft::Verdict::kIncomplete);
  EXPECT_EQ(correct.stats.executions, 200u);
  EXPECT_EQ(correct.incomplete_code, weft::Incompleteness::kNotExhaustive);
  EXPECT_NE(correct.incomplete_reason.find("partial order sampling ran 200"), std::string::npos)
      << correct.incomplete_reason;
}

}  // namespace
