#include "weft/driver/option_checks.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "weft/explore/options.hpp"
#include "weft/explore/strategy.hpp"

namespace weft::driver {
namespace {

[[noreturn]] void bad(const char* option, const std::string& what) {
  throw DriverError(std::string("option ") + option + " " + what);
}

void check_seconds(const char* option, double value) {
  if (!std::isfinite(value) || value < 0 || value > kMaxSeconds) {
    char text[64];
    std::snprintf(text, sizeof text, "between 0 and %g (it is %g)", kMaxSeconds, value);
    bad(option, std::string("must be a number of seconds ") + text);
  }
}

void check_count(const char* option, std::uint64_t value, std::uint64_t max) {
  if (value < 1 || value > max)
    bad(option,
        "must be between 1 and " + std::to_string(max) + " (it is " + std::to_string(value) + ")");
}

}  // namespace

void check_options(const ProgramOptions& program, const ExploreSettings& settings) {
  if (program.points != "sync" && program.points != "all") bad("--points", "must be sync or all");
  if (!parse_memory_model(program.memory_model)) bad("--memory-model", "must be sc, tso or rc11");
  if (settings.thread_model_given && settings.thread_model != "off" &&
      settings.memory_model == MemoryModel::kTso)
    bad("--thread-model",
        "computes sequentially consistent executions only: leave it out with "
        "--memory-model=tso");
  check_count("--max-steps", program.max_steps_per_thread, kMaxStepsBound);
  check_count("--max-threads", program.max_threads, kMaxThreadsBound);
  check_seconds("--execution-timeout", program.execution_seconds);
  // What both front ends check of the exploration's options, named as the command line
  // spells them.
  if (const auto problem = explorer::problem_with(settings)) {
    static constexpr std::pair<std::string_view, const char*> kNames[] = {
        {"strategy", "--strategy"},
        {"max_seconds", "--time-limit"},
        {"pct_depth", "--depth"},
        {"alternatives", "--alternatives"},
        {"search_deadlocks", "--deadlocks"},
        {"memory_model", "--memory-model"}};
    const char* option = problem->field;
    for (const auto& [field, name] : kNames)
      if (field == problem->field) option = name;
    bad(option, problem->problem);
  }
  const explorer::StrategyInfo& strategy = explorer::strategy_info(settings.strategy);
  const std::string unfoldings = explorer::strategies_taking(explorer::kBuildsUnfolding);
  if (!settings.dump_unfolding.empty() && !strategy.has(explorer::kBuildsUnfolding))
    bad("--dump-unfolding", "draws the unfolding a strategy builds: use it with --strategy " +
                                unfoldings + " (" + strategy.name + " builds none)");
  if (!settings.check_global.empty() && !strategy.has(explorer::kBuildsUnfolding) &&
      !strategy.has(explorer::kVisitsEveryState))
    bad("--check-global", "searches global states: use it with --strategy " + unfoldings +
                              " (from the unfolding), or " +
                              explorer::strategies_taking(explorer::kVisitsEveryState) +
                              " (every state of every interleaving; slow) (" + strategy.name +
                              " skips states that lie inside its executions' equivalence "
                              "classes)");
  if (strategy.has(explorer::kMatchesStates) && program.points != "all")
    bad("--strategy", std::string(strategy.name) +
                          " needs --points=all: the states it matches hold the shared memory, "
                          "whose every access must be an event with its values");
  if (!settings.check_global.empty() && program.points != "all")
    bad("--check-global",
        "needs --points=all: a shared variable's values are known from the "
        "accesses that are events");
  if (program.memory_mb > kMaxMemoryMb)
    bad("--memory-limit", "must be at most " + std::to_string(kMaxMemoryMb) + " MiB (it is " +
                              std::to_string(program.memory_mb) + ")");
}

}  // namespace weft::driver
