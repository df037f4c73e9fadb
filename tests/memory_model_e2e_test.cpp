// The memory models on native programs (docs/memory-models.md): --memory-model=tso finds what
// x86's store buffers allow, names the model in the verdict and in the replay file, and is
// refused where it cannot be honoured.
#include <gtest/gtest.h>

#include <string>

#include "native_cli.hpp"

namespace weft::test {
namespace {

constexpr const char* kPeterson = "peterson_release_acquire.c";

bool interleaving_has(const CliRun& r, const std::string& operation) {
  for (const auto& step : r.result["bugs"][0]["interleaving"])
    if (step.dump().find(operation) != std::string::npos) return true;
  return false;
}

TEST(MemoryModelEndToEnd, PetersonWithReleaseAcquireExcludesUnderScOnly) {
  const CliRun sc = check(kPeterson);
  ASSERT_EQ(sc.exit_code, 0) << sc.out << sc.err;
  EXPECT_EQ(sc.result["memory_model"], "sequential-consistency");

  const CliRun tso = check(kPeterson, "--memory-model=tso");
  ASSERT_EQ(tso.exit_code, 1) << tso.out << tso.err;
  EXPECT_EQ(first_bug_kind(tso), "assertion failure");
  EXPECT_NE(first_bug_message(tso).find("others == 0"), std::string::npos) << tso.out;
  EXPECT_EQ(tso.result["memory_model"], "x86-tso");
  // Both threads' flags waited in their buffers while they read each other's.
  EXPECT_TRUE(interleaving_has(tso, "buffered_store")) << tso.out;
  EXPECT_TRUE(interleaving_has(tso, "flush")) << tso.out;
  // The report says which store a load did not see, and where it waited.
  const CliRun text = weft_cli("check " + fixture(kPeterson) + " --memory-model=tso");
  EXPECT_NE(text.out.find("^ does not see the store of thread 0."), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("peterson_release_acquire.c:16 (worker)): it is still in that "
                          "thread's store buffer"),
            std::string::npos)
      << text.out;

  // With an mfence between the stores and the loads, x86 excludes too; the verdict says which
  // model every behaviour was explored under.
  const CliRun fenced = weft_cli("check " + fixture(kPeterson) + " --memory-model=tso -- -DFENCED");
  ASSERT_EQ(fenced.exit_code, 0) << fenced.out << fenced.err;
  EXPECT_NE(fenced.out.find("every behaviour under x86-TSO was explored"), std::string::npos)
      << fenced.out;
}

// Chase-Lev with its fences as the code has them (tests/native/chase_lev.c): explored completely
// under both models with them; without take()'s fence, an item taken twice under TSO only.
TEST(MemoryModelEndToEnd, ChaseLevNeedsTheFenceInTakeOnX86) {
  for (const char* model : {"sc", "tso"}) {
    const CliRun fenced =
        weft_cli("check --json -q " + fixture("chase_lev.c") + " --memory-model=" + model);
    EXPECT_EQ(fenced.exit_code, 0) << model << ": " << fenced.out << fenced.err;
  }
  const CliRun sc = weft_cli("check --json -q " + fixture("chase_lev.c") +
                             " --memory-model=sc -- -DNO_TAKE_FENCE");
  EXPECT_EQ(sc.exit_code, 0) << sc.out << sc.err;
  const CliRun tso = weft_cli("check --json -q " + fixture("chase_lev.c") +
                              " --memory-model=tso -- -DNO_TAKE_FENCE");
  ASSERT_EQ(tso.exit_code, 1) << tso.out << tso.err;
  EXPECT_NE(first_bug_message(tso).find("an item was taken twice"), std::string::npos) << tso.out;
}

TEST(MemoryModelEndToEnd, TheReplayFileKeepsTheModel) {
  ASSERT_EQ(check(kPeterson, "--memory-model=tso").exit_code, 1);
  const CliRun r = weft_cli("replay --json " + replay_file(kPeterson));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  ASSERT_TRUE(r.result.contains("reproduced")) << r.out;
  EXPECT_TRUE(r.result["reproduced"].get<bool>());
}

TEST(MemoryModelEndToEnd, WhatCannotExploreTsoIsRefusedWithAOneLineError) {
  for (const std::string options : {"--strategy unfolding", "--thread-model=on",
                                    "--points=all "
                                    "--strategy "
                                    "stateful"}) {
    const CliRun r = weft_cli("check " + fixture(kPeterson) + " --memory-model=tso " + options);
    EXPECT_EQ(r.exit_code, 2) << options << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("weft: error: "), std::string::npos) << options << ": " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << options << ": " << r.err;
  }
  const CliRun unknown = weft_cli("check " + fixture(kPeterson) + " --memory-model=arm");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out << unknown.err;
}

}  // namespace
}  // namespace weft::test
