// The verdict is decided in one place (explorer::decide) for every front end: each reason an
// exploration can be incomplete, and the order in which they are told.
#include "weft/explore/verdict.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace weft::explorer {
namespace {

// A run of an exhaustive strategy that finished: nothing kept it from covering everything.
ExplorationResult finished() {
  ExplorationResult r;
  r.exhausted = true;
  r.stats.executions = 4;
  return r;
}

FoundBug a_bug() {
  FoundBug b;
  b.message = "assertion failed";
  return b;
}

Incompleteness why(const ExplorationResult& r, bool exhaustive = true,
                   const ExplorationLimits& limits = {}) {
  return decide(r, exhaustive, limits).why;
}

TEST(Verdict, AFinishedExplorationIsNoBugAndABugIsABug) {
  EXPECT_EQ(decide(finished(), true, {}).verdict, Verdict::kNoBugFound);
  EXPECT_TRUE(decide(finished(), true, {}).complete());
  ExplorationResult r = finished();
  r.bugs.push_back(a_bug());
  EXPECT_EQ(decide(r, true, {}).verdict, Verdict::kBugFound);
  EXPECT_TRUE(decide(r, true, {}).complete());  // --all-bugs: and the rest was covered
}

TEST(Verdict, EachReasonHasItsCode) {
  ExplorationResult r = finished();
  r.hit_bound = true;
  r.stats.bound_reached = 1;
  EXPECT_EQ(why(r), Incompleteness::kWithinBounds);
  r.stats.timeouts = 1;  // an execution that ran out of time is not "within a bound"
  EXPECT_EQ(why(r), Incompleteness::kCutShort);

  r = finished();
  r.fixed_inputs = true;
  EXPECT_EQ(why(r), Incompleteness::kFixedInputs);

  r = finished();
  r.stats.inputs.concretisations = 1;
  EXPECT_EQ(why(r), Incompleteness::kInputGaps);

  r = finished();
  r.unrestored_state.insert("setuid");
  EXPECT_EQ(why(r), Incompleteness::kUnrestoredState);

  EXPECT_EQ(why(finished(), /*exhaustive=*/false), Incompleteness::kNotExhaustive);
  // A sampling strategy that ran its executions explored not every interleaving: the caveats
  // that say "every interleaving was explored, but ..." are not its reason.
  r = finished();
  r.caveats.insert(Caveat{CaveatKind::kUnseenLibrary, "libuv.so.1"});
  r.caveats.insert(Caveat{CaveatKind::kKernelCommunication, "mq_send"});
  r.fixed_inputs = true;
  r.unrestored_state.insert("setuid");
  EXPECT_EQ(why(r), Incompleteness::kFixedInputs);
  EXPECT_EQ(why(r, /*exhaustive=*/false), Incompleteness::kNotExhaustive);

  r = finished();
  r.exhausted = false;
  r.bugs.push_back(a_bug());
  ExplorationLimits first;
  first.stop_on_first_bug = true;
  EXPECT_EQ(why(r, true, first), Incompleteness::kStoppedAtFirstBug);
  ExplorationLimits chosen;
  chosen.stop_on_first_bug = false;
  chosen.stop_at = [](const FoundBug& b) { return b.message == "assertion failed"; };
  EXPECT_EQ(why(r, true, chosen), Incompleteness::kStoppedAtChosenBug);

  r = finished();
  r.exhausted = false;
  EXPECT_EQ(why(r), Incompleteness::kLimit);
  EXPECT_EQ(decide(r, true, {}).verdict, Verdict::kIncomplete);

  r = finished();
  r.exhausted = false;
  r.unsupported = "the program called fork";
  EXPECT_EQ(why(r), Incompleteness::kUnsupported);
  EXPECT_EQ(decide(r, true, {}).verdict, Verdict::kUnsupported);
}

// A run with several reasons reports the one that matters most to the reader: what weft cannot
// model first, then what the bounds left out, before inputs and limits.
TEST(Verdict, TheWeightierReasonIsTold) {
  ExplorationResult r = finished();
  r.exhausted = false;
  r.hit_bound = true;
  r.fixed_inputs = true;
  EXPECT_EQ(why(r), Incompleteness::kCutShort);
  r.unsupported = "fork";
  EXPECT_EQ(why(r), Incompleteness::kUnsupported);
}

TEST(Verdict, CodesAreDistinctAndStable) {
  EXPECT_EQ(std::string(incompleteness_code(Incompleteness::kNone)), "");
  EXPECT_EQ(std::string(incompleteness_code(Incompleteness::kWithinBounds)), "within-bounds");
  EXPECT_EQ(std::string(incompleteness_code(Incompleteness::kCutShort)), "cut-short");
  EXPECT_EQ(std::string(incompleteness_code(Incompleteness::kLimit)), "limit");
  std::set<std::string> seen;
  for (int i = 0; i <= static_cast<int>(Incompleteness::kLimit); ++i)
    EXPECT_TRUE(seen.insert(incompleteness_code(static_cast<Incompleteness>(i))).second) << i;
}

}  // namespace
}  // namespace weft::explorer
