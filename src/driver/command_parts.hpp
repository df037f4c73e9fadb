// What the `weft` commands (commands.cpp, run_command.cpp) share; internal to the driver.
#pragma once

#include <string>

#include "weft/driver/commands.hpp"
#include "weft/explore/verdict.hpp"

namespace weft::driver {

/// The run command without the guard that turns exceptions into one-line errors: explores
/// `program` and writes what it found (run_command.cpp). `weft check` calls it after its build.
int explore_and_report(const Program& program, const ExploreSettings& settings);

/// `s` quoted for a POSIX shell where it needs to be.
std::string shell_word(const std::string& s);

/// The exit code a verdict gives, and its name in the result JSON ("bug", "no bug", ...).
int exit_code_of(explorer::Verdict verdict);
const char* verdict_name(int code);

}  // namespace weft::driver
