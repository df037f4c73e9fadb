// Deadlocks read from an unfolding with an SMT solver (thesis §6.2, "Deadlock Detection",
// D1-D4), for what the backtracking search of deadlock_search.hpp does not cover: threads
// blocked for good on a condition variable, a semaphore or a futex word. A deadlock is a
// reachable marking in which every thread that has started has ended or waits in an operation
// that no event of the unfolding lets it complete there (the thesis' D1: no event is enabled;
// D2-D4 with "waits for a lock" widened to every operation that blocks), and at least one waits
// on one of those objects (the others are the backtracking search's). The marking's thread
// conditions are the deadlock; its configuration reaches it.
//
// The unfolding must be complete (every event enabled in a reachable marking is in it) for a
// marking to be a deadlock of the program; the strategy runs each one as a test, so a marking
// that is not one is never reported.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "weft/explore/global_state.hpp"
#include "weft/explore/unfolding.hpp"
#include "weft/symbolic/solver.hpp"

namespace weft::explorer {

struct BlockedMarkings {
  /// Each a deadlock: the thread conditions of its marking, sorted (a thread not yet created
  /// has none).
  std::vector<std::vector<ConditionIndex>> sets;
  /// False if the solver could not answer (a time-out): some deadlocks may be missing.
  bool complete = true;
  /// `max_sets` were found: search again (with them known) for the rest.
  bool more = false;
  std::size_t solver_calls = 0;
};

/// Whether a thread at a condition whose next operation is `op` can be blocked for good there on
/// a condition variable, a semaphore or a futex word (a wait that cannot time out).
bool blocks_on_signal(const Operation& op);

/// Every deadlock of the kind above whose thread conditions are not all in a set of `known`
/// (those found before, or run into by a test), up to `max_sets`; `next` says what each thread
/// condition's thread does next. `solver` is kept by the caller from search to search (a Z3
/// context costs more to make than a small query to solve).
BlockedMarkings find_blocked_markings(const UnfoldingRecord& record,
                                      const Unfolding::NextOperations& next,
                                      const std::vector<std::vector<ConditionIndex>>& known,
                                      symbolic::Solver& solver, std::size_t max_sets);

}  // namespace weft::explorer
