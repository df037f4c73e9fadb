// End-to-end tests of programs built by weft-cc with AddressSanitizer or UndefinedBehaviorSanitizer
// (docs/sanitizers.md): a sanitizer report in one interleaving is a bug with that interleaving and
// replays; a correct program is explored exactly as without the sanitizer; the sanitizers that
// cannot run under weft are refused in one line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "native_cli.hpp"

namespace {

using nlohmann::json;

using weft::test::CliRun;
using weft::test::fixture;
using weft::test::replay_file;
using weft::test::shell;

std::filesystem::path temporary(const std::string& suffix) {
  const std::string test = weft::test::test_name();
  return std::filesystem::temp_directory_path() / ("weft-sanitizer-" + test + suffix);
}

// `weft check` on a fixture, `compiler_flags` after "--".
CliRun check(const std::string& name, const std::string& compiler_flags = "") {
  return weft::test::check(name, "-- " + compiler_flags);
}

std::uint64_t executions(const CliRun& r) {
  return r.result["statistics"]["executions"].get<std::uint64_t>();
}

const json& first_bug(const CliRun& r) {
  return r.result["bugs"][0];
}

TEST(SanitizerEndToEnd, AddressSanitizerReportInOneInterleavingIsABug) {
  // Silent without the sanitizer: the write past the array hits the worker's own frame.
  const CliRun plain = check("sanitizer_stack_overflow.c");
  ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;

  const CliRun r = check("sanitizer_stack_overflow.c", "-fsanitize=address");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug(r)["kind"], "sanitizer report");
  const std::string message = first_bug(r)["message"].get<std::string>();
  EXPECT_NE(message.find("thread 0.0: AddressSanitizer: stack-buffer-overflow: 4-byte write at "
                         "sanitizer_stack_overflow.c:22 in worker"),
            std::string::npos)
      << message;
  // The first execution runs the worker before grow(): the overflow needs the other order.
  EXPECT_GE(executions(r), 2u);
  bool grow_ran = false;
  for (const auto& step : first_bug(r)["interleaving"])
    grow_ran |= step["thread"] == "0.1" &&
                step["operation"].get<std::string>().find("unlock") != std::string::npos;
  EXPECT_TRUE(grow_ran) << first_bug(r)["interleaving"].dump();
}

TEST(SanitizerEndToEnd, AddressSanitizerReportReplays) {
  ASSERT_EQ(check("sanitizer_stack_overflow.c", "-fsanitize=address").exit_code, 1);
  const CliRun r =
      shell(std::string(WEFT_BIN) + " replay --json " + replay_file("sanitizer_stack_overflow.c"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  ASSERT_TRUE(r.result.contains("reproduced")) << r.out;
  EXPECT_TRUE(r.result["reproduced"].get<bool>());
  // The program's own output is shown on replay: ASan's whole report, with the local's name,
  // which it can give because it knows the stack of the thread that ran (the fiber's).
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("ERROR: AddressSanitizer: stack-buffer-overflow"), std::string::npos) << all;
  EXPECT_NE(all.find("'values'"), std::string::npos) << all;
}

TEST(SanitizerEndToEnd, UndefinedBehaviorSanitizerReportInOneInterleavingIsABugAndReplays) {
  const CliRun plain = check("sanitizer_signed_overflow.c");
  ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;

  const CliRun r = check("sanitizer_signed_overflow.c", "-fsanitize=undefined");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug(r)["kind"], "sanitizer report");
  const std::string message = first_bug(r)["message"].get<std::string>();
  EXPECT_NE(message.find("thread 0.0: UndefinedBehaviorSanitizer: signed integer overflow: "
                         "2147483647 + 1 cannot be represented in type 'int' at "
                         "sanitizer_signed_overflow.c:23"),
            std::string::npos)
      << message;
  EXPECT_GE(executions(r), 2u);

  const CliRun replay =
      shell(std::string(WEFT_BIN) + " replay --json " + replay_file("sanitizer_signed_overflow.c"));
  EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
  ASSERT_TRUE(replay.result.contains("reproduced")) << replay.out;
  EXPECT_TRUE(replay.result["reproduced"].get<bool>());
  EXPECT_NE((replay.out + replay.err).find("runtime error: signed integer overflow"),
            std::string::npos);
}

TEST(SanitizerEndToEnd, UndefinedBehaviorSanitizerAlsoReportsWhenToldToGoOn) {
  // With halt_on_error=0 the program runs on after the report; it is still the thread's bug.
  const CliRun r = shell("UBSAN_OPTIONS=halt_on_error=0 " + std::string(WEFT_BIN) + " check " +
                         fixture("sanitizer_signed_overflow.c") + " --json -q --replay-file " +
                         replay_file("sanitizer_signed_overflow.c") + " -- -fsanitize=undefined");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug(r)["kind"], "sanitizer report");
  EXPECT_NE(first_bug(r)["message"].get<std::string>().find("signed integer overflow"),
            std::string::npos);
}

// A correct program is explored the same with each sanitizer as without: same executions, and
// no report (stale poison on a reused thread stack, or the worker's snapshot restore meeting
// ASan's redzones, would be one).
TEST(SanitizerEndToEnd, CorrectProgramsAreExploredAsWithoutSanitizers) {
  struct Program {
    const char* file;
    const char* flags;
  };
  for (const Program p : {Program{"sanitizer_clean.c", ""}, Program{"locked_counter.c", ""},
                          Program{"thread_local_objects.cpp", ""}}) {
    const CliRun plain = check(p.file, p.flags);
    ASSERT_EQ(plain.exit_code, 0) << p.file << plain.out << plain.err;
    for (const char* sanitizer :
         {"-fsanitize=address", "-fsanitize=undefined", "-fsanitize=address,undefined"}) {
      const CliRun r = check(p.file, std::string(p.flags) + " " + sanitizer);
      EXPECT_EQ(r.exit_code, 0) << p.file << " " << sanitizer << r.out << r.err;
      if (r.exit_code == 0) {
        EXPECT_EQ(executions(r), executions(plain)) << p.file << " " << sanitizer;
      }
    }
  }
}

TEST(SanitizerEndToEnd, SanitizersThatCannotRunUnderWeftAreRefusedInOneLine) {
  for (const char* sanitizer : {"thread", "memory", "leak"}) {
    const CliRun r = shell(std::string(WEFT_CC) + " -fsanitize=" + sanitizer + " -o " +
                           temporary(".bin").string() + " " + fixture("locked_counter.c"));
    EXPECT_EQ(r.exit_code, 2) << sanitizer;
    EXPECT_EQ(r.err.find("weft-cc: error: -fsanitize=" + std::string(sanitizer) +
                         " cannot run under weft: "),
              0u)
        << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  }
  const CliRun minimal =
      shell(std::string(WEFT_CC) + " -fsanitize=undefined -fsanitize-minimal-runtime -o " +
            temporary(".bin").string() + " " + fixture("locked_counter.c"));
  EXPECT_EQ(minimal.exit_code, 2);
  EXPECT_EQ(minimal.err.find("weft-cc: error: -fsanitize-minimal-runtime: weft cannot see"), 0u)
      << minimal.err;
}

TEST(SanitizerEndToEnd, MissingSanitizerRuntimeIsOneLine) {
  // A compiler whose runtime directory has no sanitizer runtimes (clang-14 without
  // libclang-rt-14-dev).
  const auto fake = temporary("-clang");
  {
    std::ofstream script(fake);
    script << "#!/bin/sh\n"
              "if [ \"$1\" = --print-runtime-dir ]; then echo /nonexistent; exit 0; fi\n"
              "exec clang-14 \"$@\"\n";
  }
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  const CliRun r = shell("WEFT_CLANG=" + fake.string() + " " + WEFT_CC + " -fsanitize=address -o " +
                         temporary(".bin").string() + " " + fixture("locked_counter.c"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "weft-cc: error: -fsanitize=address needs the sanitizer runtimes, which are not "
            "installed (Debian: apt-get install libclang-rt-14-dev)\n");
  std::filesystem::remove(fake);
}

}  // namespace
