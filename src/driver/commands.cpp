// The `weft` commands check (build, then explore: run_command.cpp) and replay, each guarded so
// that whatever goes wrong is one line.
#include "weft/driver/commands.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "command_parts.hpp"
#include "weft/driver/bug_parts.hpp"
#include "weft/driver/global_check.hpp"
#include "weft/driver/json_stream.hpp"
#include "weft/driver/native_report.hpp"
#include "weft/driver/option_checks.hpp"
#include "weft/driver/program_build.hpp"
#include "weft/driver/replay_file.hpp"
#include "weft/driver/report.hpp"
#include "weft/driver/symbolizer.hpp"
#include "weft/driver/temporary_directory.hpp"
#include "weft/driver/verdict_text.hpp"
#include "weft/explore/exploration.hpp"
#include "weft/explore/thread_model.hpp"
#include "weft/explore/verdict.hpp"
#include "weft/trace/one_line.hpp"
#include "weft/trace/wire.hpp"

namespace weft::driver {
namespace {

namespace fs = std::filesystem;

// weft_main reports DriverError as one `weft: error:` line with exit code 2; anything else
// escaping a command would end in std::terminate. Every command runs through this.
template <class Command>
int guarded(Command&& command) {
  try {
    return command();
  } catch (const DriverError& e) {
    throw DriverError(one_line(e.what(), 2000));
  } catch (const std::bad_alloc&) {
    throw DriverError("out of memory");
  } catch (const std::exception& e) {
    throw DriverError("internal error: " + one_line(e.what()));
  }
}

}  // namespace

std::string shell_word(const std::string& s) {
  if (s.find_first_of(" '\"\\$`") == std::string::npos && !s.empty()) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int exit_code_of(explorer::Verdict verdict) {
  switch (verdict) {
    case explorer::Verdict::kBugFound:
      return kExitBug;
    case explorer::Verdict::kNoBugFound:
      return kExitNoBug;
    case explorer::Verdict::kUnsupported:
      return kExitUsage;  // the program used what weft does not model: no verdict at all
    case explorer::Verdict::kIncomplete:
      break;
  }
  return kExitIncomplete;
}

const char* verdict_name(int code) {
  switch (code) {
    case kExitNoBug:
      return "no bug";
    case kExitBug:
      return "bug";
    case kExitUsage:
      return "unsupported";
    default:
      return "incomplete";
  }
}

// The result JSON of a replay, for its report files: one execution, the bug it ended in (if
// any), in the form run_command's result has.
static nlohmann::json replay_result(const std::string& replay_file, const Program& program,
                                    const nlohmann::json& bug, const std::string& stopped) {
  const int code = !stopped.empty() ? kExitIncomplete : bug.is_null() ? kExitNoBug : kExitBug;
  nlohmann::json j = {{"verdict", verdict_name(code)},
                      {"exit_code", code},
                      {"complete", false},
                      {"program", program.path},
                      {"strategy", "replay"},
                      {"points", program.options.points},
                      {"replay_file", replay_file},
                      {"statistics", {{"executions", 1}}},
                      {"weft_version", WEFT_VERSION},
                      {"bugs", nlohmann::json::array()}};
  if (!bug.is_null()) j["bugs"].push_back(bug);
  if (!stopped.empty()) {
    j["incomplete_because"] = "the replayed execution was stopped: " + stopped;
    j["incomplete_code"] = "cut-short";
  }
  return j;
}

static int replay_command_unguarded(const std::string& replay_file, const std::string& program_path,
                                    bool under_gdb, bool json, const ReportFiles& reports) {
  check_report_paths(reports);
  ThreadRegistry threads;
  TestDirective directive;
  const ReplayFile file = load_replay_file(replay_file, threads, directive);
  Program program;
  program.path = program_path.empty() ? file.program : program_path;
  program.args = file.args;
  program.options = file.options;  // what the file records; the rest at their defaults
  std::uint64_t base = 0;
  std::fflush(stdout);
  std::vector<MappedCode> libraries;
  const Trace trace =
      replay_execution(program, directive, threads, under_gdb, &base, json, &libraries);
  if (under_gdb) return kExitNoBug;  // the debugging session was the point
  std::error_code cwd_error;
  const std::string cwd = fs::current_path(cwd_error).string();
  if (trace.outcome == Outcome::kTimeout) {
    write_report_files(reports, replay_result(replay_file, program, nullptr, trace.message), cwd);
    if (json)
      std::printf(
          "%s\n",
          nlohmann::json({{"reproduced", false}, {"stopped", trace.message}}).dump(2).c_str());
    else
      std::printf("weft: the replayed execution was stopped: %s\n", trace.message.c_str());
    return kExitIncomplete;
  }
  Symbolizer symbols(program.path, base, std::move(libraries));

  const std::string& expected = file.bug_message;
  // The recorded bug may be any of the execution's bugs (not always its first).
  std::vector<explorer::FoundBug> bugs;
  for (const auto& f : trace.failures)
    if (is_bug(f.outcome)) bugs.push_back(explorer::found_bug(trace, &f));
  if (is_whole_execution_bug(trace.outcome)) bugs.push_back(explorer::found_bug(trace, nullptr));
  if (!file.check_global.empty()) {
    GlobalCheck global(file.check_global, symbols);
    global.resolve(symbols, threads);
    if (auto b = global.bug_in(trace, file.global_steps, threads)) bugs.push_back(std::move(*b));
  }
  std::optional<explorer::FoundBug> found;
  bool reproduced = false;
  for (const auto& b : bugs)
    if (bug_message(b, symbols) == expected) {
      found = b;
      reproduced = true;
    }
  if (!found && !bugs.empty()) found = bugs.front();
  if (reports.any()) {
    const nlohmann::json bug =
        found ? native_bug_json(*found, threads, symbols,
                                "weft replay " +
                                    (program_path.empty() ? "" : shell_word(program_path) + " ") +
                                    shell_word(replay_file))
              : nlohmann::json();
    write_report_files(reports, replay_result(replay_file, program, bug, ""), cwd);
  }
  if (json) {
    nlohmann::json out = {{"reproduced", reproduced}};
    if (found) out["bug"] = native_bug_json(*found, threads, symbols);
    std::printf("%s\n", out.dump(2).c_str());
  } else if (found) {
    std::printf("\n%s", format_native_bug(*found, threads, symbols, "").c_str());
    std::printf("weft: %s\n", reproduced ? "the bug was reproduced"
                                         : "a different bug happened than the one recorded");
  } else {
    std::printf(
        "weft: the replayed execution ended without a bug (%s); the program may depend "
        "on something weft does not control (time, randomness, files)\n",
        outcome_name(trace.outcome));
  }
  return found ? kExitBug : kExitNoBug;
}

static int check_command_unguarded(const std::string& source,
                                   const std::vector<std::string>& compiler_flags, Program program,
                                   const ExploreSettings& settings) {
  check_options(program.options, settings);  // before the build, which takes seconds
  check_report_paths(settings.reports);
  std::error_code ec;
  if (!fs::exists(source, ec)) throw DriverError("no such file: '" + source + "'");
  if (!fs::is_regular_file(source, ec)) throw DriverError("'" + source + "' is not a source file");
  const std::string ext = fs::path(source).extension().string();
  const bool cxx = ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".C";
  if (!cxx && ext != ".c")
    throw DriverError("'" + source + "' is neither C (.c) nor C++ (.cpp, .cc, .cxx)");
  // The compilers live next to this executable (build tree or installation).
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path compiler = self.parent_path() / (cxx ? "weft-c++" : "weft-cc");
  if (!fs::exists(compiler, ec))
    throw DriverError("cannot find " + compiler.string() + " (weft's compiler wrapper)");
  // weft-build: beside weft in the build tree, in lib/weft/ when installed.
  fs::path build_tool;
  for (const fs::path& candidate :
       {self.parent_path() / "weft-build", self.parent_path() / "../lib/weft/weft-build"})
    if (::access(candidate.c_str(), X_OK) == 0) {
      build_tool = candidate;
      break;
    }
  // Removed on every way out; a bug's replay file gets its own copy of the program.
  const TemporaryDirectory dir("weft-check-");
  const BuiltProgram built = build_program({.wrapper = compiler,
                                            .build_tool = build_tool,
                                            .source = source,
                                            .flags = compiler_flags,
                                            .cxx = cxx,
                                            .use_cache = settings.build_cache},
                                           dir.path());
  program.path = built.path;
  ExploreSettings check_settings = settings;
  check_settings.build_reused = built.reused;
  check_settings.program_is_temporary = true;
  check_settings.source = source;
  return explore_and_report(program, check_settings);
}

// The commands proper, each through guarded().

int run_command(const Program& program, const ExploreSettings& settings) {
  return guarded([&] { return explore_and_report(program, settings); });
}

int replay_command(const std::string& replay_file, const std::string& program_path, bool under_gdb,
                   bool json, const ReportFiles& reports) {
  return guarded([&] {
    return replay_command_unguarded(replay_file, program_path, under_gdb, json, reports);
  });
}

int check_command(const std::string& source, const std::vector<std::string>& compiler_flags,
                  Program program, const ExploreSettings& settings) {
  return guarded(
      [&] { return check_command_unguarded(source, compiler_flags, program, settings); });
}

}  // namespace weft::driver
