// What weft and a program built by weft-cc say to each other, in one place: the options that go
// through the program's environment, the shared memory they hand executions over in (a channel
// page, the directive, the trace log), and the binary records of the directive and the log.
// Implemented in src/runtime/native_protocol.cpp, which both the driver and the runtime linked
// into programs compile. Schedules in reports and replay files keep the text wire form
// (weft/trace/wire.hpp); this binary form never leaves the two processes.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "weft/trace/directive.hpp"
#include "weft/trace/thread_id.hpp"
#include "weft/trace/trace.hpp"

namespace weft::native {

// ---- the environment ------------------------------------------------------------------------

/// Set by weft when it starts an instrumented program as a fork server: "STATUS,SHM,BYTES" (the
/// pipe the program says HELLO on, the shared-memory file descriptor and its size).
inline constexpr const char* kControlEnv = "WEFT_CONTROL";
/// Set by `weft replay` to anything: run the one execution whose directive is in the shared
/// memory, in process, with the program's output shown.
inline constexpr const char* kReplayEnv = "WEFT_REPLAY";
/// "1": stop in the debugger (raise SIGTRAP) when a replayed execution reaches its bug.
inline constexpr const char* kBreakOnBugEnv = "WEFT_BREAK_ON_BUG";

/// How weft runs the program: every setting that reaches the program, and the one place that
/// writes them into its environment and reads them back (each setting is one WEFT_* variable).
struct ProgramOptions {
  std::string points = "sync";  ///< "sync" or "all": which accesses are scheduling points
  /// The memory model the executions follow: "sc" or "tso" (memory_model_name).
  std::string memory_model = "sc";
  std::uint32_t max_steps_per_thread = kDefaultMaxStepsPerThread;  ///< per thread (thesis §3.4)
  std::uint32_t max_threads = 1000;  ///< upper bound on the threads of one execution
  /// Inputs (__VERIFIER_nondet_*, weft_input_*) are explored symbolically; off (--nondet V):
  /// each returns nondet_value.
  bool explore_inputs = true;
  std::int64_t nondet_value = 0;
  double execution_seconds = 10;   ///< wall-clock limit per execution (0: none)
  std::uint64_t memory_mb = 4096;  ///< resident-memory limit per execution (0: none)
  bool show_output = false;        ///< let the program's output through during exploration
  /// Fork a fresh process for every execution instead of running them all in one worker process
  /// that restores its memory after each (slower; for programs that change process state beyond
  /// memory and file descriptors, such as signal handlers or the working directory).
  bool fresh_process = false;
  /// Let threads go around busy-wait loops (up to the step bound) instead of stopping them after
  /// one iteration that did not leave the loop.
  bool keep_spinning = false;
  /// Record each thread's local state at each of its operations (Trace::local_states), for the
  /// strategies that match states: a thread's state is then what it holds, not what it did.
  bool local_states = false;
  /// With points "sync": record what each thread's code between two events read and wrote
  /// (Trace::segments), for the thread model, and the values events read and wrote.
  bool record_segments = false;
  /// Check heap accesses and deallocations for memory errors, and make frees visible operations
  /// (off: --no-memory-checks).
  bool memory_checks = true;
  /// Report heap blocks still allocated when a completed execution ends (--leaks).
  bool leaks = false;
  /// Put the instrumented libraries of the library cache (tools/weft-lib) first on the program's
  /// library path (off: --no-library-cache). weft's side only: not in the environment().
  bool library_cache = true;
  /// Check every execution for locking-discipline violations (--lockset, explore/lockset.hpp),
  /// which needs record_segments with points "sync". weft's side only: not in the environment().
  bool lockset = false;
  /// With points "sync": code addresses of plain accesses that are scheduling points all the
  /// same, the instructions of races found earlier in the run (race-directed scheduling points),
  /// sorted.
  std::vector<std::uint64_t> promoted_sites;
  bool promoted(std::uint64_t site) const {
    return !promoted_sites.empty() &&
           std::binary_search(promoted_sites.begin(), promoted_sites.end(), site);
  }

  /// CPU seconds an execution may use (0: no limit): the wall-clock limit rounded up, plus one.
  std::uint64_t cpu_seconds() const;
  /// The "NAME=value" entries that carry these options.
  std::vector<std::string> environment() const;
  /// The options the environment of this process carries (defaults where a variable is unset).
  static ProgramOptions from_environment();
};

// ---- the shared memory --------------------------------------------------------------------

/// A marker string every instrumented binary contains; weft refuses binaries without it.
inline constexpr const char* kRuntimeMarker = "weft-runtime-v1";
/// Bumped whenever what the runtime in the program and weft must agree on changes (version 2:
/// atomic sections carry footprints, and exits wait until no other thread can run; 3: crash
/// records "W"; 4: free is an operation, memory-error options, sanitizer reports "S"; 5: the
/// shared-memory channel and binary records of this header; 6: events carry the values they read
/// and wrote; 7: directives carry inputs, logs the inputs, expressions and branches; 8: the
/// expression mirror, kKnownExpressions; 9: directives carry PCT's priority changes; 10: traces
/// carry a sleep-set walk's weight; 11: kCaveat records; 12: kLibraryCall records;
/// 14: events and pending threads carry local states; 15: SchedulePolicy::kStickyInTurns;
/// 16: kSegment records; 17: the memory model (WEFT_MEMORY_MODEL) and x86-TSO's operations;
/// 18: RC11's options: directives carry TestDirective::choices, logs kChoice records, and the
/// pass calls __weft_atomic_expect and __weft_atomic_after around read-modify-writes);
/// 19: kWeakStep records; 20: directives carry TestDirective::every_option and ::sources, logs
/// kGraphAccess and kTakenStore records.
inline constexpr int kProtocolVersion = 20;
/// The protocol version as a string every instrumented binary contains (fork_server.cpp), so that
/// weft can refuse a binary built by another version before it starts it: an older runtime does
/// not understand WEFT_CONTROL and would die before it could say HELLO.
#define WEFT_PROTOCOL_MARKER "weft-protocol-v20"
inline constexpr const char* kProtocolMarker = WEFT_PROTOCOL_MARKER;
static_assert(WEFT_PROTOCOL_MARKER[sizeof WEFT_PROTOCOL_MARKER - 3] ==
                      '0' + kProtocolVersion / 10 &&
                  WEFT_PROTOCOL_MARKER[sizeof WEFT_PROTOCOL_MARKER - 2] ==
                      '0' + kProtocolVersion % 10,
              "the protocol marker names kProtocolVersion");

/// The mutex that __VERIFIER_atomic_* functions and atomic_begin/end blocks hold (no object
/// lives at this address).
inline constexpr std::uint64_t kAtomicSectionKey = 8;

/// What weft asks of the program's side (Channel::command).
enum class Command : std::uint32_t { kNone, kRun, kQuit };
/// Why the fork server ended an execution itself (Channel::exit_reason).
enum class ExitReason : std::uint32_t { kNone, kTimeout, kMemory };

/// The first page of the shared memory. Start-up goes through a pipe ("HELLO <version> <load
/// base, hex>\n" once, so that weft sees a program that dies before main); every execution after
/// that is handed over here, without a system call when the other side is waiting awake:
///   weft:     writes the directive, sets `command`, bumps `request`;
///   program:  runs the execution (the worker), writing the log as it goes; then sets
///             `exit_status` (a raw wait status: 0 for a worker that runs on) and `exit_reason`,
///             and bumps `reply`. The fork server does this instead when the worker died or it
///             killed it for a limit; a word of its own says which of the two answers.
/// A side that finds nothing new spins for a while, then sleeps on the word (futex), saying so in
/// its `*_sleeping` word so that the other side wakes it only then.
struct Channel {
  std::atomic<std::uint32_t> request;
  std::atomic<std::uint32_t> reply;
  std::atomic<std::uint32_t> weft_sleeping;
  std::atomic<std::uint32_t> program_sleeping;
  Command command;
  std::uint32_t directive_bytes;  ///< of the directive record after the channel page
  std::int32_t exit_status;
  ExitReason exit_reason;
  /// Written by the fork server, for weft's report of the memory the program's processes used:
  /// the worker running now (0: none), and the largest peak resident memory, in KiB, of the
  /// processes that ran executions and have ended (workers replaced, fresh children).
  std::atomic<std::int32_t> worker_pid;
  std::atomic<std::uint64_t> ended_peak_rss_kib;
  /// Written by weft before each execution: how many expression nodes of the mirror (below) it
  /// holds as they are there, those of the last execution whose log it read whole (0: none).
  std::uint64_t known_expressions;
  /// Set to -1 by weft before each execution; written by the fork server when it kills one for
  /// its time limit: the system call the process was blocked in then, for the report.
  std::int32_t blocked_system_call;
};

/// The system call process `pid` is blocked in (/proc/PID/syscall), or -1 if it is running or
/// that cannot be read.
int blocked_system_call(int pid);

/// Notes the peak resident memory of a process the fork server reaped (`ru_maxrss`, KiB).
inline void note_ended_peak(Channel& channel, long peak_kib) {
  std::uint64_t seen = channel.ended_peak_rss_kib.load();
  const auto peak = static_cast<std::uint64_t>(peak_kib > 0 ? peak_kib : 0);
  while (peak > seen && !channel.ended_peak_rss_kib.compare_exchange_weak(seen, peak)) {
  }
}

/// The layout of the shared memory: the channel page, the directive, the expression mirror, then
/// the log.
///
/// The mirror is how an execution avoids sending weft the path constraints it already has: it
/// holds the expression nodes (symbolic::ExprNode, indexed by id) of the execution before, as the
/// program wrote them. A test shares a prefix with the execution before it (the strategies go
/// depth-first: the same schedule and inputs up to a changed step or flipped branch), so its
/// first nodes are that execution's first ones. The program sends, in a kKnownExpressions record,
/// only how many of its first nodes equal the mirror's, then the nodes from the first that
/// differs, which it also writes into the mirror for the execution after.
inline constexpr std::size_t kChannelBytes = 4096;
inline constexpr std::size_t kDirectiveBytes = std::size_t{16} << 20;
inline constexpr std::size_t kMirrorBytes = std::size_t{16} << 20;
inline constexpr std::size_t kMirrorNodes = kMirrorBytes / sizeof(symbolic::ExprNode);
inline constexpr std::size_t kSharedBytes = std::size_t{112} << 20;  // sparse: only what is used
inline Channel& channel_of(void* shared) {
  return *static_cast<Channel*>(shared);
}
inline char* directive_of(void* shared) {
  return static_cast<char*>(shared) + kChannelBytes;
}
/// The mirror's node i is element i (0 unused, as in ExpressionPool).
inline symbolic::ExprNode* mirror_of(void* shared) {
  return reinterpret_cast<symbolic::ExprNode*>(static_cast<char*>(shared) + kChannelBytes +
                                               kDirectiveBytes);
}
inline void* log_of(void* shared) {
  return static_cast<char*>(shared) + kChannelBytes + kDirectiveBytes + kMirrorBytes;
}
inline constexpr std::size_t kLogBytes =
    kSharedBytes - kChannelBytes - kDirectiveBytes - kMirrorBytes;

/// Bumps `word` and wakes the other side if it sleeps on it (`sleeping`).
void publish(std::atomic<std::uint32_t>& word, std::atomic<std::uint32_t>& sleeping);
/// Waits until `word` differs from `seen`: spinning first, then asleep. False if `timeout_ms`
/// (-1: none) passed first. The spinning lasts kSpinNanoseconds, pausing the CPU between looks
/// and, after the first part, yielding it (another process on this CPU may be the one to answer).
bool wait_for_change(const std::atomic<std::uint32_t>& word, std::uint32_t seen,
                     std::atomic<std::uint32_t>& sleeping, int timeout_ms);
inline constexpr long kSpinNanoseconds = 200'000;

// ---- binary records -----------------------------------------------------------------------

/// Thrown when a record cannot be decoded; the message says what is wrong.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The directive as one binary record: weft's threads (as (parent, creation index) pairs in the
/// order of its registry, so that the program's registry gives them the same ids), then the
/// prefix, sleep set, policies and seed. Returns its size; 0 if it does not fit in `capacity`.
std::size_t encode_directive(const TestDirective& d, const ThreadRegistry& threads, char* out,
                             std::size_t capacity);
/// Decodes a directive record; `threads` must hold only the main thread: the record's threads
/// are registered in their order.
TestDirective decode_directive(const char* in, std::size_t size, ThreadRegistry& threads);

/// The log an execution writes while it runs, in the shared memory, so that weft keeps the
/// events of a process that crashes or is killed. After the header come records, each a tag
/// byte, a 4-byte payload length and the payload:
///   kEvent     an event: thread, operation, enabled set, whether it finished its thread, site,
///              the values it read and wrote (AccessValues: which are known, then those)
///   kThread    a thread the program's registry has that weft did not send: id, parent, index
///              (written before the first record that names it)
///   kEnd       the end of the execution: outcome, message, failing thread, prefix followed,
///              divergence, failures, pending operations, whether threads read the runtime's
///              own state (the trace without its events)
///   kInputs    the program read an input, which got weft's fixed --nondet value
///   kInput     the program read an input weft explores: thread, ordinal, width, signedness,
///              value, step, name
///   kKnownExpressions  how many of the execution's first expression nodes are the mirror's
///              (weft has them): written before a record that names them, growing while every
///              node so far matched, and never after a kExpressions record
///   kExpressions  expression nodes (symbolic::ExprNode), numbered on from those logged before
///   kBranch    a branch on an input-dependent condition (SymbolicBranch)
///   kUnconstrained  how many values were made concrete without a constraint so far
///   kUntracked an input was read while inputs were not followed (TestDirective::track_inputs)
///   kUnrestored  the program changed process state a worker does not restore (setuid, nice,
///              prctl...; the function's name): later executions may start from it
///   kCaveat    something the execution did that weft sees only in part: a CaveatKind byte, then
///              what it was as a string (may hold {pc:} marks)
///   kLibraryCall  an event whose site is in a library weft did not compile: the event's index,
///              a count and the return addresses into the program (innermost first) through
///              which its thread got there
///   kCrashed   the thread that crashed (an id)
///   kWhere     where it crashed, beyond fault_pc (describe_crash): a library function and the
///              program's frame that called it, what the faulting address is
///   kSanitizer a sanitizer the program was built with reported an error (one line, with
///              {pc:}/{in:} marks; after a kCrashed record naming the thread)
///   kSegment   what a thread's code did between two events (Segment): the step it ran after,
///              the thread, whether it is opaque, its reads and its writes (PlainAccess)
///   kChoice    under RC11, the option a step took (Trace::options, Trace::choices): the step
///              (logged before it or after), the option, how many it had, and whether it took
///              an older store than the newest, and if so which (Trace::OlderStore)
///   kWeakStep  under RC11, a step that was an atomic access weaker than seq_cst, or after which
///              its thread ran such a fence (Trace::weak_steps)
///   kGraphAccess under RC11, what a step's atomic access took (Trace::GraphAccess): the step,
///              the kind of access, the step whose store it read or follows, the location
///   kTakenStore under RC11, exploring graphs, a store an update could have read but for
///              atomicity (Trace::TakenStore): the step, the step that made the store
enum class Record : std::uint8_t {
  kEvent = 'E',
  kThread = 'N',
  kEnd = 'T',
  kInputs = 'I',
  kInput = 'J',
  kKnownExpressions = 'P',
  kExpressions = 'X',
  kBranch = 'B',
  kUnconstrained = 'K',
  kUntracked = 'Q',
  kUnrestored = 'U',
  kCaveat = 'V',
  kLibraryCall = 'L',
  kCrashed = 'C',
  kWhere = 'W',
  kSanitizer = 'S',
  kSegment = 'G',
  kChoice = 'O',
  kWeakStep = 'A',
  kGraphAccess = 'R',
  kTakenStore = 'Y',
};

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

/// The program's side of the log. Records are whole; one that does not fit is dropped and the
/// header says so. Async-signal-safe apart from what the caller passes.
class LogWriter {
 public:
  /// `memory` of `bytes` bytes; the header is initialised. `mirror`: the expression mirror, of
  /// `mirror_nodes` elements (none: every node is sent).
  LogWriter(void* memory, std::size_t bytes, symbolic::ExprNode* mirror = nullptr,
            std::size_t mirror_nodes = 0);
  /// Starts a fresh log (one per execution). `sent_threads`: how many threads of the registry
  /// weft sent with the directive (the others are announced by kThread records).
  /// `known_expressions`: how many of the mirror's nodes weft holds (Channel::known_expressions).
  void reset(std::size_t sent_threads, std::size_t known_expressions = 0);
  /// Appends event `index` of `trace` (with its enabled set, finished mark and site).
  void event(const Trace& trace, std::size_t index, const ThreadRegistry& threads,
             const AccessValues& values = {});
  /// What of an execution's InputObservations has been logged (expressions: sent, or announced
  /// as known).
  struct SymbolicLogged {
    std::size_t inputs = 0, expressions = 0, branches = 0;
    std::size_t announced_known = 0;  ///< in kKnownExpressions records so far
    bool sent_expressions = false;    ///< a kExpressions record was written
    std::uint32_t unconstrained = 0;
    bool untracked = false;
  };
  /// Appends what `seen` has beyond `logged` (inputs, expressions, branches) and notes it there.
  /// `events_name_expressions`: the event records that follow name expressions (values written
  /// from inputs), so the nodes weft knows from the execution before are announced too.
  void symbolic(const InputObservations& seen, SymbolicLogged& logged,
                const ThreadRegistry& threads, bool events_name_expressions = false);
  /// Appends the end of the execution: `trace` without its events.
  void end(const Trace& trace, const ThreadRegistry& threads);
  /// Appends the crashed thread.
  void crashed(ThreadId thread, const ThreadRegistry& threads);
  /// Appends a record whose payload is text (kInputs, kUnrestored, kWhere, kSanitizer).
  void text(Record tag, std::string_view text);
  /// Appends a kSegment record: `segment`, its accesses in `accesses` (from its reads_from and
  /// writes_from).
  void segment(const Segment& segment, std::span<const PlainAccess> accesses,
               const ThreadRegistry& threads);
  /// Appends a kCaveat record.
  void caveat(CaveatKind kind, std::string_view what);
  /// Appends a kLibraryCall record: event `index` ran in a library the program called through
  /// the return addresses `program_callers` (innermost first, at most 255).
  void library_call(std::size_t index, std::span<const std::uint64_t> program_callers);
  /// Appends a kChoice record: step `step` took option `choice` of `count`, and `older` says
  /// which store that was if not the newest.
  void choice(std::size_t step, std::uint32_t choice, std::uint32_t count,
              const Trace::OlderStore* older);
  /// Appends a kWeakStep record.
  void weak_step(std::uint32_t step);
  /// Appends a kGraphAccess record for step `step`.
  void graph_access(std::uint32_t step, const Trace::GraphAccess& access);
  /// Appends a kTakenStore record.
  void taken_store(const Trace::TakenStore& taken);
  /// Notes the signal the process dies of (called from the signal handler).
  void note_fault(int signal, std::uint64_t pc, std::uint64_t address);

 private:
  void announce(const ThreadRegistry& threads);
  /// Publishes the record whose payload of `size` bytes was written, if it all was (`written`).
  void commit(Record tag, bool written, std::size_t size);
  /// Skips the nodes from `logged`'s next on that equal the mirror's, while all so far have.
  void skip_known_expressions(const symbolic::ExpressionPool& pool, SymbolicLogged& logged);
  LogHeader* header_;
  char* records_;
  std::size_t announced_ = 1;
  symbolic::ExprNode* mirror_ = nullptr;
  std::size_t mirror_nodes_ = 0;
  std::size_t known_ = 0;  // mirror nodes weft holds; 0 once a node differed
};

/// What weft reads back from a log: the events, how the execution ended if it got that far, and
/// the other records. Thread ids are weft's.
struct LoggedExecution {
  Trace events;                           ///< events, enabled, finished_thread and sites
  std::optional<Trace> ending;            ///< the kEnd record, if written
  ThreadId crashed = kNoThread;           ///< the last kCrashed record
  std::string crash_details;              ///< the kWhere record
  std::string sanitizer_report;           ///< the first kSanitizer record
  std::size_t sanitizer_report_step = 0;  ///< events logged before it
  ThreadId sanitizer_thread = kNoThread;  ///< the kCrashed record before it
  bool read_inputs = false;               ///< a kInputs record
  InputObservations symbolic;             ///< kInput, kExpressions, kBranch records
  std::vector<std::string> unrestored;    ///< kUnrestored records
  std::vector<Caveat> caveats;            ///< kCaveat records
  /// kLibraryCall records, as Trace::library_callers.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> library_callers;
};

/// Decodes a log. `sent_threads`: how many threads weft sent with the directive (those keep their
/// ids; the log announces the others, which are registered in `threads`). `known`: the expression
/// nodes weft told the program it holds (Channel::known_expressions of them), from which a
/// kKnownExpressions record's nodes are taken. Throws ProtocolError.
LoggedExecution read_log_records(const void* log, std::size_t sent_threads, ThreadRegistry& threads,
                                 const symbolic::ExpressionPool* known = nullptr);

}  // namespace weft::native
