// --check-global EXPR (thesis §6.2): once an unfolding strategy has built the whole unfolding,
// ask the SMT solver for a marking in which EXPR holds, run its schedule and inputs, and report
// the state as a bug if the execution confirms it; else say that no reachable state satisfies
// EXPR (the solver found none) or that the check could not decide. With dfs, which runs every
// interleaving, every state of every execution is checked instead (the oracle).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "weft/driver/symbolizer.hpp"
#include "weft/explore/exploration.hpp"
#include "weft/explore/global_state.hpp"
#include "weft/explore/strategy.hpp"
#include "weft/symbolic/predicate.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft::driver {

/// A parsed predicate and what its atoms stand for in one run of the program.
class GlobalCheck {
 public:
  /// Parses `text` against the program's global variables; throws DriverError naming what is
  /// wrong.
  GlobalCheck(const std::string& text, Symbolizer& symbols);
  /// Resolves the atoms: variables' run-time addresses (`symbols` knows the load base), threads'
  /// ids. Throws DriverError if a thread name is malformed.
  void resolve(Symbolizer& symbols, ThreadRegistry& threads);

  const symbolic::Predicate& predicate() const { return *predicate_; }
  const explorer::GlobalStateQuery& query() const { return query_; }

  /// The bug that `trace` shows after its first `steps` events if the predicate holds there;
  /// nullopt if it does not, and then `undecided` says whether the trace could not tell.
  std::optional<explorer::FoundBug> bug_in(const Trace& trace, std::size_t steps,
                                           const ThreadRegistry& threads,
                                           bool* undecided = nullptr) const;
  /// Records in `trace` (as one more of its failures) the first of its states in which the
  /// predicate holds, if any: how a strategy that builds no unfolding checks global states,
  /// one execution at a time (complete with dfs, which passes through every reachable state).
  void check_every_state(Trace& trace, const ThreadRegistry& threads) const;

 private:
  std::unique_ptr<symbolic::Predicate> predicate_;  // the query points into it
  explorer::GlobalStateQuery query_;
};

struct GlobalCheckResult {
  enum class Answer { kReached, kUnreachable, kUndecided };
  Answer answer = Answer::kUndecided;
  std::optional<explorer::FoundBug> bug;
  explorer::GlobalStateSearch search;
  std::string note;  ///< one line: what was found, or why it was not decided
};

/// Asks `strategy` (an unfolding strategy that recorded written values) for a state where the
/// predicate holds and runs the test it gives through `run` to confirm it.
GlobalCheckResult check_global_state(const explorer::Strategy& strategy, const GlobalCheck& check,
                                     const std::function<Trace(const TestDirective&)>& run,
                                     const ThreadRegistry& threads);

}  // namespace weft::driver
