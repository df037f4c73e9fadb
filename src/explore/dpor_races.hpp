// The race analysis of Flanagan–Godefroid DPOR (thesis §2.4, Fig. 2.5), in the vector-clock form
// of Saarikivi et al. Fig. 1: which earlier choice each thread's next operation races with. DPOR
// and the stateful search (strategies/stateful.cpp) both backtrack on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "weft/trace/clock_tracker.hpp"
#include "weft/trace/dependence.hpp"
#include "weft/trace/trace.hpp"

namespace weft::explorer {

/// For each state k >= first_new of `trace` and each thread t alive there that has a next
/// operation (its next event in the trace, or its pending operation at the end), the last
/// earlier event j of another thread that is dependent with it, may be co-enabled with it and
/// does not happen before it (Saarikivi et al. Fig. 1, line 5): calls race(j, t).
template <class Race>
void for_each_race(const Trace& trace, std::size_t first_new, ReadPolicy policy, Race&& race) {
  const auto& ev = trace.events;
  const std::size_t n = ev.size();
  // Each event's number within its thread, and for each thread the index of its next event.
  std::vector<std::uint32_t> local(n);
  std::vector<std::uint32_t> count;
  std::vector<std::size_t> next_of(n, n);
  std::vector<std::size_t> upcoming;  // per thread: index of its next event at the current state
  for (std::size_t k = n; k-- > 0;) {
    const ThreadId t = ev[k].thread;
    if (t >= upcoming.size()) upcoming.resize(t + 1, n);
    next_of[k] = upcoming[t];
    upcoming[t] = k;
  }
  for (std::size_t k = 0; k < n; ++k) {
    const ThreadId t = ev[k].thread;
    if (t >= count.size()) count.resize(t + 1, 0);
    local[k] = ++count[t];
  }
  // Threads that exist at state k: main, every thread whose creation precedes k, and every store
  // buffer (x86-TSO) whose owner's first buffered store precedes k. A buffer's thread is found
  // by its flushes, which name their owner in their slot.
  ThreadSet alive;
  alive.insert(kMainThread);
  std::vector<ThreadId> flusher;  // by owner
  const auto note_flusher = [&](const Event& e) {
    if (e.op.kind != OpKind::kBufferFlush) return;
    const ThreadId owner = store_buffer_owner(e.op.partner);
    if (owner >= flusher.size()) flusher.resize(owner + 1, kNoThread);
    flusher[owner] = e.thread;
  };
  for (const Event& e : ev) note_flusher(e);
  for (const auto& p : trace.pending) note_flusher(Event{p.thread, p.op});
  ClockTracker clocks(policy);

  for (std::size_t k = 0; k <= n; ++k) {
    if (k >= first_new) {
      for (ThreadId t : alive.members()) {
        std::optional<Operation> v;
        if (t < upcoming.size() && upcoming[t] < n) {
          v = ev[upcoming[t]].op;
        } else {
          for (const auto& p : trace.pending)
            if (p.thread == t) v = p.op;
        }
        if (!v) continue;  // finished
        const Event next{t, *v};
        // A store buffer's flush also comes after the store it flushes (clock_before).
        const VectorClock& tc = clocks.clock_before(next);
        for (std::size_t j = k; j-- > 0;) {
          const Event& e = ev[j];
          if (e.thread == t || !dependent(e, next, policy) || !may_be_coenabled(e, next)) continue;
          if (tc.covers(e.thread, local[j])) continue;
          race(j, t);
          break;
        }
      }
    }
    if (k == n) break;
    clocks.add(ev[k]);
    const ThreadId u = ev[k].thread;
    upcoming[u] = next_of[k];
    if (ev[k].op.kind == OpKind::kThreadCreate)
      alive.insert(static_cast<ThreadId>(ev[k].op.object));
    if (ev[k].op.kind == OpKind::kBufferedStore && u < flusher.size() && flusher[u] != kNoThread)
      alive.insert(flusher[u]);
  }
}

}  // namespace weft::explorer
