// Memory errors on the heap (issue 20, docs/memory-errors.md): one program per kind under
// tests/native/, each found with a report in the program's terms and replayable; the use after
// free that needs one interleaving is found by optimal DPOR in its second execution; leaks only
// with --leaks; and --no-memory-checks turns it all off (what weft did before).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "native_cli.hpp"

namespace {

using namespace weft::test;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::set<std::string> bug_kinds(const CliRun& r) {
  std::set<std::string> kinds;
  for (const auto& bug : r.result["bugs"]) kinds.insert(bug["kind"].get<std::string>());
  return kinds;
}

TEST(MemoryErrors, UseAfterFreeInOneInterleavingIsFoundByOptimalDporInItsSecondExecution) {
  const CliRun r = check("use_after_free_published.c", "--strategy optimal");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug_kind(r), "use after free");
  const std::string m = first_bug_message(r);
  EXPECT_TRUE(contains(m, "read of 4 bytes at use_after_free_published.c:24 by thread 0,")) << m;
  EXPECT_TRUE(contains(m,
                       "the 16-byte block allocated at use_after_free_published.c:19 by "
                       "thread 0, freed at use_after_free_published.c:13 by thread 0.0"))
      << m;
  // The first execution runs main on past the flag; the second is the other trace.
  EXPECT_EQ(stat(r, "executions"), 2u);
  // Two Mazurkiewicz traces in all: optimal DPOR explores exactly those; every interleaving
  // (DFS without sleep sets) is more, with the same bug.
  const CliRun all = check("use_after_free_published.c", "--strategy optimal --all-bugs");
  EXPECT_EQ(stat(all, "executions"), 2u) << all.out;
  const CliRun dfs =
      check("use_after_free_published.c", "--strategy dfs --no-sleep-sets --all-bugs");
  EXPECT_EQ(bug_kinds(dfs), std::set<std::string>{"use after free"});
  EXPECT_GT(stat(dfs, "executions"), 2u);
}

TEST(MemoryErrors, ReplayReproducesTheUseAfterFree) {
  ASSERT_EQ(check("use_after_free_published.c").exit_code, 1);
  const CliRun r = weft_cli("replay --json " + replay_file("use_after_free_published.c"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.result["bug"]["kind"], "use after free") << r.out;
  EXPECT_TRUE(r.result["reproduced"].get<bool>()) << r.out;
}

TEST(MemoryErrors, NoMemoryChecksMissesThemAsBefore) {
  for (const char* file : {"use_after_free_published.c", "double_free.c", "heap_overflow.c",
                           "heap_underflow.c", "freed_realloc.c", "heap_far_overflow.c"}) {
    const CliRun r = check(file, "--no-memory-checks --all-bugs");
    EXPECT_EQ(r.exit_code, 0) << file << ": " << r.out << r.err;
  }
}

TEST(MemoryErrors, FreeRacingWithAReadIsARaceAndAUseAfterFree) {
  // The first example: main frees what a thread may still read. Both orders are tried:
  // the free is an operation that conflicts with the read.
  const CliRun sync = check("use_after_free_race.c", "--all-bugs");
  ASSERT_EQ(sync.exit_code, 1) << sync.out;
  EXPECT_EQ(bug_kinds(sync), (std::set<std::string>{"data race", "use after free"}));
  for (const auto& bug : sync.result["bugs"]) {
    if (bug["kind"] == "data race") {
      EXPECT_TRUE(contains(bug["message"].get<std::string>(),
                           "free by thread 0 at use_after_free_race.c:22"))
          << bug["message"];
    }
  }
  const CliRun all = check("use_after_free_race.c", "--points=all --all-bugs");
  EXPECT_EQ(bug_kinds(all), std::set<std::string>{"use after free"}) << all.out;
  EXPECT_EQ(stat(all, "executions"), 2u);  // the read before the free, and after it
}

TEST(MemoryErrors, AUseAfterFreeIsAlsoARaceWithTheFreeSoTheOtherOrderIsExploredToo) {
  // Found by the memory differential: the write comes before the free only in interleavings
  // that DPOR reaches through the race, which the write reports even when it is itself a use
  // after free; in them main's free after the joins is a double free.
  const CliRun sync = check("free_races_with_a_write.c", "--all-bugs");
  ASSERT_EQ(sync.exit_code, 1) << sync.out;
  EXPECT_EQ(bug_kinds(sync), (std::set<std::string>{"data race", "use after free", "double free"}))
      << sync.out;
  int races = 0;
  for (const auto& bug : sync.result["bugs"])
    if (bug["kind"] == "data race") {
      ++races;
      // The same words whichever of the two ran first (the block as it was when freed): listed
      // once.
      const std::string m = bug["message"].get<std::string>();
      EXPECT_TRUE(contains(m,
                           "data race on the 8-byte block allocated at "
                           "free_races_with_a_write.c:26 by thread 0 (0x"))
          << m;
      EXPECT_TRUE(contains(m,
                           "free by thread 0.0 at free_races_with_a_write.c:14 and write (4 bytes) "
                           "by thread 0.1 at free_races_with_a_write.c:21"))
          << m;
    }
  EXPECT_EQ(races, 1) << sync.out;
  const CliRun all = check("free_races_with_a_write.c", "--points=all --all-bugs");
  EXPECT_EQ(bug_kinds(all), (std::set<std::string>{"use after free", "double free"})) << all.out;
}

TEST(MemoryErrors, ReallocIsOneOperationBeforeItCopiesTheBlock) {
  // With main's write in the copy the thread frees the new block twice; without it, main writes
  // to the old block after realloc freed it.
  for (const char* options : {"--points=all --all-bugs", "--all-bugs"}) {
    const CliRun r = check("realloc_copies_a_write.c", options);
    ASSERT_EQ(r.exit_code, 1) << options << ": " << r.out;
    std::set<std::string> kinds = bug_kinds(r);
    kinds.erase("data race");
    EXPECT_EQ(kinds, (std::set<std::string>{"double free", "use after free"}))
        << options << ": " << r.out;
  }
}

TEST(MemoryErrors, AnOverflowPastABlockIsTheSameBugWhetherOrNotTheBlockWasFreed) {
  // Found by the memory differential: a read just past a block (in its slack, or in the next
  // block's header) is an overflow before and after another thread frees the block, with the
  // same report; every interleaving (DFS without sleep sets) has that one bug.
  for (const char* file : {"free_past_the_end.c", "overflow_past_a_freed_block.c"}) {
    const CliRun dfs = check(file, "--points=all --strategy dfs --no-sleep-sets --all-bugs");
    ASSERT_EQ(dfs.exit_code, 1) << dfs.out;
    ASSERT_EQ(dfs.result["bugs"].size(), 1u) << dfs.out;
    EXPECT_EQ(first_bug_kind(dfs), "heap buffer overflow");
    EXPECT_TRUE(contains(first_bug_message(dfs), "0 bytes after the end of the"));
    EXPECT_FALSE(contains(first_bug_message(dfs), ", freed at")) << first_bug_message(dfs);
    for (const char* options : {"--points=all --all-bugs", "--all-bugs"}) {
      const CliRun r = check(file, options);
      ASSERT_EQ(r.exit_code, 1) << r.out;
      std::set<std::string> found;
      for (const auto& bug : r.result["bugs"])
        if (bug["kind"] != "data race")
          found.insert(bug["kind"].get<std::string>() + ": " + bug["message"].get<std::string>());
      EXPECT_EQ(found, std::set<std::string>{"heap buffer overflow: " + first_bug_message(dfs)})
          << file << " " << options;
    }
  }
}

TEST(MemoryErrors, DoubleFreeNamesBothFrees) {
  const CliRun r = check("double_free.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "double free");
  const std::string m = first_bug_message(r);
  EXPECT_TRUE(contains(m,
                       "free at double_free.c:11 by thread 0.1 of the 32-byte block allocated "
                       "at double_free.c:17 by thread 0, freed at double_free.c:11 by thread "
                       "0.0"))
      << m;
}

TEST(MemoryErrors, OneElementPastTheEndIsAnOverflow) {
  const CliRun r = check("heap_overflow.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "heap buffer overflow");
  EXPECT_TRUE(contains(first_bug_message(r),
                       "write of 4 bytes at heap_overflow.c:6 by thread 0, 0 bytes after the end "
                       "of the 16-byte block allocated at heap_overflow.c:5"))
      << first_bug_message(r);
}

TEST(MemoryErrors, AWriteFarPastTheHeapIsAnOverflowNotSilence) {
  const CliRun r = check("heap_far_overflow.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "heap buffer overflow");
  EXPECT_TRUE(contains(first_bug_message(r), "write of 1048576 bytes at heap_far_overflow.c:8"))
      << first_bug_message(r);
}

TEST(MemoryErrors, ReadBeforeTheStartIsAnUnderflow) {
  const CliRun r = check("heap_underflow.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "heap buffer overflow");
  EXPECT_TRUE(contains(first_bug_message(r),
                       "8 bytes before the 64-byte block allocated at "
                       "heap_underflow.c:5"))
      << first_bug_message(r);
}

TEST(MemoryErrors, FreeOfAnInteriorPointerOrAGlobalIsInvalid) {
  const CliRun interior = check("invalid_free.c");
  ASSERT_EQ(interior.exit_code, 1) << interior.out;
  EXPECT_EQ(first_bug_kind(interior), "invalid free");
  EXPECT_TRUE(contains(first_bug_message(interior),
                       "byte 8 of the 64-byte block allocated at invalid_free.c:7"))
      << first_bug_message(interior);
  const CliRun global = check("invalid_free.c", "-- -DFREE_GLOBAL -Wno-free-nonheap-object");
  ASSERT_EQ(global.exit_code, 1) << global.out;
  EXPECT_EQ(first_bug_kind(global), "invalid free");
  EXPECT_TRUE(contains(first_bug_message(global), "table")) << first_bug_message(global);
  EXPECT_TRUE(contains(first_bug_message(global), "not a heap block")) << first_bug_message(global);
}

TEST(MemoryErrors, ReallocOfAFreedBlock) {
  const CliRun r = check("freed_realloc.c");
  ASSERT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(first_bug_kind(r), "realloc of freed memory");
  EXPECT_TRUE(contains(first_bug_message(r), "freed at freed_realloc.c:9 by thread 0.0"))
      << first_bug_message(r);
}

TEST(MemoryErrors, ArrayNewFreedWithDelete) {
  const CliRun r = check("mismatched_delete.cpp", "-- -Wno-mismatched-new-delete");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug_kind(r), "mismatched free");
  const std::string m = first_bug_message(r);
  EXPECT_TRUE(contains(m, "delete at mismatched_delete.cpp:12")) << m;
  EXPECT_TRUE(contains(m, "new[]")) << m;
  EXPECT_TRUE(contains(m, "allocated at mismatched_delete.cpp:9")) << m;
}

TEST(MemoryErrors, LeaksOnlyWithTheOptionAndOncePerSite) {
  EXPECT_EQ(check("leak.c", "--all-bugs").exit_code, 0);
  const CliRun r = check("leak.c", "--leaks --all-bugs");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  ASSERT_EQ(r.result["bugs"].size(), 1u) << r.out;
  EXPECT_EQ(first_bug_kind(r), "memory leak");
  EXPECT_TRUE(contains(first_bug_message(r), "24-byte block allocated at leak.c:8 by thread 0.0"))
      << first_bug_message(r);
}

TEST(MemoryErrors, LeaksAreReportedAfterADataRace) {
  // Found by the memory differential: a race stops no thread, and the program's end is still
  // where leaks are; --points=all (no races) and --points=sync must find the same leak.
  const CliRun sync = check("leak_after_race.c", "--leaks --all-bugs");
  ASSERT_EQ(sync.exit_code, 1) << sync.out;
  EXPECT_EQ(bug_kinds(sync), (std::set<std::string>{"data race", "memory leak"})) << sync.out;
  const CliRun all = check("leak_after_race.c", "--points=all --leaks --all-bugs");
  EXPECT_EQ(bug_kinds(all), std::set<std::string>{"memory leak"}) << all.out;
}

}  // namespace
