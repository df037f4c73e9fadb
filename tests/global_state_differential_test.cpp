// Differential test of --check-global (thesis §6.2) on random C programs (racy_c_program.hpp),
// built by weft-cc and explored by the weft command with every shared access an event: a
// predicate over two of a program's variables is reachable according to the SMT search of the
// unfolding (contextual and unfolding) exactly when dfs, which runs every interleaving and so
// passes through every reachable global state, finds a state of an execution where it holds.
// Every reachable state found is confirmed by an execution, and no search is left undecided.
// The unfolding strategies also run no more complete tests than there are Mazurkiewicz traces.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "concat.hpp"
#include "program_chunks.hpp"
#include "racy_c_program.hpp"

namespace weft::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kChunks = 4;
constexpr int kProgramsPerChunk = 40;
constexpr std::uint64_t kFirstSeed = 7000;  // programs the other differential tests do not use

struct Check {
  int exit_code = -1;
  json result;
  bool reached = false;  // a global-state bug was reported
  std::string command;
};

Check check(const fs::path& dir, const std::string& binary, int program,
            const std::string& strategy, const std::string& predicate) {
  Check c;
  c.command = std::string(WEFT_BIN) +
              " run --points=all --all-bugs --count-traces --json -q --strategy " + strategy +
              " --check-global '" + predicate + "' --replay-file " +
              (dir / "replay.json").string() + " " + binary + " " + std::to_string(program);
  std::FILE* p = popen((c.command + " 2>" + (dir / "weft.stderr").string()).c_str(), "r");
  const std::string out = slurp(p);
  const int status = p ? pclose(p) : -1;
  c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  c.result = json::parse(out, nullptr, false);
  if (c.result.is_object() && c.result.contains("bugs"))
    for (const auto& bug : c.result["bugs"]) c.reached |= bug["kind"] == "global state";
  return c;
}

// Two predicates per program, over its first two shared ints or one of them and its atomic
// int, with constants in the range its statements write.
std::vector<std::string> predicates(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto small = [&](int hi) { return std::to_string(rng() % (hi + 1)); };
  const std::string p = concat("p", std::to_string(seed), "_");
  return {p + "x0 == " + small(3) + " && " + p + "x1 == " + small(3),
          rng() % 2 ? p + "a + " + p + "x1 > " + small(4)
                    : p + "x0 - " + p + "x1 == " + std::to_string(int(rng() % 5) - 2)};
}

class GlobalStateDifferential : public ::testing::TestWithParam<int> {};

TEST_P(GlobalStateDifferential, UnfoldingSearchesAgreeWithEveryStateOfDfs) {
  const std::uint64_t first =
      kFirstSeed + static_cast<std::uint64_t>(GetParam()) * kProgramsPerChunk;
  const fs::path dir =
      fs::temp_directory_path() /
      ("weft-global-differential-" + std::to_string(GetParam()) + "-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string binary = build_chunk(dir, racy_program_file(first, kProgramsPerChunk));
  ASSERT_TRUE(fs::exists(binary));
  int reached = 0, unreachable = 0;
  for (int i = 0; i < kProgramsPerChunk; ++i) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(i);
    for (const std::string& predicate : predicates(seed)) {
      const Check oracle = check(dir, binary, i, "dfs", predicate);
      const auto where = [&](const Check& c) {
        return c.command + "\n" + racy_program_standalone(seed) + "weft's output:\n" +
               c.result.dump(2).substr(0, 3000);
      };
      ASSERT_TRUE(oracle.exit_code == 0 || oracle.exit_code == 1) << where(oracle);
      ASSERT_TRUE(oracle.result.value("complete", false) || oracle.exit_code == 1) << where(oracle);
      ++(oracle.reached ? reached : unreachable);
      for (const char* strategy : {"contextual", "unfolding"}) {
        const Check c = check(dir, binary, i, strategy, predicate);
        ASSERT_TRUE(c.result.is_object() && c.result.contains("check_global")) << where(c);
        const std::string answer = c.result["check_global"]["answer"];
        EXPECT_EQ(answer, oracle.reached ? "reached" : "unreachable") << where(c);
        EXPECT_EQ(c.reached, oracle.reached) << where(c);
        // Memory is modelled by place, as exact as the exploration's dependence: no more
        // complete tests than Mazurkiewicz traces (dfs ran every one).
        EXPECT_LE(c.result["statistics"]["complete"].get<int>(),
                  oracle.result["statistics"]["traces"].get<int>())
            << where(c);
      }
    }
  }
  std::printf("programs %llu..%llu: %d predicates reachable, %d not\n",
              static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(first + kProgramsPerChunk - 1), reached, unreachable);
  // Both answers are tested.
  EXPECT_GT(reached, kProgramsPerChunk / 5);
  EXPECT_GT(unreachable, kProgramsPerChunk / 5);
  if (!HasFailure()) fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Chunks, GlobalStateDifferential, ::testing::Range(0, kChunks));

}  // namespace
}  // namespace weft::testing
