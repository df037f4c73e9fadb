// Differential test of the stateful strategies on random C programs with loops, conditions and
// assertions on the values read (racy_c_program.hpp with loops), built by weft-cc and explored
// with every shared access a scheduling point (chunks of 100 programs; see kChunks for how many
// CI runs). Cutting the search below states seen before must
// hide nothing:
// - stateful testing (strategies/stateful.cpp: DPOR with persistent sets and state matching,
//   `stateful`, and the thesis' naive search of every interleaving, §7.3, `stateful-naive`)
//   finds the same bugs as DFS (with sleep sets: every Mazurkiewicz trace), with a complete
//   verdict, and never runs more executions;
// - stateful unfolding (complete_prefix.hpp, thesis §7.4), which covers local states, finds the
//   same assertion failures, and runs no more tests than DFS runs executions;
// - QPOR with cut-offs (cut_off_events.hpp, POET §3.8) finds the same bugs as DFS, deadlocks and
//   races included, with a complete verdict, and runs no more executions.
// Teeth: in a good share of the programs states are reached again and cut off, by all three.
// The same for the two stateful strategies on programs that read inputs (StatefulInputs...).
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

// 22 chunks in CI: 2,200 programs, of which DFS finishes over 2,000 within kOracle's budget, each
// then explored by five strategies.
const int kChunks = static_cast<int>(setting("WEFT_STATEFUL_CHUNKS", 22));
const int kProgramsPerChunk = static_cast<int>(setting("WEFT_STATEFUL_PROGRAMS_PER_CHUNK", 100));
const std::uint64_t kFirstSeed = setting("WEFT_STATEFUL_FIRST_SEED", 900000);
// The oracle's budget: a program DFS does not finish within it is left out (about 8 in 100).
// Most of the rest need far fewer; a larger budget mostly buys time spent on the left-out ones.
const std::string kOracle = "--strategy dfs --max-executions " +
                            std::to_string(setting("WEFT_STATEFUL_ORACLE_EXECUTIONS", 5000));

using Exploration = ChunkExploration;

// The assertion failures of an exploration: all that stateful unfolding, which covers local
// states and not deadlocks or races, answers for.
std::set<std::string> assertion_failures(const Exploration& e) {
  std::set<std::string> out;
  for (const std::string& bug : e.bugs)
    if (bug.rfind("assertion failure: ", 0) == 0) out.insert(bug);
  return out;
}

// What a strategy that answers for every bug must give where DFS finished: the same exit code and
// bugs, a complete verdict, no more executions, and its states' figures. Gives its cut-offs.
std::uint64_t expect_as_dfs(const Exploration& e, const Exploration& oracle,
                            const std::string& where) {
  EXPECT_EQ(e.exit_code, oracle.exit_code) << where;
  EXPECT_EQ(e.bugs, oracle.bugs) << where;
  EXPECT_EQ(e.result["complete"], true) << where;
  EXPECT_LE(e.statistic("executions"), oracle.statistic("executions")) << where;
  const bool matched = e.result["statistics"].contains("state_matching");
  EXPECT_TRUE(matched) << where;
  return matched ? e.result["statistics"]["state_matching"]["cut_offs"].get<std::uint64_t>() : 0;
}

// A chunk's programs (with loops; threads start from inputs if `inputs`), built in a directory
// of their own; the directory is removed by the caller when nothing failed.
struct Chunk {
  std::uint64_t first = 0;
  fs::path dir;
  std::string binary;
};
Chunk build_programs(const std::string& name, std::uint64_t first, bool inputs) {
  Chunk c{first, fs::temp_directory_path() / ("weft-" + name + "-" + std::to_string(getpid())), ""};
  fs::create_directories(c.dir);
  c.binary = build_chunk(c.dir, racy_program_file(first, kProgramsPerChunk, true, inputs));
  return c;
}

class StatefulDifferential : public ::testing::TestWithParam<int> {};

TEST_P(StatefulDifferential, FindsWhatEveryInterleavingFinds) {
  const Chunk chunk = build_programs(
      "stateful-differential-" + std::to_string(GetParam()),
      kFirstSeed + static_cast<std::uint64_t>(GetParam()) * kProgramsPerChunk, false);
  const std::uint64_t first = chunk.first;
  const fs::path& dir = chunk.dir;
  const std::string& binary = chunk.binary;
  ASSERT_TRUE(fs::exists(binary));

  std::uint64_t cut_offs = 0, stateful_executions = 0, naive_executions = 0, oracle_executions = 0;
  std::uint64_t unfolding_cut_offs = 0, unfolding_tests = 0, qpor_cut_offs = 0, qpor_tests = 0;
  int programs_cut = 0, programs_cut_by_naive = 0, programs_cut_by_unfolding = 0,
      programs_cut_by_qpor = 0, too_large = 0;
  for (int i = 0; i < kProgramsPerChunk; ++i) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(i);
    const auto where = [&](const Exploration& e) {
      return e.command + "\nprogram " + std::to_string(seed) + ":\n" +
             racy_program_standalone(seed, true) + "weft's output:\n" +
             e.result.dump(2).substr(0, 3000) + "\n" + e.err;
    };
    // Every Mazurkiewicz trace (DFS with sleep sets), on the programs it finishes in a while.
    const Exploration oracle = explore_chunk_program(dir, binary, i, kOracle);
    ASSERT_TRUE(oracle.exit_code == 0 || oracle.exit_code == 1 || oracle.exit_code == 3)
        << where(oracle);
    if (oracle.result["complete"] != true) {
      ++too_large;
      continue;
    }
    const Exploration s = explore_chunk_program(dir, binary, i, "--strategy stateful");
    const std::uint64_t cut = expect_as_dfs(s, oracle, where(s));
    cut_offs += cut;
    programs_cut += cut > 0;
    stateful_executions += s.statistic("executions");
    oracle_executions += oracle.statistic("executions");

    const Exploration n = explore_chunk_program(dir, binary, i, "--strategy stateful-naive");
    programs_cut_by_naive += expect_as_dfs(n, oracle, where(n)) > 0;
    naive_executions += n.statistic("executions");

    const Exploration u = explore_chunk_program(dir, binary, i, "--strategy stateful-unfolding");
    EXPECT_EQ(assertion_failures(u), assertion_failures(oracle)) << where(u);
    ASSERT_TRUE(u.result["statistics"].contains("state_matching")) << where(u);
    EXPECT_EQ(u.result["statistics"]["state_matching"].contains("cut_offs"), true) << where(u);
    const std::uint64_t tests = u.statistic("executions") - u.statistic("modelled");
    EXPECT_LE(tests, oracle.statistic("executions")) << where(u);
    // It stops only where the fingerprint cannot hold the state, which these programs never do.
    EXPECT_EQ(u.result.dump().find("it stopped"), std::string::npos) << where(u);
    const std::uint64_t unfolding_cut = u.result["statistics"]["state_matching"]["cut_offs"];
    unfolding_cut_offs += unfolding_cut;
    programs_cut_by_unfolding += unfolding_cut > 0;
    unfolding_tests += tests;

    const Exploration q = explore_chunk_program(dir, binary, i, "--strategy qpor");
    const std::uint64_t qpor_cut = expect_as_dfs(q, oracle, where(q));
    qpor_cut_offs += qpor_cut;
    programs_cut_by_qpor += qpor_cut > 0;
    qpor_tests += q.statistic("executions") - q.statistic("modelled");
  }
  std::printf(
      "programs %llu..%llu: %llu executions against %llu for DFS; %llu cut-offs in %d "
      "programs; naive: %llu executions, cut-offs in %d programs; %d too large for DFS; "
      "stateful unfolding: %llu tests, %llu cut-offs in %d "
      "programs; qpor: %llu tests, %llu cut-offs in %d programs\n",
      static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(first + kProgramsPerChunk - 1),
      static_cast<unsigned long long>(stateful_executions),
      static_cast<unsigned long long>(oracle_executions), static_cast<unsigned long long>(cut_offs),
      programs_cut, static_cast<unsigned long long>(naive_executions), programs_cut_by_naive,
      too_large, static_cast<unsigned long long>(unfolding_tests),
      static_cast<unsigned long long>(unfolding_cut_offs), programs_cut_by_unfolding,
      static_cast<unsigned long long>(qpor_tests), static_cast<unsigned long long>(qpor_cut_offs),
      programs_cut_by_qpor);
  EXPECT_GT(programs_cut, kProgramsPerChunk / 4);
  EXPECT_GT(programs_cut_by_naive, kProgramsPerChunk / 4);
  EXPECT_GT(programs_cut_by_unfolding, kProgramsPerChunk / 10);
  EXPECT_GT(programs_cut_by_qpor, kProgramsPerChunk / 10);
  if (!HasFailure()) fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Chunks, StatefulDifferential, ::testing::Range(0, kChunks));

// The stateful strategies on programs whose threads start from inputs (thesis §7.3 and §7.4 with
// §3.5's branches): their states hold a value computed from inputs by its expression and a branch
// by the side taken, so a cut-off must hide no input either. The oracle is DFS, which explores
// the inputs concolically (one execution per path and trace). The searches of interleavings
// with states (DPOR's and the naive one) find the same bugs, deadlocks and races included, a
// complete verdict, never more executions; stateful unfolding covers local states: the same
// assertion failures.
constexpr int kInputChunks = 2;  // 200 programs

class StatefulInputsDifferential : public ::testing::TestWithParam<int> {};

TEST_P(StatefulInputsDifferential, FindsWhatDfsFindsForEveryInput) {
  const Chunk chunk = build_programs(
      "stateful-inputs-" + std::to_string(GetParam()),
      kFirstSeed + 500000 + static_cast<std::uint64_t>(GetParam()) * kProgramsPerChunk, true);
  const std::uint64_t first = chunk.first;
  const fs::path& dir = chunk.dir;
  const std::string& binary = chunk.binary;
  ASSERT_TRUE(fs::exists(binary));
  int with_inputs = 0, cut = 0, stateful_cut = 0, naive_cut = 0, too_large = 0;
  std::uint64_t tests = 0, stateful_executions = 0, naive_executions = 0, oracle_executions = 0;
  for (int i = 0; i < kProgramsPerChunk; ++i) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(i);
    const auto where = [&](const Exploration& e) {
      return e.command + "\nprogram " + std::to_string(seed) + ":\n" +
             racy_program_standalone(seed, true, true) + "weft's output:\n" +
             e.result.dump(2).substr(0, 3000) + "\n" + e.err;
    };
    const Exploration oracle = explore_chunk_program(dir, binary, i, kOracle);
    ASSERT_TRUE(oracle.exit_code == 0 || oracle.exit_code == 1 || oracle.exit_code == 3)
        << where(oracle);
    if (oracle.result["complete"] != true) {
      ++too_large;
      continue;
    }
    const Exploration s = explore_chunk_program(dir, binary, i, "--strategy stateful");
    stateful_cut += expect_as_dfs(s, oracle, where(s)) > 0;
    stateful_executions += s.statistic("executions");
    const Exploration n = explore_chunk_program(dir, binary, i, "--strategy stateful-naive");
    naive_cut += expect_as_dfs(n, oracle, where(n)) > 0;
    naive_executions += n.statistic("executions");

    const Exploration u = explore_chunk_program(dir, binary, i, "--strategy stateful-unfolding");
    EXPECT_EQ(assertion_failures(u), assertion_failures(oracle)) << where(u);
    EXPECT_EQ(u.result.dump().find("it stopped"), std::string::npos) << where(u);
    ASSERT_TRUE(u.result["statistics"].contains("state_matching")) << where(u);
    const std::uint64_t cut_offs = u.result["statistics"]["state_matching"]["cut_offs"];
    cut += cut_offs > 0;
    with_inputs += racy_program_definitions(seed, true, true).find("nondet") != std::string::npos;
    tests += u.statistic("executions") - u.statistic("modelled");
    oracle_executions += oracle.statistic("executions");
  }
  std::printf(
      "programs %llu..%llu: %d read inputs, %d too large for DFS; %llu DFS executions; "
      "stateful: %llu executions, cut-offs in %d programs; naive: %llu executions, cut-offs in "
      "%d programs; stateful unfolding: %llu tests, cut-offs in %d programs\n",
      static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(first + kProgramsPerChunk - 1), with_inputs, too_large,
      static_cast<unsigned long long>(oracle_executions),
      static_cast<unsigned long long>(stateful_executions), stateful_cut,
      static_cast<unsigned long long>(naive_executions), naive_cut,
      static_cast<unsigned long long>(tests), cut);
  EXPECT_GT(with_inputs, kProgramsPerChunk / 2);
  EXPECT_GT(stateful_cut, kProgramsPerChunk / 10);
  EXPECT_GT(naive_cut, kProgramsPerChunk / 10);
  EXPECT_GT(cut, kProgramsPerChunk / 10);
  if (!HasFailure()) fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Chunks, StatefulInputsDifferential, ::testing::Range(0, kInputChunks));

}  // namespace
}  // namespace weft::testing
