// Deadlocks read from a contextual unfolding (thesis §6.3, Fig. 6.4), including ones no test
// reached: sets of thread conditions that can hold together (a co-set) in which each thread
// waits for a mutex another of them holds or for another of them to end (a join), in a cycle;
// or one thread waits for a mutex held by a thread that ended. Each set is a marking from which the
// waiting threads never proceed; a test that reaches it (the schedule of its configuration, then
// the other threads run on) shows the deadlock as an execution, which is how it is reported and
// replayed.
//
// Only mutexes and joins are searched here (the thesis' programs block on nothing else); threads
// blocked for good on condition variables, semaphores and futex words are found with the solver
// (blocked_markings.hpp).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "weft/explore/unfolding.hpp"

namespace weft::explorer {

struct DeadlockCandidates {
  /// Each a co-set of thread conditions that can never all proceed.
  std::vector<std::vector<ConditionIndex>> sets;
  std::uint64_t co_checks = 0;
};

/// What the search needs to know of each thread condition: the mutexes its thread holds there
/// (`held`), and what it does next (`next`: nullopt if it ended there).
struct ThreadConditionFacts {
  const std::unordered_map<ConditionIndex, std::vector<ObjectKey>>* held;
  const Unfolding::NextOperations* next;
};

/// Every deadlock of the kinds above among the thread conditions of `unfolding` (each set once).
DeadlockCandidates find_deadlocks(const Unfolding& unfolding, const ThreadConditionFacts& facts);

}  // namespace weft::explorer
