#include "cut_off_events.hpp"

#include <algorithm>

#include "weft/trace/hash_mix.hpp"

namespace weft::explorer {

std::uint64_t transition_label(ThreadId t, const Operation& op) {
  return hash_mix(hash_mix(t, static_cast<std::uint64_t>(op.kind)), hash_mix(op.object, op.size));
}

int compare_foata(const FoataForm& a, const FoataForm& b) {
  // Per level: the first label (in label order) whose counts differ decides, the fewer the
  // smaller; sorted lists, so the one holding the smaller label there has more of it.
  const auto compare_parikh = [](const std::vector<std::uint64_t>& x,
                                 const std::vector<std::uint64_t>& y) {
    const std::size_t n = std::min(x.size(), y.size());
    for (std::size_t i = 0; i < n; ++i)
      if (x[i] != y[i]) return x[i] < y[i] ? 1 : -1;
    if (x.size() == y.size()) return 0;
    return x.size() < y.size() ? -1 : 1;
  };
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (const int order = compare_parikh(a[i], b[i]); order != 0) return order;
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

bool CutOffEvents::add(EventIndex e, std::uint64_t change) {
  if (e >= change_.size()) {
    change_.resize(e + 1, 0);
    cut_off_.resize(e + 1, false);
    depth_.resize(e + 1, 0);
  }
  change_[e] = change;
  const UnfoldingEvent& added_event = unfolding_->event(e);
  std::uint32_t depth = 1;
  const auto deepen = [&](ConditionIndex c) {
    if (const EventIndex p = unfolding_->condition(c).producer; p != kInitialCondition)
      depth = std::max(depth, depth_[p] + 1);
  };
  for (ConditionIndex c : added_event.preset) deepen(c);
  for (ConditionIndex c : added_event.context) deepen(c);
  depth_[e] = depth;

  const std::vector<EventIndex> past = unfolding_->local_configuration(e);
  std::uint64_t state = 0;
  Rank rank{static_cast<std::uint32_t>(past.size()), 0, e};
  for (EventIndex p : past) {
    state += change_[p];
    const UnfoldingEvent& ev = unfolding_->event(p);
    rank.weight += label_weight(transition_label(ev.thread, ev.op));
  }
  const auto [it, added] = smallest_.try_emplace(state, rank);
  if (added) return false;
  const int order = compare(it->second, rank);
  if (order < 0) {
    cut_off_[e] = true;
    ++cut_offs_;
    return true;
  }
  if (order > 0) it->second = rank;  // smaller: the witness for later events, and no cut-off
  return false;
}

int CutOffEvents::compare(const Rank& a, const Rank& b) const {
  if (a.size != b.size) return a.size < b.size ? -1 : 1;
  if (a.weight != b.weight) return a.weight < b.weight ? -1 : 1;
  // Equal sizes: both are events (the empty configuration is the only one of size 0).
  return compare_foata(foata(a.event), foata(b.event));
}

FoataForm CutOffEvents::foata(EventIndex e) const {
  FoataForm levels;
  for (EventIndex p : unfolding_->local_configuration(e)) {
    const UnfoldingEvent& ev = unfolding_->event(p);
    if (levels.size() < depth_[p]) levels.resize(depth_[p]);
    levels[depth_[p] - 1].push_back(transition_label(ev.thread, ev.op));
  }
  for (auto& level : levels) std::sort(level.begin(), level.end());
  return levels;
}

bool CutOffEvents::beyond(const Unfolding::Extension& x) const {
  const auto produced_by_cut_off = [this](ConditionIndex c) { return beyond(c); };
  return std::any_of(x.preset.begin(), x.preset.end(), produced_by_cut_off) ||
         std::any_of(x.context.begin(), x.context.end(), produced_by_cut_off);
}

}  // namespace weft::explorer
