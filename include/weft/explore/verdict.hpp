// The verdict of an exploration, decided in one place for every front end (the in-process API,
// the command line): a bug was found, or none was and every behaviour was covered, or why not.
// The reason is a code as well as text, so that scripts read the code and never the English.
#pragma once

#include <cstdint>

#include "weft/explore/exploration.hpp"

namespace weft::explorer {

enum class Verdict : std::uint8_t {
  kBugFound,
  kNoBugFound,   ///< an exhaustive strategy finished: every behaviour covered (within no bound)
  kIncomplete,   ///< no bug found, and not every behaviour covered (Incompleteness says why)
  kUnsupported,  ///< the program used something weft does not model: no verdict at all
};

/// Why an exploration did not cover every behaviour: the first of these that applies, in this
/// order (a run can have several reasons; the earlier ones matter more to the reader).
enum class Incompleteness : std::uint8_t {
  kNone,         ///< every behaviour was covered
  kUnsupported,  ///< an execution used something weft does not model; exploration stopped there
  /// Every interleaving was explored, but some executions stopped at the thread or step bound:
  /// "no bug within the bounds", never a proof.
  kWithinBounds,
  /// Executions were cut short (a bound, an execution's time limit) and the exploration did not
  /// finish, or an execution ran out of time (what it would have done is unknown).
  kCutShort,
  kFixedInputs,  ///< the program read inputs, which were fixed rather than explored
  /// Input paths the exploration could not follow: solver time-outs, values made concrete,
  /// divergent tests (InputStatistics::complete()).
  kInputGaps,
  /// The strategy could not reach all it aimed at (ExplorationResult::strategy_gaps).
  kStrategyGaps,
  /// The program changed process state weft does not restore between executions (native
  /// programs): later executions may have started from it.
  kUnrestoredState,
  /// Threads talked through the kernel (pipes, sockets...), which weft does not see: the orders
  /// of their messages were not explored (CaveatKind::kKernelCommunication).
  kKernelCommunication,
  /// A library weft did not compile may synchronise threads unseen (CaveatKind::kUnseenLibrary).
  kUnseenLibrary,
  /// A signal's handler ran in another thread than its sender's, at one point of that thread
  /// only (CaveatKind::kSignalHandler).
  kSignalHandler,
  /// sem_init set a semaphore again after threads had used it (CaveatKind::kSemaphoreReset).
  kSemaphoreReset,
  kNotExhaustive,  ///< the strategy does not explore exhaustively (random)
  /// Every reachable local state of every thread was covered (assertion failures, crashes), but
  /// not every global state: what ExplorationResult::uncovered names (deadlocks, races).
  kLocalStatesOnly,
  kStoppedAtFirstBug,   ///< stopped at the first bug, as asked
  kStoppedAtChosenBug,  ///< stopped at a bug the caller chose (ExplorationLimits::stop_at)
  kLimit,               ///< stopped by the execution count or time limit
};

/// The stable name of a reason, as JSON output carries it: "within-bounds", "cut-short", ...
/// ("" for kNone).
const char* incompleteness_code(Incompleteness why);

struct Decision {
  Verdict verdict = Verdict::kIncomplete;
  /// Also set when bugs were found: whether the rest was covered (with --all-bugs the caller may
  /// still ask).
  Incompleteness why = Incompleteness::kNone;
  bool complete() const { return why == Incompleteness::kNone; }
  bool within_bounds() const { return why == Incompleteness::kWithinBounds; }
};

/// The verdict of `result`, explored by a strategy that is `exhaustive` or not, under `limits`.
Decision decide(const ExplorationResult& result, bool exhaustive, const ExplorationLimits& limits);

}  // namespace weft::explorer
