// Solving path constraints for new input values (thesis §2.2): the path to a branch, with the
// branch negated, handed to Z3 over fixed-size bit vectors.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "weft/symbolic/expression.hpp"

namespace weft::symbolic {

/// A branch condition as taken: `condition` was nonzero when `holds`, zero otherwise.
struct Constraint {
  ExprId condition = kConcrete;
  bool holds = true;
};

/// What the solver knows about each input of the pool: its width, the value the execution used,
/// and a name that is the same for the same input in every execution (thread and ordinal), so
/// that answers can be cached across executions.
struct InputVariable {
  unsigned width = 32;
  std::uint64_t value = 0;
  std::uint64_t stable_id = 0;
};

struct SolverStatistics {
  std::uint64_t queries = 0;       ///< solve() calls
  std::uint64_t solver_calls = 0;  ///< queries that reached Z3 (not answered by the cache)
  std::uint64_t cache_hits = 0;
  std::uint64_t unsatisfiable = 0;
  std::uint64_t unknown = 0;  ///< time-outs and Z3 giving up
  std::chrono::nanoseconds time{0};
};

enum class Answer : std::uint8_t { kSatisfiable, kUnsatisfiable, kUnknown };

struct Solution {
  Answer answer = Answer::kUnknown;
  /// When satisfiable: a value for every input, those the query did not involve unchanged.
  std::vector<std::uint64_t> values;
};

/// Z3 behind a cache. Each query keeps only the constraints that share inputs with the target,
/// transitively (KLEE's independent-constraint slicing): the others hold already under the
/// current values, which the inputs outside the slice keep. Every model is checked by evaluating
/// the slice before it is returned, so a wrong model is an unknown answer, never a wrong test.
class Solver {
 public:
  /// `timeout_ms`: Z3's limit per query (0: none).
  explicit Solver(unsigned timeout_ms = 10000);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  /// Input values under which every constraint of `path` and `target` holds.
  Solution solve(const ExpressionPool& pool, std::span<const Constraint> path, Constraint target,
                 std::span<const InputVariable> inputs);

  const SolverStatistics& statistics() const { return stats_; }

 private:
  struct Z3State;
  std::unique_ptr<Z3State> z3_;
  unsigned timeout_ms_;
  SolverStatistics stats_;
  /// Canonical text of a sliced query -> its answer, as (stable id, value) pairs.
  struct CachedAnswer {
    Answer answer;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> values;
  };
  std::unordered_map<std::string, CachedAnswer> cache_;
};

}  // namespace weft::symbolic
