// What weft and a program built by weft-cc say to each other: environment variables, the control
// lines of the fork server, and the layout of the shared-memory trace log.
#pragma once

#include <cstdint>

namespace weft::native {

/// Set by weft when it starts an instrumented program as a fork server: "CTL,STATUS,SHM,BYTES"
/// (two pipe file descriptors, a shared-memory file descriptor and its size).
inline constexpr const char* kControlEnv = "WEFT_CONTROL";
/// Set by `weft replay`: the directive (wire form) of the one execution to re-run, in process,
/// with the program's output shown.
inline constexpr const char* kReplayEnv = "WEFT_REPLAY";
/// "sync" (default) or "all": which accesses are scheduling points.
inline constexpr const char* kPointsEnv = "WEFT_POINTS";
/// With points "sync": code addresses (hex, comma-separated) of accesses that are scheduling
/// points nevertheless, the instructions of races found earlier in the run (race-directed
/// scheduling points).
inline constexpr const char* kPromotedSitesEnv = "WEFT_PROMOTED_SITES";
/// Per-thread bound on visible operations.
inline constexpr const char* kMaxStepsEnv = "WEFT_MAX_STEPS";
/// Upper bound on the threads of one execution.
inline constexpr const char* kMaxThreadsEnv = "WEFT_MAX_THREADS";
/// Value every __VERIFIER_nondet_* returns (until the concolic issue makes them inputs).
inline constexpr const char* kNondetEnv = "WEFT_NONDET";
/// Per-execution limits of the forked child: CPU seconds and resident memory in MiB.
inline constexpr const char* kCpuLimitEnv = "WEFT_CPU_SECONDS";
inline constexpr const char* kMemoryLimitEnv = "WEFT_MEMORY_MB";
/// Wall-clock milliseconds a child may run before the fork server kills it (0: no limit).
inline constexpr const char* kTimeoutEnv = "WEFT_TIMEOUT_MS";
/// "1": fork a fresh child for every execution, instead of one worker process that restores its
/// memory after each execution (for programs that change process state the snapshot does not
/// cover: files, signal handlers, the working directory).
inline constexpr const char* kFreshProcessEnv = "WEFT_FRESH_PROCESS";
/// "1": let threads go around busy-wait loops (up to the step bound) instead of stopping them
/// after one iteration that did not leave the loop.
inline constexpr const char* kKeepSpinningEnv = "WEFT_KEEP_SPINNING";
/// "0": no memory-error checks (--no-memory-checks); frees are then not operations either.
inline constexpr const char* kMemoryChecksEnv = "WEFT_MEMORY_CHECKS";
/// "1": report heap blocks still allocated when a completed execution ends (--leaks).
inline constexpr const char* kLeaksEnv = "WEFT_LEAKS";
/// "1": stop in the debugger (raise SIGTRAP) when a replayed execution reaches its bug.
inline constexpr const char* kBreakOnBugEnv = "WEFT_BREAK_ON_BUG";

/// The mutex that __VERIFIER_atomic_* functions and atomic_begin/end blocks hold (no object
/// lives at this address).
inline constexpr std::uint64_t kAtomicSectionKey = 8;

/// A marker string every instrumented binary contains; weft refuses binaries without it.
inline constexpr const char* kRuntimeMarker = "weft-runtime-v1";
/// Bumped whenever what the runtime in the program and weft must agree on changes (version 2:
/// atomic sections carry footprints, and exits wait until no other thread can run; 3: crash
/// records "W"; 4: free is an operation, memory-error options, sanitizer reports "S").
inline constexpr int kProtocolVersion = 4;

// Control lines (text, one per line):
//   program → weft at start:  "HELLO <version> <load base, hex>"
//   weft → program:           "RUN <directive in wire form>"  |  "QUIT"
//   program → weft:           "EXIT <raw wait status>[ timeout| memory]" when the execution has
//                             ended (the status of a worker that runs on is 0; the server kills
//                             a child or worker for its time or memory limit)

/// The shared-memory trace log a child writes while it runs, so that weft keeps the events of a
/// child that crashes or is killed. After the header come text records, each ending in '\n':
///   "E <event record>"   an event, in the wire form of one `events=` entry (encode_trace_event)
///   "R <thread name>"    the thread now running (for crashes: who was running)
///   "T <trace>"          the end of the execution: the trace without events (encode_trace)
///   "I fixed"            the program read an input, which got weft's fixed --nondet value
///   "U <function>"       the program changed process state a worker does not restore (setuid,
///                        nice, prctl...): later executions may start from it
///   "C <thread name>"    the thread that crashed
///   "W <text>"           where it crashed, beyond fault_pc (describe_crash): a library function
///                        and the program's frame that called it, what the faulting address is
///   "S <text>"           a sanitizer the program was built with reported an error (one line,
///                        with {pc:}/{in:} marks; after a "C" record naming the thread)
struct LogHeader {
  std::uint32_t magic;
  std::uint32_t version;
  std::uint64_t used;      ///< bytes of records written after the header
  std::uint64_t capacity;  ///< bytes available for records
  std::uint64_t fault_pc;  ///< crashes: the faulting instruction (0 if unknown)
  /// SIGSEGV, SIGBUS: the address accessed; SIGILL: the faulting instruction's first two bytes
  /// (0x0b0f is ud2, the trap clang inserts where behaviour is undefined).
  std::uint64_t fault_address;
  std::int32_t fault_signal;  ///< 0, or the signal the child died of
  std::uint32_t overflowed;   ///< 1 if records were dropped for lack of space
};
inline constexpr std::uint32_t kLogMagic = 0x77656674;  // "weft"

}  // namespace weft::native
