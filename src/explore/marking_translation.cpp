#include "marking_translation.hpp"

#include <algorithm>
#include <unordered_map>

namespace weft::explorer {

using symbolic::ExprId;
using symbolic::ExprKind;

namespace {
// Events touching at most this many consumers of one condition exclude each other pairwise (B3);
// more take a sequential counter, linear in their number ([LBHJ04], as the thesis' tool does).
constexpr std::size_t kPairwiseAtMost = 4;
}  // namespace

MarkingTranslation::MarkingTranslation(const UnfoldingRecord& record)
    : r_(record), u_(*record.unfolding) {
  for (const auto& v : record.inputs) {
    same_inputs_.push_back(static_cast<std::uint32_t>(variables_.size()));
    variables_.push_back(v);
  }
}

void MarkingTranslation::translate(const std::vector<ConditionIndex>& relevant, bool everything) {
  std::vector<EventIndex> todo;
  std::vector<bool> in(u_.events(), everything);
  const auto add = [&](EventIndex e) {
    if (e != kInitialCondition && !in[e]) {
      in[e] = true;
      todo.push_back(e);
    }
  };
  for (ConditionIndex c : relevant) {
    add(u_.condition(c).producer);
    for (EventIndex e : u_.consumers(c)) add(e);
  }
  while (!todo.empty()) {
    const EventIndex e = todo.back();
    todo.pop_back();
    for (const auto* list : {&u_.event(e).preset, &u_.event(e).context})
      for (ConditionIndex c : *list) add(u_.condition(c).producer);
  }
  event_number_.assign(u_.events(), kNone);
  for (EventIndex e = 0; e < u_.events(); ++e)
    if (in[e]) {
      cone_.push_back(e);
      event_number_[e] = fresh_number(1);
    }
  for (EventIndex e : cone_) causes_and_branch(e);
  for (ConditionIndex c = 0; c < u_.conditions(); ++c) at_most_one_consumer(c);
  order();
}

ExprId MarkingTranslation::conjunction() {
  std::vector<ExprId> level = terms_;
  if (level.empty()) return p_.constant(1, 1);
  while (level.size() > 1) {
    std::vector<ExprId> up;
    for (std::size_t i = 0; i + 1 < level.size(); i += 2)
      up.push_back(p_.binary(ExprKind::kAnd, level[i], level[i + 1]));
    if (level.size() % 2) up.push_back(level.back());
    level = std::move(up);
  }
  return level.front();
}

std::uint32_t MarkingTranslation::fresh_number(unsigned width) {
  const auto n = static_cast<std::uint32_t>(variables_.size());
  // Stable ids only name inputs for the solver's cache: these are this query's own.
  variables_.push_back({width, 0, (std::uint64_t{1} << 63) | n});
  return n;
}

ExprId MarkingTranslation::fresh(unsigned width) {
  return p_.input(width, fresh_number(width));
}

ExprId MarkingTranslation::fired(EventIndex e) {
  return event_number_[e] == kNone ? p_.constant(1, 0) : p_.input(1, event_number_[e]);
}

ExprId MarkingTranslation::negation(ExprId a) {
  return p_.unary(ExprKind::kNot, a);
}

ExprId MarkingTranslation::implies(ExprId a, ExprId b) {
  return p_.binary(ExprKind::kOr, negation(a), b);
}

ExprId MarkingTranslation::any_of(const std::vector<ExprId>& xs) {
  ExprId out = p_.constant(1, 0);
  for (ExprId x : xs) out = p_.binary(ExprKind::kOr, out, x);
  return out;
}

ExprId MarkingTranslation::all_of(const std::vector<ExprId>& xs) {
  ExprId out = p_.constant(1, 1);
  for (ExprId x : xs) out = p_.binary(ExprKind::kAnd, out, x);
  return out;
}

// B1, C1: a fired event's immediate causes fired (the rest follows); B2: its constraint holds.
void MarkingTranslation::causes_and_branch(EventIndex e) {
  const UnfoldingEvent& ev = u_.event(e);
  std::vector<EventIndex> causes;
  for (const auto* list : {&ev.preset, &ev.context})
    for (ConditionIndex c : *list)
      if (const EventIndex p = u_.condition(c).producer; p != kInitialCondition)
        causes.push_back(p);
  std::sort(causes.begin(), causes.end());
  causes.erase(std::unique(causes.begin(), causes.end()), causes.end());
  for (EventIndex p : causes) terms_.push_back(implies(fired(e), fired(p)));
  if (const auto it = r_.branch_constraints->find(e); it != r_.branch_constraints->end()) {
    ExprId g = p_.is_nonzero(p_.import(*r_.pool, it->second.condition, same_inputs_));
    if (!it->second.holds) g = negation(g);
    terms_.push_back(implies(fired(e), g));
  }
}

// B3: of the events that consume `c`, at most one fired.
void MarkingTranslation::at_most_one_consumer(ConditionIndex c) {
  std::vector<EventIndex> consumers;
  for (EventIndex e : u_.consumers(c))
    if (event_number_[e] != kNone) consumers.push_back(e);
  if (consumers.size() < 2) return;
  if (consumers.size() <= kPairwiseAtMost) {
    for (std::size_t i = 0; i < consumers.size(); ++i)
      for (std::size_t j = i + 1; j < consumers.size(); ++j)
        terms_.push_back(
            negation(p_.binary(ExprKind::kAnd, fired(consumers[i]), fired(consumers[j]))));
    return;
  }
  // s_i: one of the first i consumers fired.
  ExprId before = fresh(1);
  terms_.push_back(implies(fired(consumers[0]), before));
  for (std::size_t i = 1; i < consumers.size(); ++i) {
    const ExprId e = fired(consumers[i]);
    const ExprId now = fresh(1);
    terms_.push_back(implies(e, now));
    terms_.push_back(implies(before, now));
    terms_.push_back(implies(before, negation(e)));
    before = now;
  }
}

// C2, C3: the fired events can be numbered in an order that fires each after its causes, and
// an event that observes a condition before the one that consumes it. Without read arcs in the
// cone, B1-B4 say it all.
void MarkingTranslation::order() {
  const bool read_arcs = std::any_of(cone_.begin(), cone_.end(),
                                     [&](EventIndex e) { return !u_.event(e).context.empty(); });
  if (!read_arcs) return;
  unsigned width = 2;
  while ((std::size_t{1} << (width - 1)) <= cone_.size()) ++width;
  std::unordered_map<EventIndex, ExprId> n;
  for (EventIndex e : cone_) n[e] = fresh(width);
  for (EventIndex e : cone_) {
    const UnfoldingEvent& ev = u_.event(e);
    for (const auto* list : {&ev.preset, &ev.context})
      for (ConditionIndex c : *list)
        if (const EventIndex p = u_.condition(c).producer; p != kInitialCondition)
          terms_.push_back(implies(fired(e), p_.binary(ExprKind::kUlt, n.at(p), n.at(e))));
    for (ConditionIndex c : ev.context)
      for (EventIndex w : u_.consumers(c))
        if (event_number_[w] != kNone)
          terms_.push_back(implies(fired(e), p_.binary(ExprKind::kUlt, n.at(e), n.at(w))));
  }
}

ExprId MarkingTranslation::marked(ConditionIndex c) {
  const EventIndex p = u_.condition(c).producer;
  ExprId produced = p == kInitialCondition ? p_.constant(1, 1) : fired(p);
  std::vector<ExprId> taken;
  for (EventIndex e : u_.consumers(c)) taken.push_back(fired(e));
  return p_.binary(ExprKind::kAnd, produced, negation(any_of(taken)));
}

std::vector<EventIndex> MarkingTranslation::configuration(const symbolic::Solution& s) const {
  std::vector<EventIndex> out;
  for (EventIndex e : cone_)
    if (s.values[event_number_[e]] & 1) out.push_back(e);
  return out;
}

TestDirective MarkingTranslation::test_of(const symbolic::Solution& s, std::size_t& steps) const {
  TestDirective test;
  steps = 0;
  for (EventIndex e : u_.schedule_of(configuration(s)))
    if (u_.event(e).op.kind != OpKind::kSymbolicBranch) {
      test.prefix.push_back(u_.event(e).thread);
      ++steps;
    }
  for (std::size_t i = 0; i < r_.input_keys.size(); ++i)
    test.inputs.push_back({r_.input_keys[i], s.values[i]});
  std::sort(test.inputs.begin(), test.inputs.end(),
            [](const InputValue& a, const InputValue& b) { return a.key < b.key; });
  return test;
}

}  // namespace weft::explorer
