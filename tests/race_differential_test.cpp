// Differential test of race-directed scheduling points on random C programs with data races
// (racy_c_program.hpp), built by weft-cc and explored by the weft command: with
// `--points=sync --all-bugs` (synchronisation as scheduling points, plus the instructions of
// each race found) weft finds exactly the assertion failures (and any other bugs but data
// races, which only sync reports) that `--points=all` (every shared access a scheduling point)
// finds. Sync's executions are executions of all, so sync can find no more; race-directed points
// must make it find no fewer. The same programs explored with
// `--no-race-points` show that the comparison can fail: without promotion, some programs lose
// assertion failures that only a race enables.
//
// Programs come in chunks, one C file and one weft-cc build per chunk (a program is selected by
// its argument), one test per chunk so that ctest runs chunks in parallel.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
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

// 6 chunks in CI (1,200 programs); a soak sets more with WEFT_RACE_CHUNKS.
const int kChunks = static_cast<int>(setting("WEFT_RACE_CHUNKS", 6));
constexpr int kProgramsPerChunk = 200;

struct Exploration {
  int exit_code = -1;
  json result;
  std::set<std::string> bugs;                  // every bug but data races, as "kind: message"
  std::set<std::string> found_with_promotion;  // those found in a round after the first
  std::string command;
};

std::string build_chunk(const fs::path& dir, std::uint64_t first) {
  return weft::testing::build_chunk(dir, racy_program_file(first, kProgramsPerChunk));
}

Exploration explore(const fs::path& dir, const std::string& binary, int program,
                    const std::string& options) {
  Exploration e;
  e.command = std::string(WEFT_BIN) + " run " + options + " --all-bugs --json -q --replay-file " +
              (dir / "replay.json").string() + " " + binary + " " + std::to_string(program);
  std::FILE* p = popen((e.command + " 2>" + (dir / "weft.stderr").string()).c_str(), "r");
  const std::string out = slurp(p);
  const int status = p ? pclose(p) : -1;
  e.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  e.result = json::parse(out, nullptr, false);
  if (e.result.is_object() && e.result.contains("bugs"))
    for (const auto& bug : e.result["bugs"]) {
      const std::string kind = bug["kind"].get<std::string>();
      if (kind == "data race") continue;
      const std::string key = kind + ": " + bug["message"].get<std::string>();
      e.bugs.insert(key);
      if (bug["promoted_sites"].get<int>() > 0) e.found_with_promotion.insert(key);
    }
  return e;
}

std::string listed(const std::set<std::string>& bugs) {
  std::string s;
  for (const auto& b : bugs) s += "    " + b + "\n";
  return s.empty() ? "    (none)\n" : s;
}

class RaceDifferential : public ::testing::TestWithParam<int> {};

TEST_P(RaceDifferential, SyncWithRacePointsFindsTheAssertionFailuresOfAll) {
  const std::uint64_t first = static_cast<std::uint64_t>(GetParam()) * kProgramsPerChunk;
  const fs::path dir =
      fs::temp_directory_path() /
      ("weft-race-differential-" + std::to_string(GetParam()) + "-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string binary = build_chunk(dir, first);
  ASSERT_TRUE(fs::exists(binary));

  int with_bugs = 0, promoting = 0, lost_without_promotion = 0;
  for (int i = 0; i < kProgramsPerChunk; ++i) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(i);
    const auto where = [&](const Exploration& e) {
      return e.command + "\nprogram " + std::to_string(seed) + " (" + std::to_string(i) +
             " in its chunk):\n" + racy_program_standalone(seed) + "weft's output:\n" +
             e.result.dump(2).substr(0, 4000);
    };
    const Exploration all = explore(dir, binary, i, "--points=all");
    ASSERT_TRUE(all.exit_code == 0 || all.exit_code == 1) << where(all);
    ASSERT_TRUE(all.result.value("complete", false)) << where(all);
    const Exploration sync = explore(dir, binary, i, "--points=sync");
    ASSERT_TRUE(sync.exit_code == 0 || sync.exit_code == 1) << where(sync);
    ASSERT_TRUE(sync.result.value("complete", false)) << where(sync);
    EXPECT_EQ(sync.bugs, all.bugs) << "with --points=all:\n"
                                   << listed(all.bugs) << "with --points=sync:\n"
                                   << listed(sync.bugs) << where(sync);
    with_bugs += !all.bugs.empty();

    // A round without promotion is the whole run when it found no race.
    if (sync.result["rounds"].get<int>() == 1) {
      EXPECT_EQ(sync.result["promoted_sites"].get<int>(), 0) << where(sync);
      continue;
    }
    ++promoting;
    EXPECT_GT(sync.result["promoted_sites"].get<int>(), 0) << where(sync);
    // The first round is the start of the exploration that --no-race-points runs in full, so
    // only a program with bugs found in later rounds can lose some without promotion.
    if (sync.found_with_promotion.empty()) continue;
    const Exploration one_round = explore(dir, binary, i, "--points=sync --no-race-points");
    ASSERT_TRUE(one_round.result.value("complete", false)) << where(one_round);
    EXPECT_EQ(one_round.result["rounds"].get<int>(), 1) << where(one_round);
    EXPECT_EQ(one_round.result["promoted_sites"].get<int>(), 0) << where(one_round);
    // Whatever one round finds, all finds too; what it misses is what a race enables, which
    // the race-directed run found with promoted instructions.
    for (const auto& bug : one_round.bugs) EXPECT_EQ(all.bugs.count(bug), 1u) << where(one_round);
    bool lost = false;
    for (const auto& bug : all.bugs)
      if (!one_round.bugs.count(bug)) {
        lost = true;
        EXPECT_EQ(sync.found_with_promotion.count(bug), 1u) << bug << "\n" << where(sync);
      }
    lost_without_promotion += lost;
  }
  std::printf(
      "programs %llu..%llu: %d with bugs under --points=all, %d with race-directed rounds, %d "
      "lose bugs without them (--no-race-points)\n",
      static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(first + kProgramsPerChunk - 1), with_bugs, promoting,
      lost_without_promotion);
  // The comparison has teeth: some programs' bugs are out of reach without race-directed points.
  EXPECT_GT(lost_without_promotion, 0);
  if (!HasFailure()) fs::remove_all(dir);
}

// The unfolding strategies with --points=sync (synchronisation events only, the race detector
// and race-directed rounds for plain accesses): the same assertion failures and crashes as
// optimal DPOR with --points=all, on the first programs of chunk 0. (Deadlocks are outside what
// they cover without --deadlocks, data races outside what they cover at all.)
TEST(RaceDifferentialUnfolding, SyncPointsFindTheAssertionFailuresOfAll) {
  constexpr int kPrograms = 60;
  const fs::path dir =
      fs::temp_directory_path() / ("weft-race-differential-unfolding-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string binary = build_chunk(dir, 0);
  ASSERT_TRUE(fs::exists(binary));
  const auto failures = [](const Exploration& e) {
    std::set<std::string> out;
    for (const auto& b : e.bugs)
      if (!b.starts_with("deadlock")) out.insert(b);
    return out;
  };
  int with_failures = 0;
  for (int i = 0; i < kPrograms; ++i) {
    const Exploration all = explore(dir, binary, i, "--points=all");
    ASSERT_TRUE(all.result.value("complete", false)) << all.command;
    with_failures += !failures(all).empty();
    for (const char* strategy : {"unfolding", "contextual"}) {
      const Exploration sync =
          explore(dir, binary, i, std::string("--points=sync --strategy ") + strategy);
      ASSERT_TRUE(sync.exit_code == 0 || sync.exit_code == 1 || sync.exit_code == 3)
          << sync.command << "\n"
          << sync.result.dump(2).substr(0, 2000);
      EXPECT_EQ(failures(sync), failures(all))
          << "with --points=all:\n"
          << listed(failures(all)) << "with " << strategy << ", --points=sync:\n"
          << listed(failures(sync)) << sync.command << "\n"
          << racy_program_standalone(static_cast<std::uint64_t>(i));
    }
  }
  std::printf("programs 0..%d: %d with assertion failures or crashes under --points=all\n",
              kPrograms - 1, with_failures);
  EXPECT_GT(with_failures, 5);  // not vacuous
  if (!HasFailure()) fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Chunks, RaceDifferential, ::testing::Range(0, kChunks));

}  // namespace
}  // namespace weft::testing
