// Differential test of the memory-error checks (issue 20) on random C programs whose threads
// share heap blocks (heap_c_program.hpp), built by weft-cc and explored by the weft command with
// --all-bugs and --leaks: every strategy finds exactly the memory errors, leaks included (and
// any other bugs but data races, which only --points=sync reports), that DFS finds when it runs
// every interleaving (no sleep sets, every shared access a scheduling point). Finding more would be
// reporting an error no interleaving has; finding fewer, missing one: a free or a realloc that some
// strategy does not see conflict with an access or another free.
//
// The comparison has teeth: in some programs the errors happen in some interleavings only, and
// optimal DPOR with synchronisation as the only scheduling points (no race-directed points)
// misses some of them; --no-memory-checks finds none.
//
// Programs come in chunks, one C file and one weft-cc build per chunk (a program is selected by
// its argument), one test per chunk so that ctest runs chunks in parallel.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "heap_c_program.hpp"
#include "program_chunks.hpp"

namespace weft::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kChunks = 4;
constexpr int kProgramsPerChunk = 56;
// Programs with memory errors per chunk that are also explored without the checks.
constexpr int kUncheckedPerChunk = 10;

const std::set<std::string> kMemoryErrorKinds = {
    "use after free",          "heap buffer overflow", "double free", "invalid free",
    "realloc of freed memory", "mismatched free",      "memory leak"};

struct Exploration {
  int exit_code = -1;
  json result;
  std::set<std::string> bugs;           // every bug but data races, as "kind: message"
  std::set<std::string> memory_errors;  // those of them that are memory errors
  std::string command;
};

std::string build_chunk(const fs::path& dir, std::uint64_t first) {
  return weft::testing::build_chunk(dir, heap_program_file(first, kProgramsPerChunk));
}

// Leaks too: blocks left allocated in some interleavings only (a free that a value read skips).
// Not with --no-memory-checks, which leaves leaks to --leaks.
Exploration explore(const fs::path& dir, const std::string& binary, int program,
                    const std::string& options, bool leaks = true) {
  Exploration e;
  e.command = std::string(WEFT_BIN) + " run " + options + (leaks ? " --leaks" : "") +
              " --all-bugs --json -q --replay-file " + (dir / "replay.json").string() + " " +
              binary + " " + std::to_string(program);
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
      if (kMemoryErrorKinds.count(kind)) e.memory_errors.insert(key);
    }
  return e;
}

std::string listed(const std::set<std::string>& bugs) {
  std::string s;
  for (const auto& b : bugs) s += "    " + b + "\n";
  return s.empty() ? "    (none)\n" : s;
}

std::uint64_t statistic(const Exploration& e, const char* name) {
  return e.result["statistics"][name].get<std::uint64_t>();
}

// The strategies compared with DFS over every interleaving, as weft options.
const char* const kStrategies[] = {
    "--strategy dfs --points=all",      "--strategy dpor --points=all",
    "--strategy dpor-cr --points=all",  "--strategy optimal --points=all",
    "--strategy optimal --points=sync",
};

class MemoryDifferential : public ::testing::TestWithParam<int> {};

TEST_P(MemoryDifferential, EveryStrategyFindsTheMemoryErrorsOfEveryInterleaving) {
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t first = static_cast<std::uint64_t>(GetParam()) * kProgramsPerChunk;
  const fs::path dir =
      fs::temp_directory_path() /
      ("weft-memory-differential-" + std::to_string(GetParam()) + "-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string binary = build_chunk(dir, first);
  ASSERT_TRUE(fs::exists(binary));

  int with_errors = 0, in_some_interleavings = 0, missed_without_race_points = 0;
  std::uint64_t interleavings = 0;
  for (int i = 0; i < kProgramsPerChunk; ++i) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(i);
    const auto where = [&](const Exploration& e) {
      return e.command + "\nprogram " + std::to_string(seed) + " (" + std::to_string(i) +
             " in its chunk):\n" + heap_program_standalone(seed) + "weft's output:\n" +
             e.result.dump(2).substr(0, 4000);
    };
    const auto ran = [&](const Exploration& e) {
      ASSERT_TRUE(e.exit_code == 0 || e.exit_code == 1) << where(e);
      ASSERT_TRUE(e.result.value("complete", false)) << where(e);
    };
    const Exploration oracle =
        explore(dir, binary, i, "--strategy dfs --points=all --no-sleep-sets");
    ran(oracle);
    if (HasFatalFailure()) return;
    interleavings += statistic(oracle, "executions");
    // The programs assert nothing and null pointers are checked: every bug (but data races) is
    // a memory error, not a crash or a deadlock.
    EXPECT_EQ(oracle.bugs, oracle.memory_errors) << where(oracle);
    for (const char* options : kStrategies) {
      const Exploration other = explore(dir, binary, i, options);
      ran(other);
      if (HasFatalFailure()) return;
      EXPECT_EQ(other.bugs, oracle.bugs) << "every interleaving (DFS without sleep sets):\n"
                                         << listed(oracle.bugs) << options << ":\n"
                                         << listed(other.bugs) << where(other);
    }
    if (oracle.memory_errors.empty()) continue;
    ++with_errors;
    // Executions with bugs are those with memory errors here (see above).
    in_some_interleavings += statistic(oracle, "bugs") < statistic(oracle, "executions");

    // Teeth: synchronisation alone as scheduling points misses the errors that need a plain
    // access between two others' operations; what it finds, every interleaving has.
    const Exploration sync_only =
        explore(dir, binary, i, "--strategy optimal --points=sync --no-race-points");
    ran(sync_only);
    if (HasFatalFailure()) return;
    for (const auto& bug : sync_only.bugs)
      EXPECT_EQ(oracle.bugs.count(bug), 1u) << where(sync_only);
    missed_without_race_points += sync_only.memory_errors != oracle.memory_errors;
    // And without the checks there is nothing to find (the first few programs suffice).
    if (with_errors > kUncheckedPerChunk) continue;
    const Exploration unchecked =
        explore(dir, binary, i, "--strategy dpor --points=all --no-memory-checks", false);
    ran(unchecked);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(unchecked.memory_errors.empty())
        << listed(unchecked.memory_errors) << where(unchecked);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "programs %llu..%llu: %llu interleavings in all, %d with memory errors, %d of them in some "
      "interleavings only, %d with errors that --no-race-points misses; %.1f s\n",
      static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(first + kProgramsPerChunk - 1),
      static_cast<unsigned long long>(interleavings), with_errors, in_some_interleavings,
      missed_without_race_points, seconds);
  // The comparison has teeth: errors that only some interleavings have, some of which a
  // strategy that does not see every access conflict misses.
  EXPECT_GT(in_some_interleavings, 0);
  EXPECT_GT(missed_without_race_points, 0);
  if (!HasFailure()) fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Chunks, MemoryDifferential, ::testing::Range(0, kChunks));

}  // namespace
}  // namespace weft::testing
