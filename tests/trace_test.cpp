// The event model: dependence, vector clocks, Foata fingerprints, thread identities.
#include <gtest/gtest.h>

#include "weft/trace/clock_tracker.hpp"
#include "weft/trace/dependence.hpp"
#include "weft/trace/foata.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft {
namespace {

Event ev(ThreadId t, OpKind k, ObjectKey obj, std::uint32_t size = 4, ObjectKey partner = 0) {
  return Event{t, Operation{k, 0, size, obj, partner}};
}

TEST(Dependence, ReadsCommuteOnlyUnderTheCommutingPolicy) {
  const auto r1 = ev(1, OpKind::kRead, 100), r2 = ev(2, OpKind::kRead, 100);
  EXPECT_FALSE(dependent(r1, r2, ReadPolicy::kReadsCommute));
  EXPECT_TRUE(dependent(r1, r2, ReadPolicy::kReadsConflict));
  EXPECT_TRUE(dependent(r1, ev(2, OpKind::kWrite, 100), ReadPolicy::kReadsCommute));
  EXPECT_TRUE(dependent(r1, ev(2, OpKind::kAtomicRmw, 102, 1), ReadPolicy::kReadsCommute));
  EXPECT_FALSE(dependent(r1, ev(2, OpKind::kWrite, 104), ReadPolicy::kReadsCommute));
  EXPECT_TRUE(dependent(r1, ev(1, OpKind::kRead, 500), ReadPolicy::kReadsCommute));  // same thread
}

TEST(Dependence, SynchronisationObjects) {
  const auto p = ReadPolicy::kReadsCommute;
  EXPECT_TRUE(dependent(ev(1, OpKind::kMutexLock, 7), ev(2, OpKind::kMutexUnlock, 7), p));
  EXPECT_FALSE(dependent(ev(1, OpKind::kMutexLock, 7), ev(2, OpKind::kMutexLock, 8), p));
  EXPECT_TRUE(dependent(ev(1, OpKind::kCondWait, 9, 0, 7), ev(2, OpKind::kMutexLock, 7), p));
  EXPECT_FALSE(dependent(ev(1, OpKind::kSemPost, 5), ev(2, OpKind::kSemPost, 5), p));
  EXPECT_TRUE(dependent(ev(1, OpKind::kSemPost, 5), ev(2, OpKind::kSemWait, 5), p));
  EXPECT_FALSE(dependent(ev(1, OpKind::kYield, 0), ev(2, OpKind::kWrite, 0), p));
  // A memory object and a mutex with the same key are different objects.
  EXPECT_FALSE(dependent(ev(1, OpKind::kWrite, 7), ev(2, OpKind::kMutexLock, 7), p));
  // Creation precedes the child's events; the child's events precede a join of it.
  EXPECT_TRUE(dependent(ev(1, OpKind::kThreadCreate, 2), ev(2, OpKind::kRead, 50), p));
  EXPECT_TRUE(dependent(ev(2, OpKind::kRead, 50), ev(1, OpKind::kThreadJoin, 2), p));
  EXPECT_FALSE(dependent(ev(3, OpKind::kRead, 50), ev(1, OpKind::kThreadJoin, 2), p));
}

TEST(Dependence, NeverCoenabledPairs) {
  EXPECT_FALSE(may_be_coenabled(ev(1, OpKind::kMutexUnlock, 7), ev(2, OpKind::kMutexLock, 7)));
  EXPECT_TRUE(may_be_coenabled(ev(1, OpKind::kMutexLock, 7), ev(2, OpKind::kMutexLock, 7)));
  EXPECT_FALSE(may_be_coenabled(ev(1, OpKind::kThreadCreate, 2), ev(2, OpKind::kWrite, 1)));
  EXPECT_TRUE(may_be_coenabled(ev(1, OpKind::kWrite, 1), ev(2, OpKind::kWrite, 1)));
}

TEST(ClockTracker, ReadsDoNotOrderEachOtherButWritesOrderReads) {
  ClockTracker c(ReadPolicy::kReadsCommute);
  c.add(ev(1, OpKind::kRead, 10));
  const VectorClock r2 = c.add(ev(2, OpKind::kRead, 10));
  EXPECT_FALSE(r2.covers(1, 1));  // the first read does not happen before the second
  const VectorClock w = c.add(ev(3, OpKind::kWrite, 10));
  EXPECT_TRUE(w.covers(1, 1));
  EXPECT_TRUE(w.covers(2, 1));
}

TEST(ClockTracker, CreateAndJoinCarryClocks) {
  ClockTracker c(ReadPolicy::kReadsCommute);
  c.add(ev(0, OpKind::kWrite, 10));
  c.add(ev(0, OpKind::kThreadCreate, 1));
  const VectorClock child = c.add(ev(1, OpKind::kRead, 20));
  EXPECT_TRUE(child.covers(0, 2));
  c.add(ev(1, OpKind::kWrite, 30));
  const VectorClock joined = c.add(ev(0, OpKind::kThreadJoin, 1));
  EXPECT_TRUE(joined.covers(1, 2));
}

TEST(Foata, EquivalentInterleavingsShareAFingerprint) {
  const auto a = ev(1, OpKind::kWrite, 10), b = ev(2, OpKind::kWrite, 20),
             c = ev(2, OpKind::kWrite, 10);
  const auto p = ReadPolicy::kReadsCommute;
  // a and b are independent: swapping them keeps the trace.
  EXPECT_EQ(foata_fingerprint({a, b, c}, p), foata_fingerprint({b, a, c}, p));
  // a and c conflict: swapping them makes another trace.
  EXPECT_NE(foata_fingerprint({a, b, c}, p), foata_fingerprint({b, c, a}, p));
}

TEST(ThreadRegistry, IdsAreStableCreationPaths) {
  ThreadRegistry r;
  const ThreadId a = r.child(kMainThread, 0);
  const ThreadId b = r.child(kMainThread, 1);
  const ThreadId c = r.child(a, 0);
  EXPECT_EQ(r.child(kMainThread, 1), b);  // same pair, same id
  EXPECT_EQ(r.name(c), "0.0.0");
  EXPECT_EQ(r.name(b), "0.1");
  EXPECT_EQ(r.intern("0.0.0"), c);
  EXPECT_EQ(r.intern("0.2").value(), r.child(kMainThread, 2));
  EXPECT_FALSE(r.intern("1.0"));
  EXPECT_FALSE(r.intern("0..1"));
}

}  // namespace
}  // namespace weft
