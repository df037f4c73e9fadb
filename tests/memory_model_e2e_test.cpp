// The memory models on native programs (docs/memory-models.md): --memory-model=tso finds what
// x86's store buffers allow and rc11 what the C/C++ model allows, each named in the verdict and
// in the replay file, and refused where it cannot be honoured.
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
  const CliRun sc = check(kPeterson, "--memory-model=sc");
  ASSERT_EQ(sc.exit_code, 0) << sc.out << sc.err;
  EXPECT_EQ(sc.result["memory_model"], "sequential-consistency");
  // The default model is the C/C++ one, which lets both threads in.
  const CliRun by_default = check(kPeterson);
  ASSERT_EQ(by_default.exit_code, 1) << by_default.out << by_default.err;
  EXPECT_EQ(by_default.result["memory_model"], "rc11");
  EXPECT_NE(first_bug_message(by_default).find("others == 0"), std::string::npos) << by_default.out;

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
  EXPECT_NE(text.out.find("peterson_release_acquire.c:19 (worker)): it is still in that "
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

// RC11 natively (--memory-model=rc11): a load may read any store coherence and happens-before
// allow, which the report names, the schedule carries (";c=step.option") and replay reproduces.
TEST(MemoryModelEndToEnd, PetersonUnderRc11NeedsAnExchangeOfTurn) {
  const CliRun plain = check(kPeterson, "--memory-model=rc11");
  ASSERT_EQ(plain.exit_code, 1) << plain.out << plain.err;
  EXPECT_NE(first_bug_message(plain).find("others == 0"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.result["memory_model"], "rc11");
  const std::string schedule = plain.result["bugs"][0]["schedule"].get<std::string>();
  EXPECT_NE(schedule.find(";c="), std::string::npos) << schedule;
  const CliRun replayed = weft_cli("replay --json " + replay_file(kPeterson));
  ASSERT_TRUE(replayed.result.contains("reproduced")) << replayed.out << replayed.err;
  EXPECT_TRUE(replayed.result["reproduced"].get<bool>()) << replayed.out;
  // The report says which store a load read and which newer one it did not.
  const CliRun text = weft_cli("check " + fixture(kPeterson) + " --memory-model=rc11");
  EXPECT_NE(text.out.find("^ reads 0 from the value it started with, not from the newest, "
                          "thread 0."),
            std::string::npos)
      << text.out;

  // A seq_cst fence is enough on x86, not in C/C++: turn's store can come first in coherence
  // order though the thread that made it saw the other's flag as 0.
  const CliRun fenced =
      weft_cli("check --json -q " + fixture(kPeterson) + " --memory-model=rc11 -- -DFENCED");
  EXPECT_EQ(fenced.exit_code, 1) << fenced.out << fenced.err;
  const CliRun exchange =
      weft_cli("check " + fixture(kPeterson) + " --memory-model=rc11 -- -DEXCHANGE");
  ASSERT_EQ(exchange.exit_code, 0) << exchange.out << exchange.err;
  EXPECT_NE(exchange.out.find("every behaviour under RC11 was explored"), std::string::npos)
      << exchange.out;
}

// Chase-Lev with the fences of Lê et al. explored completely under RC11; without take()'s
// seq_cst fence an item is taken twice.
TEST(MemoryModelEndToEnd, ChaseLevUnderRc11NeedsTheFenceInTake) {
  const CliRun fenced =
      weft_cli("check --json -q " + fixture("chase_lev.c") + " --memory-model=rc11");
  EXPECT_EQ(fenced.exit_code, 0) << fenced.out << fenced.err;
  const CliRun unfenced = weft_cli("check --json -q " + fixture("chase_lev.c") +
                                   " --memory-model=rc11 -- -DNO_TAKE_FENCE");
  ASSERT_EQ(unfenced.exit_code, 1) << unfenced.out << unfenced.err;
  EXPECT_NE(first_bug_message(unfenced).find("an item was taken twice"), std::string::npos)
      << unfenced.out;
}

// TruSt (--strategy=trust) explores each consistent graph once: Peterson's lock with release
// and acquire lets both threads in, Vyukov's form does not; Chase-Lev with its fences is
// explored completely, in fewer complete executions than optimal DPOR runs (one per graph
// against one per trace and option), and without take()'s fence an item is taken twice.
TEST(MemoryModelEndToEnd, TrustFindsWhatOptimalDporFindsInOneExecutionPerGraph) {
  const CliRun peterson = check(kPeterson, "--strategy=trust");
  ASSERT_EQ(peterson.exit_code, 1) << peterson.out << peterson.err;
  EXPECT_EQ(peterson.result["memory_model"], "rc11");
  EXPECT_NE(first_bug_message(peterson).find("others == 0"), std::string::npos) << peterson.out;
  const CliRun vyukov =
      weft_cli("check --json -q --strategy=trust " + fixture(kPeterson) + " -- -DEXCHANGE");
  EXPECT_EQ(vyukov.exit_code, 0) << vyukov.out << vyukov.err;

  const CliRun trust = check("chase_lev.c", "--strategy=trust");
  ASSERT_EQ(trust.exit_code, 0) << trust.out << trust.err;
  EXPECT_EQ(trust.result["complete"], true) << trust.out;
  const CliRun optimal = check("chase_lev.c", "--strategy=optimal");
  ASSERT_EQ(optimal.exit_code, 0) << optimal.out << optimal.err;
  EXPECT_LT(trust.result["statistics"]["complete"].get<int>(),
            optimal.result["statistics"]["complete"].get<int>() / 4)
      << trust.out << optimal.out;
  const CliRun unfenced = weft_cli("check --json -q --strategy=trust " + fixture("chase_lev.c") +
                                   " -- -DNO_TAKE_FENCE");
  ASSERT_EQ(unfenced.exit_code, 1) << unfenced.out << unfenced.err;
  EXPECT_NE(first_bug_message(unfenced).find("an item was taken twice"), std::string::npos)
      << unfenced.out;

  // It explores the C/C++ model only.
  const CliRun sc = weft_cli("check --strategy=trust --memory-model=sc " + fixture(kPeterson));
  EXPECT_EQ(sc.exit_code, 2) << sc.out << sc.err;
  EXPECT_NE(sc.err.find("trust explores the C/C++ model only"), std::string::npos) << sc.err;
}

// Data races under RC11 follow its happens-before: a relaxed unlock does not synchronise with a
// relaxed lock, so the critical sections race; release and acquire order them. Under SC every
// atomic synchronises (and the verdict says weaker orders went unexplored).
TEST(MemoryModelEndToEnd, UnderRc11OnlyAReleaseReadByAnAcquireOrdersPlainAccesses) {
  const CliRun relaxed =
      check("spin_compare_exchange.c", "--memory-model=rc11 -- -DRELAXED -DTHROUGH_CALL");
  ASSERT_EQ(relaxed.exit_code, 1) << relaxed.out << relaxed.err;
  EXPECT_EQ(first_bug_kind(relaxed), "data race");
  EXPECT_NE(first_bug_message(relaxed).find("data race on counter"), std::string::npos)
      << relaxed.out;
  // The report says that only RC11 lets them race.
  EXPECT_NE(first_bug_message(relaxed).find("under RC11: no release of an atomic between them"),
            std::string::npos)
      << relaxed.out;
  const CliRun ordered = check("spin_compare_exchange.c", "--memory-model=rc11");
  EXPECT_EQ(ordered.exit_code, 0) << ordered.out << ordered.err;
  const CliRun sc = check("spin_compare_exchange.c", "--memory-model=sc -- -DRELAXED");
  EXPECT_EQ(sc.exit_code, 0) << sc.out << sc.err;
}

// libstdc++'s shared_ptr loads its two 4-byte reference counts as one 8-byte atomic word when
// it drops the last reference: mixed sizes, which RC11 does not model. They are taken as
// sequentially consistent, and the verdict names them; before, the 8-byte load read an older
// 4-byte store's bytes and weft reported a data race in the control block.
TEST(MemoryModelEndToEnd, AtomicsOfMixedSizesOnTheSameBytesAreTakenAsSequentiallyConsistent) {
  const CliRun r = check("shared_ptr_across_threads.cpp", "--memory-model=rc11");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_TRUE(r.result.contains("weak_atomics_in_libraries")) << r.out;
  EXPECT_NE(r.result["weak_atomics_in_libraries"].dump().find("shared_ptr_base.h"),
            std::string::npos)
      << r.out;
}

// An atomic over 8 bytes is counted in its thread's clock as it is performed: the race detector
// must not take it for the event after (it reported a race between a 16-byte atomic store and a
// plain write its reader made after loading it).
TEST(MemoryModelEndToEnd, AWideAtomicOrdersWhatComesAfterItsReaderUnderRc11) {
  for (const char* model : {"sc", "rc11"}) {
    const CliRun r =
        check("wide_atomic_orders.c", std::string("--memory-model=") + model + " -- -mcx16");
    EXPECT_EQ(r.exit_code, 0) << model << ": " << r.out << r.err;
  }
}

TEST(MemoryModelEndToEnd, AStrategyThatDoesNotExploreRc11IsRefusedWithAOneLineError) {
  const CliRun r =
      weft_cli("check " + fixture(kPeterson) + " --memory-model=rc11 --strategy unfolding");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("weft: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("optimal"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

// Without --strategy, rc11 runs optimal DPOR, which reaches what DFS reaches in fewer executions
// (Chase-Lev: the same complete executions, fewer blocked in sleep sets).
TEST(MemoryModelEndToEnd, Rc11RunsOptimalDporByDefault) {
  const CliRun dpor = check("chase_lev.c", "--memory-model=rc11");
  ASSERT_EQ(dpor.exit_code, 0) << dpor.out << dpor.err;
  EXPECT_EQ(dpor.result["strategy"], "optimal");
  const CliRun dfs = check("chase_lev.c", "--memory-model=rc11 --strategy dfs");
  ASSERT_EQ(dfs.exit_code, 0) << dfs.out << dfs.err;
  EXPECT_EQ(stat(dpor, "complete"), stat(dfs, "complete"));
  EXPECT_LT(stat(dpor, "executions"), stat(dfs, "executions"));
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
