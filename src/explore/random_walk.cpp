// Seeded random scheduling: each execution is one random sample, drawn by the directive's
// policy. Uniform random picks among the enabled threads at every step. Partial order sampling
// (Yuan, Yang, Gu, CAV 2018; SchedulePolicy::kPartialOrderSampling) gives events priorities and
// redraws those of the events that race with the one that ran, so that a racing event is not
// starved behind independent ones. Baselines: neither proves that a bug is absent. Inputs:
// RandomInputWalk.
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

std::unique_ptr<Strategy> make_random(const StrategyConfig& config) {
  return std::make_unique<RandomWalk>(config, SchedulePolicy::kRandom, "");
}

std::unique_ptr<Strategy> make_partial_order_sampling(const StrategyConfig& config) {
  return std::make_unique<RandomWalk>(config, SchedulePolicy::kPartialOrderSampling,
                                      "partial order sampling");
}

}  // namespace weft::explorer
