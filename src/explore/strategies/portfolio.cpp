// The portfolio (`weft check --time-limit T` without --strategy): optimal DPOR alone when its
// estimated size says it will finish in time, else the time shared between it and the
// strategies that find bugs fast in programs too big to explore (Thomson, Donaldson, Betts,
// PPoPP 2014: PCT and delay bounding found most bugs of their benchmarks within few
// executions). docs/strategies.md describes the policy.
//
// How: optimal DPOR runs with its estimate (estimating_search.cpp) until it has made kProbe
// executions. If the estimated executions at the rate measured so far need more than half the
// time left (the estimate may be off by a factor of two), or, once it has run more executions
// than estimated (the estimate errs low when it errs), as many again as it has run would, the
// remaining time is shared: each next test
// goes to the part that has used the least of its share. Alone, the decision is taken again
// every kRecheck executions, as the estimate sharpens. Optimal DPOR, and delay
// bounding once it has run every schedule, cover everything when they finish: then so has the
// portfolio.
#include <chrono>
#include <cstdio>
#include <limits>

#include "strategies.hpp"

namespace weft::explorer {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kProbe = 64;
constexpr std::uint64_t kRecheck = 256;

class Portfolio final : public Strategy {
 public:
  explicit Portfolio(const StrategyConfig& config) : budget_(config.time_budget) {
    StrategyConfig search = config;
    search.strategy = StrategyKind::kOptimalDpor;
    search.estimate_size = true;
    add("optimal DPOR", 2, make_strategy(search));
    StrategyConfig pct = config;
    pct.strategy = StrategyKind::kPct;
    pct.random_executions = std::numeric_limits<std::uint64_t>::max();
    pct.initial_prefix.clear();
    for (std::uint32_t depth : {2u, 3u}) {
      pct.pct_depth = depth;
      add(depth == 2 ? "PCT depth 2" : "PCT depth 3", 1, make_strategy(pct));
    }
    StrategyConfig delays = config;
    delays.strategy = StrategyKind::kDelayBound;
    delays.initial_prefix.clear();
    add("delay bounding", 2, make_strategy(delays));
    // With every shared access an event, stateful testing (thesis §7.3) can finish where the
    // interleavings are too many: states that orders of dependent steps meet again are cut
    // (Locking 4: 7.5 million executions for optimal DPOR, 1.6 s stateful). It gives up, and
    // leaves its time to the others, on a program whose state it cannot hold.
    if (config.every_access_an_event) {
      StrategyConfig stateful = config;
      stateful.strategy = StrategyKind{"stateful"};
      stateful.initial_prefix.clear();
      add("stateful testing", 2, make_strategy(stateful));
      parts_.back().gives_up = true;
    }
    started_ = Clock::now();
  }

  std::optional<TestDirective> next() override {
    if (finished_) return std::nullopt;
    const auto now = Clock::now();
    if (!shared_ && parts_[0].executions >= next_decision_) decide(now);
    for (;;) {
      Part* part = shared_ ? least_used() : &parts_[0];
      if (!part) {
        finished_ = within_bounds_;  // what was covered within the bounds stands
        return std::nullopt;
      }
      auto d = part->strategy->next();
      if (!d) {
        part->exhausted = true;
        // Exhausting an exhaustive part covered every behaviour: the portfolio is done. (Not
        // one that gave up on what it could not cover: the others go on.)
        if (part->strategy->exhaustive() && !(part->gives_up && !part->strategy->gaps().empty())) {
          // Covered within the bounds only: a part that matches states may still close the
          // cycles the bound cut (no other part can add anything within the bounds).
          if (part->bounds_left_out && !within_bounds_ && only_state_matching_left()) {
            within_bounds_ = part;
            shared_ = true;
            continue;
          }
          finished_ = part;
          return std::nullopt;
        }
        shared_ = true;  // the others go on
        continue;
      }
      current_ = part;
      step_started_ = now;
      return d;
    }
  }

  void observe(const Trace& trace) override {
    current_->seconds += std::chrono::duration<double>(Clock::now() - step_started_).count();
    ++current_->executions;
    if (observe_and_tell_bound_gap(*current_->strategy, trace)) current_->bounds_left_out = true;
  }

  bool answer_covers_bounds() const override { return finished_ && !finished_->bounds_left_out; }

  // It covers every behaviour when a part finishes (finished_); cut short, coverage() says what.
  bool exhaustive() const override { return true; }

  std::string coverage() const override {
    if (finished_) return {};
    std::string out;
    if (!shared_) {
      const SizeEstimate* estimate = parts_[0].strategy->size_estimate();
      out = std::string("optimal DPOR had all the time (") +
            (estimate && estimate->executions() > 0
                 ? "its estimated size fit in it"
                 : "no estimate of its size said that it would not fit") +
            "): " + parts_[0].strategy->coverage();
    } else {
      double total = 0;
      for (const Part& p : parts_) total += p.seconds;
      out = "the time was shared, as optimal DPOR was not estimated to finish in it: ";
      for (std::size_t i = 0; i < parts_.size(); ++i) {
        const Part& p = parts_[i];
        char head[160];
        std::snprintf(head, sizeof head, "%s%s had %.0f%% of the time and %llu executions",
                      i ? "; " : "", p.name, total > 0 ? 100 * p.seconds / total : 0.0,
                      static_cast<unsigned long long>(p.executions));
        out += head;
        const std::string covered = p.strategy->coverage();
        if (!covered.empty()) out += " (" + covered + ")";
      }
    }
    return out;
  }

  const SizeEstimate* size_estimate() const override { return parts_[0].strategy->size_estimate(); }
  // The part that covered everything says so in the verdict: "(answered by stateful testing)".
  std::string answered_by() const override { return finished_ ? finished_->name : ""; }
  const StateMatching* state_matching() const override {
    for (const Part& p : parts_)
      if (const StateMatching* m = p.strategy->state_matching(); m && p.executions) return m;
    return nullptr;
  }
  // Of the part that covered everything, if one did (the verdict checks its input paths);
  // else optimal DPOR's.
  const InputStatistics* input_statistics() const override {
    return (finished_ ? finished_ : &parts_[0])->strategy->input_statistics();
  }
  std::string gaps() const override {
    return (finished_ ? finished_ : &parts_[0])->strategy->gaps();
  }
  void set_deadline(Deadline deadline) override {
    for (Part& p : parts_) p.strategy->set_deadline(deadline);
  }

 private:
  struct Part {
    const char* name;
    double share;  // relative to the others'
    std::unique_ptr<Strategy> strategy;
    double seconds = 0;
    std::uint64_t executions = 0;
    bool exhausted = false;
    bool gives_up = false;  // it may end with gaps (what it cannot cover): not the portfolio's end
    bool bounds_left_out = false;  // an execution of it stopped at a bound below no cut-off
  };

  // Whether a part that matches states is still going: the others are then done, since every
  // behaviour within the bounds has been covered. Marks them exhausted.
  bool only_state_matching_left() {
    bool any = false;
    for (const Part& p : parts_) any |= !p.exhausted && p.strategy->state_matching() != nullptr;
    if (!any) return false;
    for (Part& p : parts_)
      if (!p.strategy->state_matching()) p.exhausted = true;
    return true;
  }

  void add(const char* name, double share, std::unique_ptr<Strategy> strategy) {
    parts_.push_back({name, share, std::move(strategy)});
  }

  // Whether optimal DPOR, at the rate it ran so far, is estimated to need more than half of the
  // time left; if so, the time is shared from now on.
  void decide(Clock::time_point now) {
    next_decision_ = parts_[0].executions + kRecheck;
    const SizeEstimate* estimate = parts_[0].strategy->size_estimate();
    if (budget_ <= 0 || !estimate || estimate->executions() <= 0) return;
    const double left = budget_ - std::chrono::duration<double>(now - started_).count();
    const double per_execution = parts_[0].seconds / static_cast<double>(parts_[0].executions);
    const double to_go = estimate->executions() - static_cast<double>(parts_[0].executions);
    // Past its estimate the search's size is unknown (the estimate errs low when it errs): it
    // keeps the time alone while as much again as it has done would fit in half the time left.
    // (Sharing as soon as it passed the estimate made a search that optimal DPOR alone ends in
    // 0.1 s take 2.5 times as long: the thesis' Fib 1, estimated at 15,000 of 19,605.)
    const double needed = to_go > 0 ? to_go * per_execution : parts_[0].seconds;
    if (needed > left / 2) shared_ = true;
  }

  // The part that has used the least of its share of the time, of those not exhausted.
  Part* least_used() {
    Part* best = nullptr;
    for (Part& p : parts_)
      if (!p.exhausted && (!best || p.seconds / p.share < best->seconds / best->share)) best = &p;
    return best;
  }

  double budget_;
  std::vector<Part> parts_;
  Clock::time_point started_, step_started_;
  Part* current_ = nullptr;
  std::uint64_t next_decision_ = kProbe;
  bool shared_ = false;
  const Part* finished_ = nullptr;  ///< the exhaustive part that finished, if one did
  /// The exhaustive part that finished with executions cut at a bound, while a part that
  /// matches states went on to close what the bound cut.
  const Part* within_bounds_ = nullptr;
};

}  // namespace

WEFT_STRATEGY_ROWS(
    portfolio,
    {"portfolio",
     "optimal DPOR if its estimated size fits in --time-limit, else the time shared with pct "
     "(depths 2 and 3), delay-bound and, with --points=all, stateful; the default when "
     "--time-limit is given",
     120, ReadPolicy::kReadsCommute, kTakesExecutions | kTakesTimeBudget | kMatchesStatesWhenItCan,
     made<Portfolio>})

}  // namespace weft::explorer
