// Seeded random scheduling: each execution picks uniformly among the enabled threads at every
// step. A baseline: it proves nothing when it finds no bug. Inputs: after an execution that
// branched on inputs, the next one takes the other side of one of its branches, chosen at random
// (a random walk of the symbolic execution tree, with the solver's values); otherwise inputs get
// uniform random values from the execution's seed (the scheduler's fallback).
#include "strategies.hpp"

namespace weft::explorer {
namespace {

class RandomWalk final : public Strategy {
 public:
  explicit RandomWalk(const StrategyConfig& config)
      : remaining_(config.random_executions), seed_(config.seed), prefix_(config.initial_prefix) {}

  std::optional<TestDirective> next() override {
    if (remaining_ == 0) return std::nullopt;
    --remaining_;
    TestDirective d;
    d.policy = SchedulePolicy::kRandom;
    d.seed = seed_++;
    d.prefix = prefix_;
    if (next_inputs_) d.inputs = std::move(*next_inputs_);
    next_inputs_.reset();
    return d;
  }
  void observe(const Trace& trace) override {
    inputs_.observe(trace, 0);
    // Half the time, and only when there is a side to take: the walk also needs fresh values.
    const std::size_t n = inputs_.branches();
    if (n == 0 || (seed_ & 1)) return;
    const std::size_t start = static_cast<std::size_t>(seed_ * 0x9E3779B97F4A7C15ULL >> 7) % n;
    for (std::size_t k = 0; k < n && !next_inputs_; ++k)
      if (inputs_.flippable((start + k) % n)) next_inputs_ = inputs_.flip((start + k) % n);
  }
  bool exhaustive() const override { return false; }
  const InputStatistics* input_statistics() const override { return &inputs_.statistics(); }

 private:
  std::uint64_t remaining_;
  std::uint64_t seed_;
  std::vector<ThreadId> prefix_;
  InputPaths inputs_;
  std::optional<std::vector<InputValue>> next_inputs_;
};

}  // namespace

std::unique_ptr<Strategy> make_random(const StrategyConfig& config) {
  return std::make_unique<RandomWalk>(config);
}

}  // namespace weft::explorer
