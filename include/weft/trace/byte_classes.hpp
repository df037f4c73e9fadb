// Per-granule memory state kept exact to the byte (dependence.md: "Memory").
#pragma once

#include <vector>

#include "weft/trace/operation.hpp"

namespace weft {

/// The bytes of one memory granule, partitioned into classes whose bytes have had the same
/// accesses, each with a `State` (clocks, the last writer...). An access to part of a class
/// splits it, the new class starting as a copy, so each byte's state is exactly that of the
/// accesses that touched it. The common cases, one variable per granule or a few aligned ones,
/// keep one class per variable; the first class is stored inline.
template <class State>
class ByteClasses {
 public:
  /// Splits every class that `bytes` covers in part, so that each lies inside or outside it.
  void split(ByteMask bytes) {
    split_one(first_, bytes);
    for (std::size_t i = 0, n = more_.size(); i < n; ++i) split_one(more_[i], bytes);
  }

  /// Calls `f(state)` for each class that shares a byte with `bytes` (after split(bytes):
  /// exactly the classes it covers).
  template <class F>
  void for_each(ByteMask bytes, F&& f) {
    if (first_.bytes & bytes) f(first_.state);
    for (Class& c : more_)
      if (c.bytes & bytes) f(c.state);
  }
  template <class F>
  void for_each(ByteMask bytes, F&& f) const {
    if (first_.bytes & bytes) f(first_.state);
    for (const Class& c : more_)
      if (c.bytes & bytes) f(c.state);
  }

 private:
  struct Class {
    ByteMask bytes = 0xFF;
    State state{};
  };

  void split_one(Class& c, ByteMask bytes) {
    const auto inside = static_cast<ByteMask>(c.bytes & bytes);
    const auto outside = static_cast<ByteMask>(c.bytes & ~bytes);
    if (inside == 0 || outside == 0) return;
    c.bytes = inside;
    Class rest{outside, c.state};  // copied before more_ may reallocate under `c`
    more_.push_back(std::move(rest));
  }

  Class first_;
  std::vector<Class> more_;
};

}  // namespace weft
