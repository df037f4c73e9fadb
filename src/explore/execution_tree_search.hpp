// Depth-first search over the execution tree with backtrack sets and sleep sets: the skeleton
// shared by exhaustive DFS and Flanagan–Godefroid DPOR (thesis §2.4, Fig. 2.5). The tree has the
// input branches too (Fig. 2.4): below each scheduling choice, the branches its step took on
// input-dependent conditions, whose other sides are explored (with the subtrees under them)
// before the choice's siblings.
#pragma once

#include <cstddef>
#include <vector>

#include "input_paths.hpp"
#include "weft/explore/strategy.hpp"

namespace weft::explorer {

class ExecutionTreeSearch : public Strategy {
 public:
  ExecutionTreeSearch(const StrategyConfig& config, ReadPolicy policy);

  std::optional<TestDirective> next() override;
  void observe(const Trace& trace) override;
  const InputStatistics* input_statistics() const override { return &inputs_.statistics(); }

 protected:
  struct Node {
    ThreadSet enabled;
    ThreadSet backtrack;
    ThreadSet done;
    std::vector<SleepEntry> sleep;  // sleep set, including siblings explored before
    Event chosen;
    // The step's option (TestDirective::choices) and how many it had: the other options of the
    // chosen thread's step are explored before the other threads.
    std::uint32_t option = 0, options = 1;
  };

  /// Fills backtrack sets after an execution; `first_new` is the first state not seen before.
  virtual void analyse(const Trace& trace, std::size_t first_new) = 0;

  /// Adds `t` to the backtrack set of node j, or every enabled thread there when `t` is not
  /// enabled or is asleep (the safe combination of DPOR and sleep sets, end of thesis §2.4).
  void add_backtrack(std::size_t j, ThreadId t);
  bool asleep(const Node& n, ThreadId t) const;
  /// The subtree below node k's choice was explored before (a stateful search's cut-off): the
  /// input branches the execution took there need no other side.
  void covered_below(std::size_t k) { inputs_.covered_after(k); }

  std::vector<Node> nodes_;
  ReadPolicy policy_;
  bool sleep_sets_;

 private:
  std::vector<ThreadId> initial_prefix_;
  bool started_ = false;
  std::size_t branch_ = 0;  // node index where the last directive took a new branch
  InputPaths inputs_;
  std::size_t kept_steps_ = 0;  // steps the last directive shares with the execution before
};

}  // namespace weft::explorer
