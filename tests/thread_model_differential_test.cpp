// Differential test of the thread model (thread_model.hpp) on random C programs whose threads
// branch and assert on the values they read (racy_c_program.hpp), built by weft-cc and explored
// by the weft command with every shared access a scheduling point:
//  - with --thread-model=check every execution the model computes is also run, and the two must
//    be the same to the last value read (else weft stops with an error, exit code 2);
//  - with the model on, weft must find the same bugs in the same number of executions, with the
//    same verdict, as with it off, where every execution runs;
//  - the same holds for the other strategies (the model serves all of them, the random walk's
//    seeded schedules too).
// Programs whose threads read inputs (and loop) get the same comparison, with the inputs read and
// the branches on them part of what must be the same. So do programs explored with
// synchronisation points only (--points=sync, the default), where the model learns from what
// the threads' code between events read and wrote, and must decline wherever a computed
// execution could race: the runs then find the races (and their race-directed rounds the bugs
// behind them) exactly as with every execution run. Those programs mostly follow the locking
// discipline (racy_c_program.hpp's `locked`), as the programs the mode is for do; one statement
// in twenty breaks it.
// The comparison has teeth: most programs' executions are computed (counted below), and a
// program whose threads' values depend on the interleaving makes the model learn, miss and run.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "program_chunks.hpp"
#include "racy_c_program.hpp"

namespace weft::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The seeds run: 700000.. (far from the race differential test's, so that the two cover
// different programs), 100 per chunk; a soak outside CI sets WEFT_THREAD_MODEL_FIRST_SEED and
// WEFT_THREAD_MODEL_PROGRAMS_PER_CHUNK.
constexpr int kChunks = 3;
constexpr int kInputChunks = 2;
constexpr int kSyncChunks = 2;
const int kProgramsPerChunk =
    static_cast<int>(setting("WEFT_THREAD_MODEL_PROGRAMS_PER_CHUNK", 100));
const std::uint64_t kFirstSeed = setting("WEFT_THREAD_MODEL_FIRST_SEED", 700000);

using Exploration = ChunkExploration;

// What the chunks explore: every shared access an event, or (kSync) synchronisation only.
enum class Points { kAll, kSync };

Exploration explore(const fs::path& dir, const std::string& binary, int program,
                    const std::string& options, Points points) {
  return explore_chunk_program(dir, binary, program, options,
                               points == Points::kAll ? "all" : "sync");
}

std::uint64_t statistic(const Exploration& e, const char* name) {
  return e.statistic(name);
}

// One chunk of programs, with inputs or without: what the model computes must be what runs.
void compare_chunk(int chunk, bool inputs, Points points = Points::kAll) {
  // Programs with inputs start far from those without (a chunk of them costs more: fewer), and
  // those explored with synchronisation points only far from both.
  const bool sync = points == Points::kSync;
  const std::uint64_t first = kFirstSeed + (inputs ? 90000 : 0) + (sync ? 50000 : 0) +
                              static_cast<std::uint64_t>(chunk) * kProgramsPerChunk;
  const fs::path dir =
      fs::temp_directory_path() /
      ("weft-thread-model-differential-" + std::string(inputs ? "inputs-" : "") +
       std::string(sync ? "sync-" : "") + std::to_string(chunk) + "-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string binary =
      build_chunk(dir, racy_program_file(first, kProgramsPerChunk, inputs, inputs, sync));
  ASSERT_TRUE(fs::exists(binary));

  std::uint64_t executions = 0, modelled = 0, modelled_with_inputs = 0;
  int mostly_modelled = 0, some_run = 0;
  for (int i = 0; i < kProgramsPerChunk; ++i) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(i);
    const auto where = [&](const Exploration& e) {
      return e.command + "\nprogram " + std::to_string(seed) + ":\n" +
             racy_program_standalone(seed, inputs, inputs, sync) + "weft's output:\n" +
             e.result.dump(2).substr(0, 3000) + "\n" + e.err;
    };
    // (Bounded: with inputs and loops, every execution of some programs is too many.)
    const std::string bound = "--max-executions 3000 ";
    const Exploration off = explore(dir, binary, i, bound + "--thread-model=off", points);
    ASSERT_TRUE(off.exit_code == 0 || off.exit_code == 1 || off.exit_code == 3) << where(off);
    ASSERT_EQ(off.result["thread_model"], "off") << where(off);
    ASSERT_EQ(statistic(off, "modelled"), 0u) << where(off);

    const Exploration check = explore(dir, binary, i, bound + "--thread-model=check", points);
    ASSERT_EQ(check.exit_code, off.exit_code) << where(check);
    EXPECT_EQ(check.bugs, off.bugs) << where(check);

    const Exploration on = explore(dir, binary, i, bound + "--thread-model=on", points);
    ASSERT_EQ(on.exit_code, off.exit_code) << where(on);
    EXPECT_EQ(on.bugs, off.bugs) << where(on);
    EXPECT_EQ(statistic(on, "executions"), statistic(off, "executions")) << where(on);
    EXPECT_EQ(statistic(on, "complete"), statistic(off, "complete")) << where(on);
    EXPECT_EQ(statistic(on, "sleep_blocked"), statistic(off, "sleep_blocked")) << where(on);
    // Deadlocks a run ended in are computed when executions end in them again: as often.
    EXPECT_EQ(statistic(on, "bugs"), statistic(off, "bugs")) << where(on);
    EXPECT_EQ(on.result["complete"], off.result["complete"]) << where(on);
    EXPECT_EQ(on.result["thread_model"], "on") << where(on);

    const std::uint64_t n = statistic(on, "executions"), m = statistic(on, "modelled");
    executions += n;
    modelled += m;
    mostly_modelled += 2 * m >= n;
    some_run += m + 1 < n;
    if (racy_program_definitions(seed, inputs, inputs).find("nondet") != std::string::npos)
      modelled_with_inputs += m;

    // The other strategies, on every fifth program (random: the same seeded walks).
    if (i % 5 == 0)
      for (const char* strategy :
           {"dpor-cr", "dfs", "stateful", "random --executions 40 --seed 7"}) {
        const std::string s = bound + "--strategy " + strategy;
        const Exploration plain = explore(dir, binary, i, s + " --thread-model=off", points);
        const Exploration checked = explore(dir, binary, i, s + " --thread-model=check", points);
        ASSERT_EQ(checked.exit_code, plain.exit_code) << where(checked);
        EXPECT_EQ(checked.bugs, plain.bugs) << where(checked);
        EXPECT_EQ(statistic(checked, "executions"), statistic(plain, "executions"))
            << where(checked);
      }
  }
  std::printf(
      "programs %llu..%llu%s%s: %llu executions, %llu computed by the thread model (%llu in "
      "programs that read inputs); %d programs mostly computed, %d with executions run after "
      "the first\n",
      static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(first + kProgramsPerChunk - 1),
      inputs ? " (with inputs and loops)" : "", sync ? " (--points=sync)" : "",
      static_cast<unsigned long long>(executions), static_cast<unsigned long long>(modelled),
      static_cast<unsigned long long>(modelled_with_inputs), mostly_modelled, some_run);
  // Teeth: the model computes a good share of the executions (programs with one or two
  // executions run them all, to learn; in CI's chunks over half), and misses in some programs
  // after it learned; with inputs, it computes executions that read them.
  EXPECT_GT(4 * modelled, executions);
  EXPECT_GT(mostly_modelled, 0);
  EXPECT_GT(some_run, 0);
  if (inputs) {
    EXPECT_GT(4 * modelled_with_inputs, modelled);
  }
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

class ThreadModelDifferential : public ::testing::TestWithParam<int> {};

TEST_P(ThreadModelDifferential, ComputedExecutionsAreTheRunOnes) {
  compare_chunk(GetParam(), false);
}

INSTANTIATE_TEST_SUITE_P(Chunks, ThreadModelDifferential, ::testing::Range(0, kChunks));

// Programs whose threads start from inputs, with loops: the inputs a thread's local code reads
// and the branches it takes on them are computed too (thread_model.hpp), and must be as a run
// gives them, to the expressions.
class ThreadModelInputsDifferential : public ::testing::TestWithParam<int> {};

TEST_P(ThreadModelInputsDifferential, ComputedInputsAndBranchesAreTheRunOnes) {
  compare_chunk(GetParam(), true);
}

INSTANTIATE_TEST_SUITE_P(Chunks, ThreadModelInputsDifferential, ::testing::Range(0, kInputChunks));

// With synchronisation points only: the model follows each thread's plain reads and writes
// between its events, and declines where a computed execution could race.
class ThreadModelSyncDifferential : public ::testing::TestWithParam<int> {};

TEST_P(ThreadModelSyncDifferential, ComputedExecutionsAreTheRunOnesWithSynchronisationPoints) {
  compare_chunk(GetParam(), false, Points::kSync);
}

INSTANTIATE_TEST_SUITE_P(Chunks, ThreadModelSyncDifferential, ::testing::Range(0, kSyncChunks));

}  // namespace
}  // namespace weft::testing
