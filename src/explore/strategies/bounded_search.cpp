// Iterative bounded search: every schedule whose cost is at most c, for c = 0, 1, 2, ..., each
// bound explored completely before the next. The cost is the number of preemptions (Musuvathi
// and Qadeer, PLDI 2007: switching away from a thread that could go on) or of delays (Emmi,
// Qadeer and Rakamaric, POPL 2011: each skip of the thread a deterministic scheduler would run
// next, in round-robin order from it). The deterministic scheduler is the directives' sticky
// policy (run the last thread while it is enabled, else the lowest enabled one), which costs
// nothing under either measure, so an execution costs what its prefix's choices cost.
//
// As CHESS does, a choice that would exceed the bound is not dropped but kept as the root of a
// subtree for the round of its cost, so each schedule runs once, in the round of its cost, and
// round c runs exactly the schedules of cost c. No sleep sets: they are not sound together with
// these bounds (Coons, Musuvathi, McKinley, OOPSLA 2013), so every interleaving within the
// bound is run. With no bound left to raise (no choice was ever deferred) the search has run
// every interleaving and is exhaustive. Inputs are explored as ExecutionTreeSearch does (thesis
// §2.2-2.4): at each node the other sides of its step's input branches first, at no cost; a
// deferred root keeps the inputs of the execution it came from. Under a model whose accesses
// have options (RC11), a step's other options come before other threads, at no cost: they are
// not scheduling choices.
#include <algorithm>
#include <map>
#include <memory>

#include "input_paths.hpp"
#include "strategies.hpp"

namespace weft::explorer {
namespace {

class BoundedSearch final : public Strategy {
 public:
  BoundedSearch(const StrategyConfig& config, bool delays)
      : delays_(delays), max_bound_(config.max_bound), prefix_(config.initial_prefix) {}

  std::optional<TestDirective> next() override {
    TestDirective d;
    d.read_policy = ReadPolicy::kReadsCommute;
    if (!started_) {
      started_ = true;
      d.prefix = prefix_;
      root_ = prefix_.size();
      return d;
    }
    for (;;) {
      // Backtrack within the current subtree: the deepest node with a choice left. The other
      // sides of the input branches of a node's step come first (they cost nothing), as in
      // ExecutionTreeSearch.
      while (nodes_.size() > root_) {
        const std::size_t i = nodes_.size() - 1;
        if (auto inputs = inputs_.flip_in_step(i + 1)) {
          branch_ = i;
          follow_nodes(i + 1, d);
          d.inputs = std::move(*inputs);
          return d;
        }
        Node& n = nodes_.back();
        if (n.option + 1 < n.options) {
          branch_ = i;
          follow_nodes(i + 1, d);
          d.choices.back() = ++n.option;
          d.inputs = inputs_.current_inputs();
          kept_steps_ = i + 1;
          return d;
        }
        if (!n.todo.empty()) {
          const ThreadId t = n.todo.first();
          n.todo.erase(t);
          branch_ = i;
          follow_nodes(branch_, d);
          d.prefix.push_back(t);
          d.inputs = inputs_.current_inputs();
          kept_steps_ = i + 1;
          return d;
        }
        nodes_.pop_back();
      }
      // The branches of the code the subtree's root prefix leads into: the subtree again, on the
      // other side (its nodes are built afresh).
      if (auto inputs = inputs_.flip_in_step(root_)) {
        follow_nodes(std::min(root_, nodes_.size()), d);
        nodes_.clear();
        d.inputs = std::move(*inputs);
        return d;
      }
      nodes_.clear();
      // The next subtree of this round; or, the round done, the next round.
      if (roots_.empty()) {
        completed_ = bound_;
        if (deferred_.empty()) {
          finished_ = true;
          return std::nullopt;
        }
        const auto cheapest = deferred_.begin();
        if (cheapest->first > max_bound_) {
          completed_ = max_bound_;  // no schedule costs between bound_ and max_bound_
          return std::nullopt;
        }
        bound_ = cheapest->first;
        roots_ = std::move(cheapest->second);
        deferred_.erase(cheapest);
      }
      const Root& root = roots_.back();
      d.prefix.assign(root.schedule->begin(), root.schedule->begin() + root.length);
      d.prefix.push_back(root.next);
      if (root.choices)
        d.choices.assign(
            root.choices->begin(),
            root.choices->begin() + std::min<std::size_t>(root.length, root.choices->size()));
      d.inputs = *root.inputs;
      roots_.pop_back();
      root_ = d.prefix.size();
      return d;
    }
  }

  void observe(const Trace& trace) override {
    inputs_.observe(trace, kept_steps_);
    kept_steps_ = 0;
    std::size_t start = 0;
    if (!nodes_.empty()) {  // a new choice at node branch_ of the current subtree
      nodes_.resize(branch_ + 1);
      start = std::min(branch_, trace.events.size());
      if (branch_ < trace.events.size()) {
        Node& n = nodes_[branch_];
        n.chosen = trace.events[branch_].thread;
        take_options(n, trace, branch_);
        n.cost_of_chosen = cost(branch_, n.chosen, n.enabled);
        start = branch_ + 1;
      }
    }
    // New nodes: alternatives within the bound to run in this round, the others deferred to
    // the round of their cost. The root prefix of a subtree (steps before root_) has none.
    // Deferred roots share this execution's schedule (made at the first one), each naming how
    // much of it is its prefix: a copy each would cost steps x choices per execution.
    std::shared_ptr<std::vector<ThreadId>> schedule;
    std::shared_ptr<std::vector<InputValue>> inputs;      // its inputs, which the roots follow
    std::shared_ptr<std::vector<std::uint32_t>> choices;  // its options, if any step had some
    for (std::size_t k = start; k < trace.events.size(); ++k) {
      Node n;
      n.enabled = trace.enabled[k];
      n.chosen = trace.events[k].thread;
      take_options(n, trace, k);
      n.cost_before = k == 0 ? 0 : nodes_[k - 1].cost_before + nodes_[k - 1].cost_of_chosen;
      n.cost_of_chosen = cost(k, n.chosen, n.enabled);
      if (k >= root_)
        for (ThreadId t = n.enabled.first(); t != kNoThread; t = n.enabled.next_from(t + 1)) {
          if (t == n.chosen) continue;
          const std::uint32_t total = n.cost_before + cost(k, t, n.enabled);
          if (total <= bound_) {
            n.todo.insert(t);
            continue;
          }
          if (!schedule) {
            schedule = std::make_shared<std::vector<ThreadId>>();
            schedule->reserve(trace.events.size());
            for (std::size_t j = 0; j < trace.events.size(); ++j)
              schedule->push_back(j < start ? nodes_[j].chosen : trace.events[j].thread);
            inputs = std::make_shared<std::vector<InputValue>>(inputs_.current_inputs());
            if (!trace.choices.empty() || has_options()) {
              choices = std::make_shared<std::vector<std::uint32_t>>();
              for (std::size_t j = 0; j < trace.events.size(); ++j)
                choices->push_back(j < start                  ? nodes_[j].option
                                   : j < trace.choices.size() ? trace.choices[j]
                                                              : 0);
            }
          }
          deferred_[total].push_back({schedule, inputs, choices, static_cast<std::uint32_t>(k), t});
        }
      nodes_.push_back(std::move(n));
    }
  }

  bool exhaustive() const override { return finished_; }
  const InputStatistics* input_statistics() const override { return &inputs_.statistics(); }

  // (With inputs, "every schedule" of every input path the search could follow: the verdict
  // adds the input gaps, if any.)
  std::string coverage() const override {
    const std::string unit = delays_ ? " delay" : " preemption";
    if (finished_) return "every schedule was run";
    if (!completed_) return "not even the schedules with 0" + unit + "s were all run";
    return "every schedule with at most " + std::to_string(*completed_) + unit +
           (*completed_ == 1 ? "" : "s") + " was run; schedules with more were not";
  }

 private:
  /// The root prefix of a subtree: the first `length` steps of `schedule`, then `next`.
  struct Root {
    std::shared_ptr<const std::vector<ThreadId>> schedule;
    std::shared_ptr<const std::vector<InputValue>> inputs;
    std::shared_ptr<const std::vector<std::uint32_t>> choices;  ///< by step; null: none
    std::uint32_t length;
    ThreadId next;
  };

  struct Node {
    ThreadSet enabled;
    ThreadSet todo;  ///< alternatives within the bound not yet run
    ThreadId chosen = kNoThread;
    std::uint32_t cost_before = 0;          ///< of the choices before this step
    std::uint32_t cost_of_chosen = 0;       ///< of this step's choice
    std::uint32_t options = 1, option = 0;  ///< the step's options, and the one it took
  };

  // The directive follows the first `steps` nodes: their threads and options.
  void follow_nodes(std::size_t steps, TestDirective& d) const {
    for (std::size_t k = 0; k < steps; ++k) {
      d.prefix.push_back(nodes_[k].chosen);
      d.choices.push_back(nodes_[k].option);
    }
  }
  static void take_options(Node& n, const Trace& trace, std::size_t k) {
    n.options = k < trace.options.size() ? trace.options[k] : 1;
    n.option = k < trace.choices.size() ? trace.choices[k] : 0;
  }
  bool has_options() const {
    return std::any_of(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.options > 1; });
  }

  // What choosing `t` at step k costs, `enabled` being the threads enabled there.
  std::uint32_t cost(std::size_t k, ThreadId t, const ThreadSet& enabled) const {
    const ThreadId last = k == 0 ? kNoThread : nodes_[k - 1].chosen;
    const bool last_can_go_on = last != kNoThread && enabled.contains(last);
    if (!delays_) return last_can_go_on && t != last ? 1 : 0;
    // A re-run step may take a thread this node's enabled set (from an earlier execution) does
    // not have, when the program's schedule does not fix what it does (libuv's timers read the
    // clock): it skipped no one known, and the walk below would never reach it (libuv's
    // threadpool_cancel_work hung here).
    if (!enabled.contains(t)) return 0;
    // Delays: the threads skipped from the sticky scheduler's choice to t, round-robin by id.
    const ThreadId preferred = last_can_go_on ? last : enabled.first();
    std::uint32_t skipped = 0;
    for (ThreadId u = preferred; u != t;) {
      ++skipped;
      u = enabled.next_from(u + 1);
      if (u == kNoThread) u = enabled.first();
    }
    return skipped;
  }

  bool delays_;
  std::uint32_t max_bound_;
  std::vector<ThreadId> prefix_;
  bool started_ = false;
  bool finished_ = false;
  InputPaths inputs_;
  std::size_t kept_steps_ = 0;  ///< steps the last directive shares with the execution before
  std::uint32_t bound_ = 0;
  std::vector<Node> nodes_;
  std::size_t root_ = 0;    ///< steps of the current subtree's root prefix
  std::size_t branch_ = 0;  ///< the step where the last directive took its new choice
  std::optional<std::uint32_t> completed_;  ///< the highest bound whose round is complete
  std::vector<Root> roots_;                 ///< this round's subtrees not yet run
  std::map<std::uint32_t, std::vector<Root>> deferred_;  ///< by cost
};

}  // namespace

WEFT_STRATEGY_ROWS(
    bounded_search,
    {"preemption-bound",
     "every schedule with at most 0, 1, 2, ... preemptions (up to --bound), each bound "
     "completely before the next; no sleep sets",
     100, ReadPolicy::kReadsCommute, kTakesBound | kWeakMemory | kExploresOptions,
     [](const StrategyConfig& config) {
       return std::unique_ptr<Strategy>(std::make_unique<BoundedSearch>(config, false));
     }},
    {"delay-bound",
     "every schedule with at most 0, 1, 2, ... delays of a round-robin scheduler (up to "
     "--bound), each bound completely before the next; no sleep sets",
     110, ReadPolicy::kReadsCommute, kTakesBound | kWeakMemory | kExploresOptions,
     [](const StrategyConfig& config) {
       return std::unique_ptr<Strategy>(std::make_unique<BoundedSearch>(config, true));
     }})

}  // namespace weft::explorer
