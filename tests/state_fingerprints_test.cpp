// The stateful strategy's states (src/explore/state_fingerprints.hpp) on hand-made traces: the
// thesis' point (§7.2, Examples 25 and 26) that interleavings which commute, even dependent
// ones, end in one state, and that the state tells apart what it must (the value left in memory,
// who holds a mutex, how far each thread got).
#include "../src/explore/state_fingerprints.hpp"

#include <gtest/gtest.h>

namespace weft::testing {
namespace {

using explorer::StateFingerprints;

constexpr ThreadId kA = 1, kB = 2;
constexpr ObjectKey kX = 0x1000, kY = 0x2000, kLock = 0x3000;

// A trace built step by step, with the values each access read and wrote.
struct TraceBuilder {
  Trace t;
  TraceBuilder() {
    for (ThreadId child : {kA, kB}) step(kMainThread, {OpKind::kThreadCreate, 0, 0, child, 0});
  }
  TraceBuilder& step(ThreadId thread, Operation op, AccessValues v = {}, bool finishes = false) {
    t.add_step({thread, op}, ThreadSet{}, 0, finishes, v);
    return *this;
  }
  TraceBuilder& write(ThreadId thread, ObjectKey at, std::uint64_t value, bool finishes = false) {
    return step(thread, {OpKind::kWrite, 0, 4, at, 0}, {0, value, 0, AccessValues::kWritten},
                finishes);
  }
  TraceBuilder& read(ThreadId thread, ObjectKey at, std::uint64_t value) {
    return step(thread, {OpKind::kRead, 0, 4, at, 0}, {value, 0, 0, AccessValues::kRead});
  }
  TraceBuilder& lock(ThreadId thread) { return step(thread, {OpKind::kMutexLock, 0, 0, kLock, 0}); }
  TraceBuilder& unlock(ThreadId thread, bool finishes = false) {
    return step(thread, {OpKind::kMutexUnlock, 0, 0, kLock, 0}, {}, finishes);
  }
};

std::uint64_t last(StateFingerprints& f, const Trace& t) {
  const auto states = f.of(t);
  EXPECT_FALSE(states.empty()) << f.why();
  return states.empty() ? 0 : states.back();
}

// Example 25 (Fig. 7.3): the two orders of two critical sections end in one state.
TEST(StateFingerprints, Example25TheTwoOrdersOfTwoCriticalSectionsEndInOneState) {
  StateFingerprints f;
  TraceBuilder ab, ba;
  ab.lock(kA).write(kA, kX, 1).unlock(kA, true).lock(kB).write(kB, kY, 1).unlock(kB, true);
  ba.lock(kB).write(kB, kY, 1).unlock(kB, true).lock(kA).write(kA, kX, 1).unlock(kA, true);
  EXPECT_EQ(last(f, ab.t), last(f, ba.t));
  // Halfway, one is in its critical section and the other has not started: other states.
  EXPECT_NE(f.of(ab.t)[4], f.of(ba.t)[4]);
}

// Example 26 (Fig. 7.4): writes leave the last writer's value, so the two orders of two
// different writes end in two states. Two writes of one value end in one, whichever came last:
// memory is held as bytes, the refinement §7.5 proposes (the thesis' places would tell the
// writers apart).
TEST(StateFingerprints, Example26WritesLeaveTheLastWritersValue) {
  StateFingerprints f;
  TraceBuilder one_two, two_one, same_a, same_b;
  one_two.write(kA, kX, 1, true).write(kB, kX, 2, true);
  two_one.write(kB, kX, 2, true).write(kA, kX, 1, true);
  EXPECT_NE(last(f, one_two.t), last(f, two_one.t));
  same_a.write(kA, kX, 7, true).write(kB, kX, 7, true);
  same_b.write(kB, kX, 7, true).write(kA, kX, 7, true);
  EXPECT_EQ(last(f, same_a.t), last(f, same_b.t));
}

// What a read returned is part of the reader's state: same operations, another value read,
// another state.
TEST(StateFingerprints, AValueReadIsPartOfTheReadersState) {
  StateFingerprints f;
  TraceBuilder before, after;
  before.read(kA, kX, 0).write(kB, kX, 1, true);
  after.write(kB, kX, 1, true).read(kA, kX, 1);
  EXPECT_NE(last(f, before.t), last(f, after.t));
}

// Who holds the mutex is part of the state.
TEST(StateFingerprints, TheMutexsOwnerIsPartOfTheState) {
  StateFingerprints f;
  TraceBuilder a, b;
  a.lock(kA);
  b.lock(kB);
  EXPECT_NE(last(f, a.t), last(f, b.t));
}

// A semaphore's part is its count: two posts in either order end in one state, and a post
// differs from none.
TEST(StateFingerprints, TwoPostsInEitherOrderEndInOneState) {
  StateFingerprints f;
  constexpr ObjectKey kSem = 0x4000;
  const Operation post{OpKind::kSemPost, 0, 0, kSem, 0};
  TraceBuilder ab, ba, a;
  ab.step(kA, post).step(kB, post);
  ba.step(kB, post).step(kA, post);
  a.step(kA, post);
  EXPECT_EQ(last(f, ab.t), last(f, ba.t));
  EXPECT_EQ(f.of(ab.t)[3], last(f, a.t));  // after A's post: the same, however reached
  EXPECT_NE(last(f, ab.t), last(f, a.t));
  TraceBuilder ab_wait = ab;
  ab_wait.step(kMainThread, {OpKind::kSemWait, 2, 0, kSem, 0});
  TraceBuilder ba_wait = ba;
  ba_wait.step(kMainThread, {OpKind::kSemWait, 2, 0, kSem, 0});
  EXPECT_EQ(last(f, ab_wait.t), last(f, ba_wait.t));
  EXPECT_NE(last(f, ab_wait.t), last(f, ab.t));
}

// A condition variable's part is the order of its waiters and the signals' tokens, not the
// signals' numbers: with thread A waiting, B's and main's signals in either order leave one
// token (the second is lost), one state; a waiter with a token differs from one without.
TEST(StateFingerprints, AConditionVariableIsItsWaitersAndTokensInOrder) {
  StateFingerprints f;
  constexpr ObjectKey kCond = 0x5000;
  const Operation signal{OpKind::kCondSignal, 0, 0, kCond, 0};
  TraceBuilder waiting;
  waiting.lock(kA).step(kA, {OpKind::kCondWait, 0, 0, kCond, kLock});
  TraceBuilder b_first = waiting, main_first = waiting;
  b_first.step(kB, signal).step(kMainThread, signal);
  main_first.step(kMainThread, signal).step(kB, signal);
  EXPECT_EQ(last(f, b_first.t), last(f, main_first.t));
  // B signals before A waits: the signal is lost, and A waits with no token.
  TraceBuilder lost;
  lost.step(kB, signal)
      .step(kMainThread, signal)
      .lock(kA)
      .step(kA, {OpKind::kCondWait, 0, 0, kCond, kLock});
  EXPECT_NE(last(f, lost.t), last(f, b_first.t));
  // A takes the token and the mutex: the condition variable is as before the wait.
  TraceBuilder woken = b_first;
  woken.step(kA, {OpKind::kCondWake, 1, 0, kCond, kLock});
  TraceBuilder woken_too = main_first;
  woken_too.step(kA, {OpKind::kCondWake, 1, 0, kCond, kLock});
  EXPECT_EQ(last(f, woken.t), last(f, woken_too.t));
  EXPECT_NE(last(f, woken.t), last(f, b_first.t));
}

// What the states cannot hold stops them, with the reason.
TEST(StateFingerprints, WhatTheStatesCannotHoldIsRefusedWithTheReason) {
  StateFingerprints f;
  TraceBuilder channel;
  channel.step(kA, {OpKind::kChannelSend, 0, 0, 0x4000, 0});
  EXPECT_TRUE(f.of(channel.t).empty());
  EXPECT_NE(f.why().find("send"), std::string::npos) << f.why();
  // A read of a byte no event wrote that changed between executions: memory changed behind the
  // events' back.
  StateFingerprints g;
  TraceBuilder first, second;
  first.read(kA, kX, 0);
  second.read(kA, kX, 5);
  EXPECT_FALSE(g.of(first.t).empty());
  EXPECT_TRUE(g.of(second.t).empty());
  EXPECT_NE(g.why().find("memory changed between events"), std::string::npos) << g.why();
  // Without values (not --points=all): nothing to hold the memory with.
  StateFingerprints h;
  Trace bare;
  bare.add_step({kMainThread, {OpKind::kYield, 0, 0, 0, 0}}, ThreadSet{}, 0);
  EXPECT_TRUE(h.of(bare).empty());
  EXPECT_NE(h.why().find("--points=all"), std::string::npos) << h.why();
}

// With local states recorded (native programs, local_state.hpp), a thread is what it holds as it
// waits at its next operation, not what it did: a thread that polls a flag and finds it unset
// is back where it was, and the state repeats (the cycle the history would unroll forever).
struct LocalTrace {
  Trace t;
  LocalTrace& step(ThreadId thread, Operation op, std::uint64_t local, AccessValues v = {}) {
    t.add_step({thread, op}, ThreadSet{}, 0, false, v);
    t.add_local_state(local);
    return *this;
  }
};

TEST(StateFingerprints, WithLocalStatesAThreadThatLoopsBackIsInTheStateItWasIn) {
  constexpr std::uint64_t kLoopHead = 0x11, kAfterRead = 0x22;
  const Operation lock{OpKind::kMutexLock, 0, 0, kLock, 0};
  const Operation read{OpKind::kRead, 0, 4, kX, 0};
  const Operation unlock{OpKind::kMutexUnlock, 0, 0, kLock, 0};
  const AccessValues unset{0, 0, 0, AccessValues::kRead};
  LocalTrace polls;  // main polls twice: lock, read 0, unlock, and again
  for (int round = 0; round < 2; ++round)
    polls.step(kMainThread, lock, kLoopHead)
        .step(kMainThread, read, kAfterRead, unset)
        .step(kMainThread, unlock, kAfterRead + 1);
  polls.t.pending.push_back({kMainThread, lock, true, kLoopHead});
  StateFingerprints f;
  const auto states = f.of(polls.t);
  ASSERT_EQ(states.size(), 7u) << f.why();
  EXPECT_EQ(states[0], states[3]);  // the second round begins where the first did
  EXPECT_EQ(states[3], states[6]);
  EXPECT_NE(states[0], states[1]);  // inside the round: elsewhere, holding the mutex
  EXPECT_NE(states[1], states[2]);
  // Without local states the history tells the rounds apart: no state repeats.
  LocalTrace plain = polls;
  plain.t.local_states.clear();
  StateFingerprints g;
  const auto unrolled = g.of(plain.t);
  ASSERT_EQ(unrolled.size(), 7u) << g.why();
  EXPECT_NE(unrolled[0], unrolled[3]);
}

TEST(StateFingerprints, WithLocalStatesWhatTheyCannotHoldStopsThemWithTheReason) {
  const Operation yield{OpKind::kYield, 0, 0, 0, 0};
  // A local state the runtime could not read.
  LocalTrace unread;
  unread.step(kMainThread, yield, 0x5);
  unread.step(kMainThread, yield, 0);
  StateFingerprints f;
  EXPECT_TRUE(f.of(unread.t).empty());
  EXPECT_NE(f.why().find("registers could not be read"), std::string::npos) << f.why();
  // One local state and result, two states after: the thread depends on something unseen.
  LocalTrace once, twice;
  once.step(kMainThread, yield, 0x5).step(kMainThread, yield, 0x6);
  twice.step(kMainThread, yield, 0x5).step(kMainThread, yield, 0x7);
  StateFingerprints g;
  EXPECT_FALSE(g.of(once.t).empty()) << g.why();
  EXPECT_TRUE(g.of(twice.t).empty());
  EXPECT_NE(g.why().find("went on differently"), std::string::npos) << g.why();
}

}  // namespace
}  // namespace weft::testing
