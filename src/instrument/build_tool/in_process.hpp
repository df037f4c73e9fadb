// weft-build's work: a build plan's commands run in this one process where they are clang's
// compiler (`clang -cc1 -emit-obj`) or lld's ELF linker, which the tool links statically, and as
// processes of their own otherwise; and clang's driver, run here to plan a first build.
#pragma once

#include <string>
#include <vector>

#include "weft/driver/build_plan.hpp"

namespace weft::build_tool {

/// How running commands ended: an exit status (0: every command succeeded), or the signal that
/// killed a command run as a process (the tool then dies of it too, as the driver would report).
struct RunResult {
  int exit_status = 0;
  int signal = 0;  ///< nonzero: the command died of this signal
};

/// Runs `plan`'s commands in order, stopping at the first that fails.
RunResult run_plan(const weft::driver::BuildPlan& plan);

/// Runs clang's driver over `command` (a clang command line, the program first) in this process:
/// writes the commands it plans to `plan_file` as `clang -###` writes them, then runs them as
/// `run_plan` does and removes the driver's temporary files. The driver's errors are written to
/// standard error as clang's own are, and make the result 1.
RunResult drive(const std::vector<std::string>& command, const std::string& plan_file);

}  // namespace weft::build_tool
