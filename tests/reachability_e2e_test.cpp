// Reachability testing through the weft command line (tests/native/ fixtures): thread symmetry
// (--symmetry, Lei and Carver §VIII) natively, for threads of pthread_create and std::thread.
#include <gtest/gtest.h>

#include <string>

#include "native_cli.hpp"

namespace weft::test {
namespace {

// Two adders of one kind and a doubler of another take one lock each: six orders, three of
// them apart from the order of the adders.
TEST(ReachabilityCli, ThreadSymmetryRunsOneOrderOfThreadsOfOneKind) {
  for (const char* flags : {"", "-- -DTHREADS_OF_PTHREAD_CREATE"}) {
    const CliRun all =
        check("symmetric_workers.cpp", std::string("--strategy reachability ") + flags);
    ASSERT_EQ(all.exit_code, 0) << flags << all.out << all.err;
    EXPECT_EQ(stat(all, "executions"), 6u) << flags;
    EXPECT_FALSE(all.result.contains("thread_symmetry")) << all.out;
    const CliRun some =
        check("symmetric_workers.cpp", std::string("--strategy reachability --symmetry ") + flags);
    ASSERT_EQ(some.exit_code, 0) << flags << some.out << some.err;
    EXPECT_EQ(stat(some, "executions"), 3u) << flags;
    EXPECT_EQ(some.result["thread_symmetry"], true) << some.out;
  }
  const CliRun text = weft_cli("check " + fixture("symmetric_workers.cpp") +
                               " --strategy reachability --symmetry -q");
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("every behaviour up to the order of threads taken as interchangeable "
                          "(--symmetry) was explored"),
            std::string::npos)
      << text.out;
  // Cut short, the verdict's reason is the limit, and the assumption is said beside it.
  const CliRun cut = weft_cli("check " + fixture("symmetric_workers.cpp") +
                              " --strategy reachability --symmetry --max-executions 2 -q");
  EXPECT_EQ(cut.exit_code, 3) << cut.out << cut.err;
  EXPECT_NE(cut.out.find("weft: also, threads started at one function were taken as "
                         "interchangeable (--symmetry)"),
            std::string::npos)
      << cut.out;
}

TEST(ReachabilityCli, SymmetryIsRefusedWithOtherStrategies) {
  const CliRun r = weft_cli("check " + fixture("symmetric_workers.cpp") + " --symmetry");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("option --symmetry is not used by --strategy optimal"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace weft::test
