// clang's driver, run in weft-build's process for a build with no kept plan: set up as clang's
// own `main` sets it up (the executable, its installed directory, the mode its name gives, the
// diagnostics options of the command line), so that it plans what the clang binary would, and
// reports wrong flags in the same words.
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Job.h"
#include "clang/Driver/Options.h"
#include "clang/Driver/ToolChain.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Frontend/Utils.h"
#include "in_process.hpp"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Host.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace weft::build_tool {

namespace {

// The program `argv0` names, looked up on PATH when it has no directory.
std::string found_on_path(const std::string& argv0) {
  if (argv0.find('/') != std::string::npos) return argv0;
  if (auto found = llvm::sys::findProgramByName(argv0)) return *found;
  return argv0;
}

// The executable clang's main would report for itself: the real file (clang's reads
// /proc/self/exe, which is this tool here), so that clang++ and clang-14 are clang.
std::string executable(const std::string& argv0) {
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(found_on_path(argv0), real)) return found_on_path(argv0);
  return std::string(real.str());
}

// The diagnostics options the command line sets (-fcolor-diagnostics, -w, ...), as clang's
// main reads them before the driver runs.
llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diagnostics_options(
    const std::vector<const char*>& args) {
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options = new clang::DiagnosticOptions();
  unsigned missing_index = 0, missing_count = 0;
  llvm::opt::InputArgList parsed = clang::driver::getDriverOptTable().ParseArgs(
      llvm::makeArrayRef(args).slice(1), missing_index, missing_count);
  (void)clang::ParseDiagnosticArgs(*options, parsed);
  return options;
}

}  // namespace

RunResult drive(const std::vector<std::string>& command, const std::string& plan_file) {
  std::vector<const char*> args;
  for (const auto& arg : command) args.push_back(arg.c_str());
  const std::string path = executable(command[0]);

  auto options = diagnostics_options(args);
  auto* printer = new clang::TextDiagnosticPrinter(llvm::errs(), &*options);
  printer->setPrefix(llvm::sys::path::stem(path).str());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
  clang::DiagnosticsEngine diags(ids, &*options, printer);
  clang::ProcessWarningOptions(diags, *options, /*ReportDiags=*/false);

  clang::driver::Driver driver(path, llvm::sys::getDefaultTargetTriple(), diags);
  // The installed directory is that of the name the command used (a link's, not its target's),
  // made absolute, as clang's main sets it.
  llvm::SmallString<256> installed(found_on_path(command[0]));
  llvm::sys::fs::make_absolute(installed);
  const llvm::StringRef installed_dir = llvm::sys::path::parent_path(installed);
  if (llvm::sys::fs::exists(installed_dir)) driver.setInstalledDir(installed_dir);
  // The mode (and target) a name such as clang++ or x86_64-linux-gnu-clang gives, first among
  // the arguments so that the command line's own override them.
  const auto name = clang::driver::ToolChain::getTargetAndModeFromProgramName(command[0]);
  driver.setTargetAndMode(name);
  std::set<std::string> saved;
  const auto keep = [&](const std::string& s) { return saved.insert(s).first->c_str(); };
  if (name.DriverMode) args.insert(args.begin() + 1, keep(name.DriverMode));
  if (name.TargetIsValid) args.insert(args.begin() + 1, {"-target", keep(name.TargetPrefix)});

  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(args));
  if (!compilation || compilation->containsError() || diags.hasErrorOccurred()) {
    diags.getClient()->finish();
    return {1, 0};
  }
  weft::driver::BuildPlan plan;
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(plan_file, ec);
    if (ec) {
      std::fprintf(stderr, "weft-build: cannot write '%s': %s\n", plan_file.c_str(),
                   ec.message().c_str());
      return {2, 0};
    }
    compilation->getJobs().Print(out, "\n", /*Quote=*/true);
  }
  for (const auto& job : compilation->getJobs()) {
    std::vector<std::string> line{job.getExecutable()};
    for (const char* arg : job.getArguments()) line.emplace_back(arg);
    plan.commands.push_back(std::move(line));
  }
  const RunResult result = run_plan(plan);
  // The driver's temporary objects go; a failed build leaves no half-made program behind.
  compilation->CleanupFileList(compilation->getTempFiles());
  if (result.exit_status != 0 || result.signal != 0)
    for (const auto& [action, file] : compilation->getFailureResultFiles())
      llvm::sys::fs::remove(file);
  diags.getClient()->finish();
  return result;
}

}  // namespace weft::build_tool
