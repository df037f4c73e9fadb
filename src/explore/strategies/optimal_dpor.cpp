// Optimal DPOR (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014, Algorithm 2; cited in thesis §1.1):
// sleep sets plus wakeup trees, so that every Mazurkiewicz trace is explored by exactly one
// complete execution. After each execution, every reversible race e ⋖ e' yields the sequence
// v = notdep(e, E).e'; unless a thread asleep before e is an initial of v (or a weak initial whose
// next operation cannot block), v goes into the wakeup tree of the node before e. (The paper
// skips v whenever a sleeper is a *weak* initial; with a sleeper that may block, that loses
// traces, see reverse(). The stricter test costs some sleep-set-blocked executions on lock-heavy
// programs: docs/dependence.md.)
#include <algorithm>
#include <map>
#include <unordered_map>
#include <vector>

#include "strategies.hpp"
#include "tree_backtrack.hpp"
#include "wakeup_tree.hpp"
#include "weft/explore/race_candidates.hpp"
#include "weft/trace/clock_tracker.hpp"

namespace weft::explorer {
namespace {

constexpr ReadPolicy kPolicy = ReadPolicy::kReadsCommute;

class OptimalDpor final : public Strategy {
 public:
  explicit OptimalDpor(const StrategyConfig& config) : initial_prefix_(config.initial_prefix) {}

  std::optional<TestDirective> next() override {
    TestDirective d;
    d.read_policy = kPolicy;
    if (!started_) {
      started_ = true;
      d.prefix = initial_prefix_;
      return d;
    }
    return next_in_tree(nodes_, inputs_, std::move(d), true, branch_,
                        [this](std::size_t i, Node& n, TestDirective& out) {
                          // Under RC11, the step's other options first, with the same thread
                          // (as in ExecutionTreeSearch: each is one transition with internal
                          // choice, whose subtrees are explored before the siblings).
                          if (n.option + 1 < n.options) {
                            next_option_prefix(nodes_, i, out);
                            out.sleep_from = i;
                            out.sleep = n.sleep;
                            out.inputs = inputs_.current_inputs();
                            kept_steps_ = i + 1;
                            return NodeChoice::kTaken;
                          }
                          if (n.wakeup.empty()) return NodeChoice::kFinished;
                          const auto asleep = [&n](ThreadId t) {
                            return std::any_of(n.sleep.begin(), n.sleep.end(),
                                               [t](const SleepEntry& e) { return e.thread == t; });
                          };
                          // The branch explored last is done: its thread sleeps for the siblings.
                          if (!asleep(n.chosen.thread))
                            n.sleep.push_back({n.chosen.thread, n.chosen.op});
                          taken_ = n.wakeup.take_first();
                          // A branch starting with a sleeping thread is covered already. This only
                          // happens when a race was over-approximated (condition variables,
                          // semaphores: docs/dependence.md).
                          if (asleep(taken_->event.thread)) {
                            taken_.reset();
                            return NodeChoice::kAgain;
                          }
                          prefix_up_to(nodes_, i, out);
                          for (const WakeupTree::Node* w = taken_.get(); w;
                               w = w->children.empty() ? nullptr : w->children.front().get())
                            out.prefix.push_back(w->event.thread);
                          out.sleep_from = i;
                          out.sleep = n.sleep;
                          // The inputs of the execution whose race planned the branch: they take
                          // the path on which the sequence reverses the race. Both they and the
                          // current inputs follow the current path up to here.
                          out.inputs = taken_->inputs ? *taken_->inputs : inputs_.current_inputs();
                          if (!taken_->inputs)
                            taken_->inputs =
                                std::make_shared<const std::vector<InputValue>>(out.inputs);
                          kept_steps_ = i + 1;
                          return NodeChoice::kTaken;
                        });
  }

  const InputStatistics* input_statistics() const override { return &inputs_.statistics(); }

  void observe(const Trace& trace) override {
    const auto& ev = trace.events;
    std::size_t start = 0;
    WakeupTree::Node* path = nullptr;
    std::vector<std::unique_ptr<WakeupTree::Node>> keep_alive;
    if (!nodes_.empty()) {
      nodes_.resize(branch_ + 1);
      // If the planned event could not run (an over-approximated race, see docs/dependence.md),
      // the planned thread still goes to sleep here, so the same branch is never planned again.
      const bool ran = branch_ < ev.size() && taken_ && taken_->event.thread == ev[branch_].thread;
      if (taken_ && !ran) nodes_[branch_].sleep.push_back({taken_->event.thread, taken_->event.op});
      if (branch_ < ev.size()) {
        nodes_[branch_].chosen = ev[branch_];
        nodes_[branch_].take_options(trace, branch_);
        start = branch_ + 1;
        if (ran) path = taken_.get();
      } else {
        start = ev.size();
      }
    }
    for (std::size_t k = start; k < ev.size(); ++k) {
      Node n;
      n.enabled = trace.enabled[k];
      n.chosen = ev[k];
      n.take_options(trace, k);
      if (k > 0) {
        const Node& parent = nodes_[k - 1];
        for (const auto& s : parent.sleep)
          if (!dependent(parent.chosen, Event{s.thread, s.op}, kPolicy)) n.sleep.push_back(s);
      }
      // Still inside the wakeup-tree branch being followed: its other subtrees are this node's.
      if (path && !path->children.empty() && path->children.front()->event.thread == ev[k].thread) {
        keep_alive.push_back(std::move(path->children.front()));
        path->children.erase(path->children.begin());
        // The branches below keep the inputs they were planned with (those of the branch taken,
        // when they have none of their own).
        for (auto& child : path->children)
          if (!child->inputs) child->inputs = path->inputs;
        if (!keep_alive.back()->inputs) keep_alive.back()->inputs = path->inputs;
        n.wakeup.adopt(std::move(path->children));
        path = keep_alive.back().get();
      } else {
        path = nullptr;
      }
      nodes_.push_back(std::move(n));
    }
    taken_.reset();
    if (!trace.symbolic.branches.empty()) branched_on_inputs_ = true;
    has_options_ = has_options_ || !trace.options.empty();
    if (!buffered_stores_ && !trace.events.empty())
      buffered_stores_ = std::any_of(trace.events.begin(), trace.events.end(), [](const Event& e) {
        return e.op.kind == OpKind::kBufferedStore;
      });
    inputs_.observe(trace, kept_steps_);
    kept_steps_ = 0;
    observed_inputs_.reset();
    find_races(trace, nodes_.empty() || start == 0 ? 0 : std::min(branch_, start));
  }

 private:
  struct Node {
    ThreadSet enabled;
    Event chosen;
    std::vector<SleepEntry> sleep;
    WakeupTree wakeup;  // branches still to explore from this node (not the current one)
    // Under RC11: the option the chosen step took and how many it had (TestDirective::choices).
    std::uint32_t option = 0, options = 1;
    void take_options(const Trace& trace, std::size_t k) {
      options = k < trace.options.size() ? trace.options[k] : 1;
      option = k < trace.choices.size() ? trace.choices[k] : 0;
    }
  };

  // Races are looked for only among the events after `first_new` (those before ran in the
  // execution before too, and their races were scheduled then), but the clocks and race
  // candidates those events are checked against cover every event. They are computed from the
  // latest checkpoint at or before `first_new`: the tracker and candidates as they were before
  // the event at that depth, kept from an earlier execution whose events up to there were the
  // same. One is kept per depth the exploration branched at, so that going on from a branch
  // point costs the events after it, not the whole execution (Locking 4: 24 of 82 events).
  void find_races(const Trace& trace, std::size_t first_new) {
    const auto& ev = trace.events;
    const std::size_t n = ev.size();
    while (live_ > 0 && checkpoints_[live_ - 1].depth > first_new) --live_;
    // Copies by assignment, into structures kept from the last execution: their hash tables
    // reuse the nodes they have instead of allocating (this copy is made once per execution).
    ClockTracker& tracker = tracker_;
    RaceCandidates& candidates = candidates_;
    std::size_t from = 0;
    if (live_ > 0) {
      tracker = checkpoints_[live_ - 1].tracker;
      candidates = checkpoints_[live_ - 1].candidates;
      from = checkpoints_[live_ - 1].depth;
    } else {
      tracker = ClockTracker(kPolicy);
      candidates = RaceCandidates();
    }
    // Events before `from` keep the clocks the last executions gave them.
    auto& clocks = clocks_;
    auto& local = local_;
    clocks.resize(n);
    local.resize(n);
    const auto check = [&](const Event& later, std::size_t later_index, const VectorClock& before) {
      std::vector<std::size_t>& cands = candidates_of_;
      candidates.of(later, cands);
      for (std::size_t c = 0; c < cands.size(); ++c) {
        const std::size_t i = cands[c];
        if (ev[i].thread == later.thread) continue;
        if (before.covers(ev[i].thread, local[i])) continue;
        bool via_other = false;  // e happens before another immediate predecessor of e'
        for (std::size_t o = 0; o < cands.size() && !via_other; ++o)
          via_other = o != c && clocks[cands[o]].covers(ev[i].thread, local[i]);
        if (!via_other) reverse(i, later, later_index, clocks, local, ev);
      }
    };
    for (std::size_t j = from; j < n; ++j) {
      if (j == first_new && first_new > 0 && (live_ == 0 || checkpoints_[live_ - 1].depth < j)) {
        if (live_ == checkpoints_.size()) {
          checkpoints_.push_back({j, tracker, candidates});
        } else {
          Checkpoint& c = checkpoints_[live_];
          c.depth = j;
          c.tracker = tracker;
          c.candidates = candidates;
        }
        ++live_;
      }
      if (j >= first_new) check(ev[j], j, tracker.clock_before(ev[j]));
      candidates.add(j, ev[j]);
      clocks[j] = tracker.add(ev[j]);
      local[j] = tracker.thread_count(ev[j].thread);
    }
    for (const auto& p : trace.pending) {
      const Event e{p.thread, p.op};
      check(e, n, tracker.clock_before(e));
    }
  }

  /// Schedules the reversal of the race between events[i] and `later` (at `later_index`).
  void reverse(std::size_t i, const Event& later, std::size_t later_index,
               const std::vector<VectorClock>& clocks, const std::vector<std::uint32_t>& local,
               const std::vector<Event>& ev) {
    std::vector<Event> v;
    for (std::size_t k = i + 1; k < later_index; ++k)
      if (!clocks[k].covers(ev[i].thread, local[i])) v.push_back(ev[k]);
    // `later` runs earlier in v than it did here, or had not run (a pending wake): its
    // condition-variable outcome there is as_it_will_run says. (A pending wake's label, not
    // woken, made it conflict with a lost signal it commutes with once woken, and optimal DPOR
    // ran a trace twice: BlockingDifferential seed 1504.)
    v.push_back({later.thread, as_it_will_run(later.op)});
    // A sleeping thread covers v only if it occurs in v as an initial. The paper (Algorithm 2,
    // line 6) also skips when the sleeping thread is merely a weak initial (absent from v, its next
    // event independent of v). With blocking locks that loses traces: the continuations of v in
    // which another thread's dependent event precedes the sleeper's are not covered by its sleep
    // entry, and no other race reaches them (tests/counts_test.cpp, lock chain and Dining 2;
    // Dining 2-4 in bench/thesis missed 6, 183 and 2,082 traces).
    // A sleeper whose next operation can never be disabled (it does not block) is the paper's
    // case: as a weak initial it covers v, since it stays enabled and commutes to the front of
    // every continuation of v (seed 115277 of the differential test ran a sleep-set-blocked
    // execution without this). Not once the program has branched on inputs: the continuations
    // of v then include other input paths, and the inputs differential test loses traces with it
    // (seeds 329 and 689); without it a sleep-set-blocked execution may be run, never a trace
    // twice.
    // Nor under x86-TSO, where a store enables its buffer's flush: a load asleep as a weak initial
    // of v lost traces whose flush of the location comes before it (the grown program of seed
    // 30,957 in tests/memory_model_oracle_test.cpp reached 18 of the 20 outcomes x86-TSO allows).
    // Nor under RC11, where the events of v have other options, which like inputs lead to
    // continuations the execution did not show.
    for (const auto& s : nodes_[i].sleep)
      if (initial(s.thread, v, kPolicy) ||
          (!branched_on_inputs_ && !buffered_stores_ && !has_options_ && !may_block(s.op.kind) &&
           weak_initial(s.thread, s.op, v, kPolicy)))
        return;  // explored already
    // The branch being explored is conceptually the leftmost branch of every wakeup tree on the
    // current path: where its event is a weak initial of v, insertion continues below it.
    std::size_t k = i;
    while (k < nodes_.size() &&
           weak_initial(nodes_[k].chosen.thread, nodes_[k].chosen.op, v, kPolicy)) {
      const ThreadId p = nodes_[k].chosen.thread;
      auto it = std::find_if(v.begin(), v.end(), [p](const Event& e) { return e.thread == p; });
      if (it != v.end()) v.erase(it);
      if (v.empty()) return;
      ++k;
    }
    if (k >= nodes_.size()) return;  // the current execution already covers v
    if (!observed_inputs_)
      observed_inputs_ = std::make_shared<const std::vector<InputValue>>(inputs_.current_inputs());
    nodes_[k].wakeup.insert(std::move(v), kPolicy, observed_inputs_);
  }

  struct Checkpoint {
    std::size_t depth;  ///< the state before the event at this index
    ClockTracker tracker;
    RaceCandidates candidates;
  };
  /// By increasing depth, all on the current path: the first `live_`; the others are kept to be
  /// assigned to (reusing their memory).
  std::vector<Checkpoint> checkpoints_;
  std::size_t live_ = 0;
  ClockTracker tracker_{kPolicy};  ///< find_races' state, kept to reuse its memory
  RaceCandidates candidates_;
  std::vector<std::size_t> candidates_of_;  ///< find_races' buffer for RaceCandidates::of
  std::vector<VectorClock> clocks_;         ///< of each event of the current execution
  std::vector<std::uint32_t> local_;        ///< its number among its thread's events
  std::vector<Node> nodes_;
  std::vector<ThreadId> initial_prefix_;
  std::unique_ptr<WakeupTree::Node> taken_;
  InputPaths inputs_;
  std::size_t kept_steps_ = 0;       // steps the last directive shares with the execution before
  bool branched_on_inputs_ = false;  // some execution so far branched on an input
  bool buffered_stores_ = false;     // some execution so far had a store buffer (x86-TSO)
  bool has_options_ = false;         // some step so far had options (RC11)
  // The inputs of the execution being analysed, shared by the branches its races plan.
  std::shared_ptr<const std::vector<InputValue>> observed_inputs_;
  bool started_ = false;
  std::size_t branch_ = 0;
};

}  // namespace

// The estimate counts Mazurkiewicz traces: what optimal DPOR runs, one execution each.
WEFT_STRATEGY_ROWS(
    optimal_dpor,
    {"optimal", "optimal DPOR: source sets and wakeup trees, one execution per Mazurkiewicz trace",
     0, ReadPolicy::kReadsCommute, kWeakMemory | kExploresOptions,
     [](const StrategyConfig& config) {
       std::unique_ptr<Strategy> search = std::make_unique<OptimalDpor>(config);
       if (!config.estimate_size) return search;
       return with_size_estimate(std::move(search), config, ReadPolicy::kReadsCommute);
     }})

}  // namespace weft::explorer
