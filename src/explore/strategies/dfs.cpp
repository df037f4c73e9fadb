// Exhaustive depth-first search over interleavings: the oracle every other strategy is checked
// against. With sleep sets it still reaches every Mazurkiewicz trace, each exactly once among its
// complete executions (thesis §2.4, "Sleep Sets").
#include "strategies.hpp"

namespace weft::explorer {
namespace {

class DepthFirstSearch final : public ExecutionTreeSearch {
 public:
  using ExecutionTreeSearch::ExecutionTreeSearch;

 private:
  void analyse(const Trace&, std::size_t first_new) override {
    for (std::size_t k = first_new; k < nodes_.size(); ++k) nodes_[k].backtrack = nodes_[k].enabled;
  }
};

}  // namespace

WEFT_STRATEGY_ROWS(dfs, {"dfs", "every interleaving (the oracle)", 40, ReadPolicy::kReadsCommute,
                         kTakesSleepSets | kVisitsEveryState | kWeakMemory | kExploresOptions,
                         [](const StrategyConfig& config) {
                           return std::unique_ptr<Strategy>(std::make_unique<DepthFirstSearch>(
                               config, ReadPolicy::kReadsCommute));
                         }})

}  // namespace weft::explorer
