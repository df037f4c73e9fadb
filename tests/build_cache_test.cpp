// The builds `weft check` keeps (build_cache.hpp, program_build.hpp): the cache itself, and the
// command line using it, which must rebuild whenever anything the build read has changed.
#include "weft/driver/build_cache.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "native_cli.hpp"

namespace fs = std::filesystem;
using weft::driver::BuildCache;
using weft::driver::BuildDescription;
using weft::test::CliRun;
using weft::test::shell;

namespace {

// A directory of this test's own, empty at the start.
fs::path scratch(const std::string& name) {
  return weft::test::scratch_dir("weft-build-cache", name);
}

void write(const fs::path& path, const std::string& text) {
  weft::test::write_file(path, text);
}

TEST(BuildCacheParts, DependencyFilesAreReadAsMakeWritesThem) {
  const auto deps = weft::driver::dependency_file_prerequisites(
      "/tmp/x/prog: /tmp/x/prog.c /usr/include/stdio.h \\\n"
      "  /tmp/x/my\\ header.h /tmp/x/c$$ost.h\n"
      "/usr/include/stdio.h:\n");
  EXPECT_EQ(deps, (std::vector<std::string>{"/tmp/x/prog.c", "/usr/include/stdio.h",
                                            "/tmp/x/my header.h", "/tmp/x/c$ost.h"}));
}

TEST(BuildCacheParts, FlagsThatReadFilesWeftCannotListAreNotKept) {
  using weft::driver::uncacheable_flags;
  EXPECT_FALSE(uncacheable_flags({"-DN=3", "-O2", "-lm", "-lpthread", "-Iinclude"}));
  EXPECT_TRUE(uncacheable_flags({"-luv"}));
  EXPECT_TRUE(uncacheable_flags({"-L/opt/lib"}));
  EXPECT_TRUE(uncacheable_flags({"-Wl,--wrap=malloc"}));
  EXPECT_TRUE(uncacheable_flags({"@flags.txt"}));
  EXPECT_TRUE(uncacheable_flags({"-MD"}));
  const fs::path dir = scratch("flags");
  write(dir / "extra.o", "x");
  write(dir / "ignore.txt", "x");
  const auto files = weft::driver::files_named_in_flags(
      {(dir / "extra.o").string(), "-fsanitize-ignorelist=" + (dir / "ignore.txt").string(),
       "-DX=" + (dir / "absent").string(), "-O1"});
  EXPECT_EQ(files,
            (std::vector<std::string>{(dir / "extra.o").string(), (dir / "ignore.txt").string()}));
}

TEST(BuildCacheParts, AKeptBuildIsFoundOnlyWhileItsDescriptionAndFilesAreUnchanged) {
  const fs::path dir = scratch("cache");
  const BuildCache cache(dir / "builds");
  write(dir / "prog", "the program");
  write(dir / "header.h", "#define N 1\n");
  const BuildDescription description{"flag -O0\nsource prog.c\n"};
  EXPECT_FALSE(cache.find(description));
  ASSERT_FALSE(cache.keep(description, {(dir / "header.h").string()}, dir / "prog", "warned\n"));
  const auto kept = cache.find(description);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->program.filename(), "prog");
  EXPECT_EQ(kept->diagnostics, "warned\n");
  EXPECT_FALSE(cache.find({"flag -O1\nsource prog.c\n"}));
  write(dir / "header.h", "#define N 2\n");  // same size, other contents
  EXPECT_FALSE(cache.find(description));
  write(dir / "header.h", "#define N 1\n");
  EXPECT_TRUE(cache.find(description));
  fs::remove(dir / "header.h");
  EXPECT_FALSE(cache.find(description));
}

TEST(BuildCacheParts, TheLeastRecentlyUsedEntriesGoBeyondTheLimit) {
  const fs::path dir = scratch("cache");
  const BuildCache cache(dir / "builds");
  write(dir / "prog", "p");
  const auto description = [](std::size_t i) {
    return BuildDescription{"source " + std::to_string(i) + "\n"};
  };
  ASSERT_FALSE(cache.keep(description(0), {}, dir / "prog", ""));
  for (std::size_t i = 1; i < BuildCache::kMaxEntries; ++i) {
    ASSERT_FALSE(cache.keep(description(i), {}, dir / "prog", ""));
    // Entry 0 used after every other: it stays, and entry 1 is the least recently used.
    ASSERT_TRUE(cache.find(description(0)));
  }
  ASSERT_FALSE(cache.keep(description(BuildCache::kMaxEntries), {}, dir / "prog", ""));
  EXPECT_TRUE(cache.find(description(0)));
  EXPECT_FALSE(cache.find(description(1)));
  EXPECT_TRUE(cache.find(description(2)));
  EXPECT_TRUE(cache.find(description(BuildCache::kMaxEntries)));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir / "builds")) ++entries;
  EXPECT_EQ(entries, BuildCache::kMaxEntries);
}

TEST(BuildCacheParts, APlanIsFoundByItsWholeKeyAndTheLeastRecentlyUsedGo) {
  const fs::path dir = scratch("cache");
  const BuildCache cache(dir / "builds");
  const auto key = [](std::size_t i) { return BuildDescription{"plan " + std::to_string(i)}; };
  cache.keep_plan(key(0), "commands 0\n");
  EXPECT_EQ(cache.find_plan(key(0)), "commands 0\n");
  EXPECT_FALSE(cache.find_plan(BuildDescription{"plan 0 and more"}));
  for (std::size_t i = 1; i <= BuildCache::kMaxEntries; ++i) {
    cache.keep_plan(key(i), "commands " + std::to_string(i) + "\n");
    ASSERT_TRUE(cache.find_plan(key(0)));  // used after every other: it stays
  }
  EXPECT_FALSE(cache.find_plan(key(1)));
  EXPECT_EQ(cache.find_plan(key(2)), "commands 2\n");
  std::size_t plans = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir / "builds" / "plans")) ++plans;
  EXPECT_EQ(plans, BuildCache::kMaxEntries);
  // Plans are not entries: keeping builds does not evict them, nor they builds.
  write(dir / "prog", "p");
  ASSERT_FALSE(cache.keep(BuildDescription{"source 0\n"}, {}, dir / "prog", ""));
  EXPECT_TRUE(cache.find(BuildDescription{"source 0\n"}));
  EXPECT_TRUE(cache.find_plan(key(2)));
}

// `weft check` of prog.c in `dir` with its own cache, as JSON.
CliRun check_in(const fs::path& dir, const std::string& options = "") {
  return shell("cd " + dir.string() + " && WEFT_BUILD_CACHE=" + (dir / "builds").string() + " " +
               WEFT_BIN + " check prog.c --json -q --replay-file " +
               (dir / "replay.json").string() + " " + options);
}

bool reused(const CliRun& r) {
  return r.result["build"]["reused"].get<bool>();
}

TEST(BuildCacheCli, AChangedHeaderIsRebuiltAndAnUnchangedProgramIsNot) {
  const fs::path dir = scratch("program");
  write(dir / "limit.h", "#define LIMIT 2\n");
  write(dir / "prog.c",
        "#include <assert.h>\n#include <pthread.h>\n#include \"limit.h\"\n"
        "static int n; static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\n"
        "static void *add(void *a) { pthread_mutex_lock(&m); n++; pthread_mutex_unlock(&m);"
        " return a; }\n"
        "int main(void) { pthread_t t[2]; for (int i = 0; i < 2; i++)"
        " pthread_create(&t[i], 0, add, 0);\n"
        "  for (int i = 0; i < 2; i++) pthread_join(t[i], 0); assert(n <= LIMIT); }\n");
  const CliRun first = check_in(dir);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_FALSE(reused(first));
  const CliRun again = check_in(dir);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(reused(again));
  EXPECT_EQ(again.result["statistics"]["executions"], first.result["statistics"]["executions"]);

  write(dir / "limit.h", "#define LIMIT 1\n");
  const CliRun changed = check_in(dir);
  EXPECT_EQ(changed.exit_code, 1) << changed.err;
  EXPECT_FALSE(reused(changed));
  // Other flags are another build, and --no-build-cache builds every time.
  const CliRun flagged = check_in(dir, "-- -DUNUSED=1");
  EXPECT_EQ(flagged.exit_code, 1);
  EXPECT_FALSE(reused(flagged));
  EXPECT_FALSE(reused(check_in(dir, "--no-build-cache")));
  EXPECT_TRUE(reused(check_in(dir)));
}

std::size_t plans_in(const fs::path& dir) {
  std::size_t plans = 0;
  std::error_code ec;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir / "builds" / "plans", ec))
    ++plans;
  return plans;
}

TEST(BuildCacheCli, AnEditedOrAnotherProgramIsBuiltFromTheKeptPlan) {
  const fs::path dir = scratch("program");
  const auto program = [](int limit) {
    return "#include <assert.h>\n#include <pthread.h>\n"
           "static int n; static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\n"
           "static void *add(void *a) { pthread_mutex_lock(&m); n++; pthread_mutex_unlock(&m);"
           " return a; }\n"
           "int main(void) { pthread_t t[2]; for (int i = 0; i < 2; i++)"
           " pthread_create(&t[i], 0, add, 0);\n"
           "  for (int i = 0; i < 2; i++) pthread_join(t[i], 0); assert(n <= " +
           std::to_string(limit) + "); }\n";
  };
  write(dir / "prog.c", program(2));
  const CliRun first = check_in(dir);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(plans_in(dir), 1u);
  // The edit is built (from the plan: no other is made) and checked: now the assertion fails.
  write(dir / "prog.c", program(1));
  const CliRun edited = check_in(dir);
  EXPECT_EQ(edited.exit_code, 1) << edited.err;
  EXPECT_FALSE(reused(edited));
  EXPECT_EQ(edited.result["bugs"][0]["kind"], "assertion failure") << edited.out;
  EXPECT_EQ(plans_in(dir), 1u);
  // Another program, in a subdirectory, with the same flags: the same plan.
  fs::create_directories(dir / "more");
  write(dir / "more" / "other.c",
        "#include <assert.h>\nint main(int argc, char **argv) { assert(argc == 7); }\n");
  const CliRun other =
      shell("cd " + dir.string() + " && WEFT_BUILD_CACHE=" + (dir / "builds").string() + " " +
            WEFT_BIN + " check more/other.c --json -q");
  EXPECT_EQ(other.exit_code, 1) << other.err;
  EXPECT_EQ(other.result["bugs"][0]["kind"], "assertion failure") << other.out;
  EXPECT_EQ(plans_in(dir), 1u);
  // A program that does not compile, built from the plan: the compiler's message, and the
  // build's failure.
  write(dir / "prog.c", "int main(void) { return undeclared_here; }\n");
  const CliRun broken = check_in(dir);
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("undeclared_here"), std::string::npos) << broken.err;
  EXPECT_NE(broken.err.find("weft: error: compiling 'prog.c' failed"), std::string::npos)
      << broken.err;
}

// A plan naming a startup object that is gone (as after a compiler upgrade) is made again.
TEST(BuildCacheCli, APlanNamingAFileThatIsGoneIsMadeAgain) {
  const fs::path dir = scratch("program");
  write(dir / "prog.c", "int main(void) { return 0; }\n");
  ASSERT_EQ(check_in(dir).exit_code, 0);
  ASSERT_EQ(plans_in(dir), 1u);
  const fs::path plan = fs::directory_iterator(dir / "builds" / "plans")->path();
  std::string text;
  {
    std::ifstream in(plan);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string object = "crti.o";
  const auto at = text.find(object);
  ASSERT_NE(at, std::string::npos) << text;
  const auto start = text.rfind('\x1f', at) + 1;
  text.replace(start, at + object.size() - start, "/no/such/dir/crti.o");
  write(plan, text);
  write(dir / "prog.c", "int main(void) { return 0; }\n// edited\n");
  const CliRun again = check_in(dir);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err, "");
  std::ifstream in(plan);
  const std::string remade((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(remade.find("/no/such/dir"), std::string::npos);
  EXPECT_NE(remade.find(object), std::string::npos);
}

TEST(BuildCacheCli, AKeptBuildShowsTheCompilersWarningsAgain) {
  const fs::path dir = scratch("program");
  write(dir / "prog.c", "int main(void) { int unused_here; return 0; }\n");
  const CliRun first = check_in(dir, "-- -Wunused-variable");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const CliRun again = check_in(dir, "-- -Wunused-variable");
  EXPECT_TRUE(reused(again));
  EXPECT_NE(first.err.find("unused variable 'unused_here'"), std::string::npos) << first.err;
  EXPECT_EQ(again.err, first.err);
}

TEST(BuildCacheCli, ACacheThatCannotBeWrittenIsOneWarningAndTheRunGoesOn) {
  const fs::path dir = scratch("program");
  write(dir / "prog.c", "int main(void) { return 0; }\n");
  const CliRun r = shell("cd " + dir.string() + " && WEFT_BUILD_CACHE=/proc/weft-builds " +
                         WEFT_BIN + " check prog.c --json -q");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(reused(r));
  EXPECT_NE(r.err.find("weft: warning: the build is not kept for next time: cannot create "
                       "/proc/weft-builds"),
            std::string::npos)
      << r.err;
}

TEST(BuildCacheCli, ABuildReadingALibraryFromTheSearchPathIsNotKept) {
  const fs::path dir = scratch("program");
  write(dir / "prog.c", "int main(void) { return 0; }\n");
  EXPECT_FALSE(reused(check_in(dir, "-- -L" + dir.string())));
  EXPECT_FALSE(reused(check_in(dir, "-- -L" + dir.string())));
  // Only its plan is kept: what the driver runs does not depend on the library's contents.
  std::vector<fs::path> kept;
  for (const auto& e : fs::directory_iterator(dir / "builds")) kept.push_back(e.path().filename());
  EXPECT_EQ(kept, std::vector<fs::path>{"plans"});
  EXPECT_EQ(plans_in(dir), 1u);
}

}  // namespace
