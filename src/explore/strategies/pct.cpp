// PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS
// 2010). Each execution gives the threads random priorities and runs the enabled thread of
// highest priority; at d-1 steps chosen uniformly among the first k, the running thread drops
// below every other. A bug of depth d (d ordering constraints between steps) is then found by
// one execution with probability at least 1/(n k^(d-1)) for n threads and k steps (§3, Theorem
// 1). The scheduling itself is SchedulePolicy::kPriority (directive_follower.cpp), so that the
// runtime and the thread model agree; this side draws the change points and, unless k is
// given, measures k as the longest execution so far (the paper's practical variant, §4).
// Inputs: as the random walk's (RandomInputWalk).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "input_paths.hpp"
#include "strategies.hpp"

namespace weft::explorer {
namespace {

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

class Pct final : public Strategy {
 public:
  explicit Pct(const StrategyConfig& config)
      : remaining_(config.random_executions),
        seed_(config.seed),
        depth_(std::max<std::uint32_t>(config.pct_depth, 1)),
        fixed_steps_(config.pct_steps),
        prefix_(config.initial_prefix) {}

  std::optional<TestDirective> next() override {
    if (remaining_ == 0) return std::nullopt;
    --remaining_;
    TestDirective d;
    d.policy = SchedulePolicy::kPriority;
    d.seed = seed_++;
    d.prefix = prefix_;
    // d-1 change points, uniform among steps 1..k (distinct; fewer when k < d-1), in the order
    // drawn: the i-th lowers its thread to priority i.
    const std::uint64_t k = steps();
    std::uint64_t state = mix(d.seed ^ 0x5043545043545043ULL);
    for (std::uint32_t i = 1; i < depth_ && d.priority_changes.size() < k; ++i) {
      std::uint32_t step;
      do {
        state = mix(state + 0x9e3779b97f4a7c15ULL);
        step = static_cast<std::uint32_t>(1 + state % k);
      } while (std::find(d.priority_changes.begin(), d.priority_changes.end(), step) !=
               d.priority_changes.end());
      d.priority_changes.push_back(step);
    }
    d.inputs = inputs_.take_next();
    return d;
  }

  void observe(const Trace& trace) override {
    inputs_.observe(trace, seed_);
    longest_ = std::max<std::uint64_t>(longest_, trace.events.size());
    ThreadId most = 0;
    for (const Event& e : trace.events) most = std::max(most, e.thread);
    threads_ = std::max<std::uint64_t>(threads_, most + 1);
  }

  bool exhaustive() const override { return false; }
  const InputStatistics* input_statistics() const override { return &inputs_.statistics(); }

  std::string coverage() const override {
    if (threads_ == 0) return {};
    // 1/(n k^(d-1)), as "1 in N" (N rounded up) while it fits; with k measured, the longest
    // execution seen stands for k.
    const double k = static_cast<double>(std::max<std::uint64_t>(steps(), 1));
    const double one_in = static_cast<double>(threads_) * std::pow(k, depth_ - 1.0);
    char text[256];
    std::snprintf(text, sizeof text,
                  "PCT with depth %u: each execution finds a given bug of depth %u or less with "
                  "probability at least 1 in %.4g (n = %llu threads, k = %llu steps%s)",
                  depth_, depth_, std::ceil(one_in), static_cast<unsigned long long>(threads_),
                  static_cast<unsigned long long>(steps()),
                  fixed_steps_ ? "" : ", the longest execution seen");
    return text;
  }

 private:
  std::uint64_t steps() const { return fixed_steps_ ? fixed_steps_ : longest_; }

  std::uint64_t remaining_;
  std::uint64_t seed_;
  std::uint32_t depth_;
  std::uint64_t fixed_steps_;
  std::vector<ThreadId> prefix_;
  std::uint64_t longest_ = 0;  ///< events of the longest execution so far
  std::uint64_t threads_ = 0;  ///< the most threads one execution had
  RandomInputWalk inputs_;
};

}  // namespace

WEFT_STRATEGY_ROWS(
    pct, {"pct",
          "probabilistic concurrency testing: random thread priorities changed at --depth - 1 "
          "random steps; finds a bug of that depth with a known probability per execution, not "
          "exhaustive",
          80, ReadPolicy::kReadsCommute,
          kTakesExecutions | kTakesDepth | kWeakMemory | kExploresOptions, made<Pct>})

}  // namespace weft::explorer
