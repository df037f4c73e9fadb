// Vector clocks over ThreadIds (happens-before, thesis §2.4 Def. 4).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "weft/trace/thread_id.hpp"

namespace weft {

/// Entry t counts how many events of thread t happen before (or are) the point the clock stands
/// for. Event number k (1-based) of thread t happens before clock C iff C[t] >= k.
class VectorClock {
 public:
  std::uint32_t operator[](ThreadId t) const { return t < c_.size() ? c_[t] : 0; }
  void set(ThreadId t, std::uint32_t v) {
    if (t >= c_.size()) c_.resize(t + 1, 0);
    c_[t] = v;
  }
  void join(const VectorClock& o) {
    if (o.c_.size() > c_.size()) c_.resize(o.c_.size(), 0);
    for (std::size_t i = 0; i < o.c_.size(); ++i) c_[i] = std::max(c_[i], o.c_[i]);
  }
  /// Whether the `count`-th event of thread t (1-based) happens before this clock.
  bool covers(ThreadId t, std::uint32_t count) const { return (*this)[t] >= count; }
  bool leq(const VectorClock& o) const {
    for (std::size_t i = 0; i < c_.size(); ++i)
      if (c_[i] > o[static_cast<ThreadId>(i)]) return false;
    return true;
  }
  std::size_t width() const { return c_.size(); }

 private:
  std::vector<std::uint32_t> c_;
};

}  // namespace weft
