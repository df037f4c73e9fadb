#include "weft/explore/unfolding.hpp"

#include <algorithm>
#include <optional>

namespace weft::explorer {

namespace {

// Calls f(granule, bytes read only, bytes written) for each granule `op` touches; a free writes
// its block.
template <class F>
void for_each_memory_access(const Operation& op, F&& f) {
  if (op.kind == OpKind::kFree) {
    const auto [first, last] = granule_span(op.object, op.size);
    for (ObjectKey g = first; g <= last; ++g)
      f(g, ByteMask{0}, bytes_in_granule(op.object, op.size, g));
  } else {
    for_each_access(op, f);
  }
}

ByteMask place_starts(const MemoryPlaces& places, ObjectKey granule) {
  const auto it = places.find(granule);
  return it == places.end() ? ByteMask{1} : it->second;
}

// Calls f(first byte, mask of its bytes) for each place of a granule whose starts are `starts`.
template <class F>
void for_each_place(ByteMask starts, F&& f) {
  for (unsigned b = 0; b < kMemoryGranule;) {
    unsigned end = b + 1;
    while (end < kMemoryGranule && !(starts >> end & 1)) ++end;
    f(b, static_cast<ByteMask>(((1u << end) - 1) & ~((1u << b) - 1)));
    b = end;
  }
}

}  // namespace

std::vector<Touch> touches_of(const Operation& op, const MemoryPlaces& places) {
  std::vector<Touch> touches;
  if (touches_everything(op)) return touches;
  const auto write = [&](ConditionKind kind, ObjectKey key) {
    touches.push_back({kind, key, false, kind});
  };
  for_each_memory_access(op, [&](ObjectKey g, ByteMask read, ByteMask written) {
    for_each_place(place_starts(places, g), [&](unsigned first, ByteMask bytes) {
      if (!(bytes & (read | written))) return;
      touches.push_back({ConditionKind::kMemory, g * kMemoryGranule + first, !(bytes & written),
                         ConditionKind::kMemory});
    });
  });
  // A mutex is free or held, as the thesis models locks (Fig. 3.4): taking it consumes the free
  // condition, giving it up the held one; a failed trylock observes the held one.
  if (acquires_mutex(op))
    touches.push_back({ConditionKind::kMutex, mutex_of(op), false, ConditionKind::kMutexHeld});
  else if (releases_mutex(op))
    touches.push_back({ConditionKind::kMutexHeld, mutex_of(op), false, ConditionKind::kMutex});
  else if (op.kind == OpKind::kMutexTryLock)
    touches.push_back({ConditionKind::kMutexHeld, op.object, true, ConditionKind::kMutexHeld});
  switch (domain_of(op.kind)) {
    case Domain::kCond: {
      // Its uncovered waiters and its signals (cond_footprint, POET's Table 3): a lost
      // notification observes a condition variable none of whose waiters is uncovered; a wait
      // takes either state (the variant says which) to one with a waiter more; a notification
      // that takes effect, and a wake that timed out, take the state with uncovered waiters
      // (what it becomes, fire() computes from their number).
      const CondFootprint f = cond_footprint(op);
      if (op.kind == OpKind::kCondWait)
        touches.push_back({op.result ? ConditionKind::kCondWaiting : ConditionKind::kCond,
                           op.object, false, ConditionKind::kCondWaiting});
      else if (f.waiters == CondFootprint::Waiters::kRead)
        touches.push_back({ConditionKind::kCond, op.object, true, ConditionKind::kCond});
      else if (f.waiters == CondFootprint::Waiters::kWritten)
        write(ConditionKind::kCondWaiting, op.object);
      if (f.signals_written) {
        write(ConditionKind::kCondSignals, op.object);
        // A woken wake took a signal: one for it must be there (the ones fire() keeps), or the
        // unfolding would offer wakes no test can run.
        touches.back().needs_signal = op.kind == OpKind::kCondWake && op.result != 0;
      }
      break;
    }
    case Domain::kSemaphore:
      write(ConditionKind::kSemaphore, op.object);
      break;
    case Domain::kFutex:
      write(ConditionKind::kFutex, op.object);
      break;
    case Domain::kChannel:
      // Each channel is a condition its operations consume and put back; "all channels" (key
      // kAllChannels) is one that a selective wait consumes and the others only read
      // (dependence.cpp).
      if (on_every_channel(op)) {
        write(ConditionKind::kChannel, kAllChannels);
      } else {
        for_each_channel(op, [&](ObjectKey channel) { write(ConditionKind::kChannel, channel); });
        touches.push_back({ConditionKind::kChannel, kAllChannels, true, ConditionKind::kChannel});
      }
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

bool Unfolding::learn_places(const Operation& op) {
  if (touches_everything(op)) return false;
  bool stale = false;
  const auto split = [&](ObjectKey g, ByteMask accessed) {
    if (!accessed) return;
    // Where runs of accessed bytes begin and end.
    const auto edges = static_cast<ByteMask>((accessed ^ (accessed << 1)) | 1);
    const ByteMask before = place_starts(places_, g);
    const auto after = static_cast<ByteMask>(before | edges);
    if (after == before) return;
    places_[g] = after;
    for_each_place(before, [&](unsigned first, ByteMask) {
      stale |= initial_.count(slot(ConditionKind::kMemory, g * kMemoryGranule + first)) != 0;
    });
  };
  for_each_memory_access(op, [&](ObjectKey g, ByteMask read, ByteMask written) {
    split(g, static_cast<ByteMask>(read | written));
    split(g, written);
  });
  return stale;
}

std::vector<std::pair<ObjectKey, unsigned>> Unfolding::places_in(ObjectKey granule) const {
  std::vector<std::pair<ObjectKey, unsigned>> out;
  for_each_place(place_starts(places_, granule), [&](unsigned first, ByteMask bytes) {
    out.push_back(
        {granule * kMemoryGranule + first, static_cast<unsigned>(__builtin_popcount(bytes))});
  });
  return out;
}

std::uint64_t Unfolding::slot(ConditionKind kind, ObjectKey key) {
  return (std::uint64_t{static_cast<std::uint8_t>(kind)} << 60) ^ key;
}

ConditionIndex Unfolding::initial(ConditionKind kind, ObjectKey key) {
  if (is_copy(kind) || (copy_kind(kind) != kind && model_ == UnfoldingModel::kPlaceReplication)) {
    // A replicated object's generation and every copy of it come together (a condition
    // variable's in the initial state, none waiting).
    ConditionKind first = generation_kind(kind);
    if (first == ConditionKind::kCondWaiting) first = ConditionKind::kCond;
    const ObjectKey place = is_copy(kind) ? place_of_copy(key) : key;
    if (!initial_.count(slot(first, place))) {
      const ConditionIndex generation = add_condition(first, place, kInitialCondition);
      initial_.emplace(slot(first, place), generation);
      for (ThreadId t : holders_) {
        const ConditionIndex copy =
            add_condition(copy_kind(first), copy_key(place, t), kInitialCondition);
        initial_.emplace(slot(copy_kind(first), copy_key(place, t)), copy);
        add_copy(copy, generation);
      }
    }
    // (A copy of a thread with none: a caller's bug.)
    return initial_.at(is_copy(kind) ? slot(copy_kind(first), key) : slot(first, place));
  }
  auto [it, inserted] =
      initial_.try_emplace(slot(kind, key), static_cast<ConditionIndex>(conditions_.size()));
  if (inserted) add_condition(kind, key, kInitialCondition);
  return it->second;
}

ConditionIndex Unfolding::add_condition(ConditionKind kind, ObjectKey key, EventIndex producer) {
  const auto c = static_cast<ConditionIndex>(conditions_.size());
  conditions_.push_back({kind, key, producer});
  consumers_.emplace_back();
  replaced_.push_back(kInitialCondition);
  replacements_.emplace_back();
  generation_.push_back(kInitialCondition);   // set by add_copy for a copy
  thread_root_.push_back(kInitialCondition);  // set by fire() once its producer is added
  by_slot_[slot(kind, key)].push_back(c);
  return c;
}

std::uint64_t Unfolding::resource(ConditionKind kind, ObjectKey key) {
  if (kind == ConditionKind::kMutexHeld) return slot(ConditionKind::kMutex, key);
  if (kind == ConditionKind::kCondWaiting) return slot(ConditionKind::kCond, key);
  if (kind == ConditionKind::kCondWaitingCopy) return slot(ConditionKind::kCondCopy, key);
  return slot(kind, key);
}

ConditionIndex Unfolding::marked(const Marking& marking, ConditionKind kind, ObjectKey key) {
  // A mutex, and a condition variable's waiters (and their copies), are in one of two states
  // (kinds); the first is the initial one.
  for (const auto& [first, second] :
       {std::pair{ConditionKind::kMutex, ConditionKind::kMutexHeld},
        std::pair{ConditionKind::kCond, ConditionKind::kCondWaiting},
        std::pair{ConditionKind::kCondCopy, ConditionKind::kCondWaitingCopy}})
    if (kind == first || kind == second) {
      for (ConditionKind k : {first, second})
        if (auto it = marking.objects_.find(slot(k, key)); it != marking.objects_.end())
          return it->second;
      return initial(first, key);
    }
  return current(marking, kind, key);
}

bool Unfolding::marking_settles(OpKind kind) {
  return kind == OpKind::kCondWait || kind == OpKind::kCondSignal || kind == OpKind::kCondBroadcast;
}

Operation Unfolding::settled(const Marking& marking, const Operation& op) {
  // Whether a wait found uncovered waiters, and whether a notification was lost, the marking
  // says (it counts as the scheduler does: runtime/sync_state.hpp).
  if (!marking_settles(op.kind)) return op;
  Operation out = op;
  const bool waiting = conditions_[marked(marking, ConditionKind::kCond, op.object)].kind ==
                       ConditionKind::kCondWaiting;
  out.result = op.kind == OpKind::kCondWait ? waiting : !waiting;
  return out;
}

std::pair<ConditionKind, std::uint32_t> Unfolding::waiters_after(const Operation& op,
                                                                 const Condition& before) {
  // (An operation that takes everything, a process exit, leaves the waiters as they are.)
  std::uint32_t n = generation_kind(before.kind) == ConditionKind::kCondWaiting ? before.count : 0;
  if (op.kind == OpKind::kCondWait)
    ++n;
  else if (op.kind == OpKind::kCondBroadcast)
    n = 0;
  else if (n > 0 && (op.kind == OpKind::kCondSignal || op.kind == OpKind::kCondWake))
    --n;  // an effective signal, a wake that timed out: one fewer uncovered
  const ConditionKind kind = n ? ConditionKind::kCondWaiting : ConditionKind::kCond;
  return {is_copy(before.kind) ? copy_kind(kind) : kind, n};
}

ConditionIndex Unfolding::waiters_in(const std::vector<ConditionIndex>& conditions,
                                     ObjectKey cv) const {
  for (ConditionIndex c : conditions)
    if ((conditions_[c].kind == ConditionKind::kCond ||
         conditions_[c].kind == ConditionKind::kCondWaiting) &&
        conditions_[c].key == cv)
      return c;
  return kInitialCondition;
}

ConditionIndex Unfolding::wait_stamp(ConditionIndex thread_condition, ObjectKey cv) const {
  const EventIndex wait = own_event_before(thread_condition);
  if (wait == kInitialCondition || events_[wait].op.kind != OpKind::kCondWait ||
      events_[wait].op.object != cv)
    return kInitialCondition;
  return waiters_in(events_[wait].preset, cv);
}

bool Unfolding::holds_signal_for(ConditionIndex signals, ConditionIndex thread_condition) const {
  const auto it = signals_.find(signals);
  if (it == signals_.end() || it->second.empty()) return false;
  const ConditionIndex since = wait_stamp(thread_condition, conditions_[signals].key);
  return since == kInitialCondition || it->second.back() > since;
}

std::vector<ConditionIndex> Unfolding::signals_after(
    const Operation& op, ConditionIndex before, const std::vector<ConditionIndex>& preset) const {
  std::vector<ConditionIndex> held;
  if (const auto it = signals_.find(before); it != signals_.end()) held = it->second;
  const ObjectKey cv = conditions_[before].key;
  switch (op.kind) {
    case OpKind::kCondSignal:
    case OpKind::kCondBroadcast: {
      // Taking effect, it gives a signal to one uncovered waiter (a broadcast to each), named by
      // the waiters condition it took: the latest, so appended in order.
      const ConditionIndex waiters = waiters_in(preset, cv);
      if (waiters == kInitialCondition) break;
      const std::uint32_t uncovered = conditions_[waiters].count;
      const std::uint32_t given = op.kind == OpKind::kCondSignal ? 1 : uncovered;
      held.insert(held.end(), given, waiters);
      break;
    }
    case OpKind::kCondWake: {
      // A woken wake takes the oldest signal given since its wait (the runtime's upper_bound).
      if (op.result == 0) break;
      const ConditionIndex since = wait_stamp(preset.front(), cv);
      const auto taken = std::upper_bound(held.begin(), held.end(),
                                          since == kInitialCondition ? ConditionIndex{0} : since);
      if (taken != held.end()) held.erase(taken);
      break;
    }
    default:  // a wake that timed out, an operation that takes everything: they stay
      break;
  }
  return held;
}

std::size_t Unfolding::memory_bytes() const {
  std::size_t bytes = conditions_.capacity() * sizeof(Condition) +
                      events_.capacity() * sizeof(UnfoldingEvent) +
                      by_hash_.size() * (sizeof(std::uint64_t) + sizeof(EventIndex) + 16);
  for (const UnfoldingEvent& e : events_)
    bytes += (e.preset.capacity() + e.context.capacity() + e.postset.capacity()) *
             sizeof(ConditionIndex);
  bytes += replaced_.capacity() * sizeof(ConditionIndex) + tree_.capacity() * sizeof(TreeLink) +
           clocks_.capacity() * sizeof(ClockEntry) + clock_at_.capacity() * sizeof(std::uint32_t);
  for (std::size_t c = 0; c < conditions_.size(); ++c)
    bytes += sizeof(std::vector<EventIndex>) * 2 +
             (consumers_[c].capacity() + replacements_[c].capacity()) * sizeof(EventIndex);
  for (const auto& [slot_key, list] : by_slot_)
    bytes += sizeof(slot_key) + 16 + list.capacity() * sizeof(ConditionIndex);
  for (const auto& [c, list] : signals_)
    bytes += sizeof(c) + 16 + sizeof(list) + list.capacity() * sizeof(ConditionIndex);
  for (const auto& [key, list] : thread_children_by_touch_)
    bytes += sizeof(key) + 16 + sizeof(list) + list.capacity() * sizeof(ConditionIndex);
  for (const auto& [x, list] : resources_every_child_touches_)
    bytes += sizeof(x) + 16 + sizeof(list) + list.capacity() * sizeof(std::uint64_t);
  return bytes;
}

const std::vector<ConditionIndex>& Unfolding::conditions_of(ConditionKind kind,
                                                            ObjectKey key) const {
  static const std::vector<ConditionIndex> kNone;
  const auto it = by_slot_.find(slot(kind, key));
  return it == by_slot_.end() ? kNone : it->second;
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

std::uint64_t Unfolding::event_hash(const std::vector<ConditionIndex>& preset,
                                    const std::vector<ConditionIndex>& context) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ULL; };
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

EventIndex Unfolding::find_event(const std::vector<ConditionIndex>& preset,
                                 const std::vector<ConditionIndex>& context) const {
  for (auto [it, end] = by_hash_.equal_range(event_hash(preset, context)); it != end; ++it) {
    const UnfoldingEvent& candidate = events_[it->second];
    if (candidate.preset == preset && candidate.context == context) return it->second;
  }
  return kInitialCondition;
}

std::vector<Touch> Unfolding::touches(ThreadId thread, const Operation& op) const {
  std::vector<Touch> touches = touches_of(op, places_);
  if (model_ != UnfoldingModel::kPlaceReplication) return touches;
  for (Touch& t : touches) {
    // Place replication keeps the unfolding a prime event structure for QPOR's alternatives,
    // which assume symmetric conflicts: a read arc (a lost notification observing a condition
    // variable a wait then takes) would make one event disable another without conflicting with
    // it, and QPOR then missed configurations (a lost broadcast before a wait). So a condition
    // variable's waiters are replicated as memory is: a lost notification takes its thread's
    // copy and puts it back, and lost notifications commute with each other and with wakes.
    if (copy_kind(t.kind) == t.kind) continue;
    if (t.read) {  // the reader's own copy
      t.kind = t.becomes = copy_kind(t.kind);
      t.key = copy_key(t.key, thread);
      t.read = false;
    } else {  // every copy
      t.copies = true;
    }
  }
  return touches;
}

void Unfolding::set_copy_holders(std::vector<ThreadId> threads) {
  holders_ = std::move(threads);
  std::sort(holders_.begin(), holders_.end());
}

EventIndex Unfolding::own_event_before(ConditionIndex c) const {
  const auto thread = conditions_[c].key;
  EventIndex before = conditions_[c].producer;
  while (before != kInitialCondition && events_[before].thread != thread) {
    const auto& pre = events_[before].preset;
    const auto own = std::find_if(pre.begin(), pre.end(), [&](ConditionIndex x) {
      return conditions_[x].kind == ConditionKind::kThread && conditions_[x].key == thread;
    });
    before = own == pre.end() ? kInitialCondition : conditions_[*own].producer;
  }
  return before;
}

void Unfolding::add_copy(ConditionIndex copy, ConditionIndex generation) {
  generation_[copy] = generation;
  const ThreadId holder = holder_of_copy(conditions_[copy].key);
  CopiesByHolder& by_holder = copies_by_generation_[generation];
  auto it = std::find_if(by_holder.begin(), by_holder.end(),
                         [&](const auto& entry) { return entry.first == holder; });
  if (it == by_holder.end()) it = by_holder.insert(by_holder.end(), {holder, {}});
  it->second.push_back(copy);
}

const Unfolding::CopiesByHolder& Unfolding::copies_of_generation(ConditionIndex generation) const {
  static const CopiesByHolder kNone;
  const auto it = copies_by_generation_.find(generation);
  return it == copies_by_generation_.end() ? kNone : it->second;
}

std::vector<ConditionIndex> Unfolding::marked_for(const Marking& marking, ThreadId t,
                                                  const Operation& op) {
  std::vector<ConditionIndex> out;
  for (const Operation& variant : operation_variants(op))
    for (const Touch& touch : touches(t, variant)) {
      const ConditionIndex c = marked(marking, touch.kind, touch.key);
      out.push_back(c);
      if (touch.copies)
        for (ThreadId h : holders_)
          out.push_back(marked(marking, copy_kind(touch.kind), copy_key(touch.key, h)));
    }
  return out;
}

EventIndex Unfolding::find_event(const std::vector<ConditionIndex>& preset,
                                 const std::vector<ConditionIndex>& context,
                                 const Operation& op) const {
  if (op.kind != OpKind::kSymbolicBranch) return find_event(preset, context);
  return find(event_hash(preset, context), op, preset, context);
}

std::vector<ConditionIndex> Unfolding::held_before(const Marking& marking, ThreadId t,
                                                   const Operation& op) {
  // Only a notification and a timed wake have variants that touch different resources.
  const bool differ = op.kind == OpKind::kCondSignal || op.kind == OpKind::kCondBroadcast ||
                      (op.kind == OpKind::kCondWake && op.timed);
  return differ ? marked_for(marking, t, op) : std::vector<ConditionIndex>{};
}

std::vector<ConditionIndex> Unfolding::held_after(const UnfoldingEvent& fired,
                                                  std::vector<ConditionIndex> before) const {
  before.insert(before.end(), fired.preset.begin() + 1, fired.preset.end());
  before.insert(before.end(), fired.context.begin(), fired.context.end());
  return before;
}

Unfolding::Fired Unfolding::fire(Marking& marking, const Event& e) {
  // (Copied only where the marking settles an outcome: this runs for every event.)
  std::optional<Operation> settled_op;
  if (marking_settles(e.op.kind)) settled_op = settled(marking, e.op);
  const Operation& op = settled_op ? *settled_op : e.op;
  const std::vector<Touch> touches = this->touches(e.thread, op);

  std::vector<ConditionIndex> preset{current(marking, ConditionKind::kThread, e.thread)};
  std::vector<ConditionIndex> context;
  // What each consumed condition becomes (by condition; a mutex changes kind).
  std::unordered_map<ConditionIndex, ConditionKind> becomes;
  for (const Touch& t : touches) {
    const ConditionIndex c = current(marking, t.kind, t.key);
    (t.read ? context : preset).push_back(c);
    if (!t.read) becomes[c] = t.becomes;
    if (t.copies)
      for (ThreadId h : holders_)
        preset.push_back(marked(marking, copy_kind(t.kind), copy_key(t.key, h)));
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

  const std::uint64_t hash = event_hash(preset, context);
  EventIndex found = find(hash, op, preset, context);
  const bool added = found == kInitialCondition;
  if (added) {
    found = static_cast<EventIndex>(events_.size());
    UnfoldingEvent ev;
    ev.thread = e.thread;
    ev.op = op;
    for (ConditionIndex c : preset) {
      const auto it = becomes.find(c);
      const Condition consumed = conditions_[c];
      if (const ConditionKind g = generation_kind(consumed.kind);
          g == ConditionKind::kCond || g == ConditionKind::kCondWaiting) {
        const auto [kind, waiting] = waiters_after(op, consumed);
        ev.postset.push_back(add_condition(kind, consumed.key, found));
        conditions_.back().count = waiting;
        continue;
      }
      if (consumed.kind == ConditionKind::kCondSignals) {
        std::vector<ConditionIndex> held = signals_after(op, c, preset);
        ev.postset.push_back(add_condition(consumed.kind, consumed.key, found));
        conditions_.back().count = static_cast<std::uint32_t>(held.size());
        if (!held.empty()) signals_.emplace(ev.postset.back(), std::move(held));
        continue;
      }
      ev.postset.push_back(
          add_condition(it != becomes.end() ? it->second : consumed.kind, consumed.key, found));
    }
    if (op.kind == OpKind::kThreadCreate) {
      ev.postset.push_back(add_condition(ConditionKind::kThread, op.object, found));
      ++created_[static_cast<ThreadId>(op.object)];
    }
    for (std::size_t i = 0; i < preset.size(); ++i) {
      consumers_[preset[i]].push_back(found);
      // Grouped by the producer's thread (for_each_adjacent skips one thread's).
      std::vector<ConditionIndex>& next = replacements_[preset[i]];
      next.insert(std::upper_bound(next.begin(), next.end(), ev.thread,
                                   [&](ThreadId t, ConditionIndex x) {
                                     return t < events_[conditions_[x].producer].thread;
                                   }),
                  ev.postset[i]);
      replaced_[ev.postset[i]] = preset[i];
    }
    ev.preset = std::move(preset);
    ev.context = std::move(context);
    events_.push_back(std::move(ev));
    index_event(found);
    index_thread_child(found);
    // A thread's instance: that of the condition of the thread the event consumed, or, for a
    // created thread's first condition, this creation.
    for (ConditionIndex c : events_[found].postset) {
      if (conditions_[c].kind != ConditionKind::kThread) continue;
      thread_root_[c] = found;
      for (ConditionIndex before : events_[found].preset)
        if (conditions_[before].kind == ConditionKind::kThread &&
            conditions_[before].key == conditions_[c].key)
          thread_root_[c] = thread_root_[before];
    }
    by_hash_.emplace(hash, found);
    index_copies(found);
  }
  // The consumed tokens go (a mutex's free one is not replaced by a free one), the new ones come.
  for (ConditionIndex c : events_[found].preset)
    if (conditions_[c].kind != ConditionKind::kThread)
      marking.objects_.erase(slot(conditions_[c].kind, conditions_[c].key));
  for (ConditionIndex c : events_[found].postset) set_current(marking, c);
  return {found, added};
}

void Unfolding::index_copies(EventIndex e) {
  const UnfoldingEvent& ev = events_[e];
  for (std::size_t i = 0; i < ev.postset.size() && i < ev.preset.size(); ++i) {
    const Condition& c = conditions_[ev.postset[i]];
    if (!is_copy(c.kind)) continue;
    // A write (or an event that takes everything) starts a generation: the copy's is the one
    // it produced; a read's copy stays in the generation of the copy it replaced.
    ConditionIndex generation = generation_[ev.preset[i]];
    const std::uint64_t of = resource(generation_kind(c.kind), place_of_copy(c.key));
    for (std::size_t j = 0; j < ev.preset.size(); ++j)
      if (!is_copy(conditions_[ev.preset[j]].kind) && resource_of(ev.preset[j]) == of)
        generation = ev.postset[j];
    add_copy(ev.postset[i], generation);
  }
}

void Unfolding::index_event(EventIndex e) {
  const UnfoldingEvent& ev = events_[e];
  // The thread's previous event; an event that consumed every condition (touches_everything)
  // may have produced the thread condition in between.
  const EventIndex before = own_event_before(ev.preset.front());
  const bool same_thread = before != kInitialCondition;
  const EventIndex parent = same_thread ? before : kInitialCondition;
  // Myers' jump pointer: twice as far as the parent's when the parent's two jumps are equal.
  EventIndex jump = parent;
  if (same_thread) {
    const TreeLink& up = tree_[parent];
    if (up.jump != kInitialCondition && tree_[up.jump].jump != kInitialCondition &&
        up.depth - tree_[up.jump].depth == tree_[up.jump].depth - tree_[tree_[up.jump].jump].depth)
      jump = tree_[up.jump].jump;
  }
  tree_.push_back({same_thread ? tree_[parent].depth + 1 : 0, parent, jump});
  // The clock: the deepest of the direct causes' per thread (they lie on one path: [e] is a
  // configuration), and e itself for its thread.
  std::vector<ClockEntry> clock;
  for (const auto* conditions : {&ev.preset, &ev.context})
    for (ConditionIndex c : *conditions) {
      const EventIndex p = conditions_[c].producer;
      if (p == kInitialCondition) continue;
      const auto [theirs, size] = clock_of(p);
      if (clock.size() < size) clock.resize(size);
      for (std::size_t t = 0; t < size; ++t)
        if (theirs[t].event != kInitialCondition &&
            (clock[t].event == kInitialCondition || theirs[t].depth > clock[t].depth))
          clock[t] = theirs[t];
    }
  if (clock.size() <= ev.thread) clock.resize(ev.thread + 1);
  clock[ev.thread] = {e, tree_[e].depth};
  clocks_.insert(clocks_.end(), clock.begin(), clock.end());
  clock_at_.push_back(static_cast<std::uint32_t>(clocks_.size()));
}

void Unfolding::index_thread_child(EventIndex e) {
  const UnfoldingEvent& ev = events_[e];
  const ConditionIndex x = ev.preset.front(), y = ev.postset.front();
  std::vector<std::uint64_t> touched;
  for (const auto* conditions : {&ev.preset, &ev.context})
    for (ConditionIndex m : *conditions) {
      if (m == x) continue;
      thread_children_by_touch_[std::uint64_t{x} << 32 | m].push_back(y);
      touched.push_back(resource_of(m));
    }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  const auto [it, first] = resources_every_child_touches_.try_emplace(x, std::move(touched));
  if (!first)
    std::erase_if(it->second, [&](std::uint64_t r) {
      return !std::binary_search(touched.begin(), touched.end(), r);
    });
  // Other threads' conditions an event took besides its own (it took every one) are visited
  // as all children.
  for (std::size_t i = 1; i < ev.preset.size(); ++i)
    if (conditions_[ev.preset[i]].kind == ConditionKind::kThread)
      resources_every_child_touches_[ev.preset[i]].clear();
}

bool Unfolding::ancestor_or_self(EventIndex a, EventIndex b) const {
  const std::uint32_t depth = tree_[a].depth;
  while (true) {
    const TreeLink& link = tree_[b];
    if (link.depth <= depth) return link.depth == depth && a == b;
    b = link.jump != kInitialCondition && tree_[link.jump].depth >= depth ? link.jump : link.parent;
    if (b == kInitialCondition) return false;
  }
}

bool Unfolding::may_be_concurrent(ConditionIndex a, ConditionIndex b) const {
  const EventIndex pa = conditions_[a].producer, pb = conditions_[b].producer;
  if (pa == kInitialCondition || pb == kInitialCondition) return true;
  // Compatible paths through every thread: one clock's event an ancestor of the other's. (The
  // depths are in the clocks, so that most threads are decided without leaving them.)
  const auto [ca, na] = clock_of(pa);
  const auto [cb, nb] = clock_of(pb);
  for (std::size_t t = 0; t < std::min(na, nb); ++t) {
    const ClockEntry x = ca[t], y = cb[t];
    if (x.event == kInitialCondition || y.event == kInitialCondition || x.event == y.event)
      continue;
    if (x.depth == y.depth) return false;
    if (!(x.depth < y.depth ? ancestor_or_self(x.event, y.event)
                            : ancestor_or_self(y.event, x.event)))
      return false;
  }
  // A thread condition is used up by its thread's next event: the other's causes must not go
  // past it in that thread.
  const auto used_up_by = [&](ConditionIndex c, EventIndex p, const ClockEntry* other,
                              std::size_t others) {
    const Condition& cond = conditions_[c];
    if (cond.kind != ConditionKind::kThread || events_[p].thread != cond.key) return false;
    if (cond.key >= others) return false;
    const ClockEntry y = other[cond.key];
    return y.event != kInitialCondition && y.depth > tree_[p].depth && ancestor_or_self(p, y.event);
  };
  return !used_up_by(a, pa, cb, nb) && !used_up_by(b, pb, ca, na);
}

bool Unfolding::in_local_configuration(EventIndex a, EventIndex b) const {
  const ThreadId t = events_[a].thread;
  const auto [clock, size] = clock_of(b);
  if (t >= size) return false;
  const ClockEntry x = clock[t];
  return x.event != kInitialCondition && x.depth >= tree_[a].depth && ancestor_or_self(a, x.event);
}

std::uint32_t Unfolding::next_stamp() const {
  if (mark_.size() < events_.size()) mark_.resize(events_.size(), 0);
  if (consumed_mark_.size() < conditions_.size()) consumed_mark_.resize(conditions_.size(), 0);
  if (++stamp_ == 0) {  // wrapped: every old mark must read as unmarked
    std::fill(mark_.begin(), mark_.end(), 0);
    std::fill(consumed_mark_.begin(), consumed_mark_.end(), 0);
    stamp_ = 1;
  }
  return stamp_;
}

void Unfolding::collect_causes(std::vector<EventIndex>& todo, std::uint32_t stamp,
                               std::vector<EventIndex>& out) const {
  while (!todo.empty()) {
    const EventIndex e = todo.back();
    todo.pop_back();
    out.push_back(e);
    const UnfoldingEvent& ev = events_[e];
    for (const auto* conditions : {&ev.preset, &ev.context})
      for (ConditionIndex c : *conditions)
        if (const EventIndex p = conditions_[c].producer;
            p != kInitialCondition && mark_[p] != stamp) {
          mark_[p] = stamp;
          todo.push_back(p);
        }
  }
}

std::vector<EventIndex> Unfolding::local_configuration(EventIndex e) const {
  const std::uint32_t stamp = next_stamp();
  std::vector<EventIndex> todo{e}, out;
  mark_[e] = stamp;
  collect_causes(todo, stamp, out);
  std::sort(out.begin(), out.end());
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

std::vector<EventIndex> Unfolding::configuration_of(
    const std::vector<ConditionIndex>& conditions) const {
  std::vector<EventIndex> events;
  for (ConditionIndex c : conditions)
    if (const EventIndex p = conditions_[c].producer; p != kInitialCondition) {
      const auto past = local_configuration(p);
      events.insert(events.end(), past.begin(), past.end());
    }
  std::sort(events.begin(), events.end());
  events.erase(std::unique(events.begin(), events.end()), events.end());
  return events;
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
  for (std::size_t i = 0; i < conditions.size(); ++i)
    for (std::size_t j = i + 1; j < conditions.size(); ++j)
      if (!may_be_concurrent(conditions[i], conditions[j])) return false;
  // The configuration that produces them all: the causes of their producers.
  const std::uint32_t stamp = next_stamp();
  std::vector<EventIndex> todo, configuration;
  for (ConditionIndex c : conditions)
    if (const EventIndex p = conditions_[c].producer; p != kInitialCondition && mark_[p] != stamp) {
      mark_[p] = stamp;
      todo.push_back(p);
    }
  collect_causes(todo, stamp, configuration);
  // No condition may be consumed twice (a conflict), nor any of them on the way.
  if (consumer_at_.size() < conditions_.size()) consumer_at_.resize(conditions_.size());
  for (std::size_t i = 0; i < configuration.size(); ++i)
    for (ConditionIndex c : events_[configuration[i]].preset) {
      if (consumed_mark_[c] == stamp) return false;
      consumed_mark_[c] = stamp;
      consumer_at_[c] = static_cast<std::uint32_t>(i);
    }
  for (ConditionIndex c : conditions)
    if (consumed_mark_[c] == stamp) return false;
  // And the configuration must be able to fire in some order (no cycle of ↗, Def. 19). Only a
  // read arc to a condition the configuration consumes orders events beyond their causes.
  const bool ordered_by_reads =
      std::any_of(configuration.begin(), configuration.end(), [&](EventIndex e) {
        return std::any_of(events_[e].context.begin(), events_[e].context.end(),
                           [&](ConditionIndex c) { return consumed_mark_[c] == stamp; });
      });
  if (!ordered_by_reads) return true;
  return fires_in_some_order(configuration, stamp);
}

bool Unfolding::fires_in_some_order(const std::vector<EventIndex>& configuration,
                                    std::uint32_t stamp) const {
  // Kahn's algorithm over the configuration's order: each event after the producers of what it
  // takes or observes, and after the events that observe what it takes (schedule_of's order,
  // without the maps: positions and consumers are kept in scratch arrays, by stamp).
  if (position_.size() < events_.size()) position_.resize(events_.size());
  for (std::size_t i = 0; i < configuration.size(); ++i)
    position_[configuration[i]] = static_cast<std::uint32_t>(i);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> arcs;  // (before, after)
  for (std::size_t i = 0; i < configuration.size(); ++i) {
    const UnfoldingEvent& ev = events_[configuration[i]];
    for (const auto* conditions : {&ev.preset, &ev.context})
      for (ConditionIndex c : *conditions)
        if (const EventIndex p = conditions_[c].producer;
            p != kInitialCondition && mark_[p] == stamp)
          arcs.emplace_back(position_[p], static_cast<std::uint32_t>(i));
    for (ConditionIndex c : ev.context)
      if (consumed_mark_[c] == stamp && consumer_at_[c] != i)
        arcs.emplace_back(static_cast<std::uint32_t>(i), consumer_at_[c]);
  }
  std::vector<std::uint32_t> first(configuration.size() + 1, 0), waiting(configuration.size(), 0);
  for (const auto& [from, to] : arcs) {
    ++first[from + 1];
    ++waiting[to];
  }
  for (std::size_t i = 0; i < configuration.size(); ++i) first[i + 1] += first[i];
  std::vector<std::uint32_t> next(arcs.size()), fill(first.begin(), first.end() - 1);
  for (const auto& [from, to] : arcs) next[fill[from]++] = to;
  std::vector<std::uint32_t> ready;
  for (std::uint32_t i = 0; i < configuration.size(); ++i)
    if (waiting[i] == 0) ready.push_back(i);
  std::size_t fired = 0;
  while (!ready.empty()) {
    const std::uint32_t i = ready.back();
    ready.pop_back();
    ++fired;
    for (std::uint32_t k = first[i]; k < first[i + 1]; ++k)
      if (--waiting[next[k]] == 0) ready.push_back(next[k]);
  }
  return fired == configuration.size();  // short only if the order has a cycle
}

Unfolding::NextOperations Unfolding::next_operations_from_events() const {
  NextOperations next;
  for (const UnfoldingEvent& e : events_) next.emplace(e.preset.front(), e.op);
  return next;
}

std::vector<Operation> operation_variants(const Operation& op) {
  // Which of two outcomes, the conditions decide (a trylock: the mutex free or held; a
  // notification or a wait: the condition variable with uncovered waiters or without), or the
  // schedule (a timed wake).
  const auto both = [&] {
    Operation one = op, zero = op;
    one.result = 1;
    zero.result = 0;
    return std::vector<Operation>{one, zero};
  };
  switch (op.kind) {
    case OpKind::kMutexTryLock:
    case OpKind::kCondSignal:
    case OpKind::kCondBroadcast:
    case OpKind::kCondWait:
      return both();
    case OpKind::kCondWake: {
      if (op.timed) return both();
      Operation woken = op;
      woken.result = 1;
      return {woken};
    }
    default:
      return {op};
  }
}

std::vector<Unfolding::Extension> Unfolding::naive_possible_extensions(
    const NextOperations& next) const {
  const auto finished = [&](ConditionIndex c) {
    const auto it = next.find(c);
    return it != next.end() && !it->second;
  };
  std::vector<Extension> out;
  for (const auto& [thread_condition, known] : next) {
    if (!known || touches_everything(*known)) continue;  // not modelled here (see the header)
    const auto thread = static_cast<ThreadId>(conditions_[thread_condition].key);
    for (const Operation& op : operation_variants(*known)) {
      const std::vector<Touch> touches = this->touches(thread, op);
      std::vector<std::vector<ConditionIndex>> options;
      for (const Touch& t : touches) options.push_back(conditions_of(t.kind, t.key));
      // Every choice of one condition per object touched (and, for a touch of every copy, of
      // one copy per holder of the generation chosen).
      for_each_combination(options, [&](const std::vector<ConditionIndex>& choice) {
        std::vector<ConditionIndex> preset{thread_condition}, context;
        std::vector<std::vector<ConditionIndex>> copies;
        bool possible = true;  // a join of a thread that ended, a wake with a signal to take
        for (std::size_t i = 0; i < touches.size(); ++i) {
          (touches[i].read ? context : preset).push_back(choice[i]);
          if (touches[i].kind == ConditionKind::kThread && !finished(choice[i])) possible = false;
          if (touches[i].needs_signal && !holds_signal_for(choice[i], thread_condition))
            possible = false;
          if (touches[i].copies)
            for (auto& [holder, tree] : copies_of_generation(choice[i]))
              copies.push_back(std::move(tree));
        }
        if (!possible) return true;
        for_each_combination(copies, [&](const std::vector<ConditionIndex>& copy_choice) {
          std::vector<ConditionIndex> pre = preset;
          pre.insert(pre.end(), copy_choice.begin(), copy_choice.end());
          std::sort(pre.begin() + 1, pre.end());
          std::sort(context.begin(), context.end());
          std::vector<ConditionIndex> all = pre;
          all.insert(all.end(), context.begin(), context.end());
          if (find_event(pre, context) == kInitialCondition && concurrent(all))
            out.push_back({thread, op, std::move(pre), context});
          return true;
        });
        return true;
      });
    }
  }
  return out;
}

}  // namespace weft::explorer
