// The runtime inside a program built by weft-cc: the state of one controlled execution, shared
// by the interposed pthread functions, the memory hooks the pass inserts and the fork server.
#pragma once

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "code_modules.hpp"
#include "kernel_channels.hpp"
#include "race_detector.hpp"
#include "segment_recorder.hpp"
#include "signals.hpp"
#include "spin_tracker.hpp"
#include "thread_heap.hpp"
#include "weft/runtime/native_protocol.hpp"
#include "weft/runtime/scheduler.hpp"
#include "weft/trace/thread_id.hpp"

/// The futex word every wait for a signal waits on; a signal sent to a waiting thread (or one
/// blocked in the process) bumps it and wakes all waiters, which look at their own pending set.
/// Its name is what a deadlock report says such a thread waits on.
extern "C" std::uint32_t __weft_signal_word;

namespace weft::runtime::native {

/// The options the runtime works with: what weft sent (the protocol's ProgramOptions), with the
/// scheduling points parsed once (every memory access asks) and where the executions run.
struct NativeOptions : weft::native::ProgramOptions {
  explicit NativeOptions(weft::native::ProgramOptions sent)
      : weft::native::ProgramOptions(std::move(sent)),
        every_access(points == "all"),
        segments(!every_access && record_segments),
        record_values(every_access || segments) {}
  /// points "all": every shared access is a scheduling point (the thesis' model); else only
  /// synchronisation and atomics, and plain accesses are checked for data races (POET §4.4).
  bool every_access;
  /// Plain accesses are recorded by segment (Trace::segments).
  bool segments;
  /// Events carry the values they read and wrote (Trace::values), for weft's thread model.
  bool record_values;
  /// Running in a worker process, which runs execution after execution: thread stacks left by
  /// the last execution are taken over (see RunLimits::adopt_placed_stacks).
  bool in_worker = false;
};

/// What the C library keeps per thread and a program may set or ask for through a pthread_t
/// (pthread_identity.cpp). weft keeps it per weft thread: they all run on one OS thread.
struct ThreadIdentity {
  bool ready = false;  ///< set from the creator (or, for main, the process) on first use
  char name[16] = {};
  int policy = SCHED_OTHER;
  int priority = 0;
  cpu_set_t affinity{};
  int cancel_state = PTHREAD_CANCEL_ENABLE;
  int cancel_type = PTHREAD_CANCEL_DEFERRED;
};

/// A program thread as the pthread layer sees it.
struct NativeThread {
  ThreadIdentity identity;
  void* result = nullptr;
  bool detached = false;
  std::unordered_map<pthread_key_t, void*> specific;
  /// Destructors of its thread_local objects, in the order they were registered.
  std::vector<std::pair<void (*)(void*), void*>> thread_local_destructors;
  int atomic_depth = 0;  ///< inside __VERIFIER_atomic_* / atomic_begin blocks
  /// Inside calls from a library's internals into <atomic>'s functions (__weft_library_atomics).
  int library_atomics = 0;
  /// What the atomic section being run read and wrote (with every access visible).
  weft::Footprint section;
  int in_runtime = 0;  ///< inside weft's own code: its allocations are not the program's
  ThreadHeap heap;
  std::uint32_t heap_slot = 0;
  bool has_heap_slot = false;
  SpinTracker spin;
  /// Its signal mask (the OS thread's while it runs: signals.cpp).
  sigset_t signal_mask{};
  /// Signals sent to it (pthread_kill, raise while blocked) and not yet taken.
  sigset_t pending_signals{};
  /// How many signals' handlers (or default actions) ran in it.
  std::uint64_t signals_handled = 0;
  /// Taking signals, between steps (signals.cpp): takes no more until done.
  bool taking_signals = false;
  /// A signal was sent to the process that it does not block: it looks once whether it is
  /// still there to take, at the end of its next step.
  bool must_look_for_signals = false;
  /// Asleep in sleep, nanosleep, poll or select: a signal interrupts the call.
  bool sleeping = false;
  /// While it is in sigwait and friends: the signals it waits for.
  bool in_sigwait = false;
  sigset_t awaited_signals{};
  /// Where its start routine's frames begin while they run (call_start_routine, local_state.hpp);
  /// 0 before and after.
  std::uintptr_t stack_base = 0;
  /// While it creates a thread: the start routine's argument (local_state_hash holds it).
  std::uintptr_t creating_argument = 0;
  /// Local states are recorded: weft's code clears what it left below the program's frames as
  /// it returns to them (RuntimeScope).
  bool clears_dead_stack = false;
  /// What its code does between two of its events (NativeOptions::segments).
  SegmentRecorder segment;
};

/// Reader-writer locks and barriers are built from the scheduler's mutexes and condition
/// variables (keyed by the object's address), so their semantics come out of the modelled ones
/// (rw_lock_model.hpp).
struct RwLockState {
  std::uint32_t readers = 0;
  ThreadId writer = kNoThread;
  /// absl::Mutex only: threads waiting for a Condition (abseil_sync.cpp).
  std::uint32_t condition_waiters = 0;
};
struct BarrierState {
  std::uint32_t count = 0;
  std::uint32_t arrived = 0;
  std::uint64_t generation = 0;
};

/// Thrown through a thread's stack by pthread_exit (caught where the thread started).
struct ThreadExit {
  void* result;
};

/// One controlled execution in this process. Exactly one exists while it runs; active() finds it.
class NativeRuntime {
 public:
  /// The expression of each symbolic byte, by address.
  using ShadowMemory = std::unordered_map<std::uintptr_t, weft::symbolic::ExprId>;

  NativeRuntime(const NativeOptions& options, weft::native::LogWriter* log);
  ~NativeRuntime();
  NativeRuntime(const NativeRuntime&) = delete;
  NativeRuntime& operator=(const NativeRuntime&) = delete;

  /// The execution in progress, or nullptr (before main, in the fork server, in an uncontrolled
  /// run): then every interposed function behaves as the real one.
  static NativeRuntime* active() noexcept { return active_; }
  /// While one lives, active() is nullptr, so that what weft's own code calls (the unwinder's
  /// locks and once-calls, local_state.cpp) goes to the C library instead of the program's
  /// model of it.
  class StepAside {
   public:
    StepAside() : saved_(active_) { active_ = nullptr; }
    ~StepAside() { active_ = saved_; }
    StepAside(const StepAside&) = delete;
    StepAside& operator=(const StepAside&) = delete;

   private:
    NativeRuntime* saved_;
  };
  /// The execution in progress if the caller is the program's own code on one of its threads,
  /// else nullptr: for the hooks the pass inserts. weft's own code reaches instrumented code
  /// too, since the linker keeps one copy of each inline library function and may keep the
  /// program's (std::string's members in a C++20 program, say); such calls are not the
  /// program's accesses.
  static NativeRuntime* for_hook() noexcept {
    NativeRuntime* rt = active_;
    if (!rt || rt->scheduler_.self() == kNoThread || rt->self().in_runtime > 0) return nullptr;
    return rt;
  }

  /// Runs `main` under `directive`; returns the trace. Events go to the log as they happen.
  Trace run(const TestDirective& directive, int argc, char** argv, char** envp);
  /// Writes the events not yet in the log (when the child is about to die of a signal).
  void flush_log();
  /// With every access an event: the calling thread's event that just ran reads [addr,
  /// addr+size), and is about to. Notes the value it will see (the thread model of weft keys
  /// each thread's behaviour by what it read). Call once the access is known to be valid.
  void note_value_read(const void* addr, std::uint64_t size);
  /// The calling thread's event that just ran (a join) handed it `value` (the joined thread's
  /// result), which its next steps may depend on.
  void note_value_received(std::uint64_t value);
  /// With segments recorded: the calling thread's segment begins (after the last event, its
  /// creation's for a new thread), and ends (logged), when the thread ends.
  void begin_segment();
  void end_segment(ThreadId id);
  /// The calling thread's code, at `site`, is about to read or write [addr, addr+size) outside
  /// an event: its segment notes it (a read with the value it will see; should reading that
  /// fault, the crash is the program's access at `site`).
  void note_segment_access(const void* addr, std::uint64_t size, bool write, std::uint64_t site) {
    SegmentRecorder& segment = self().segment;
    if (write) return segment.write(addr, size);
    probe_site_ = site;
    segment.read(addr, size);
    probe_site_ = 0;
  }
  /// The calling thread's next steps depend on state the runtime keeps for the program outside
  /// its memory (Trace::runtime_state_read).
  void note_runtime_state() { runtime_state_read_ = true; }
  /// While the runtime reads a value the program accesses: the program's instruction, for a
  /// crash report if that faults (the program's own access would have faulted next).
  static std::uint64_t value_probe_site() noexcept { return probe_site_; }
  /// The program read an input (__VERIFIER_nondet_*): it gets the fixed value, and the log says
  /// so once, so that weft does not call the exploration complete.
  void note_input();
  /// The program changed process state that a worker does not put back after the execution
  /// (`what`: the function, a string literal); the log says so once per execution and function.
  void note_unrestored(const char* what);
  /// The execution did something weft sees only in part (Trace::caveats); the log says so once
  /// per execution and text, for at most a few texts of each kind.
  void note_caveat(weft::CaveatKind kind, const std::string& what);
  /// An atomic weaker than sequential consistency ran at `site` (CaveatKind::kWeakAtomics, or
  /// kLibraryAtomics for a library's internals); cheap once the execution has noted as many
  /// places as it names.
  void note_weak_atomic(std::uint64_t site, bool library = false);
  /// x86-TSO: an atomic load or store of the running thread that the hook before it let through
  /// to memory, which holds for the instruction what the thread sees (a load: its buffered
  /// stores over memory), and __weft_atomic_after puts back right after it (memory_hooks.cpp).
  struct TsoAccess {
    unsigned char* address = nullptr;  ///< null: none
    std::uint32_t size = 0;
    bool store = false;
    bool seq_cst = false;  ///< a seq_cst store: fenced after
    std::uint64_t site = 0;
    unsigned char memory[8] = {};  ///< what memory held before
  };
  TsoAccess& tso_access() { return tso_access_; }
  /// RC11: an atomic access of the running thread that the hook before it let through to
  /// memory, which holds for the instruction the value of the store it reads (the option taken);
  /// __weft_atomic_after records what it wrote and puts back the newest store's value.
  struct Rc11Access {
    unsigned char* address = nullptr;  ///< null: none
    std::uint32_t size = 0;
    std::uint32_t kind = 0;        ///< weft_atomic_kind
    std::memory_order order{};     ///< the store's, for a store
    bool updates = false;          ///< a read-modify-write, or a compare-exchange that succeeds
    unsigned char memory[8] = {};  ///< what memory held before: the newest store's value
    unsigned char read[8] = {};    ///< what the instruction read (the option's store's value)
  };
  Rc11Access& rc11_access() { return rc11_access_; }
  /// A compare-exchange's expected value and failure ordering (__weft_atomic_expect), for the
  /// __weft_atomic right after.
  struct Expected {
    std::uint64_t value = 0;
    std::uint32_t failure_ordering = 0;
  };
  Expected& expected() { return expected_; }
  /// RC11: the running step took an option (Trace::choices), or was weak (Trace::weak_steps);
  /// the log says so.
  void log_choice();
  /// A sanitizer the program was built with reported an error (`report`: one line, in weft's
  /// terms), which is about to end the process: the log gets the events so far, the running
  /// thread and the report (sanitizer_reports.cpp).
  void note_sanitizer_report(const std::string& report);
  /// Whether to stop in a debugger at a bug (weft replay --gdb).
  bool break_on_bug = false;

  Scheduler& scheduler() { return scheduler_; }
  /// The expression of each byte of memory that holds part of a value computed from inputs
  /// (symbolic_hooks.cpp); emptied at the start of every execution.
  ShadowMemory& shadow_memory() { return shadow_; }
  ThreadRegistry& registry() { return registry_; }
  const NativeOptions& options() const { return options_; }
  NativeThread& thread(ThreadId id) {
    const std::size_t c = id / kThreadChunk;
    if (c < thread_chunks_.size() && thread_chunks_[c]) [[likely]]
      return thread_chunks_[c][id % kThreadChunk];
    return new_thread_chunk(id);
  }
  NativeThread& self() { return thread(scheduler_.self()); }
  /// The pthread_t handed out for a thread, and back.
  static pthread_t handle_of(ThreadId id);
  static ThreadId thread_of(pthread_t handle);

  /// Records a bug of the calling thread and stops it (does not return).
  [[noreturn]] void fail(Outcome outcome, const std::string& message);
  /// The program used something weft does not model: stops the execution with kUnsupported.
  [[noreturn]] void unsupported(const char* what);

  std::unordered_map<ObjectKey, std::uint32_t>& recursion() { return recursion_; }
  std::unordered_map<ObjectKey, RwLockState>& rwlocks() { return rwlocks_; }
  std::unordered_map<ObjectKey, BarrierState>& barriers() { return barriers_; }
  std::unordered_map<ObjectKey, bool>& once_done() { return once_done_; }
  /// The semaphores this execution knows, each with whether an operation used it yet (false:
  /// only sem_init set it).
  std::unordered_map<ObjectKey, bool>& known_semaphores() { return known_semaphores_; }
  RaceDetector& races() { return races_; }
  /// Signals pending for the process, the OS thread's mask, who sent what (signals.cpp).
  SignalState& signals() { return signals_; }
  /// The execution's pipes, sockets and eventfds (kernel_channels.cpp).
  KernelChannels& channels() { return channels_; }
  /// The heap of the program thread running now, and its region slot; nullptr when the
  /// allocation is not the program's (the scheduler itself, or weft's code on a program thread).
  ThreadHeap* program_heap(std::uint32_t& slot);
  /// Which stack slots have a thread's stack and storage mapped in this process
  /// (RunLimits::mapped_stack_slots). A worker calls it before it snapshots its memory.
  static std::uint8_t* mapped_stack_slots();
  /// Clears the stacks the last execution used (RunLimits::kSlotStackCleared), so that the next
  /// takes them over at once. A worker calls it between executions, while weft is busy.
  static void clear_used_stacks();
  /// The region thread stacks are placed in: a worker process keeps them between executions.
  static std::uintptr_t stack_region_begin();
  static std::uintptr_t stack_region_end();
  /// The distance between two threads' stacks in that region (each thread has one slot).
  static std::uintptr_t stack_slot_bytes();
  /// Destructors of thread-specific data keys (process-wide: keys outlive executions).
  static std::unordered_map<pthread_key_t, void (*)(void*)>& key_destructors();
  /// The heap regions the program's threads allocated from in this execution.
  std::vector<std::uint32_t> heap_slots() const;
  std::uint32_t threads_created() const { return threads_created_; }
  void count_thread() { ++threads_created_; }
  /// The process is about to end as `outcome` says (kComplete for exit or a return from main,
  /// kDiscarded for abort or a failed assume): --leaks reports only at a normal end.
  void note_exit(Outcome outcome) { exit_outcome_ = outcome; }

 private:
  static inline NativeRuntime* active_ = nullptr;
  static inline std::uint64_t probe_site_ = 0;
  // The values of event `index`: what it read (noted then) and what it wrote (read back now,
  // its thread has run on), unless the process is dying (`dying`).
  /// `pool`: where to build the expression of a value written from inputs (none: not built).
  weft::AccessValues values_of(const Trace& trace, std::size_t index, bool dying,
                               weft::symbolic::ExpressionPool* pool = nullptr);
  NativeOptions options_;
  weft::native::LogWriter* log_;
  ThreadRegistry registry_;
  Scheduler scheduler_;
  // Small chunks: the runtime is made afresh per execution and each entry is 1.4 KiB to
  // construct, so a program of 6 threads built 16 of them with chunks of 16.
  static constexpr std::size_t kThreadChunk = 4;
  std::vector<NativeThread*> thread_chunks_;  // entries by id, kThreadChunk to a chunk
  NativeThread& new_thread_chunk(ThreadId id);
  std::unordered_map<ObjectKey, std::uint32_t> recursion_;
  std::unordered_map<ObjectKey, RwLockState> rwlocks_;
  std::unordered_map<ObjectKey, BarrierState> barriers_;
  std::unordered_map<ObjectKey, bool> once_done_;
  std::unordered_map<ObjectKey, bool> known_semaphores_;
  RaceDetector races_;
  KernelChannels channels_;
  SignalState signals_;
  std::uint32_t threads_created_ = 1;
  Outcome exit_outcome_ = Outcome::kComplete;
  const Trace* current_trace_ = nullptr;  // the scheduler's trace while run() runs
  std::size_t logged_ = 0;                // events of it already in the log
  std::size_t logged_weak_steps_ = 0;     // Trace::weak_steps already in the log
  std::size_t logged_taken_stores_ = 0;   // Trace::taken_stores already in the log
  std::vector<weft::AccessValues> values_;
  std::vector<weft::AccessValues> logged_values_;    // scratch of run()'s logging
  std::vector<weft::PlainAccess> segment_accesses_;  // scratch of end_segment
  weft::native::LogWriter::SymbolicLogged symbolic_logged_;
  ShadowMemory shadow_;
  bool runtime_state_read_ = false;         // by event, while run() runs (--points=all)
  std::uint64_t heap_slots_used_[64] = {};  // bitset over the 4096 heap regions
  bool noted_input_ = false;
  std::vector<const char*> noted_unrestored_;
  std::vector<weft::Caveat> noted_caveats_;
  std::array<std::uint64_t, 4> weak_atomic_sites_{};
  std::size_t weak_atomic_sites_noted_ = 0;
  TsoAccess tso_access_;
  Rc11Access rc11_access_;
  Expected expected_;
};

/// The process's name and CPU set, which main's identity starts from in every execution. Read
/// once: a worker does so before its snapshot, so that executions do not repeat the two system
/// calls (the process's own are restored after each, or noted as changed: process_state.cpp).
const ThreadIdentity& process_identity();

/// The identity of a thread `creator` creates with `attr`: the creator's name, scheduling and
/// affinity (as clone(2) copies them), the attribute's scheduling if it asks for explicit
/// scheduling (pthread_identity.cpp).
ThreadIdentity identity_for_child(NativeRuntime& rt, ThreadId creator, const pthread_attr_t* attr);

/// Creates a program thread that runs start(arg), as pthread_create does, the creation recorded
/// at `site`; a thread beyond --max-threads stops the caller (pthread_threads.cpp). `lazily`:
/// the caller returns to code weft compiled (returns_to_weft_code) and `start` is the program's,
/// so both threads may go on without their thread pointers until they ask for them.
ThreadId create_thread(NativeRuntime& rt, const pthread_attr_t* attr, void* (*start)(void*),
                       void* arg, std::uint64_t site, bool lazily = false);

/// Marks weft's own code running on a program thread, so that what it allocates does not shift
/// the program's deterministic heap addresses.
extern "C" void weft_clear_dead_stack(std::uintptr_t floor);  // program_entry_x86_64.S

/// Zeroes the running thread's stack below the caller's frame (16 KiB of it, within the stack):
/// what weft's code left there. A frame the program builds there later then holds no value of
/// weft's in the slots the program has not written yet (or never does: padding), which would
/// make two visits of one state look different when states hold stacks (local_state.hpp).
[[gnu::always_inline]] inline void clear_dead_stack() {
  // A program thread's stack is a fiber's, at the start of its slot above a guard page; main's
  // is the process's, which grows on demand.
  const auto frame = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  std::uintptr_t floor = 0;
  if (const std::uintptr_t begin = NativeRuntime::stack_region_begin();
      frame >= begin && frame < NativeRuntime::stack_region_end()) {
    const std::uintptr_t slot = NativeRuntime::stack_slot_bytes();
    floor = begin + (frame - begin) / slot * slot + 2 * 4096;
  }
  weft_clear_dead_stack(floor);
}

class RuntimeScope {
 public:
  explicit RuntimeScope(NativeRuntime& rt) : thread_(rt.self()) { enter(thread_); }
  ~RuntimeScope() {
    leave(thread_);
    // Back to the program, whose states hold its stack: clear what weft's code left below.
    if (thread_.clears_dead_stack && thread_.in_runtime == 0) [[unlikely]]
      clear_dead_stack();
  }
  /// What the scope does, for scopes that exist only under weft's control (openmp::EntryScope).
  static void enter(NativeThread& thread) {
    // Entered from the program: the write a hook let through last has happened, and no other
    // thread has run since (SpinTracker::note_atomic_write).
    if (thread.in_runtime++ == 0) thread.spin.check_writes();
  }
  static void leave(NativeThread& thread) { --thread.in_runtime; }
  RuntimeScope(const RuntimeScope&) = delete;
  RuntimeScope& operator=(const RuntimeScope&) = delete;

 private:
  NativeThread& thread_;
};

/// The code address a hook or interposed function was called from.
#define WEFT_CALLER_SITE() reinterpret_cast<std::uint64_t>(__builtin_return_address(0))

/// Object keys of native objects are their addresses.
inline ObjectKey key_of(const volatile void* p) {
  return reinterpret_cast<ObjectKey>(p);
}

/// Performs the synchronisation operation `kind` on the object at `object` (`partner`: a
/// condition wait's mutex; `timed`: a wait that may time out) for the calling thread, and
/// returns its result (a trylock acquired, a timed wait signalled): the models of pthread's,
/// GLib's and the C++ runtime's synchronisation share it.
inline std::uint8_t perform_sync(NativeRuntime& rt, OpKind kind, const volatile void* object,
                                 std::uint64_t site, const volatile void* partner = nullptr,
                                 bool timed = false) {
  return rt.scheduler().perform(Operation{kind, 0, 0, key_of(object), key_of(partner), timed},
                                site);
}

/// Whether the interposed function the calling thread is in goes back, at `site`, straight to
/// code weft compiled: entered from the program, not from weft's own code (which may go on to
/// code weft did not compile), and called from the executable. That code asks for its thread
/// pointer where it needs it (RunLimits::lazy_thread_pointer).
inline bool returns_to_weft_code(NativeRuntime& rt, std::uint64_t site) {
  return rt.self().in_runtime == 1 && in_executable_code(reinterpret_cast<const void*>(site));
}

/// perform_sync for an interposed function that returns to its caller right after the
/// operation, running no code but weft's and leaving errno alone: the thread may resume with
/// the thread pointer as it is (returns_to_weft_code).
inline std::uint8_t perform_sync_and_return(NativeRuntime& rt, OpKind kind,
                                            const volatile void* object, std::uint64_t site,
                                            const volatile void* partner = nullptr,
                                            bool timed = false) {
  return rt.scheduler().perform(Operation{kind, 0, 0, key_of(object), key_of(partner), timed}, site,
                                returns_to_weft_code(rt, site));
}

using weft::native::kAtomicSectionKey;

}  // namespace weft::runtime::native
