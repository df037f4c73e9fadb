#include "weft/driver/program_build.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "command_parts.hpp"
#include "weft/driver/build_cache.hpp"
#include "weft/driver/native_runner.hpp"

namespace weft::driver {
namespace fs = std::filesystem;

namespace {

// The flags the wrapper gets, in order: -O0 unless an optimisation level is given (every access
// in the source stays an access), -std=c++20 for C++, then the caller's.
std::vector<std::string> implied_flags(const BuildRequest& request) {
  std::vector<std::string> implied;
  bool has_opt = false;
  for (const auto& f : request.flags) has_opt |= f.starts_with("-O");
  if (!has_opt) implied.push_back("-O0");
  if (request.cxx) implied.push_back("-std=c++20");
  return implied;
}

// The first executable `name` on $PATH, or `name` itself.
fs::path on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && ::access((fs::path(dir) / name).c_str(), X_OK) == 0)
      return fs::path(dir) / name;
  return name;
}

// What the build is made of apart from the files it reads (build_cache.hpp); nothing when the
// wrapper cannot say which files it builds with.
std::optional<BuildDescription> describe(const BuildRequest& request) {
  BuildDescription d;
  d.text = "weft check build 1\n";
  FILE* inputs =
      ::popen((shell_word(request.wrapper.string()) + " --weft-build-inputs").c_str(), "r");
  if (!inputs) return std::nullopt;
  char line[4096];
  std::size_t count = 0;
  while (std::fgets(line, sizeof line, inputs)) {
    std::string file(line);
    if (!file.empty() && file.back() == '\n') file.pop_back();
    if (file.empty()) continue;
    const fs::path resolved = on_path(file);
    d.text += "input " + resolved.string() + " " + file_stamp(resolved) + "\n";
    ++count;
  }
  if (::pclose(inputs) != 0 || count == 0) return std::nullopt;
  std::error_code ec;
  d.text += "cwd " + fs::current_path(ec).string() + "\n";
  d.text += "source " + fs::absolute(request.source, ec).string() + "\n";
  for (const auto& f : implied_flags(request)) d.text += "flag " + f + "\n";
  for (const auto& f : request.flags) d.text += "flag " + f + "\n";
  // What compilers and linkers read from the environment.
  for (const char* name : {"WEFT_CLANG", "WEFT_CLANGXX", "CPATH", "C_INCLUDE_PATH",
                           "CPLUS_INCLUDE_PATH", "LIBRARY_PATH", "COMPILER_PATH", "GCC_EXEC_PREFIX",
                           "CCC_OVERRIDE_OPTIONS", "SOURCE_DATE_EPOCH"})
    if (const char* value = std::getenv(name))
      d.text += "env " + std::string(name) + "=" + value + "\n";
  if (d.text.find('\0') != std::string::npos) return std::nullopt;
  return d;
}

}  // namespace

BuiltProgram build_program(const BuildRequest& request, const std::string& dir) {
  const std::string binary = dir + "/" + fs::path(request.source).stem().string();
  std::optional<BuildCache> cache;
  std::optional<BuildDescription> description;
  if (request.use_cache && !uncacheable_flags(request.flags) && (cache = BuildCache::open()))
    description = describe(request);
  std::error_code ec;
  if (description)
    if (auto kept = cache->find(*description)) {
      fs::copy_file(kept->program, binary, ec);
      if (!ec) {
        std::fputs(kept->diagnostics.c_str(), stderr);
        return {binary, true};
      }
    }

  std::string command = shell_word(request.wrapper.string());
  for (const auto& f : implied_flags(request)) command += " " + f;
  const std::string dependencies = dir + "/build.d", diagnostics = dir + "/build.diagnostics";
  if (description) {
    // The headers the build read, for checking a kept build later; the compiler's messages (in
    // colour where they would have been), to show them again then. Before the caller's flags,
    // which win.
    command += " -MD -MF " + shell_word(dependencies);
    if (::isatty(STDERR_FILENO)) command += " -fcolor-diagnostics";
  }
  // The source before the flags: libraries and objects given after `--` must follow the
  // program's object on the link line (preprocessor and code flags apply wherever they are).
  command += " " + shell_word(request.source);
  for (const auto& f : request.flags) command.append(" ").append(shell_word(f));
  command += " -o " + shell_word(binary);
  if (description) command += " 2>" + shell_word(diagnostics);
  const int status = std::system(command.c_str());
  std::string messages;
  if (description) {
    messages = read_whole_file(diagnostics).value_or("");
    std::fputs(messages.c_str(), stderr);
  }
  // system() ignores Ctrl-C while the compiler runs; the compiler died of it instead.
  if (status != -1 && WIFSIGNALED(status))
    throw DriverError("compiling '" + request.source + "' was interrupted");
  if (status != 0)
    throw DriverError("compiling '" + request.source +
                      "' failed (the compiler's messages are above)");
  if (description && fs::exists(dependencies, ec)) {
    std::vector<std::string> files =
        dependency_file_prerequisites(read_whole_file(dependencies).value_or(""));
    for (auto& f : files_named_in_flags(request.flags)) files.push_back(std::move(f));
    if (auto failed = cache->keep(*description, files, binary, messages))
      std::fprintf(stderr,
                   "weft: warning: the build is not kept for next time: %s (--no-build-cache stops "
                   "trying)\n",
                   failed->c_str());
  }
  return {binary, false};
}

}  // namespace weft::driver
