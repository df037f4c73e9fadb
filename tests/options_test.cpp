// The command line and the in-process API share one definition of the exploration's options
// (explorer::ExploreOptions): their defaults cannot drift apart. The options each front end
// keeps itself must agree where they mean the same thing.
#include <gtest/gtest.h>

#include "weft/driver/commands.hpp"
#include "weft/driver/verdict_text.hpp"
#include "weft/runtime/native_protocol.hpp"
#include "weft/weft.hpp"

namespace weft {
namespace {

TEST(Options, TheCommandLineAndTheApiHaveTheSameDefaults) {
  const Options api;
  const driver::ExploreSettings command_line;
  EXPECT_EQ(static_cast<const explorer::ExploreOptions&>(api),
            static_cast<const explorer::ExploreOptions&>(command_line));
  // The bound each front end hands to its runner: the API's own, the protocol's for programs.
  EXPECT_EQ(api.max_steps_per_thread, native::ProgramOptions{}.max_steps_per_thread);
  EXPECT_EQ(api.max_steps_per_thread, runtime::RunLimits{}.max_steps_per_thread);
  // What the options leave at its default is the loop's and the strategies' own default.
  const explorer::ExploreOptions defaults;
  const explorer::ExplorationLimits limits;
  EXPECT_EQ(explorer::exploration_limits(defaults).count_traces, limits.count_traces);
  EXPECT_EQ(explorer::exploration_limits(defaults).stop_on_first_bug, limits.stop_on_first_bug);
  EXPECT_EQ(explorer::strategy_config(defaults).strategy, explorer::StrategyConfig{}.strategy);
  EXPECT_EQ(explorer::strategy_config(defaults).estimate_size,
            explorer::StrategyConfig{}.estimate_size);
}

// One conversion makes the strategies' configuration from either front end's choice.
TEST(Options, AChoiceBecomesTheStrategysConfigurationAndTheLoopsLimits) {
  explorer::ExploreOptions choice;
  choice.strategy = explorer::StrategyKind::kPct;
  choice.sleep_sets = false;
  choice.search_deadlocks = true;
  choice.random_executions = 7;
  choice.seed = 9;
  choice.pct_depth = 4;
  choice.pct_steps = 50;
  choice.max_bound = 2;
  choice.max_seconds = 3.5;
  choice.estimate_size = true;
  choice.stop_on_first_bug = false;
  choice.max_executions = 11;
  choice.count_traces = true;
  const explorer::StrategyConfig config = explorer::strategy_config(choice);
  EXPECT_EQ(config.strategy, explorer::StrategyKind::kPct);
  EXPECT_FALSE(config.sleep_sets);
  EXPECT_TRUE(config.search_deadlocks);
  EXPECT_EQ(config.random_executions, 7u);
  EXPECT_EQ(config.seed, 9u);
  EXPECT_EQ(config.pct_depth, 4u);
  EXPECT_EQ(config.pct_steps, 50u);
  EXPECT_EQ(config.max_bound, 2u);
  EXPECT_EQ(config.time_budget, 3.5);
  EXPECT_TRUE(config.estimate_size);
  const explorer::ExplorationLimits limits = explorer::exploration_limits(choice);
  EXPECT_FALSE(limits.stop_on_first_bug);
  EXPECT_EQ(limits.max_executions, 11u);
  EXPECT_EQ(limits.max_seconds, 3.5);
  EXPECT_TRUE(limits.count_traces);
}

// One check of the exploration's options serves both front ends: the API refuses what the
// command line refuses, naming its own field.
TEST(Options, BothFrontEndsRefuseTheSameValues) {
  const auto problem = [](auto change) {
    explorer::ExploreOptions o;
    change(o);
    const auto p = explorer::problem_with(o);
    return p ? std::string(p->field) : std::string();
  };
  EXPECT_EQ(problem([](auto&) {}), "");
  EXPECT_EQ(problem([](auto& o) { o.max_seconds = -1; }), "max_seconds");
  EXPECT_EQ(problem([](auto& o) { o.max_seconds = 1e300; }), "max_seconds");
  EXPECT_EQ(problem([](auto& o) { o.pct_depth = 0; }), "pct_depth");
  EXPECT_EQ(problem([](auto& o) { o.strategy = explorer::StrategyKind{"no-such"}; }), "strategy");
  EXPECT_EQ(problem([](auto& o) { o.search_deadlocks = true; }), "search_deadlocks");
  EXPECT_EQ(problem([](auto& o) {
              o.search_deadlocks = true;
              o.strategy = explorer::StrategyKind::kContextualUnfolding;
            }),
            "");
  Options api;
  api.strategy = explorer::StrategyKind{"no-such"};
  try {
    explore(api, [] {});
    ADD_FAILURE() << "an unknown strategy was accepted";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("Options::strategy names no strategy"), std::string::npos)
        << e.what();
  }
}

// One text for why a verdict is incomplete serves both front ends: each reason has words, and
// the front end's own words (its option names) are where it says them.
TEST(VerdictText, EveryReasonHasWordsAndTheFrontEndsOwnAreUsed) {
  explorer::ExplorationResult r;
  r.coverage = "COVERAGE";
  r.uncovered = "deadlocks";
  driver::VerdictWords words;
  words.strategy = "STRATEGY";
  words.limits = "LIMITS";
  words.stop_on_first_bug = "FIRST";
  words.optimal_choice = "OPTIMAL";
  words.kernel_talk = "KERNEL";
  for (int k = static_cast<int>(explorer::Incompleteness::kUnsupported);
       k <= static_cast<int>(explorer::Incompleteness::kLimit); ++k) {
    const auto why = static_cast<explorer::Incompleteness>(k);
    if (why == explorer::Incompleteness::kUnsupported) continue;  // the run's own message
    EXPECT_FALSE(driver::incompleteness_text(why, r, words).empty()) << k;
  }
  EXPECT_EQ(driver::incompleteness_text(explorer::Incompleteness::kNone, r, words), "");
  const auto text = [&](explorer::Incompleteness why) {
    return driver::incompleteness_text(why, r, words);
  };
  EXPECT_EQ(text(explorer::Incompleteness::kLimit), "stopped by LIMITS; COVERAGE");
  EXPECT_EQ(text(explorer::Incompleteness::kStoppedAtFirstBug), "stopped at the first bug (FIRST)");
  EXPECT_NE(text(explorer::Incompleteness::kNotExhaustive).find("STRATEGY"), std::string::npos);
  EXPECT_NE(text(explorer::Incompleteness::kLocalStatesOnly).find("(use OPTIMAL for those)"),
            std::string::npos);
  EXPECT_NE(text(explorer::Incompleteness::kKernelCommunication).find("(KERNEL)"),
            std::string::npos);
}

}  // namespace
}  // namespace weft
