#include "weft/explore/exploration.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "weft/trace/foata.hpp"

namespace weft::explorer {

std::string bug_key(Outcome outcome, const std::string& message) {
  // A location breaks the locking discipline once, whichever accesses showed it.
  if (outcome == Outcome::kLockDiscipline) {
    const std::size_t at = message.find("{data:");
    if (at != std::string::npos) return "lockset" + message.substr(at, message.find('}', at) - at);
    return message.substr(0, message.find(':'));
  }
  if (outcome != Outcome::kDataRace) return message;
  // The code marks, in either order: the same two instructions race whichever ran first.
  std::vector<std::string> marks;
  for (std::size_t at = message.find("{pc:"); at != std::string::npos;
       at = message.find("{pc:", at + 1))
    marks.push_back(message.substr(at, message.find('}', at) + 1 - at));
  std::sort(marks.begin(), marks.end());
  std::string key = "race";
  for (const std::string& mark : marks) key += mark;
  return key;
}

namespace {

// This process's resident memory (/proc/self/statm), or 0 if unknown.
std::uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  const int got = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return got == 2 ? resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

}  // namespace

FoundBug found_bug(const Trace& trace, const Failure* failure) {
  FoundBug b;
  b.trace = trace;
  if (failure) {
    // The bug happened after `step` events; what ran after it is not part of its report.
    b.outcome = failure->outcome;
    b.message = failure->message;
    b.trace.keep_steps(failure->step);
    b.trace.pending.clear();
    std::erase_if(b.trace.failures, [&](const Failure& f) { return f.step > failure->step; });
    // An execution may hold hundreds of bugs (--all-bugs): each keeps only its own prefix.
    b.trace.events.shrink_to_fit();
    b.trace.enabled.shrink_to_fit();
    b.trace.finished_thread.shrink_to_fit();
    b.trace.sites.shrink_to_fit();
    b.trace.values.shrink_to_fit();
    b.trace.failures.shrink_to_fit();
    b.step = failure->step;
  } else {
    b.outcome = trace.outcome;
    b.message = trace.message;
    b.step = trace.events.size();
  }
  for (const auto& e : b.trace.events) b.schedule.push_back(e.thread);
  return b;
}

ExplorationResult run_exploration(Strategy& strategy, ReadPolicy policy,
                                  const std::function<Trace(const TestDirective&)>& run_test,
                                  const ExplorationLimits& limits) {
  Trace last;
  return run_exploration_in_place(
      strategy, policy,
      [&](const TestDirective& d) -> const Trace& {
        last = run_test(d);
        return last;
      },
      limits);
}

ExplorationResult run_exploration_in_place(
    Strategy& strategy, ReadPolicy policy,
    const std::function<const Trace&(const TestDirective&)>& run_test,
    const ExplorationLimits& limits) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  if (limits.max_seconds > 0)
    strategy.set_deadline(
        Deadline(started + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(limits.max_seconds))));
  ExplorationResult result;
  Statistics& s = result.stats;
  std::unordered_set<std::uint64_t> fingerprints;
  // Each distinct bug's index in result.bugs (SIZE_MAX: counted, not kept).
  std::unordered_map<std::string, std::size_t> known;
  const auto note_bug = [&](const Trace& trace, const Failure* failure) {
    const Outcome outcome = failure ? failure->outcome : trace.outcome;
    const std::string& message = failure ? failure->message : trace.message;
    const auto [it, fresh] = known.try_emplace(bug_key(outcome, message), SIZE_MAX);
    if (!fresh) {
      if (it->second != SIZE_MAX) ++result.bugs[it->second].repeats;
      return;
    }
    if (result.bugs.size() >= limits.max_bugs_kept) {
      ++result.bugs_not_kept;
      return;
    }
    it->second = result.bugs.size();
    result.bugs.push_back(found_bug(trace, failure));
  };

  while (true) {
    if (limits.max_executions && s.executions >= limits.max_executions) break;
    if (limits.max_memory_bytes && s.executions % 64 == 0 &&
        resident_bytes() > limits.max_memory_bytes) {
      result.out_of_memory = true;
      break;
    }
    if (limits.max_seconds > 0 &&
        std::chrono::duration<double>(Clock::now() - started).count() >= limits.max_seconds)
      break;
    std::optional<TestDirective> directive;
    try {
      directive = strategy.next();
    } catch (const TimeLimitReached&) {
      result.stopped_mid_analysis = true;  // (the strategy is asked for nothing after it)
      break;
    }
    if (!directive) {
      result.exhausted = true;
      break;
    }
    const Trace& trace = run_test(*directive);
    if (trace.past_time_limit) {
      result.stopped_mid_execution = true;
      break;
    }
    ++s.executions;
    if (trace.read_fixed_inputs) result.fixed_inputs = true;
    result.unrestored_state.insert(trace.unrestored_state.begin(), trace.unrestored_state.end());
    result.caveats.insert(trace.caveats.begin(), trace.caveats.end());
    s.events += trace.events.size();
    s.longest_execution = std::max<std::uint64_t>(s.longest_execution, trace.events.size());
    if (trace.diverged_at) ++s.diverged;
    switch (trace.outcome) {
      case Outcome::kSleepBlocked:
        ++s.sleep_blocked;
        break;
      case Outcome::kSpinBlocked:
        ++s.spin_blocked;
        break;
      case Outcome::kUnsupported:
        result.unsupported = trace.message;
        break;
      default:
        break;
    }
    if (is_maximal(trace.outcome)) {
      ++s.complete;
      if (limits.count_traces) fingerprints.insert(foata_fingerprint(trace.events, policy));
    }
    // A bug may follow something that is not one (a thread stopped by the thread bound while
    // the others run on and fail): every recorded failure counts.
    const bool bug =
        is_bug(trace.outcome) || std::any_of(trace.failures.begin(), trace.failures.end(),
                                             [](const Failure& f) { return is_bug(f.outcome); });
    const std::size_t known_bugs = result.bugs.size();
    if (bug) {
      ++s.bugs;
      if (is_whole_execution_bug(trace.outcome)) note_bug(trace, nullptr);
      for (const auto& f : trace.failures)
        if (is_bug(f.outcome)) note_bug(trace, &f);
      for (std::size_t i = known_bugs; i < result.bugs.size(); ++i)
        result.bugs[i].execution = s.executions;
    }
    // A bound that stopped the execution below a state explored before left nothing out.
    bool bound_gap = false;
    try {
      bound_gap = observe_and_tell_bound_gap(strategy, trace);
    } catch (const TimeLimitReached&) {
      result.stopped_mid_analysis = true;
      break;
    }
    if (bound_gap) {
      ++(trace.outcome == Outcome::kTimeout ? s.timeouts : s.bound_reached);
      if (!result.hit_bound) result.first_bound_message = trace.message;
      result.hit_bound = true;
    }
    if (const InputStatistics* inputs = strategy.input_statistics()) s.inputs = *inputs;
    if (const SizeEstimate* estimate = strategy.size_estimate()) s.estimate = *estimate;
    if (limits.on_execution) {
      s.seconds = std::chrono::duration<double>(Clock::now() - started).count();
      limits.on_execution(s);
    }
    if (bug && limits.stop_on_first_bug) break;
    if (limits.stop_at &&
        std::any_of(result.bugs.begin() + known_bugs, result.bugs.end(), limits.stop_at))
      break;
    if (!result.unsupported.empty()) break;
  }
  // The last next() may have asked the solver too.
  if (const InputStatistics* inputs = strategy.input_statistics()) s.inputs = *inputs;
  if (const UnfoldingView* u = strategy.unfolding()) s.unfolding = u->statistics();
  if (const StateMatching* m = strategy.state_matching()) s.state_matching = *m;
  result.uncovered = strategy.uncovered();
  result.strategy_gaps = strategy.gaps();
  result.coverage = strategy.coverage();
  result.answered_by = strategy.answered_by();
  if (result.exhausted && strategy.answer_covers_bounds()) result.hit_bound = false;
  s.traces = fingerprints.size();
  s.traces_counted = limits.count_traces;
  s.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace weft::explorer
