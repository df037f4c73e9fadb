// One thread's x86-TSO store buffer (docs/memory-models.md): the stores it made that other
// threads do not see yet, oldest first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "weft/trace/operation.hpp"

namespace weft::runtime {

/// A store waiting in a buffer: `size` (at most 8) bytes for `location`, written to `where` when
/// flushed (nullptr once the location's object is gone: the flush then writes nothing).
struct BufferedStore {
  ObjectKey location = 0;
  void* where = nullptr;
  std::uint32_t size = 0;
  std::uint32_t slot = 0;  // its number among its thread's buffered stores (store_buffer_slot)
  std::uint64_t site = 0;
  unsigned char bytes[8] = {};
};

class StoreBuffer {
 public:
  bool empty() const { return front_ == entries_.size(); }
  const BufferedStore& oldest() const { return entries_[front_]; }
  void push(const BufferedStore& store) { entries_.push_back(store); }
  /// Gives the newest store its bytes (one made before they were known).
  void complete_newest(const void* bytes) {
    if (!empty()) std::memcpy(entries_.back().bytes, bytes, entries_.back().size);
  }
  /// Takes the oldest store out, writing it to its location.
  void flush_oldest() {
    const BufferedStore& s = entries_[front_++];
    if (s.where) std::memcpy(s.where, s.bytes, s.size);
    if (empty()) clear();
  }
  void clear() {
    entries_.clear();
    front_ = 0;
  }
  /// Overlays on `out`, the `size` bytes memory holds at `location`, the bytes of this buffer's
  /// stores to them, newest last: what the owner's load reads (x86 forwards its own stores).
  void forward(ObjectKey location, std::uint32_t size, unsigned char* out) const {
    for (std::size_t i = front_; i < entries_.size(); ++i) {
      const BufferedStore& s = entries_[i];
      const ObjectKey from = std::max(s.location, location);
      const ObjectKey to = std::min(s.location + s.size, location + size);
      if (from >= to) continue;
      std::memcpy(out + (from - location), s.bytes + (from - s.location), to - from);
    }
  }
  /// The object at `location` is gone: its stores still leave the buffer in order, but write
  /// nothing.
  void forget(ObjectKey location, std::uint64_t size) {
    for (std::size_t i = front_; i < entries_.size(); ++i)
      if (entries_[i].location < location + size &&
          location < entries_[i].location + entries_[i].size)
        entries_[i].where = nullptr;
  }

 private:
  std::vector<BufferedStore> entries_;
  std::size_t front_ = 0;
};

/// The operation that flushes `s`: a write of its location that also writes its slot.
inline Operation flush_operation(ThreadId owner, const BufferedStore& s) {
  return Operation{OpKind::kBufferFlush, 0, s.size, s.location, store_buffer_slot(owner, s.slot)};
}

}  // namespace weft::runtime
