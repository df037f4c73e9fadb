#include "weft/trace/dependence.hpp"

namespace weft {
namespace {

bool touches_mutex(const Operation& op) {
  return domain_of(op.kind) == Domain::kMutex || takes_mutex(op.kind) || gives_mutex(op.kind);
}

// Operations that are only enabled while their thread holds the mutex / while it is free.
bool needs_held(const Operation& op) {
  return gives_mutex(op.kind);
}
bool needs_free(const Operation& op) {
  return takes_mutex(op.kind);
}

// Memory is compared byte by byte: accesses to neighbouring variables are independent, as in the
// clock tracker. An atomic section conflicts where one of its accesses does.
bool memory_conflict(const Operation& x, const Operation& y, ReadPolicy policy) {
  const bool reads_conflict = policy == ReadPolicy::kReadsConflict;
  if (domain_of(x.kind) == Domain::kMemory && domain_of(y.kind) == Domain::kMemory &&
      x.kind != OpKind::kBufferFlush && y.kind != OpKind::kBufferFlush) {
    if (x.object >= byte_end(y.object, y.size) || y.object >= byte_end(x.object, x.size))
      return false;
    return reads_conflict || !(is_read(x.kind) && is_read(y.kind));
  }
  bool conflict = false;
  for_each_access(x, [&](ObjectKey xg, ByteMask x_read, ByteMask x_written) {
    for_each_access(y, [&](ObjectKey yg, ByteMask y_read, ByteMask y_written) {
      if (xg != yg) return;
      const unsigned x_all = x_read | x_written, y_all = y_read | y_written;
      if ((x_written & y_all) || (y_written & x_all) || (reads_conflict && (x_all & y_all)))
        conflict = true;
    });
  });
  return conflict;
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
  // The end of the process cuts off every other thread, and an atomic section whose footprint
  // is not known may touch anything: whether an operation ran before one matters, whatever it is.
  if (touches_everything(x) || touches_everything(y)) return true;
  if (touches_mutex(x) && touches_mutex(y) && mutex_of(x) == mutex_of(y)) return true;
  // Futex operations on one word: which wait a wake reaches, and whether a wait starts before
  // or after a wake, depend on their order (two waits included, conservatively). A wait's read
  // of the word is compared with the word's writes below.
  if (domain_of(x.kind) == Domain::kFutex && domain_of(y.kind) == Domain::kFutex &&
      x.object == y.object)
    return true;
  if (accesses_memory(x) && accesses_memory(y)) return memory_conflict(x, y, policy);
  const Domain dx = domain_of(x.kind);
  if (dx != domain_of(y.kind)) return false;
  switch (dx) {
    case Domain::kCond:
      return x.object == y.object && cond_footprints_conflict(x, y);
    case Domain::kSemaphore:
      // Posts commute with each other; waits and trywaits compete for the count.
      return x.object == y.object && !(x.kind == OpKind::kSemPost && y.kind == OpKind::kSemPost);
    case Domain::kThread:
      return x.object == y.object &&
             !(x.kind == OpKind::kThreadJoin && y.kind == OpKind::kThreadJoin);
    case Domain::kChannel: {
      // What a send, receive or close does depends on every earlier one on its channel (the
      // bytes, their order, the end), and so does an epoll_wait on an instance watching it. A
      // selective wait depends on the channels it watches; one whose channels are not known
      // depends on every channel operation, as a write of "all channels" that each channel
      // operation reads (clock_tracker.cpp).
      if (on_every_channel(x) || on_every_channel(y)) return true;
      bool shared = false;
      for_each_channel(
          x, [&](ObjectKey a) { for_each_channel(y, [&](ObjectKey b) { shared |= a == b; }); });
      return shared;
    }
    default:
      return false;
  }
}

bool may_be_coenabled(const Event& earlier, const Event& later) {
  if (earlier.thread == later.thread) return false;
  if (causally_linked(earlier, later)) return false;
  const Operation& x = earlier.op;
  const Operation& y = later.op;
  // An exit runs only when no other thread can: it is co-enabled with other exits only.
  if ((x.kind == OpKind::kProcessExit) != (y.kind == OpKind::kProcessExit)) return false;
  // x86-TSO: a store's flush can run only once the store is buffered, and a fence only once its
  // last store is flushed (op_kinds.def): the one enables the other.
  if (x.kind == OpKind::kBufferedStore && y.kind == OpKind::kBufferFlush && y.partner == x.object)
    return false;
  if (x.kind == OpKind::kBufferFlush && y.kind == OpKind::kStoreFence && x.partner == y.object)
    return false;
  if (touches_mutex(x) && touches_mutex(y) && mutex_of(x) == mutex_of(y)) {
    if (needs_held(x) && (needs_free(y) || needs_held(y))) return false;
    if (needs_free(x) && needs_held(y)) return false;
  }
  return true;
}

}  // namespace weft
