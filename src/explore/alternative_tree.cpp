#include "alternative_tree.hpp"

#include <algorithm>
#include <unordered_set>

namespace weft::explorer {

void AlternativeTree::add_extension(Unfolding::Extension x) {
  const auto at = static_cast<std::uint32_t>(extensions_.size());
  for (ConditionIndex c : x.preset) extensions_by_condition_[c].push_back(at);
  extensions_.push_back(std::move(x));
}

void AlternativeTree::reset() {
  path_.clear();
  branched_at_.reset();
  branch_disabled_.clear();
  extensions_.clear();
  extensions_by_condition_.clear();
}

void AlternativeTree::observe(const std::vector<EventIndex>& fired) {
  if (!branched_at_) {  // the first leftmost branch
    path_.clear();
    for (EventIndex e : fired) path_.push_back({e, {}, false});
    return;
  }
  const std::size_t node = *branched_at_;
  branched_at_.reset();
  // The replay fires the node's configuration again, event by event, unless the program did
  // something else from the same point; below such a difference the disabled sets no longer
  // describe the path, and nodes start without (more tests, none missed).
  std::size_t same = 0;
  while (same < node && same < fired.size() && fired[same] == path_[same].event) ++same;
  if (same < node) ++diverged_;
  path_.resize(same);
  for (std::size_t i = same; i < fired.size(); ++i)
    path_.push_back({fired[i], same == node ? branch_disabled_ : std::vector<EventIndex>{}, false});
}

AlternativeTree::PathIndex AlternativeTree::index_path() const {
  PathIndex p;
  for (std::uint32_t i = 0; i < path_.size(); ++i) {
    p.position.emplace(path_[i].event, i);
    for (ConditionIndex c : unfolding_->event(path_[i].event).preset) p.consumer.emplace(c, i);
  }
  return p;
}

// Conditions `needs` can hold after the path's first `node` events: none of those consumed one.
// (Each is produced by an event of the configuration being checked, or holds initially.)
bool AlternativeTree::compatible_with_path(const std::vector<ConditionIndex>& needs,
                                           std::uint32_t node, const PathIndex& path) const {
  return std::none_of(needs.begin(), needs.end(), [&](ConditionIndex c) {
    const auto it = path.consumer.find(c);
    return it != path.consumer.end() && it->second < node;
  });
}

bool AlternativeTree::enabled_at(EventIndex d, std::uint32_t node, const PathIndex& path) const {
  const auto in_c = [&](EventIndex e) {
    const auto it = path.position.find(e);
    return it != path.position.end() && it->second < node;
  };
  if (in_c(d)) return false;
  const UnfoldingEvent& ev = unfolding_->event(d);
  for (const auto* conditions : {&ev.preset, &ev.context})
    for (ConditionIndex c : *conditions) {
      const EventIndex producer = unfolding_->condition(c).producer;
      if (producer != kInitialCondition && !in_c(producer)) return false;
    }
  return compatible_with_path(ev.preset, node, path) &&
         compatible_with_path(ev.context, node, path);
}

std::optional<std::vector<EventIndex>> AlternativeTree::outside(
    const std::vector<EventIndex>& roots, std::uint32_t node, const PathIndex& path,
    const std::vector<EventIndex>& disabled) const {
  // The causes of the roots outside C, walked back from the roots: C is closed under causes, so
  // the walk stops at its events (collecting whole local configurations cost most of QPOR's
  // time on programs with long histories).
  std::vector<EventIndex> out, todo;
  std::unordered_set<EventIndex> seen;
  const auto visit = [&](EventIndex z) {
    if (!seen.insert(z).second) return;
    const auto it = path.position.find(z);
    if (it == path.position.end() || it->second >= node) todo.push_back(z);
  };
  for (EventIndex r : roots) visit(r);
  while (!todo.empty()) {
    const EventIndex z = todo.back();
    todo.pop_back();
    if (std::find(disabled.begin(), disabled.end(), z) != disabled.end()) return std::nullopt;
    const UnfoldingEvent& ev = unfolding_->event(z);
    // After C: what z takes or observes must still be there (C runs first, as it ran).
    if (!compatible_with_path(ev.preset, node, path) ||
        !compatible_with_path(ev.context, node, path))
      return std::nullopt;
    out.push_back(z);
    for (const auto* conditions : {&ev.preset, &ev.context})
      for (ConditionIndex c : *conditions)
        if (const EventIndex p = unfolding_->condition(c).producer; p != kInitialCondition)
          visit(p);
  }
  std::sort(out.begin(), out.end());  // causes first: an event's were added before it
  return out;
}

bool AlternativeTree::find_alternative(
    const std::vector<EventIndex>& targets, std::size_t next_target, std::uint32_t node,
    const PathIndex& path, const std::vector<EventIndex>& disabled, Alternative& chosen,
    const std::function<bool(const Alternative&)>& accept) const {
  if (next_target == targets.size()) return accept(chosen);
  const UnfoldingEvent& d = unfolding_->event(targets[next_target]);
  // Already in conflict with an event chosen for an earlier target: nothing more to choose.
  const auto consumed_by_chosen = [&](ConditionIndex c) {
    for (EventIndex z : chosen.events)
      for (ConditionIndex p : unfolding_->event(z).preset)
        if (p == c) return true;
    for (const Unfolding::Extension* x : chosen.extensions)
      if (std::find(x->preset.begin(), x->preset.end(), c) != x->preset.end()) return true;
    return false;
  };
  std::vector<ConditionIndex> needed(d.preset.begin(), d.preset.end());
  needed.insert(needed.end(), d.context.begin(), d.context.end());
  if (std::any_of(needed.begin(), needed.end(), consumed_by_chosen))
    return find_alternative(targets, next_target + 1, node, path, disabled, chosen, accept);
  // Joins `more` (events outside C) and `x` to the choice if no condition is then consumed
  // twice, and tries the next target.
  const auto try_with = [&](const std::vector<EventIndex>& more,
                            const Unfolding::Extension* x) -> bool {
    if (x && !chosen.extensions.empty()) {  // one new event per test, at its end
      one_new_event_too_few_ = true;
      return false;
    }
    std::unordered_set<ConditionIndex> consumed;
    std::vector<EventIndex> events = chosen.events;
    for (EventIndex z : more)
      if (std::find(events.begin(), events.end(), z) == events.end()) events.push_back(z);
    for (EventIndex z : events)
      for (ConditionIndex c : unfolding_->event(z).preset)
        if (!consumed.insert(c).second) return false;
    for (const Unfolding::Extension* y : chosen.extensions)
      for (ConditionIndex c : y->preset)
        if (!consumed.insert(c).second) return false;
    if (x)
      for (ConditionIndex c : x->preset)
        if (!consumed.insert(c).second) return false;
    Alternative with{std::move(events), chosen.extensions};
    if (x) with.extensions.push_back(x);
    // The events must fire in some order after C (no cycle of observations and consumptions).
    if (unfolding_->schedule_of(with.events).size() != with.events.size()) return false;
    if (find_alternative(targets, next_target + 1, node, path, disabled, with, accept)) {
      chosen = std::move(with);
      return true;
    }
    return false;
  };
  for (ConditionIndex c : needed) {
    // Events that took c: in immediate conflict with d, or (c observed by d) disabling it.
    for (EventIndex y : unfolding_->consumers(c)) {
      if (y == targets[next_target]) continue;
      const auto j = outside({y}, node, path, disabled);
      if (j && try_with(*j, nullptr)) return true;
    }
    // Possible extensions that take c; one an event covers now is among the consumers.
    if (const auto it = extensions_by_condition_.find(c); it != extensions_by_condition_.end())
      for (std::uint32_t at : it->second) {
        const Unfolding::Extension& x = extensions_[at];
        if (unfolding_->find_event(x.preset, x.context, x.op) != kInitialCondition) continue;
        if (!compatible_with_path(x.preset, node, path) ||
            !compatible_with_path(x.context, node, path))
          continue;
        std::vector<ConditionIndex> needs = x.preset;
        needs.insert(needs.end(), x.context.begin(), x.context.end());
        std::vector<EventIndex> producers;
        for (ConditionIndex n : needs)
          if (const EventIndex p = unfolding_->condition(n).producer; p != kInitialCondition)
            producers.push_back(p);
        const auto j = outside(producers, node, path, disabled);
        if (j && try_with(*j, &x)) return true;
      }
  }
  return false;
}

std::optional<AlternativeTree::Branch> AlternativeTree::next(
    const std::function<bool(const Branch&)>& reachable) {
  const PathIndex path = index_path();
  for (std::size_t i = path_.size(); i-- > 0;) {
    Node& n = path_[i];
    if (n.tried) continue;
    n.tried = true;
    const auto node = static_cast<std::uint32_t>(i);
    std::vector<EventIndex> disabled = n.disabled;
    if (std::find(disabled.begin(), disabled.end(), n.event) == disabled.end())
      disabled.push_back(n.event);
    // The targets: e, then the latest disabled events still enabled at C, up to k.
    std::vector<EventIndex> targets{n.event};
    std::vector<EventIndex> asleep;
    for (std::size_t j = disabled.size(); j-- > 0;) {
      const EventIndex d = disabled[j];
      if (!enabled_at(d, node, path)) continue;  // in conflict with C: never again
      asleep.push_back(d);
      if (d != n.event && targets.size() < k_) targets.push_back(d);
    }
    Branch branch;
    branch.node = i;
    for (std::size_t j = 0; j < i; ++j) branch.replay.push_back(path_[j].event);
    branch.asleep = asleep;
    const auto accept = [&](const Alternative& a) {
      branch.alternative = unfolding_->schedule_of(a.events);
      branch.extension.reset();
      if (!a.extensions.empty()) branch.extension = *a.extensions.front();
      return reachable(branch);
    };
    Alternative chosen;
    one_new_event_too_few_ = false;
    bool found = find_alternative(targets, 0, node, path, disabled, chosen, accept);
    // Where the k events might have an alternative with more than one event no test fired yet,
    // which one test cannot aim at, e's own (1-partial) is taken: it exists whenever a right
    // child does.
    if (!found && targets.size() > 1 && one_new_event_too_few_) {
      chosen = {};
      found = find_alternative({n.event}, 0, node, path, disabled, chosen, accept);
    }
    if (!found) continue;
    path_.resize(i + 1);
    branched_at_ = i;
    branch_disabled_ = std::move(disabled);
    ++alternatives_;
    return branch;
  }
  path_.clear();
  return std::nullopt;
}

}  // namespace weft::explorer
