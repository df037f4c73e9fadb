#include "weft/explore/exploration.hpp"

#include <unordered_set>

#include "weft/trace/foata.hpp"

namespace weft::explorer {

ExplorationResult run_exploration(Strategy& strategy, ReadPolicy policy,
                                  const std::function<Trace(const TestDirective&)>& run_test,
                                  const ExplorationLimits& limits) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  ExplorationResult result;
  Statistics& s = result.stats;
  std::unordered_set<std::uint64_t> fingerprints;
  std::unordered_set<std::string> messages;

  while (true) {
    if (limits.max_executions && s.executions >= limits.max_executions) break;
    if (limits.max_seconds > 0 &&
        std::chrono::duration<double>(Clock::now() - started).count() >= limits.max_seconds)
      break;
    auto directive = strategy.next();
    if (!directive) {
      result.exhausted = true;
      break;
    }
    Trace trace = run_test(*directive);
    ++s.executions;
    s.events += trace.events.size();
    if (trace.diverged_at) ++s.diverged;
    switch (trace.outcome) {
      case Outcome::kSleepBlocked: ++s.sleep_blocked; break;
      case Outcome::kBoundReached:
        ++s.bound_reached;
        result.hit_bound = true;
        break;
      default: break;
    }
    if (is_maximal(trace.outcome)) {
      ++s.complete;
      if (limits.count_traces) fingerprints.insert(foata_fingerprint(trace.events, policy));
    }
    const bool bug = is_bug(trace.outcome);
    if (bug) {
      ++s.bugs;
      if (messages.insert(trace.message).second) {
        FoundBug b;
        b.outcome = trace.outcome;
        b.message = trace.message;
        for (const auto& e : trace.events) b.schedule.push_back(e.thread);
        b.trace = trace;
        result.bugs.push_back(std::move(b));
      }
    }
    strategy.observe(trace);
    if (bug && limits.stop_on_first_bug) break;
  }
  s.traces = fingerprints.size();
  s.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace weft::explorer
