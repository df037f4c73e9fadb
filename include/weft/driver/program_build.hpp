// How `weft check` builds the program it explores: with weft's compiler wrapper, or from the
// builds it kept (build_cache.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace weft::driver {

struct BuildRequest {
  std::filesystem::path wrapper;  ///< weft-cc or weft-c++
  /// weft-build, which runs a kept build plan in one process (build_plan.hpp); empty when it was
  /// not built, and the plan's commands are then started one by one.
  std::filesystem::path build_tool;
  std::string source;              ///< the C or C++ file
  std::vector<std::string> flags;  ///< the compiler flags after `--`
  bool cxx = false;                ///< C++: built with -std=c++20 unless the flags say otherwise
  bool use_cache = true;           ///< look for a kept build, and keep this one (--no-build-cache)
};

struct BuiltProgram {
  std::string path;     ///< the program, in the directory given
  bool reused = false;  ///< copied from a kept build: the compiler did not run
};

/// Builds the program into `dir` (the file is named after the source), or copies a kept build of
/// it there. The compiler's messages go to stderr either way. Throws DriverError when the build
/// fails or is interrupted.
BuiltProgram build_program(const BuildRequest& request, const std::string& dir);

}  // namespace weft::driver
