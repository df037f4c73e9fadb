// Global states read from an unfolding with an SMT solver (thesis §6.2): whether some reachable
// marking of the unfolding is a state of the program in which a predicate over shared variables
// and threads' locations holds, including states no test passed through.
//
// The translation (Fig. 6.2, 6.3): a 1-bit variable per event says whether it fired; a fired
// event's causes fired (B1, and C1 for read arcs); a fired branch event's constraint holds (B2);
// of the events that consume one condition at most one fired (B3, as a sequential counter past a
// few events); a condition is marked when its producer fired and none of its consumers did (B4).
// Where the unfolding has read arcs, an order number per event rules out markings that only a
// cycle of asymmetric conflict would reach (C2, C3). A memory condition that holds gives each
// variable in its granule the value its writes left (S1): what the tests recorded, or the
// expression over inputs a write stored; a variable whose value there is not known (written by
// code whose values weft does not see) is left free, which may make the answer one no execution
// has. So a
// satisfying marking is not reported as it is: its schedule and inputs are run, and the
// predicate evaluated on what that execution wrote (atom_values_at).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "weft/explore/unfolding.hpp"
#include "weft/symbolic/predicate.hpp"
#include "weft/symbolic/solver.hpp"
#include "weft/trace/directive.hpp"
#include "weft/trace/trace.hpp"

namespace weft::explorer {

/// A predicate to check against the global states, with what its atoms stand for in the program.
struct GlobalStateQuery {
  const symbolic::Predicate* predicate = nullptr;
  /// By atom, for a variable: where it lives (run-time address; its bytes lie in one 8-byte
  /// granule) and its value when the program starts.
  struct Place {
    ObjectKey address = 0;
    std::uint32_t bytes = 0;
    std::uint64_t initial = 0;
  };
  std::vector<Place> places;
  /// By atom, for a location: the thread.
  std::vector<ThreadId> threads;
  /// The source line of each code address (0: unknown), asked once for all of them.
  std::function<std::vector<std::uint32_t>(const std::vector<std::uint64_t>& sites)> lines_of;
  unsigned timeout_ms = 60000;  ///< the solver's limit
};

/// What the search found.
struct GlobalStateSearch {
  /// kSatisfiable: `test` reaches a marking where the predicate may hold after its first `steps`
  /// events (to be confirmed by running it).
  symbolic::Answer answer = symbolic::Answer::kUnknown;
  TestDirective test;
  std::size_t steps = 0;
  std::size_t events = 0;         ///< events of the unfolding
  std::size_t translated = 0;     ///< of them, those the predicate depends on (the cone)
  std::size_t formula_nodes = 0;  ///< size of the formula
  double seconds = 0;
  /// Why it could not search (a variable spanning two granules...), or "".
  std::string problem;
};

/// What an unfolding search knows besides the unfolding's structure.
struct UnfoldingRecord {
  const Unfolding* unfolding = nullptr;
  const std::vector<std::uint64_t>* sites = nullptr;  ///< by event: its code address
  /// Events that wrote memory: what they wrote, as the tests recorded it (a value computed from
  /// inputs (AccessValues::kWrittenFromInputs) is one execution's: its expression is the event's).
  const std::unordered_map<EventIndex, AccessValues>* written = nullptr;
  /// Of those whose value was computed from inputs: its expression in `pool`, where known.
  const std::unordered_map<EventIndex, symbolic::ExprId>* written_expressions = nullptr;
  /// Branch events' constraints and written values' expressions, over inputs numbered as
  /// `inputs`.
  const symbolic::ExpressionPool* pool = nullptr;
  const std::unordered_map<EventIndex, symbolic::Constraint>* branch_constraints = nullptr;
  std::span<const symbolic::InputVariable> inputs;
  std::span<const InputKey> input_keys;  ///< by input number
};

/// Translates the unfolding and the predicate, and solves (thesis §6.2).
GlobalStateSearch search_global_state(const UnfoldingRecord& record, const GlobalStateQuery& query);

/// The atoms' values in `trace` after its first `steps` events (a variable: its initial value
/// changed by the writes among them; a location: whether its thread's next event is of the line,
/// with lines as `query.lines_of` gives them), or nullopt if the trace does not tell (a write
/// whose value was not recorded, a thread that never ran again).
std::optional<std::vector<std::uint64_t>> atom_values_at(const Trace& trace, std::size_t steps,
                                                         const GlobalStateQuery& query);

/// The first state of `trace` (after how many events) in which the predicate holds, as
/// atom_values_at computes the atoms there; nullopt if none does (states the trace does not tell
/// about do not count).
std::optional<std::size_t> first_state_where(const Trace& trace, const GlobalStateQuery& query);

}  // namespace weft::explorer
