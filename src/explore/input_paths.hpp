// The input side of exploration: the symbolic execution tree of thesis §2.2–2.4 along the
// current execution. Every branch on an input-dependent condition is a local event of its step;
// a strategy that keeps a stack of nodes (one per step) asks for the branches of a step that are
// still to be flipped, deepest first, and gets the input values that take the other side
// (Fig. 2.2: any unexplored branch along the explored path is a test target). Tests that change
// the schedule keep the current inputs, which satisfy the path up to the change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "weft/explore/exploration.hpp"
#include "weft/symbolic/solver.hpp"
#include "weft/trace/trace.hpp"

namespace weft::explorer {

class InputPaths {
 public:
  /// The inputs the current execution read, as a directive gives them.
  std::vector<InputValue> current_inputs() const;

  /// Input values that take the other side of the last branch not yet flipped among those in
  /// step `step` (run when `step` events had run: 0 is main's code before its first operation,
  /// k + 1 the code after event k), or nullopt when none is left (each unsatisfiable one is
  /// marked done on the way). Expects the next observe() to be of the test these values make.
  std::optional<std::vector<InputValue>> flip_in_step(std::size_t step);

  /// Marks every branch of the current execution in steps after `step` done: their other sides
  /// were explored below a state seen before (a stateful search's cut-off).
  void covered_after(std::size_t step);

  /// Input values that take the other side of branch `index` of the current execution, or nullopt
  /// when no input does (or the solver cannot tell). For random search: no flag is kept.
  std::optional<std::vector<InputValue>> flip(std::size_t index);
  /// How many branches the current execution has, and whether branch `index` has another side
  /// worth a test.
  std::size_t branches() const { return current_.branches.size(); }
  bool flippable(std::size_t index) const;

  /// The execution that ran. `kept_steps`: the steps it shares with the execution before (the
  /// schedule and inputs of the test agree with it up to there), whose branches keep their flags;
  /// a flip asked for by flip_in_step() is checked to have happened.
  void observe(const Trace& trace, std::size_t kept_steps);

  const InputStatistics& statistics() const;

 private:
  InputObservations current_;
  std::vector<bool> done_;  // per branch of current_: both sides explored or being explored
  struct PendingFlip {
    std::size_t branch;
    bool taken;  // the side the test must take
  };
  std::optional<PendingFlip> pending_;
  // The solver's answer for the other side of branch i.
  std::optional<std::vector<InputValue>> solve_other_side(std::size_t i);
  symbolic::Solver solver_;
  mutable InputStatistics stats_;
};

/// Inputs for strategies that schedule at random (random, PCT): after an execution that
/// branched on inputs, half the time the next one takes the other side of one of its branches,
/// chosen at random (a random walk of the symbolic execution tree, with the solver's values);
/// otherwise inputs get uniform random values from the execution's seed (the scheduler's
/// fallback for a random policy).
class RandomInputWalk {
 public:
  /// The inputs the next test should have (none: random values), taken once.
  std::vector<InputValue> take_next() {
    std::vector<InputValue> out = std::move(next_).value_or(std::vector<InputValue>{});
    next_.reset();
    return out;
  }
  /// The execution that ran; `seed` is the next test's, which picks whether and which branch.
  void observe(const Trace& trace, std::uint64_t seed);
  const InputStatistics& statistics() const { return paths_.statistics(); }

 private:
  InputPaths paths_;
  std::optional<std::vector<InputValue>> next_;
};

}  // namespace weft::explorer
