// The observed trace of one execution: what ran, in which order, with what enabled.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "weft/trace/inputs.hpp"
#include "weft/trace/operation.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft {

/// Something an execution did that weft sees only in part, so that exploring its interleavings
/// does not cover all its behaviours (docs/process-state.md, "What weft does not see").
enum class CaveatKind : std::uint8_t {
  /// Threads talked through the kernel (a pipe, socket, eventfd...): weft does not see the
  /// messages, so the orders in which they could arrive were not explored.
  kKernelCommunication,
  /// Atomics or fences weaker than seq_cst: only their sequentially consistent behaviours were
  /// explored.
  kWeakAtomics,
  /// The program uses a library weft did not compile that synchronises with its own atomic
  /// instructions: what it orders, weft does not see.
  kUnseenLibrary,
  /// A signal's handler ran in a thread other than the one that sent it, at the end of that
  /// thread's step: the later points of that thread at which it could also run were not tried.
  kSignalHandler,
  /// sem_init set a semaphore's count again after threads had used it: the setting is no
  /// operation that weft orders with the others, so its orders against them were not explored.
  kSemaphoreReset,
  /// Atomics or fences of a library's internals weaker than seq_cst (libstdc++'s waits and
  /// counts, inlined into the program or not), which RC11 takes as seq_cst.
  kLibraryAtomics,
};
inline constexpr std::uint8_t kLastCaveatKind =
    static_cast<std::uint8_t>(CaveatKind::kLibraryAtomics);

/// One caveat: its kind and what it was, as text for reports (may hold {pc:} marks).
struct Caveat {
  CaveatKind kind = CaveatKind::kKernelCommunication;
  std::string what;
  auto operator<=>(const Caveat&) const = default;
};

/// A thread's bound on visible operations (thesis §3.4's k) unless one is given: the in-process
/// API, the scheduler's limits and the native protocol's options all start from it.
inline constexpr std::uint32_t kDefaultMaxStepsPerThread = 10000;

/// How an execution ended.
enum class Outcome : std::uint8_t {
  kComplete,           ///< every thread finished
  kDeadlock,           ///< some thread is blocked and no thread is enabled
  kAssertionFailure,   ///< WEFT_ASSERT (or the program's own check) failed
  kUncaughtException,  ///< a thread let an exception escape
  kMisuse,             ///< the program misused a primitive (unlock of a mutex it does not hold...)
  kBoundReached,       ///< a thread exceeded the per-thread step bound (thesis §3.4's k): no bug
  kSleepBlocked,       ///< every enabled thread was in the sleep set: redundant, abandoned
  kDataRace,           ///< two conflicting plain accesses not ordered by happens-before
  kCrash,              ///< the program died of a signal (segfault, ...)
  kUnsupported,        ///< the program used something weft does not model: no bug, incomplete
  kDiscarded,          ///< abort() or a failed assume ended the execution: not a bug
  kTimeout,            ///< the execution exceeded its time limit (a loop with no visible step)
  /// A thread was stopped at a spin loop whose values another thread then changed: it would have
  /// left the loop, which another execution (the write before the read) covers. Redundant.
  kSpinBlocked,
  /// A thread spins forever: its busy-wait loop reads only values that no thread changes again.
  kLivelock,
  // Memory errors on the program's heap (docs/memory-errors.md).
  kUseAfterFree,    ///< an access to a block after it was freed
  kHeapOverflow,    ///< an access outside every heap block (past or before a block)
  kDoubleFree,      ///< free/delete of a block already freed
  kInvalidFree,     ///< free/delete of a pointer that is not the start of a heap block
  kFreedRealloc,    ///< realloc of a block already freed
  kMismatchedFree,  ///< new[] freed with delete, malloc with delete, a wrong sized delete...
  kMemoryLeak,      ///< with --leaks: a block still allocated when the program exited
  /// A sanitizer the program was built with (weft-cc -fsanitize=address or =undefined) reported
  /// an error: the message is its summary (docs/sanitizers.md).
  kSanitizerReport,
  /// --check-global: the program reaches a global state where the predicate holds. Found from
  /// the unfolding and confirmed by an execution that passes through the state; the driver
  /// reports it, no execution ends in it.
  kGlobalState,
  /// --lockset: a location two threads access, one writing, with no lock held at every access
  /// (Eraser's lockset, explore/lockset.hpp): a prediction from one execution, whether or not
  /// the accesses raced in it.
  kLockDiscipline,
};

/// One of the memory-error outcomes (kUseAfterFree to kMemoryLeak).
bool is_memory_error(Outcome o);

bool is_bug(Outcome o);
/// Deadlock or livelock: a bug of the execution as a whole, which no thread's entry in
/// Trace::failures records (only the trace's outcome and message say it).
bool is_whole_execution_bug(Outcome o);
/// Complete, deadlocked, livelocked or discarded: the execution is maximal, so it stands for a
/// Mazurkiewicz trace.
bool is_maximal(Outcome o);
const char* outcome_name(Outcome o);

/// A thread that had not finished when the execution ended, with what it was about to do.
struct PendingThread {
  ThreadId thread = kNoThread;
  Operation op;
  bool enabled = false;
  /// A hash of the thread's local state as it waits to perform `op` (Trace::local_states), or
  /// 0 when not recorded.
  std::uint64_t local_state = 0;
};

/// A bug of one thread (assertion, uncaught exception, misuse) and when it happened.
struct Failure {
  Outcome outcome = Outcome::kAssertionFailure;
  std::string message;
  ThreadId thread = kNoThread;
  std::size_t step = 0;  ///< events that had run when it happened
};

/// What a memory event read and wrote, as a little-endian number (native programs, accesses of at
/// most 8 bytes): what the thread model (thread_model.hpp) keys a thread's behaviour by.
struct AccessValues {
  static constexpr std::uint8_t kRead = 1;     ///< `read` is known
  static constexpr std::uint8_t kWritten = 2;  ///< `written` is known
  /// What it wrote was computed from inputs: `written` is this execution's value only, and
  /// `written_expression` (if not 0) the expression of it, in Trace::symbolic's pool.
  static constexpr std::uint8_t kWrittenFromInputs = 4;
  std::uint64_t read = 0;
  std::uint64_t written = 0;
  std::uint32_t written_expression = 0;
  std::uint8_t known = 0;
  friend bool operator==(const AccessValues&, const AccessValues&) = default;
};

/// What a thread's code did to memory between two of its visible operations (a segment), with
/// --points=sync, where plain accesses are not events (native programs, for the thread model):
/// the reads of bytes the segment had not written itself, in order, with the values they saw,
/// and each granule it wrote with the bytes it left there. Under the locking discipline weft
/// checks (every plain access is ordered with each conflicting one by happens-before), what the
/// thread does next is a function of its history and those values.
struct PlainAccess {
  ObjectKey address = 0;  ///< reads: the first byte; writes: the granule's first byte
  std::uint64_t value = 0;
  std::uint8_t size = 0;  ///< reads: 1 to 8 bytes
  std::uint8_t mask = 0;  ///< writes: the granule's bytes written (bit b: address + b)
  friend bool operator==(const PlainAccess&, const PlainAccess&) = default;
};
struct Segment {
  /// The step after which it ran: its thread's last event, or a new thread's creation.
  std::uint32_t after_step = 0;
  ThreadId thread = kNoThread;
  /// It did what its record cannot say (too many accesses, a read of bytes it had partly
  /// written, a call weft keeps state for): what follows is not a function of the record.
  bool opaque = false;
  std::uint32_t reads_from = 0, read_count = 0;  ///< in Trace::segment_accesses
  std::uint32_t writes_from = 0, write_count = 0;
  friend bool operator==(const Segment&, const Segment&) = default;
};

struct Trace {
  /// Every thread bug of the execution, in order (the first is also in outcome/message). A
  /// thread with a bug stops there; the others run on to the end of the execution, so that it is
  /// maximal for them. Each bug's schedule is the prefix of `step` events.
  std::vector<Failure> failures;
  /// Executed events in order.
  std::vector<Event> events;
  /// enabled[i]: threads enabled in the state before events[i].
  std::vector<ThreadSet> enabled;
  /// Threads alive at the end and their next operation (blocked threads of a deadlock, threads
  /// cut off by a bug, the bound or the sleep set).
  std::vector<PendingThread> pending;
  Outcome outcome = Outcome::kComplete;
  /// For bugs: one line naming the problem and where it happened.
  std::string message;
  /// Thread that failed (bugs), or kNoThread.
  ThreadId failing_thread = kNoThread;
  /// Number of steps that followed the directive's prefix.
  std::size_t prefix_followed = 0;
  /// Step at which the directive's prefix named a thread that was not enabled (the rest of the
  /// prefix was dropped and the default policy took over), if that happened.
  std::optional<std::size_t> diverged_at;
  /// Operations that finished a thread: finished[i] is true when events[i] was its thread's last.
  std::vector<bool> finished_thread;
  /// sites[i]: the code address that performed events[i] (0 when unknown), for reports.
  std::vector<std::uint64_t> sites;
  /// (i, address) for events whose site is in a library weft did not compile: the return
  /// addresses into the program through which event i's thread reached it, innermost first
  /// (native programs).
  std::vector<std::pair<std::uint32_t, std::uint64_t>> library_callers;
  /// values[i]: what events[i] read and wrote, when recorded (native programs; else empty).
  std::vector<AccessValues> values;
  /// local_states[i]: a hash of the local state of events[i]'s thread as it was about to perform
  /// it: its registers that a call preserves, its stack below its start function and its
  /// thread-local storage (native programs whose strategy matches states; else empty, and 0
  /// where it could not be read). With the operation, what the thread does from there on.
  std::vector<std::uint64_t> local_states;
  /// With --points=sync and the thread model on: the segments the threads ran, in the order they
  /// ended (each after its step), and their accesses; `segments_recorded` says they were asked
  /// for (an empty list then means no thread accessed shared memory between events).
  std::vector<Segment> segments;
  std::vector<PlainAccess> segment_accesses;
  bool segments_recorded = false;
  /// The inputs the execution read, their expressions and the branches that depended on them.
  InputObservations symbolic;
  /// The execution read program inputs (__VERIFIER_nondet_*) that were given one fixed value
  /// instead of being explored: covering every interleaving does not cover every behaviour.
  bool read_fixed_inputs = false;
  /// Native programs: a thread's behaviour depended on state the runtime keeps outside the
  /// program's memory and events (which thread ran pthread_once's routine, a barrier's arrivals,
  /// a read-write lock's readers): the thread model (thread_model.hpp) cannot learn from it.
  bool runtime_state_read = false;
  /// Native programs: functions the execution called that changed process state which the
  /// worker process does not restore afterwards (docs/process-state.md, "Detected").
  std::vector<std::string> unrestored_state;
  /// What the execution did that weft sees only in part (each once).
  std::vector<Caveat> caveats;
  /// The run's time limit ended the execution before it did (native programs): it is not one
  /// of the run's executions, and the run ends.
  bool past_time_limit = false;
  /// A SchedulePolicy::kSleepSetWalk execution: log2 of the product of the numbers of threads it
  /// could choose from at its steps (Knuth's weight of the path; 0 otherwise).
  double walk_log2_weight = 0;
  /// Under a model whose accesses have options (TestDirective::choices): options[i] is how many
  /// step i had and choices[i] the one it took (1 and 0 for a step without; empty when no step
  /// had any).
  std::vector<std::uint32_t> options, choices;
  /// Records that `step` took option `choice` of `count`.
  void record_choice(std::size_t step, std::uint32_t choice, std::uint32_t count) {
    if (options.size() <= step) options.resize(step + 1, 1), choices.resize(step + 1, 0);
    options[step] = count;
    choices[step] = choice;
  }
  /// For reports: a step that did not take the newest store of its location in coherence order
  /// (a load that read an older one, a store placed before the newest).
  struct OlderStore {
    static constexpr std::uint32_t kFirstValue = ~std::uint32_t{0};  ///< not a step's store
    std::uint32_t step;
    std::uint32_t store_step;   ///< the store it read or was placed after
    std::uint32_t newest_step;  ///< the location's newest store then
    std::uint64_t value;        ///< what store_step wrote
  };
  std::vector<OlderStore> older_stores;
  /// Under RC11, exploring graphs (TestDirective::every_option): what each step's atomic access
  /// took, by step (kNone past the end and for steps that made none): the execution graph's
  /// reads-from and coherence order.
  struct GraphAccess {
    enum class Kind : std::uint8_t { kNone, kLoad, kStore, kUpdate };
    static constexpr std::uint32_t kFirstValue = OlderStore::kFirstValue;
    Kind kind = Kind::kNone;
    /// The step whose store it read (a load, an update) or follows right after in coherence
    /// order (a store, an update), or kFirstValue.
    std::uint32_t source = kFirstValue;
    ObjectKey location = 0;
  };
  std::vector<GraphAccess> graph;
  void record_graph_access(std::size_t step, GraphAccess access) {
    if (graph.size() <= step) graph.resize(step + 1);
    graph[step] = access;
  }
  /// Under RC11, exploring graphs (TestDirective::every_option): a store an update at `step`
  /// could have read but for another update that read it (atomicity), named by the step that
  /// made it (GraphAccess::kFirstValue: the first value). The exploration finds the revisits
  /// such an update's store would make without running it.
  struct TakenStore {
    std::uint32_t step, store;
  };
  std::vector<TakenStore> taken_stores;
  /// Under RC11: the steps, in order, that were atomic accesses weaker than seq_cst, or after
  /// which their thread ran a fence weaker than seq_cst (a fence is no step: it belongs to its
  /// thread's last one). While an execution has none, RC11 offers it the newest store only, as
  /// sequential consistency does, and the thread model may compute it (thread_model.hpp).
  std::vector<std::uint32_t> weak_steps;
  /// Records that `step` was weak (once).
  void record_weak_step(std::uint32_t step) {
    if (weak_steps.empty() || weak_steps.back() != step) weak_steps.push_back(step);
  }

  /// The operation thread t was about to perform in the state before step k (k == size() means
  /// the final state), or nullopt if t had finished or did not exist yet.
  std::optional<Operation> pending_at(std::size_t k, ThreadId t) const;

  /// The per-step vectors (events, enabled, finished_thread, sites, values, local_states) are
  /// written only through these, so that they stay of one length (values and local states: when
  /// they are recorded at all).
  /// Appends step `event`, run in a state where `enabled_before` were enabled, from code at
  /// `site`; `finishes`: it was its thread's last.
  void add_step(const Event& event, ThreadSet enabled_before, std::uint64_t site,
                bool finishes = false) {
    events.push_back(event);
    enabled.push_back(std::move(enabled_before));
    finished_thread.push_back(finishes);
    sites.push_back(site);
  }
  /// The same, with what the step read and wrote.
  void add_step(const Event& event, ThreadSet enabled_before, std::uint64_t site, bool finishes,
                const AccessValues& step_values) {
    add_step(event, std::move(enabled_before), site, finishes);
    values.push_back(step_values);
  }
  /// Makes room for `steps` steps in the per-step vectors that every execution fills, so that
  /// a fresh trace does not grow them a step at a time (the native worker builds one per
  /// execution).
  void reserve_steps(std::size_t steps) {
    events.reserve(steps);
    enabled.reserve(steps);
    finished_thread.reserve(steps);
    sites.reserve(steps);
  }
  /// Records the local state of the last step's thread as it began that step (local_states).
  void add_local_state(std::uint64_t hash) { local_states.push_back(hash); }
  /// Keeps the first `steps` steps, and the library callers among them.
  void keep_steps(std::size_t steps);
  /// Drops every step (the native runtime's log has them by then).
  void clear_steps();
};

/// x86-TSO: for the load at step `load` (an atomic load), the steps that made buffered stores
/// to bytes it reads which had not been flushed when it ran, oldest first: its own thread's it
/// reads, other threads' it does not see.
std::vector<std::size_t> stores_still_buffered(const Trace& trace, std::size_t load);

}  // namespace weft
