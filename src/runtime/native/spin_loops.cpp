// The hooks of busy-wait loops (src/instrument/spin_loop_instrumenter.cpp) and the SpinTracker
// behind them. A thread that goes once around such a loop without leaving it and without changing
// anything is stopped (Scheduler::stop_spinning), provided the strategies saw every read of that
// iteration that another thread could change as an event: they then also run the writes that
// would let it leave before those reads, in other executions (SpinTracker says which reads).
#include <cstring>

#include "native_runtime.hpp"
#include "weft/runtime/hooks.h"

namespace weft::runtime::native {
namespace {

std::uint64_t bytes_at(std::uintptr_t address, std::uint32_t size) {
  std::uint64_t bytes = 0;
  std::memcpy(&bytes, reinterpret_cast<const void*>(address), size);
  return bytes;
}

}  // namespace

void SpinTracker::drop_below(std::uintptr_t frame) {
  while (!loops_.empty() && loops_.back().frame < frame) pop_loop();
}

void SpinTracker::pop_loop() {
  net_.resize(loops_.back().first_net);  // the loop's, or a returned callee's: done with
  loops_.pop_back();
}

void SpinTracker::begin_iteration(Loop& l) {
  l.dirt = dirt_;
  l.plain = plain_reads_;
  if (loops_.size() == 1) reads_.clear();  // no enclosing loop still needs them
  l.first_read = reads_.size();
  net_.resize(l.first_net);
}

void SpinTracker::enter(std::uintptr_t frame, std::uint32_t loop) {
  check_writes();
  drop_below(frame);
  if (!loops_.empty() && loops_.back().frame == frame) pop_loop();  // left unseen
  loops_.push_back(Loop{frame, loop, 0, 0, 0, net_.size()});
  begin_iteration(loops_.back());
}

bool SpinTracker::back_edge(std::uintptr_t frame, std::uint32_t loop,
                            std::vector<SpinAccess>& reads) {
  check_writes();
  drop_below(frame);
  if (loops_.empty() || loops_.back().frame != frame || loops_.back().loop != loop) {
    enter(frame, loop);  // entered unseen (a jump into the loop): start afresh
    return false;
  }
  Loop& l = loops_.back();
  for (std::size_t i = l.first_net; i < net_.size(); ++i)
    if (bytes_at(net_[i].address, net_[i].size) != net_[i].before) ++dirt_;
  const bool only_plain_reads = l.plain != plain_reads_ && reads_.size() == l.first_read;
  if (l.dirt == dirt_ && !only_plain_reads) {
    reads.assign(reads_.begin() + static_cast<std::ptrdiff_t>(l.first_read), reads_.end());
    return true;
  }
  begin_iteration(l);
  return false;
}

void SpinTracker::exit(std::uintptr_t frame, std::uint32_t loop) {
  check_writes();
  drop_below(frame);
  if (!loops_.empty() && loops_.back().frame == frame && loops_.back().loop == loop) pop_loop();
  if (loops_.empty()) reads_.clear();
}

void SpinTracker::note_read(const void* address, std::uint64_t size, bool visible) {
  check_writes();
  if (iteration_changed()) return;
  if (!visible) {
    ++plain_reads_;
    return;
  }
  if (size > sizeof(std::uint64_t)) {
    ++dirt_;
    return;
  }
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const auto n = static_cast<std::uint32_t>(size);
  reads_.push_back(SpinAccess{a, n, bytes_at(a, n)});
}

bool SpinTracker::in_callee(std::uintptr_t at, std::uintptr_t stack_pointer) const {
  return stack_pointer != 0 && !loops_.empty() && at >= stack_pointer && at < loops_.back().frame;
}

void SpinTracker::note_atomic_write(const void* address, std::uint64_t size) {
  check_writes();
  if (iteration_changed()) return;
  if (size > sizeof(std::uint64_t)) {
    ++dirt_;
    return;
  }
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const auto n = static_cast<std::uint32_t>(size);
  writes_.push_back(SpinAccess{a, n, bytes_at(a, n)});
}

void SpinTracker::note_plain_write(const void* address, std::uint64_t size,
                                   std::uintptr_t stack_pointer) {
  check_writes();
  if (iteration_changed() || loops_.empty()) return;
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  if (in_callee(a, stack_pointer)) return;
  if (size > sizeof(std::uint64_t)) {
    ++dirt_;
    return;
  }
  const auto n = static_cast<std::uint32_t>(size);
  for (std::size_t i = loops_.back().first_net; i < net_.size(); ++i)
    if (net_[i].address == a && net_[i].size == n) {
      net_[i].writing = true;
      return;
    }
  const std::uint64_t now = bytes_at(a, n);
  net_.push_back(NetWrite{a, n, true, now, now});
}

void SpinTracker::note_change() {
  check_writes();
  if (!loops_.empty()) ++dirt_;
}

void SpinTracker::check_writes_now() {
  for (const SpinAccess& w : writes_)
    if (bytes_at(w.address, w.size) != w.bytes) ++dirt_;
  writes_.clear();
  for (NetWrite& w : net_) {
    const std::uint64_t now = bytes_at(w.address, w.size);
    if (w.writing) {
      w.left = now;
      w.writing = false;
    } else if (now != w.left) {
      ++dirt_;  // another thread wrote there since
      w.left = now;
    }
  }
}

}  // namespace weft::runtime::native

using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;
using weft::runtime::native::SpinAccess;

// The stack pointer of the instrumented function that called the hook, which tells the calls of
// one function apart: just above the hook's return address (x86-64; __builtin_frame_address
// gives the hook a frame pointer).
#define WEFT_CALLER_FRAME() \
  (reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)) + 2 * sizeof(void*))

extern "C" {

__attribute__((noinline)) void __weft_spin_enter(std::uint32_t loop) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || rt->options().keep_spinning) return;
  const std::uintptr_t frame = WEFT_CALLER_FRAME();
  RuntimeScope scope(*rt);
  rt->self().spin.enter(frame, loop);
}

__attribute__((noinline)) void __weft_spin_back_edge(std::uint32_t loop) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || rt->options().keep_spinning) return;
  const std::uintptr_t frame = WEFT_CALLER_FRAME();
  RuntimeScope scope(*rt);
  std::vector<SpinAccess> reads;
  if (!rt->self().spin.back_edge(frame, loop, reads)) return;
  // Inside an atomic section no other thread may run before it ends: stopping here would let
  // them. The loop spins on, as the program would.
  if (rt->self().atomic_depth > 0) return;
  // Whether anything it read differs now: then it would have left, or gone on differently.
  auto released = [reads = std::move(reads)] {
    for (const SpinAccess& r : reads)
      if (weft::runtime::native::bytes_at(r.address, r.size) != r.bytes) return true;
    return false;
  };
  // Its last events are the loop's reads, each with its source line in the report.
  rt->scheduler().stop_spinning(std::move(released));
}

__attribute__((noinline)) void __weft_spin_exit(std::uint32_t loop) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || rt->options().keep_spinning) return;
  const std::uintptr_t frame = WEFT_CALLER_FRAME();
  RuntimeScope scope(*rt);
  rt->self().spin.exit(frame, loop);
}

// A store of the loop to one of its function's locals, which are not hooked otherwise.
void __weft_spin_local_write(void* address, std::uint64_t size) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || !rt->self().spin.active() || rt->self().spin.iteration_changed()) return;
  RuntimeScope scope(*rt);
  rt->self().spin.note_plain_write(address, size);
}

}  // extern "C"
