// Incremental happens-before (vector clocks) and Foata levels over a sequence of events.
#pragma once

#include <unordered_map>
#include <vector>

#include "weft/trace/byte_classes.hpp"
#include "weft/trace/dependence.hpp"
#include "weft/trace/freed_blocks.hpp"
#include "weft/trace/operation.hpp"
#include "weft/trace/vector_clock.hpp"

namespace weft {

/// Feeds events in execution order and computes each event's vector clock: the join of its
/// thread's previous clock and the clocks of all earlier dependent events, maintained per object
/// with a write clock and an access clock so that reads commute (Saarikivi et al. §II-D, Fig. 3).
/// Thread creation passes the creator's clock to the child; a join receives the joined thread's
/// final clock. Memory is keyed by granule (kMemoryGranule bytes) and within one by the bytes
/// accessed (ByteClasses); an access spanning several granules touches each. It also computes the
/// Foata level of each event (thesis Def. 29): one more than the highest level among its immediate
/// predecessors.
class ClockTracker {
 public:
  explicit ClockTracker(ReadPolicy policy) : policy_(policy) {}

  /// For race detection between visible events: a join then also covers what the joined thread
  /// did after its last visible event (its final stretch of local code, numbered one past its
  /// last event), since it all happened before the join.
  void count_thread_end_at_join() { join_covers_end_ = true; }

  /// Adds the next event and returns its clock.
  const VectorClock& add(const Event& e);

  /// Clock of thread t after its last event (or its creation clock).
  const VectorClock& thread_clock(ThreadId t);
  /// What happens before `e` if it runs next: its thread's clock, and for a store buffer's flush
  /// (x86-TSO) also the clock of the store it flushes, which another thread made (that store
  /// enabled it, as a creation enables a thread's first event). Valid until the next call.
  const VectorClock& clock_before(const Event& e);
  /// The clock `e` would get if executed now, without adding it.
  VectorClock clock_if_executed(const Event& e);
  /// Number of events of thread t added so far.
  std::uint32_t thread_count(ThreadId t) const;
  /// Foata level of the last event added (1-based).
  std::uint32_t last_level() const { return last_level_; }

 private:
  struct Access {
    VectorClock write;   // clock of the last write (for reads to join)
    VectorClock access;  // join of all accesses since (for writes to join)
    std::uint32_t write_level = 0;
    std::uint32_t access_level = 0;
  };
  struct PerThread {
    VectorClock clock;
    std::uint32_t count = 0;
    std::uint32_t level = 0;
  };
  PerThread& thread(ThreadId t);

  ReadPolicy policy_;
  bool join_covers_end_ = false;
  std::vector<PerThread> threads_;
  std::unordered_map<ObjectKey, ByteClasses<Access>> memory_;  // by granule, exact to the byte
  struct FreeClock {
    VectorClock clock;
    std::uint32_t level = 0;
  };
  FreedBlocks<FreeClock> freed_;  // frees, for granules without a history when they ran
  std::unordered_map<ObjectKey, Access> mutexes_, sems_, futexes_, channels_;
  // A condition variable's two parts (cond_footprint): its uncovered waiters, its signals.
  std::unordered_map<ObjectKey, Access> cond_waiters_, cond_signals_;
  Access all_channels_;  // written by selective waits, read by every channel operation
  // Exits and atomic sections without a known footprint depend on every event: they are ordered
  // after every event before them, and every later event after them.
  VectorClock all_;
  std::uint32_t all_level_ = 0;
  VectorClock last_global_;
  std::uint32_t last_global_level_ = 0;
  // Reused by add() to avoid an allocation per event.
  std::vector<Access*> scratch_touched_;
  struct GranuleAccess {
    ByteClasses<Access>* classes;
    ByteMask read_only, written;
  };
  std::vector<GranuleAccess> scratch_granules_;
  std::vector<bool> scratch_reads_;
  std::uint32_t last_level_ = 0;
  // x86-TSO: the clock of each buffered store, by slot key, and clock_before's result.
  std::unordered_map<ObjectKey, VectorClock> buffered_;
  VectorClock scratch_before_;
};

}  // namespace weft
