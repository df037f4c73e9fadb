// What one thread's code does to memory between two of its events, with --points=sync and the
// thread model on (Trace::segments): the reads of bytes it had not written itself, in order and
// with the values they see, and the granules it writes. A thread runs alone between two of its
// events, so nothing else changes the memory it reads while the segment lasts; what it wrote is
// read back when the segment ends.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "weft/trace/trace.hpp"

namespace weft::runtime::native {

class SegmentRecorder {
 public:
  /// Beyond these, a segment is opaque: the thread model does not follow loops over arrays,
  /// and the record stays small on the path of every execution.
  static constexpr std::size_t kMaxReads = 64;
  static constexpr std::size_t kMaxGranules = 64;

  /// A new segment, after step `after_step` (its thread's event, or its creation).
  void start(std::uint32_t after_step) {
    after_step_ = after_step;
    open_ = true;
    opaque_ = false;
    reads_.clear();
    written_.clear();
  }
  bool open() const { return open_; }
  /// The segment did something its record cannot say.
  void make_opaque() {
    opaque_ = true;
    reads_.clear();
    written_.clear();
  }
  /// Before the thread reads [addr, addr+size).
  void read(const void* addr, std::uint64_t size) {
    if (!open_ || opaque_) return;
    if (size > 8 * kMaxReads) return make_opaque();
    for_each_piece(addr, size, [&](ObjectKey at, unsigned first, unsigned count) {
      if (opaque_) return;
      const ObjectKey granule = at - first;
      const std::uint8_t bytes = mask(first, count);
      const std::uint8_t mine = written_mask(granule);
      if ((mine & bytes) == bytes) return;  // it reads what it wrote itself
      if (mine & bytes) return make_opaque();
      for (const PlainAccess& r : reads_)
        if (r.address == at && r.size == count) return;  // nothing changed it since
      if (reads_.size() == kMaxReads) return make_opaque();
      PlainAccess r;
      r.address = at;
      r.size = static_cast<std::uint8_t>(count);
      std::memcpy(&r.value, reinterpret_cast<const void*>(at), count);
      reads_.push_back(r);
    });
  }
  /// Before the thread writes [addr, addr+size).
  void write(const void* addr, std::uint64_t size) {
    if (!open_ || opaque_) return;
    if (size > 8 * kMaxGranules) return make_opaque();
    for_each_piece(addr, size, [&](ObjectKey at, unsigned first, unsigned count) {
      if (opaque_) return;
      const ObjectKey granule = at - first;
      for (auto& w : written_)
        if (w.first == granule) {
          w.second |= mask(first, count);
          return;
        }
      if (written_.size() == kMaxGranules) return make_opaque();
      written_.emplace_back(granule, mask(first, count));
    });
  }
  /// Ends the segment of `thread`: its accesses are appended to `accesses` (the written bytes
  /// as memory holds them now).
  Segment close(ThreadId thread, std::vector<PlainAccess>& accesses) {
    open_ = false;
    Segment s;
    s.after_step = after_step_;
    s.thread = thread;
    s.opaque = opaque_;
    s.reads_from = static_cast<std::uint32_t>(accesses.size());
    s.read_count = static_cast<std::uint32_t>(reads_.size());
    accesses.insert(accesses.end(), reads_.begin(), reads_.end());
    s.writes_from = static_cast<std::uint32_t>(accesses.size());
    s.write_count = static_cast<std::uint32_t>(written_.size());
    for (const auto& [granule, bytes] : written_) {
      PlainAccess w;
      w.address = granule;
      w.mask = bytes;
      std::uint8_t now[8];
      std::memcpy(now, reinterpret_cast<const void*>(granule), 8);
      for (unsigned b = 0; b < 8; ++b)
        if (bytes >> b & 1) w.value |= std::uint64_t{now[b]} << (8 * b);
      accesses.push_back(w);
    }
    return s;
  }
  /// Whether the closed segment said nothing (no access, not opaque).
  bool said_nothing() const { return !opaque_ && reads_.empty() && written_.empty(); }

 private:
  static std::uint8_t mask(unsigned first, unsigned count) {
    return static_cast<std::uint8_t>(((1u << count) - 1) << first);
  }
  std::uint8_t written_mask(ObjectKey granule) const {
    for (const auto& w : written_)
      if (w.first == granule) return w.second;
    return 0;
  }
  // Calls f(address, first byte in its granule, byte count) for each granule's part.
  template <typename F>
  static void for_each_piece(const void* addr, std::uint64_t size, F f) {
    auto at = reinterpret_cast<ObjectKey>(addr);
    while (size > 0) {
      const auto first = static_cast<unsigned>(at % 8);
      const auto count = static_cast<unsigned>(std::min<std::uint64_t>(size, 8 - first));
      f(at, first, count);
      at += count;
      size -= count;
    }
  }

  std::uint32_t after_step_ = 0;
  bool open_ = false;
  bool opaque_ = false;
  std::vector<PlainAccess> reads_;
  std::vector<std::pair<ObjectKey, std::uint8_t>> written_;  ///< granule address, bytes
};

}  // namespace weft::runtime::native
