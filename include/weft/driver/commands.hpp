// The `weft` subcommands: check (compile and explore), run (explore a built program), replay.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/driver/native_runner.hpp"
#include "weft/driver/report_files.hpp"
#include "weft/explore/options.hpp"

namespace weft::driver {

/// Documented exit codes of `weft`.
enum ExitCode : int {
  kExitNoBug = 0,       ///< explored completely, no bug
  kExitBug = 1,         ///< a bug was found
  kExitUsage = 2,       ///< usage, build or setup error
  kExitIncomplete = 3,  ///< no bug found, but exploration was cut short (bound, time limit...)
};

/// The strategy and its settings, the limits and what to count (--strategy, --no-sleep-sets,
/// --deadlocks, --executions, --seed, --depth, --pct-steps, --bound, --all-bugs,
/// --max-executions, --time-limit, --count-traces) are explorer::ExploreOptions', which the
/// in-process API shares; the rest are the command line's own.
struct ExploreSettings : explorer::ExploreOptions {
  std::string dump_unfolding;  ///< --dump-unfolding: write the unfolding here (dot)
  /// --check-global: a predicate over global variables and threads' locations to search the
  /// unfolding's global states for (thesis §6.2)
  std::string check_global;
  /// Explore on past other bugs, and stop at the first whose kind or message has this.
  std::string stop_on;
  /// With points "sync" and --all-bugs or stop_on: a race's instructions become scheduling points
  /// and the exploration starts over (race-directed points); false keeps one round.
  bool race_points = true;
  /// --weft-memory-limit: weft's own resident memory, in MiB, at which the run ends with its
  /// verdict so far (0: half of the machine's memory).
  std::uint64_t weft_memory_mb = 0;
  /// Estimate optimal DPOR's size (ExploreOptions::estimate_size) where it helps: when a time
  /// limit may cut the run short or its progress is shown (--no-estimate turns it off).
  bool estimate_when_useful = true;
  bool json = false;
  /// --sarif, --junit, --html: report files rendered from the result JSON, besides the output.
  ReportFiles reports;
  /// With --points=all: compute the executions whose every step the thread model has seen
  /// (thread_model.hpp) instead of running them ("on"), never ("off"), or run them too and
  /// stop with an error if the two differ ("check").
  std::string thread_model = "on";
  bool thread_model_given = false;    ///< --thread-model was on the command line
  bool quiet = false;                 ///< no progress line
  std::string replay_file;            ///< where to write the first bug's replay file ("" = default)
  bool program_is_temporary = false;  ///< built by `weft check`: refer to it only via the file
  std::string source;  ///< the source file `weft check` built the program from ("" for run)
  /// `weft check` looks for a kept build of the program and keeps its own (program_build.hpp);
  /// --no-build-cache turns this off.
  bool build_cache = true;
  bool build_reused = false;  ///< `weft check` took a kept build (shown in the JSON result)
};

/// Explores `program` and prints the verdict; returns the exit code.
int run_command(const Program& program, const ExploreSettings& settings);

/// Compiles `source` with weft-cc/weft-c++ (plus `compiler_flags`) into a temporary directory,
/// or takes a kept build of it (program_build.hpp), then explores it as run_command does. The
/// directory is always removed; if a bug was found, a copy of the program stays beside its replay
/// file (`x.json` keeps `x.bin`).
int check_command(const std::string& source, const std::vector<std::string>& compiler_flags,
                  Program program, const ExploreSettings& settings);

/// Re-executes the execution a replay file describes (optionally under gdb); `program_path`
/// overrides the program named in the file. `reports`: report files of the replayed execution.
int replay_command(const std::string& replay_file, const std::string& program_path, bool under_gdb,
                   bool json, const ReportFiles& reports = {});

}  // namespace weft::driver
