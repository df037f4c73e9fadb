// ExitBlock and ExitBlock-RW (strategies/exitblock.cpp) on the programs of Bruening and Chapin's
// paper: the trees of schedules of Figs. 4, 7 and 9, path by path in the order of the search, and
// SplitSync (Fig. 1) failing on the third schedule.
//
// Each numbered "<arbitrary code>" section of a figure appends its number to a log when it runs
// (a plain vector: fibers run one at a time), so an execution reads as the paper writes a path.
// The figures' threads are started by main, which then ends (as Java's main thread does), so that
// only they have atomic blocks.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "weft/explore/strategy.hpp"
#include "weft/runtime/scheduler.hpp"
#include "weft/weft.hpp"

namespace weft {
namespace {

struct Path {
  std::vector<int> sections;
  bool complete;          // false: undone where a lock could not be taken (an X of the figures)
  bool deadlock = false;  // a run into a deadlock the analysis predicted (§6)
  friend bool operator==(const Path&, const Path&) = default;
};

void PrintTo(const Path& p, std::ostream* os) {
  for (int s : p.sections) *os << s << ",";
  *os << (p.deadlock ? "deadlock" : p.complete ? "" : "X");
}

// Every execution of `strategy` on `body`, as the sections it ran.
std::vector<Path> paths(const char* strategy, const std::function<void(std::vector<int>&)>& body,
                        bool deadlocks = false) {
  explorer::StrategyConfig config;
  config.strategy = StrategyKind{strategy};
  config.search_deadlocks = deadlocks;
  auto s = explorer::make_strategy(config);
  ThreadRegistry threads;
  runtime::Scheduler scheduler(threads);
  std::vector<Path> out;
  std::vector<int> log;
  while (auto d = s->next()) {
    log.clear();
    const Trace t = scheduler.run(
        *d, [&] { body(log); }, runtime::RunLimits{});
    s->observe(t);
    out.push_back({log, t.outcome == Outcome::kComplete, t.outcome == Outcome::kDeadlock});
  }
  return out;
}

// Section `n` runs: a yield (a visible operation that ends no block) makes the log follow the
// order in which weft schedules the sections, not the order in which threads run ahead through
// their local code.
void mark(std::vector<int>& log, int n) {
  yield();
  log.push_back(n);
}

// Runs one thread of a figure, written as the paper lists it: a number is a section (marked),
// "a(" and "b(" take mutex a or b, ")a" and ")b" release it, "w" writes x and "r" reads it.
void run_listing(const std::string& listing, std::vector<int>& log, mutex& a, mutex& b,
                 shared<int>& x) {
  std::istringstream in(listing);
  for (std::string token; in >> token;) {
    if (token == "a(" || token == "b(")
      (token[0] == 'a' ? a : b).lock();
    else if (token == ")a" || token == ")b")
      (token[1] == 'a' ? a : b).unlock();
    else if (token == "w")
      x = 1;
    else if (token == "r")
      (void)static_cast<int>(x);
    else
      mark(log, std::stoi(token));
  }
}

// A figure's two threads, started by main, which then ends (as Java's main thread does).
void figure(std::vector<int>& log, const std::string& thread_1, const std::string& thread_2) {
  struct State {
    mutex a, b;
    shared<int> x{0};
  };
  auto s = std::make_shared<State>();
  for (const std::string& listing : {thread_1, thread_2})
    thread([s, &log, listing] { run_listing(listing, log, s->a, s->b, s->x); }).detach();
}

// Fig. 2 (and with `shared_x`, the data dependency between sections 2 and 7 of Fig. 7).
void figure_2(std::vector<int>& log, bool shared_x) {
  figure(log, shared_x ? "1 a( 2 w b( 3 )b 4 )a 5" : "1 a( 2 b( 3 )b 4 )a 5",
         shared_x ? "6 a( 7 r )a 8 b( 9 )b 10" : "6 a( 7 )a 8 b( 9 )b 10");
}

// Fig. 8: the two threads take a and b in opposite orders.
void figure_8(std::vector<int>& log) {
  figure(log, "1 a( 2 b( 3 )b 4 )a 5", "6 b( 7 a( 8 )a 9 )b 10");
}

// Fig. 10: Fig. 8's T1, and a T2 that takes a alone first, then b and inside it a.
void figure_10(std::vector<int>& log) {
  figure(log, "1 a( 2 b( 3 )b 4 )a 5", "6 a( 7 )a 8 b( 9 a( 10 )a 11 )b 12");
}

// Fig. 4: ExitBlock's tree for Fig. 2, depth first. The second path is undone at 6 (T1 holds a);
// the last is the one the paper names, 6,7,1,2,3,8,9,10,4,5.
TEST(ExitBlock, Figure4TreeOfSchedules) {
  const std::vector<Path> expected = {
      {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, true}, {{1, 2, 3, 6}, false},
      {{6, 7, 8, 9, 10, 1, 2, 3, 4, 5}, true}, {{6, 7, 1, 2, 3, 4, 5, 8, 9, 10}, true},
      {{6, 7, 1, 2, 3, 8, 9, 10, 4, 5}, true},
  };
  EXPECT_EQ(paths("exitblock", [](auto& log) { figure_2(log, false); }), expected);
}

// Fig. 7: ExitBlock-RW's tree for Fig. 2 when only sections 2 and 7 share data: the schedule
// 6,7,1,2,3,4,5 is not finished (T2's later blocks interact with nothing after), and the last
// schedule of Fig. 4 is not run at all.
TEST(ExitBlock, Figure7TreeOfSchedulesWithReadWritePruning) {
  const std::vector<Path> expected = {
      {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, true},
      {{1, 2, 3, 6}, false},
      {{6, 7, 8, 9, 10, 1, 2, 3, 4, 5}, true},
      {{6, 7, 1, 2, 3, 4, 5}, false},
  };
  EXPECT_EQ(paths("exitblock-rw", [](auto& log) { figure_2(log, true); }), expected);
  // Without it, T1 delayed at the start is never woken: the third path ends when T2 does.
  const std::vector<Path> independent = {
      {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, true},
      {{1, 2, 3, 6}, false},
      {{6, 7, 8, 9, 10}, false},
  };
  EXPECT_EQ(paths("exitblock-rw", [](auto& log) { figure_2(log, false); }), independent);
}

// Fig. 9: ExitBlock's tree for Fig. 8: two paths undone where a thread cannot take its inner lock,
// the two places the deadlock shows (§6.1).
TEST(ExitBlock, Figure9TreeOfSchedules) {
  const std::vector<Path> expected = {
      {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, true},
      {{1, 2, 3, 6, 7}, false},
      {{6, 7, 8, 9, 10, 1, 2, 3, 4, 5}, true},
      {{6, 7, 8, 1, 2}, false},
  };
  EXPECT_EQ(paths("exitblock", figure_8), expected);
}

// §6.1 on Fig. 8: at each X of Fig. 9, reverse lock chain analysis finds the cycle (T1 holds a
// and last held b, which T2 holds, and T2 wants a; then the same the other way round), and a run
// into each deadlock follows it: ExitBlock-DD.
TEST(ExitBlock, Figure9ReverseLockChainAnalysisFindsBothDeadlocks) {
  const std::vector<Path> expected = {
      {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, true},
      {{1, 2, 3, 6, 7}, false},
      {{1, 2, 6, 7}, false, true},
      {{6, 7, 8, 9, 10, 1, 2, 3, 4, 5}, true},
      {{6, 7, 8, 1, 2}, false},
      {{6, 7, 1, 2}, false, true},
  };
  EXPECT_EQ(paths("exitblock", figure_8, true), expected);
  // Without the analysis ExitBlock runs into neither (its blocks take both locks at once).
  Options o;
  o.strategy = StrategyKind{"exitblock"};
  // The figure's threads outlive main, which ends first: the log must outlive it too.
  static std::vector<int> log;
  const auto program = [] { figure_8(log); };
  // (No bug, and not "every behaviour": ExitBlock's claim rests on the locking discipline, which
  // nothing checks yet.)
  const Result plain = explore(o, program);
  EXPECT_TRUE(plain.bugs.empty());
  EXPECT_EQ(plain.verdict, Verdict::kIncomplete);
  o.search_deadlocks = true;
  const Result r = explore(o, program);
  ASSERT_EQ(r.verdict, Verdict::kBugFound);
  EXPECT_EQ(r.bugs[0].kind, Outcome::kDeadlock);
}

// Fig. 10 and 11: ExitBlock with the analysis finds the deadlock, after T2 has released a in its
// second block and holds b, when T1 cannot take b; ExitBlock-RW with it does not (none of the
// blocks interact, so the orders that show it are pruned), as §6.1 says.
TEST(ExitBlock, Figure11DeadlockFoundByExitBlockDdNotByRwDd) {
  Options o;
  o.strategy = StrategyKind{"exitblock"};
  o.search_deadlocks = true;
  static std::vector<int> log;
  const auto program = [] { figure_10(log); };
  const Result dd = explore(o, program);
  ASSERT_EQ(dd.verdict, Verdict::kBugFound);
  EXPECT_EQ(dd.bugs[0].kind, Outcome::kDeadlock);
  o.strategy = StrategyKind{"exitblock-rw"};
  EXPECT_TRUE(explore(o, program).bugs.empty());
  // DFS confirms the deadlock is real.
  o.strategy = StrategyKind::kDfs;
  o.search_deadlocks = false;
  EXPECT_EQ(explore(o, program).verdict, Verdict::kBugFound);
}

// Fig. 11: the trees of ExitBlock (left) and ExitBlock-RW (right) for Fig. 10. ExitBlock comes
// upon the deadlock in two places, the fourth and sixth paths (T1 cannot take b, T2 holds b and
// last held a that T1 holds; then T2 cannot take a); ExitBlock-RW's pruning removes both.
TEST(ExitBlock, Figure11TreesOfSchedules) {
  const std::vector<Path> exitblock = {
      {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, true}, {{1, 2, 3, 6}, false},
      {{6, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5}, true}, {{6, 7, 8, 9, 10, 1, 2}, false},
      {{6, 7, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12}, true}, {{6, 7, 1, 2, 3, 8, 9}, false},
  };
  EXPECT_EQ(paths("exitblock", figure_10), exitblock);
  const std::vector<Path> rw = {
      {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, true},
      {{1, 2, 3, 6}, false},
      {{6, 7, 8, 9, 10, 11, 12}, false},
  };
  EXPECT_EQ(paths("exitblock-rw", figure_10), rw);
  // With the analysis, a run into the deadlock follows each of the two places.
  int deadlocks = 0;
  for (const Path& p : paths("exitblock", figure_10, true)) deadlocks += p.deadlock;
  EXPECT_EQ(deadlocks, 2);
  for (const Path& p : paths("exitblock-rw", figure_10, true)) EXPECT_FALSE(p.deadlock);
}

// Fig. 1: SplitSync, with its invariant as an assertion, and main starting both threads and
// ending as Java's does. The paper's tester reports it on the third schedule (§7); by the search
// of Fig. 3, which backs up to the last boundary first, it is the second: T1 reads x in its first
// block, then the branch at T1's second block runs T2 to its end, and T1 finds x changed. (The
// paper's count likely includes a schedule from the Java library code its tester ran, such as the
// synchronized Thread.start; weft follows the pseudocode.)
TEST(ExitBlock, SplitSyncFailsOnTheSecondScheduleOfFigure3) {
  Options o;
  o.strategy = StrategyKind{"exitblock"};
  const Result r = explore(o, [] {
    struct State {
      mutex resource;
      shared<int> x{0};
    };
    auto s = std::make_shared<State>();
    for (int i = 0; i < 2; ++i)
      thread([s] {
        int y;
        {
          std::lock_guard<mutex> g(s->resource);
          y = s->x;
        }
        {
          std::lock_guard<mutex> g(s->resource);
          WEFT_ASSERT(s->x == y);
          s->x = y + 1;
        }
      }).detach();
  });
  ASSERT_EQ(r.verdict, Verdict::kBugFound);
  EXPECT_EQ(r.stats.executions, 2u);
  // ExitBlock-RW finds it too (the blocks all touch x).
  o.strategy = StrategyKind{"exitblock-rw"};
  EXPECT_EQ(explore(o,
                    [] {
                      mutex resource;
                      shared<int> x{0};
                      auto increment = [&] {
                        int y;
                        {
                          std::lock_guard<mutex> g(resource);
                          y = x;
                        }
                        std::lock_guard<mutex> g(resource);
                        WEFT_ASSERT(x == y);
                        x = y + 1;
                      };
                      thread t1(increment), t2(increment);
                      t1.join();
                      t2.join();
                    })
                .verdict,
            Verdict::kBugFound);
}

}  // namespace
}  // namespace weft
