// The build plans `weft check` keeps (build_plan.hpp): read from clang's `-###`, made into
// templates, and filled in again for another build. Checked against the driver itself: a template
// made for one source and filled in for another must be what the driver plans for that other.
#include "weft/driver/build_plan.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "native_cli.hpp"

namespace fs = std::filesystem;
using weft::driver::BuildPlan;
using weft::driver::fill_plan;
using weft::driver::parse_driver_plan;
using weft::driver::plan_template;
using weft::driver::PlanPaths;

namespace {

// A directory of this test's own, empty at the start.
fs::path scratch(const std::string& name) {
  return weft::test::scratch_dir("weft-build-plan", name);
}

void write(const fs::path& path, const std::string& text) {
  weft::test::write_file(path, text);
}

// What weft-cc's (or weft-c++'s) driver plans for building `source` (as given, from `cwd`) into
// `dir`, as `weft check` asks it, with `flags`.
BuildPlan drivers_plan(const fs::path& cwd, const std::string& source, const fs::path& dir,
                       const std::string& flags = "") {
  const bool cxx = fs::path(source).extension() == ".cpp";
  const std::string wrapper = fs::path(WEFT_BIN).parent_path() / (cxx ? "weft-c++" : "weft-cc");
  const std::string program = (dir / fs::path(source).stem()).string();
  const auto r = weft::test::shell("cd " + cwd.string() + " && " + wrapper + " -O0 -MD -MF " +
                                   (dir / "build.d").string() + " " + source + " " + flags +
                                   " -o " + program + " -###");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto plan = parse_driver_plan(r.err);
  EXPECT_TRUE(plan) << r.err;
  return plan.value_or(BuildPlan{});
}

// `plan` with the driver's temporary objects renamed as a template names them.
BuildPlan with_objects_in(BuildPlan plan, const fs::path& dir) {
  std::map<std::string, std::string> renamed;
  for (const auto& command : plan.commands)
    for (std::size_t a = 0; command.size() > 1 && command[1] == "-cc1" && a + 1 < command.size();
         ++a)
      if (command[a] == "-o")
        renamed.emplace(command[a + 1],
                        (dir / ("weft-object-" + std::to_string(renamed.size()) + ".o")).string());
  for (auto& command : plan.commands)
    for (auto& arg : command)
      if (auto it = renamed.find(arg); it != renamed.end()) arg = it->second;
  return plan;
}

TEST(BuildPlanParts, TheDriversCommandsAreReadWithTheirQuoting) {
  const std::string text =
      "Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu\nThread model: posix\n"
      "InstalledDir: /usr/lib/llvm-14/bin\n"
      " \"/usr/bin/clang\" \"-cc1\" \"-D\" \"X=\\\"a b\\$c\\\\d\\\"\" \"-o\" \"/tmp/p-1.o\" "
      "\"p.c\"\n"
      " \"/usr/bin/ld\" \"-o\" \"p\" \"/tmp/p-1.o\"\n";
  const auto plan = parse_driver_plan(text);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->commands.size(), 2u);
  EXPECT_EQ(plan->commands[0][3], "X=\"a b$c\\d\"");
  EXPECT_EQ(plan->commands[0].back(), "p.c");
  EXPECT_EQ(plan->commands[1], (std::vector<std::string>{"/usr/bin/ld", "-o", "p", "/tmp/p-1.o"}));
  EXPECT_FALSE(parse_driver_plan("clang: error: no input files\n"));
  EXPECT_FALSE(parse_driver_plan(" \"/usr/bin/clang\" \"-cc1\n"));  // an argument left open
}

TEST(BuildPlanParts, APlanMadeForOneSourceIsTheDriversPlanForAnother) {
  const fs::path cwd = scratch("cwd");
  fs::create_directories(cwd / "sub");
  write(cwd / "first.c", "int main(void) { return 0; }\n");
  write(cwd / "sub" / "second_one.c", "int main(void) { return 1; }\n");
  const fs::path dir1 = scratch("weft-check-1"), dir2 = scratch("weft-check-2");
  for (const std::string flags : {"", "-DN=3 -Wall -lm"}) {
    const BuildPlan first = drivers_plan(cwd, "first.c", dir1, flags);
    const auto text = plan_template(first, {dir1, "first.c", (dir1 / "first").string()});
    ASSERT_TRUE(text) << flags;
    // Nothing of the first build is left in the template.
    EXPECT_EQ(text->find("first"), std::string::npos) << *text;
    EXPECT_EQ(text->find(dir1.string()), std::string::npos) << *text;
    const PlanPaths second{dir2, "sub/second_one.c", (dir2 / "second_one").string()};
    const auto filled = fill_plan(*text, second);
    ASSERT_TRUE(filled);
    EXPECT_EQ(filled->commands,
              with_objects_in(drivers_plan(cwd, "sub/second_one.c", dir2, flags), dir2).commands)
        << flags;
    // And for the first build itself.
    EXPECT_EQ(fill_plan(*text, {dir1, "first.c", (dir1 / "first").string()})->commands,
              with_objects_in(first, dir1).commands);
  }
}

TEST(BuildPlanParts, PlansOfOtherShapesMakeNoTemplate) {
  const fs::path cwd = scratch("cwd");
  const fs::path dir = scratch("weft-check-1");
  write(cwd / "c.c", "int main(void) { return 0; }\n");
  // A source whose name is an argument of its own compile (-x c): a template could not tell them
  // apart.
  EXPECT_FALSE(plan_template(drivers_plan(cwd, "c.c", dir), {dir, "c.c", (dir / "c").string()}));
  // One command: a compile only.
  write(cwd / "p.c", "int main(void) { return 0; }\n");
  EXPECT_FALSE(
      plan_template(drivers_plan(cwd, "p.c", dir, "-c"), {dir, "p.c", (dir / "p").string()}));
  // A compile whose object is not a temporary one.
  BuildPlan odd = drivers_plan(cwd, "p.c", dir);
  ASSERT_GE(odd.commands.size(), 2u);
  for (std::size_t a = 0; a + 1 < odd.commands[0].size(); ++a)
    if (odd.commands[0][a] == "-o") odd.commands[0][a + 1] = (dir / "p.o").string();
  EXPECT_FALSE(plan_template(odd, {dir, "p.c", (dir / "p").string()}));
  EXPECT_FALSE(fill_plan("not a plan\n", {dir, "p.c", (dir / "p").string()}));
}

#ifdef WEFT_BUILD_TOOL
// weft-build compiles and links in its own process: the program must be the one clang's and
// ld.lld's own processes make, byte for byte, and its failures theirs.
TEST(BuildTool, BuildsTheProgramClangAndLldBuild) {
  const fs::path dir = scratch("weft-check-1");
  const std::vector<std::pair<std::string, std::string>> builds = {
      {"lost_update.c", ""},
      {"cpp_bank.cpp", "-std=c++20"},
      {"omp_counter.c", "-fopenmp"},
      {"lost_update.c", "-O2 -fsanitize=address,undefined"},
  };
  for (const auto& [fixture, flags] : builds) {
    const fs::path source = weft::test::fixture(fixture);
    const BuildPlan plan = drivers_plan(dir, source.string(), dir, flags);
    const std::string program = (dir / source.stem()).string();
    const auto filled =
        fill_plan(plan_template(plan, {dir.string(), source.string(), program}).value_or(""),
                  {dir.string(), source.string(), program});
    ASSERT_TRUE(filled) << fixture;
    ASSERT_EQ(filled->commands.size(), 2u);
    // Each command a process of its own, as clang's driver would run them.
    for (const auto& command : filled->commands) {
      std::string line;
      for (const auto& arg : command) line += "'" + arg + "' ";
      ASSERT_EQ(weft::test::shell("cd " + dir.string() + " && " + line).exit_code, 0) << line;
    }
    fs::rename(program, dir / "by-processes");
    fs::remove(dir / "weft-object-0.o");
    write(dir / "plan", weft::driver::plan_text(*filled).value());
    const auto r = weft::test::shell("cd " + dir.string() + " && " + WEFT_BUILD_TOOL + " plan");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto by_processes =
        weft::test::shell("cmp " + (dir / "by-processes").string() + " " + program);
    EXPECT_EQ(by_processes.exit_code, 0) << fixture << " " << flags << ": " << by_processes.out;
  }
}

// weft-build runs clang's driver itself for a first build: it must plan what the clang binary's
// driver plans, and the build must be made.
TEST(BuildTool, PlansAsClangsDriverDoes) {
  const fs::path dir = scratch("weft-check-1");
  for (const auto& [fixture, flags] : std::vector<std::pair<std::string, std::string>>{
           {"lost_update.c", ""},
           {"lost_update.c", "-O1 -DX=\\\"two\\ words\\\" -Wall -w -lm"},
           {"cpp_bank.cpp", "-std=c++20"},
           {"omp_counter.c", "-fopenmp"},
           {"lost_update.c", "-fsanitize=address,undefined"}}) {
    const fs::path source = weft::test::fixture(fixture);
    const std::string wrapper =
        fs::path(WEFT_BIN).parent_path() / (source.extension() == ".cpp" ? "weft-c++" : "weft-cc");
    const std::string program = (dir / source.stem()).string();
    const std::string arguments = " -O0 -MD -MF " + (dir / "build.d").string() + " " +
                                  source.string() + " " + flags + " -o " + program;
    const auto printed = weft::test::shell(wrapper + " --weft-print-command" + arguments);
    ASSERT_EQ(printed.exit_code, 0) << printed.err;
    std::string command;
    std::istringstream lines(printed.out);
    for (std::string line; std::getline(lines, line);) command += " '" + line + "'";
    fs::remove(program);
    const auto driven = weft::test::shell("cd " + dir.string() + " && " + WEFT_BUILD_TOOL +
                                          " --drive " + (dir / "plan").string() + command);
    ASSERT_EQ(driven.exit_code, 0) << fixture << " " << flags << ": " << driven.err;
    EXPECT_TRUE(fs::exists(program));
    std::ifstream in(dir / "plan");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto plan = parse_driver_plan(text);
    ASSERT_TRUE(plan) << text;
    EXPECT_EQ(with_objects_in(*plan, dir).commands,
              with_objects_in(drivers_plan(dir, source.string(), dir, flags), dir).commands)
        << fixture << " " << flags;
  }
  // Errors of the driver and of the compile, as clang's.
  for (const std::string wrong : {"--no-such-flag", "-std=c++99", "-fsanitize=nothing"}) {
    const std::string arguments = " " + wrong + " " + weft::test::fixture("lost_update.c") +
                                  " -o " + (dir / "wrong").string();
    const auto ours =
        weft::test::shell(std::string(WEFT_BUILD_TOOL) + " --drive " + (dir / "plan").string() +
                          " " + WEFT_OWN_CLANG_FOR_TESTS + arguments);
    const auto clangs = weft::test::shell(std::string(WEFT_OWN_CLANG_FOR_TESTS) + arguments);
    EXPECT_EQ(ours.exit_code, 1);
    EXPECT_NE(clangs.exit_code, 0);
    EXPECT_EQ(ours.err, clangs.err) << wrong;
    EXPECT_NE(ours.err.find("error: "), std::string::npos) << ours.err;
  }
}

TEST(BuildTool, ReportsTheCompilersAndTheLinkersErrorsAndFails) {
  const fs::path dir = scratch("weft-check-1");
  write(dir / "wrong.c", "int main(void) { return undeclared_here; }\n");
  write(dir / "unlinked.c", "void nowhere(void);\nint main(void) { nowhere(); }\n");
  for (const auto& [source, message] : std::vector<std::pair<std::string, std::string>>{
           {"wrong.c", "wrong.c:1:25: error: use of undeclared identifier 'undeclared_here'"},
           {"unlinked.c", "undefined symbol: nowhere"}}) {
    const std::string program = (dir / fs::path(source).stem()).string();
    const auto filled = fill_plan(
        plan_template(drivers_plan(dir, source, dir), {dir.string(), source, program}).value(),
        {dir.string(), source, program});
    write(dir / "plan", weft::driver::plan_text(filled.value()).value());
    const auto r = weft::test::shell("cd " + dir.string() + " && " + WEFT_BUILD_TOOL + " plan");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(program));
  }
  write(dir / "plan", "something else\n");
  const auto r = weft::test::shell(std::string(WEFT_BUILD_TOOL) + " " + (dir / "plan").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not a build plan"), std::string::npos) << r.err;
}
#endif

}  // namespace
