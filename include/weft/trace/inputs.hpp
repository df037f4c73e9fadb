// Program inputs in the event model: which input a value is, the values a test gives them, and
// the branches on conditions that depend on them (thesis §2.2–2.4, §3.5: a test is input values
// plus a schedule).
#pragma once

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "weft/symbolic/expression.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft {

/// An input, the same in every execution: the `ordinal`-th input (0, 1, ...) its thread read.
/// Threads have stable ids (thread_id.hpp), so a value chosen for it in one execution is given to
/// it in the next whatever the interleaving.
struct InputKey {
  ThreadId thread = kNoThread;
  std::uint32_t ordinal = 0;
  friend auto operator<=>(const InputKey&, const InputKey&) = default;
  /// One number for it (thread in the high half), for the solver's cache.
  std::uint64_t packed() const { return (std::uint64_t{thread} << 32) | ordinal; }
};

/// A value a test gives an input.
struct InputValue {
  InputKey key;
  std::uint64_t value = 0;
  friend bool operator==(const InputValue&, const InputValue&) = default;
};

/// The value `inputs` (sorted by key) gives `key`, or `fallback`.
std::uint64_t input_value(std::span<const InputValue> inputs, InputKey key,
                          std::uint64_t fallback = 0);

/// An input an execution read: which, its type, the name the program gave it, and the value.
/// Input number i of the execution (symbolic::ExprKind::kInput) is Trace::inputs[i].
struct InputRead {
  InputKey key;
  std::uint8_t width = 32;  ///< bits
  bool is_signed = true;
  std::string name;
  std::uint64_t value = 0;
  std::size_t step = 0;  ///< events that had run when it was read
};

enum class BranchKind : std::uint8_t {
  kBranch,  ///< a conditional branch (if, switch, select, loop condition)
  kAssume,  ///< weft_assume / __VERIFIER_assume: only executions where it holds matter
  /// A symbolic value was replaced by its concrete value (a pointer, a divisor, a value converted
  /// to floating point, a value passed to code weft does not see): the constraint `value ==
  /// concrete` keeps the path sound; the other values it could have had are not explored.
  kConcretisation,
};

/// A branch whose condition depends on inputs, as the execution took it: a local event of its
/// thread, independent of every other thread's operations (thesis §2.4), so it is no scheduling
/// point. It belongs to the step in which the thread ran it: `step` events had run before it.
struct SymbolicBranch {
  symbolic::ExprId condition = symbolic::kConcrete;
  bool taken = false;
  BranchKind kind = BranchKind::kBranch;
  ThreadId thread = kNoThread;
  std::uint32_t step = 0;
  std::uint64_t site = 0;  ///< code address, for notes
};

/// Everything an execution observed about inputs.
struct InputObservations {
  std::vector<InputRead> inputs;
  symbolic::ExpressionPool expressions;
  std::vector<SymbolicBranch> branches;
  /// Values that had to be made concrete without a constraint (floating point, a symbolic size
  /// weft cannot express): paths through other values are not explored.
  std::uint32_t unconstrained_concretisations = 0;
  /// An input was read while the directive did not ask to follow inputs (track_inputs): what
  /// was computed from it is unknown, and the execution must run again with it.
  bool untracked = false;
  /// Native programs: whether the execution ran the code that follows inputs or the functions'
  /// plain copies (TestDirective::track_inputs). Their instructions have different addresses, so
  /// a replay runs the same ones.
  bool tracked = true;
  bool empty() const { return inputs.empty(); }
  void clear();
  /// The values the inputs had, as a directive gives them (sorted by key).
  std::vector<InputValue> values() const;
};

}  // namespace weft
