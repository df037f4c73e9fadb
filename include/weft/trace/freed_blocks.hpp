// Frees (OpKind::kFree) write every byte of their block, and a block can be large. The
// per-granule histories (ClockTracker's, optimal DPOR's race candidates) therefore record a
// free only in the granules that already have a history, and keep the free itself here, by
// block, for the granules an event touches later: cost by what was accessed, not by block size.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "weft/trace/operation.hpp"

namespace weft {

/// The frees of an execution so far, by block: [start, end) and what the history keeps of it.
template <class T>
class FreedBlocks {
 public:
  bool empty() const { return blocks_.empty(); }

  /// Records the free of [start, start+size); a later free of the same block replaces it (it
  /// comes after it: two frees of one block are dependent).
  void add(ObjectKey start, std::uint64_t size, T value) {
    const ObjectKey end = byte_end(start, size);
    longest_ = std::max(longest_, end - start);
    blocks_.insert_or_assign(start, std::pair<ObjectKey, T>{end, std::move(value)});
  }

  /// Calls f(value) for each recorded free whose block overlaps [start, start+size).
  template <class F>
  void for_each_overlapping(ObjectKey start, std::uint64_t size, F&& f) const {
    const ObjectKey end = byte_end(start, size);
    auto it = blocks_.lower_bound(end);
    while (it != blocks_.begin()) {
      --it;
      if (it->first + longest_ <= start) break;  // no block starting this early reaches `start`
      if (it->second.first > start) f(it->second.second);
    }
  }

  /// Calls f(start, size) for each extent of memory `op` accesses: its bytes for a memory
  /// operation, each granule of an atomic section's footprint.
  template <class F>
  static void for_each_extent(const Operation& op, F&& f) {
    if (op.kind == OpKind::kAtomicSection) {
      for_each_access(
          op, [&](ObjectKey g, ByteMask, ByteMask) { f(g * kMemoryGranule, kMemoryGranule); });
    } else if (accesses_memory(op)) {
      f(op.object, op.size);
    }
  }

 private:
  std::map<ObjectKey, std::pair<ObjectKey, T>> blocks_;
  ObjectKey longest_ = 0;
};

/// Calls f(granule, history, bytes) for each granule of [start, start+size) that `histories`
/// (a map from granule to history) has, visiting whichever of the two is smaller.
template <class Map, class F>
void for_each_granule_with_history(Map& histories, ObjectKey start, std::uint64_t size, F&& f) {
  const auto [first, last] = granule_span(start, size);
  if (last - first < histories.size()) {
    for (ObjectKey g = first; g <= last; ++g)
      if (auto it = histories.find(g); it != histories.end())
        f(g, it->second, bytes_in_granule(start, size, g));
  } else {
    for (auto& [g, history] : histories)
      if (g >= first && g <= last) f(g, history, bytes_in_granule(start, size, g));
  }
}

}  // namespace weft
