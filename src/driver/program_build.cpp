#include "weft/driver/program_build.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "weft/driver/build_cache.hpp"
#include "weft/driver/build_plan.hpp"
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

// Runs `argv` as system() would, without a shell: Ctrl-C and Ctrl-\ reach the command and not
// weft, which reports the build interrupted. Its standard error goes to `messages` (appended)
// when one is named, and its standard output to `output` (likewise).
int run_command(const std::vector<std::string>& argv, const std::string& messages,
                const std::string& output = "") {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawnattr_init(&attributes);
  if (!output.empty())
    ::posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(),
                                       O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (!messages.empty())
    ::posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, messages.c_str(),
                                       O_WRONLY | O_CREAT | O_APPEND,
                                       0644);  // not O_CLOEXEC: it may be
                                               // opened as descriptor 2 itself
  sigset_t defaults;
  ::sigemptyset(&defaults);
  ::sigaddset(&defaults, SIGINT);
  ::sigaddset(&defaults, SIGQUIT);
  ::posix_spawnattr_setsigdefault(&attributes, &defaults);
  ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  struct sigaction ignore {
  }, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  pid_t pid = -1;
  int status = -1;
  if (::posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ) == 0)
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attributes);
  return status;
}

// The lines `file` holds, or nothing when it cannot be read or holds none.
std::optional<std::vector<std::string>> lines_of(const std::string& file) {
  const auto text = read_whole_file(file);
  if (!text || text->empty()) return std::nullopt;
  std::vector<std::string> lines;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// What the build is made of apart from the files it reads (build_cache.hpp); nothing when the
// wrapper cannot say which files it builds with.
std::optional<BuildDescription> describe(const BuildRequest& request, const std::string& dir) {
  BuildDescription d;
  d.text = "weft check build 1\n";
  const std::string listed = dir + "/build.inputs";
  if (run_command({request.wrapper.string(), "--weft-build-inputs"}, "", listed) != 0)
    return std::nullopt;
  const auto files = lines_of(listed);
  if (!files) return std::nullopt;
  std::size_t count = 0;
  for (const auto& file : *files) {
    if (file.empty()) continue;
    const fs::path resolved = on_path(file);
    d.text += "input " + resolved.string() + " " + file_stamp(resolved) + "\n";
    ++count;
  }
  if (count == 0) return std::nullopt;
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

// Whether the driver must run itself: flags that make it print what it runs, or keep its
// temporary files, ask for what a plan does not show.
bool driver_needed(const std::vector<std::string>& flags) {
  for (const auto& f : flags)
    if (f == "-v" || f == "-###" || f.starts_with("-save-temps") || f.starts_with("--save-temps"))
      return true;
  return false;
}

// How a build goes when clang's driver need not run as a process of its own.
struct PlannedBuild {
  std::optional<BuildPlan> plan;  ///< to run
  std::optional<int> status;      ///< or the wait status of the build weft-build made already
  std::string template_text;      ///< the plan to keep, when it is new and makes a template
  bool kept = false;              ///< the plan was a kept one
};

// Whether the programs the plan runs and the objects and libraries it names by absolute paths
// outside the build's own directory still exist: a compiler or C library upgraded since the plan
// was made (the startup objects of gcc's directory, the linker) makes it stale. (Not every
// path: the driver passes include directories that need not exist.)
bool names_only_existing_files(const BuildPlan& plan, const PlanPaths& paths) {
  const auto exists = [](const std::string& file) { return ::access(file.c_str(), F_OK) == 0; };
  for (const auto& command : plan.commands) {
    if (!exists(command[0])) return false;
    for (const auto& arg : command)
      if (arg.starts_with("/") && !arg.starts_with(paths.dir + "/") &&
          (arg.ends_with(".o") || arg.ends_with(".a") || arg.ends_with(".so")) && !exists(arg))
        return false;
  }
  return true;
}

// The build's plan: the kept one for `key` filled in for `paths`; else the driver's for
// `wrapper_command`, made and run in weft-build (`tool`) when there is one, or asked of the
// driver (`-###`). Nothing when neither gives one: the wrapper then builds as it would.
PlannedBuild plan_build(const BuildCache& cache, const BuildDescription& key,
                        const PlanPaths& paths, std::vector<std::string> wrapper_command,
                        const fs::path& tool, const std::string& messages) {
  PlannedBuild build;
  if (auto text = cache.find_plan(key))
    if ((build.plan = fill_plan(*text, paths)) && names_only_existing_files(*build.plan, paths)) {
      build.kept = true;
      return build;
    }
  build.plan.reset();
  const std::string output = paths.dir + "/build.plan";
  std::error_code ec;
  // The command the wrapper would run, one argument a line (flags holding a line break cannot be
  // told apart that way), then clang's driver over it in weft-build, which runs its plan too.
  // The driver reads CCC_OVERRIDE_OPTIONS only in clang's own main.
  const bool one_line_flags =
      std::none_of(wrapper_command.begin(), wrapper_command.end(),
                   [](const std::string& f) { return f.find('\n') != std::string::npos; });
  if (!tool.empty() && one_line_flags && !std::getenv("CCC_OVERRIDE_OPTIONS")) {
    std::vector<std::string> print = wrapper_command;
    print.insert(print.begin() + 1, "--weft-print-command");
    const std::string command_file = paths.dir + "/build.command";
    const int printed = run_command(print, paths.dir + "/build.refused", command_file);
    if (const auto command = lines_of(command_file); printed == 0 && command) {
      std::vector<std::string> drive{tool.string(), "--drive", output};
      drive.insert(drive.end(), command->begin(), command->end());
      build.status = run_command(drive, messages);
    }
  }
  if (!build.status) {
    wrapper_command.push_back("-###");
    if (run_command(wrapper_command, output) != 0) fs::remove(output, ec);
  }
  const auto text = read_whole_file(output);
  fs::remove(output, ec);
  if (text)
    if ((build.plan = parse_driver_plan(*text)))
      if (auto made = plan_template(*build.plan, paths)) {
        build.template_text = *made;
        build.plan = fill_plan(*made, paths);
      }
  if (build.status && *build.status != 0) build.template_text.clear();  // not a plan that builds
  return build;
}

// Runs `plan`: through weft-build (`tool`) when there is one, else command by command. Returns
// the wait status of the command that failed, or 0. The objects the plan's compiles leave outside
// `dir` (the driver's temporary files) are removed.
int run_plan(const BuildPlan& plan, const fs::path& tool, const std::string& dir,
             const std::string& messages) {
  int status = 0;
  const auto text = tool.empty() ? std::nullopt : plan_text(plan);
  if (text) {
    const std::string file = dir + "/build.commands";
    std::ofstream(file, std::ios::binary) << *text;
    status = run_command({tool.string(), file}, messages);
  } else {
    for (const auto& command : plan.commands)
      if ((status = run_command(command, messages)) != 0) break;
  }
  std::error_code ec;
  for (const auto& command : plan.commands)
    if (command.size() > 2 && command[1] == "-cc1")
      for (std::size_t a = 0; a + 1 < command.size(); ++a)
        if (command[a] == "-o" && !command[a + 1].starts_with(dir + "/"))
          fs::remove(command[a + 1], ec);
  return status;
}

}  // namespace

BuiltProgram build_program(const BuildRequest& request, const std::string& dir) {
  const std::string binary = dir + "/" + fs::path(request.source).stem().string();
  std::optional<BuildCache> cache;
  std::optional<BuildDescription> description;
  // A build is described, and its plan kept, unless its flags name its outputs or read more
  // flags from a file; the build itself is kept only when weft can list every file it reads.
  const bool describable = std::none_of(
      request.flags.begin(), request.flags.end(),
      [](const std::string& f) { return f == "-o" || f.starts_with("-M") || f.starts_with("@"); });
  if (request.use_cache && describable && (cache = BuildCache::open()))
    description = describe(request, dir);
  const bool keepable = description && !uncacheable_flags(request.flags);
  std::error_code ec;
  if (keepable)
    if (auto kept = cache->find(*description)) {
      fs::copy_file(kept->program, binary, ec);
      if (!ec) {
        std::fputs(kept->diagnostics.c_str(), stderr);
        return {binary, true};
      }
    }

  std::vector<std::string> command{request.wrapper.string()};
  for (const auto& f : implied_flags(request)) command.push_back(f);
  const std::string dependencies = dir + "/build.d", diagnostics = dir + "/build.diagnostics";
  const bool colour = ::isatty(STDERR_FILENO);
  if (description) {
    // The headers the build read, for checking a kept build later; the compiler's messages (in
    // colour where they would have been), to show them again then. Before the caller's flags,
    // which win.
    command.insert(command.end(), {"-MD", "-MF", dependencies});
    if (colour) command.push_back("-fcolor-diagnostics");
  }
  // The source before the flags: libraries and objects given after `--` must follow the
  // program's object on the link line (preprocessor and code flags apply wherever they are).
  command.push_back(request.source);
  command.insert(command.end(), request.flags.begin(), request.flags.end());
  command.insert(command.end(), {"-o", binary});

  int status = -1;
  std::optional<BuildDescription> plan_key;
  PlannedBuild planned;
  if (description && !driver_needed(request.flags)) {
    // A plan serves any source of the same kind built alike (build_plan.hpp): its key is the
    // description without the source's name, with the source's extension and the colour.
    plan_key = BuildDescription{"plan of " + description->text};
    const std::string source_line = "source " + fs::absolute(request.source, ec).string() + "\n";
    if (auto at = plan_key->text.find(source_line); at != std::string::npos)
      plan_key->text.replace(at, source_line.size(),
                             "source kind " + fs::path(request.source).extension().string() +
                                 (colour ? " colour" : "") + "\n");
    planned = plan_build(*cache, *plan_key, {dir, request.source, binary}, command,
                         request.build_tool, diagnostics);
  }
  if (planned.status)
    status = *planned.status;
  else if (planned.plan)
    status = run_plan(*planned.plan, request.build_tool, dir, diagnostics);
  else
    status = run_command(command, description ? diagnostics : "");
  std::string messages;
  if (description) {
    messages = read_whole_file(diagnostics).value_or("");
    std::fputs(messages.c_str(), stderr);
  }
  // The compiler died of Ctrl-C (weft ignored it while the compiler ran), or crashed.
  if (status != -1 && WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    if (signal == SIGINT || signal == SIGQUIT || signal == SIGTERM || signal == SIGHUP)
      throw DriverError("compiling '" + request.source + "' was interrupted");
    throw DriverError("compiling '" + request.source + "' failed: the compiler died of signal " +
                      std::to_string(signal) + " (" + ::strsignal(signal) +
                      "; --no-build-cache builds with clang's own processes)");
  }
  if (status != 0)
    throw DriverError("compiling '" + request.source +
                      "' failed (the compiler's messages are above)");
  if (!planned.kept && !planned.template_text.empty())
    cache->keep_plan(*plan_key, planned.template_text);
  if (keepable && fs::exists(dependencies, ec)) {
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
