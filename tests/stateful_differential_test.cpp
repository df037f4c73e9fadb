// Differential test of the stateful strategy (strategies/stateful.cpp, thesis §7.3) on random C
// programs with loops, conditions and assertions on the values read (racy_c_program.hpp with
// loops), built by weft-cc and explored with every shared access a scheduling point. Cutting the
// search below states seen before must hide nothing: it finds the same bugs as DFS (with sleep
// sets: every Mazurkiewicz trace), with a complete verdict, and never runs more executions.
// Teeth: in a good share of the programs states are reached again and cut off.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "program_chunks.hpp"
#include "racy_c_program.hpp"

namespace weft::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kChunks = 20;  // 2,000 programs
const int kProgramsPerChunk = static_cast<int>(setting("WEFT_STATEFUL_PROGRAMS_PER_CHUNK", 100));
const std::uint64_t kFirstSeed = setting("WEFT_STATEFUL_FIRST_SEED", 900000);

using Exploration = ChunkExploration;

class StatefulDifferential : public ::testing::TestWithParam<int> {};

TEST_P(StatefulDifferential, FindsWhatEveryInterleavingFinds) {
  const std::uint64_t first =
      kFirstSeed + static_cast<std::uint64_t>(GetParam()) * kProgramsPerChunk;
  const fs::path dir =
      fs::temp_directory_path() /
      ("weft-stateful-differential-" + std::to_string(GetParam()) + "-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string binary = build_chunk(dir, racy_program_file(first, kProgramsPerChunk, true));
  ASSERT_TRUE(fs::exists(binary));

  std::uint64_t cut_offs = 0, stateful_executions = 0, oracle_executions = 0;
  int programs_cut = 0, too_large = 0;
  for (int i = 0; i < kProgramsPerChunk; ++i) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(i);
    const auto where = [&](const Exploration& e) {
      return e.command + "\nprogram " + std::to_string(seed) + ":\n" +
             racy_program_standalone(seed, true) + "weft's output:\n" +
             e.result.dump(2).substr(0, 3000) + "\n" + e.err;
    };
    // Every Mazurkiewicz trace (DFS with sleep sets), on the programs it finishes in a while.
    const Exploration oracle =
        explore_chunk_program(dir, binary, i, "--strategy dfs --max-executions 20000");
    ASSERT_TRUE(oracle.exit_code == 0 || oracle.exit_code == 1 || oracle.exit_code == 3)
        << where(oracle);
    if (oracle.result["complete"] != true) {
      ++too_large;
      continue;
    }
    const Exploration s = explore_chunk_program(dir, binary, i, "--strategy stateful");
    ASSERT_EQ(s.exit_code, oracle.exit_code) << where(s);
    EXPECT_EQ(s.bugs, oracle.bugs) << where(s);
    EXPECT_EQ(s.result["complete"], true) << where(s);
    EXPECT_LE(s.statistic("executions"), oracle.statistic("executions")) << where(s);
    ASSERT_TRUE(s.result["statistics"].contains("state_matching")) << where(s);
    const std::uint64_t cut = s.result["statistics"]["state_matching"]["cut_offs"];
    cut_offs += cut;
    programs_cut += cut > 0;
    stateful_executions += s.statistic("executions");
    oracle_executions += oracle.statistic("executions");
  }
  std::printf(
      "programs %llu..%llu: %llu executions against %llu for DFS; %llu cut-offs in %d "
      "programs; %d too large for DFS\n",
      static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(first + kProgramsPerChunk - 1),
      static_cast<unsigned long long>(stateful_executions),
      static_cast<unsigned long long>(oracle_executions), static_cast<unsigned long long>(cut_offs),
      programs_cut, too_large);
  EXPECT_GT(programs_cut, kProgramsPerChunk / 4);
  if (!HasFailure()) fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Chunks, StatefulDifferential, ::testing::Range(0, kChunks));

}  // namespace
}  // namespace weft::testing
