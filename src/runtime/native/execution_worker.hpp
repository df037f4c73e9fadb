// The processes the fork server runs executions in: a persistent worker that runs one execution
// after another and restores its memory in between, or (the fallback) a fresh child per
// execution. Both are watched for the wall-clock and memory limits.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "weft/runtime/native_protocol.hpp"

namespace weft::runtime::native {

/// How a process running an execution stopped being waited for.
enum class ChildEnd {
  kExited,      ///< the process ended
  kTimedOut,    ///< the wall-clock limit passed
  kOutOfMemory  ///< its resident memory went over the limit
};

/// Waits until process `pid` ends, at most `ms` milliseconds (0: no limit), checking every
/// 20 ms that its resident memory stays within `memory` bytes (0: no limit). The limits are
/// measured, not set with setrlimit: the address space a run reserves (thread stacks, per-thread
/// heaps) is far larger than what it uses.
ChildEnd wait_for_child(pid_t pid, std::uint64_t ms, std::uint64_t memory);

/// Runs the execution whose directive is in the shared memory (`context`: the program's
/// arguments, the log).
using RunExecution = void (*)(void* context);

/// The limits of one execution (0: none).
struct ExecutionLimits {
  std::uint64_t cpu_seconds = 0;
  std::uint64_t wall_ms = 0;
  std::uint64_t memory_bytes = 0;
};

/// A persistent worker and the fork server watching it. The worker captures a `MemorySnapshot`
/// once, then takes weft's requests from the channel itself and, for each, runs one execution,
/// answers, removes what the execution mapped and restores the snapshot; so an execution costs
/// two hand-overs in shared memory and no fork. The server only watches: when the worker dies
/// during an execution (a crash) or is killed for a limit, the server answers for it and starts a
/// new worker. A shared word says who ends an execution, so that exactly one answer is sent.
class ExecutionWorker {
 public:
  /// `channel`: the page shared with weft (native_protocol.hpp).
  ExecutionWorker(RunExecution run, void* context, const ExecutionLimits& limits,
                  weft::native::Channel& channel);
  ~ExecutionWorker();
  ExecutionWorker(const ExecutionWorker&) = delete;
  ExecutionWorker& operator=(const ExecutionWorker&) = delete;

  /// Starts the first worker; false if it could not capture its memory (the caller then forks a
  /// child per execution).
  bool start();
  /// Watches workers, replacing each that ends, until weft says quit or goes away.
  [[noreturn]] void serve();

  struct Shared;  // the word and start time shared with the worker

 private:
  RunExecution run_;
  void* context_;
  ExecutionLimits limits_;
  weft::native::Channel& channel_;
  Shared* shared_ = nullptr;
  pid_t pid_ = -1;
  int pidfd_ = -1;
};

}  // namespace weft::runtime::native
