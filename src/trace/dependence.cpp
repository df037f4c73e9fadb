#include "weft/trace/dependence.hpp"

namespace weft {
namespace {

bool touches_mutex(const Operation& op) {
  const Domain d = domain_of(op.kind);
  return d == Domain::kMutex || op.kind == OpKind::kCondWait || op.kind == OpKind::kCondWake;
}

// Operations that are only enabled while their thread holds the mutex / while it is free.
bool needs_held(const Operation& op) {
  return op.kind == OpKind::kMutexUnlock || op.kind == OpKind::kCondWait;
}
bool needs_free(const Operation& op) {
  return op.kind == OpKind::kMutexLock || op.kind == OpKind::kCondWake;
}

// Memory is compared in granules of kMemoryGranule bytes, as the clock tracker keys it: accesses
// to neighbouring bytes of one granule count as dependent (conservative, and consistent with the
// happens-before the tracker computes).
bool overlaps(const Operation& a, const Operation& b) {
  const auto [a_first, a_last] = granules_of(a);
  const auto [b_first, b_last] = granules_of(b);
  return a_first <= b_last && b_first <= a_last;
}

bool causally_linked(const Event& a, const Event& b) {
  // Creation precedes every event of the child; every event of a thread precedes a join of it.
  const auto links = [](const Event& x, const Event& y) {
    return (x.op.kind == OpKind::kThreadCreate || x.op.kind == OpKind::kThreadJoin) &&
           x.op.object == y.thread;
  };
  return links(a, b) || links(b, a);
}

}  // namespace

bool dependent(const Event& a, const Event& b, ReadPolicy policy) {
  if (a.thread == b.thread) return true;
  if (causally_linked(a, b)) return true;
  const Operation& x = a.op;
  const Operation& y = b.op;
  // The end of the process cuts off every other thread, and an atomic section may touch
  // anything: whether an operation ran before one matters, whatever the operation.
  if (domain_of(x.kind) == Domain::kProcess || domain_of(y.kind) == Domain::kProcess) return true;
  if (touches_mutex(x) && touches_mutex(y) && mutex_of(x) == mutex_of(y)) return true;
  const Domain dx = domain_of(x.kind);
  if (dx != domain_of(y.kind)) return false;
  switch (dx) {
    case Domain::kMemory:
      if (!overlaps(x, y)) return false;
      return policy == ReadPolicy::kReadsConflict || !(is_read(x.kind) && is_read(y.kind));
    case Domain::kCond:
      return x.object == y.object;
    case Domain::kSemaphore:
      // Posts commute with each other; waits and trywaits compete for the count.
      return x.object == y.object && !(x.kind == OpKind::kSemPost && y.kind == OpKind::kSemPost);
    case Domain::kThread:
      return x.object == y.object &&
             !(x.kind == OpKind::kThreadJoin && y.kind == OpKind::kThreadJoin);
    default:
      return false;
  }
}

bool may_be_coenabled(const Event& earlier, const Event& later) {
  if (earlier.thread == later.thread) return false;
  if (causally_linked(earlier, later)) return false;
  const Operation& x = earlier.op;
  const Operation& y = later.op;
  if (touches_mutex(x) && touches_mutex(y) && mutex_of(x) == mutex_of(y)) {
    if (needs_held(x) && (needs_free(y) || needs_held(y))) return false;
    if (needs_free(x) && needs_held(y)) return false;
  }
  return true;
}

}  // namespace weft
