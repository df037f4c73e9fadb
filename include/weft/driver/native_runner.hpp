// Running an instrumented program: weft's side of the fork server (see
// weft/runtime/native_protocol.hpp for the other side).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/runtime/pipe_wait.hpp"
#include "weft/trace/directive.hpp"
#include "weft/trace/thread_id.hpp"
#include "weft/trace/trace.hpp"

namespace weft::driver {

/// A problem that stops weft before or while running a program (not a bug of the program): the
/// message is one line naming the problem and what to do.
class DriverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ProgramOptions {
  std::string points = "sync";  ///< "sync" or "all"
  std::uint32_t max_steps_per_thread = 10000;
  std::uint32_t max_threads = 1000;
  std::int64_t nondet_value = 0;
  double execution_seconds = 10;   ///< wall-clock limit per execution (0: none)
  std::uint64_t memory_mb = 4096;  ///< resident-memory limit per execution (0: none)
  bool show_output = false;        ///< let the program's output through during exploration
  /// Fork a fresh process for every execution instead of running them all in one worker process
  /// that restores its memory after each (slower; for programs that change process state beyond
  /// memory and file descriptors, such as signal handlers or the working directory).
  bool fresh_process = false;
  /// Let threads go around busy-wait loops up to the step bound (see kKeepSpinningEnv).
  bool keep_spinning = false;
  /// Check heap accesses and deallocations for memory errors (kMemoryChecksEnv).
  bool memory_checks = true;
  /// Report blocks still allocated when a completed execution ends (kLeaksEnv).
  bool leaks = false;
  /// With points "sync": code addresses of plain accesses that are scheduling points all the
  /// same, the instructions of races found earlier in the run (kPromotedSitesEnv).
  std::vector<std::uint64_t> promoted_sites;
};

/// The program and how to run it.
struct Program {
  std::string path;
  std::vector<std::string> args;
  ProgramOptions options;
};

/// Throws DriverError unless `path` is an executable built by weft-cc.
void check_instrumented(const std::string& path);

/// Whether the executable is position-independent (its code addresses need its load base).
bool is_position_independent(const std::string& path);

/// Starts the program as a fork server and runs one execution per run() call, each in a fresh
/// child forked before the program's main. Whatever a child does (crash, hang, exit from a
/// thread, kill itself), run() returns its trace: the events up to the end, and how it ended.
class ForkServer {
 public:
  ForkServer(const Program& program, ThreadRegistry& threads);
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;

  Trace run(const TestDirective& directive);
  /// Where the program's executable is loaded (for symbolizing code addresses).
  std::uint64_t load_base() const { return load_base_; }

 private:
  void start();
  void stop();
  std::string read_line(double timeout_seconds);

  Program program_;
  ThreadRegistry& threads_;
  pid_t server_ = -1;
  int control_ = -1;  // weft → program
  int status_ = -1;   // program → weft
  int shm_ = -1;
  void* log_ = nullptr;
  std::size_t log_bytes_ = 0;
  std::uint64_t load_base_ = 0;
  std::string pending_;  // bytes read from status_ past the last line
  native::AdaptiveWait waiter_;
};

/// Why the fork server killed a child, if it did.
enum class Killed { kNo, kTimeLimit, kMemoryLimit };

/// Reconstructs the trace a child left in a log (weft/runtime/native_protocol.hpp). Used by
/// ForkServer and replay; `wait_status` is how the child ended, `killed` whether it was stopped
/// for a limit (given in `options`).
Trace read_log(const void* log, const TestDirective& directive, int wait_status, Killed killed,
               const ProgramOptions& options, ThreadRegistry& threads);

/// Runs one execution of the program in the foreground (its output shown), optionally under
/// gdb stopped at the bug, and returns its trace.
/// `output_to_stderr` sends the program's standard output to stderr (for --json on stdout).
Trace replay_execution(const Program& program, const TestDirective& directive,
                       ThreadRegistry& threads, bool under_gdb, std::uint64_t* load_base,
                       bool output_to_stderr = false);

}  // namespace weft::driver
