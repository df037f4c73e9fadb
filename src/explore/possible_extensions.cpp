#include "weft/explore/possible_extensions.hpp"

#include <algorithm>

namespace weft::explorer {

std::size_t PossibleExtensions::KeyHash::operator()(const std::vector<ConditionIndex>& k) const {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (ConditionIndex c : k) h = (h ^ c) * 0x100000001b3ULL;
  return static_cast<std::size_t>(h);
}

std::size_t PossibleExtensions::memory_bytes() const {
  std::size_t bytes = next_.size() * (sizeof(ConditionIndex) + sizeof(Operation) + 24) +
                      (seen_.capacity() + checked_.capacity() + conflicts_with_.capacity()) *
                          sizeof(std::uint32_t) +
                      concurrent_.capacity();
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
  auto& variants = variants_[thread_condition];
  std::vector<std::uint64_t> resources;
  for (const Operation& variant : operation_variants(*op)) {
    variants.push_back(
        {variant,
         unfolding_->touches(static_cast<ThreadId>(unfolding_->condition(thread_condition).key),
                             variant)});
    for (const Touch& t : variants.back().touches)
      resources.push_back(Unfolding::resource(t.kind, t.key));
  }
  std::sort(resources.begin(), resources.end());
  resources.erase(std::unique(resources.begin(), resources.end()), resources.end());
  const auto thread = static_cast<ThreadId>(unfolding_->condition(thread_condition).key);
  for (std::uint64_t r : resources) {
    waiting_[r].push_back(thread_condition);
    auto& threads = waiting_threads_[r];
    if (std::find(threads.begin(), threads.end(), thread) == threads.end())
      threads.push_back(thread);
  }
  return Learned::kNew;
}

void PossibleExtensions::produced(ConditionIndex c, const std::vector<ConditionIndex>& threads) {
  threads_when_produced_[c] = threads;
}

bool PossibleExtensions::takes(const Touch& touch, ConditionIndex c) const {
  const Condition& cond = unfolding_->condition(c);
  if (touch.copies)  // the generation, or one of its copies
    return is_copy(cond.kind)
               ? cond.kind == copy_kind(touch.kind) && place_of_copy(cond.key) == touch.key
               : cond.kind == touch.kind && cond.key == touch.key;
  return Unfolding::resource(touch.kind, touch.key) == unfolding_->resource_of(c);
}

bool PossibleExtensions::waits_for(ConditionIndex t, ConditionIndex c) const {
  const auto it = variants_.find(t);
  if (it == variants_.end()) return false;
  for (const Variant& v : it->second)
    for (const Touch& touch : v.touches)
      if (takes(touch, c)) return true;
  return false;
}

void PossibleExtensions::record_concurrent(ConditionIndex t, ConditionIndex c) {
  threads_concurrent_with_[c].push_back(t);
  conditions_concurrent_with_[t].push_back(c);
}

void PossibleExtensions::extend_with(ConditionIndex t, ConditionIndex c,
                                     std::vector<Unfolding::Extension>& out) {
  const Condition& cond = unfolding_->condition(c);
  for (const Variant& v : variants_.at(t))
    for (std::size_t i = 0; i < v.touches.size(); ++i)
      if ((v.touches[i].kind == cond.kind && v.touches[i].key == cond.key) ||
          (v.touches[i].copies && takes(v.touches[i], c)))
        extend(t, v, i, c, out);
}

void PossibleExtensions::extend_with_new(ConditionIndex c,
                                         const std::unordered_set<ConditionIndex>& fresh,
                                         std::vector<Unfolding::Extension>& out) {
  const Unfolding& u = *unfolding_;
  const std::uint64_t r = u.resource_of(c);
  // The threads waiting for c's resource; for a copy a read of its holder made (or a lost
  // notification), also those taking every copy of the object (a copy made with a generation
  // comes with it).
  std::vector<ThreadId> threads;
  const auto add_waiting = [&](std::uint64_t resource) {
    if (auto it = waiting_threads_.find(resource); it != waiting_threads_.end())
      for (ThreadId thread : it->second)
        if (std::find(threads.begin(), threads.end(), thread) == threads.end())
          threads.push_back(thread);
  };
  add_waiting(r);
  if (const Condition& cond = u.condition(c); is_copy(cond.kind)) {
    const std::uint64_t of =
        Unfolding::resource(generation_kind(cond.kind), place_of_copy(cond.key));
    const auto with_generation = [&](const UnfoldingEvent& p) {
      return std::any_of(p.preset.begin(), p.preset.end(), [&](auto x) {
        return !is_copy(u.condition(x).kind) && u.resource_of(x) == of;
      });
    };
    if (cond.producer != kInitialCondition && !with_generation(u.event(cond.producer)))
      add_waiting(of);
  }
  if (threads.empty()) return;
  const auto hints = threads_when_produced_.find(c);
  const auto hint = [&](ThreadId thread) {
    return hints != threads_when_produced_.end() && thread < hints->second.size()
               ? hints->second[thread]
               : kInitialCondition;
  };
  // A thread searched from its hint needs candidates of its other instances only.
  const bool need_candidates = std::any_of(threads.begin(), threads.end(), [&](ThreadId thread) {
    return hint(thread) == kInitialCondition || u.several_instances(thread);
  });
  // The candidates from the condition before c (see the header).
  std::vector<ConditionIndex> from_before;
  const EventIndex p = u.condition(c).producer;
  if (need_candidates && p != kInitialCondition) {
    for (ConditionIndex before : u.event(p).preset)
      if (u.resource_of(before) == r)
        if (auto it = threads_concurrent_with_.find(before); it != threads_concurrent_with_.end())
          from_before.insert(from_before.end(), it->second.begin(), it->second.end());
  } else if (need_candidates) {
    from_before = waiting_[r];
  }
  // A configuration holding c holds the conditions of c's resource on the way to it, c's
  // ancestors in the resource's tree, and no other: a thread condition whose producer took or
  // observed any other of the resource cannot hold together with c. (A cheap test that spares
  // most co-checks of a walk through a thread that read the resource in many states.)
  std::vector<ConditionIndex> before_c;
  if (u.condition(c).kind != ConditionKind::kThread)  // (a thread's conditions form a forest)
    for (ConditionIndex x = u.replaced(c); x != kInitialCondition; x = u.replaced(x))
      before_c.push_back(x);
  std::sort(before_c.begin(), before_c.end());
  std::vector<ConditionIndex> way;  // for Unfolding::for_each_adjacent_on_way
  if (u.condition(c).kind != ConditionKind::kThread) {
    way = before_c;
    way.insert(std::upper_bound(way.begin(), way.end(), c), c);
  }
  const auto off_the_way = [&](ConditionIndex t) {
    const EventIndex f = u.condition(t).producer;
    if (before_c.empty() || f == kInitialCondition) return false;
    const UnfoldingEvent& ev = u.event(f);
    const auto elsewhere = [&](ConditionIndex m, bool may_be_c) {
      return u.resource_of(m) == r && !(may_be_c && m == c) &&
             !std::binary_search(before_c.begin(), before_c.end(), m);
    };
    return std::any_of(ev.preset.begin() + 1, ev.preset.end(),
                       [&](ConditionIndex m) { return elsewhere(m, false); }) ||
           std::any_of(ev.context.begin(), ev.context.end(),
                       [&](ConditionIndex m) { return elsewhere(m, true); });
  };
  // Whether each thread condition checked is concurrent with c (kept by stamp, as a thread's
  // walk and its candidates may meet); the waiting ones are extended. A walk reaches no
  // condition off c's way but through one that is on it, so only candidates are filtered.
  const std::uint32_t stamp = next_check_stamp();
  const auto check = [&](ConditionIndex t) {
    if (checked_[t] == stamp) return concurrent_[t] != 0;
    checked_[t] = stamp;
    if (p != kInitialCondition && conflicts_with_[t] != kInitialCondition &&
        u.in_local_configuration(conflicts_with_[t], p)) {
      concurrent_[t] = 0;
      return false;
    }
    const bool concurrent = is_concurrent(t, c);
    concurrent_[t] = concurrent;
    // Not concurrent, and not because c is used up on the way to t: [p] conflicts with t's
    // causes (or uses t up), and so does every configuration that holds p.
    if (!concurrent && p != kInitialCondition && !used_up_before(c, t)) conflicts_with_[t] = p;
    // (A fresh one was extended with every condition already.)
    if (concurrent && !fresh.count(t) && waits_for(t, c)) {
      record_concurrent(t, c);
      extend_with(t, c, out);
    }
    return concurrent;
  };
  // from_before by waiting thread (one pass: it can hold thousands).
  std::vector<std::vector<ConditionIndex>> candidates(threads.size());
  for (ConditionIndex t : from_before) {
    const auto at = std::find(threads.begin(), threads.end(), u.condition(t).key);
    if (at != threads.end()) candidates[at - threads.begin()].push_back(t);
  }
  for (std::size_t i = 0; i < threads.size(); ++i) {
    const ThreadId thread = threads[i];
    const ConditionIndex start = hint(thread);
    const bool searched = start != kInitialCondition;
    const EventIndex searched_root = searched ? u.thread_root(start) : kInitialCondition;
    if (searched)  // the thread's conditions concurrent with c
      walk_concurrent(start, check, [&](ConditionIndex x, auto&& visit) {
        if (way.empty())
          u.for_each_adjacent(x, visit);
        else
          u.for_each_adjacent_on_way(x, r, way, visit);
      });
    for (ConditionIndex t : candidates[i])
      if ((!searched || u.thread_root(t) != searched_root) && !off_the_way(t)) check(t);
  }
}

bool PossibleExtensions::used_up_before(ConditionIndex c, ConditionIndex t) const {
  const Unfolding& u = *unfolding_;
  const EventIndex producer = u.condition(t).producer;
  if (producer == kInitialCondition) return false;
  const std::vector<EventIndex>& consumers = u.consumers(c);
  return std::any_of(consumers.begin(), consumers.end(),
                     [&](EventIndex e) { return u.in_local_configuration(e, producer); });
}

std::uint32_t PossibleExtensions::next_check_stamp() {
  if (checked_.size() < unfolding_->conditions()) {
    checked_.resize(unfolding_->conditions(), 0);
    concurrent_.resize(unfolding_->conditions(), 0);
    conflicts_with_.resize(unfolding_->conditions(), kInitialCondition);
  }
  if (++check_stamp_ == 0) {  // wrapped: every old mark must read as unchecked
    std::fill(checked_.begin(), checked_.end(), 0);
    check_stamp_ = 1;
  }
  return check_stamp_;
}

std::uint32_t PossibleExtensions::next_seen_stamp() {
  if (seen_.size() < unfolding_->conditions()) seen_.resize(unfolding_->conditions(), 0);
  if (++seen_stamp_ == 0) {  // wrapped: every old mark must read as unseen
    std::fill(seen_.begin(), seen_.end(), 0);
    seen_stamp_ = 1;
  }
  return seen_stamp_;
}

bool PossibleExtensions::finished(ConditionIndex c) const {
  const auto it = next_.find(c);
  return it != next_.end() && !it->second;
}

bool PossibleExtensions::is_concurrent(ConditionIndex t, ConditionIndex c) {
  ++co_checks_;
  return unfolding_->concurrent({t, c});
}

template <typename Concurrent, typename Adjacent>
void PossibleExtensions::walk_concurrent(ConditionIndex start, Concurrent&& concurrent,
                                         Adjacent&& adjacent) {
  const std::uint32_t stamp = next_seen_stamp();
  std::vector<ConditionIndex> todo{start};
  seen_[start] = stamp;
  while (!todo.empty()) {
    const ConditionIndex c = todo.back();
    todo.pop_back();
    if (!concurrent(c)) continue;  // the concurrent ones are connected: stop here
    adjacent(c, [&](ConditionIndex next) {
      if (seen_[next] != stamp) {
        seen_[next] = stamp;
        todo.push_back(next);
      }
    });
  }
}

void PossibleExtensions::search(ConditionIndex t, ConditionIndex start) {
  // The conditions of start's resource concurrent with t; t's thread's events that produced
  // one are in t's past (see for_each_adjacent).
  walk_concurrent(
      start,
      [&](ConditionIndex c) {
        if (!is_concurrent(t, c)) return false;
        record_concurrent(t, c);
        return true;
      },
      [&, thread = static_cast<ThreadId>(unfolding_->condition(t).key)](
          ConditionIndex c, auto&& visit) { unfolding_->for_each_adjacent(c, visit, thread); });
}

std::vector<Unfolding::Extension> PossibleExtensions::update() {
  const Unfolding& u = *unfolding_;
  std::vector<Unfolding::Extension> out;
  constexpr std::size_t kNoTouch = ~std::size_t{0};

  // Threads whose next operation is new: search what it touches, then extend.
  for (ConditionIndex t : learned_ops_) {
    const std::vector<ConditionIndex>& held = held_[t];
    std::vector<std::uint64_t> searched;
    for (const Variant& variant : variants_.at(t))
      for (const Touch& touch : variant.touches) {
        const std::uint64_t r = Unfolding::resource(touch.kind, touch.key);
        if (std::find(searched.begin(), searched.end(), r) != searched.end()) continue;
        searched.push_back(r);
        const auto start = std::find_if(held.begin(), held.end(),
                                        [&](ConditionIndex c) { return u.resource_of(c) == r; });
        if (start != held.end()) search(t, *start);
      }
    for (const Variant& variant : variants_.at(t)) extend(t, variant, kNoTouch, 0, out);
    held_.erase(t);
  }
  const std::unordered_set<ConditionIndex> fresh(learned_ops_.begin(), learned_ops_.end());

  // New conditions: with the waiting threads that are concurrent with them.
  for (auto c = static_cast<ConditionIndex>(conditions_seen_); c < u.conditions(); ++c)
    extend_with_new(c, fresh, out);
  threads_when_produced_.clear();
  // Threads that finished: the joins waiting for them.
  for (ConditionIndex c : learned_finished_)
    if (auto it = threads_concurrent_with_.find(c); it != threads_concurrent_with_.end()) {
      const std::vector<ConditionIndex> joiners = it->second;
      for (ConditionIndex t : joiners) extend_with(t, c, out);
    }

  learned_ops_.clear();
  learned_finished_.clear();
  conditions_seen_ = u.conditions();
  return out;
}

void PossibleExtensions::extend(ConditionIndex t, const Variant& variant, std::size_t fixed,
                                ConditionIndex with, std::vector<Unfolding::Extension>& out) {
  const Operation& op = variant.op;
  if (touches_everything(op)) return;  // not an extension the unfolding can place (see header)
  if (deadline_) deadline_->check();
  const Unfolding& u = *unfolding_;
  const std::vector<Touch>& touches = variant.touches;
  const std::vector<ConditionIndex>& concurrent = conditions_concurrent_with_[t];
  const bool with_copy =
      fixed < touches.size() && touches[fixed].copies && is_copy(u.condition(with).kind);
  std::vector<std::vector<ConditionIndex>> options(touches.size());
  std::uint64_t combinations = 1;
  bool copies = false;
  for (std::size_t i = 0; i < touches.size(); ++i) {
    copies = copies || touches[i].copies;
    if (i == fixed) {
      options[i] = {with_copy ? u.generation_of(with) : with};
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
  for_each_combination(options, [&](const std::vector<ConditionIndex>& choice) {
    std::vector<ConditionIndex> preset{t}, context;
    std::vector<std::vector<ConditionIndex>> copy_options;
    for (std::size_t i = 0; i < touches.size(); ++i) {
      (touches[i].read ? context : preset).push_back(choice[i]);
      // A join waits for the joined thread to finish: only its last condition will do.
      if (touches[i].kind == ConditionKind::kThread && !finished(choice[i])) return true;
      if (touches[i].needs_signal && !u.holds_signal_for(choice[i], t)) return true;
      if (touches[i].copies)  // one copy per holder, each concurrent with t
        for (auto& [holder, tree] : u.copies_of_generation(choice[i])) {
          std::vector<ConditionIndex>& these = copy_options.emplace_back();
          if (i == fixed && with_copy && holder == holder_of_copy(u.condition(with).key)) {
            these.push_back(with);
            continue;
          }
          for (ConditionIndex c : tree)
            if (is_concurrent(t, c)) {
              these.push_back(c);
              if (recorded_.insert((std::uint64_t{t} << 32) | c).second) record_concurrent(t, c);
            }
          if (these.empty()) return true;
        }
    }
    std::uint64_t more = 1;
    for (const auto& these : copy_options) more *= these.size();
    if (combinations * more > kMaxCombinations) {
      ++combinations_skipped_;
      return true;
    }
    for_each_combination(copy_options, [&](const std::vector<ConditionIndex>& copy_choice) {
      std::vector<ConditionIndex> pre = preset;
      pre.insert(pre.end(), copy_choice.begin(), copy_choice.end());
      // One touch: {t, c} was checked already; more: the whole set must be a co-set.
      emit(t, op, std::move(pre), context, touches.size() <= 1 && !copies, out);
      return true;
    });
    return true;
  });
}

void PossibleExtensions::emit(ConditionIndex t, const Operation& op,
                              std::vector<ConditionIndex> preset,
                              std::vector<ConditionIndex> context, bool checked,
                              std::vector<Unfolding::Extension>& out) {
  if (deadline_) deadline_->check();
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
