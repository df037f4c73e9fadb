// Reachability testing (strategies/reachability.cpp) against exhaustive DFS on random programs
// with locks, semaphores, a condition variable and channels: it reaches the same local states,
// final states, assertion failures and deadlocks, and runs no SYN-sequence twice (checked by a
// fingerprint of each complete execution's sequence: per line, which call completed at each
// place).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "../src/explore/reachability/syn_sequence.hpp"
#include "random_program.hpp"
#include "test_support.hpp"
#include "weft/explore/exploration.hpp"
#include "weft/runtime/scheduler.hpp"
#include "weft/weft.hpp"

namespace weft::testing {
namespace {

struct StrategyRun {
  Observed observed;
  Result result;
};

StrategyRun run(const Program& p, StrategyKind kind, bool pv = false) {
  StrategyRun r;
  Options o;
  o.strategy = kind;
  o.stop_on_first_bug = false;
  o.pv_reduction = pv;
  r.result = explore(o, [&] { run_program(p, r.observed); });
  for (const auto& b : r.result.bugs) r.observed.bugs.insert(b.message);
  return r;
}

// Each complete execution's SYN-sequence, as a fingerprint, with how often it ran.
std::map<std::vector<std::uint64_t>, int> sequences_run(const Program& p) {
  auto strategy = explorer::make_strategy([] {
    explorer::StrategyConfig c;
    c.strategy = StrategyKind{"reachability"};
    return c;
  }());
  ThreadRegistry threads;
  runtime::Scheduler scheduler(threads);
  explorer::reachability::Lines lines;
  std::map<std::vector<std::uint64_t>, int> seen, first_run;
  int runs = 0;
  Observed observed;
  while (auto d = strategy->next()) {
    const Trace t = scheduler.run(*d, [&] { run_program(p, observed); }, runtime::RunLimits{});
    strategy->observe(t);
    if (t.outcome == Outcome::kSleepBlocked || t.diverged_at) {
      ++runs;
      continue;
    }
    const explorer::reachability::SynSequence q(t, lines);
    std::map<ObjectKey, std::vector<std::uint64_t>> by_line;
    for (const auto& e : q.events())
      if (e.line) by_line[e.line].push_back(std::uint64_t{e.call.thread} << 32 | e.call.index);
    std::vector<std::uint64_t> fingerprint;
    for (const auto& [line, calls] : by_line) {
      fingerprint.push_back(line);
      fingerprint.insert(fingerprint.end(), calls.begin(), calls.end());
    }
    ++runs;
    if (++seen[fingerprint] > 1 && std::getenv("WEFT_RT_DEBUG"))
      std::fprintf(stderr, "DUPLICATE of run #%d\n", first_run[fingerprint]);
    if (!first_run.count(fingerprint)) first_run[fingerprint] = runs;
  }
  return seen;
}

class ReachabilityDifferential : public ::testing::TestWithParam<int> {};

TEST_P(ReachabilityDifferential, ReachesWhatDfsReachesEachSequenceOnce) {
  const auto seed = static_cast<std::uint64_t>(GetParam());
  for (const auto generate :
       {generate_blocking_program, generate_channel_program, generate_lock_program}) {
    const Program p = generate(seed);
    const auto where = [&] { return "seed " + std::to_string(seed) + ", program:\n" + p.describe(); };
    const StrategyRun oracle = run(p, StrategyKind::kDfs);
    for (const bool pv : {false, true}) {
      const StrategyRun r = run(p, StrategyKind{"reachability"}, pv);
      EXPECT_EQ(r.observed.local_states, oracle.observed.local_states) << pv << where();
      EXPECT_EQ(r.observed.final_states, oracle.observed.final_states) << pv << where();
      EXPECT_EQ(r.observed.bugs, oracle.observed.bugs) << pv << where();
      EXPECT_EQ(r.result.stats.diverged, 0u) << pv << where();
    }
    if (!std::getenv("WEFT_RT_NO_DUPLICATES")) {
      for (const auto& [fingerprint, times] : sequences_run(p))
        EXPECT_EQ(times, 1) << "a sequence ran " << times << " times; " << where();
    }
    if (::testing::Test::HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, ReachabilityDifferential, ::testing::Range(0, 300));

}  // namespace
}  // namespace weft::testing
