#include "weft/explore/unfolding.hpp"

#include <algorithm>

namespace weft::explorer {

namespace {

// What an operation touches besides its thread's condition: the condition of kind `kind` and key
// `key`, only observed (`read`) or consumed and replaced by one of kind `becomes` (a mutex goes
// from free to held and back).
struct Touch {
  ConditionKind kind;
  ObjectKey key;
  bool read;
  ConditionKind becomes;
};

std::vector<Touch> touches_of(const Operation& op) {
  std::vector<Touch> touches;
  const auto write = [&](ConditionKind kind, ObjectKey key) {
    touches.push_back({kind, key, false, kind});
  };
  if (op.kind == OpKind::kFree) {
    const auto [first, last] = granule_span(op.object, op.size);
    for (ObjectKey g = first; g <= last; ++g) write(ConditionKind::kMemory, g);
  } else {
    for_each_access(op, [&](ObjectKey g, ByteMask, ByteMask written) {
      touches.push_back({ConditionKind::kMemory, g, written == 0, ConditionKind::kMemory});
    });
  }
  // A mutex is free or held, as the thesis models locks (Fig. 3.4): taking it consumes the free
  // condition, giving it up the held one; a failed trylock observes the held one.
  if (acquires_mutex(op))
    touches.push_back({ConditionKind::kMutex, mutex_of(op), false, ConditionKind::kMutexHeld});
  else if (releases_mutex(op))
    touches.push_back({ConditionKind::kMutexHeld, mutex_of(op), false, ConditionKind::kMutex});
  else if (op.kind == OpKind::kMutexTryLock)
    touches.push_back({ConditionKind::kMutexHeld, op.object, true, ConditionKind::kMutexHeld});
  switch (domain_of(op.kind)) {
    case Domain::kCond:
      write(ConditionKind::kCond, op.object);
      break;
    case Domain::kSemaphore:
      // Posts commute with each other; waits compete for the count.
      touches.push_back({ConditionKind::kSemaphore, op.object, op.kind == OpKind::kSemPost,
                         ConditionKind::kSemaphore});
      break;
    case Domain::kFutex:
      write(ConditionKind::kFutex, op.object);
      break;
    case Domain::kThread:
      // A join observes the joined thread's last condition: it comes after all it did.
      if (op.kind == OpKind::kThreadJoin)
        touches.push_back({ConditionKind::kThread, op.object, true, ConditionKind::kThread});
      break;
    default:
      break;
  }
  return touches;
}

}  // namespace

std::uint64_t Unfolding::slot(ConditionKind kind, ObjectKey key) {
  return (std::uint64_t{static_cast<std::uint8_t>(kind)} << 61) ^ key;
}

ConditionIndex Unfolding::initial(ConditionKind kind, ObjectKey key) {
  auto [it, inserted] =
      initial_.try_emplace(slot(kind, key), static_cast<ConditionIndex>(conditions_.size()));
  if (inserted) conditions_.push_back({kind, key, kInitialCondition});
  return it->second;
}

ConditionIndex Unfolding::current(const Marking& marking, ConditionKind kind, ObjectKey key) {
  if (kind == ConditionKind::kThread) {
    if (key < marking.threads_.size() && marking.threads_[key] != kInitialCondition)
      return marking.threads_[key];
  } else if (auto it = marking.objects_.find(slot(kind, key)); it != marking.objects_.end()) {
    return it->second;
  }
  return initial(kind, key);
}

void Unfolding::set_current(Marking& marking, ConditionIndex c) const {
  const Condition& cond = conditions_[c];
  if (cond.kind == ConditionKind::kThread) {
    if (cond.key >= marking.threads_.size())
      marking.threads_.resize(cond.key + 1, kInitialCondition);
    marking.threads_[cond.key] = c;
  } else {
    marking.objects_[slot(cond.kind, cond.key)] = c;
  }
}

std::uint64_t Unfolding::event_hash(const Operation& op, const std::vector<ConditionIndex>& preset,
                                    const std::vector<ConditionIndex>& context) const {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ULL; };
  mix(static_cast<std::uint64_t>(op.kind));
  mix(op.object);
  mix(op.size);
  mix(op.result);
  for (ConditionIndex c : preset) mix(c);
  mix(~std::uint64_t{0});  // preset and context apart
  for (ConditionIndex c : context) mix(c);
  return h;
}

EventIndex Unfolding::find(std::uint64_t hash, const Operation& op,
                           const std::vector<ConditionIndex>& preset,
                           const std::vector<ConditionIndex>& context) const {
  for (auto [it, end] = by_hash_.equal_range(hash); it != end; ++it) {
    const UnfoldingEvent& candidate = events_[it->second];
    if (candidate.op == op && candidate.preset == preset && candidate.context == context)
      return it->second;
  }
  return kInitialCondition;
}

Unfolding::Fired Unfolding::fire(Marking& marking, const Event& e) {
  const Operation& op = e.op;
  const std::vector<Touch> touches = touches_of(op);

  std::vector<ConditionIndex> preset{current(marking, ConditionKind::kThread, e.thread)};
  std::vector<ConditionIndex> context;
  // What each consumed condition becomes (by condition; a mutex changes kind).
  std::unordered_map<ConditionIndex, ConditionKind> becomes;
  for (const Touch& t : touches) {
    const ConditionIndex c = current(marking, t.kind, t.key);
    (t.read ? context : preset).push_back(c);
    if (!t.read) becomes[c] = t.becomes;
  }
  if (touches_everything(op)) {
    // Ordered after everything before it, and everything after it after it: it takes every
    // token of the marking and puts back new ones.
    for (ThreadId t = 0; t < marking.threads_.size(); ++t)
      if (t != e.thread && marking.threads_[t] != kInitialCondition)
        preset.push_back(marking.threads_[t]);
    for (const auto& [slot_key, c] : marking.objects_) preset.push_back(c);
  }
  std::sort(preset.begin() + 1, preset.end());
  preset.erase(std::unique(preset.begin() + 1, preset.end()), preset.end());
  std::sort(context.begin(), context.end());
  context.erase(std::unique(context.begin(), context.end()), context.end());
  // A condition both observed and consumed is consumed.
  std::erase_if(context, [&](ConditionIndex c) {
    return std::find(preset.begin(), preset.end(), c) != preset.end();
  });

  const std::uint64_t hash = event_hash(op, preset, context);
  EventIndex found = find(hash, op, preset, context);
  const bool added = found == kInitialCondition;
  if (added) {
    found = static_cast<EventIndex>(events_.size());
    UnfoldingEvent ev;
    ev.thread = e.thread;
    ev.op = op;
    for (ConditionIndex c : preset) {
      ev.postset.push_back(static_cast<ConditionIndex>(conditions_.size()));
      const auto it = becomes.find(c);
      conditions_.push_back(
          {it != becomes.end() ? it->second : conditions_[c].kind, conditions_[c].key, found});
    }
    if (op.kind == OpKind::kThreadCreate) {
      ev.postset.push_back(static_cast<ConditionIndex>(conditions_.size()));
      conditions_.push_back({ConditionKind::kThread, op.object, found});
    }
    ev.preset = std::move(preset);
    ev.context = std::move(context);
    events_.push_back(std::move(ev));
    by_hash_.emplace(hash, found);
  }
  // The consumed tokens go (a mutex's free one is not replaced by a free one), the new ones come.
  for (ConditionIndex c : events_[found].preset)
    if (conditions_[c].kind != ConditionKind::kThread)
      marking.objects_.erase(slot(conditions_[c].kind, conditions_[c].key));
  for (ConditionIndex c : events_[found].postset) set_current(marking, c);
  return {found, added};
}

std::vector<EventIndex> Unfolding::local_configuration(EventIndex e) const {
  std::vector<bool> in(e + 1, false);
  std::vector<EventIndex> todo{e};
  in[e] = true;
  while (!todo.empty()) {
    const UnfoldingEvent& ev = events_[todo.back()];
    todo.pop_back();
    const auto visit = [&](ConditionIndex c) {
      const EventIndex p = conditions_[c].producer;
      if (p != kInitialCondition && !in[p]) {
        in[p] = true;
        todo.push_back(p);
      }
    };
    for (ConditionIndex c : ev.preset) visit(c);
    for (ConditionIndex c : ev.context) visit(c);
  }
  std::vector<EventIndex> out;
  for (EventIndex i = 0; i <= e; ++i)
    if (in[i]) out.push_back(i);
  return out;
}

bool Unfolding::causes(EventIndex a, EventIndex b) const {
  if (a >= b) return false;  // causes come first
  const auto past = local_configuration(b);
  return std::binary_search(past.begin(), past.end(), a);
}

bool Unfolding::asymmetric_conflict(EventIndex a, EventIndex b) const {
  if (causes(a, b)) return true;
  const auto shares = [](const std::vector<ConditionIndex>& x,
                         const std::vector<ConditionIndex>& y) {
    return std::any_of(x.begin(), x.end(), [&](ConditionIndex c) {
      return std::find(y.begin(), y.end(), c) != y.end();
    });
  };
  return shares(events_[a].context, events_[b].preset) ||
         (a != b && shares(events_[a].preset, events_[b].preset));
}

std::vector<EventIndex> Unfolding::schedule_of(const std::vector<EventIndex>& configuration) const {
  std::unordered_map<EventIndex, std::size_t> position;
  for (std::size_t i = 0; i < configuration.size(); ++i) position[configuration[i]] = i;
  // The events of the configuration that observe each condition: they go before its consumer.
  std::unordered_map<ConditionIndex, std::vector<std::size_t>> observers;
  for (std::size_t i = 0; i < configuration.size(); ++i)
    for (ConditionIndex c : events_[configuration[i]].context) observers[c].push_back(i);
  std::vector<std::vector<std::size_t>> after(configuration.size());
  std::vector<std::size_t> waiting_for(configuration.size(), 0);
  const auto order = [&](std::size_t first, std::size_t then) {
    after[first].push_back(then);
    ++waiting_for[then];
  };
  for (std::size_t i = 0; i < configuration.size(); ++i) {
    const UnfoldingEvent& ev = events_[configuration[i]];
    for (const auto* conditions : {&ev.preset, &ev.context})
      for (ConditionIndex c : *conditions)
        if (auto it = position.find(conditions_[c].producer); it != position.end())
          order(it->second, i);
    for (ConditionIndex c : ev.preset)
      if (auto it = observers.find(c); it != observers.end())
        for (std::size_t reader : it->second)
          if (reader != i) order(reader, i);
  }
  // Kahn's algorithm, the earliest added event first among those free to go.
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < configuration.size(); ++i)
    if (waiting_for[i] == 0) ready.push_back(i);
  const auto later_added = [&](std::size_t a, std::size_t b) {
    return configuration[a] > configuration[b];
  };
  std::make_heap(ready.begin(), ready.end(), later_added);
  std::vector<EventIndex> out;
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), later_added);
    const std::size_t i = ready.back();
    ready.pop_back();
    out.push_back(configuration[i]);
    for (std::size_t next : after[i])
      if (--waiting_for[next] == 0) {
        ready.push_back(next);
        std::push_heap(ready.begin(), ready.end(), later_added);
      }
  }
  return out;  // shorter than the configuration only if it had a cycle (it was no configuration)
}

bool Unfolding::concurrent(const std::vector<ConditionIndex>& conditions) const {
  // The configuration that produces them all: the causes of their producers.
  std::vector<bool> in(events_.size(), false);
  for (ConditionIndex c : conditions)
    if (const EventIndex p = conditions_[c].producer; p != kInitialCondition)
      for (EventIndex e : local_configuration(p)) in[e] = true;
  std::vector<EventIndex> configuration;
  std::unordered_map<ConditionIndex, EventIndex> consumer;
  for (EventIndex e = 0; e < events_.size(); ++e) {
    if (!in[e]) continue;
    configuration.push_back(e);
    for (ConditionIndex c : events_[e].preset)
      if (!consumer.emplace(c, e).second) return false;  // two events take one token: conflict
  }
  // None of the conditions may be used up on the way to it.
  for (ConditionIndex c : conditions)
    if (consumer.count(c)) return false;
  // And the configuration must be able to fire in some order (no cycle of ↗, Def. 19).
  return schedule_of(configuration).size() == configuration.size();
}

std::vector<Unfolding::Extension> Unfolding::naive_possible_extensions() const {
  // A thread's next operation from a condition, as the events that took it on from there did it
  // (without inputs a thread does the same from the same local state).
  std::unordered_map<ConditionIndex, EventIndex> next;
  for (EventIndex e = 0; e < events_.size(); ++e) next.emplace(events_[e].preset.front(), e);
  std::unordered_map<std::uint64_t, std::vector<ConditionIndex>> of_slot;
  for (ConditionIndex c = 0; c < conditions_.size(); ++c)
    of_slot[slot(conditions_[c].kind, conditions_[c].key)].push_back(c);

  std::vector<Extension> out;
  for (const auto& [thread_condition, example] : next) {
    const UnfoldingEvent& taken = events_[example];
    if (touches_everything(taken.op)) continue;  // not modelled here (see the header)
    const std::vector<Touch> touches = touches_of(taken.op);
    // Every choice of one condition per object touched.
    std::vector<std::size_t> choice(touches.size(), 0);
    while (true) {
      std::vector<ConditionIndex> preset{thread_condition}, context, all{thread_condition};
      for (std::size_t i = 0; i < touches.size(); ++i) {
        const ConditionIndex c = of_slot[slot(touches[i].kind, touches[i].key)][choice[i]];
        (touches[i].read ? context : preset).push_back(c);
        all.push_back(c);
      }
      std::sort(preset.begin() + 1, preset.end());
      std::sort(context.begin(), context.end());
      if (find(event_hash(taken.op, preset, context), taken.op, preset, context) ==
              kInitialCondition &&
          concurrent(all))
        out.push_back({taken.thread, taken.op, preset, context});
      // The next choice, as an odometer.
      std::size_t i = 0;
      for (; i < touches.size(); ++i) {
        if (++choice[i] < of_slot[slot(touches[i].kind, touches[i].key)].size()) break;
        choice[i] = 0;
      }
      if (i == touches.size()) break;
    }
  }
  return out;
}

}  // namespace weft::explorer
