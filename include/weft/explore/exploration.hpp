// The exploration loop shared by every way of running a program: ask the strategy, run, observe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "weft/explore/strategy.hpp"
#include "weft/trace/thread_id.hpp"
#include "weft/trace/trace.hpp"

namespace weft::explorer {

struct Statistics {
  std::uint64_t executions = 0;
  std::uint64_t complete = 0;       ///< maximal executions: every thread finished or deadlocked
  std::uint64_t sleep_blocked = 0;  ///< abandoned because only sleeping threads were enabled
  std::uint64_t spin_blocked = 0;   ///< a thread stopped at a spin loop it would have left
  std::uint64_t bound_reached = 0;
  std::uint64_t bugs = 0;       ///< executions that ended in a bug (incl. deadlocks)
  std::uint64_t diverged = 0;   ///< executions whose directive could not be followed
  std::uint64_t timeouts = 0;   ///< executions stopped by their time limit
  std::uint64_t traces = 0;     ///< distinct Mazurkiewicz traces among maximal executions
  bool traces_counted = false;  ///< whether `traces` was counted (ExplorationLimits::count_traces)
  std::uint64_t events = 0;
  std::uint64_t longest_execution = 0;  ///< the events of the longest execution (progress line)
  /// Executions the thread model computed instead of running them (thread_model.hpp).
  std::uint64_t modelled = 0;
  InputStatistics inputs;
  /// The estimate of the whole exploration's size, when the strategy makes one
  /// (StrategyConfig::estimate_size); its walks are among `executions`.
  std::optional<SizeEstimate> estimate;
  /// Set by unfolding strategies (Strategy::unfolding_statistics).
  std::optional<UnfoldingStatistics> unfolding;
  /// Set by stateful strategies (Strategy::state_matching).
  std::optional<StateMatching> state_matching;
  double seconds = 0;
  double executions_per_second() const { return seconds > 0 ? executions / seconds : 0; }
};

/// A bug with the schedule that reproduces it.
struct FoundBug {
  Outcome outcome = Outcome::kAssertionFailure;
  std::string message;
  std::vector<ThreadId> schedule;
  Trace trace;
  std::uint64_t execution = 0;  ///< which execution (1, 2, ...) found it
  std::size_t step = 0;         ///< the number of events before it
  /// How many more times a bug of the same key (bug_key) was found after this one.
  std::uint64_t repeats = 0;
};

/// What makes two bugs the same for reporting: the message, except that a data race is one per
/// pair of instructions (the code marks in its message), whatever memory, threads or execution
/// it happened in, so that a loop racing over an array is one report with a count.
std::string bug_key(Outcome outcome, const std::string& message);

/// The bug `failure` of `trace` (or, with nullptr, its deadlock) with the schedule leading to it.
FoundBug found_bug(const Trace& trace, const Failure* failure);

struct ExplorationLimits {
  bool stop_on_first_bug = true;
  std::uint64_t max_executions = 0;  ///< 0: no limit
  double max_seconds = 0;            ///< 0: no limit
  bool count_traces = false;         ///< fingerprint every maximal execution (costs a little)
  /// Called after every execution (for progress reports).
  std::function<void(const Statistics&)> on_execution;
  /// With stop_on_first_bug off: stop as soon as a bug is found for which this returns true.
  std::function<bool(const FoundBug&)> stop_at;
  /// The most distinct bugs kept with their executions (--all-bugs); later ones are counted
  /// (ExplorationResult::bugs_not_kept), so that weft's memory stays bounded.
  std::size_t max_bugs_kept = 1000;
  /// weft's own resident memory, in bytes, at which the exploration stops (0: no limit); checked
  /// every few executions (ExplorationResult::out_of_memory).
  std::uint64_t max_memory_bytes = 0;
};

struct ExplorationResult {
  Statistics stats;
  std::vector<FoundBug> bugs;  ///< one per distinct bug_key, in the order found
  /// Distinct bugs found after max_bugs_kept were: counted, not kept.
  std::uint64_t bugs_not_kept = 0;
  /// The exploration stopped at ExplorationLimits::max_memory_bytes.
  bool out_of_memory = false;
  /// The time limit stopped an execution that was still running (Trace::past_time_limit).
  bool stopped_mid_execution = false;
  /// The time limit stopped the strategy while it took in an execution or chose the next test
  /// (Deadline): the last execution's alternatives are partly unexplored.
  bool stopped_mid_analysis = false;
  bool exhausted = false;  ///< the strategy ran out of tests (not stopped by a limit or bug)
  bool hit_bound = false;
  /// Set when an execution used something weft does not model: exploration stopped there.
  std::string unsupported;
  /// What the first execution cut short by a bound or time limit said.
  std::string first_bound_message;
  /// Some execution read inputs that were fixed rather than explored (Trace::read_fixed_inputs).
  bool fixed_inputs = false;
  /// Process state some execution changed and the worker does not restore
  /// (Trace::unrestored_state), each function once.
  std::set<std::string> unrestored_state;
  /// What executions did that weft sees only in part (Trace::caveats), each once.
  std::set<Caveat> caveats;
  /// What the strategy's exhaustion does not cover (Strategy::uncovered), or nullptr.
  const char* uncovered = nullptr;
  /// Why the strategy did not cover all it set out to (Strategy::gaps), or "".
  std::string strategy_gaps;
  /// What a strategy that is not exhaustive covered (Strategy::coverage), or "".
  std::string coverage;
  /// Of a strategy made of others: the one that covered everything (Strategy::answered_by).
  std::string answered_by;
};

/// Runs tests until the strategy is exhausted, a limit is hit, or (if asked) a bug is found.
ExplorationResult run_exploration(Strategy& strategy, ReadPolicy policy,
                                  const std::function<Trace(const TestDirective&)>& run_test,
                                  const ExplorationLimits& limits);
/// The same, with a runner that keeps each trace itself (valid until it runs the next): no copy
/// of a trace per execution (the thread model keeps the execution it computed, to resume it).
ExplorationResult run_exploration_in_place(
    Strategy& strategy, ReadPolicy policy,
    const std::function<const Trace&(const TestDirective&)>& run_test,
    const ExplorationLimits& limits);

}  // namespace weft::explorer
