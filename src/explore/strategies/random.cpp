// Seeded random scheduling: each execution is one random sample, drawn by the directive's
// policy; uniform random picks among the enabled threads at every step. A baseline: it proves no
// bug absent. Inputs: RandomInputWalk. (Partial order sampling, pos.cpp, draws its samples by
// another policy.)
#include "input_paths.hpp"
#include "strategies.hpp"

namespace weft::explorer {
namespace {

class RandomWalk final : public Strategy {
 public:
  /// `name`: what the verdict calls the samples ("" for none).
  RandomWalk(const StrategyConfig& config, SchedulePolicy policy, const char* name)
      : remaining_(config.random_executions),
        seed_(config.seed),
        first_seed_(config.seed),
        prefix_(config.initial_prefix),
        policy_(policy),
        name_(name) {}

  std::optional<TestDirective> next() override {
    if (remaining_ == 0) return std::nullopt;
    --remaining_;
    TestDirective d;
    d.policy = policy_;
    d.seed = seed_++;
    d.prefix = prefix_;
    d.inputs = inputs_.take_next();
    return d;
  }
  void observe(const Trace& trace) override { inputs_.observe(trace, seed_); }
  bool exhaustive() const override { return false; }
  std::string coverage() const override {
    if (*name_ == '\0') return {};
    return std::string(name_) + " ran " + std::to_string(seed_ - first_seed_) +
           " random executions (seeds from " + std::to_string(first_seed_) + ")";
  }
  const InputStatistics* input_statistics() const override { return &inputs_.statistics(); }

 private:
  std::uint64_t remaining_;
  std::uint64_t seed_;
  std::uint64_t first_seed_;
  std::vector<ThreadId> prefix_;
  SchedulePolicy policy_;
  const char* name_;
  RandomInputWalk inputs_;
};

}  // namespace

std::unique_ptr<Strategy> make_random_walk(const StrategyConfig& config, SchedulePolicy policy,
                                           const char* name) {
  return std::make_unique<RandomWalk>(config, policy, name);
}

WEFT_STRATEGY_ROWS(random,
                   {"random", "seeded random scheduling, not exhaustive", 70,
                    ReadPolicy::kReadsCommute, kTakesExecutions | kWeakMemory | kExploresOptions,
                    [](const StrategyConfig& config) {
                      return make_random_walk(config, SchedulePolicy::kRandom, "");
                    }})

}  // namespace weft::explorer
