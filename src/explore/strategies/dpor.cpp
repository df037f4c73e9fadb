// DPOR of Flanagan and Godefroid as thesis §2.4 describes it (Fig. 2.5, with its backtracking
// heuristic), in the vector-clock form of Saarikivi et al. Fig. 1. With ReadPolicy::kReadsCommute
// it is the commutative-reads DPOR of Saarikivi et al. §II-D: two reads of one location are
// independent, so neither the happens-before relation nor the race check orders them.
#include "../dpor_races.hpp"
#include "strategies.hpp"

namespace weft::explorer {
namespace {

class Dpor final : public ExecutionTreeSearch {
 public:
  using ExecutionTreeSearch::ExecutionTreeSearch;

 private:
  void analyse(const Trace& trace, std::size_t first_new) override {
    for_each_race(trace, first_new, policy_,
                  [this](std::size_t j, ThreadId t) { add_backtrack(j, t); });
  }
};

}  // namespace

WEFT_STRATEGY_ROWS(dpor,
                   {"dpor-cr", "DPOR in which reads commute", 20, ReadPolicy::kReadsCommute,
                    kTakesSleepSets | kWeakMemory | kExploresOptions,
                    [](const StrategyConfig& config) {
                      return std::unique_ptr<Strategy>(
                          std::make_unique<Dpor>(config, ReadPolicy::kReadsCommute));
                    }},
                   {"dpor", "Flanagan-Godefroid DPOR, every two accesses dependent", 30,
                    ReadPolicy::kReadsConflict, kTakesSleepSets | kWeakMemory | kExploresOptions,
                    [](const StrategyConfig& config) {
                      return std::unique_ptr<Strategy>(
                          std::make_unique<Dpor>(config, ReadPolicy::kReadsConflict));
                    }})

}  // namespace weft::explorer
