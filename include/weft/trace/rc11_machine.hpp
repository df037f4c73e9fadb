// The C/C++ memory model (RC11: Lahav, Vafeiadis, Kang, Hur and Dreyer, "Repairing sequential
// consistency in C/C++11", PLDI 2017) as a machine that grows an execution graph one event at a
// time, in an order the threads could run them (po ∪ rf acyclic: no value out of thin air).
//
// Each location keeps its history: its stores in coherence order (mo), the first one the value it
// held when first touched. A new access's options are what keeps the graph consistent: a load may
// read any store of the history that no event happening before it has seen overwritten
// (coherence: hb; eco? irreflexive); a store may be placed after any such store; an update
// (read-modify-write) reads one of them that no other update has read and comes right after it
// (atomicity). Happens-before is kept in vector clocks: a store carries the clock an acquire
// that reads it synchronises with (its release sequence's heads, RC11's sw: release stores,
// release fences before it, the same thread's earlier release stores to the location, and
// through updates the store they read). With seq_cst events present, an option is kept only if
// the partial SC order psc stays acyclic (RC11 §3, psc_base ∪ psc_F).
//
// The caller (the runtime's scheduler) picks among the options; the strategies decide which
// (docs/memory-models.md). Threads are dense indices the caller chooses.
#pragma once

#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "weft/trace/thread_id.hpp"
#include "weft/trace/vector_clock.hpp"

namespace weft::rc11 {

/// The modes of C/C++ atomic accesses and fences.
enum class Mode : std::uint8_t { kRelaxed, kAcquire, kRelease, kAcqRel, kSeqCst };

/// std::memory_order as a Mode (consume is taken as acquire, as compilers do).
Mode mode_of(std::memory_order order);
inline bool acquires(Mode m) {
  return m == Mode::kAcquire || m == Mode::kAcqRel || m == Mode::kSeqCst;
}
inline bool releases(Mode m) {
  return m == Mode::kRelease || m == Mode::kAcqRel || m == Mode::kSeqCst;
}

using Location = std::uint64_t;
using Value = std::uint64_t;
/// An event of the graph; stores are named by theirs.
using EventId = std::uint32_t;

class Machine {
 public:
  /// A thread: the first (parent kNoThread), or one `parent` creates now (everything that
  /// happened before this point of the parent happens before the new thread's events).
  void add_thread(ThreadId thread, ThreadId parent);
  /// `joiner` waited for `joined` to end: `joined`'s events happen before what `joiner` does next.
  void join(ThreadId joiner, ThreadId joined);
  /// Synchronisation outside the atomics (a mutex, a semaphore): what happened before `from`'s
  /// last event happens before `to`'s next.
  void synchronise(ThreadId from, ThreadId to);
  /// An event of `t` outside the graph (a synchronisation operation, or its end): counted in
  /// its clock, so that whatever `t` did since its last event (plain accesses, which data-race
  /// detection orders by these clocks) happens before what this one releases.
  void tick(ThreadId t);
  /// What happens before `t`'s next event, and taking `clock` into it (synchronisation whose
  /// releasing side is a point of the past, as a mutex's last unlock).
  const VectorClock& clock(ThreadId t) { return thread(t).clock; }
  void acquire(ThreadId t, const VectorClock& clock) { thread(t).clock.join(clock); }

  /// The location's history begins with `initial`, if it has none yet.
  void touch(Location x, Value initial);
  bool touched(Location x) const { return histories_.count(x) != 0; }
  /// `x` is a new location from now on (what it held is another object's): its history so far
  /// stays in the graph under a name no access uses.
  void forget(Location x);

  /// The stores a load by `t` of `x` may read, in coherence order (never empty).
  std::vector<EventId> load_options(ThreadId t, Location x, Mode m);
  /// The stores after which a new store by `t` to `x` may be placed, in coherence order.
  std::vector<EventId> store_options(ThreadId t, Location x, Mode m);
  /// The stores an update (read-modify-write) by `t` of `x` may read and follow.
  std::vector<EventId> update_options(ThreadId t, Location x, Mode m);
  /// The stores another update read already (so that atomicity keeps an update by `t` of `x`
  /// from reading them) which a load of the same mode could read. An exploration of graphs takes
  /// them to find the revisits the update's store makes, and drops the graph (TruSt, as GenMC
  /// does).
  std::vector<EventId> taken_update_options(ThreadId t, Location x, Mode m);

  /// Performs the access with the option taken (one of the options above). A load and an update
  /// return the value read; an update writes `written`.
  Value load(ThreadId t, Location x, Mode m, EventId from);
  void store(ThreadId t, Location x, Mode m, EventId after, Value written);
  Value update(ThreadId t, Location x, Mode m, EventId from, Value written);
  /// A fence; always consistent (a fence has no option, and RC11 can always add one).
  void fence(ThreadId t, Mode m);

  Value value_of(EventId store) const { return events_[store].value; }
  /// The last store of `x` in coherence order.
  EventId latest(Location x) const { return histories_.at(x).back(); }
  /// The thread that made a store (kNoThread for a location's initial value) and how many
  /// events that thread had made up to it.
  ThreadId thread_of(EventId e) const { return events_[e].thread; }
  std::uint32_t index_of(EventId e) const { return events_[e].index; }
  std::size_t size() const { return events_.size(); }
  /// Checks every incremental psc answer against psc computed over the whole graph (aborting on
  /// a difference): for tests.
  void check_psc_against_whole_graph(bool on) { check_psc_ = on; }
  /// Offers a seq_cst access every consistent store also while every event is seq_cst (by
  /// default it then offers the newest only, since the graphs it leaves out are those of other
  /// interleavings, which the interleaving strategies run anyway; an exploration of graphs,
  /// which adds events in one fixed order, needs them all).
  void offer_every_option(bool on) { every_option_ = on; }

 private:
  enum class Kind : std::uint8_t { kInitial, kLoad, kStore, kUpdate, kFence };
  struct Event {
    Kind kind;
    Mode mode;
    ThreadId thread;
    std::uint32_t index;          // 1-based among its thread's events; 0 for an initial value
    Location location;            // 0 for a fence
    EventId reads_from;           // loads and updates
    std::uint32_t position;       // stores: in the location's coherence order
    bool read_by_update;          // stores: an update reads it, so nothing may come between
    Value value;                  // stores: what they wrote
    VectorClock clock;            // what happens before it (and it)
    VectorClock released;         // stores: what an acquire that reads it synchronises with
    std::uint32_t in_thread = 0;  // its place among its thread's events in the graph
  };
  struct ThreadState {
    VectorClock clock;
    std::uint32_t events = 0;
    VectorClock fence_released;  // the clock of its last release fence
    VectorClock acquirable;      // what its relaxed reads read: an acquire fence takes it
    std::unordered_map<Location, VectorClock>
        released_to;  // its last release store's, per location
  };

  ThreadState& thread(ThreadId t);
  // The coherence position below which a new access by `t` to `x` may not read or write.
  std::uint32_t visible_from(ThreadId t, Location x) const;
  // The event an access would be, before it is added.
  Event next_event(ThreadId t, Kind kind, Location x, Mode m, EventId from, Value written);
  void insert(Event e, EventId after);  // after: for stores, the store it follows
  void remove_last();
  // With `e` added after `after`, is psc acyclic? (true when no event is seq_cst)
  bool sc_consistent_with(const Event& e, EventId after);
  // psc over the whole graph (any fences).
  bool psc_acyclic() const;
  // Without seq_cst fences psc relates seq_cst accesses by scb only, and a new event adds edges
  // only to and from itself: psc is kept as a graph over them (psc_nodes_, psc_next_), and the
  // last event, a seq_cst access, closes a cycle iff what it reaches reaches it.
  bool scb(EventId a, EventId b) const;
  bool psc_cycle_through_last() const;
  void add_psc_node();  // the last event, a committed seq_cst access
  bool same_location(const Event& a, const Event& b) const {
    return a.kind != Kind::kFence && b.kind != Kind::kFence && a.location == b.location;
  }
  std::vector<EventId> options(ThreadId t, Kind kind, Location x, Mode m);

  std::vector<Event> events_;
  std::unordered_map<Location, std::vector<EventId>> histories_;  // stores in coherence order
  std::unordered_map<Location, std::vector<EventId>> accesses_;   // every access, in order
  std::vector<ThreadState> threads_;
  std::size_t seq_cst_events_ = 0;
  std::size_t seq_cst_fences_ = 0;
  std::size_t weak_events_ = 0;                       // accesses and fences not seq_cst
  std::vector<std::vector<EventId>> by_thread_;       // each thread's events, in order
  std::vector<EventId> psc_nodes_;                    // committed seq_cst accesses
  std::vector<std::vector<std::uint32_t>> psc_next_;  // psc edges, by node
  bool check_psc_ = false;
  bool every_option_ = false;
  Location forgotten_ = 0;  // locations forget() renamed
};

}  // namespace weft::rc11
