// Partial order sampling (Yuan, Yang, Gu, CAV 2018): random samples, each drawn by the directive
// policy SchedulePolicy::kPartialOrderSampling, which gives each pending event a priority and
// redraws those of the events that race with the one that ran, so that a racing event is not
// starved behind independent ones (uniform random scheduling would count those against it).
// Not exhaustive: it proves no bug absent.
#include "strategies.hpp"

namespace weft::explorer {

WEFT_STRATEGY_ROWS(pos, {"pos",
                         "partial order sampling (Yuan et al., CAV 2018): random priorities per "
                         "event, redrawn for the events that race with the one that ran; "
                         "--executions samples, not exhaustive",
                         90, ReadPolicy::kReadsCommute, kTakesExecutions | kExploresOptions,
                         [](const StrategyConfig& config) {
                           return make_random_walk(config, SchedulePolicy::kPartialOrderSampling,
                                                   "partial order sampling");
                         }})

}  // namespace weft::explorer
