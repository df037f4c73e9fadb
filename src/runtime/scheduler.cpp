#include "weft/runtime/scheduler.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "counted_channels.hpp"
#include "fiber.hpp"
#include "store_buffer.hpp"
#include "sync_state.hpp"
#include "weft/runtime/thread_storage.hpp"
#include "weft/trace/directive_follower.hpp"
#include "weft/trace/rc11_machine.hpp"
#include "weft/trace/sync_rules.hpp"
#include "weft/trace/wire.hpp"

namespace weft::runtime {
namespace {

thread_local Scheduler* g_current = nullptr;
// The scheduler running with per-thread storage (RunLimits::thread_storage): code on a fiber
// with storage of its own sees its own, unset, copy of g_current, so current() falls back to
// this one. Only the native runtime uses thread storage, with one scheduler per process.
Scheduler* g_storage_switching = nullptr;
// Set by sync_thread_pointer(true) (thread_pointer_asked): that request comes before code weft
// did not compile runs; the runtime's requests for its own code pass false.
bool g_thread_pointer_asked = false;

// The C++ runtime keeps the caught-exception stack and the uncaught count per OS thread; every
// fiber needs its own, so they are swapped on each switch.
struct EhGlobals {
  void* caught = nullptr;
  unsigned int uncaught = 0;
};
EhGlobals* eh_globals() {
  return reinterpret_cast<EhGlobals*>(abi::__cxa_get_globals());
}

std::string demangle(const char* name) {
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string s = status == 0 && out ? out : name;
  std::free(out);
  return s;
}

}  // namespace

struct ThreadRec {
  ThreadId id = kNoThread;
  std::function<void()> body;
  Fiber* fiber = nullptr;
  void* storage = nullptr;  // its own thread pointer (RunLimits::thread_storage), or nullptr
  EhGlobals eh;
  int saved_errno = 0;  // errno lives in the OS thread; every fiber needs its own
  // Suspended where the code it goes on with asks for its storage where it needs it (an access
  // hook, an interposed call returning to code weft compiled, the start of a thread whose first
  // code does): resumed, it may keep the thread pointer as it is (RunLimits::lazy_thread_pointer).
  bool resumes_lazily = false;
  bool finished = false;
  Operation pending;
  std::uint64_t pending_site = 0;
  std::uint64_t pending_local = 0;  // RunLimits::local_state's hash, when asked
  Outcome exit_outcome = Outcome::kComplete;
  std::uint8_t result = 0;
  std::uint32_t children = 0;
  std::uint32_t steps = 0;
  std::uint32_t objects = 0;
  std::uint32_t inputs_read = 0;  // its next input's ordinal (InputKey)
  std::uint32_t releases_while_aborting = 0;
  std::function<bool()> spin_released;  // set when stopped at a busy-wait loop
  std::uint64_t wait_epoch = 0;
  std::function<void()> spawn_body;  // handed over by spawn() to the create step
  bool spawn_lazily = false;         // and whether it starts lazily (spawn's `lazily`)
  Scheduler::Impl* impl = nullptr;
  // x86-TSO. A program thread: its store buffer, its stores so far (each store's slot), whether
  // it stored since its last fence, the store its pending kBufferedStore makes, and the thread
  // that flushes its buffer. That thread has no fiber: its steps are the flushes, and `owner`
  // names the program thread.
  StoreBuffer buffer;
  std::uint32_t stores_buffered = 0;
  bool unfenced = false;
  BufferedStore staged;
  ThreadId flusher = kNoThread;
  ThreadId owner = kNoThread;
};

// x86 drains the store buffer for every locked instruction and system call, so before any
// operation but loads, stores and fences themselves (docs/memory-models.md). A yield is a
// `pause`, which does not.
bool needs_empty_buffer(OpKind kind) {
  switch (kind) {
    case OpKind::kRead:
    case OpKind::kWrite:
    case OpKind::kAtomicLoad:
    case OpKind::kBufferedStore:
    case OpKind::kBufferFlush:
    case OpKind::kStoreFence:
    case OpKind::kYield:
      return false;
    default:
      return true;
  }
}

struct Scheduler::Impl {
  explicit Impl(ThreadRegistry& r) : registry(r) {}

  ThreadRegistry& registry;
  Fiber main_fiber;
  EhGlobals main_eh;
  std::vector<std::unique_ptr<Fiber>> fiber_pool;
  std::vector<std::unique_ptr<ThreadRec>> rec_pool;
  std::vector<ThreadRec*> by_id;  // this execution's threads, indexed by id
  ThreadSet waiting;              // started, not finished: has a pending operation
  ThreadSet dead;                 // stopped for good by a bug of their own
  ThreadSet spinning;             // stopped for good at a busy-wait loop (stop_spinning)
  ThreadRec* running = nullptr;
  ThreadId running_id = kNoThread;  // running's id: Scheduler::self() reads it inline
  void set_running(ThreadRec* t) {
    running = t;
    running_id = t ? t->id : kNoThread;
  }
  std::unordered_map<ObjectKey, MutexState> mutexes;
  std::unordered_map<ObjectKey, CondState> conds;
  std::unordered_map<ObjectKey, SemaphoreState> sems;
  std::unordered_map<ObjectKey, CondState> futexes;  // a futex word's waiters and wakes
  bool aborting = false;
  bool failed = false;
  bool exited = false;  // the process ended (kProcessExit)
  // A store the directive named for an access was not among its options (TestDirective::
  // sources): the execution ends, as sleep-set blocked.
  bool abandoned = false;
  Trace trace;
  std::span<const InputValue> directive_inputs;
  std::uint64_t random_input_seed = 0;
  bool track_inputs = true;  // inputs the directive does not give: 0, or random
  std::function<void(const Trace&)> on_event;
  void (*step_hook)(std::uint64_t site) = nullptr;
  void (*abandon_hook)() = nullptr;
  CountedChannels counted;             // weft::channel's
  ChannelKeeper* channels = &counted;  // the front end's (native: the kernel's)

  // ---- fibers --------------------------------------------------------------------------
  void switch_to_thread(ThreadRec& t) {
    set_running(&t);
    if (t.storage && lazy_thread_pointer) {
      // Back to code that asks for its storage where it needs it. Not to unwind: the C++
      // runtime keeps the exception state there.
      if (!(t.resumes_lazily && !aborting)) set_current_thread_pointer(t.storage);
      // Its errno, by address: whichever storage the thread pointer names meanwhile, the
      // scheduler's code and other threads' hooks may change its errno.
      int* const own_errno = storage_owner->errno_location(t.storage);
      *own_errno = t.saved_errno;
      Fiber::switch_to(main_fiber, *t.fiber);
      t.saved_errno = *own_errno;
      set_running(nullptr);
      return;
    }
    if (t.storage) {
      // Its own storage holds its exception state. The scheduler goes on with the storage of
      // the thread that ran last (use_os_thread_pointer() gives it back its own), which saves
      // two thread-pointer writes per switch, the most expensive part of one (wrfsbase). So the
      // scheduler's code may change errno there: the thread's own is kept across the switch.
      set_current_thread_pointer(t.storage);
      errno = t.saved_errno;
      Fiber::switch_to(main_fiber, *t.fiber);
      t.saved_errno = errno;
      set_running(nullptr);
      return;
    }
    use_os_thread_pointer();
    EhGlobals* g = eh_globals();
    main_eh = *g;
    *g = t.eh;
    const int scheduler_errno = errno;
    errno = t.saved_errno;
    Fiber::switch_to(main_fiber, *t.fiber);
    errno = scheduler_errno;
    set_running(nullptr);
  }
  void switch_to_scheduler(ThreadRec& t) {
    if (t.storage) {
      Fiber::switch_to(*t.fiber, main_fiber);
      return;
    }
    hand_back_os_thread_state(t);
    Fiber::switch_to(*t.fiber, main_fiber);
    errno = t.saved_errno;
  }
  // The last switch of a finished thread: its fiber is never resumed, only started afresh.
  [[noreturn]] void leave_finished_thread(ThreadRec& t) {
    if (!t.storage) hand_back_os_thread_state(t);
    Fiber::exit_to(*t.fiber, main_fiber);
  }
  void set_own_storage_if_lazy(ThreadRec& t) {
    if (lazy_thread_pointer && t.storage) set_current_thread_pointer(t.storage);
  }
  void set_current_thread_pointer(void* storage) {
    if (current_thread_pointer == storage) return;
    set_thread_pointer(storage);
    current_thread_pointer = storage;
  }
  // Back to the scheduler's own thread pointer (and its thread-local storage), if it runs on a
  // program thread's.
  void use_os_thread_pointer() { set_current_thread_pointer(os_thread_pointer); }
  // Keeps the thread's errno and exception state, and gives the scheduler back its own.
  void hand_back_os_thread_state(ThreadRec& t) {
    EhGlobals* g = eh_globals();
    t.eh = *g;
    *g = main_eh;
    t.saved_errno = errno;
  }

  static void thread_entry(void* arg) {
    auto& t = *static_cast<ThreadRec*>(arg);
    Impl& self = *t.impl;
    try {
      t.body();
      t.body = nullptr;
      // Its stores reach memory before it ends (a join then sees them).
      if (t.unfenced) Scheduler::current()->fence();
    } catch (const ExecutionAborted&) {
    } catch (const std::exception& e) {
      self.record_failure(t, Outcome::kUncaughtException,
                          "thread " + self.registry.name(t.id) + " threw " +
                              demangle(typeid(e).name()) + ": " + e.what());
    } catch (...) {
      const std::type_info* type = abi::__cxa_current_exception_type();
      self.record_failure(t, Outcome::kUncaughtException,
                          "thread " + self.registry.name(t.id) + " threw " +
                              (type ? demangle(type->name()) : std::string("an exception")));
    }
    t.body = nullptr;
    t.finished = true;
    self.waiting.erase(t.id);
    self.leave_finished_thread(t);
  }

  const RunLimits* limits = nullptr;
  // Under RC11: the execution graph of the atomics, what the synchronisation operations other
  // than atomics have made happen before, per object (each acquires and releases its object, as
  // a mutex does, unless it commutes with the others: rc11_synchronise; the channels among them),
  // the step's follower (for the options it takes) and an update between its read and its write.
  std::optional<rc11::Machine> rc11;
  std::unordered_map<ObjectKey, VectorClock> sync_clocks;
  std::vector<ObjectKey> synced_channels;
  // Mixed sizes (rc11_mixed_size): the size each location of the machine was accessed at, and
  // the 8-byte granules accessed as under sequential consistency since two sizes met there.
  std::unordered_map<ObjectKey, std::uint32_t> rc11_sizes;
  std::unordered_set<ObjectKey> rc11_sc_granules;
  DirectiveFollower* follower = nullptr;
  struct PendingUpdate {
    ObjectKey location;
    rc11::Mode mode;
    rc11::EventId from;
  } pending_update{};

  // RC11: what a step other than an atomic access makes happen before (before it is applied, so
  // that a created thread starts with its creator's clock).
  void rc11_synchronise(const ThreadRec& t, const Operation& op) {
    const Domain domain = domain_of(op.kind);
    // An atomic access of up to 8 bytes is an event of the graph itself; a larger one, which the
    // machine does not model, is taken as seq_cst: it acquires and releases its location.
    if (domain == Domain::kMemory) {
      const bool atomic = op.kind == OpKind::kAtomicLoad || op.kind == OpKind::kAtomicStore ||
                          op.kind == OpKind::kAtomicRmw || op.kind == OpKind::kAtomicCas;
      if (atomic && op.size > 8) {
        rc11->tick(t.id);
        rc11_acquire_release(t.id, op.object);
      }
      return;
    }
    rc11->tick(t.id);
    switch (domain) {
      case Domain::kThread:
        if (op.kind == OpKind::kThreadCreate) {
          rc11->add_thread(static_cast<ThreadId>(op.object), t.id);
        } else {
          rc11->tick(static_cast<ThreadId>(op.object));  // its end
          rc11->join(t.id, static_cast<ThreadId>(op.object));
        }
        return;
      case Domain::kNone:
        return;
      case Domain::kSemaphore:
        // Posts commute (dependence.cpp): each only releases.
        if (op.kind == OpKind::kSemPost)
          sync_clocks[op.object].join(rc11->clock(t.id));
        else
          rc11_acquire_release(t.id, op.object);
        return;
      case Domain::kCond:
        // Through its mutex only: in C/C++ a notification does not synchronise.
        if (takes_mutex(op.kind) || gives_mutex(op.kind)) rc11_acquire_release(t.id, mutex_of(op));
        return;
      case Domain::kChannel:
        for_each_channel(op, [&](ObjectKey c) {
          if (!sync_clocks.count(c)) synced_channels.push_back(c);
          rc11_acquire_release(t.id, c);
        });
        if (on_every_channel(op))
          for (const ObjectKey c : synced_channels) rc11_acquire_release(t.id, c);
        return;
      default:
        rc11_acquire_release(t.id, op.object);
    }
  }
  // Synchronisation on `object` both ways: what happened before its earlier operations happens
  // before thread t's next event, and t's past before its later ones.
  void rc11_acquire_release(ThreadId t, ObjectKey object) {
    VectorClock& c = sync_clocks[object];
    rc11->acquire(t, c);
    c = rc11->clock(t);
  }

  // For reports, by store of the graph: the step that made it (Trace::OlderStore::kFirstValue
  // for a location's first value). Updated after each call that may add a store.
  std::vector<std::uint32_t> rc11_steps;
  void rc11_note_stores(std::uint32_t step) { rc11_steps.resize(rc11->size(), step); }
  // An access or fence of mode `m` by the running thread, which joins the graph after its last
  // step: weak unless seq_cst (Trace::weak_steps).
  void rc11_note_mode(rc11::Mode m) {
    if (m != rc11::Mode::kSeqCst) trace.record_weak_step(trace.events.empty() ? 0 : current_step());
  }
  void rc11_touch(ObjectKey location, std::uint64_t value) {
    rc11->touch(location, value);
    rc11_note_stores(Trace::OlderStore::kFirstValue);
  }
  std::uint32_t current_step() const { return static_cast<std::uint32_t>(trace.events.size() - 1); }
  // RC11: the option the running step takes among `options` (coherence order, never empty):
  // the follower's, counted from the newest.
  rc11::EventId take_option(ObjectKey location, const std::vector<rc11::EventId>& options,
                            Trace::GraphAccess::Kind kind) {
    const auto count = static_cast<std::uint32_t>(options.size());
    const std::uint32_t step = current_step();
    std::uint32_t choice = 0;
    if (const std::uint32_t source = follower->source(step); source != TestDirective::kFree) {
      const auto named = std::find_if(options.begin(), options.end(),
                                      [&](rc11::EventId e) { return rc11_steps[e] == source; });
      if (named == options.end()) abandon(*running);
      choice = count - 1 - static_cast<std::uint32_t>(named - options.begin());
    } else {
      choice = follower->option(step, count);
    }
    if (count > 1) trace.record_choice(step, choice, count);
    const rc11::EventId taken = options[count - 1 - choice];
    const rc11::EventId newest = rc11->latest(location);
    if (taken != newest)
      trace.older_stores.push_back(
          {step, rc11_steps[taken], rc11_steps[newest], rc11->value_of(taken)});
    // Only the exploration of graphs reads them.
    if (follower->every_option())
      trace.record_graph_access(step, {kind, rc11_steps[taken], location});
    return taken;
  }
  // Exploring graphs (TestDirective::every_option): the stores an update could read but for
  // another update that read them (with `expected`, only those holding it: a
  // compare-exchange) are not options, but the trace names them (Trace::taken_stores) for the
  // revisits such an update's store would make.
  void note_taken_stores(ThreadId t, ObjectKey location, rc11::Mode m,
                         const std::uint64_t* expected) {
    if (!follower->every_option()) return;
    for (const rc11::EventId e : rc11->taken_update_options(t, location, m))
      if (!expected || rc11->value_of(e) == *expected)
        trace.taken_stores.push_back({current_step(), rc11_steps[e]});
  }
  [[noreturn]] void abandon(ThreadRec& t) {
    abandoned = true;
    if (abandon_hook) abandon_hook();
    set_own_storage_if_lazy(t);  // it unwinds, as after a failure
    if (!aborting) {
      stop(t);
      switch_to_scheduler(t);  // resumed only to be unwound
    }
    throw ExecutionAborted{};
  }
  // Per-thread storage goes after a placed stack, in the first half of the 1 MiB gap before
  // the next slot (RunLimits::stack_region_bytes).
  static constexpr std::size_t kStorageGap = std::size_t{512} << 10;
  void* os_thread_pointer = nullptr;       // the scheduler's own, and the first thread's
  void* current_thread_pointer = nullptr;  // the one set now (switch_to_thread)
  bool lazy_thread_pointer = false;        // RunLimits::lazy_thread_pointer, where it can be
  ThreadStorage* storage_owner = nullptr;  // what gave the threads their storage
  std::vector<std::uintptr_t> used_stack_slots;

  // A stack address from the thread's name, probing past slots other threads of this execution
  // took (only hash collisions make two executions place a thread differently).
  std::uintptr_t stack_place(ThreadId id, std::uintptr_t* slot_out = nullptr) {
    if (!limits || !limits->stack_region) return 0;
    constexpr std::uintptr_t kSlots = RunLimits::kStackSlots;
    const std::string& name = registry.name(id);
    std::uintptr_t slot = std::hash<std::string>{}(name) % kSlots;
    while (std::find(used_stack_slots.begin(), used_stack_slots.end(), slot) !=
           used_stack_slots.end())
      slot = (slot + 1) % kSlots;
    used_stack_slots.push_back(slot);
    if (slot_out) *slot_out = slot;
    const std::uintptr_t stride = RunLimits::stack_region_bytes(limits->stack_bytes) / kSlots;
    return limits->stack_region + slot * stride;
  }

  // A thread's record, without a fiber yet, entered in by_id.
  ThreadRec& new_record(ThreadId id) {
    std::unique_ptr<ThreadRec> rec;
    if (!rec_pool.empty()) {
      rec = std::move(rec_pool.back());
      rec_pool.pop_back();
      *rec = ThreadRec{};
    } else {
      rec = std::make_unique<ThreadRec>();
    }
    rec->id = id;
    rec->impl = this;
    if (id >= by_id.size()) by_id.resize(id + 1, nullptr);
    by_id[id] = rec.release();
    return *by_id[id];
  }

  ThreadRec& new_thread(ThreadId id, std::function<void()> body) {
    ThreadRec* rec = &new_record(id);
    rec->body = std::move(body);
    if (fiber_pool.empty()) fiber_pool.push_back(std::make_unique<Fiber>());
    rec->fiber = fiber_pool.back().release();
    fiber_pool.pop_back();
    std::uintptr_t slot = RunLimits::kStackSlots;
    const std::uintptr_t place = stack_place(id, &slot);
    const bool adopt = limits && limits->adopt_placed_stacks;
    std::uint8_t* mapped = adopt && limits->mapped_stack_slots && slot < RunLimits::kStackSlots
                               ? &limits->mapped_stack_slots[slot]
                               : nullptr;
    // RunLimits::kSlotStackMapped, kSlotStorageMapped, kSlotStackCleared.
    rec->fiber->start(&Impl::thread_entry, rec, limits ? limits->stack_bytes : kFiberStackBytes,
                      place, adopt, mapped && (*mapped & RunLimits::kSlotStackMapped),
                      mapped && (*mapped & RunLimits::kSlotStackCleared));
    if (mapped) *mapped &= ~RunLimits::kSlotStackCleared;
    const std::uintptr_t stack = reinterpret_cast<std::uintptr_t>(rec->fiber->stack_low());
    const bool placed = limits && limits->stack_region && stack >= limits->stack_region;
    if (mapped && rec->fiber->placed_at(place)) *mapped |= RunLimits::kSlotStackMapped;
    if (limits && limits->thread_storage && id != kMainThread) {
      // Beside its stack, in the gap before the next slot's: it stays with the stack.
      storage_owner = limits->thread_storage;
      bool storage_placed = false;
      rec->storage = storage_owner->create(
          id, placed ? stack + rec->fiber->stack_bytes() : 0, placed ? kStorageGap : 0,
          placed && mapped && (*mapped & RunLimits::kSlotStorageMapped), &storage_placed);
      if (storage_placed && mapped) *mapped |= RunLimits::kSlotStorageMapped;
    } else if (lazy_thread_pointer) {
      rec->storage = os_thread_pointer;  // main's: its errno is then kept by address too
    }
    return *rec;
  }

  /// Runs a new thread's local code up to its first visible operation.
  void start(ThreadRec& t) {
    waiting.insert(t.id);
    switch_to_thread(t);
  }

  void record_failure(ThreadRec& t, Outcome outcome, std::string message) {
    trace.failures.push_back({outcome, message, t.id, trace.events.size()});
    if (failed) return;  // the first bug of an execution is its outcome
    failed = true;
    trace.outcome = outcome;
    trace.message = std::move(message);
    trace.failing_thread = t.id;
  }

  // ---- the model of synchronisation objects ---------------------------------------------
  bool is_enabled(const ThreadRec& t) {
    const Operation& op = t.pending;
    switch (op.kind) {
      case OpKind::kMutexLock:
      case OpKind::kThreadJoin:
        return sync_rules::lock_or_join_may_run(
            op, [&](ObjectKey m) { return mutexes[m].owner; },
            [&](ThreadId id) { return id < by_id.size() && by_id[id] && by_id[id]->finished; });
      case OpKind::kCondWake:
        // A timed wait may also time out: it needs only the mutex.
        return mutexes[op.partner].owner == kNoThread &&
               (op.timed || conds[op.object].has_token_for(t.wait_epoch));
      case OpKind::kSemWait:
        return sems[op.object].count > 0;
      case OpKind::kFutexWoken:
        return op.timed || futexes[op.object].has_token_for(t.wait_epoch);
      case OpKind::kChannelSend:
      case OpKind::kChannelReceive:
      case OpKind::kChannelSelect:
        return op.timed || channels->ready(t.id, op);
      case OpKind::kStoreFence:
        return t.buffer.empty();
      default:
        return true;
    }
  }

  // ---- x86-TSO store buffers -----------------------------------------------------------
  // The thread that flushes `owner`'s buffer, made when the owner first stores.
  ThreadRec& flusher_of(ThreadRec& owner) {
    if (owner.flusher == kNoThread) {
      const ThreadId id = registry.store_buffer(owner.id);
      ThreadRec& f = new_record(id);
      f.owner = owner.id;
      owner.flusher = id;
    }
    return *by_id[owner.flusher];
  }
  // The store t's kBufferedStore made enters its buffer; the flusher waits to run if it did not.
  void buffer_store(ThreadRec& t) {
    t.buffer.push(t.staged);
    ThreadRec& f = flusher_of(t);
    if (!waiting.contains(f.id)) {
      f.pending = flush_operation(t.id, t.buffer.oldest());
      f.pending_site = t.buffer.oldest().site;
      waiting.insert(f.id);
    }
  }
  // The flusher f writes its owner's oldest store; it waits again only while stores are left.
  void flush(ThreadRec& f) {
    ThreadRec& owner = *by_id[f.owner];
    owner.buffer.flush_oldest();
    if (owner.buffer.empty()) {
      waiting.erase(f.id);
      return;
    }
    f.pending = flush_operation(owner.id, owner.buffer.oldest());
    f.pending_site = owner.buffer.oldest().site;
  }

  /// A thread with a bug stops where it is; the others go on, so that the execution is still
  /// maximal for them and the strategies see every race among them (a DPOR needs complete
  /// executions). It is unwound at the end of the execution.
  void stop(ThreadRec& t) {
    waiting.erase(t.id);
    dead.insert(t.id);
  }

  std::string misuse(ThreadRec& t, const std::string& what) {
    return "thread " + registry.name(t.id) + ": " + what;
  }

  /// Applies the effect of t's pending operation. Returns false when t stays suspended (the
  /// first half of a condition wait) instead of being resumed.
  bool apply(ThreadRec& t, Operation& op) {
    switch (op.kind) {
      case OpKind::kMutexLock: {
        auto& m = mutexes[op.object];
        m.owner = sync_rules::holder_after(op, t.id, m.owner);
        return true;
      }
      case OpKind::kMutexTryLock: {
        auto& m = mutexes[op.object];
        op.result = m.owner == kNoThread;
        m.owner = sync_rules::holder_after(op, t.id, m.owner);
        t.result = op.result;
        return true;
      }
      case OpKind::kMutexUnlock: {
        auto& m = mutexes[op.object];
        if (sync_rules::gives_a_mutex_it_does_not_hold(op, t.id, m.owner)) {
          record_failure(
              t, Outcome::kMisuse,
              misuse(t, "unlocks " + describe(op).substr(7) +
                            (m.owner == kNoThread
                                 ? ", which is not locked"
                                 : ", which thread " + registry.name(m.owner) + " holds")));
          stop(t);
          return false;
        }
        m.owner = sync_rules::holder_after(op, t.id, m.owner);
        return true;
      }
      case OpKind::kCondWait: {
        auto& m = mutexes[op.partner];
        if (sync_rules::gives_a_mutex_it_does_not_hold(op, t.id, m.owner)) {
          record_failure(t, Outcome::kMisuse,
                         misuse(t, "waits on a condition variable without holding its mutex"));
          stop(t);
          return false;
        }
        m.owner = sync_rules::holder_after(op, t.id, m.owner);
        auto& c = conds[op.object];
        ++c.waiters;
        t.wait_epoch = c.epoch;
        t.pending = Operation{OpKind::kCondWake, 0, 0, op.object, op.partner, op.timed};
        return false;
      }
      case OpKind::kCondWake: {
        op.result = conds[op.object].end_wait(t.wait_epoch);
        t.result = op.result;
        mutexes[op.partner].owner = sync_rules::holder_after(op, t.id, mutexes[op.partner].owner);
        return true;
      }
      case OpKind::kCondSignal:
        op.result = conds[op.object].signal();  // 1: lost (is_lost_notification)
        return true;
      case OpKind::kCondBroadcast:
        op.result = conds[op.object].broadcast();
        return true;
      case OpKind::kSemWait: {
        // The units it found (saturated): whether it could have come before one of the posts
        // that preceded it (optimal DPOR's race candidates).
        auto& sem = sems[op.object];
        op.result = static_cast<std::uint8_t>(std::min<std::uint64_t>(sem.count, 255));
        --sem.count;
        return true;
      }
      case OpKind::kSemTryWait: {
        auto& sem = sems[op.object];
        op.result = sem.count > 0;
        if (op.result) --sem.count;
        t.result = op.result;
        return true;
      }
      case OpKind::kSemPost:
        ++sems[op.object].count;
        return true;
      case OpKind::kFutexWait: {
        // The compare and the start of the wait are one step, as in the kernel: no wake can
        // come between them. The key is the word's address (native programs only).
        const std::uint32_t word = *reinterpret_cast<const volatile std::uint32_t*>(op.object);
        op.result = word == static_cast<std::uint32_t>(op.partner);
        if (!op.result) {
          t.result = kFutexValueDiffered;
          return true;
        }
        auto& f = futexes[op.object];
        ++f.waiters;
        t.wait_epoch = f.epoch;
        t.pending = Operation{OpKind::kFutexWoken, 0, 0, op.object, 0, op.timed};
        return false;
      }
      case OpKind::kFutexWake: {
        // Each woken waiter is a token; which waiter takes it is a scheduling choice.
        auto& f = futexes[op.object];
        std::uint64_t woken = 0;
        while (woken < op.partner && f.waiters > f.tokens.size()) {
          f.signal();
          ++woken;
        }
        op.result = static_cast<std::uint8_t>(std::min<std::uint64_t>(woken, 255));
        t.result = op.result;
        return true;
      }
      case OpKind::kFutexWoken: {
        op.result = futexes[op.object].end_wait(t.wait_epoch);
        t.result = op.result ? kFutexWoken : kFutexTimedOut;
        return true;
      }
      case OpKind::kChannelSend:
      case OpKind::kChannelReceive:
      case OpKind::kChannelClose:
      case OpKind::kChannelSelect:
        op.result = channels->apply(t.id, op);
        t.result = op.result;
        return true;
      case OpKind::kBufferedStore:
        buffer_store(t);
        return true;
      case OpKind::kBufferFlush:
        flush(t);
        return false;  // a flusher has no code to resume
      case OpKind::kStoreFence:
        t.unfenced = false;
        return true;
      case OpKind::kProcessExit:
        exited = true;
        if (!failed) trace.outcome = t.exit_outcome;
        return false;
      case OpKind::kThreadCreate: {
        ++t.children;
        ThreadRec& child = new_thread(static_cast<ThreadId>(op.object), std::move(t.spawn_body));
        t.spawn_body = nullptr;
        child.resumes_lazily = t.spawn_lazily;
        start(child);
        return true;
      }
      default:
        return true;
    }
  }

  // No thread can run and some stopped at a busy-wait loop (stop_spinning). If what one of them
  // read has changed since, it would have gone on: this execution is redundant. Otherwise every
  // one of them spins forever, whatever the blocked threads wait for.
  void end_with_spinners() {
    for (ThreadId id = spinning.first(); id != kNoThread; id = spinning.next_from(id + 1))
      if (by_id[id]->spin_released()) {
        trace.outcome = Outcome::kSpinBlocked;
        return;
      }
    std::string s = "livelock:";
    bool first = true;
    for (ThreadId id = spinning.first(); id != kNoThread; id = spinning.next_from(id + 1)) {
      s += first ? " " : "; ";
      first = false;
      s += "thread " + registry.name(id) +
           " spins forever in a busy-wait loop (no thread changes what it reads)";
    }
    const std::string blocked = deadlock_message();  // "deadlock: thread ... waits ..."
    if (!waiting.empty()) s += ";" + blocked.substr(blocked.find(':') + 1);
    trace.outcome = Outcome::kLivelock;
    trace.message = std::move(s);
    trace.failing_thread = spinning.first();
  }

  // "deadlock: thread 0.1 waits on condition variable 0x4a0 (with mutex 0x4c8) at {pc:..}; no
  // thread will signal it; ...": each blocked thread's wait in the terms of the program's source.
  std::string deadlock_message() {
    std::string s = "deadlock:";
    bool first = true;
    for (ThreadId id = waiting.first(); id != kNoThread; id = waiting.next_from(id + 1)) {
      s += first ? " " : "; ";
      first = false;
      s += blocked_wait(*by_id[id]);
    }
    return s;
  }

  std::string holder_of(ObjectKey mutex) {
    const ThreadId owner = mutexes[mutex].owner;
    if (owner == kNoThread) return "";
    std::string s = ", held by thread " + registry.name(owner);
    if (by_id[owner]->finished) s += ", which ended without unlocking it";
    return s;
  }

  std::string blocked_wait(ThreadRec& t) {
    const Operation& op = t.pending;
    std::string s = "thread " + registry.name(t.id) + " ";
    const std::string at = t.pending_site ? " at " + code_mark(t.pending_site) : "";
    switch (op.kind) {
      case OpKind::kMutexLock:
        return s + "waits to lock mutex " + object_name(op.object) + at + holder_of(op.object);
      case OpKind::kCondWake:
        if (!conds[op.object].has_token_for(t.wait_epoch))
          return s + "waits on condition variable " + object_name(op.object) + " (with mutex " +
                 object_name(op.partner) + ")" + at + "; no thread will signal it";
        return s + "was signalled on condition variable " + object_name(op.object) +
               " and waits to lock mutex " + object_name(op.partner) + " again" + at +
               holder_of(op.partner);
      case OpKind::kSemWait:
        return s + "waits on semaphore " + object_name(op.object) + " (count 0)" + at +
               "; no thread will post it";
      case OpKind::kFutexWoken:
        return s + "waits on futex word " + object_name(op.object) + at +
               "; no thread will wake it";
      case OpKind::kChannelSend:
      case OpKind::kChannelReceive:
      case OpKind::kChannelSelect:
        return s + channels->waits_for(t.id, op, at);
      case OpKind::kThreadJoin: {
        const auto joined = static_cast<ThreadId>(op.object);
        s += "waits to join thread " + registry.name(joined) + at;
        if (joined < by_id.size() && by_id[joined] && waiting.contains(joined))
          s += ", which is blocked too";
        return s;
      }
      default:
        return s + "is blocked in " + describe(op, &registry) + at;
    }
  }

  void reset() {
    for (ThreadRec* t : by_id) {
      if (!t) continue;
      if (t->fiber) fiber_pool.emplace_back(t->fiber);
      t->fiber = nullptr;
      if (t->storage && t->storage != os_thread_pointer) storage_owner->release(t->storage);
      t->storage = nullptr;
      rec_pool.emplace_back(t);
    }
    by_id.clear();
    waiting.clear();
    dead.clear();
    spinning.clear();
    mutexes.clear();
    conds.clear();
    sems.clear();
    futexes.clear();
    counted.reset();
    aborting = false;
    failed = false;
    exited = false;
    abandoned = false;
    set_running(nullptr);
    trace = Trace{};
  }

  // Unwinds every thread that is still suspended, so that destructors in the program run. The
  // most recently created threads go first: they may use objects of their creators, rarely the
  // other way round.
  void kill_all() {
    aborting = true;
    for (ThreadId id = dead.first(); id != kNoThread; id = dead.next_from(id + 1))
      waiting.insert(id);
    for (ThreadId id = spinning.first(); id != kNoThread; id = spinning.next_from(id + 1))
      waiting.insert(id);
    dead.clear();
    spinning.clear();
    for (ThreadRec* t : by_id)
      if (t && t->owner != kNoThread) waiting.erase(t->id);  // a flusher has no stack to unwind
    const auto victims = waiting.members();
    for (auto it = victims.rbegin(); it != victims.rend(); ++it) {
      if (!waiting.contains(*it)) continue;
      switch_to_thread(*by_id[*it]);
      waiting.erase(*it);  // in case the thread switched back without finishing
    }
  }

  Trace run(const TestDirective& d, const std::function<void()>& root, const RunLimits& limits);
};

Trace Scheduler::Impl::run(const TestDirective& d, const std::function<void()>& root,
                           const RunLimits& limits) {
  reset();
  this->limits = &limits;
  // Only where errno can be kept by address, and not where a thread's local state is hashed
  // from the thread pointer's storage (RunLimits::local_state).
  storage_owner = limits.thread_storage;
  lazy_thread_pointer = limits.lazy_thread_pointer && storage_owner && !limits.local_state &&
                        storage_owner->errno_location(os_thread_pointer) != nullptr;
  directive_inputs = d.inputs;
  track_inputs = d.track_inputs;
  random_input_seed = d.policy != SchedulePolicy::kSticky ? d.seed : 0;
  used_stack_slots.clear();
  // Most executions run past the prefix a strategy gives, rarely by more than a few dozen steps.
  trace.reserve_steps(d.prefix.size() + 64);
  DirectiveFollower follower(d);
  this->follower = &follower;
  if (limits.memory_model == MemoryModel::kRc11) {
    rc11.emplace();
    rc11->offer_every_option(d.every_option);
    rc11->add_thread(kMainThread, kNoThread);
    rc11_steps.clear();
  } else {
    rc11.reset();
  }
  sync_clocks.clear();
  synced_channels.clear();
  rc11_sizes.clear();
  rc11_sc_granules.clear();
  std::vector<ThreadId> bounded;
  ThreadId last = kMainThread;

  start(new_thread(kMainThread, [&root] { root(); }));

  for (std::size_t step = 0;; ++step) {
    if (abandoned) {
      trace.outcome = Outcome::kSleepBlocked;
      break;
    }
    follower.start_step(step, trace.events.empty() ? nullptr : &trace.events.back());
    // The end of the process (exit, return from main, abort, a failed assume) waits until no
    // other thread can run. Ending earlier would only cut the others short: whatever goes wrong
    // before an exit goes wrong in the same prefix of an execution where it comes later, so the
    // executions that end early show no bug that these do not.
    ThreadSet enabled, exiting;
    for (ThreadId id = waiting.first(); id != kNoThread; id = waiting.next_from(id + 1))
      if (by_id[id]->steps >= limits.max_steps_per_thread)
        bounded.push_back(id);
      else if (is_enabled(*by_id[id]))
        (by_id[id]->pending.kind == OpKind::kProcessExit ? exiting : enabled).insert(id);
    // A thread at the step bound stops there and the others run on, as after a bug: ending the
    // whole execution would leave out every interleaving in which the others run on within the
    // bound, and no race would bring them back (their events never ran). Like a blocked thread,
    // it is not enabled: its pending operation never runs.
    for (ThreadId id : bounded) {
      const ThreadRec& t = *by_id[id];
      std::string message = "thread " + registry.name(id) + " reached the bound of " +
                            std::to_string(limits.max_steps_per_thread) + " visible operations";
      if (t.pending_site) message += " at " + code_mark(t.pending_site);
      if (t.pending.object == kInlineAsmObject &&
          (t.pending.kind == OpKind::kYield || t.pending.kind == OpKind::kAtomicSection))
        message +=
            ", in inline assembly weft cannot see into (a loop waiting for what the assembly "
            "does looks endless to weft)";
      record_failure(*by_id[id], Outcome::kBoundReached, std::move(message));
      stop(*by_id[id]);
    }
    bounded.clear();
    if (enabled.empty()) enabled = std::move(exiting);
    if (enabled.empty()) {
      if (!spinning.empty() && !failed)
        end_with_spinners();
      else if (!waiting.empty() && !failed) {
        trace.outcome = Outcome::kDeadlock;
        trace.message = deadlock_message();
      }
      break;
    }
    const ThreadId chosen =
        follower.choose(step, enabled, last, trace.prefix_followed, trace.diverged_at,
                        {this, [](const void* self, ThreadId id) -> const Operation& {
                           return static_cast<const Impl*>(self)->by_id[id]->pending;
                         }});
    if (chosen == kNoThread) {
      if (!failed) trace.outcome = Outcome::kSleepBlocked;
      break;
    }

    ThreadRec& t = *by_id[chosen];
    ++t.steps;
    last = chosen;
    Operation op = t.pending;
    trace.add_step({chosen, op}, std::move(enabled), t.pending_site);
    if (limits.local_state) trace.add_local_state(t.pending_local);
    // Observers see a creation before the child runs its first local code (inside apply);
    // every other event after it ran, with its result.
    const bool creates = op.kind == OpKind::kThreadCreate;
    if (creates && on_event) on_event(trace);
    if (rc11) rc11_synchronise(t, op);
    const bool resume = apply(t, op);
    trace.events.back().op = op;  // with its result
    if (!creates && on_event) on_event(trace);
    if (exited) break;
    if (resume) switch_to_thread(t);
    if (t.finished) trace.finished_thread.back() = true;
  }

  for (ThreadId id = waiting.first(); id != kNoThread; id = waiting.next_from(id + 1)) {
    ThreadRec& t = *by_id[id];
    trace.pending.push_back({id, t.pending, is_enabled(t), t.pending_local});
  }
  trace.walk_log2_weight = follower.walk_log2_weight();
  if (limits.unwind_at_end) kill_all();
  use_os_thread_pointer();
  return std::move(trace);
}

// ---- Scheduler ------------------------------------------------------------------------------

Scheduler::Scheduler(ThreadRegistry& threads)
    : impl_(std::make_unique<Impl>(threads)), running_id_(&impl_->running_id) {}

Scheduler::~Scheduler() {
  impl_->reset();
}

bool Scheduler::thread_info(ThreadId id, void** stack_low, std::size_t* stack_bytes,
                            bool* finished) const {
  if (id >= impl_->by_id.size() || !impl_->by_id[id]) return false;
  const ThreadRec& t = *impl_->by_id[id];
  if (stack_low) *stack_low = t.fiber ? t.fiber->stack_low() : nullptr;
  if (stack_bytes) *stack_bytes = t.fiber ? t.fiber->stack_bytes() : 0;
  if (finished) *finished = t.finished;
  return true;
}

bool Scheduler::blocked(ThreadId id) const {
  if (id >= impl_->by_id.size() || !impl_->by_id[id]) return false;
  ThreadRec& t = *impl_->by_id[id];
  return &t != impl_->running && !t.finished && !impl_->is_enabled(t);
}

std::uintptr_t Scheduler::saved_frame_pointer(ThreadId id) const {
  if (id >= impl_->by_id.size() || !impl_->by_id[id] || impl_->by_id[id] == impl_->running)
    return 0;
  const ThreadRec& t = *impl_->by_id[id];
  return t.fiber && !t.finished ? t.fiber->saved_frame_pointer() : 0;
}

std::uintptr_t Scheduler::stopped_frame_pointer(ThreadId id) const {
  if (id >= impl_->by_id.size() || !impl_->by_id[id]) return 0;
  const ThreadRec& t = *impl_->by_id[id];
  return t.fiber && !t.finished ? t.fiber->saved_frame_pointer() : 0;
}

Scheduler* Scheduler::current() noexcept {
  return g_current ? g_current : g_storage_switching;
}

void Scheduler::sync_thread_pointer(bool foreign_code_follows) noexcept {
  if (foreign_code_follows) g_thread_pointer_asked = true;
  if (!g_storage_switching) return;
  Impl& s = *g_storage_switching->impl_;
  if (s.running) s.set_own_storage_if_lazy(*s.running);
}

bool Scheduler::thread_pointer_asked() noexcept {
  return g_thread_pointer_asked;
}

void Scheduler::forget_thread_pointer_requests() noexcept {
  g_thread_pointer_asked = false;
}

Trace Scheduler::run(const TestDirective& directive, const std::function<void()>& root,
                     const RunLimits& limits) {
  Scheduler* outer = g_current;
  g_current = this;
  struct Restore {
    Scheduler* outer;
    ~Restore() { g_current = outer; }
  } restore{outer};
  impl_->os_thread_pointer = impl_->current_thread_pointer = thread_pointer();
  // However run() ends, the caller goes on with its own thread-local storage.
  struct OwnStorage {
    Impl& impl;
    ~OwnStorage() { impl.use_os_thread_pointer(); }
  } own_storage{*impl_};
  if (!limits.thread_storage) return impl_->run(directive, root, limits);
  g_storage_switching = this;
  struct Unset {
    ~Unset() { g_storage_switching = nullptr; }
  } unset;
  return impl_->run(directive, root, limits);
}

Scheduler::Input Scheduler::read_input(unsigned width, bool is_signed, std::string name) {
  Impl& s = *impl_;
  ThreadRec& t = *s.running;
  // A loop that reads inputs until one has some value (`do x = nondet(); while (x == 0)`) makes
  // no visible operation, so the step bound alone would let it run on the first value forever.
  // Inputs count against the same bound: the thread stops there and each shorter path is a test.
  if (t.inputs_read >= s.limits->max_steps_per_thread)
    fail(Outcome::kBoundReached, "thread " + s.registry.name(t.id) + " reached the bound of " +
                                     std::to_string(s.limits->max_steps_per_thread) +
                                     " inputs read (--max-steps bounds inputs as it bounds "
                                     "visible operations)");
  const InputKey key{t.id, t.inputs_read++};
  if (!s.track_inputs) s.trace.symbolic.untracked = true;
  // splitmix64 of the seed and the input: uniform, and the same for the same seed.
  std::uint64_t fallback = 0;
  if (s.random_input_seed != 0) {
    fallback = s.random_input_seed ^ (key.packed() * 0x9E3779B97F4A7C15ULL);
    fallback = (fallback ^ (fallback >> 30)) * 0xBF58476D1CE4E5B9ULL;
    fallback = (fallback ^ (fallback >> 27)) * 0x94D049BB133111EBULL;
    fallback ^= fallback >> 31;
  }
  const std::uint64_t value =
      symbolic::truncate(input_value(s.directive_inputs, key, fallback), width);
  InputObservations& seen = s.trace.symbolic;
  const auto number = static_cast<std::uint32_t>(seen.inputs.size());
  seen.inputs.push_back(weft::InputRead{key, static_cast<std::uint8_t>(width), is_signed,
                                        std::move(name), value, s.trace.events.size()});
  return {value, seen.expressions.input(width, number)};
}

symbolic::ExpressionPool& Scheduler::expressions() {
  return impl_->trace.symbolic.expressions;
}

const InputObservations& Scheduler::inputs_observed() const {
  return impl_->trace.symbolic;
}

void Scheduler::record_branch(symbolic::ExprId condition, bool taken, BranchKind kind,
                              std::uint64_t site) {
  Impl& s = *impl_;
  if (condition == symbolic::kConcrete || s.trace.symbolic.expressions.is_constant(condition))
    return;
  s.trace.symbolic.branches.push_back(
      SymbolicBranch{condition, taken, kind, s.running_id,
                     static_cast<std::uint32_t>(s.trace.events.size()), site});
}

void Scheduler::note_unconstrained_concretisation() {
  ++impl_->trace.symbolic.unconstrained_concretisations;
}

ObjectKey Scheduler::new_object() {
  ThreadRec& t = *impl_->running;
  const ObjectKey n = (ObjectKey{t.id + 1} << 24) | ++t.objects;
  return n * kInProcessObjectSpacing;
}

void Scheduler::init_semaphore(ObjectKey key, std::uint64_t count) {
  impl_->sems[key].count = count;
}

std::uint8_t Scheduler::perform(const Operation& op, std::uint64_t site,
                                bool returns_to_weft_code) {
  Impl& s = *impl_;
  ThreadRec& t = *s.running;
  const auto abort_here = [&]() -> std::uint8_t {
    s.set_own_storage_if_lazy(t);  // the C++ runtime unwinds with the thread's own
    // The execution is being cut short and this thread must unwind. While it already unwinds,
    // operations in destructors become no-ops. Releasing operations (unlock, post, notify) also
    // return normally, because they are typically called from destructors (lock_guard), where
    // throwing would terminate the program; the thread unwinds at its next other operation (or
    // after many releases, in case it loops on them).
    if (std::uncaught_exceptions() > 0) return 0;
    const bool releasing = op.kind == OpKind::kMutexUnlock || op.kind == OpKind::kSemPost ||
                           op.kind == OpKind::kCondSignal || op.kind == OpKind::kCondBroadcast;
    if (releasing && ++t.releases_while_aborting < 1000) return 0;
    throw ExecutionAborted{};
  };
  if (s.aborting) return abort_here();
  if (op.kind == OpKind::kSymbolicBranch || op.kind == OpKind::kBarrierWait)
    fail(Outcome::kMisuse, std::string("operation '") + op_name(op.kind) +
                               "' is not supported by this version of weft");
  if (t.unfenced && needs_empty_buffer(op.kind)) fence(site);
  t.pending = op;
  t.pending_site = site;
  if (s.limits && s.limits->local_state) t.pending_local = s.limits->local_state(op, site);
  t.resumes_lazily = returns_to_weft_code;
  s.switch_to_scheduler(t);
  t.resumes_lazily = false;
  if (s.aborting) return abort_here();
  if (s.step_hook) [[unlikely]] {
    s.set_own_storage_if_lazy(t);          // the hook may run the program's signal handlers
    const std::uint8_t result = t.result;  // the hook may perform operations of its own
    s.step_hook(site);
    return result;
  }
  return t.result;
}

MemoryModel Scheduler::memory_model() const {
  return impl_->limits ? impl_->limits->memory_model : MemoryModel::kSequentialConsistency;
}

void Scheduler::store(ObjectKey location, void* where, const void* bytes, std::uint32_t size,
                      std::uint64_t site, bool returns_to_weft_code) {
  Impl& s = *impl_;
  ThreadRec& t = *s.running;
  if (memory_model() != MemoryModel::kTso || size > sizeof t.staged.bytes) {
    perform(Operation{OpKind::kAtomicStore, 0, size, location, 0}, site, returns_to_weft_code);
    if (bytes) std::memcpy(where, bytes, size);
    return;
  }
  t.staged = BufferedStore{location, where, size, t.stores_buffered, site, {}};
  if (bytes) std::memcpy(t.staged.bytes, bytes, size);
  perform(Operation{OpKind::kBufferedStore, 0, size, store_buffer_slot(t.id, t.stores_buffered),
                    location},
          site, returns_to_weft_code);
  // Counted once it ran: an execution cut short in the operation leaves the count alone.
  ++t.stores_buffered;
  t.unfenced = true;
}

void Scheduler::complete_store(const void* bytes) {
  impl_->running->buffer.complete_newest(bytes);
}

void Scheduler::forward_buffered(ObjectKey location, std::uint32_t size, void* bytes) const {
  const ThreadRec& t = *impl_->running;
  t.buffer.forward(location, size, static_cast<unsigned char*>(bytes));
}

void Scheduler::fence(std::uint64_t site) {
  ThreadRec& t = *impl_->running;
  if (!t.unfenced) return;
  // It reads the slot of its last store, whose flush empties the buffer (op_kinds.def).
  perform(Operation{OpKind::kStoreFence, 0, 1, store_buffer_slot(t.id, t.stores_buffered - 1), 0},
          site);
}

void Scheduler::forget_location(ObjectKey location, std::uint32_t size) {
  Impl& s = *impl_;
  if (memory_model() != MemoryModel::kTso || !s.running) return;
  if (!s.aborting) fence();
  for (ThreadRec* t : s.by_id)
    if (t) t->buffer.forget(location, size);
}

// ---- RC11 ------------------------------------------------------------------------------------

namespace {

std::uint64_t value_of(const void* bytes, std::uint32_t size) {
  std::uint64_t v = 0;
  std::memcpy(&v, bytes, size);
  return v;
}

}  // namespace

bool Scheduler::rc11() const {
  return impl_->rc11.has_value();
}

void Scheduler::rc11_load(ObjectKey location, std::memory_order order, void* bytes,
                          std::uint32_t size) {
  Impl& s = *impl_;
  const ThreadId t = s.running->id;
  const rc11::Mode m = rc11::mode_of(order);
  s.rc11_note_mode(m);
  s.rc11_touch(location, value_of(bytes, size));
  const rc11::EventId from = s.take_option(location, s.rc11->load_options(t, location, m),
                                           Trace::GraphAccess::Kind::kLoad);
  const std::uint64_t v = s.rc11->load(t, location, m, from);
  std::memcpy(bytes, &v, size);
}

bool Scheduler::rc11_mixed_size(ObjectKey location, std::uint32_t size) {
  Impl& s = *impl_;
  const ThreadId t = s.running->id;
  const ObjectKey first = location / 8, last = (location + size - 1) / 8;
  bool mixed = false;
  for (ObjectKey g = first; g <= last && !mixed; ++g) mixed = s.rc11_sc_granules.count(g) != 0;
  // The locations on these bytes (each starts at most 7 bytes before), and whether one of them
  // has another place or size.
  std::vector<ObjectKey> met;
  for (ObjectKey k = location >= 7 ? location - 7 : 0; k < location + size; ++k) {
    const auto it = s.rc11_sizes.find(k);
    if (it == s.rc11_sizes.end() || k + it->second <= location) continue;
    met.push_back(k);
    mixed = mixed || k != location || it->second != size;
  }
  if (!mixed) {
    s.rc11_sizes.emplace(location, size);
    return false;
  }
  s.rc11->tick(t);
  // Switching: what each location's newest store released, the access acquires (as a seq_cst
  // load of it would); from now on its bytes are out of the machine.
  for (const ObjectKey k : met) {
    if (s.rc11->touched(k)) s.rc11->load(t, k, rc11::Mode::kSeqCst, s.rc11->latest(k));
    const std::uint32_t n = s.rc11_sizes[k];
    for (ObjectKey g = k / 8; g <= (k + n - 1) / 8; ++g) s.rc11_sc_granules.insert(g);
    s.rc11_sizes.erase(k);
  }
  s.rc11_note_stores(s.current_step());
  for (ObjectKey g = first; g <= last; ++g) {
    s.rc11_sc_granules.insert(g);
    s.rc11_acquire_release(t, ~g);  // a sync object no location's key can be
  }
  return true;
}

const VectorClock& Scheduler::rc11_clock(ThreadId t) {
  return impl_->rc11->clock(t);
}

bool Scheduler::rc11_store(ObjectKey location, std::memory_order order, void* memory,
                           const void* bytes, std::uint32_t size) {
  Impl& s = *impl_;
  const ThreadId t = s.running->id;
  const rc11::Mode m = rc11::mode_of(order);
  s.rc11_note_mode(m);
  s.rc11_touch(location, value_of(memory, size));
  const rc11::EventId after = s.take_option(location, s.rc11->store_options(t, location, m),
                                            Trace::GraphAccess::Kind::kStore);
  const bool last = after == s.rc11->latest(location);
  s.rc11->store(t, location, m, after, value_of(bytes, size));
  s.rc11_note_stores(s.current_step());
  if (last) std::memcpy(memory, bytes, size);  // memory holds the newest store
  return last;
}

void Scheduler::rc11_update_read(ObjectKey location, std::memory_order order, void* bytes,
                                 std::uint32_t size) {
  Impl& s = *impl_;
  const ThreadId t = s.running->id;
  const rc11::Mode m = rc11::mode_of(order);
  s.rc11_note_mode(m);
  s.rc11_touch(location, value_of(bytes, size));
  std::vector<rc11::EventId> options = s.rc11->update_options(t, location, m);
  s.note_taken_stores(t, location, m, nullptr);
  const rc11::EventId from = s.take_option(location, options, Trace::GraphAccess::Kind::kUpdate);
  s.pending_update = {location, m, from};
  const std::uint64_t v = s.rc11->value_of(from);
  std::memcpy(bytes, &v, size);
}

bool Scheduler::rc11_update_write(void* memory, const void* bytes, std::uint32_t size) {
  Impl& s = *impl_;
  const Impl::PendingUpdate u = s.pending_update;
  const bool last = u.from == s.rc11->latest(u.location);
  s.rc11->update(s.running->id, u.location, u.mode, u.from, value_of(bytes, size));
  s.rc11_note_stores(s.current_step());
  if (last) std::memcpy(memory, bytes, size);
  return last;
}

bool Scheduler::rc11_compare_exchange_read(ObjectKey location, std::memory_order success,
                                           std::memory_order failure, const void* expected,
                                           void* bytes, std::uint32_t size) {
  Impl& s = *impl_;
  const ThreadId t = s.running->id;
  const rc11::Mode ms = rc11::mode_of(success), mf = rc11::mode_of(failure);
  s.rc11_note_mode(ms);
  s.rc11_note_mode(mf);
  const std::uint64_t want = value_of(expected, size);
  s.rc11_touch(location, value_of(bytes, size));
  // A store it reads with the expected value makes it an update, which must be one of those an
  // update may read; any other makes it a load that fails.
  const std::vector<rc11::EventId> updates = s.rc11->update_options(t, location, ms);
  std::vector<rc11::EventId> options;
  for (const rc11::EventId e : s.rc11->load_options(t, location, mf))
    if (s.rc11->value_of(e) != want ||
        std::find(updates.begin(), updates.end(), e) != updates.end())
      options.push_back(e);
  s.note_taken_stores(t, location, ms, &want);
  const rc11::EventId from = s.take_option(location, options, Trace::GraphAccess::Kind::kUpdate);
  const std::uint64_t v = s.rc11->value_of(from);
  std::memcpy(bytes, &v, size);
  if (v != want) {
    if (s.follower->every_option())
      s.trace.graph.back().kind = Trace::GraphAccess::Kind::kLoad;  // it failed: a load
    s.rc11->load(t, location, mf, from);
    return false;
  }
  s.pending_update = {location, ms, from};
  return true;
}

void Scheduler::rc11_notice_memory(ObjectKey location, const void* bytes, std::uint32_t size) {
  Impl& s = *impl_;
  if (s.rc11->touched(location) &&
      s.rc11->value_of(s.rc11->latest(location)) != value_of(bytes, size))
    s.rc11->forget(location);
}

bool Scheduler::rc11_compare_exchange(ObjectKey location, std::memory_order success,
                                      std::memory_order failure, void* memory, void* seen,
                                      const void* expected, const void* desired,
                                      std::uint32_t size) {
  std::memcpy(seen, memory, size);
  if (!rc11_compare_exchange_read(location, success, failure, expected, seen, size)) return false;
  rc11_update_write(memory, desired, size);
  return true;
}

void Scheduler::rc11_fence(std::memory_order order) {
  Impl& s = *impl_;
  s.rc11_note_mode(rc11::mode_of(order));
  s.rc11->fence(s.running->id, rc11::mode_of(order));
}

void Scheduler::rc11_outside_access(ObjectKey location, std::uint32_t size, const void* before,
                                    const void* written, bool reads) {
  Impl& s = *impl_;
  if (!s.rc11 || size == 0 || size > 8) return;
  const ThreadId t = s.running->id;
  const std::uint64_t now = value_of(before, size);
  rc11_notice_memory(location, before, size);
  s.rc11_touch(location, now);
  const rc11::EventId newest = s.rc11->latest(location);
  if (!written)
    s.rc11->load(t, location, rc11::Mode::kSeqCst, newest);
  else if (reads)
    s.rc11->update(t, location, rc11::Mode::kSeqCst, newest, value_of(written, size));
  else
    s.rc11->store(t, location, rc11::Mode::kSeqCst, newest, value_of(written, size));
  s.rc11_note_stores(s.current_step());
}

ThreadId Scheduler::spawn(std::function<void()> body, std::uint64_t site, std::uint64_t routine,
                          bool lazily) {
  ThreadRec& t = *impl_->running;
  const ThreadId child = impl_->registry.child(t.id, t.children);
  t.spawn_body = std::move(body);
  t.spawn_lazily = lazily;
  perform(Operation{OpKind::kThreadCreate, 0, 0, child, routine}, site, lazily);
  return child;
}

void Scheduler::record_footprint(const Footprint& footprint) {
  Impl& s = *impl_;
  if (s.trace.events.empty()) return;
  Event& last = s.trace.events.back();
  if (last.thread != s.running->id || last.op.kind != OpKind::kAtomicSection) return;
  last.op.footprint = footprint;
}

void Scheduler::end_process(int status, Outcome outcome, std::uint64_t site) {
  Impl& s = *impl_;
  ThreadRec& t = *s.running;
  s.set_own_storage_if_lazy(t);  // it unwinds, as after fail()
  t.exit_outcome = outcome;
  perform(Operation{OpKind::kProcessExit, 0, 0, static_cast<ObjectKey>(status & 0xff), 0}, site);
  throw ExecutionAborted{};  // only reached when the execution is being unwound
}

ThreadId Scheduler::mutex_owner(ObjectKey key) const {
  auto it = impl_->mutexes.find(key);
  return it == impl_->mutexes.end() ? kNoThread : it->second.owner;
}

std::uint64_t Scheduler::semaphore_count(ObjectKey key) const {
  auto it = impl_->sems.find(key);
  return it == impl_->sems.end() ? 0 : it->second.count;
}

void Scheduler::set_channels(ChannelKeeper* keeper) noexcept {
  impl_->channels = keeper ? keeper : &impl_->counted;
}

CountedChannels& Scheduler::counted_channels() noexcept {
  return impl_->counted;
}

void Scheduler::set_step_hook(void (*hook)(std::uint64_t site)) noexcept {
  impl_->step_hook = hook;
}

void Scheduler::set_abandon_hook(void (*hook)()) noexcept {
  impl_->abandon_hook = hook;
}

void Scheduler::set_event_observer(std::function<void(const Trace&)> observer) {
  impl_->on_event = std::move(observer);
}

void Scheduler::fail(Outcome outcome, std::string message) {
  Impl& s = *impl_;
  ThreadRec& t = *s.running;
  s.set_own_storage_if_lazy(t);  // it unwinds: the C++ runtime needs the thread's own storage
  s.record_failure(t, outcome, std::move(message));
  if (!s.aborting) {
    s.stop(t);
    s.switch_to_scheduler(t);  // resumed only to be unwound
  }
  throw ExecutionAborted{};
}

void Scheduler::stop_spinning(std::function<bool()> released) {
  Impl& s = *impl_;
  ThreadRec& t = *s.running;
  s.set_own_storage_if_lazy(t);  // it unwinds, as after fail()
  if (!s.aborting) {
    t.spin_released = std::move(released);
    s.waiting.erase(t.id);
    s.spinning.insert(t.id);
    s.switch_to_scheduler(t);  // resumed only to be unwound
  }
  throw ExecutionAborted{};
}

void Scheduler::note_failure(Outcome outcome, std::string message) noexcept {
  try {
    impl_->record_failure(*impl_->running, outcome, std::move(message));
  } catch (...) {
  }
}

bool Scheduler::aborting() const {
  return impl_->aborting;
}

const ThreadRegistry& Scheduler::threads() const {
  return impl_->registry;
}

}  // namespace weft::runtime
