// The reachable markings of an unfolding as a formula (thesis §6.2, Fig. 6.2, 6.3), the part
// that the SMT searches from an unfolding share (a predicate over the global state:
// global_state.cpp; deadlocks: blocked_markings.cpp). A 1-bit variable per translated event says
// whether it fired; a fired event's causes fired (B1, and C1 for read arcs); a fired branch
// event's constraint holds (B2); of the events that consume one condition at most one fired
// (B3, as a sequential counter past a few events); a condition is marked when its producer fired
// and none of its consumers did (B4). Where the unfolding has read arcs, an order number per
// event rules out markings that only a cycle of asymmetric conflict would reach (C2, C3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "weft/explore/global_state.hpp"
#include "weft/symbolic/expression.hpp"
#include "weft/symbolic/solver.hpp"

namespace weft::explorer {

class MarkingTranslation {
 public:
  /// Variables: the record's inputs first, with the numbers the record gives them; a caller's
  /// own (fresh_number) next; then the events' and the helpers'.
  explicit MarkingTranslation(const UnfoldingRecord& record);

  /// Translates the events that produce or consume a condition of `relevant`, and their causes
  /// (the cone of influence: a configuration's events among them are a configuration too, and
  /// mark the same of those conditions); every event if `everything`.
  void translate(const std::vector<ConditionIndex>& relevant, bool everything = false);

  /// Whether event e fired (false for an event outside the cone: it never fires).
  symbolic::ExprId fired(EventIndex e);
  /// B4: whether condition c holds in the marking.
  symbolic::ExprId marked(ConditionIndex c);
  /// Adds a term that must hold.
  void require(symbolic::ExprId term) { terms_.push_back(term); }
  /// The conjunction of every term, as a balanced tree (evaluating it recurses by its depth).
  symbolic::ExprId conjunction();

  symbolic::ExprId negation(symbolic::ExprId a);
  symbolic::ExprId implies(symbolic::ExprId a, symbolic::ExprId b);
  symbolic::ExprId any_of(const std::vector<symbolic::ExprId>& xs);
  symbolic::ExprId all_of(const std::vector<symbolic::ExprId>& xs);
  /// A new variable of the given width, numbered after those before.
  std::uint32_t fresh_number(unsigned width);
  symbolic::ExprId fresh(unsigned width);

  symbolic::ExpressionPool& pool() { return p_; }
  const std::vector<symbolic::InputVariable>& variables() const { return variables_; }
  std::size_t translated() const { return cone_.size(); }
  /// The inputs of the record keep their numbers: import the record's expressions with these.
  const std::vector<std::uint32_t>& same_inputs() const { return same_inputs_; }

  /// The events a satisfying assignment fired, ascending.
  std::vector<EventIndex> configuration(const symbolic::Solution& s) const;
  /// A test that reaches that configuration's marking: its schedule (branch events are no
  /// steps), with the assignment's inputs; `steps` is the schedule's length.
  TestDirective test_of(const symbolic::Solution& s, std::size_t& steps) const;

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  void causes_and_branch(EventIndex e);
  void at_most_one_consumer(ConditionIndex c);
  void order();

  const UnfoldingRecord& r_;
  const Unfolding& u_;
  symbolic::ExpressionPool p_;
  std::vector<symbolic::InputVariable> variables_;
  std::vector<symbolic::ExprId> terms_;
  std::vector<EventIndex> cone_;             // ascending
  std::vector<std::uint32_t> event_number_;  // by event: its variable, or kNone
  std::vector<std::uint32_t> same_inputs_;
};

}  // namespace weft::explorer
