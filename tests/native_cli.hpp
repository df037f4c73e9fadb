// Running the weft command line from end-to-end tests: `weft check` on a fixture of
// tests/native/, its JSON result, exit code and stderr. Needs WEFT_BIN and WEFT_NATIVE_FIXTURES.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace weft::test {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
  nlohmann::json result;
};

inline std::string fixture(const std::string& name) {
  return std::string(WEFT_NATIVE_FIXTURES) + "/" + name;
}

inline std::string slurp(FILE* f) {
  std::string s;
  char buf[4096];
  while (f && std::fgets(buf, sizeof buf, f)) s += buf;
  return s;
}

// Runs the shell command `command_line` (with `input` on its stdin); parses stdout as JSON when
// it is JSON, and keeps stderr.
// The running test's suite and name: two suites may have tests of one name, run in parallel.
inline std::string test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "." + info->name();
}

inline CliRun shell(const std::string& command_line, const std::string& input = "") {
  const std::string test = test_name();
  const auto dir = std::filesystem::temp_directory_path();
  const std::string err_file = (dir / ("weft-e2e-" + test + ".stderr")).string();
  const std::string in_file = (dir / ("weft-e2e-" + test + ".stdin")).string();
  {
    std::FILE* in = std::fopen(in_file.c_str(), "w");
    std::fputs(input.c_str(), in);
    std::fclose(in);
  }
  const std::string command = command_line + " <" + in_file + " 2>" + err_file;
  CliRun r;
  FILE* p = popen(command.c_str(), "r");
  r.out = slurp(p);
  const int status = p ? pclose(p) : -1;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::FILE* err = std::fopen(err_file.c_str(), "r");
  r.err = slurp(err);
  if (err) std::fclose(err);
  r.result = nlohmann::json::parse(r.out, nullptr, false);
  return r;
}

// A directory of the running test's own under $TMPDIR (`kind`, the test's name, then `name`),
// empty at the start.
inline std::filesystem::path scratch_dir(const std::string& kind, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / (kind + "-" + test_name()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// `text` as the whole of the file `path`.
inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  ASSERT_NE(out, nullptr) << path;
  std::fputs(text.c_str(), out);
  std::fclose(out);
}

// Runs the weft command line with `args`.
inline CliRun weft_cli(const std::string& args, const std::string& input = "") {
  return shell(std::string(WEFT_BIN) + " " + args, input);
}

// Per test and program, so that tests running in parallel do not share files.
inline std::string replay_file(const std::string& name) {
  const std::string test = test_name();
  return (std::filesystem::temp_directory_path() / ("weft-e2e-" + test + "-" + name + ".json"))
      .string();
}

// `weft check FIXTURE --json --count-traces` with `options` (weft's; program arguments go after
// `--args`).
inline CliRun check(const std::string& file, const std::string& options = "") {
  return weft_cli("check " + fixture(file) + " --json -q --count-traces --replay-file " +
                  replay_file(file) + " " + options);
}

inline std::string first_bug_kind(const CliRun& r) {
  return r.result["bugs"][0]["kind"].get<std::string>();
}
inline std::string first_bug_message(const CliRun& r) {
  return r.result["bugs"][0]["message"].get<std::string>();
}
inline std::uint64_t stat(const CliRun& r, const char* name) {
  return r.result["statistics"][name].get<std::uint64_t>();
}
/// The strategies that match states: their cut-offs and the states they reached.
inline std::uint64_t cut_offs(const CliRun& r) {
  return r.result["statistics"]["state_matching"]["cut_offs"].get<std::uint64_t>();
}
inline std::uint64_t states(const CliRun& r) {
  return r.result["statistics"]["state_matching"]["states"].get<std::uint64_t>();
}

}  // namespace weft::test
