// The in-process API: bugs found, replayed, verdicts, misuse reported clearly.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "test_support.hpp"

namespace weft {
namespace {

void lost_update() {
  shared<int> x{0};
  thread t([&] { x = x + 1; });
  x = x + 1;
  t.join();
  WEFT_ASSERT(x == 2);
}

// The table of strategies (explorer/strategy.hpp), made from the files of src/explore/strategies,
// is the one place a strategy is named: the names are distinct and parse back to their row, each
// row makes its strategy, every built-in kind has a row, and the default comes first.
TEST(Strategies, EveryKindHasOneRowWithItsOwnName) {
  std::set<std::string> names;
  for (const auto& s : explorer::strategies()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_EQ(explorer::parse_strategy(s.name), s.kind());
    EXPECT_EQ(&explorer::strategy_info(s.kind()), &s);
    explorer::StrategyConfig config;
    config.strategy = s.kind();
    EXPECT_NE(explorer::make_strategy(config), nullptr) << s.name;
  }
  for (const StrategyKind kind :
       {StrategyKind::kDfs, StrategyKind::kDpor, StrategyKind::kDporCommutingReads,
        StrategyKind::kOptimalDpor, StrategyKind::kRandom, StrategyKind::kPct,
        StrategyKind::kPreemptionBound, StrategyKind::kDelayBound, StrategyKind::kPortfolio,
        StrategyKind::kEstimate, StrategyKind::kUnfolding, StrategyKind::kContextualUnfolding})
    EXPECT_EQ(names.count(std::string(kind.name())), 1u) << kind.name();
  EXPECT_EQ(explorer::strategies().front().kind(), Options{}.strategy);  // the default first
  EXPECT_FALSE(explorer::parse_strategy("unfolding-but-not-yet").has_value());
  EXPECT_THROW(explorer::strategy_info(StrategyKind{"unfolding-but-not-yet"}),
               std::invalid_argument);
  EXPECT_EQ(explorer::strategies_taking(explorer::kBuildsUnfolding), "unfolding or contextual");
}

TEST(Api, FindsALostUpdateWithEveryExhaustiveStrategy) {
  for (auto kind : testing::kExhaustive) {
    Options o;
    o.strategy = kind;
    const Result r = explore(o, lost_update);
    ASSERT_EQ(r.verdict, Verdict::kBugFound) << explorer::strategy_name(kind);
    ASSERT_EQ(r.bugs.size(), 1u);
    EXPECT_EQ(r.bugs[0].kind, Outcome::kAssertionFailure);
    EXPECT_NE(r.bugs[0].message.find("x == 2"), std::string::npos);
    EXPECT_NE(r.bugs[0].report.find("weft::replay"), std::string::npos);
  }
}

// A flag published with relaxed stores hands over nothing: the data may still read 0.
void relaxed_message_passing() {
  atomic<int> data{0}, flag{0};
  thread t([&] {
    data.store(1, std::memory_order_relaxed);
    flag.store(1, std::memory_order_relaxed);
  });
  if (flag.load(std::memory_order_relaxed) == 1)
    WEFT_ASSERT(data.load(std::memory_order_relaxed) == 1);
  t.join();
}

// The default memory model is the C/C++ one (RC11) with the strategies that explore it, and
// sequential consistency with the others; asking one of those for RC11 is a usage error.
TEST(Api, TheDefaultMemoryModelIsTheCppOneWhereTheStrategyExploresIt) {
  const Result by_default = explore(Options{}, relaxed_message_passing);
  EXPECT_EQ(by_default.memory_model, MemoryModel::kRc11);
  ASSERT_EQ(by_default.verdict, Verdict::kBugFound) << by_default.summary();
  EXPECT_NE(by_default.bugs[0].message.find("data.load"), std::string::npos)
      << by_default.bugs[0].message;

  Options sc;
  sc.memory_model = MemoryModel::kSequentialConsistency;
  const Result under_sc = explore(sc, relaxed_message_passing);
  EXPECT_EQ(under_sc.verdict, Verdict::kNoBugFound) << under_sc.summary();
  EXPECT_EQ(under_sc.memory_model, MemoryModel::kSequentialConsistency);

  Options unfolding;
  unfolding.strategy = StrategyKind::kUnfolding;
  const Result unfolded = explore(unfolding, relaxed_message_passing);
  EXPECT_EQ(unfolded.memory_model, MemoryModel::kSequentialConsistency);
  EXPECT_NE(unfolded.verdict, Verdict::kBugFound) << unfolded.summary();
  unfolding.memory_model = MemoryModel::kRc11;
  EXPECT_THROW(explore(unfolding, relaxed_message_passing), usage_error);
}

TEST(Api, ReplayReproducesTheBug) {
  const Result r = explore(lost_update);
  ASSERT_FALSE(r.ok());
  for (int i = 0; i < 3; ++i) {
    const Result again = replay(r.bugs[0].schedule, lost_update);
    ASSERT_EQ(again.bugs.size(), 1u);
    EXPECT_EQ(again.bugs[0].message, r.bugs[0].message);
    EXPECT_EQ(again.bugs[0].schedule, r.bugs[0].schedule);
  }
}

TEST(Api, RandomSchedulingFindsTheBugButNeverClaimsCompleteness) {
  Options o;
  o.strategy = StrategyKind::kRandom;
  o.random_executions = 200;
  const Result found = explore(o, lost_update);
  EXPECT_EQ(found.verdict, Verdict::kBugFound);
  const Result clean = explore(o, [] {
    mutex m;
    thread t([&] { std::lock_guard<mutex> g(m); });
    t.join();
  });
  EXPECT_EQ(clean.verdict, Verdict::kIncomplete);
  EXPECT_EQ(clean.stats.executions, 200u);
}

TEST(Api, CollectsEveryDistinctBugWhenAsked) {
  Options o = testing::with(StrategyKind::kOptimalDpor);
  const Result r = explore(o, [] {
    shared<int> x{0};
    thread t([&] { x = 1; });
    const int seen = x;
    t.join();
    WEFT_ASSERT(seen == 1);  // fails when the read comes first
    WEFT_ASSERT(seen == 0);  // fails when the write comes first
  });
  EXPECT_EQ(r.bugs.size(), 2u);
}

TEST(Api, ReplayOfAScheduleThatDoesNotFitIsAClearError) {
  try {
    replay("w1:0*2,0.7", lost_update);
    FAIL() << "expected replay_error";
  } catch (const replay_error& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
  }
  EXPECT_THROW(replay("garbage", lost_update), replay_error);
  EXPECT_THROW(replay("w1:0*200", lost_update), replay_error);
}

TEST(Api, PrimitivesOutsideExploreThrowUsageError) {
  try {
    mutex m;
    FAIL() << "expected usage_error";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("outside weft::explore"), std::string::npos);
  }
  EXPECT_THROW(shared<int>{1}, usage_error);
  EXPECT_THROW(thread([] {}), usage_error);
}

TEST(Api, NestedExploreIsRefused) {
  const Result r = explore([] { (void)explore([] {}); });
  ASSERT_EQ(r.bugs.size(), 1u);
  EXPECT_EQ(r.bugs[0].kind, Outcome::kUncaughtException);
  EXPECT_NE(r.bugs[0].message.find("usage_error"), std::string::npos);
}

TEST(Api, AtomicsAreScheduledAndCorrect) {
  const Result r = explore(testing::with(StrategyKind::kOptimalDpor), [] {
    atomic<int> n{0};
    thread a([&] { n.fetch_add(1); });
    thread b([&] { ++n; });
    a.join();
    b.join();
    WEFT_ASSERT(n.load() == 2);
  });
  EXPECT_EQ(r.verdict, Verdict::kNoBugFound);
  EXPECT_EQ(r.stats.traces, 2u);  // the two orders of the increments
}

TEST(Api, CompareExchangeSpinLockIsCorrect) {
  const Result r = explore(testing::with(StrategyKind::kOptimalDpor), [] {
    atomic<bool> locked{false};
    shared<int> data{0};
    auto critical = [&] {
      bool expected = false;
      while (!locked.compare_exchange_strong(expected, true)) {
        expected = false;
        yield();
      }
      data = data + 1;
      locked.store(false);
    };
    thread a(critical);
    thread b(critical);
    a.join();
    b.join();
    WEFT_ASSERT(data == 2);
  });
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.bugs[0].report);
}

}  // namespace
}  // namespace weft
