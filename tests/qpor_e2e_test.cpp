// Quasi-optimal POR (--strategy qpor, alternative_tree.hpp) natively, through the weft command
// line on tests/native/ fixtures: it finds each bug optimal DPOR finds (a deadlock of two locks,
// a lost update, a lost wake-up, an assertion behind input branches), explores a correct program
// with condition variables completely, and with large k runs as many complete tests as optimal
// DPOR (one per trace); with k = 1 no fewer. --alternatives belongs to it alone.
#include <gtest/gtest.h>

#include <string>

#include "native_cli.hpp"

namespace weft::test {
namespace {

TEST(Qpor, FindsTheBugsOptimalDporFinds) {
  for (const char* file : {"abba_deadlock.c", "lost_update.c", "lost_signal.c"}) {
    const CliRun optimal = check(file, "--strategy optimal");
    for (const char* k : {"1", "1000"}) {
      const CliRun r = check(file, std::string("--strategy qpor --alternatives ") + k);
      EXPECT_EQ(r.exit_code, optimal.exit_code) << file << " k " << k << r.out << r.err;
      EXPECT_EQ(first_bug_kind(r), first_bug_kind(optimal)) << file << " k " << k << r.out;
    }
  }
}

// Correct programs: a producer handing two items to two consumers with condition variables, and
// two threads that branch on inputs (3 paths each) before taking one lock (18 executions). With
// the lock alone no test is sleep-set blocked; the unfolding makes every two operations on a
// condition variable conflict, which the traces do not, so there some tests end blocked.
TEST(Qpor, ExploresCorrectProgramsWithOneTestPerTraceAtLargeK) {
  for (const char* program : {"cond_handover.c -- -DITEMS=2", "input_branches_in_two_threads.c"}) {
    const std::string file = std::string(program).substr(0, std::string(program).find(' '));
    const std::string flags = std::string(program).substr(file.size());
    const CliRun optimal = check(file, "--strategy optimal" + flags);
    ASSERT_EQ(optimal.exit_code, 0) << optimal.out << optimal.err;
    const CliRun exact = check(file, "--strategy qpor --alternatives 1000" + flags);
    ASSERT_EQ(exact.exit_code, 0) << program << exact.out << exact.err;
    EXPECT_EQ(exact.result["complete"], true) << program << exact.out;
    EXPECT_EQ(stat(exact, "complete"), stat(optimal, "complete")) << program << exact.out;
    if (file != "cond_handover.c") {
      EXPECT_EQ(stat(exact, "sleep_blocked"), 0u) << program << exact.out;
    }
    const CliRun cheap = check(file, "--strategy qpor" + flags);
    ASSERT_EQ(cheap.exit_code, 0) << program << cheap.out << cheap.err;
    EXPECT_EQ(cheap.result["complete"], true) << program << cheap.out;
    EXPECT_GE(stat(cheap, "complete"), stat(optimal, "complete")) << program << cheap.out;
  }
}

TEST(Qpor, AlternativesAreItsOptionAlone) {
  const CliRun r = check("lost_update.c", "--strategy optimal --alternatives 2");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("option --alternatives is not used by --strategy optimal (it is for qpor)"),
            std::string::npos)
      << r.err;
  const CliRun zero = check("lost_update.c", "--strategy qpor --alternatives 0");
  EXPECT_EQ(zero.exit_code, 2) << zero.out << zero.err;
}

}  // namespace
}  // namespace weft::test
