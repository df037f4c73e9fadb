// DPOR of Flanagan and Godefroid as thesis §2.4 describes it (Fig. 2.5, with its backtracking
// heuristic), in the vector-clock form of Saarikivi et al. Fig. 1. With ReadPolicy::kReadsCommute
// it is the commutative-reads DPOR of Saarikivi et al. §II-D: two reads of one location are
// independent, so neither the happens-before relation nor the race check orders them.
#include <vector>

#include "strategies.hpp"
#include "weft/trace/clock_tracker.hpp"
#include "weft/trace/dependence.hpp"

namespace weft::explorer {
namespace {

class Dpor final : public ExecutionTreeSearch {
 public:
  using ExecutionTreeSearch::ExecutionTreeSearch;

 private:
  void analyse(const Trace& trace, std::size_t first_new) override {
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
    // Threads that exist at state k: main, and every thread whose creation precedes k.
    ThreadSet alive;
    alive.insert(kMainThread);
    ClockTracker clocks(policy_);

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
          const VectorClock& tc = clocks.thread_clock(t);
          // The last event that is dependent with `next`, may be co-enabled with it and does not
          // happen before it (Saarikivi et al. Fig. 1, line 5).
          for (std::size_t j = k; j-- > 0;) {
            const Event& e = ev[j];
            if (e.thread == t || !dependent(e, next, policy_) || !may_be_coenabled(e, next))
              continue;
            if (tc.covers(e.thread, local[j])) continue;
            add_backtrack(j, t);
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
    }
  }
};

}  // namespace

WEFT_STRATEGY_ROWS(
    dpor,
    {"dpor-cr", "DPOR in which reads commute", 20, ReadPolicy::kReadsCommute, kTakesSleepSets,
     [](const StrategyConfig& config) {
       return std::unique_ptr<Strategy>(std::make_unique<Dpor>(config, ReadPolicy::kReadsCommute));
     }},
    {"dpor", "Flanagan-Godefroid DPOR, every two accesses dependent", 30,
     ReadPolicy::kReadsConflict, kTakesSleepSets, [](const StrategyConfig& config) {
       return std::unique_ptr<Strategy>(std::make_unique<Dpor>(config, ReadPolicy::kReadsConflict));
     }})

}  // namespace weft::explorer
