// RaceCandidates (explorer/race_candidates.hpp): for each new event, the earlier events it may
// race with, as optimal DPOR asks for them (the happens-before filter is the caller's).
#include "weft/explore/race_candidates.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace weft::explorer {
namespace {

Event event(ThreadId thread, OpKind kind, ObjectKey object, std::uint32_t size = 4) {
  Event e;
  e.thread = thread;
  e.op.kind = kind;
  e.op.object = object;
  e.op.size = size;
  return e;
}

std::vector<std::size_t> candidates(const RaceCandidates& c, const Event& e) {
  std::vector<std::size_t> out;
  c.of(e, out);
  return out;
}

TEST(RaceCandidates, AWriteRacesWithTheReadsSinceTheLastWriteAndAReadWithThatWrite) {
  RaceCandidates c;
  c.add(0, event(1, OpKind::kWrite, 0x100));
  c.add(1, event(2, OpKind::kRead, 0x100));
  c.add(2, event(3, OpKind::kRead, 0x100));
  // Reads commute: a later read's candidate is the write, not the reads.
  EXPECT_EQ(candidates(c, event(4, OpKind::kRead, 0x100)), (std::vector<std::size_t>{0}));
  // A write conflicts with every read since the write before them (those cover the write).
  EXPECT_EQ(candidates(c, event(4, OpKind::kWrite, 0x100)), (std::vector<std::size_t>{1, 2}));
  c.add(3, event(4, OpKind::kWrite, 0x100));
  EXPECT_EQ(candidates(c, event(1, OpKind::kRead, 0x100)), (std::vector<std::size_t>{3}));
  // Other bytes of the same granule have their own history.
  EXPECT_EQ(candidates(c, event(1, OpKind::kRead, 0x104)), (std::vector<std::size_t>{}));
}

TEST(RaceCandidates, ALockRacesWithTheLastAcquisitionOfItsMutexOnly) {
  RaceCandidates c;
  c.add(0, event(1, OpKind::kMutexLock, 0x10, 0));
  c.add(1, event(1, OpKind::kMutexUnlock, 0x10, 0));
  c.add(2, event(2, OpKind::kMutexLock, 0x20, 0));
  EXPECT_EQ(candidates(c, event(3, OpKind::kMutexLock, 0x10, 0)), (std::vector<std::size_t>{0}));
  EXPECT_EQ(candidates(c, event(3, OpKind::kMutexLock, 0x20, 0)), (std::vector<std::size_t>{2}));
  EXPECT_EQ(candidates(c, event(3, OpKind::kMutexLock, 0x30, 0)), (std::vector<std::size_t>{}));
}

TEST(RaceCandidates, ACopyResumesFromWhereItWasTaken) {
  RaceCandidates c;
  c.add(0, event(1, OpKind::kWrite, 0x100));
  const RaceCandidates kept = c;
  c.add(1, event(2, OpKind::kWrite, 0x100));
  EXPECT_EQ(candidates(c, event(3, OpKind::kRead, 0x100)), (std::vector<std::size_t>{1}));
  EXPECT_EQ(candidates(kept, event(3, OpKind::kRead, 0x100)), (std::vector<std::size_t>{0}));
}

}  // namespace
}  // namespace weft::explorer
