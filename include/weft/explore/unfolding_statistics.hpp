// What an unfolding strategy built, for statistics and benchmarks (thesis ch. 8 reports the
// same: events, and the time spent computing possible extensions).
#pragma once

#include <cstdint>
#include <vector>

namespace weft::explorer {

/// The unfolding as it stood when its events first reached a power of two (from 1,024): how
/// the time of the possible-extension computation and the memory grow with it (thesis ch. 8
/// names Szymanski as the hard case). Counts and times are since the exploration (re)started.
struct UnfoldingGrowthSample {
  std::uint64_t tests = 0;  ///< tests modelled so far
  std::uint64_t events = 0;
  std::uint64_t conditions = 0;
  std::uint64_t bytes = 0;       ///< as UnfoldingStatistics::bytes
  std::uint64_t co_checks = 0;   ///< so far
  double extension_seconds = 0;  ///< so far
};

struct UnfoldingStatistics {
  std::uint64_t events = 0;
  std::uint64_t conditions = 0;
  std::uint64_t extensions = 0;            ///< possible extensions found (each a target once)
  std::uint64_t co_checks = 0;             ///< candidates checked for concurrency
  std::uint64_t targets_per_test_max = 0;  ///< the most targets one test aimed at
  std::uint64_t infeasible = 0;            ///< targets whose thread was blocked there: no event
  double extension_seconds = 0;            ///< computing possible extensions
  std::uint64_t bytes = 0;                 ///< the unfolding's memory, estimated from its sizes
  std::uint64_t deadlock_candidates = 0;   ///< sets the deadlock search found (a test into each)
  double deadlock_seconds = 0;             ///< searching for deadlocks
  /// Solver calls of the search for deadlocks on condition variables, semaphores and futexes.
  std::uint64_t deadlock_solver_calls = 0;
  /// Times the exploration started over because a test showed a thread the copies did not
  /// include (place replication) or an access that split a memory place the unfolding had
  /// conditions for (the tests before still count).
  std::uint64_t restarts = 0;
  /// Since the last restart, one sample per power of two of events.
  std::vector<UnfoldingGrowthSample> growth;
};

}  // namespace weft::explorer
