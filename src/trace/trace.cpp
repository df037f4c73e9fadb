#include "weft/trace/trace.hpp"

namespace weft {

bool is_bug(Outcome o) {
  return o == Outcome::kDeadlock || o == Outcome::kAssertionFailure ||
         o == Outcome::kUncaughtException || o == Outcome::kMisuse || o == Outcome::kDataRace ||
         o == Outcome::kCrash || o == Outcome::kLivelock || is_memory_error(o) ||
         o == Outcome::kSanitizerReport || o == Outcome::kGlobalState ||
         o == Outcome::kLockDiscipline;
}

bool is_memory_error(Outcome o) {
  return o >= Outcome::kUseAfterFree && o <= Outcome::kMemoryLeak;
}

bool is_whole_execution_bug(Outcome o) {
  return o == Outcome::kDeadlock || o == Outcome::kLivelock;
}

bool is_maximal(Outcome o) {
  return o == Outcome::kComplete || o == Outcome::kDeadlock || o == Outcome::kDiscarded ||
         o == Outcome::kLivelock;
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kComplete:
      return "complete";
    case Outcome::kDeadlock:
      return "deadlock";
    case Outcome::kAssertionFailure:
      return "assertion failure";
    case Outcome::kUncaughtException:
      return "uncaught exception";
    case Outcome::kMisuse:
      return "misuse";
    case Outcome::kBoundReached:
      return "bound reached";
    case Outcome::kSleepBlocked:
      return "sleep-set blocked";
    case Outcome::kDataRace:
      return "data race";
    case Outcome::kCrash:
      return "crash";
    case Outcome::kUnsupported:
      return "unsupported operation";
    case Outcome::kDiscarded:
      return "discarded";
    case Outcome::kTimeout:
      return "time limit";
    case Outcome::kSpinBlocked:
      return "spin blocked";
    case Outcome::kLivelock:
      return "livelock";
    case Outcome::kUseAfterFree:
      return "use after free";
    case Outcome::kHeapOverflow:
      return "heap buffer overflow";
    case Outcome::kDoubleFree:
      return "double free";
    case Outcome::kInvalidFree:
      return "invalid free";
    case Outcome::kFreedRealloc:
      return "realloc of freed memory";
    case Outcome::kMismatchedFree:
      return "mismatched free";
    case Outcome::kMemoryLeak:
      return "memory leak";
    case Outcome::kSanitizerReport:
      return "sanitizer report";
    case Outcome::kGlobalState:
      return "global state";
    case Outcome::kLockDiscipline:
      return "locking discipline violation";
  }
  return "unknown";
}

std::optional<Operation> Trace::pending_at(std::size_t k, ThreadId t) const {
  for (std::size_t i = k; i < events.size(); ++i)
    if (events[i].thread == t) return events[i].op;
  for (const auto& p : pending)
    if (p.thread == t) return p.op;
  return std::nullopt;
}

void Trace::keep_steps(std::size_t steps) {
  const auto keep = [steps](auto& per_step) {
    if (per_step.size() > steps) per_step.resize(steps);
  };
  keep(events);
  keep(enabled);
  keep(finished_thread);
  keep(sites);
  keep(values);
  keep(local_states);
  keep(options);
  keep(choices);
  keep(graph);
  std::erase_if(library_callers, [steps](const auto& caller) { return caller.first >= steps; });
  std::erase_if(older_stores, [steps](const auto& older) { return older.step >= steps; });
  std::erase_if(weak_steps, [steps](std::uint32_t step) { return step >= steps; });
  std::erase_if(taken_stores, [steps](const auto& taken) { return taken.step >= steps; });
}

void Trace::clear_steps() {
  keep_steps(0);
}

std::vector<std::size_t> stores_still_buffered(const Trace& trace, std::size_t load) {
  std::vector<std::size_t> out;
  if (load >= trace.events.size() || trace.events[load].op.kind != OpKind::kAtomicLoad) return out;
  const Operation& l = trace.events[load].op;
  for (std::size_t j = 0; j < load; ++j) {
    const Operation& s = trace.events[j].op;
    if (s.kind != OpKind::kBufferedStore || s.partner >= byte_end(l.object, l.size) ||
        l.object >= byte_end(s.partner, s.size))
      continue;
    bool flushed = false;
    for (std::size_t k = j + 1; k < load && !flushed; ++k)
      flushed =
          trace.events[k].op.kind == OpKind::kBufferFlush && trace.events[k].op.partner == s.object;
    if (!flushed) out.push_back(j);
  }
  return out;
}

}  // namespace weft
