// The lockset check (--lockset) against happens-before over every interleaving: on random
// programs that mostly break the locking discipline, every location that some execution runs as
// a data race (two accesses, one a write, that neither program order, thread creation, joins nor
// a mutex released and then taken orders) is reported by --lockset from the executions optimal
// DPOR runs.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "random_program.hpp"
#include "weft/explore/strategy.hpp"
#include "weft/runtime/scheduler.hpp"
#include "weft/trace/vector_clock.hpp"
#include "weft/weft.hpp"

namespace weft::testing {
namespace {

// The locations some access of `t` races on, by happens-before (the oracle).
void races_of(const Trace& t, std::set<std::string>& racy) {
  struct Access {
    ThreadId thread;
    bool write;
    VectorClock clock;
  };
  std::vector<VectorClock> clock(64);
  std::map<ObjectKey, VectorClock> released;  // by mutex: the clock of its last release
  std::map<ObjectKey, std::vector<Access>> accesses;
  for (const Event& e : t.events) {
    VectorClock& c = clock.at(e.thread);
    c.set(e.thread, c[e.thread] + 1);
    const Operation& op = e.op;
    if (op.kind == OpKind::kThreadCreate) {
      clock.at(op.object) = c;
    } else if (op.kind == OpKind::kThreadJoin) {
      c.join(clock.at(op.object));
    } else if (acquires_mutex(op)) {
      c.join(released[mutex_of(op)]);
    } else if (releases_mutex(op)) {
      released[mutex_of(op)] = c;
    } else if (op.kind == OpKind::kRead || op.kind == OpKind::kWrite) {
      const bool write = op.kind == OpKind::kWrite;
      auto& past = accesses[op.object];
      for (const Access& a : past)
        if (a.thread != e.thread && (a.write || write) && !a.clock.leq(c))
          racy.insert(object_name(op.object));
      past.push_back({e.thread, write, c});
    }
  }
}

class LocksetDifferential : public ::testing::TestWithParam<int> {};

TEST_P(LocksetDifferential, ReportsEveryLocationSomeInterleavingRacesOn) {
  int racy_programs = 0;
  for (int i = 0; i < 10; ++i) {
    const std::uint64_t seed = static_cast<std::uint64_t>(GetParam()) * 10 + i;
    const Program p = generate_program(seed, 5000);
    // The oracle: every interleaving (DFS without sleep sets), happens-before in each.
    explorer::StrategyConfig c;
    c.strategy = StrategyKind::kDfs;
    c.sleep_sets = false;
    auto dfs = explorer::make_strategy(c);
    ThreadRegistry threads;
    runtime::Scheduler scheduler(threads);
    std::set<std::string> racy;
    Observed ignored;
    std::uint64_t runs = 0;
    while (auto d = dfs->next()) {
      const Trace t = scheduler.run(
          *d, [&] { run_program(p, ignored); }, runtime::RunLimits{});
      races_of(t, racy);
      dfs->observe(t);
      if (++runs == 20000) break;
    }
    if (runs == 20000) continue;
    racy_programs += !racy.empty();
    Options o;
    o.lockset = true;
    const ProgramRun r = explore_program(p, o);
    std::set<std::string> reported;
    for (const Bug& b : r.result.bugs)
      if (b.kind == Outcome::kLockDiscipline) {
        const std::size_t on = b.message.find(" on ") + 4;
        reported.insert(b.message.substr(on, b.message.find(':', on) - on));
      }
    SCOPED_TRACE("seed " + std::to_string(seed) + ":\n" + p.describe());
    for (const std::string& location : racy)
      EXPECT_TRUE(reported.count(location)) << location << " races but is not reported";
  }
  RecordProperty("racy", racy_programs);
}

INSTANTIATE_TEST_SUITE_P(Seeds, LocksetDifferential, ::testing::Range(0, 200));

}  // namespace
}  // namespace weft::testing
