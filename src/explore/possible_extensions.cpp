#include "weft/explore/possible_extensions.hpp"

#include <algorithm>

namespace weft::explorer {

std::size_t PossibleExtensions::KeyHash::operator()(const std::vector<ConditionIndex>& k) const {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (ConditionIndex c : k) h = (h ^ c) * 0x100000001b3ULL;
  return static_cast<std::size_t>(h);
}

std::size_t PossibleExtensions::memory_bytes() const {
  std::size_t bytes = next_.size() * (sizeof(ConditionIndex) + sizeof(Operation) + 24);
  for (const auto& [slot_key, list] : waiting_)
    bytes += sizeof(slot_key) + 16 + list.capacity() * sizeof(ConditionIndex);
  for (const auto* index : {&threads_concurrent_with_, &conditions_concurrent_with_})
    for (const auto& [c, list] : *index)
      bytes += sizeof(c) + 16 + list.capacity() * sizeof(ConditionIndex);
  for (const auto& key : found_) bytes += 40 + key.capacity() * sizeof(ConditionIndex);
  return bytes;
}

PossibleExtensions::Learned PossibleExtensions::learn(ConditionIndex thread_condition,
                                                      const std::optional<Operation>& op,
                                                      const std::vector<ConditionIndex>& held) {
  const auto [it, inserted] = next_.try_emplace(thread_condition, op);
  if (!inserted) return it->second == op ? Learned::kSame : Learned::kDifferent;
  if (!op) {
    learned_finished_.push_back(thread_condition);
    return Learned::kNew;
  }
  learned_ops_.push_back(thread_condition);
  held_[thread_condition] = held;
  std::vector<std::uint64_t> resources;
  for (const Operation& variant : operation_variants(*op))
    for (const Touch& t : touches_of(variant))
      resources.push_back(Unfolding::resource(t.kind, t.key));
  std::sort(resources.begin(), resources.end());
  resources.erase(std::unique(resources.begin(), resources.end()), resources.end());
  for (std::uint64_t r : resources) waiting_[r].push_back(thread_condition);
  return Learned::kNew;
}

bool PossibleExtensions::finished(ConditionIndex c) const {
  const auto it = next_.find(c);
  return it != next_.end() && !it->second;
}

bool PossibleExtensions::is_concurrent(ConditionIndex t, ConditionIndex c) {
  ++co_checks_;
  return unfolding_->concurrent({t, c});
}

void PossibleExtensions::search(ConditionIndex t, std::uint64_t r, ConditionIndex start) {
  std::vector<ConditionIndex> todo{start};
  std::unordered_set<ConditionIndex> seen{start};
  while (!todo.empty()) {
    const ConditionIndex c = todo.back();
    todo.pop_back();
    if (!is_concurrent(t, c)) continue;  // the concurrent ones are connected: stop here
    threads_concurrent_with_[c].push_back(t);
    conditions_concurrent_with_[t].push_back(c);
    for (ConditionIndex next : unfolding_->adjacent(c))
      if (unfolding_->resource_of(next) == r && seen.insert(next).second) todo.push_back(next);
  }
}

std::vector<Unfolding::Extension> PossibleExtensions::update() {
  const Unfolding& u = *unfolding_;
  std::vector<Unfolding::Extension> out;
  constexpr std::size_t kNoTouch = ~std::size_t{0};

  // Threads whose next operation is new: search what it touches, then extend.
  for (ConditionIndex t : learned_ops_) {
    const Operation op = *next_.at(t);
    const std::vector<ConditionIndex>& held = held_[t];
    std::vector<std::uint64_t> searched;
    for (const Operation& variant : operation_variants(op))
      for (const Touch& touch : touches_of(variant)) {
        const std::uint64_t r = Unfolding::resource(touch.kind, touch.key);
        if (std::find(searched.begin(), searched.end(), r) != searched.end()) continue;
        searched.push_back(r);
        const auto start = std::find_if(held.begin(), held.end(),
                                        [&](ConditionIndex c) { return u.resource_of(c) == r; });
        if (start != held.end()) search(t, r, *start);
      }
    for (const Operation& variant : operation_variants(op)) extend(t, variant, kNoTouch, 0, out);
    held_.erase(t);
  }
  const std::unordered_set<ConditionIndex> fresh(learned_ops_.begin(), learned_ops_.end());

  // New conditions: with the waiting threads concurrent with the condition before them in their
  // resource (all the resource's waiting threads for a first condition).
  const auto extend_with = [&](ConditionIndex t, ConditionIndex c) {
    const Condition& cond = u.condition(c);
    for (const Operation& op : operation_variants(*next_.at(t))) {
      const std::vector<Touch> touches = touches_of(op);
      for (std::size_t i = 0; i < touches.size(); ++i)
        if (touches[i].kind == cond.kind && touches[i].key == cond.key) extend(t, op, i, c, out);
    }
  };
  for (auto c = static_cast<ConditionIndex>(conditions_seen_); c < u.conditions(); ++c) {
    const std::uint64_t r = u.resource_of(c);
    const auto waiting = waiting_.find(r);
    if (waiting == waiting_.end()) continue;
    std::vector<ConditionIndex> candidates = waiting->second;
    if (const EventIndex p = u.condition(c).producer; p != kInitialCondition) {
      candidates.clear();
      for (ConditionIndex before : u.event(p).preset)
        if (u.resource_of(before) == r)
          if (auto it = threads_concurrent_with_.find(before); it != threads_concurrent_with_.end())
            candidates.insert(candidates.end(), it->second.begin(), it->second.end());
    }
    for (ConditionIndex t : candidates) {
      if (fresh.count(t) || !is_concurrent(t, c)) continue;
      threads_concurrent_with_[c].push_back(t);
      conditions_concurrent_with_[t].push_back(c);
      extend_with(t, c);
    }
  }
  // Threads that finished: the joins waiting for them.
  for (ConditionIndex c : learned_finished_)
    if (auto it = threads_concurrent_with_.find(c); it != threads_concurrent_with_.end()) {
      const std::vector<ConditionIndex> joiners = it->second;
      for (ConditionIndex t : joiners) extend_with(t, c);
    }

  learned_ops_.clear();
  learned_finished_.clear();
  conditions_seen_ = u.conditions();
  return out;
}

void PossibleExtensions::extend(ConditionIndex t, const Operation& op, std::size_t fixed,
                                ConditionIndex with, std::vector<Unfolding::Extension>& out) {
  if (touches_everything(op)) return;  // not an extension the unfolding can place (see header)
  const Unfolding& u = *unfolding_;
  const std::vector<Touch> touches = touches_of(op);
  const std::vector<ConditionIndex>& concurrent = conditions_concurrent_with_[t];
  std::vector<std::vector<ConditionIndex>> options(touches.size());
  std::uint64_t combinations = 1;
  for (std::size_t i = 0; i < touches.size(); ++i) {
    if (i == fixed) {
      options[i] = {with};
    } else {
      for (ConditionIndex c : concurrent)
        if (u.condition(c).kind == touches[i].kind && u.condition(c).key == touches[i].key)
          options[i].push_back(c);
    }
    if (options[i].empty()) return;
    combinations *= options[i].size();
    if (combinations > kMaxCombinations) {
      ++combinations_skipped_;
      return;
    }
  }
  std::vector<std::size_t> choice(touches.size(), 0);
  while (true) {
    std::vector<ConditionIndex> preset{t}, context;
    bool possible = true;
    for (std::size_t i = 0; i < touches.size(); ++i) {
      const ConditionIndex c = options[i][choice[i]];
      (touches[i].read ? context : preset).push_back(c);
      // A join waits for the joined thread to finish: only its last condition will do.
      if (touches[i].kind == ConditionKind::kThread && !finished(c)) possible = false;
    }
    // One touch: {t, c} was checked already; more: the whole set must be a co-set.
    if (possible) emit(t, op, std::move(preset), std::move(context), touches.size() <= 1, out);
    std::size_t i = 0;  // the next choice, as an odometer
    for (; i < touches.size(); ++i) {
      if (++choice[i] < options[i].size()) break;
      choice[i] = 0;
    }
    if (i == touches.size()) break;
  }
}

void PossibleExtensions::emit(ConditionIndex t, const Operation& op,
                              std::vector<ConditionIndex> preset,
                              std::vector<ConditionIndex> context, bool checked,
                              std::vector<Unfolding::Extension>& out) {
  const Unfolding& u = *unfolding_;
  std::sort(preset.begin() + 1, preset.end());
  std::sort(context.begin(), context.end());
  std::vector<ConditionIndex> key = preset;
  key.push_back(kInitialCondition);
  key.insert(key.end(), context.begin(), context.end());
  if (found_.count(key) || u.find_event(preset, context) != kInitialCondition) return;
  if (!checked) {
    std::vector<ConditionIndex> all = preset;
    all.insert(all.end(), context.begin(), context.end());
    ++co_checks_;
    if (!u.concurrent(all)) return;
  }
  found_.insert(std::move(key));
  out.push_back(
      {static_cast<ThreadId>(u.condition(t).key), op, std::move(preset), std::move(context)});
}

}  // namespace weft::explorer
