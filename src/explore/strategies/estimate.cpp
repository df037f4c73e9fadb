// An exhaustive strategy with Knuth's estimate of its size beside it (size_estimate.hpp): a few
// random walks of the sleep-set tree before its first execution, then 16 walks after every 320
// of its executions, so that the estimate sharpens as the search goes on for about 5% more
// executions. The walks' traces go to the estimate only: the search explores as it would alone.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "strategies.hpp"
#include "weft/explore/size_estimate.hpp"

namespace weft::explorer {
namespace {

constexpr std::uint64_t kFirstWalks = 32;
constexpr std::uint64_t kExecutionsPerWalk = 20;
// The walks come in batches: an execution after a walk starts from scratch (the thread model
// resumes an execution from the one before only if they share a prefix). On the thesis'
// Locking 3 (--points=all, 113,400 executions), a walk after every twentieth execution made
// optimal DPOR take 1.07 s instead of 0.76; in batches of 16, 0.81 s instead of 0.73.
constexpr std::uint64_t kWalkBatch = 16;
// The walks' share of the time: the first kFreeWalkSeconds freely (a program whose executions
// take microseconds makes its 32 first walks in milliseconds), then at most a tenth of the time
// run so far, so that a program whose executions take seconds still gives the search the rest.
constexpr double kFreeWalkSeconds = 0.2;
constexpr double kWalkShare = 0.1;
// After the first walks, a search estimated to end within this many seconds at its rate so far
// gets no more: nobody waits for a better estimate (or reads a progress line) of so short a
// search, and the walks, real executions where the search's are often computed, would make it
// slower than alone (readers12: 1.8 times; Locking 3: 1.1 times).
constexpr double kShortSearchSeconds = 1.0;

using Clock = std::chrono::steady_clock;

std::string percent(double p) {
  char text[32];
  std::snprintf(text, sizeof text, p < 10 ? "%.1f" : "%.0f", p);
  return text;
}

// How far off the estimate may be, and from how many walks: "±16%, from 528 random walks".
std::string error_text(const SizeEstimate& estimate) {
  const double error = estimate.relative_error();
  return (std::isfinite(error) ? "±" + percent(100 * error) + "%" : std::string("any amount")) +
         ", from " + std::to_string(estimate.walks()) + " random walks";
}

// The walks' first seed: apart from the seeds of the search's own random choices.
std::uint64_t first_walk_seed(const StrategyConfig& config) {
  return config.seed * 0x9e3779b97f4a7c15ULL + 0x57a1c0deULL;
}

class EstimatingSearch final : public Strategy {
 public:
  EstimatingSearch(std::unique_ptr<Strategy> search, const StrategyConfig& config,
                   ReadPolicy policy)
      : search_(std::move(search)), walks_(policy), seed_(first_walk_seed(config)) {}

  std::optional<TestDirective> next() override {
    if (done_) return std::nullopt;
    const std::uint64_t batches = executions_ / (kExecutionsPerWalk * kWalkBatch);
    step_started_ = Clock::now();
    const double walks_allowed =
        std::max(kFreeWalkSeconds, kWalkShare * (walk_seconds_ + search_seconds_));
    const std::uint64_t walks = walks_.estimate().walks();
    if ((walks < kFirstWalks || (walks < kFirstWalks + batches * kWalkBatch && !short_search())) &&
        walk_seconds_ < walks_allowed) {
      walking_ = true;
      return walks_.next(seed_++);
    }
    walking_ = false;
    auto d = search_->next();
    if (!d) done_ = true;
    return d;
  }
  void observe(const Trace& trace) override {
    const double seconds = std::chrono::duration<double>(Clock::now() - step_started_).count();
    if (walking_) {
      walk_seconds_ += seconds;
      walks_.observe(trace);
      return;
    }
    search_seconds_ += seconds;
    ++executions_;
    search_->observe(trace);
  }

  bool exhaustive() const override { return search_->exhaustive(); }
  std::string coverage() const override {
    const double estimate = walks_.estimate().executions();
    if (done_) return search_->coverage();
    if (estimate <= 0) {
      const std::string search = search_->coverage();
      return (search.empty() ? "" : search + "; ") + "the search ran " +
             std::to_string(executions_) + " executions, and there is no estimate of the rest: " +
             (walks_.estimate().walks() == 0
                  ? std::string("no random walk ran (the walks may take a tenth of the time)")
                  : "each of the " + std::to_string(walks_.estimate().walks()) +
                        " random walks ended sleep-set blocked");
    }
    // The estimate is low more often than high (a few walks with large weights carry it).
    if (static_cast<double>(executions_) >= estimate)
      return "the search ran " + std::to_string(executions_) + " executions, more than the " +
             approximate_count(estimate) +
             " it was estimated to need: how many are left is unknown";
    return "the search ran " + std::to_string(executions_) + " executions of an estimated " +
           approximate_count(estimate) + " (" +
           percent(100.0 * static_cast<double>(executions_) / estimate) +
           "%; the estimate may be off by " + error_text(walks_.estimate()) + ")";
  }
  const SizeEstimate* size_estimate() const override { return &walks_.estimate(); }
  const InputStatistics* input_statistics() const override { return search_->input_statistics(); }
  const UnfoldingView* unfolding() const override { return search_->unfolding(); }
  const char* uncovered() const override { return search_->uncovered(); }
  std::string gaps() const override { return search_->gaps(); }

 private:
  // Whether the search, at its rate so far, is estimated to end within kShortSearchSeconds (and
  // has not run past its estimate, whose size is then unknown).
  bool short_search() const {
    const double estimate = walks_.estimate().executions();
    const auto done = static_cast<double>(executions_);
    if (executions_ == 0 || estimate <= done) return false;
    return (estimate - done) * (search_seconds_ / done) < kShortSearchSeconds;
  }

  std::unique_ptr<Strategy> search_;
  SleepSetWalks walks_;
  std::uint64_t seed_;
  std::uint64_t executions_ = 0;  // the search's, walks not counted
  double walk_seconds_ = 0, search_seconds_ = 0;
  Clock::time_point step_started_;
  bool walking_ = false;
  bool done_ = false;
};

// `--strategy estimate`: the walks alone, and what they say about optimal DPOR.
class SizeEstimateWalks final : public Strategy {
 public:
  explicit SizeEstimateWalks(const StrategyConfig& config)
      : count_(config.random_executions),
        walks_(strategy_info(StrategyKind::kOptimalDpor).read_policy),
        seed_(first_walk_seed(config)),
        started_(std::chrono::steady_clock::now()) {}

  std::optional<TestDirective> next() override {
    if (walks_.estimate().walks() >= count_) return std::nullopt;
    return walks_.next(seed_++);
  }
  void observe(const Trace& trace) override { walks_.observe(trace); }
  bool exhaustive() const override { return false; }
  std::string coverage() const override {
    const double estimate = walks_.estimate().executions();
    if (estimate <= 0)
      return "every random walk so far ended sleep-set blocked: no estimate yet (give more "
             "--executions)";
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count() /
        static_cast<double>(walks_.estimate().walks()) * estimate;
    return "optimal DPOR would run an estimated " + approximate_count(estimate) +
           " executions (may be off by " + error_text(walks_.estimate()) + "), about " +
           approximate_duration(seconds) + " at the walks' rate";
  }
  const SizeEstimate* size_estimate() const override { return &walks_.estimate(); }

 private:
  std::uint64_t count_;
  SleepSetWalks walks_;
  std::uint64_t seed_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace

std::unique_ptr<Strategy> with_size_estimate(std::unique_ptr<Strategy> search,
                                             const StrategyConfig& config, ReadPolicy policy) {
  return std::make_unique<EstimatingSearch>(std::move(search), config, policy);
}

WEFT_STRATEGY_ROWS(estimate,
                   {"estimate",
                    "only estimate how many executions optimal DPOR would run, from --executions "
                    "random walks (Knuth's estimator)",
                    130, ReadPolicy::kReadsCommute, kTakesExecutions, made<SizeEstimateWalks>})

}  // namespace weft::explorer
