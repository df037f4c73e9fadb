// Naive stateful testing with sleep sets (thesis §7.3, Fig. 7.5; §8.3.3 adds the sleep sets):
// depth-first search over the interleavings, which stops below a state it has explored before.
// A state is the abstract one of §7.2 (state_fingerprints.hpp: each thread's local state, or
// its history, the shared memory's bytes, the mutexes' owners). The executions whose steps the
// thread model knows are computed instead of run (thread_model.hpp, as the thesis explores its
// Petri net model instead of running tests, §7.3): the runner does that for every strategy, this
// one included.
//
// Sleep sets and state matching together (Godefroid's state caching with sleep sets): a state is
// stored with the sleep set it was first explored with; reached again with sleep set Z, only
// the threads that slept then but are awake now still need to go (none: the node is a cut-off),
// and the stored set shrinks to the intersection. Sleep sets alone visit every reachable state,
// and so does this search: each state's deadlocks, and each state's pair of enabled accesses
// that race, are found in the executions that run through it.
//
// Inputs are explored as DFS explores them (execution_tree_search.hpp): each branch on them is a
// step of its thread, in the state with the side taken, and values computed from inputs are
// held by their expressions, so states that match have one path constraint; a cut-off covers
// the branches below it, whose other sides the first visit explored.
#include <unordered_map>

#include "../state_fingerprints.hpp"
#include "strategies.hpp"
#include "weft/trace/dependence.hpp"

namespace weft::explorer {
namespace {

class StatefulSearch final : public ExecutionTreeSearch, private StateMatching {
 public:
  explicit StatefulSearch(const StrategyConfig& config)
      : ExecutionTreeSearch(config, ReadPolicy::kReadsCommute) {}

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
    for (std::size_t k = first_new; k < nodes_.size(); ++k) {
      Node& n = nodes_[k];
      ThreadSet asleep_here;
      for (const SleepEntry& s : n.sleep) asleep_here.insert(s.thread);
      const auto [it, added] = visited_.emplace(state[k], asleep_here);
      if (added) {
        ++states;
        n.backtrack = n.enabled;
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
      return;
    }
    if (!nodes_.empty()) note_last_state(state.back());
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

  StateFingerprints fingerprints_;
  std::unordered_map<std::uint64_t, ThreadSet> visited_;  // state: the threads asleep there
  std::string why_;
};

}  // namespace

WEFT_STRATEGY_ROWS(stateful,
                   {"stateful",
                    "naive stateful testing with sleep sets (thesis §7.3): every interleaving, "
                    "but none below a state explored before (needs --points=all)",
                    57, ReadPolicy::kReadsCommute, kTakesSleepSets | kMatchesStates,
                    made<StatefulSearch>})

}  // namespace weft::explorer
