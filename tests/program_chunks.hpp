// For the differential tests that build many random C programs into one binary per chunk and
// explore each with the weft command (race, memory, thread-model and stateful differential
// tests). Needs WEFT_CC, and WEFT_BIN for explore_chunk_program.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace weft::testing {

/// The number in environment variable `name` (a soak outside CI sets the seeds and chunk sizes
/// so), else `fallback`.
inline std::uint64_t setting(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

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

/// What `weft run --points=POINTS OPTIONS --all-bugs --json` made of one program of a chunk.
struct ChunkExploration {
  int exit_code = -1;
  nlohmann::json result;
  std::set<std::string> bugs;  // as "kind: message"
  std::string command;
  std::string err;
  std::uint64_t statistic(const char* name) const {
    return result.is_object() ? result["statistics"].value(name, std::uint64_t{0}) : 0;
  }
};

/// Explores program `program` of chunk `binary` with the weft command (WEFT_BIN) and `options`,
/// every shared access a scheduling point (or `points`), keeping every bug; files go to `dir`.
inline ChunkExploration explore_chunk_program(const std::filesystem::path& dir,
                                              const std::string& binary, int program,
                                              const std::string& options,
                                              const std::string& points = "all") {
  ChunkExploration e;
  e.command = std::string(WEFT_BIN) + " run --points=" + points + " " + options +
              " --all-bugs --json -q --replay-file " + (dir / "replay.json").string() + " " +
              binary + " " + std::to_string(program);
  const std::filesystem::path err = dir / "weft.stderr";
  std::FILE* p = popen((e.command + " 2>" + err.string()).c_str(), "r");
  const std::string out = slurp(p);
  const int status = p ? pclose(p) : -1;
  e.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::FILE* f = std::fopen(err.c_str(), "r");
  e.err = slurp(f);
  if (f) std::fclose(f);
  e.result = nlohmann::json::parse(out, nullptr, false);
  if (e.result.is_object() && e.result.contains("bugs"))
    for (const auto& bug : e.result["bugs"])
      e.bugs.insert(bug["kind"].get<std::string>() + ": " + bug["message"].get<std::string>());
  return e;
}

}  // namespace weft::testing
