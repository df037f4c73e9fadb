// A predicate over a program's global state, as `--check-global` takes it (thesis §6.2,
// "Properties on shared memory" and "Properties on program location"): C-like integer arithmetic
// and comparisons over shared variables, and `at(THREAD, LINE)`, true when that thread is about
// to run code of that source line. For example `x + y > 200 && y < 100`, or
// `at(0.1, 12) && at(0.2, 12)`.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "weft/symbolic/expression.hpp"

namespace weft::symbolic {

/// What the predicate's text is wrong about, as one line naming the place.
class PredicateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The type of a shared variable the predicate names.
struct VariableType {
  unsigned width = 32;  ///< bits: 8, 16, 32 or 64
  bool is_signed = true;
};

/// One atom of the predicate: a shared variable, or a thread's location.
struct PredicateAtom {
  enum class Kind : std::uint8_t { kVariable, kLocation };
  Kind kind = Kind::kVariable;
  std::string name;  ///< the variable, or the thread as written ("0.1")
  VariableType type;
  std::uint32_t line = 0;  ///< kLocation: the source line
};

/// The parsed predicate: a 1-bit expression in which input i is atoms[i] (a variable of its
/// type's width, a location of 1 bit). Arithmetic is done in 64 bits, as C does on `long`, with
/// each variable extended by its signedness; comparisons are signed.
struct Predicate {
  std::string text;
  ExpressionPool pool;
  ExprId root = kConcrete;
  std::vector<PredicateAtom> atoms;

  /// Its value when atom i has value values[i].
  bool holds(std::span<const std::uint64_t> values) const { return pool.evaluate(root, values); }
};

/// Parses `text`; `type_of` gives a variable's type, or nullopt if the program has no such
/// variable. Throws PredicateError for text that is not a predicate or names no variable.
Predicate parse_predicate(
    std::string_view text,
    const std::function<std::optional<VariableType>(const std::string&)>& type_of);

}  // namespace weft::symbolic
