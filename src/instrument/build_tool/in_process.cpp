// A plan's commands, run in weft-build's own process where clang's compiler or lld's linker is
// the program (each of Debian's processes spends about 0.07 s relocating the shared libLLVM and
// libclang-cpp before it starts: docs/performance.md, "The fixed cost of a small run"), and as
// processes otherwise.
#include "in_process.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clang/CodeGen/CodeGenAction.h"
#include "clang/CodeGen/ObjectFilePCHContainerOperations.h"
#include "clang/Driver/Driver.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendDiagnostic.h"
#include "clang/Frontend/TextDiagnosticBuffer.h"
#include "lld/Common/Driver.h"
#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

extern char** environ;

namespace weft::build_tool {

namespace {

// The file `program` names with links resolved, looked up on PATH when it has no directory.
std::string resolved(const std::string& program) {
  std::string path = program;
  if (path.find('/') == std::string::npos)
    if (auto found = llvm::sys::findProgramByName(path)) path = *found;
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real)) return path;
  return std::string(real.str());
}

// The compiler and linker this tool holds: Debian's clang and ld.lld of the LLVM it was built
// with. A plan naming another compiler or linker runs it as a process.
bool is_own(const std::string& program, const char* own) {
  static const std::string own_clang = resolved(WEFT_OWN_CLANG);
  static const std::string own_lld = resolved(WEFT_OWN_LLD);
  const std::string& wanted = std::strcmp(own, "clang") == 0 ? own_clang : own_lld;
  return resolved(program) == wanted;
}

// A compile of this tool's clang, to be parsed: whether it runs here is known once it is.
bool own_compile(const std::vector<std::string>& command) {
  return command.size() > 2 && command[1] == "-cc1" && is_own(command[0], "clang");
}

void backend_error(void* diagnostics, const char* message, bool) {
  auto& diags = *static_cast<clang::DiagnosticsEngine*>(diagnostics);
  diags.Report(clang::diag::err_fe_error_backend) << message;
  llvm::sys::RunInterruptHandlers();
  llvm::sys::Process::Exit(1);
}

// `clang -cc1 ARGS`, as clang's cc1 tool runs it, when it only makes an object without
// frontend plugins (which would need the shared libclang): its arguments become a compiler
// invocation whose action emits the object. Returns the exit status, or nothing when the compile
// asks for more (it then runs as a process).
std::optional<int> compile(const std::vector<std::string>& command) {
  std::vector<const char*> args;
  for (std::size_t a = 2; a < command.size(); ++a) args.push_back(command[a].c_str());
  auto instance = std::make_unique<clang::CompilerInstance>();
  auto containers = instance->getPCHContainerOperations();
  containers->registerWriter(std::make_unique<clang::ObjectFilePCHContainerWriter>());
  containers->registerReader(std::make_unique<clang::ObjectFilePCHContainerReader>());

  // The arguments' own errors are held until the real diagnostics engine exists, as in clang.
  llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options = new clang::DiagnosticOptions();
  auto* buffer = new clang::TextDiagnosticBuffer;
  clang::DiagnosticsEngine argument_diags(ids, &*options, buffer);
  const bool parsed = clang::CompilerInvocation::CreateFromArgs(instance->getInvocation(), args,
                                                                argument_diags, command[0].c_str());
  const auto& frontend = instance->getFrontendOpts();
  if (parsed && (frontend.ProgramAction != clang::frontend::EmitObj || !frontend.Plugins.empty() ||
                 !frontend.AddPluginActions.empty() || !frontend.ASTMergeFiles.empty() ||
                 frontend.ShowHelp || frontend.ShowVersion))
    return std::nullopt;
  // The resource directory of the clang named, not of this tool (the driver passes it anyway).
  auto& headers = instance->getHeaderSearchOpts();
  if (headers.UseBuiltinIncludes && headers.ResourceDir.empty())
    headers.ResourceDir = clang::driver::Driver::GetResourcesPath(resolved(command[0]));
  instance->createDiagnostics();
  if (!instance->hasDiagnostics()) return 1;
  llvm::install_fatal_error_handler(backend_error, &instance->getDiagnostics());
  buffer->FlushDiagnostics(instance->getDiagnostics());
  if (!parsed) {
    instance->getDiagnosticClient().finish();
    llvm::remove_fatal_error_handler();
    return 1;
  }
  // -mllvm options, parsed as clang parses them, after any an earlier compile set.
  const auto& llvm_args = instance->getFrontendOpts().LLVMArgs;
  if (!llvm_args.empty()) {
    llvm::cl::ResetAllOptionOccurrences();
    std::vector<const char*> argv{"clang (LLVM option parsing)"};
    for (const auto& arg : llvm_args) argv.push_back(arg.c_str());
    argv.push_back(nullptr);
    llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size() - 1), argv.data());
  }
  bool succeeded = false;
  if (!instance->getDiagnostics().hasErrorOccurred()) {
    auto action = std::make_unique<clang::EmitObjAction>();
    succeeded = instance->ExecuteAction(*action);
    if (instance->getFrontendOpts().DisableFree) llvm::BuryPointer(std::move(action));
  }
  llvm::remove_fatal_error_handler();
  // -disable-free (the driver always passes it): no teardown, as in clang's own process.
  if (instance->getFrontendOpts().DisableFree) llvm::BuryPointer(std::move(instance));
  return succeeded ? 0 : 1;
}

// `ld.lld ARGS` through lld's ELF driver. Returns the exit status. One thread unless the plan
// says otherwise: lld's output does not depend on it, and for a program of one source starting
// the threads costs more than they save (about 8 ms of 105 for a small C file).
int link(const std::vector<std::string>& command) {
  std::vector<const char*> args;
  for (const auto& arg : command) args.push_back(arg.c_str());
  if (std::none_of(command.begin(), command.end(), [](const std::string& arg) {
        return arg.starts_with("--threads") || arg.starts_with("-threads");
      }))
    args.insert(args.begin() + 1, "--threads=1");
  const bool linked = lld::elf::link(args, llvm::outs(), llvm::errs(), /*exitEarly=*/false,
                                     /*disableOutput=*/false);
  llvm::outs().flush();
  llvm::errs().flush();
  return linked ? 0 : 1;
}

// `command` as a process of its own, as the driver would run it.
RunResult spawn(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const auto& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t pid = -1;
  if (const int error = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ)) {
    std::fprintf(stderr, "weft-build: cannot run '%s': %s\n", argv[0], std::strerror(error));
    return {1, 0};
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return {1, 0};
  if (WIFSIGNALED(status)) return {1, WTERMSIG(status)};
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 1, 0};
}

RunResult run_command(const std::vector<std::string>& command) {
  if (own_compile(command))
    if (const auto status = compile(command)) return {*status, 0};
  if (command.size() > 1 && is_own(command[0], "lld")) return {link(command), 0};
  return spawn(command);
}

}  // namespace

RunResult run_plan(const weft::driver::BuildPlan& plan) {
  for (const auto& command : plan.commands) {
    if (command.empty()) continue;
    const RunResult result = run_command(command);
    if (result.exit_status != 0 || result.signal != 0) return result;
  }
  return {};
}

}  // namespace weft::build_tool
