// Vector clocks over ThreadIds (happens-before, thesis §2.4 Def. 4).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "weft/trace/thread_id.hpp"

namespace weft {

/// Entry t counts how many events of thread t happen before (or are) the point the clock stands
/// for. Event number k (1-based) of thread t happens before clock C iff C[t] >= k.
class VectorClock {
 public:
  VectorClock() = default;
  VectorClock(const VectorClock& o) { *this = o; }
  VectorClock& operator=(const VectorClock& o) {
    if (this == &o) return *this;
    width_ = o.width_;
    if (o.width_ <= kInline) {
      small_ = o.small_;
      large_.clear();
    } else {
      large_ = o.large_;
    }
    return *this;
  }
  VectorClock(VectorClock&&) = default;
  VectorClock& operator=(VectorClock&&) = default;

  std::uint32_t operator[](ThreadId t) const { return t < width_ ? data()[t] : 0; }
  void set(ThreadId t, std::uint32_t v) {
    if (t >= width_) widen(t + 1);
    data()[t] = v;
  }
  void join(const VectorClock& o) {
    if (o.width_ > width_) widen(o.width_);
    std::uint32_t* mine = data();
    const std::uint32_t* theirs = o.data();
    for (std::size_t i = 0; i < o.width_; ++i) mine[i] = std::max(mine[i], theirs[i]);
  }
  bool covers(ThreadId t, std::uint32_t count) const { return (*this)[t] >= count; }
  bool leq(const VectorClock& o) const {
    const std::uint32_t* mine = data();
    for (std::size_t i = 0; i < width_; ++i)
      if (mine[i] > o[static_cast<ThreadId>(i)]) return false;
    return true;
  }
  std::size_t width() const { return width_; }

 private:
  // The entries of the first kInline threads are kept inline: copying and joining the clocks of
  // programs with few threads (once per event, in every strategy) allocates nothing.
  static constexpr std::size_t kInline = 14;
  const std::uint32_t* data() const { return width_ <= kInline ? small_.data() : large_.data(); }
  std::uint32_t* data() { return width_ <= kInline ? small_.data() : large_.data(); }
  void widen(std::size_t width) {
    if (width > kInline) {
      if (width_ <= kInline) large_.assign(small_.begin(), small_.begin() + width_);
      large_.resize(width, 0);
    }
    width_ = static_cast<std::uint32_t>(width);
  }
  std::uint32_t width_ = 0;
  std::array<std::uint32_t, kInline> small_{};
  std::vector<std::uint32_t> large_;
};

}  // namespace weft
