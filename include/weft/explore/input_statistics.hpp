// What exploring a program's inputs did, for statistics and the verdict.
#pragma once

#include <cstdint>

namespace weft::explorer {

/// How inputs were explored (thesis §2.2): the branches flipped, the solver's work, and what
/// keeps the exploration of inputs from being complete.
struct InputStatistics {
  std::uint64_t executions_with_inputs = 0;
  std::uint64_t flips = 0;           ///< tests run to take the other side of a branch
  std::uint64_t infeasible = 0;      ///< branch sides no input takes (unsatisfiable)
  std::uint64_t solver_unknown = 0;  ///< branch sides the solver could not decide (time-out)
  /// Tests whose inputs did not take the side they were solved for: the path depends on a value
  /// weft made concrete (a pointer, a call into code weft does not see).
  std::uint64_t divergences = 0;
  std::uint64_t concretisations = 0;  ///< values made concrete with a constraint
  /// Native programs: the code address of the first (a return address), for the report; 0 if
  /// unknown.
  std::uint64_t first_concretisation_site = 0;
  std::uint64_t unconstrained_concretisations = 0;  ///< ... and without one (floating point)
  std::uint64_t solver_queries = 0;
  std::uint64_t solver_calls = 0;  ///< queries that reached Z3
  std::uint64_t cache_hits = 0;
  double solver_seconds = 0;
  /// Whether every input path was explored: no unknown, no divergence, no concretisation (a
  /// concretised value keeps the explored paths sound, but the values it did not have are not
  /// explored).
  InputStatistics& operator+=(const InputStatistics& o) {
    executions_with_inputs += o.executions_with_inputs;
    flips += o.flips;
    infeasible += o.infeasible;
    solver_unknown += o.solver_unknown;
    divergences += o.divergences;
    concretisations += o.concretisations;
    if (first_concretisation_site == 0) first_concretisation_site = o.first_concretisation_site;
    unconstrained_concretisations += o.unconstrained_concretisations;
    solver_queries += o.solver_queries;
    solver_calls += o.solver_calls;
    cache_hits += o.cache_hits;
    solver_seconds += o.solver_seconds;
    return *this;
  }
  bool complete() const {
    return solver_unknown == 0 && divergences == 0 && concretisations == 0 &&
           unconstrained_concretisations == 0;
  }
};

}  // namespace weft::explorer
