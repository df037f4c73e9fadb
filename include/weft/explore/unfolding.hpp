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
// trylock observes the held one; semaphore posts read their semaphore, every other
// synchronisation operation writes its object; a thread creation produces the new thread's first
// condition (§5.7), a join reads the joined thread's last one, and an exit or an atomic section
// whose footprint is unknown consumes every condition of the marking. Memory is modelled per
// 8-byte granule, not per byte: two threads writing neighbouring bytes of one granule are
// ordered here although the exploration treats them as independent, which adds events but never
// loses one.
#pragma once

#include <cstdint>
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
  kThread,     ///< a thread's local state (key: the thread)
  kMemory,     ///< a memory granule's contents (key: the granule)
  kMutex,      ///< a free mutex (key: its object)
  kMutexHeld,  ///< a held mutex
  kCond,       ///< a condition variable
  kSemaphore,  ///< a semaphore
  kFutex,      ///< a futex word
};

struct Condition {
  ConditionKind kind = ConditionKind::kThread;
  ObjectKey key = 0;
  EventIndex producer = kInitialCondition;
};

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

class Unfolding {
 public:
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

  std::size_t events() const { return events_.size(); }
  std::size_t conditions() const { return conditions_.size(); }
  const UnfoldingEvent& event(EventIndex e) const { return events_[e]; }
  const Condition& condition(ConditionIndex c) const { return conditions_[c]; }

  /// The local configuration [e]: `e` and every event that causes it (Def. 16), ascending (an
  /// event's causes were added before it, so this is also an order they can be fired in).
  std::vector<EventIndex> local_configuration(EventIndex e) const;
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

  /// An event the unfolding does not have but some reachable marking enables (a possible
  /// extension, thesis §3.4, §5.6): a thread's next operation, as an event that took the thread
  /// on from that condition did it, with other conditions of the objects it touches that can
  /// hold together with the thread's.
  struct Extension {
    ThreadId thread;
    Operation op;
    std::vector<ConditionIndex> preset, context;  ///< as UnfoldingEvent's
  };
  /// Every possible extension, computed from the definition: every choice of conditions for
  /// the objects each next operation touches, checked for concurrency. Exponential; the oracle
  /// for the structural computation of ch. 4, and enough for small unfoldings. Operations that
  /// touch everything (an exit, an atomic section without a footprint) are left out, and so is
  /// an operation no event has taken from its thread's condition yet (it is not known).
  std::vector<Extension> naive_possible_extensions() const;

 private:
  // A piece of state, as one number: the kind in the top 3 bits, the key (an address, a granule,
  // a thread) below; keys stay below 2^61 on every platform weft runs on (x86-64 user space).
  static std::uint64_t slot(ConditionKind kind, ObjectKey key);
  ConditionIndex initial(ConditionKind kind, ObjectKey key);
  ConditionIndex current(const Marking& marking, ConditionKind kind, ObjectKey key);
  void set_current(Marking& marking, ConditionIndex c) const;
  std::uint64_t event_hash(const Operation& op, const std::vector<ConditionIndex>& preset,
                           const std::vector<ConditionIndex>& context) const;
  // The event with these, or kInitialCondition.
  EventIndex find(std::uint64_t hash, const Operation& op,
                  const std::vector<ConditionIndex>& preset,
                  const std::vector<ConditionIndex>& context) const;

  std::vector<Condition> conditions_;
  std::vector<UnfoldingEvent> events_;
  std::unordered_map<std::uint64_t, ConditionIndex> initial_;  // by slot
  std::unordered_multimap<std::uint64_t, EventIndex> by_hash_;
};

}  // namespace weft::explorer
