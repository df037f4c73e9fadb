// Happens-before data-race detection for plain accesses when they are not scheduling points
// (--points=sync; POET §4.4, ExitBlock §4.1): an access races with an earlier conflicting access
// of another thread that does not happen before it. Happens-before comes from the visible events
// (locks, condition variables, semaphores, atomics, create/join) through the clock tracker, or
// under RC11 from the RC11 machine, where only a release synchronises with an acquire that reads
// from it (docs/memory-models.md).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "weft/runtime/scheduler.hpp"
#include "weft/trace/clock_tracker.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft::runtime::native {

class RaceDetector {
 public:
  RaceDetector() : clocks_(ReadPolicy::kReadsCommute) { clocks_.count_thread_end_at_join(); }

  /// Feeds the next visible event of the execution.
  void on_event(const Event& e) { clocks_.add(e); }
  /// Under RC11 (`scheduler` not null), happens-before is the RC11 machine's, by
  /// Scheduler::rc11_clock, where each atomic access is added right after it is checked here.
  void follow_rc11(runtime::Scheduler* scheduler) { rc11_ = scheduler; }

  struct Access {
    ThreadId thread = kNoThread;
    std::uintptr_t address = 0;
    std::size_t size = 0;
    bool write = false;
    bool atomic = false;     ///< atomic accesses never race with each other
    std::uint64_t site = 0;  ///< code address, for the report
    /// A free of the block [address, address+size): a write of all of it that ends what the
    /// detector keeps about its bytes; only the free itself is kept, for later accesses to the
    /// freed block (see `in_freed_block`).
    bool free = false;
    /// The heap shadow says the access touches a freed block (it is a use after free): it is
    /// also checked against the free, which races with it unless it happens before it.
    bool in_freed_block = false;
  };

  /// Records an access; returns a one-line report for each earlier access it races with (each
  /// pair of sites is reported once per execution). Every pair counts: race-directed scheduling
  /// points promote the sites of each reported race, and an access that a later write of the
  /// same race supersedes here may race in no other execution. Sites and the address appear as
  /// {pc:HEX} and {data:HEX} for the driver to symbolize.
  std::vector<std::string> access(const Access& a, const ThreadRegistry& threads);

 private:
  struct Entry {
    ThreadId thread;
    std::uint32_t epoch;  ///< the access happens before clock C iff C[thread] >= epoch
    /// Under RC11, its epoch by the clock tracker, where every atomic synchronises as under
    /// sequential consistency: a race that this order would not have is one RC11 alone allows,
    /// which the report says.
    std::uint32_t sc_epoch;
    std::uint32_t size;  ///< of the whole access
    std::uint8_t bytes;  ///< which bytes of the granule
    bool write;
    bool atomic;
    std::uint64_t site;
  };
  struct Cell {
    std::vector<Entry> entries;
  };
  // A block freed in this execution, by its start address.
  struct Freed {
    std::uintptr_t end;
    ThreadId thread;
    std::uint32_t epoch;
    std::uint64_t site;
  };

  // The report of a race between free `f` of the block at `start` and access `a`, unless the
  // free happens before it or the pair was reported already.
  void check_free(const Access& a, std::uintptr_t start, const Freed& f,
                  const ThreadRegistry& threads, std::vector<std::string>& reports);

  // Whether `a`, in its thread's `epoch`, repeats what the last entry of the cell of the granule
  // accessed last says: nothing to check or record then (race_detector.cpp).
  bool repeats_last(const Access& a, std::uint32_t epoch) const;

  const VectorClock& clock_of(ThreadId t) {
    return rc11_ ? rc11_->rc11_clock(t) : clocks_.thread_clock(t);
  }

  ClockTracker clocks_;
  runtime::Scheduler* rc11_ = nullptr;
  std::unordered_map<std::uintptr_t, Cell> shadow_;
  // The granule accessed last and its cell (a node of shadow_: it stays where it is until
  // erased, and a free, the only eraser, forgets it).
  std::uintptr_t last_granule_ = 0;
  Cell* last_cell_ = nullptr;
  std::set<std::pair<std::uint64_t, std::uint64_t>> reported_;
  std::map<std::uintptr_t, Freed> freed_;
};

}  // namespace weft::runtime::native
