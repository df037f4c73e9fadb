// How big an exhaustive exploration is, before it is over: Knuth's estimator (D. E. Knuth,
// "Estimating the efficiency of backtrack programs", Math. Comp. 29, 1975) over random paths of
// the tree that depth-first search with sleep sets explores (thesis §2.4).
//
// Why that tree: without persistent sets, a sleep-set search ends exactly one of its paths
// without being sleep-set blocked per Mazurkiewicz trace (Godefroid 1996, and the thesis' own
// count of traces, Table 8.1 footnote 3). So the number of its leaves that are not blocked is
// the number of traces, which is the number of executions optimal DPOR runs. A walk picks a
// child at each node with a probability that guesses the child's subtree size
// (SchedulePolicy::kSleepSetWalk, DirectiveFollower::walk_step), and its weight is the product
// of the inverse probabilities of its choices, or 0 if it ends sleep-set blocked; the mean
// weight is an unbiased estimate of that number, whatever the guesses (importance sampling).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "weft/trace/directive.hpp"
#include "weft/trace/trace.hpp"

namespace weft::explorer {

/// The estimate itself: a small value (Statistics carries a copy).
class SizeEstimate {
 public:
  /// Adds a walk's execution (a SchedulePolicy::kSleepSetWalk directive's).
  void add(const Trace& walk);

  std::uint64_t walks() const { return walks_; }
  /// The estimated number of executions of optimal DPOR (of Mazurkiewicz traces), 0 before the
  /// first walk that was not sleep-set blocked.
  double executions() const;
  /// The standard error of that estimate, relative to it (how far off it may well be: 0.5 is
  /// ±50%); infinite before two walks reached an end.
  double relative_error() const;

 private:
  // The weights are products of up to thousands of factors: they are kept as powers of two
  // relative to the largest seen, 2^(log2 - scale_), summed with their squares.
  std::uint64_t walks_ = 0;
  std::uint64_t ended_ = 0;  // walks not sleep-set blocked
  double scale_ = 0;
  double sum_ = 0;
  double sum_of_squares_ = 0;
};

/// The walks and what they learn: the directive of each next walk, with the accesses no walk
/// so far saw another thread's operation depend on afterwards (TestDirective::quiet_accesses),
/// and the estimate from their executions.
class SleepSetWalks {
 public:
  explicit SleepSetWalks(ReadPolicy policy) : policy_(policy) {}

  /// The directive of one walk from the initial state.
  TestDirective next(std::uint64_t seed);
  /// Adds the walk's execution to the estimate, and learns which accesses it saw woken.
  void observe(const Trace& walk);
  const SizeEstimate& estimate() const { return estimate_; }

 private:
  ReadPolicy policy_;
  SizeEstimate estimate_;
  std::unordered_set<std::uint64_t> seen_, woken_;  // quiet_access_key()s
  std::vector<std::uint64_t> quiet_;                // seen_ - woken_, sorted
  bool quiet_stale_ = false;
};

/// An estimated count for people: two significant digits, "35,000", "2.1 million", "4.7e+15".
std::string approximate_count(double n);
/// A duration for people: "45 s", "12 min", "3.5 h", "2.1 days", "40 years".
std::string approximate_duration(double seconds);

}  // namespace weft::explorer
