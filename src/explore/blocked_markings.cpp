#include "weft/explore/blocked_markings.hpp"

#include <algorithm>
#include <unordered_map>

#include "marking_translation.hpp"

namespace weft::explorer {

using symbolic::ExprId;

bool blocks_on_signal(const Operation& op) {
  return (op.kind == OpKind::kCondWake || op.kind == OpKind::kFutexWoken ||
          domain_of(op.kind) == Domain::kChannel)
             ? !op.timed && may_block(op.kind)
             : op.kind == OpKind::kSemWait;
}

BlockedMarkings find_blocked_markings(const UnfoldingRecord& record,
                                      const Unfolding::NextOperations& next,
                                      const std::vector<std::vector<ConditionIndex>>& known,
                                      symbolic::Solver& solver, std::size_t max_sets) {
  BlockedMarkings out;
  const Unfolding& u = *record.unfolding;
  // Each thread condition: where the thread is at an end (it finished), waits (its next
  // operation may block), or runs (anything else, or nothing known).
  std::vector<ConditionIndex> waiting, on_signal, running, thread_conditions;
  for (ConditionIndex c = 0; c < u.conditions(); ++c) {
    if (u.condition(c).kind != ConditionKind::kThread) continue;
    thread_conditions.push_back(c);
    const auto it = next.find(c);
    if (it == next.end()) {
      running.push_back(c);
    } else if (!it->second) {
      waiting.push_back(c);  // finished: no event of its thread consumes it
    } else if (may_block(it->second->kind) && !it->second->timed) {
      waiting.push_back(c);
      if (blocks_on_signal(*it->second)) on_signal.push_back(c);
    } else {
      running.push_back(c);
    }
  }
  if (on_signal.empty()) return out;

  MarkingTranslation t(record);
  t.translate({}, /*everything=*/true);
  // D4: no thread runs; D1: no event of a thread that waits or finished is enabled (an event
  // of another thread consumes its thread's condition, which is not marked); and some thread
  // waits on a signal, a post or a futex wake.
  for (ConditionIndex c : running) t.require(t.negation(t.marked(c)));
  for (ConditionIndex c : waiting)
    for (EventIndex e : u.consumers(c)) {
      std::vector<ExprId> needs;
      for (const auto* list : {&u.event(e).preset, &u.event(e).context})
        for (ConditionIndex p : *list) needs.push_back(t.marked(p));
      t.require(t.negation(t.all_of(needs)));
    }
  std::vector<ExprId> some;
  for (ConditionIndex c : on_signal) some.push_back(t.marked(c));
  t.require(t.any_of(some));
  const auto exclude = [&](const std::vector<ConditionIndex>& set) {
    std::vector<ExprId> all;
    for (ConditionIndex c : set) all.push_back(t.marked(c));
    t.require(t.negation(t.all_of(all)));
  };
  for (const auto& set : known) exclude(set);

  while (true) {
    if (out.sets.size() >= max_sets) {
      out.more = true;
      break;
    }
    ++out.solver_calls;
    const symbolic::Solution s = solver.solve(t.pool(), {}, {t.conjunction(), true}, t.variables());
    if (s.answer == symbolic::Answer::kUnsatisfiable) break;
    if (s.answer != symbolic::Answer::kSatisfiable) {
      out.complete = false;
      break;
    }
    // The marking's thread conditions: those whose producer fired and no consumer did.
    const std::vector<EventIndex> fired = t.configuration(s);
    std::vector<bool> in(u.events(), false);
    for (EventIndex e : fired) in[e] = true;
    std::vector<ConditionIndex> set;
    for (ConditionIndex c : thread_conditions) {
      const EventIndex p = u.condition(c).producer;
      if (p != kInitialCondition && !in[p]) continue;
      const auto& consumers = u.consumers(c);
      if (std::none_of(consumers.begin(), consumers.end(), [&](EventIndex e) { return in[e]; }))
        set.push_back(c);
    }
    exclude(set);
    out.sets.push_back(std::move(set));
  }
  return out;
}

}  // namespace weft::explorer
