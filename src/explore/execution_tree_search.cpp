#include "execution_tree_search.hpp"

#include <algorithm>
#include <optional>

#include "tree_backtrack.hpp"
#include "weft/trace/dependence.hpp"

namespace weft::explorer {

ExecutionTreeSearch::ExecutionTreeSearch(const StrategyConfig& config, ReadPolicy policy)
    : policy_(policy), sleep_sets_(config.sleep_sets), initial_prefix_(config.initial_prefix) {}

bool ExecutionTreeSearch::asleep(const Node& n, ThreadId t) const {
  return std::any_of(n.sleep.begin(), n.sleep.end(),
                     [t](const SleepEntry& s) { return s.thread == t; });
}

void ExecutionTreeSearch::add_backtrack(std::size_t j, ThreadId t) {
  Node& n = nodes_[j];
  if (n.enabled.contains(t) && !asleep(n, t)) {
    n.backtrack.insert(t);
    return;
  }
  for (ThreadId u : n.enabled.members())
    if (!asleep(n, u)) n.backtrack.insert(u);
}

std::optional<TestDirective> ExecutionTreeSearch::next() {
  TestDirective d;
  d.read_policy = policy_;
  if (!started_) {
    started_ = true;
    branch_ = 0;
    d.prefix = initial_prefix_;
    d.sleep_from = 0;
    return d;
  }
  // The directive that runs node i's prefix and then `thread`, or with no thread the step of
  // node i again with its next option.
  const auto branch = [this](std::size_t i, const Node& n, TestDirective& out,
                             std::optional<ThreadId> thread) {
    if (thread) {
      prefix_up_to(nodes_, i, out);
      out.prefix.push_back(*thread);
    } else {
      next_option_prefix(nodes_, i, out);
    }
    out.sleep_from = i;
    if (sleep_sets_) out.sleep = n.sleep;
    // The current inputs follow the current path up to here; what comes after is new.
    out.inputs = inputs_.current_inputs();
    kept_steps_ = i + 1;
    return NodeChoice::kTaken;
  };
  return next_in_tree(nodes_, inputs_, std::move(d), sleep_sets_, branch_,
                      [&](std::size_t i, Node& n, TestDirective& out) {
                        // The step's next option, with the same thread.
                        if (n.option + 1 < n.options) return branch(i, n, out, std::nullopt);
                        ThreadId pick = kNoThread;
                        for (ThreadId t : n.backtrack.members()) {
                          if (n.done.contains(t) || (sleep_sets_ && asleep(n, t))) continue;
                          pick = t;
                          break;
                        }
                        if (pick == kNoThread) return NodeChoice::kFinished;
                        // The subtree of the current choice is finished: it goes to sleep for the
                        // siblings.
                        if (sleep_sets_) n.sleep.push_back({n.chosen.thread, n.chosen.op});
                        n.done.insert(pick);
                        return branch(i, n, out, pick);
                      });
}

void ExecutionTreeSearch::observe(const Trace& trace) {
  // Nodes up to the branch point stay (with their backtrack, done and sleep sets); the branch
  // node gets its new choice; everything after it is new.
  std::size_t start = 0;
  if (!nodes_.empty()) {
    nodes_.resize(branch_ + 1);
    if (branch_ < trace.events.size()) {
      Node& n = nodes_[branch_];
      n.chosen = trace.events[branch_];
      n.options = branch_ < trace.options.size() ? trace.options[branch_] : 1;
      n.option = branch_ < trace.choices.size() ? trace.choices[branch_] : 0;
      start = branch_ + 1;
    } else {
      start = trace.events.size();  // the execution ended before the branch could be taken
    }
  }
  for (std::size_t k = start; k < trace.events.size(); ++k) {
    Node n;
    n.enabled = trace.enabled[k];
    n.chosen = trace.events[k];
    n.done.insert(n.chosen.thread);
    n.backtrack.insert(n.chosen.thread);
    if (k < trace.options.size()) n.options = trace.options[k], n.option = trace.choices[k];
    if (sleep_sets_ && k > 0) {
      const Node& parent = nodes_[k - 1];
      for (const auto& s : parent.sleep)
        if (!dependent(parent.chosen, Event{s.thread, s.op}, policy_)) n.sleep.push_back(s);
    }
    nodes_.push_back(std::move(n));
  }
  inputs_.observe(trace, kept_steps_);
  kept_steps_ = 0;
  analyse(trace, start);
}
}  // namespace weft::explorer
