// Seeded random scheduling: each execution picks uniformly among the enabled threads at every
// step. A baseline: it proves nothing when it finds no bug. Inputs: RandomInputWalk.
#include "input_paths.hpp"
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
    d.inputs = inputs_.take_next();
    return d;
  }
  void observe(const Trace& trace) override { inputs_.observe(trace, seed_); }
  bool exhaustive() const override { return false; }
  const InputStatistics* input_statistics() const override { return &inputs_.statistics(); }

 private:
  std::uint64_t remaining_;
  std::uint64_t seed_;
  std::vector<ThreadId> prefix_;
  RandomInputWalk inputs_;
};

}  // namespace

std::unique_ptr<Strategy> make_random(const StrategyConfig& config) {
  return std::make_unique<RandomWalk>(config);
}

}  // namespace weft::explorer
