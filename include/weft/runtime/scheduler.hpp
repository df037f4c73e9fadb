// The controlled scheduler: runs a program's threads one at a time and records the trace.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "weft/trace/directive.hpp"
#include "weft/trace/memory_model.hpp"
#include "weft/trace/thread_id.hpp"
#include "weft/trace/trace.hpp"
#include "weft/trace/vector_clock.hpp"

namespace weft::runtime {

class ThreadStorage;

/// What perform() returns for a futex wait (OpKind::kFutexWait): the word differed from the
/// expected value, a wake woke the thread, or its time ran out.
inline constexpr std::uint8_t kFutexValueDiffered = 0;
inline constexpr std::uint8_t kFutexWoken = 1;
inline constexpr std::uint8_t kFutexTimedOut = 2;

struct RunLimits {
  /// Per-thread bound on visible operations (thesis §3.4's k), and on inputs read. A thread that
  /// reaches it stops there while the others run on; the execution's outcome is then
  /// Outcome::kBoundReached (unless a bug came first).
  std::uint32_t max_steps_per_thread = kDefaultMaxStepsPerThread;
  /// Unwind the threads still suspended at the end (so that destructors run). A forked child
  /// that exits right after the execution skips it.
  bool unwind_at_end = true;
  /// Stack size of each program thread's fiber.
  std::size_t stack_bytes = 256 * 1024;
  /// If not 0: place each thread's stack at an address derived from its name (its creation
  /// path), in a region starting here, so that stack addresses repeat across executions. The
  /// region holds `kStackSlots` stacks, each `stack_bytes` plus 1 MiB apart.
  std::uintptr_t stack_region = 0;
  static constexpr std::uintptr_t kStackSlots = 4096;
  /// Take over a stack an earlier execution of this process left at a thread's place (a worker
  /// process that runs many executions), clearing it, instead of mapping a new one.
  bool adopt_placed_stacks = false;
  /// With adopt_placed_stacks: one byte per stack slot in memory that outlives executions (a
  /// worker does not write it back with the rest of its memory), where the scheduler notes the
  /// slots whose stack and storage are mapped, so that later executions take them over without
  /// asking the kernel (a failed mmap per thread and execution). nullptr: ask.
  std::uint8_t* mapped_stack_slots = nullptr;
  /// The bits of a `mapped_stack_slots` byte: the stack is mapped, the storage beside it is, and
  /// the stack was cleared since its last use (Fiber::clear_stack: it is taken over as it is).
  static constexpr std::uint8_t kSlotStackMapped = 1, kSlotStorageMapped = 2, kSlotStackCleared = 4;
  /// Gives every thread but the first its own thread-local storage, switched with its fiber
  /// (nullptr: all threads share the OS thread's, with errno and the C++ exception state
  /// swapped on each switch). Not owned.
  class ThreadStorage* thread_storage = nullptr;
  /// If set: called on the running thread as it is about to wait for `op` (called from `site`);
  /// what it returns, a hash of the thread's local state there, goes into the trace with the
  /// step (Trace::local_states) or the pending thread. For the strategies that match states.
  std::uint64_t (*local_state)(const Operation& op, std::uint64_t site) = nullptr;
  /// With thread_storage: a thread resumed where it goes on in code weft compiled (perform's
  /// `returns_to_weft_code`, spawn's `lazily`) keeps the thread pointer as it
  /// is, and instrumented code asks for its own where it needs it
  /// (sync_thread_pointer; the pass places the requests: thread_pointer_instrumenter.cpp). Saves
  /// most thread-pointer writes, which are system calls without FSGSBASE. Every thread then has
  /// storage of its own, the first the OS thread's.
  bool lazy_thread_pointer = false;
  /// The memory model the execution follows. Under x86-TSO a store made by store_buffered()
  /// waits in its thread's buffer, and the buffer is a thread of its own whose flushes the
  /// directive schedules (ThreadRegistry::store_buffer).
  MemoryModel memory_model = MemoryModel::kSequentialConsistency;
  /// Bytes of the stack region for stacks of `stack_bytes`.
  static constexpr std::uintptr_t stack_region_bytes(std::size_t stack_bytes) {
    return kStackSlots * (stack_bytes + (std::uintptr_t{1} << 20));
  }
};

/// The message channels a front end keeps (the kernel's pipes, sockets and eventfds for native
/// programs; weft::channel in process): channel operations (Domain::kChannel) are visible, and
/// the scheduler asks the keeper whether one may run now and what a blocked one waits for.
/// Only one thread runs at a time and it performs its channel operation's effect right after
/// perform() returns, before any other thread runs, so the keeper's state is the execution's.
class ChannelKeeper {
 public:
  /// Whether `thread`'s pending `op` (a send, receive or selective wait) would find its channel
  /// ready: room to send, something to receive or the channel's end, one of a wait's channels.
  virtual bool ready(ThreadId thread, const Operation& op) = 0;
  /// `thread`'s `op` runs now: the keeper applies what it keeps of its effect and returns the
  /// operation's result (a receive: whether it took something; a selective wait: which
  /// alternative, from 1, or 0 if it timed out; an operation that may run unready: whether its
  /// channel was ready).
  virtual std::uint8_t apply(ThreadId thread, const Operation& op) = 0;
  /// What `thread`, blocked in `op` at `at` (" at file:line", or empty), waits for, in the
  /// program's terms: "waits in read on pipe descriptor 5 (nothing to read) at f.c:8; no thread
  /// will write to it".
  virtual std::string waits_for(ThreadId thread, const Operation& op, const std::string& at) = 0;

 protected:
  ~ChannelKeeper() = default;
};

/// Thrown through a program thread's stack to unwind it when its execution is cut short (a bug
/// elsewhere, a bound, a sleep-set block). Code under test must let it pass: a `catch (...)` must
/// rethrow.
struct ExecutionAborted {};

/// The scheduler core. It knows nothing of the in-process C++ API or of pthreads: callers describe
/// every visible operation as an Operation and call perform(); the scheduler decides when it
/// happens, applies its effect on the synchronisation objects it models (mutexes, condition
/// variables, semaphores, threads) and records it. Exactly one program thread runs at a time, each
/// on its own fiber; the baton passes only inside perform().
///
/// At every step it follows the directive's prefix, then its policy; it tracks the directive's
/// sleep set, detects deadlocks, enforces the per-thread step bound, and records the enabled set
/// before every event.
class Scheduler {
 public:
  explicit Scheduler(ThreadRegistry& threads);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  /// Runs one execution of `root` (the main thread's body) under `directive`.
  Trace run(const TestDirective& directive, const std::function<void()>& root,
            const RunLimits& limits);

  /// The scheduler running an execution on this OS thread, or nullptr outside run().
  static Scheduler* current() noexcept;
  /// Makes the thread pointer name the running thread's storage, if the scheduler running with
  /// per-thread storage left another's there (RunLimits::lazy_thread_pointer); else nothing.
  /// `foreign_code_follows`: code weft did not compile runs next (false: the runtime's own).
  static void sync_thread_pointer(bool foreign_code_follows = true) noexcept;
  /// Whether sync_thread_pointer(true) was called since forget_thread_pointer_requests(), with
  /// or without per-thread storage. Instrumented code asks before every call to code weft did
  /// not compile (and before inline assembly), and the runtime before it runs such code on a
  /// thread's behalf; so while none asked, only code weft compiled and the runtime's models ran
  /// (the native worker then knows that an execution opened no file descriptor).
  static bool thread_pointer_asked() noexcept;
  static void forget_thread_pointer_requests() noexcept;

  // ---- calls made by program threads during run() ----------------------------------------

  /// A key for a new synchronisation object or shared location, stable across executions: it is
  /// derived from the creating thread and how many objects that thread created before.
  ObjectKey new_object();
  /// An input the calling thread reads (its next one, InputKey): its value, which the directive
  /// gives (0 when it gives none), and its expression, input number i of Trace::symbolic.
  struct Input {
    std::uint64_t value = 0;
    symbolic::ExprId expression = symbolic::kConcrete;
  };
  Input read_input(unsigned width, bool is_signed, std::string name);
  /// The execution's expressions, which values computed from inputs are built in.
  symbolic::ExpressionPool& expressions();
  /// What the running execution has observed of inputs so far (inputs, expressions, branches).
  const InputObservations& inputs_observed() const;
  /// The calling thread branched on `condition` (an expression of expressions()), taking the
  /// `taken` side; ignored when the condition is concrete. See SymbolicBranch.
  void record_branch(symbolic::ExprId condition, bool taken, BranchKind kind,
                     std::uint64_t site = 0);
  /// A value computed from inputs was made concrete with no constraint recorded (see
  /// InputObservations::unconstrained_concretisations).
  void note_unconstrained_concretisation();
  /// Declares `key` a semaphore with the given initial count.
  void init_semaphore(ObjectKey key, std::uint64_t count);
  /// Performs a visible operation of the calling thread: returns once the scheduler has chosen
  /// to run it and applied its effect. Returns the operation's result bits (trylock: acquired).
  /// `site` is the code address that performs it (for reports; 0 if unknown).
  /// `returns_to_weft_code`: what the thread runs next, until it asks for its storage
  /// (sync_thread_pointer), reads no thread-local storage of its own: it returns to code weft
  /// compiled without setting errno or calling other code (RunLimits::lazy_thread_pointer).
  std::uint8_t perform(const Operation& op, std::uint64_t site = 0,
                       bool returns_to_weft_code = false);
  /// The memory model of the running execution (RunLimits::memory_model).
  MemoryModel memory_model() const;
  /// Under x86-TSO: the calling thread stores the `size` (at most 8) bytes at `bytes` to
  /// `location`, whose memory is `where`: a visible kBufferedStore puts the store into the
  /// thread's buffer, and a later flush, scheduled like any thread's step, writes it to `where`.
  /// Under sequential consistency: a kAtomicStore, then the bytes are written. `bytes` may be
  /// null under x86-TSO: the store's bytes are then given by complete_store() before the thread
  /// performs anything else (a native store instruction runs in between).
  /// `returns_to_weft_code` as for perform().
  void store(ObjectKey location, void* where, const void* bytes, std::uint32_t size,
             std::uint64_t site = 0, bool returns_to_weft_code = false);
  /// The bytes of the calling thread's last buffered store, made by store() without them.
  void complete_store(const void* bytes);
  /// Overlays on `bytes`, what memory holds at `location` (`size` bytes), the calling thread's
  /// buffered stores to it: what its load reads under x86-TSO. Nothing under sequential
  /// consistency.
  void forward_buffered(ObjectKey location, std::uint32_t size, void* bytes) const;
  /// Under x86-TSO, if the calling thread stored since its last fence: waits until its buffer is
  /// empty (a visible kStoreFence). perform() fences by itself before every operation that is
  /// not a plain or atomic load or store (x86 drains the buffer for locked instructions and
  /// system calls); a thread also fences before it ends.
  void fence(std::uint64_t site = 0);
  /// The object of [location, location+size) is gone: buffered stores to it, of any thread,
  /// leave their buffers writing nothing. The calling thread fences first.
  void forget_location(ObjectKey location, std::uint32_t size);
  /// Whether the running execution follows RC11 (MemoryModel::kRc11). Then the calling thread's
  /// atomic accesses of at most 8 bytes, each right after the visible operation perform() made
  /// of it, go through these, which take the option the directive chose for the step
  /// (TestDirective::choices) among those the RC11 machine allows. `memory` holds the newest
  /// store of the location in coherence order (a store placed before it leaves it alone).
  bool rc11() const;
  /// A load: `bytes`, holding memory's value, become those of the store it reads.
  void rc11_load(ObjectKey location, std::memory_order order, void* bytes, std::uint32_t size);
  /// A store of `bytes`; true if it became the newest (false: placed before it).
  bool rc11_store(ObjectKey location, std::memory_order order, void* memory, const void* bytes,
                  std::uint32_t size);
  /// A read-modify-write in two halves: the read (as rc11_load), then what it writes (true if
  /// that became the newest store).
  void rc11_update_read(ObjectKey location, std::memory_order order, void* bytes,
                        std::uint32_t size);
  bool rc11_update_write(void* memory, const void* bytes, std::uint32_t size);
  /// A compare-exchange in two halves, as an update: the read (`bytes`, holding memory's value,
  /// become those of the store it reads), true if that was `expected`, and then, only if so,
  /// rc11_update_write.
  bool rc11_compare_exchange_read(ObjectKey location, std::memory_order success,
                                  std::memory_order failure, const void* expected, void* bytes,
                                  std::uint32_t size);
  /// Memory holds `bytes` at `location` though its newest store wrote something else: a write
  /// the machine did not see (a plain one, or a new object where an old one was) made it a new
  /// location, whose history starts from them.
  void rc11_notice_memory(ObjectKey location, const void* bytes, std::uint32_t size);
  /// A compare-exchange: `seen` gets what it read; true if that was `expected` and it stored
  /// `desired`.
  bool rc11_compare_exchange(ObjectKey location, std::memory_order success,
                             std::memory_order failure, void* memory, void* seen,
                             const void* expected, const void* desired, std::uint32_t size);
  /// A fence of the calling thread.
  void rc11_fence(std::memory_order order);
  /// Under RC11 (a no-op otherwise): an atomic access of at most 8 bytes that weft models for
  /// code it did not compile (a static's guard, a library's once flag or lock word), right after
  /// the visible operation perform() made of it, taken as seq_cst on the newest store, as the
  /// machine's own accesses are while the graph is seq_cst: it reads memory as it is (`before`),
  /// acquiring what that store released, and a store or update of `written` releases.
  void rc11_outside_access(ObjectKey location, std::uint32_t size, const void* before,
                           const void* written, bool reads);
  /// Before an atomic access of [location, location+size) under RC11: true if it meets, in this
  /// execution, an atomic access of another size on the same bytes (mixed sizes, which RC11 does
  /// not model; libstdc++'s shared_ptr loads its two 4-byte counts as one 8-byte word). The
  /// access then acts as under sequential consistency on memory as it is, as do all later
  /// atomic accesses to those 8-byte granules: it acquires what the newest stores of the
  /// locations it meets released, and each such access acquires and releases the granule.
  bool rc11_mixed_size(ObjectKey location, std::uint32_t size);
  /// What happens before thread t's next event under RC11 (with rc11() only): its clock in the
  /// RC11 machine, which counts each of t's synchronisation operations as an event too.
  const VectorClock& rc11_clock(ThreadId t);

  /// Creates a thread running `body` (a visible kThreadCreate operation) and returns its id.
  /// `routine` names the code it starts at, the same in every execution (0: not known): the
  /// operation's partner, by which thread symmetry tells threads of one kind.
  /// `lazily`: both the creator, returning to code weft compiled (perform's
  /// `returns_to_weft_code`), and `body`, which asks for its storage before it needs it
  /// (sync_thread_pointer), may go on with the thread pointer as it is.
  ThreadId spawn(std::function<void()> body, std::uint64_t site = 0, std::uint64_t routine = 0,
                 bool lazily = false);
  /// Ends the process (a visible kProcessExit, dependent with everything): the execution stops
  /// here with `outcome` (kComplete for exit, kDiscarded for abort) and every other thread is cut
  /// off. The exit runs only once no other thread can run (whatever goes wrong before an exit
  /// also goes wrong when it comes later, so ending earlier shows nothing new). Does not return.
  [[noreturn]] void end_process(int status, Outcome outcome, std::uint64_t site = 0);
  /// The calling thread's last event was a kAtomicSection, and the section has ended having read
  /// and written `footprint`: the event records it, so that it depends only on what touches the
  /// same memory. Ignored (the section keeps depending on everything) when the thread performed
  /// other events inside the section.
  void record_footprint(const Footprint& footprint);
  /// The thread holding mutex `key`, or kNoThread.
  ThreadId mutex_owner(ObjectKey key) const;
  /// The current count of semaphore `key`.
  std::uint64_t semaphore_count(ObjectKey key) const;
  /// Called after every event is recorded, with the trace so far (set before run()).
  void set_event_observer(std::function<void(const Trace&)> observer);
  /// Who keeps the channels that channel operations act on (not owned; nullptr: the scheduler's
  /// own, for the in-process API's weft::channel).
  void set_channels(ChannelKeeper* keeper) noexcept;
  /// The scheduler's own channels (used unless set_channels gave others), emptied at the start
  /// of every execution.
  class CountedChannels& counted_channels() noexcept;
  /// Called on the calling thread each time perform() is about to return to it, with the
  /// operation's site: where the native runtime gives the thread its signal mask and delivers
  /// the signals pending for it (signals.cpp). It may perform operations itself.
  void set_step_hook(void (*hook)(std::uint64_t site)) noexcept;
  /// Called on the calling thread when its access ends the execution (a store the directive
  /// named that the access may not take, TestDirective::sources): where the native runtime
  /// logs what the execution did so far, before the thread unwinds.
  void set_abandon_hook(void (*hook)()) noexcept;
  /// Records a bug of the calling thread and unwinds it (throws ExecutionAborted).
  [[noreturn]] void fail(Outcome outcome, std::string message);
  /// Records a bug without throwing (for destructors); the thread unwinds at its next operation.
  void note_failure(Outcome outcome, std::string message) noexcept;
  /// The calling thread has gone once around a busy-wait loop without leaving it: the loop has
  /// no effect but its reads (visible events), so going around again changes nothing until
  /// another thread writes what it read. The thread stops here for good and the others run on;
  /// the races of its reads with their later writes make the strategies run the write first, in
  /// another execution, where the loop is left (the spin-assume idea: the executions that spin
  /// are redundant). At the end, `released()` says whether what it read has changed since: if
  /// so for some stopped thread, the execution is kSpinBlocked (redundant); if not for any, no
  /// thread will ever change it and the execution is a kLivelock bug. Does not return.
  [[noreturn]] void stop_spinning(std::function<bool()> released);
  /// The calling thread (inline: the runtime's hooks ask on every access).
  ThreadId self() const noexcept { return *running_id_; }
  /// Whether `id` is a thread of this execution; if so, its stack (lowest address, bytes) and
  /// whether it has finished.
  bool thread_info(ThreadId id, void** stack_low, std::size_t* stack_bytes, bool* finished) const;
  /// Whether thread `id` waits in an operation that cannot run now (a lock held, a semaphore at
  /// zero, a wait not woken); false for the running thread and for unknown or finished ones.
  bool blocked(ThreadId id) const;
  /// The frame pointer thread `id` had when it last gave up the baton (0 for the running thread
  /// or an unknown one): where reports start walking its frames.
  std::uintptr_t saved_frame_pointer(ThreadId id) const;
  /// The same for an event observer (set_event_observer), which runs while the event's thread is
  /// stopped in the operation, though it was the last to run.
  std::uintptr_t stopped_frame_pointer(ThreadId id) const;
  /// True while the execution is being cut short and its threads unwound.
  bool aborting() const;
  const ThreadRegistry& threads() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  const ThreadId* running_id_;  // in *impl_
};

}  // namespace weft::runtime
