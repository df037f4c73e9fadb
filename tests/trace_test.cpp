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

// An atomic section that read `reads` and wrote `writes` (addresses of 4-byte ints).
Event section(ThreadId t, std::initializer_list<ObjectKey> reads,
              std::initializer_list<ObjectKey> writes) {
  Event e{t, Operation{OpKind::kAtomicSection, 0, 0, 0, 0}};
  e.op.footprint.known = true;
  for (ObjectKey a : reads) EXPECT_TRUE(e.op.footprint.add(a, 4, false));
  for (ObjectKey a : writes) EXPECT_TRUE(e.op.footprint.add(a, 4, true));
  return e;
}

// Futex operations on one word are ordered with each other; a wait also reads its word, so it
// is ordered with the word's writes (the wait compares it) but not with its reads.
TEST(Dependence, FutexOperationsOnOneWordAndTheWordsWrites) {
  const auto p = ReadPolicy::kReadsCommute;
  const auto wait = ev(1, OpKind::kFutexWait, 64, 4, 0);
  EXPECT_TRUE(dependent(wait, ev(2, OpKind::kFutexWake, 64, 0, 1), p));
  EXPECT_TRUE(dependent(ev(1, OpKind::kFutexWoken, 64, 0), ev(2, OpKind::kFutexWake, 64, 0, 1), p));
  EXPECT_TRUE(dependent(ev(1, OpKind::kFutexWoken, 64, 0), ev(2, OpKind::kFutexWoken, 64, 0), p));
  EXPECT_FALSE(dependent(wait, ev(2, OpKind::kFutexWake, 72, 0, 1), p));
  EXPECT_TRUE(dependent(wait, ev(2, OpKind::kAtomicStore, 64), p));
  EXPECT_TRUE(dependent(wait, ev(2, OpKind::kAtomicRmw, 66, 1), p));
  EXPECT_FALSE(dependent(wait, ev(2, OpKind::kAtomicLoad, 64), p));
  EXPECT_FALSE(dependent(wait, ev(2, OpKind::kAtomicStore, 68), p));
  EXPECT_FALSE(dependent(ev(1, OpKind::kFutexWake, 64, 0, 1), ev(2, OpKind::kWrite, 64), p));
}

// A condition variable in two parts (cond_footprint, POET §3.1 and its Table 3): a lost
// notification (result 1) only observes the uncovered waiters, so lost ones commute with each
// other and with a wake that took a signal; a notification that took effect, a wait and a wake
// that timed out change the waiters; pending operations (result 0) count as taking effect.
Event cond(ThreadId t, OpKind k, std::uint8_t result, bool timed = false) {
  Event e = ev(t, k, 9, 0, 7);
  e.op.result = result;
  e.op.timed = timed;
  return e;
}

TEST(Dependence, LostNotificationsCommuteWithEachOtherAndWithWakes) {
  const auto p = ReadPolicy::kReadsCommute;
  const Event lost = cond(1, OpKind::kCondSignal, 1), lost_all = cond(2, OpKind::kCondBroadcast, 1);
  const Event signal = cond(2, OpKind::kCondSignal, 0), woken = cond(3, OpKind::kCondWake, 1);
  const Event wait = cond(3, OpKind::kCondWait, 0);
  const Event timed_out = cond(3, OpKind::kCondWake, 0, true);
  EXPECT_FALSE(dependent(lost, lost_all, p));
  EXPECT_FALSE(dependent(lost, woken, p));
  EXPECT_TRUE(dependent(lost, signal, p));
  EXPECT_TRUE(dependent(lost, wait, p));
  EXPECT_TRUE(dependent(lost, timed_out, p));
  EXPECT_TRUE(dependent(signal, woken, p));
  EXPECT_TRUE(dependent(woken, cond(2, OpKind::kCondWake, 1), p));
  // A wait and a wake commute on the variable; here they share the mutex.
  EXPECT_TRUE(dependent(wait, cond(2, OpKind::kCondWake, 1), p));
  Event other_mutex = cond(2, OpKind::kCondWake, 1);
  other_mutex.op.partner = 8;
  EXPECT_FALSE(dependent(wait, other_mutex, p));
  // Another condition variable is another object.
  Event elsewhere = signal;
  elsewhere.op.object = 10;
  EXPECT_FALSE(dependent(lost, elsewhere, p));
}

TEST(ClockTracker, LostNotificationsDoNotOrderEachOtherButTheWaitBeforeThemDoes) {
  ClockTracker tracker(ReadPolicy::kReadsCommute);
  const VectorClock first = tracker.add(cond(1, OpKind::kCondSignal, 1));
  const VectorClock second = tracker.add(cond(2, OpKind::kCondBroadcast, 1));
  EXPECT_EQ(second[1], 0u);  // not after the first
  const VectorClock wait = tracker.add(cond(3, OpKind::kCondWait, 0));
  EXPECT_EQ(wait[1], first[1]);  // a wait comes after the lost notifications before it
  EXPECT_EQ(wait[2], second[2]);
  const VectorClock signal = tracker.add(cond(4, OpKind::kCondSignal, 0));
  EXPECT_EQ(signal[3], wait[3]);
  const VectorClock woken = tracker.add(cond(3, OpKind::kCondWake, 1));
  EXPECT_EQ(woken[4], signal[4]);  // the wake comes after the signal it took
  const VectorClock late = tracker.add(cond(5, OpKind::kCondSignal, 1));
  EXPECT_EQ(late[3], wait[3]);  // after the last change of the waiters, not after the wake
}

// A woken thread comes after the wake that woke it, and what the waker wrote before the wake
// happens before what the woken thread does next.
TEST(Dependence, AFreeConflictsWithEveryAccessToItsBlock) {
  const auto p = ReadPolicy::kReadsCommute;
  const auto free_block = ev(1, OpKind::kFree, 1024, 4096);
  EXPECT_TRUE(dependent(free_block, ev(2, OpKind::kRead, 1024 + 4000), p));
  EXPECT_TRUE(dependent(free_block, ev(2, OpKind::kWrite, 1020, 8), p));  // straddles the start
  EXPECT_FALSE(dependent(free_block, ev(2, OpKind::kRead, 1024 + 4096), p));
  EXPECT_TRUE(dependent(free_block, ev(2, OpKind::kFree, 1024, 4096), p));  // a double free
}

// A free records itself only in granules with a history (freed_blocks.hpp); an access to a
// granule nobody touched before the free must still come after it.
TEST(Clocks, AnAccessToAFreedBlockHappensAfterTheFreeWhereverItIs) {
  ClockTracker clocks(ReadPolicy::kReadsCommute);
  clocks.add(ev(1, OpKind::kRead, 1024));  // thread 1 read the first bytes
  const VectorClock freed = clocks.add(ev(1, OpKind::kFree, 1024, 1 << 20));
  const VectorClock late = clocks.add(ev(2, OpKind::kRead, 1024 + 700000));
  EXPECT_GE(late[1], freed[1]);
  const VectorClock outside = clocks.add(ev(3, OpKind::kRead, 1024 + (1 << 20)));
  EXPECT_EQ(outside[1], 0u);
  // And the free comes after the accesses before it.
  ClockTracker other(ReadPolicy::kReadsCommute);
  const VectorClock read = other.add(ev(2, OpKind::kRead, 1024 + 5000));
  const VectorClock freed_later = other.add(ev(1, OpKind::kFree, 1024, 1 << 20));
  EXPECT_GE(freed_later[2], read[2]);
}

TEST(Clocks, AFutexWakeHappensBeforeTheWaitItEnds) {
  ClockTracker clocks(ReadPolicy::kReadsCommute);
  clocks.add(ev(1, OpKind::kFutexWait, 64, 4, 0));
  clocks.add(ev(2, OpKind::kWrite, 200));
  const VectorClock wake = clocks.add(ev(2, OpKind::kFutexWake, 64, 0, 1));
  const VectorClock woken = clocks.add(ev(1, OpKind::kFutexWoken, 64, 0));
  EXPECT_GE(woken[2], wake[2]);
}

TEST(Dependence, AtomicSectionsDependOnWhatTheirFootprintTouches) {
  const auto p = ReadPolicy::kReadsCommute;
  // Pending (footprint not known yet): dependent with everything, even a yield.
  const Event pending{1, Operation{OpKind::kAtomicSection, 0, 0, 0, 0}};
  EXPECT_TRUE(dependent(pending, ev(2, OpKind::kYield, 0), p));
  EXPECT_TRUE(dependent(pending, section(2, {800}, {}), p));
  // Known: sections that only read commute with each other and with reads.
  const Event reads_100 = section(1, {100, 200}, {});
  EXPECT_FALSE(dependent(reads_100, section(2, {100}, {}), p));
  EXPECT_FALSE(dependent(reads_100, ev(2, OpKind::kRead, 100), p));
  EXPECT_TRUE(dependent(reads_100, section(2, {100}, {}), ReadPolicy::kReadsConflict));
  // A write to anything the section read, or anything it wrote, is dependent, to the byte.
  EXPECT_TRUE(dependent(reads_100, ev(2, OpKind::kWrite, 203, 1), p));
  EXPECT_FALSE(dependent(reads_100, ev(2, OpKind::kWrite, 204), p));  // the next int
  const Event writes_300 = section(1, {100}, {300});
  EXPECT_TRUE(dependent(writes_300, ev(2, OpKind::kRead, 300), p));
  EXPECT_TRUE(dependent(writes_300, section(2, {300}, {}), p));
  EXPECT_TRUE(dependent(section(2, {}, {100}), writes_300, p));
  EXPECT_FALSE(dependent(writes_300, section(2, {100, 400}, {400}), p));
  // A section touches no mutex, semaphore or condition variable.
  EXPECT_FALSE(dependent(writes_300, ev(2, OpKind::kMutexLock, 300), p));
  EXPECT_FALSE(dependent(writes_300, ev(2, OpKind::kSemPost, 300), p));
  // ...but an exit is still dependent with it, and thread creation still precedes it.
  EXPECT_TRUE(dependent(writes_300, ev(2, OpKind::kProcessExit, 0), p));
  EXPECT_TRUE(dependent(ev(2, OpKind::kThreadCreate, 1), writes_300, p));
}

TEST(Footprint, KeepsTheBytesOfEachGranuleAndForgetsEverythingWhenFull) {
  Footprint f;
  f.known = true;
  EXPECT_TRUE(f.add(8, 4, false));
  EXPECT_TRUE(f.add(12, 4, true));  // the same granule, other bytes, written
  ASSERT_EQ(f.count, 1u);
  EXPECT_EQ(f.granule(0), 1u);
  EXPECT_EQ(f.read_bytes(0), 0x0f);
  EXPECT_EQ(f.written_bytes(0), 0xf0);
  EXPECT_TRUE(f.add(14, 4, false));  // spans granules 1 and 2
  EXPECT_EQ(f.count, 2u);
  EXPECT_EQ(f.read_bytes(0), 0xcf);
  EXPECT_EQ(f.read_bytes(1), 0x03);
  EXPECT_EQ(f.written_bytes(1), 0x00);
  EXPECT_TRUE(f.add(100, 1, false));
  EXPECT_TRUE(f.add(200, 1, false));
  EXPECT_EQ(f.count, Footprint::kCapacity);
  // A fifth granule does not fit: the footprint becomes unknown (dependent with everything).
  EXPECT_FALSE(f.add(300, 1, true));
  EXPECT_FALSE(f.known);
  EXPECT_EQ(f.count, 0u);
  EXPECT_FALSE(f.add(8, 1, false));
}

TEST(Dependence, NeighbouringBytesAreIndependent) {
  const auto p = ReadPolicy::kReadsCommute;
  // Two ints of one 8-byte granule, and single bytes of a bool array.
  EXPECT_FALSE(dependent(ev(1, OpKind::kWrite, 16), ev(2, OpKind::kWrite, 20), p));
  EXPECT_FALSE(dependent(ev(1, OpKind::kWrite, 16, 1), ev(2, OpKind::kRead, 17, 1), p));
  EXPECT_TRUE(dependent(ev(1, OpKind::kWrite, 16, 8), ev(2, OpKind::kRead, 23, 1), p));
  EXPECT_TRUE(dependent(ev(1, OpKind::kWrite, 22, 4), ev(2, OpKind::kRead, 24, 1), p));
  // A section that wrote one byte of a granule and read another.
  Event s{1, Operation{OpKind::kAtomicSection, 0, 0, 0, 0}};
  s.op.footprint.known = true;
  s.op.footprint.add(32, 1, true);
  s.op.footprint.add(33, 1, false);
  EXPECT_TRUE(dependent(s, ev(2, OpKind::kRead, 32, 1), p));
  EXPECT_FALSE(dependent(s, ev(2, OpKind::kRead, 33, 1), p));
  EXPECT_TRUE(dependent(s, ev(2, OpKind::kWrite, 33, 1), p));
  EXPECT_FALSE(dependent(s, ev(2, OpKind::kWrite, 34, 2), p));
}

// A channel operation on a descriptor that an epoll instance watches names the instance
// (operation.hpp): writes to two channels one instance watches are dependent, since
// epoll_wait lists them in the order they became ready; a selective wait depends on what it
// watches; the clock tracker orders what dependence says is dependent.
TEST(Dependence, ChannelOperationsShareTheEpollInstancesThatWatchThem) {
  const auto p = ReadPolicy::kReadsCommute;
  const auto send = [](ThreadId t, ObjectKey channel, std::initializer_list<ObjectKey> epolls) {
    Event e = ev(t, OpKind::kChannelSend, channel, 0);
    if (epolls.size()) {
      EXPECT_TRUE(set_channels(e.op, epolls));
    }
    return e;
  };
  EXPECT_FALSE(dependent(send(1, 10, {}), send(2, 11, {}), p));
  EXPECT_TRUE(dependent(send(1, 10, {}), send(2, 10, {}), p));
  EXPECT_TRUE(dependent(send(1, 10, {50}), send(2, 11, {50}), p));
  EXPECT_FALSE(dependent(send(1, 10, {50}), send(2, 11, {51}), p));
  EXPECT_TRUE(dependent(send(1, 10, {50, 51}), send(2, 11, {52, 51}), p));
  Event select = ev(3, OpKind::kChannelSelect, 0, 0);
  EXPECT_TRUE(dependent(select, send(1, 10, {}), p));  // watches every channel
  set_watched(select.op, std::initializer_list<ObjectKey>{50});
  EXPECT_TRUE(dependent(select, send(1, 10, {50}), p));
  EXPECT_FALSE(dependent(select, send(1, 10, {}), p));
  Operation too_many{OpKind::kChannelSend, 0, 0, 10, 0};
  EXPECT_FALSE(set_channels(too_many, std::initializer_list<ObjectKey>{1, 2, 3, 4, 5}));
  // epoll_ctl on instance 50 about descriptor 10: ordered with the waits on the instance and
  // with the operations on the descriptor, not with those on other descriptors.
  Event watch = ev(4, OpKind::kChannelWatch, 50, 0);
  EXPECT_TRUE(set_channels(watch.op, std::initializer_list<ObjectKey>{10}));
  EXPECT_TRUE(dependent(watch, select, p));
  EXPECT_TRUE(dependent(watch, send(1, 10, {}), p));
  EXPECT_FALSE(dependent(watch, send(1, 11, {}), p));
  EXPECT_TRUE(dependent(watch, ev(3, OpKind::kChannelSelect, 0, 0), p));

  ClockTracker c(p);
  c.add(send(1, 10, {50}));
  EXPECT_TRUE(c.add(send(2, 11, {50})).covers(1, 1));
  EXPECT_FALSE(c.add(send(3, 12, {51})).covers(1, 1));
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

TEST(ClockTracker, AtomicSectionsAreOrderedByTheirFootprint) {
  ClockTracker c(ReadPolicy::kReadsCommute);
  c.add(section(1, {10}, {20}));
  // Another thread's section on other memory is concurrent with it; a read of what it wrote
  // and a section that writes what it read are ordered after it.
  EXPECT_FALSE(c.add(section(2, {30}, {40})).covers(1, 1));
  EXPECT_TRUE(c.add(ev(3, OpKind::kRead, 20)).covers(1, 1));
  EXPECT_TRUE(c.add(section(4, {}, {10})).covers(1, 1));
  // A section whose footprint is not known is ordered after everything before it.
  const VectorClock all = c.add(Event{5, Operation{OpKind::kAtomicSection, 0, 0, 0, 0}});
  EXPECT_TRUE(all.covers(2, 1));
  EXPECT_TRUE(all.covers(3, 1));
}

TEST(ClockTracker, NeighbouringBytesHaveTheirOwnHistory) {
  ClockTracker c(ReadPolicy::kReadsCommute);
  c.add(ev(1, OpKind::kWrite, 40, 8));  // the whole granule
  c.add(ev(2, OpKind::kWrite, 40, 4));  // its first half
  const VectorClock second_half = c.add(ev(3, OpKind::kRead, 44));
  EXPECT_TRUE(second_half.covers(1, 1));                        // read from thread 1's write
  EXPECT_FALSE(second_half.covers(2, 1));                       // thread 2 wrote other bytes
  const VectorClock both = c.add(ev(4, OpKind::kRead, 42, 4));  // spans the two halves
  EXPECT_TRUE(both.covers(2, 1));
  EXPECT_TRUE(both.covers(1, 1));
  EXPECT_FALSE(both.covers(3, 1));  // reads commute
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

TEST(ThreadRegistry, AStoreBufferIsNamedAfterItsOwner) {
  ThreadRegistry r;
  const ThreadId t = r.child(kMainThread, 1);
  const ThreadId buffer = r.store_buffer(t);
  EXPECT_EQ(r.name(buffer), "0.1.b");
  EXPECT_EQ(r.intern("0.1.b"), buffer);
  EXPECT_TRUE(r.is_store_buffer(buffer));
  EXPECT_FALSE(r.is_store_buffer(t));
  EXPECT_FALSE(r.is_store_buffer(kMainThread));
  EXPECT_FALSE(r.intern("0.1.bb"));
  EXPECT_FALSE(r.intern("0.1."));  // the fuzzer's find: a name ending in a dot
}

// x86-TSO (op_kinds.def): a store and its flush share a slot, which orders them and the fence
// after them; stores of other slots commute with them, and a flush is a write of its location.
TEST(Dependence, AStoreBufferOrdersAStoreItsFlushAndTheFenceOnly) {
  const ThreadId t = 1, buffer = 3, other = 2;
  const ObjectKey slot0 = store_buffer_slot(t, 0), slot1 = store_buffer_slot(t, 1);
  EXPECT_EQ(store_buffer_owner(slot1), t);
  const Event store0 = ev(t, OpKind::kBufferedStore, slot0, 1, 200);
  const Event flush0 = ev(buffer, OpKind::kBufferFlush, 200, 4, slot0);
  const Event flush1 = ev(buffer, OpKind::kBufferFlush, 208, 4, slot1);
  const Event fence1 = ev(t, OpKind::kStoreFence, slot1, 1);
  for (const ReadPolicy p : {ReadPolicy::kReadsCommute, ReadPolicy::kReadsConflict}) {
    EXPECT_TRUE(dependent(store0, flush0, p));
    EXPECT_FALSE(dependent(store0, flush1, p));
    EXPECT_TRUE(dependent(fence1, flush1, p));
    EXPECT_FALSE(dependent(fence1, flush0, p));
    // The buffered store is not yet a write of its location; its flush is.
    EXPECT_FALSE(dependent(store0, ev(other, OpKind::kAtomicLoad, 200), p));
    EXPECT_TRUE(dependent(flush0, ev(other, OpKind::kAtomicLoad, 200), p));
    EXPECT_FALSE(dependent(flush0, ev(other, OpKind::kAtomicLoad, 204), p));
  }
  EXPECT_FALSE(may_be_coenabled(store0, flush0));
  EXPECT_FALSE(may_be_coenabled(flush1, fence1));
  EXPECT_TRUE(may_be_coenabled(flush0, ev(other, OpKind::kAtomicLoad, 200)));
}

}  // namespace
}  // namespace weft
