#include "weft/explore/verdict.hpp"

#include <algorithm>

namespace weft::explorer {

const char* incompleteness_code(Incompleteness why) {
  switch (why) {
    case Incompleteness::kNone:
      return "";
    case Incompleteness::kUnsupported:
      return "unsupported";
    case Incompleteness::kWithinBounds:
      return "within-bounds";
    case Incompleteness::kCutShort:
      return "cut-short";
    case Incompleteness::kFixedInputs:
      return "fixed-inputs";
    case Incompleteness::kInputGaps:
      return "input-gaps";
    case Incompleteness::kUnrestoredState:
      return "unrestored-state";
    case Incompleteness::kKernelCommunication:
      return "kernel-communication";
    case Incompleteness::kUnseenLibrary:
      return "unseen-library";
    case Incompleteness::kSignalHandler:
      return "signal-handler";
    case Incompleteness::kSemaphoreReset:
      return "semaphore-reset";
    case Incompleteness::kStrategyGaps:
      return "strategy-gaps";
    case Incompleteness::kNotExhaustive:
      return "not-exhaustive";
    case Incompleteness::kLocalStatesOnly:
      return "local-states-only";
    case Incompleteness::kStoppedAtFirstBug:
      return "stopped-at-first-bug";
    case Incompleteness::kStoppedAtChosenBug:
      return "stopped-at-chosen-bug";
    case Incompleteness::kLimit:
      return "limit";
  }
  return "?";
}

namespace {

Incompleteness why_incomplete(const ExplorationResult& r, bool exhaustive,
                              const ExplorationLimits& limits) {
  // Everything the strategy could reach was run, and nothing kept it from reaching everything.
  const auto has = [&r](CaveatKind kind) {
    return std::any_of(r.caveats.begin(), r.caveats.end(),
                       [kind](const Caveat& c) { return c.kind == kind; });
  };
  const bool talked_through_kernel = has(CaveatKind::kKernelCommunication);
  const bool unseen_library = has(CaveatKind::kUnseenLibrary);
  const bool signal_handler = has(CaveatKind::kSignalHandler);
  const bool semaphore_reset = has(CaveatKind::kSemaphoreReset);
  const bool explored = r.unsupported.empty() && r.exhausted && !r.fixed_inputs &&
                        r.stats.inputs.complete() && exhaustive && r.unrestored_state.empty() &&
                        !talked_through_kernel && !unseen_library && !signal_handler &&
                        !semaphore_reset && r.strategy_gaps.empty();
  if (explored && !r.hit_bound)
    return r.uncovered ? Incompleteness::kLocalStatesOnly : Incompleteness::kNone;
  if (!r.unsupported.empty()) return Incompleteness::kUnsupported;
  // An execution stopped by its time limit is not "within a bound": what it would have done is
  // unknown.
  if (explored && r.stats.timeouts == 0) return Incompleteness::kWithinBounds;
  if (r.hit_bound) return Incompleteness::kCutShort;
  // The reasons below say what kept a finished exhaustive search from covering everything
  // ("every interleaving ... was explored, but"): a sampling strategy that ran its executions
  // did not explore every interleaving, whatever else holds.
  const bool searched_all = r.exhausted && exhaustive;
  if (r.fixed_inputs && searched_all) return Incompleteness::kFixedInputs;
  if (!r.stats.inputs.complete() && searched_all) return Incompleteness::kInputGaps;
  if (!r.unrestored_state.empty() && searched_all) return Incompleteness::kUnrestoredState;
  if (talked_through_kernel && searched_all) return Incompleteness::kKernelCommunication;
  if (unseen_library && searched_all) return Incompleteness::kUnseenLibrary;
  if (signal_handler && searched_all) return Incompleteness::kSignalHandler;
  if (semaphore_reset && searched_all) return Incompleteness::kSemaphoreReset;
  if (!r.strategy_gaps.empty() && searched_all) return Incompleteness::kStrategyGaps;
  if (!exhaustive) return Incompleteness::kNotExhaustive;
  if (!r.bugs.empty() && limits.stop_on_first_bug) return Incompleteness::kStoppedAtFirstBug;
  if (!r.bugs.empty() && limits.stop_at &&
      std::any_of(r.bugs.begin(), r.bugs.end(), limits.stop_at))
    return Incompleteness::kStoppedAtChosenBug;
  return Incompleteness::kLimit;
}

}  // namespace

Decision decide(const ExplorationResult& result, bool exhaustive, const ExplorationLimits& limits) {
  Decision d;
  d.why = why_incomplete(result, exhaustive, limits);
  if (!result.bugs.empty())
    d.verdict = Verdict::kBugFound;
  else if (d.why == Incompleteness::kNone)
    d.verdict = Verdict::kNoBugFound;
  else if (d.why == Incompleteness::kUnsupported)
    d.verdict = Verdict::kUnsupported;
  else
    d.verdict = Verdict::kIncomplete;
  return d;
}

}  // namespace weft::explorer
