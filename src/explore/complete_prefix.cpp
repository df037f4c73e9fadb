#include "complete_prefix.hpp"

#include <algorithm>

#include "weft/trace/hash_mix.hpp"

namespace weft::explorer {
namespace {

std::uint64_t extension_key(const Unfolding::Extension& x) {
  std::uint64_t h = hash_mix(x.thread, static_cast<std::uint64_t>(x.op.kind));
  h = hash_mix(hash_mix(h, x.op.object), x.op.result);
  for (ConditionIndex c : x.preset) h = hash_mix(h, c);
  h = hash_mix(h, 0xc0);
  for (ConditionIndex c : x.context) h = hash_mix(h, c);
  return h;
}

}  // namespace

bool CompletePrefix::produced(ConditionIndex c) const {
  const EventIndex p = unfolding_->condition(c).producer;
  return p == kInitialCondition || (p < status_.size() && status_[p] == Status::kInPrefix);
}

std::vector<ConditionIndex> CompletePrefix::needed(const Candidate& c) const {
  std::vector<ConditionIndex> out;
  if (c.is_event) {
    const UnfoldingEvent& ev = unfolding_->event(c.event);
    out = ev.preset;
    out.insert(out.end(), ev.context.begin(), ev.context.end());
  } else {
    out = c.target.preset;
    out.insert(out.end(), c.target.context.begin(), c.target.context.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<EventIndex> CompletePrefix::past(const Candidate& c) const {
  if (c.is_event) return unfolding_->local_configuration(c.event);
  std::vector<EventIndex> out;
  for (ConditionIndex n : needed(c))
    if (const EventIndex p = unfolding_->condition(n).producer; p != kInitialCondition) {
      const std::vector<EventIndex> more = unfolding_->local_configuration(p);
      out.insert(out.end(), more.begin(), more.end());
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void CompletePrefix::add_event(EventIndex e, std::uint64_t change, bool cut_off) {
  if (e >= change_.size()) {
    change_.resize(e + 1, 0);
    depth_.resize(e + 1, 0);
    status_.resize(e + 1, Status::kOutside);
  }
  change_[e] = change;
  Candidate c;
  c.event = e;
  c.known_cut_off = cut_off;
  add_candidate(std::move(c));
}

void CompletePrefix::add_target(Unfolding::Extension x) {
  if (unfolding_->find_event(x.preset, x.context, x.op) != kInitialCondition) return;
  if (!targets_seen_.insert(extension_key(x)).second) return;
  Candidate c;
  c.is_event = false;
  c.target = std::move(x);
  open_.push_back(add_candidate(std::move(c)));
}

std::uint32_t CompletePrefix::add_candidate(Candidate c) {
  const auto index = static_cast<std::uint32_t>(candidates_.size());
  const std::vector<ConditionIndex> conditions = needed(c);
  for (ConditionIndex n : conditions) {
    const EventIndex p = unfolding_->condition(n).producer;
    if (p != kInitialCondition) c.depth = std::max(c.depth, depth_[p] + 1);
  }
  if (c.depth == 0) c.depth = 1;
  if (c.is_event) depth_[c.event] = c.depth;
  for (ConditionIndex n : conditions)
    if (!produced(n)) {
      ++c.missing;
      waiting_[n].push_back(index);
    }
  candidates_.push_back(std::move(c));
  if (candidates_[index].missing == 0) make_ready(index);
  return index;
}

void CompletePrefix::make_ready(std::uint32_t index) {
  Candidate& c = candidates_[index];
  const std::vector<EventIndex> events = past(c);
  c.size = static_cast<std::uint32_t>(events.size()) + (c.is_event ? 0 : 1);
  c.weight = c.is_event ? 0 : label_weight(transition_label(c.target.thread, c.target.op));
  c.state = 0;
  for (EventIndex e : events) {
    const UnfoldingEvent& ev = unfolding_->event(e);
    c.weight += label_weight(transition_label(ev.thread, ev.op));
    c.state += change_[e];
  }
  ready_.push_back(index);
  std::push_heap(ready_.begin(), ready_.end(),
                 [this](std::uint32_t a, std::uint32_t b) { return later(a, b); });
}

const FoataForm& CompletePrefix::foata(std::uint32_t index) const {
  const auto [it, added] = foata_.try_emplace(index);
  if (!added) return it->second;
  const Candidate& c = candidates_[index];
  FoataForm& levels = it->second;
  const auto put = [&](std::uint32_t depth, std::uint64_t l) {
    if (levels.size() < depth) levels.resize(depth);
    levels[depth - 1].push_back(l);
  };
  for (EventIndex e : past(c)) {
    const UnfoldingEvent& ev = unfolding_->event(e);
    put(depth_[e], transition_label(ev.thread, ev.op));
  }
  if (!c.is_event) put(c.depth, transition_label(c.target.thread, c.target.op));
  for (auto& level : levels) std::sort(level.begin(), level.end());
  return levels;
}

int CompletePrefix::compare(std::uint32_t a, std::uint32_t b) const {
  const Candidate& x = candidates_[a];
  const Candidate& y = candidates_[b];
  if (x.size != y.size) return x.size < y.size ? -1 : 1;
  if (x.weight != y.weight) return x.weight < y.weight ? -1 : 1;
  return compare_foata(foata(a), foata(b));
}

void CompletePrefix::admit(std::uint32_t index) {
  const Candidate& c = candidates_[index];
  const EventIndex e = c.event;
  ++admitted_;
  if (c.known_cut_off) {
    status_[e] = Status::kCutOff;
    ++cut_offs_;
    return;
  }
  const auto [it, added] = reached_.emplace(c.state, index);
  if (!added) {
    // A witness smaller in the adequate order makes it a cut-off (thesis §7.1); one not ordered
    // with it does not, and a larger one (it joined first: candidates come as tests find them)
    // gives way to it as the witness for later events.
    const int order = it->second == kInitialState ? -1 : compare(it->second, index);
    if (order < 0) {
      status_[e] = Status::kCutOff;
      ++cut_offs_;
      return;
    }
    if (order > 0) it->second = index;
  } else {
    ++states_;
  }
  status_[e] = Status::kInPrefix;
  for (ConditionIndex p : unfolding_->event(e).postset) {
    const auto w = waiting_.find(p);
    if (w == waiting_.end()) continue;
    const std::vector<std::uint32_t> waiting = std::move(w->second);
    waiting_.erase(w);
    for (std::uint32_t k : waiting)
      if (--candidates_[k].missing == 0) make_ready(k);
  }
}

std::optional<Unfolding::Extension> CompletePrefix::next() {
  while (!ready_.empty()) {
    std::pop_heap(ready_.begin(), ready_.end(),
                  [this](std::uint32_t a, std::uint32_t b) { return later(a, b); });
    const std::uint32_t index = ready_.back();
    ready_.pop_back();
    Candidate& c = candidates_[index];
    if (c.is_event) {
      admit(index);
      continue;
    }
    c.handed_out = true;
    // One a test reached since is a candidate as an event of its own.
    if (unfolding_->find_event(c.target.preset, c.target.context, c.target.op) != kInitialCondition)
      continue;
    return c.target;
  }
  return std::nullopt;
}

std::vector<Unfolding::Extension> CompletePrefix::open_targets(std::size_t at_most) {
  std::vector<Unfolding::Extension> out;
  // The latest first (those of the last tests, near the target next() gave), dropping on the way
  // the ones reached or handed out.
  for (std::size_t i = open_.size(); i-- > 0 && out.size() < at_most;) {
    const Candidate& c = candidates_[open_[i]];
    if (c.handed_out || unfolding_->find_event(c.target.preset, c.target.context, c.target.op) !=
                            kInitialCondition) {
      open_[i] = open_.back();
      open_.pop_back();
      continue;
    }
    out.push_back(c.target);
  }
  return out;
}

}  // namespace weft::explorer
