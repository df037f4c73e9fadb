// Naive stateful testing with sleep sets (thesis §7.3, Fig. 7.5; §8.3.3 adds the sleep sets),
// with DPOR's persistent sets: depth-first search over the interleavings, which stops below a
// state it has explored before. A state is the abstract one of §7.2 (state_fingerprints.hpp:
// each thread's local state, or its history, the shared memory's bytes, the mutexes' owners).
// The executions whose steps the thread model knows are computed instead of run (thread_model.hpp,
// as the thesis explores its Petri net model instead of running tests, §7.3): the runner does
// that for every strategy, this one included.
//
// The thesis' naive search takes every enabled thread at every state, and so runs through
// every reachable state: with many independent threads (the thesis' Filesystem) it cannot
// finish. Here a state's choices are DPOR's (Flanagan–Godefroid, dpor_races.hpp): its first
// choice and the threads whose later operations race with it; below a cut-off, the events of the
// state graph explored from that state race with the path as if run (stateful DPOR, see
// races_with_explored_future), and a cycle through the path is expanded fully.
//
// Sleep sets and state matching together (Godefroid's state caching with sleep sets): a state is
// stored with the sleep set it was first explored with; reached again with sleep set Z, only
// the threads that slept then but are awake now still need to go (none: the node is a cut-off),
// and the stored set shrinks to the intersection. Persistent sets keep every deadlock and every
// Mazurkiewicz trace's end state, and each pair of accesses that race is run in both orders, so
// the bugs DFS finds are found (stateful_differential_test.cpp checks this against DFS).
//
// Inputs are explored as DFS explores them (execution_tree_search.hpp): each branch on them is a
// step of its thread, in the state with the side taken, and values computed from inputs are
// held by their expressions, so states that match have one path constraint; a cut-off covers
// the branches below it, whose other sides the first visit explored.
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "../dpor_races.hpp"
#include "../state_fingerprints.hpp"
#include "strategies.hpp"
#include "weft/trace/clock_tracker.hpp"
#include "weft/trace/dependence.hpp"
#include "weft/trace/hash_mix.hpp"

namespace weft::explorer {
namespace {

class StatefulSearch final : public ExecutionTreeSearch, private StateMatching {
 public:
  StatefulSearch(const StrategyConfig& config, bool persistent_sets)
      : ExecutionTreeSearch(config, ReadPolicy::kReadsCommute), persistent_sets_(persistent_sets) {}

  std::optional<TestDirective> next() override {
    if (!why_.empty()) return std::nullopt;
    return ExecutionTreeSearch::next();
  }
  std::string gaps() const override { return why_.empty() ? "" : "it stopped: " + why_; }
  const StateMatching* state_matching() const override { return this; }

 private:
  void analyse(const Trace& trace, std::size_t first_new) override {
    const std::vector<std::uint64_t> state = fingerprints_.of(trace);
    if (state.empty()) {
      why_ = fingerprints_.why();
      return;
    }
    if (persistent_sets_) note_transitions(trace, state, first_new);
    std::optional<std::size_t> cut;
    for (std::size_t k = first_new; k < nodes_.size(); ++k) {
      Node& n = nodes_[k];
      ThreadSet asleep_here;
      for (const SleepEntry& s : n.sleep) asleep_here.insert(s.thread);
      const auto [it, added] = visited_.emplace(state[k], asleep_here);
      if (added) {
        ++states;
        // With persistent sets, its choice and what races add (DPOR); else every thread.
        if (!persistent_sets_) n.backtrack = n.enabled;
        continue;
      }
      // Explored before with the threads of it->second asleep: only those awake now are new.
      ThreadSet still = n.enabled;
      for (ThreadId t : n.enabled.members())
        if (!it->second.contains(t) || asleep_here.contains(t)) still.erase(t);
      ThreadSet both;
      for (ThreadId t : it->second.members())
        if (asleep_here.contains(t)) both.insert(t);
      it->second = both;
      n.backtrack = still;
      if (still.contains(n.chosen.thread)) continue;  // the run went on into a new subtree
      ++cut_offs;
      nodes_.resize(k + 1);  // what the run did below is explored already, inputs included
      covered_below(k);
      if (trace.outcome == Outcome::kBoundReached || trace.outcome == Outcome::kTimeout)
        ++bounds_covered;
      cut = k;
      break;
    }
    if (persistent_sets_) {
      // The races of what ran, past a cut-off too (the run is a run of the program), where
      // their earlier event has a node above the cut-off: the cut-off node's own choices were
      // explored where its state was first reached.
      const std::size_t open = cut ? *cut : nodes_.size();
      for_each_race(trace, first_new, policy_, [&](std::size_t j, ThreadId t) {
        if (j < open) add_backtrack(j, t);
      });
      if (cut) races_with_explored_future(trace, *cut, state);
    }
    if (!cut && !nodes_.empty()) note_last_state(state.back());
  }

  // Every step of a run is a transition of the program's state graph: from the state before
  // it, by its event, to the state after it. The steps before the one the run branched at are
  // those of the run that made their nodes, noted then.
  void note_transitions(const Trace& trace, const std::vector<std::uint64_t>& state,
                        std::size_t first_new) {
    for (std::size_t k = first_new ? first_new - 1 : 0; k < trace.events.size(); ++k) {
      const auto [id, added] = event_ids_.try_emplace(trace.events[k], event_ids_.size());
      if (added) events_.push_back(trace.events[k]);
      auto& out = transitions_[state[k]].out;
      const Transition t{static_cast<std::uint32_t>(id->second), &transitions_[state[k + 1]]};
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
  }

  // Stateful DPOR (Yang, Chen, Gopalakrishnan and Kirby, "Efficient stateful dynamic partial
  // order reduction", SPIN 2008): below the cut-off at node k the run is not analysed, since
  // the subtree of its state was explored before, but the events of that subtree race with the
  // events of this path as DPOR would have found had it run them here. Each event reachable from
  // the state in the transitions seen is taken as one that could come next: it backtracks at every
  // earlier dependent, co-enabled event its thread's clock does not cover (every one, not only
  // the last, because the events between would add to its clock). And where those transitions
  // lead back into this path, the nodes from there on form a cycle, along which DPOR's choices
  // could leave a thread out forever (the ignoring problem): they are expanded fully (the stack
  // proviso).
  void races_with_explored_future(const Trace& trace, std::size_t k,
                                  const std::vector<std::uint64_t>& state) {
    // Each walk marks the states of the path, and those it reaches, with its number.
    ++walk_;
    for (std::size_t i = 0; i <= k; ++i) {
      StateNode& on_path = transitions_[state[i]];
      if (on_path.path_walk == walk_) continue;
      on_path.path_walk = walk_;
      on_path.path_index = i;
    }
    std::size_t cycle_from = k;
    std::vector<bool> reached(events_.size(), false);
    StateNode* const from = &transitions_[state[k]];
    from->walk = walk_;
    std::vector<StateNode*> queue{from};
    while (!queue.empty()) {
      const StateNode* s = queue.back();
      queue.pop_back();
      if (s->path_walk == walk_) cycle_from = std::min(cycle_from, s->path_index);
      for (const Transition& t : s->out) {
        reached[t.event] = true;
        if (t.to->walk != walk_) {
          t.to->walk = walk_;
          queue.push_back(t.to);
        }
      }
    }
    for (std::size_t j = cycle_from; j < k; ++j)
      for (ThreadId t : nodes_[j].enabled.members())
        if (!asleep(nodes_[j], t)) nodes_[j].backtrack.insert(t);

    const auto& ev = trace.events;
    ClockTracker clocks(policy_);
    std::vector<std::uint32_t> local(k);
    for (std::size_t i = 0; i < k; ++i) {
      clocks.add(ev[i]);
      local[i] = clocks.thread_count(ev[i].thread);
    }
    for (std::size_t id = 0; id < events_.size(); ++id) {
      if (!reached[id]) continue;
      const Event& next = events_[id];
      const VectorClock clock = clocks.thread_clock(next.thread);
      for (std::size_t j = k; j-- > 0;) {
        const Event& e = ev[j];
        // Where it would add nothing, the dependence is not worth computing.
        if (e.thread == next.thread || backtracks_already(j, next.thread)) continue;
        if (!dependent(e, next, policy_) || !may_be_coenabled(e, next)) continue;
        if (!clock.covers(e.thread, local[j])) add_backtrack(j, next.thread);
      }
    }
  }

  // Whether add_backtrack(j, t) would add nothing: t is already in node j's backtrack set, or
  // (asleep or not enabled there, when it would add every thread awake) they all are.
  bool backtracks_already(std::size_t j, ThreadId t) const {
    const Node& n = nodes_[j];
    if (n.enabled.contains(t) && !asleep(n, t)) return n.backtrack.contains(t);
    for (ThreadId u : n.enabled.members())
      if (!n.backtrack.contains(u) && !asleep(n, u)) return false;
    return true;
  }

  // The state the execution ended in has no node: every thread ended, or it is a deadlock, or
  // every thread that could go was asleep (its steps are explored elsewhere). It counts among the
  // states reached, with the threads asleep there.
  void note_last_state(std::uint64_t state) {
    const Node& last = nodes_.back();
    ThreadSet asleep;
    for (const SleepEntry& s : last.sleep)
      if (!dependent(last.chosen, Event{s.thread, s.op}, policy_)) asleep.insert(s.thread);
    if (visited_.emplace(state, asleep).second) ++states;
  }

  struct StateNode;
  struct Transition {
    std::uint32_t event;  // in events_
    StateNode* to;        // the state after it (in transitions_, whose nodes stay put)
    friend bool operator==(const Transition&, const Transition&) = default;
  };
  struct EventHash {
    std::size_t operator()(const Event& e) const {
      const Operation& op = e.op;
      std::uint64_t h = hash_mix(e.thread, static_cast<std::uint64_t>(op.kind) << 8 | op.result);
      h = hash_mix(hash_mix(h, op.object), op.partner);
      return hash_mix(h, std::uint64_t{op.size} << 1 | (op.timed ? 1 : 0));
    }
  };

  bool persistent_sets_;
  StateFingerprints fingerprints_;
  std::unordered_map<std::uint64_t, ThreadSet> visited_;  // state: the threads asleep there
  // A state of the explored graph, with the transitions seen from it; the marks of the last
  // walks (races_with_explored_future) that reached it and that found it on the path.
  struct StateNode {
    std::vector<Transition> out;
    std::uint32_t walk = 0;
    std::uint32_t path_walk = 0;
    std::size_t path_index = 0;
  };
  // The explored state graph, by state.
  std::unordered_map<std::uint64_t, StateNode> transitions_;
  std::uint32_t walk_ = 0;
  std::vector<Event> events_;  // the distinct events of the transitions
  std::unordered_map<Event, std::size_t, EventHash> event_ids_;
  std::string why_;
};

template <bool kPersistentSets>
std::unique_ptr<Strategy> made_stateful(const StrategyConfig& config) {
  return std::make_unique<StatefulSearch>(config, kPersistentSets);
}

}  // namespace

WEFT_STRATEGY_ROWS(
    stateful,
    {"stateful",
     "stateful testing with sleep sets and DPOR (thesis §7.3 with persistent sets): the "
     "interleavings DPOR runs, but none below a state explored before (needs --points=all)",
     57, ReadPolicy::kReadsCommute, kTakesSleepSets | kMatchesStates, made_stateful<true>},
    {"stateful-naive",
     "the thesis' naive stateful testing with sleep sets (§7.3): every interleaving, but none "
     "below a state explored before (needs --points=all)",
     59, ReadPolicy::kReadsCommute, kTakesSleepSets | kMatchesStates, made_stateful<false>})

}  // namespace weft::explorer
