// Partial order sampling (Yuan, Yang, Gu, "Partial Order Aware Concurrency Sampling", CAV 2018):
// random scheduling in which priorities belong to events and an event's is redrawn when one it
// races with runs (SchedulePolicy::kPartialOrderSampling, directive_follower.cpp). Each
// execution is one sample; like random and PCT it proves nothing when it finds no bug. One of
// the randomised schedulers Fray ships beside PCT.
#include "input_paths.hpp"
#include "strategies.hpp"

namespace weft::explorer {
namespace {

class PartialOrderSampling final : public Strategy {
 public:
  explicit PartialOrderSampling(const StrategyConfig& config)
      : remaining_(config.random_executions), seed_(config.seed), prefix_(config.initial_prefix) {}

  std::optional<TestDirective> next() override {
    if (remaining_ == 0) return std::nullopt;
    --remaining_;
    TestDirective d;
    d.policy = SchedulePolicy::kPartialOrderSampling;
    d.read_policy = ReadPolicy::kReadsCommute;  // two reads do not race
    d.seed = seed_++;
    d.prefix = prefix_;
    d.inputs = inputs_.take_next();
    return d;
  }
  void observe(const Trace& trace) override { inputs_.observe(trace, seed_); }
  bool exhaustive() const override { return false; }
  std::string coverage() const override {
    return "partial order sampling ran " + std::to_string(runs_()) +
           " random executions (seeds from " + std::to_string(first_seed_) + ")";
  }
  const InputStatistics* input_statistics() const override { return &inputs_.statistics(); }

 private:
  std::uint64_t runs_() const { return seed_ - first_seed_; }
  std::uint64_t remaining_;
  std::uint64_t seed_;
  std::uint64_t first_seed_ = seed_;
  std::vector<ThreadId> prefix_;
  RandomInputWalk inputs_;
};

}  // namespace

std::unique_ptr<Strategy> make_partial_order_sampling(const StrategyConfig& config) {
  return std::make_unique<PartialOrderSampling>(config);
}

}  // namespace weft::explorer
