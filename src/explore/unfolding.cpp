#include "weft/explore/unfolding.hpp"

#include <algorithm>

namespace weft::explorer {

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

Unfolding::Fired Unfolding::fire(Marking& marking, const Event& e) {
  const Operation& op = e.op;
  // What the operation touches, as (kind, key, only reads it).
  struct Touch {
    ConditionKind kind;
    ObjectKey key;
    bool read;
  };
  std::vector<Touch> touches;
  if (op.kind == OpKind::kFree) {
    const auto [first, last] = granule_span(op.object, op.size);
    for (ObjectKey g = first; g <= last; ++g) touches.push_back({ConditionKind::kMemory, g, false});
  } else {
    for_each_access(op, [&](ObjectKey g, ByteMask, ByteMask written) {
      touches.push_back({ConditionKind::kMemory, g, written == 0});
    });
  }
  switch (domain_of(op.kind)) {
    case Domain::kMutex:
      touches.push_back(
          {ConditionKind::kMutex, op.object, op.kind == OpKind::kMutexTryLock && op.result == 0});
      break;
    case Domain::kCond:
      touches.push_back({ConditionKind::kCond, op.object, false});
      if (op.kind == OpKind::kCondWait || op.kind == OpKind::kCondWake)
        touches.push_back({ConditionKind::kMutex, op.partner, false});
      break;
    case Domain::kSemaphore:
      touches.push_back({ConditionKind::kSemaphore, op.object, op.kind == OpKind::kSemPost});
      break;
    case Domain::kFutex:
      touches.push_back({ConditionKind::kFutex, op.object, false});
      break;
    default:
      break;
  }

  std::vector<ConditionIndex> preset{current(marking, ConditionKind::kThread, e.thread)};
  std::vector<ConditionIndex> context;
  for (const Touch& t : touches)
    (t.read ? context : preset).push_back(current(marking, t.kind, t.key));
  if (op.kind == OpKind::kThreadJoin)
    context.push_back(current(marking, ConditionKind::kThread, op.object));
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
  EventIndex found = kInitialCondition;
  for (auto [it, end] = by_hash_.equal_range(hash); it != end; ++it) {
    const UnfoldingEvent& candidate = events_[it->second];
    if (candidate.op == op && candidate.preset == preset && candidate.context == context) {
      found = it->second;
      break;
    }
  }
  const bool added = found == kInitialCondition;
  if (added) {
    found = static_cast<EventIndex>(events_.size());
    UnfoldingEvent ev;
    ev.thread = e.thread;
    ev.op = op;
    for (ConditionIndex c : preset) {
      ev.postset.push_back(static_cast<ConditionIndex>(conditions_.size()));
      conditions_.push_back({conditions_[c].kind, conditions_[c].key, found});
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

}  // namespace weft::explorer
