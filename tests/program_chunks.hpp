// For the differential tests that build many random C programs into one binary per chunk and
// explore each with the weft command (race, memory and thread-model differential tests). Needs
// WEFT_CC.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace weft::testing {

/// All that `f` yields (empty for nullptr).
inline std::string slurp(std::FILE* f) {
  std::string s;
  char buf[4096];
  while (f && std::fgets(buf, sizeof buf, f)) s += buf;
  return s;
}

/// Writes `source` to `dir`/programs.c and compiles it as `weft check` would compile one
/// program (weft-cc -O0: every access in the source stays an access). Returns the binary's path.
inline std::string build_chunk(const std::filesystem::path& dir, const std::string& source) {
  const std::filesystem::path file = dir / "programs.c";
  std::ofstream(file) << source;
  const std::filesystem::path binary = dir / "programs";
  const std::string command = std::string(WEFT_CC) + " -O0 " + file.string() + " -o " +
                              binary.string() + " 2>" + (dir / "cc.stderr").string();
  const int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << command;
  return binary.string();
}

}  // namespace weft::testing
