// Running an instrumented program: weft's side of the fork server (see
// weft/runtime/native_protocol.hpp for the other side).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/driver/symbolizer.hpp"
#include "weft/runtime/native_protocol.hpp"
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

/// How weft runs the program (weft/runtime/native_protocol.hpp: the settings that reach it).
using ProgramOptions = native::ProgramOptions;

/// The program and how to run it.
struct Program {
  std::string path;
  std::vector<std::string> args;
  ProgramOptions options;
};

/// Throws DriverError unless `path` is an executable built by weft-cc.
void check_instrumented(const std::string& path);
/// Throws DriverError if the address space is limited (ulimit -v): the program's runtime reserves
/// far more than it uses, and would fail in ways that look like the program's bugs.
void check_address_space();

/// Whether the executable is position-independent (its code addresses need its load base).
bool is_position_independent(const std::string& path);

/// Starts the program as a fork server and runs one execution per run() call, in its worker
/// process (or in a fresh child forked before the program's main). Whatever a child does (crash,
/// hang, exit from a thread, kill itself), run() returns its trace: the events up to the end, and
/// how it ended.
class ForkServer {
 public:
  ForkServer(const Program& program, ThreadRegistry& threads);
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;

  Trace run(const TestDirective& directive);
  /// When the run's time limit ends: an execution still running then is stopped, and its trace
  /// says so (Trace::past_time_limit), so that the run ends within a moment of its limit
  /// however long its executions take.
  void set_run_deadline(std::chrono::steady_clock::time_point deadline) {
    run_deadline_ = deadline;
  }
  /// Where the program's executable is loaded (for symbolizing code addresses).
  std::uint64_t load_base() const { return load_base_; }
  /// The shared libraries' code in the program's processes (read when the server started: its
  /// workers have the same).
  const std::vector<MappedCode>& libraries() const { return libraries_; }
  /// The largest peak resident memory, in KiB, of the program's processes so far: the fork
  /// server, its worker, and those that ended.
  std::uint64_t peak_rss_kib() const;

 private:
  void start();
  void stop();
  Trace run_once(const TestDirective& directive);
  /// Waits for the answer to the request in progress; false if the server is gone.
  bool wait_for_reply(std::uint32_t seen);

  Program program_;
  ThreadRegistry& threads_;
  pid_t server_ = -1;
  void* shared_ = nullptr;  // native_protocol.hpp: channel, directive, mirror, log
  std::uint64_t load_base_ = 0;
  std::vector<MappedCode> libraries_;
  std::optional<std::chrono::steady_clock::time_point> run_deadline_;
  bool stopped_at_deadline_ = false;  // the execution in progress was stopped at run_deadline_
  bool track_inputs_ = false;         // some execution read an input: every one follows inputs now
  // The expression nodes of the last execution whose log was read whole: the program's mirror
  // holds them too, and the next execution sends only what follows the prefix they share.
  symbolic::ExpressionPool last_expressions_;
};

/// Why the fork server killed a child, if it did.
enum class Killed { kNo, kTimeLimit, kMemoryLimit };

/// Reconstructs the trace an execution left in a log (weft/runtime/native_protocol.hpp). Used by
/// ForkServer and replay; `sent_threads` is how many threads the directive carried, `wait_status`
/// how the process ended (0 for a worker that runs on), `killed` whether it was stopped for a
/// limit (given in `options`), and the system call it was blocked in then (-1: none or unknown);
/// `known_expressions` the nodes weft said it holds (Channel::known_expressions).
Trace read_log(const void* log, std::size_t sent_threads, const TestDirective& directive,
               int wait_status, Killed killed, int blocked_system_call,
               const ProgramOptions& options, ThreadRegistry& threads,
               const symbolic::ExpressionPool* known_expressions = nullptr);

/// The lib/ directory of the library cache of instrumented libraries (tools/weft-lib:
/// $WEFT_LIBRARY_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/weft/libraries), or "" when there is none.
std::string library_cache_directory();

/// Runs one execution of the program in the foreground (its output shown), optionally under
/// gdb stopped at the bug, and returns its trace.
/// `output_to_stderr` sends the program's standard output to stderr (for --json on stdout).
/// `libraries` gets the code of the shared libraries it mapped (for naming library steps).
Trace replay_execution(const Program& program, const TestDirective& directive,
                       ThreadRegistry& threads, bool under_gdb, std::uint64_t* load_base,
                       bool output_to_stderr = false, std::vector<MappedCode>* libraries = nullptr);

}  // namespace weft::driver
