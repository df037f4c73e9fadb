// The contextual unfolding of a program, built from its test executions (thesis ch. 5, §5.3; the
// unfoldings of ch. 3). Each condition is a piece of the program's state: a thread at a point of
// its execution, or the value of a shared object as the last operation that changed it left it.
// Each event is an operation with the conditions it consumes (preset), the ones it only observes
// (context: read arcs, so that operations which commute, such as reads, do not order each
// other) and the ones it produces. An execution is modelled by firing its operations one by one
// from the initial marking (Fig. 3.11, lines 7-16): an operation whose event already exists in
// that marking fires it, any other adds its event. So the unfolding holds every event any
// execution modelled so far reached, once, whatever interleaving reached it.
//
// What an operation touches, and whether as a reader (context) or a writer (preset), follows the
// dependence the exploration uses (ClockTracker, reads commute): memory by granule (reads are
// readers; a write, exchange or free is a writer); a mutex is free or held, as the thesis models
// locks (Fig. 3.4): an acquisition (lock, successful trylock, a condition wait's reacquisition)
// consumes the free condition and produces a held one, a release the reverse, and a failed
// trylock observes the held one; every other synchronisation operation writes its object (a
// semaphore's posts too, although the exploration lets them commute: the count a wait needs
// must be a function of the marking, or the unfolding would offer waits it cannot fire); a thread
// creation produces the new thread's first condition (§5.7), a join reads the joined thread's last
// one, and an exit or an atomic section whose footprint is unknown consumes every condition of the
// marking. Memory is modelled by place: a granule's bytes split where the accesses seen so far
// begin and end (one place per variable in the common case), so that accesses to neighbouring
// variables of one granule stay concurrent, as the exploration's byte-exact dependence has them.
// An access that splits a place the unfolding already has conditions for makes the strategy
// start over with the finer places (learn_places).
//
// The place-replication model of ch. 3 (§3.2, Fig. 3.4, Fig. 3.8) has no read arcs: each
// thread has its own copy of each memory place, a read consumes and reproduces the reader's copy
// only (reads by different threads stay concurrent, and a write after a read is a different
// event from the same write before it), and a write consumes every copy. The copies are of a
// fixed set of threads (the thesis fixes them, §3.7), given before the first event: the strategy
// starts over when a test shows a thread it did not know. A place also has a "generation"
// condition, consumed by every write: it names the copies a write takes (those produced with
// it, and by reads from them). A condition variable's waiters, which lost notifications only
// observe, are replicated the same way (POET's Table 3 has lost notifications commute): a copy
// is quiet or waiting as its generation is, and a lost notification takes its thread's quiet one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "weft/trace/operation.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft::explorer {

using EventIndex = std::uint32_t;
using ConditionIndex = std::uint32_t;
/// The producer of a condition of the initial marking.
inline constexpr EventIndex kInitialCondition = ~EventIndex{0};

/// What a condition is a piece of.
enum class ConditionKind : std::uint8_t {
  kThread,       ///< a thread's local state (key: the thread)
  kMemory,       ///< a memory place's contents (key: its first byte's address)
  kMutex,        ///< a free mutex (key: its object)
  kMutexHeld,    ///< a held mutex
  kCond,         ///< a condition variable whose waiters all have a signal to take (or none wait)
  kSemaphore,    ///< a semaphore
  kFutex,        ///< a futex word
  kMemoryCopy,   ///< a thread's copy of a memory granule (place replication; key: copy_key)
  kChannel,      ///< a message channel, or (key kAllChannels) what selective waits watch
  kCondWaiting,  ///< a condition variable with `waiting` waiters no signal covers yet
  kCondSignals,  ///< the signals a condition variable holds for its waiters to take
  /// A thread's copy of a condition variable's waiters where none is uncovered (place
  /// replication; key: copy_key): what a lost notification takes and puts back.
  kCondCopy,
  kCondWaitingCopy,  ///< a thread's copy of a condition variable's waiters where some are
};

/// Whether conditions of this kind are a thread's copy of a replicated object (place
/// replication: memory places, and a condition variable's waiters).
inline bool is_copy(ConditionKind kind) {
  return kind == ConditionKind::kMemoryCopy || kind == ConditionKind::kCondCopy ||
         kind == ConditionKind::kCondWaitingCopy;
}
/// The kind of the copies that come with a generation condition of this kind (a memory place,
/// or a condition variable's waiters in either state), or the generation kind itself for
/// objects that are not replicated.
inline ConditionKind copy_kind(ConditionKind generation) {
  switch (generation) {
    case ConditionKind::kMemory:
      return ConditionKind::kMemoryCopy;
    case ConditionKind::kCond:
      return ConditionKind::kCondCopy;
    case ConditionKind::kCondWaiting:
      return ConditionKind::kCondWaitingCopy;
    default:
      return generation;
  }
}
/// The kind of the generation condition a copy of this kind comes with.
inline ConditionKind generation_kind(ConditionKind copy) {
  switch (copy) {
    case ConditionKind::kMemoryCopy:
      return ConditionKind::kMemory;
    case ConditionKind::kCondCopy:
      return ConditionKind::kCond;
    case ConditionKind::kCondWaitingCopy:
      return ConditionKind::kCondWaiting;
    default:
      return copy;
  }
}
/// The key of the condition every channel operation reads and every selective wait consumes.
inline constexpr ObjectKey kAllChannels = 0;

/// Which unfolding of the program is built (see the file comment).
enum class UnfoldingModel : std::uint8_t {
  kContextual,        ///< reads as read arcs (ch. 5)
  kPlaceReplication,  ///< a copy of each granule per thread (ch. 3)
};

/// The key of thread t's copy of memory place p (an address): the thread above bit 48 (user
/// space addresses have 47 bits; a slot keeps kinds above bit 60, so threads below 4096).
inline ObjectKey copy_key(ObjectKey place, ThreadId t) {
  return place | (ObjectKey{t} << 48);
}
inline ObjectKey place_of_copy(ObjectKey key) {
  return key & ((ObjectKey{1} << 48) - 1);
}
inline ThreadId holder_of_copy(ObjectKey key) {
  return static_cast<ThreadId>(key >> 48);
}

/// Where each memory granule's places begin: bit i of a granule's mask says a place starts at
/// its byte i (byte 0 always does); a granule not listed is one place.
using MemoryPlaces = std::unordered_map<ObjectKey, ByteMask>;

struct Condition {
  ConditionKind kind = ConditionKind::kThread;
  ObjectKey key = 0;
  EventIndex producer = kInitialCondition;
  /// kCondWaiting (and its copies): how many waiters no signal covers (a notification there is
  /// not lost); kCondSignals: how many signals it holds for waiters to take.
  std::uint32_t count = 0;
};

/// What an operation touches besides its thread's condition: the condition of `kind` and `key`,
/// only observed (`read`: a read arc) or consumed and replaced by one of kind `becomes` (a mutex
/// goes from free to held and back). With `copies` (place replication: a write), it is of a
/// replicated object's generation condition (kind kMemory, key the place; or a condition
/// variable's waiters) and of every thread's copy of it (of kind copy_kind(kind)).
struct Touch {
  ConditionKind kind;
  ObjectKey key;
  bool read;
  ConditionKind becomes;
  bool copies = false;
  /// Only a signals condition holding a signal for the thread will do (a woken wake takes one:
  /// Unfolding::holds_signal_for).
  bool needs_signal = false;
};

/// What `op` touches, in the unfolding's model (see above), with memory in `places`. Empty for
/// an operation that touches everything (touches_everything), which consumes the whole marking
/// instead.
std::vector<Touch> touches_of(const Operation& op, const MemoryPlaces& places);
/// The operations a thread whose next operation is `op` may perform, by what the conditions
/// hold: a trylock acquires (result 1) from a free mutex and fails (0) on a held one; a signal
/// or broadcast is lost (1) where no waiter is uncovered and takes effect (0) where one is; a
/// condition wait finds no uncovered waiter (0) or some (1); a timed wake is woken (1) or times
/// out (0), an untimed one is woken.
std::vector<Operation> operation_variants(const Operation& op);

struct UnfoldingEvent {
  ThreadId thread = kNoThread;
  Operation op;
  /// Consumed: the thread's own condition first, then ascending.
  std::vector<ConditionIndex> preset;
  std::vector<ConditionIndex> context;  ///< observed (read arcs), ascending
  /// Produced: postset[i] replaces preset[i] (same kind and key); after them, for a thread
  /// creation, the new thread's first condition.
  std::vector<ConditionIndex> postset;
};

/// Calls f(choice) for each way to pick one element of each list (an odometer), while f
/// returns true; nothing if a list is empty.
template <typename F>
void for_each_combination(const std::vector<std::vector<ConditionIndex>>& lists, F&& f) {
  for (const auto& list : lists)
    if (list.empty()) return;
  std::vector<ConditionIndex> choice(lists.size());
  std::vector<std::size_t> at(lists.size(), 0);
  while (true) {
    for (std::size_t i = 0; i < lists.size(); ++i) choice[i] = lists[i][at[i]];
    if (!f(choice)) return;
    std::size_t i = 0;
    for (; i < lists.size(); ++i) {
      if (++at[i] < lists[i].size()) break;
      at[i] = 0;
    }
    if (i == lists.size()) return;
  }
}

class Unfolding {
 public:
  explicit Unfolding(UnfoldingModel model = UnfoldingModel::kContextual) : model_(model) {}
  UnfoldingModel model() const { return model_; }

  /// Where an execution being modelled is: the condition holding each thread's and each
  /// object's token. The initial marking is a default-constructed one.
  class Marking {
   public:
    Marking() = default;

   private:
    friend class Unfolding;
    std::vector<ConditionIndex> threads_;  // by ThreadId; kInitialCondition: not yet started
    std::unordered_map<std::uint64_t, ConditionIndex> objects_;  // by slot (kind, key)
  };

  /// Models the next operation of an execution (CORRESPONDINGEVENT, thesis §3.6, then
  /// FIREEVENT): the event with `e`'s operation, preset and context in `marking`, added if it is
  /// new, is fired there. `added` says whether it was new.
  struct Fired {
    EventIndex event;
    bool added;
  };
  Fired fire(Marking& marking, const Event& e);
  /// The conditions of `marking` the search for the extensions of thread t's operation `op`
  /// starts from (PossibleExtensions::learn), to be taken before `op` fires there: those of
  /// the fired event (`preset` less its thread's condition, and `context`) and, where a variant
  /// of `op` touches a resource the fired one does not (a lost notification does not touch the
  /// signals one taking effect takes), that resource's condition too.
  std::vector<ConditionIndex> held_before(const Marking& marking, ThreadId t, const Operation& op);
  std::vector<ConditionIndex> held_after(const UnfoldingEvent& fired,
                                         std::vector<ConditionIndex> before) const;

  /// The event with this preset and context, whatever its operation, or kInitialCondition. (A
  /// thread does the same from the same condition, up to results the conditions decide: the
  /// count a semaphore wait found.)
  EventIndex find_event(const std::vector<ConditionIndex>& preset,
                        const std::vector<ConditionIndex>& context) const;
  /// The same for an event doing `op`: a branch on inputs (kSymbolicBranch, its side taken as
  /// the result) must also have taken the same side, as the input values decide it.
  EventIndex find_event(const std::vector<ConditionIndex>& preset,
                        const std::vector<ConditionIndex>& context, const Operation& op) const;
  /// Every condition of this kind and key, in the order they were added.
  const std::vector<ConditionIndex>& conditions_of(ConditionKind kind, ObjectKey key) const;
  /// The events that consume `c`.
  const std::vector<EventIndex>& consumers(ConditionIndex c) const { return consumers_[c]; }

  /// The condition of `kind` and `key` that holds in `marking` (for a mutex, the free or the held
  /// one, whichever holds; for a condition variable's waiters, either state), added as an
  /// initial condition if nothing touched the object yet.
  ConditionIndex marked(const Marking& marking, ConditionKind kind, ObjectKey key);
  /// `op` with the outcome `marking` decides for it where the scheduler leaves it unsaid or may
  /// say it differently (a condition wait: whether it found uncovered waiters; a notification:
  /// whether it was lost), as operation_variants names them.
  Operation settled(const Marking& marking, const Operation& op);
  /// Whether settled() decides anything for an operation of this kind.
  static bool marking_settles(OpKind kind);
  /// What a condition variable's waiters become, from `before`, when `op` consumes them.
  static std::pair<ConditionKind, std::uint32_t> waiters_after(const Operation& op,
                                                               const Condition& before);
  /// Whether signals condition `signals` holds a signal the thread of `thread_condition`, waiting
  /// there, may take: one given after its wait began (runtime/sync_state.hpp's epochs).
  bool holds_signal_for(ConditionIndex signals, ConditionIndex thread_condition) const;
  /// The conditions of `marking` that thread t doing `op` would take or observe, besides its own.
  std::vector<ConditionIndex> marked_for(const Marking& marking, ThreadId t, const Operation& op);

  /// What thread t's `op` touches in this unfolding's model: touches_of(op) for the contextual
  /// one; with place replication, a read touches the thread's copy, and every other memory
  /// access becomes a touch of all copies.
  std::vector<Touch> touches(ThreadId t, const Operation& op) const;
  /// Place replication: the threads that have copies, set while the unfolding has no event
  /// (each at most once; a thread not among them may not access memory).
  void set_copy_holders(std::vector<ThreadId> threads);
  const std::vector<ThreadId>& copy_holders() const { return holders_; }
  /// Splits the memory places where `op`'s accesses begin and end; true if it split a place
  /// that has conditions already (the unfolding no longer models the operations that touched
  /// it as the new places would: the caller starts over, with set_places).
  bool learn_places(const Operation& op);
  const MemoryPlaces& places() const { return places_; }
  /// Sets the places while the unfolding has no condition.
  void set_places(MemoryPlaces places) { places_ = std::move(places); }
  /// The places of granule g, as (first byte's address, bytes).
  std::vector<std::pair<ObjectKey, unsigned>> places_in(ObjectKey granule) const;

  /// Place replication: the generation condition a copy belongs to (the one produced with the
  /// copy's tree root).
  ConditionIndex generation_of(ConditionIndex copy) const { return generation_[copy]; }
  /// Place replication: the copies of each holder in a generation's tree, by holder: those its
  /// producer made and the ones reads by their holders made from them.
  using CopiesByHolder = std::vector<std::pair<ThreadId, std::vector<ConditionIndex>>>;
  const CopiesByHolder& copies_of_generation(ConditionIndex generation) const;

  /// A resource is what one chain of conditions describes: a thread, a memory granule, a mutex
  /// (its free and held conditions together), ... Every event that consumes a condition of a
  /// resource produces one of the same resource, so a resource's conditions form a tree (a
  /// forest for a thread: each creation of it starts one) and a configuration marks one of them.
  static std::uint64_t resource(ConditionKind kind, ObjectKey key);
  std::uint64_t resource_of(ConditionIndex c) const {
    return resource(conditions_[c].kind, conditions_[c].key);
  }
  /// For a thread condition: the event that created this instance of the thread (its tree's
  /// root), or kInitialCondition for a thread that existed from the start.
  EventIndex thread_root(ConditionIndex c) const { return thread_root_[c]; }
  /// Whether thread t has more than one instance: more than one creation event of it (they
  /// are in conflict).
  bool several_instances(ThreadId t) const {
    const auto it = created_.find(t);
    return it != created_.end() && it->second > 1;
  }
  /// Calls f on each condition next to thread condition `x` in its thread's tree that can hold
  /// together with a condition of resource `r` whose way (it and the conditions before it in
  /// r's tree, ascending) is `way`: x's parent, and those of x's children whose producers
  /// touched r at a condition of the way. (A configuration holds no other condition of r, so
  /// no event that touched another. When some child's producer did not touch r at all, every
  /// child is visited.) This spares a search through a thread that read r in many states the
  /// children that read it in the wrong ones.
  template <typename F>
  void for_each_adjacent_on_way(ConditionIndex x, std::uint64_t r,
                                const std::vector<ConditionIndex>& way, F&& f) const {
    if (replaced_[x] != kInitialCondition) f(replaced_[x]);
    const auto every = resources_every_child_touches_.find(x);
    if (every == resources_every_child_touches_.end() ||
        !std::binary_search(every->second.begin(), every->second.end(), r)) {
      for (ConditionIndex y : replacements_[x]) f(y);
      return;
    }
    for (ConditionIndex m : way)
      if (auto it = thread_children_by_touch_.find(std::uint64_t{x} << 32 | m);
          it != thread_children_by_touch_.end())
        for (ConditionIndex y : it->second) f(y);
  }
  /// The condition `c`'s producer consumed in its place (its parent in its resource's tree), or
  /// kInitialCondition for a root.
  ConditionIndex replaced(ConditionIndex c) const { return replaced_[c]; }
  /// Calls f on each condition next to `c` in its resource's tree (thesis Def. 20, "adjacent"):
  /// the one its producer consumed, and the ones the consumers of `c` produce, but for those
  /// events of thread `skip` produce. (A search for the conditions concurrent with a condition
  /// of thread T needs none of those: T's events that produce one lie in its past, so such a
  /// condition is above the one the search starts from, in its resource's tree. Skipping them
  /// saves checking every alternative T took from `c`, thousands where T's events differ only
  /// by the context they were reached in.)
  template <typename F>
  void for_each_adjacent(ConditionIndex c, F&& f, ThreadId skip = kNoThread) const {
    if (replaced_[c] != kInitialCondition) f(replaced_[c]);
    const std::vector<ConditionIndex>& next = replacements_[c];
    const auto thread_of = [&](ConditionIndex x) {
      return events_[conditions_[x].producer].thread;
    };
    if (skip == kNoThread) {
      for (ConditionIndex x : next) f(x);
      return;
    }
    const auto first =
        std::lower_bound(next.begin(), next.end(), skip,
                         [&](ConditionIndex x, ThreadId t) { return thread_of(x) < t; });
    const auto last = std::upper_bound(
        first, next.end(), skip, [&](ThreadId t, ConditionIndex x) { return t < thread_of(x); });
    for (auto it = next.begin(); it != first; ++it) f(*it);
    for (auto it = last; it != next.end(); ++it) f(*it);
  }

  std::size_t events() const { return events_.size(); }
  std::size_t conditions() const { return conditions_.size(); }
  /// The memory it holds, estimated from its containers' sizes.
  std::size_t memory_bytes() const;
  const UnfoldingEvent& event(EventIndex e) const { return events_[e]; }
  const Condition& condition(ConditionIndex c) const { return conditions_[c]; }

  /// The local configuration [e]: `e` and every event that causes it (Def. 16), ascending (an
  /// event's causes were added before it, so this is also an order they can be fired in).
  std::vector<EventIndex> local_configuration(EventIndex e) const;
  /// The events that must fire before `conditions` hold: their producers' local
  /// configurations, united, ascending.
  std::vector<EventIndex> configuration_of(const std::vector<ConditionIndex>& conditions) const;
  /// a < b (Def. 16): a path of arcs leads from a to b (b consumes or observes what a, or an
  /// event a causes, produced).
  bool causes(EventIndex a, EventIndex b) const;
  /// a ↗ b (Def. 17): wherever both occur, a occurs first (a causes b, a observes a condition b
  /// consumes, or they consume a common condition and so never both occur).
  bool asymmetric_conflict(EventIndex a, EventIndex b) const;

  /// An order in which the events of `configuration` (a set closed under causes, without
  /// conflicts) can fire, as the schedule of a test that reaches them (thesis §3.5, §5.5): each
  /// after its causes and after every event that observes a condition it consumes; among the
  /// events free to go, the earliest added first.
  std::vector<EventIndex> schedule_of(const std::vector<EventIndex>& configuration) const;

  /// Whether the conditions can hold at once (a co-set, Def. 19): the configuration that
  /// produces them is conflict-free, can fire in some order, and uses none of them up.
  bool concurrent(const std::vector<ConditionIndex>& conditions) const;
  /// A necessary condition for concurrent({a, b}), in time logarithmic in the events per thread:
  /// the causes of their producers take compatible paths through every thread (a thread's events
  /// form a tree; a configuration holds one path of it), and neither uses up a thread condition
  /// the other is. Most pairs that are not concurrent fail it, so concurrent() asks it first.
  bool may_be_concurrent(ConditionIndex a, ConditionIndex b) const;
  /// Whether a is in [b] (a is b or causes it), from b's clock: time logarithmic in the events
  /// per thread.
  bool in_local_configuration(EventIndex a, EventIndex b) const;

  /// An event the unfolding does not have but some reachable marking enables (a possible
  /// extension, thesis §3.4, §5.6): a thread's next operation, as an event that took the thread
  /// on from that condition did it, with other conditions of the objects it touches that can
  /// hold together with the thread's.
  struct Extension {
    ThreadId thread;
    Operation op;
    std::vector<ConditionIndex> preset, context;  ///< as UnfoldingEvent's
  };
  /// What each thread condition's thread does next, as executions showed it: an operation, or
  /// nullopt where the thread finished. Without inputs a thread does the same from the same
  /// condition (the thesis' assumption, §3.3).
  using NextOperations = std::unordered_map<ConditionIndex, std::optional<Operation>>;
  /// The next operations the events show (an event's operation is its thread's next one from
  /// its preset's thread condition).
  NextOperations next_operations_from_events() const;
  /// Every possible extension, computed from the definition: every choice of conditions for
  /// the objects each next operation touches, checked for concurrency. Exponential; the oracle
  /// for the incremental computation (possible_extensions.hpp), and enough for small unfoldings.
  /// Operations that touch everything (an exit, an atomic section without a footprint) are left
  /// out, and so is an operation not known. A join's joined thread must have finished.
  std::vector<Extension> naive_possible_extensions(const NextOperations& next) const;
  std::vector<Extension> naive_possible_extensions() const {
    return naive_possible_extensions(next_operations_from_events());
  }

  /// A piece of state, as one number: the kind in the top 4 bits, the key (an address, a
  /// granule, a thread, an object of the in-process API) below; keys stay below 2^60 on every
  /// platform weft runs on (x86-64 user space; thread numbers below 2^12 in copy keys).
  static std::uint64_t slot(ConditionKind kind, ObjectKey key);

 private:
  // The thread's event that produced its condition `c` (through events of other threads that
  // took and put back every condition), or kInitialCondition.
  EventIndex own_event_before(ConditionIndex c) const;
  ConditionIndex initial(ConditionKind kind, ObjectKey key);
  ConditionIndex current(const Marking& marking, ConditionKind kind, ObjectKey key);
  void set_current(Marking& marking, ConditionIndex c) const;
  ConditionIndex add_condition(ConditionKind kind, ObjectKey key, EventIndex producer);
  static std::uint64_t event_hash(const std::vector<ConditionIndex>& preset,
                                  const std::vector<ConditionIndex>& context);
  // The event with these, or kInitialCondition.
  EventIndex find(std::uint64_t hash, const Operation& op,
                  const std::vector<ConditionIndex>& preset,
                  const std::vector<ConditionIndex>& context) const;

  UnfoldingModel model_;
  MemoryPlaces places_;
  std::vector<ThreadId> holders_;           // place replication: whose copies
  std::vector<ConditionIndex> generation_;  // by condition: a copy's generation
  std::unordered_map<ConditionIndex, CopiesByHolder> copies_by_generation_;
  void add_copy(ConditionIndex copy, ConditionIndex generation);
  std::vector<Condition> conditions_;
  std::vector<UnfoldingEvent> events_;
  // By kCondSignals condition, the signals it holds (ascending), each named by the waiters
  // condition the notification that gave it took: the waiters' conditions in a configuration lie
  // on one path, added in its order, so a signal was given after a wait iff its name is larger
  // than the waiters condition the wait took (wait_stamp).
  std::unordered_map<ConditionIndex, std::vector<ConditionIndex>> signals_;
  // The waiters condition of `cv` the thread of `thread_condition` took when it began waiting,
  // or kInitialCondition if its previous event was no wait there.
  ConditionIndex wait_stamp(ConditionIndex thread_condition, ObjectKey cv) const;
  // The waiters condition (not a copy) of `cv` in `conditions`, or kInitialCondition.
  ConditionIndex waiters_in(const std::vector<ConditionIndex>& conditions, ObjectKey cv) const;
  // The signals the kCondSignals condition `before` leaves when the event with `preset` does
  // `op` there (the runtime's token rules).
  std::vector<ConditionIndex> signals_after(const Operation& op, ConditionIndex before,
                                            const std::vector<ConditionIndex>& preset) const;
  std::unordered_map<std::uint64_t, ConditionIndex> initial_;  // by slot
  std::unordered_map<std::uint64_t, std::vector<ConditionIndex>> by_slot_;
  std::vector<std::vector<EventIndex>> consumers_;  // by condition
  // By condition, its resource's tree (for_each_adjacent, kept apart from the events for the
  // searches' sake): the condition its producer consumed in its place (kInitialCondition: a
  // root), and those its consumers produce in its place. An event's postset[i] replaces its
  // preset[i]; what it produces past its preset's size starts a tree (a created thread).
  std::vector<ConditionIndex> replaced_;
  std::vector<std::vector<ConditionIndex>> replacements_;
  std::vector<EventIndex> thread_root_;                  // by condition (thread conditions)
  std::unordered_map<ThreadId, std::uint32_t> created_;  // creation events, by thread
  // For for_each_adjacent_on_way: by thread condition x and condition m, the thread conditions
  // the events of x's thread that took x and touched m produced; by thread condition, the
  // resources every event that took it touched, ascending (none: another thread's event took
  // it, one that took every condition).
  std::unordered_map<std::uint64_t, std::vector<ConditionIndex>> thread_children_by_touch_;
  std::unordered_map<ConditionIndex, std::vector<std::uint64_t>> resources_every_child_touches_;
  void index_thread_child(EventIndex e);
  // Each thread's events form a tree (an event's parent: the one that produced the thread
  // condition it consumed). By event: its depth there, its parent, a jump pointer (Myers' skew
  // binary jumps, for ancestor queries in O(log depth)), and its causal clock: for each thread,
  // its deepest event among the event's causes (kInitialCondition: none).
  struct TreeLink {
    std::uint32_t depth;
    EventIndex parent, jump;
  };
  std::vector<TreeLink> tree_;  // by event
  struct ClockEntry {
    EventIndex event = kInitialCondition;
    std::uint32_t depth = 0;  // the event's, kept here to spare a lookup
  };
  // The clocks one after the other: event e's is clocks_[clock_at_[e], clock_at_[e + 1]).
  std::vector<ClockEntry> clocks_;
  std::vector<std::uint32_t> clock_at_{0};
  void index_event(EventIndex e);
  void index_copies(EventIndex e);  // place replication: generation_, copies_by_generation_
  // Whether `a` is `b` or an ancestor of it (events of one thread).
  bool ancestor_or_self(EventIndex a, EventIndex b) const;
  // Event e's clock: for each thread below the size, its deepest event among e's causes (e
  // included), or none.
  std::pair<const ClockEntry*, std::size_t> clock_of(EventIndex e) const {
    return {clocks_.data() + clock_at_[e], clock_at_[e + 1] - clock_at_[e]};
  }
  // Scratch for local_configuration and concurrent: a mark per event, valid when equal to stamp_.
  mutable std::vector<std::uint32_t> mark_;           // by event
  mutable std::vector<std::uint32_t> consumed_mark_;  // by condition
  mutable std::uint32_t stamp_ = 0;
  // More scratch for concurrent(): by condition, the position of its consumer in the
  // configuration; by event, its position there.
  mutable std::vector<std::uint32_t> consumer_at_, position_;
  // Whether the configuration (its events marked with stamp, and what they consume in
  // consumed_mark_ and consumer_at_) can fire in some order (Def. 19: no cycle of ↗).
  bool fires_in_some_order(const std::vector<EventIndex>& configuration, std::uint32_t stamp) const;
  std::uint32_t next_stamp() const;
  // Adds `todo` (marked already) and their causes, marking each, to `out`.
  void collect_causes(std::vector<EventIndex>& todo, std::uint32_t stamp,
                      std::vector<EventIndex>& out) const;
  std::unordered_multimap<std::uint64_t, EventIndex> by_hash_;
};

}  // namespace weft::explorer
