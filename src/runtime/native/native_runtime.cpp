#include "native_runtime.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>

#include "../fiber.hpp"
#include "local_state.hpp"
#include "memory_description.hpp"
#include "memory_errors.hpp"
#include "thread_storage.hpp"
#include "unseen_libraries.hpp"
#include "weft/runtime/hooks.h"
#include "weft/trace/wire.hpp"

extern "C" void* __libc_malloc(std::size_t);
extern "C" void __libc_free(void*);

namespace weft::runtime::native {
namespace {

// Whether threads may resume without their thread pointer set (RunLimits::lazy_thread_pointer):
// every library weft-cc built asks for it where it needs it, and no sanitizer runtime keeps
// state of its own there. WEFT_EAGER_THREAD_POINTER=1 sets it at every switch (for comparing).
extern "C" void __asan_init() __attribute__((weak));
bool lazy_thread_pointer_allowed() {
  const char* eager = std::getenv("WEFT_EAGER_THREAD_POINTER");
  if (eager && *eager == '1') return false;
  return &__asan_init == nullptr && libraries_ask_for_thread_pointer();
}

// pthread_t values handed to the program: recognisable, never 0, never a real pthread address.
constexpr std::uintptr_t kHandleBase = 0x7ef700000000ULL;
// Program threads get 8 MiB stacks (as pthreads do by default), placed by thread name so that
// addresses of stack variables repeat across executions (POET §4.3).
constexpr std::size_t kStackBytes = std::size_t{8} << 20;
// The region is in what AddressSanitizer calls high memory (above 0x10007fff8000), as are the
// thread heaps (thread_heap.cpp): below it lies its shadow, reserved when a program built by
// weft-cc -fsanitize=address starts (docs/sanitizers.md).
constexpr std::uintptr_t kStackRegion = 0x400000000000ULL;

}  // namespace

NativeRuntime::NativeRuntime(const NativeOptions& options, weft::native::LogWriter* log)
    : options_(options), log_(log), scheduler_(registry_) {
  thread_chunks_.resize((options.max_threads + 2 + kThreadChunk - 1) / kThreadChunk);
  scheduler_.set_channels(&channels_);
  // An access that ends the execution logs what it took first (TestDirective::sources).
  scheduler_.set_abandon_hook([] {
    if (NativeRuntime* rt = active()) rt->log_choice();
  });
}

std::uintptr_t NativeRuntime::stack_region_begin() {
  return kStackRegion;
}
std::uintptr_t NativeRuntime::stack_region_end() {
  return kStackRegion + RunLimits::stack_region_bytes(kStackBytes);
}
std::uintptr_t NativeRuntime::stack_slot_bytes() {
  return RunLimits::stack_region_bytes(kStackBytes) / RunLimits::kStackSlots;
}

std::uint8_t* NativeRuntime::mapped_stack_slots() {
  // Mapped the first time, which a worker makes before it snapshots its memory: the pointer is
  // then part of the snapshot, and the bytes survive every restore, which writes back private
  // mappings only (MemorySnapshot), hence a shared one (no other process maps it).
  static std::uint8_t* slots = [] {
    // The slots' bytes, then each slot's pages used (Fiber::clear_used_stack).
    void* m = mmap(nullptr, 2 * RunLimits::kStackSlots, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? nullptr : static_cast<std::uint8_t*>(m);
  }();
  return slots;
}

void NativeRuntime::clear_used_stacks() {
  std::uint8_t* slots = mapped_stack_slots();
  if (!slots) return;
  const std::uintptr_t stride = stack_slot_bytes();
  // Eight slots at a time: most are unused, and most used ones were cleared already.
  constexpr std::uint64_t kEach = 0x0101010101010101ULL;
  static_assert(RunLimits::kSlotStackMapped == 1 && RunLimits::kSlotStackCleared == 4);
  for (std::uintptr_t first = 0; first < RunLimits::kStackSlots; first += 8) {
    std::uint64_t eight;
    std::memcpy(&eight, slots + first, sizeof eight);
    if ((eight & kEach & ~(eight >> 2)) == 0) continue;  // none mapped and not cleared
    for (std::uintptr_t slot = first; slot < first + 8; ++slot) {
      if ((slots[slot] & (RunLimits::kSlotStackMapped | RunLimits::kSlotStackCleared)) !=
          RunLimits::kSlotStackMapped)
        continue;
      Fiber::clear_used_stack(kStackRegion + slot * stride, kStackBytes,
                              slots[RunLimits::kStackSlots + slot]);
      slots[slot] |= RunLimits::kSlotStackCleared;
    }
  }
}

ThreadHeap* NativeRuntime::program_heap(std::uint32_t& slot) {
  const ThreadId id = scheduler_.self();
  if (id == kNoThread) return nullptr;
  NativeThread& t = thread(id);
  if (t.in_runtime) return nullptr;
  if (!t.has_heap_slot) {
    // By name, probing past regions that other threads of this execution took. A long name
    // (threads nested deeply) is allocated: that allocation is weft's, not the program's.
    ++t.in_runtime;
    std::uint32_t s =
        static_cast<std::uint32_t>(std::hash<std::string>{}(registry_.name(id)) % 4096);
    --t.in_runtime;
    while (heap_slots_used_[s / 64] & (std::uint64_t{1} << (s % 64))) s = (s + 1) % 4096;
    heap_slots_used_[s / 64] |= std::uint64_t{1} << (s % 64);
    t.heap_slot = s;
    t.has_heap_slot = true;
  }
  slot = t.heap_slot;
  return &t.heap;
}

std::vector<std::uint32_t> NativeRuntime::heap_slots() const {
  std::vector<std::uint32_t> slots;
  for (std::uint32_t s = 0; s < 4096; ++s)
    if (heap_slots_used_[s / 64] & (std::uint64_t{1} << (s % 64))) slots.push_back(s);
  return slots;
}

NativeRuntime::~NativeRuntime() {
  if (active_ == this) active_ = nullptr;
  for (NativeThread* chunk : thread_chunks_) {
    if (!chunk) continue;
    for (std::size_t i = 0; i < kThreadChunk; ++i) chunk[i].~NativeThread();
    __libc_free(chunk);
  }
}

NativeThread& NativeRuntime::new_thread_chunk(ThreadId id) {
  const std::size_t c = id / kThreadChunk;
  if (c >= thread_chunks_.size()) std::abort();  // the thread bound keeps ids below it
  if (!thread_chunks_[c]) {
    // Entries in chunks that never move, so that references stay valid; from the C library,
    // since the interposed malloc would ask for the running thread's entry and might take the
    // memory from the program's heap. Chunks rather than one block for the thread bound: the
    // block would be large enough for glibc to map it, once per execution.
    void* m = __libc_malloc(sizeof(NativeThread) * kThreadChunk);
    if (!m) std::abort();
    auto* chunk = static_cast<NativeThread*>(m);
    for (std::size_t i = 0; i < kThreadChunk; ++i) {
      new (&chunk[i]) NativeThread();
      chunk[i].clears_dead_stack = options_.local_states;
    }
    thread_chunks_[c] = chunk;
  }
  return thread_chunks_[c][id % kThreadChunk];
}

std::unordered_map<pthread_key_t, void (*)(void*)>& NativeRuntime::key_destructors() {
  // Never destroyed, so that no exit handler is registered for it: AddressSanitizer creates a
  // key while it initialises, before any constructor runs, and then refuses atexit.
  static auto& table = *new std::unordered_map<pthread_key_t, void (*)(void*)>;
  return table;
}

pthread_t NativeRuntime::handle_of(ThreadId id) {
  return kHandleBase + id;
}

ThreadId NativeRuntime::thread_of(pthread_t handle) {
  if (handle < kHandleBase || handle >= kHandleBase + (1u << 24)) return kNoThread;
  return static_cast<ThreadId>(handle - kHandleBase);
}

void NativeRuntime::fail(Outcome outcome, const std::string& message) {
  RuntimeScope scope(*this);
  if (break_on_bug) asm volatile("int3");  // weft replay --gdb: stop here, in the failing thread
  scheduler_.fail(outcome, message);
}

void NativeRuntime::unsupported(const char* what) {
  RuntimeScope scope(*this);
  scheduler_.fail(Outcome::kUnsupported, "the program called " + std::string(what) + " (thread " +
                                             registry_.name(scheduler_.self()) +
                                             "), which weft does not model");
}

Trace NativeRuntime::run(const TestDirective& directive, int argc, char** argv, char** envp) {
  active_ = this;
  logged_ = 0;
  logged_weak_steps_ = 0;
  logged_taken_stores_ = 0;
  values_.clear();
  if (options_.record_values) values_.reserve(directive.prefix.size() + 64);  // as the trace's
  runtime_state_read_ = false;
  noted_caveats_.clear();
  weak_atomic_sites_noted_ = 0;
  channels_.reset();
  for (const std::string& library : libraries_with_unseen_synchronisation())
    note_caveat(weft::CaveatKind::kUnseenLibrary, library);
  symbolic_logged_ = {};
  shadow_.clear();
  __weft_sym_memory = 0;
  __weft_sym_enabled = directive.track_inputs ? 1 : 0;
  __weft_sym_arguments_for = nullptr;
  __weft_sym_return_for = nullptr;
  // `pool`: t's expressions, where a value written from inputs adds its own (the scheduler's
  // while it runs, the trace's once it has returned it).
  const auto log_until = [&](const Trace& t, std::size_t end, symbolic::ExpressionPool& pool) {
    if (!log_) return;
    // The values first: one computed from inputs adds its expression to the pool, whose nodes
    // the inputs' record carries. Then inputs and branches: those of a step come before its
    // next event.
    logged_values_.clear();
    bool name_expressions = false;
    for (std::size_t i = logged_; i < end; ++i) {
      logged_values_.push_back(values_of(t, i, false, &pool));
      name_expressions |= logged_values_.back().written_expression != 0;
    }
    if (!t.symbolic.inputs.empty())
      log_->symbolic(t.symbolic, symbolic_logged_, registry_, name_expressions);
    for (std::size_t k = 0; logged_ < end; ++logged_, ++k)
      log_->event(t, logged_, registry_, logged_values_[k]);
  };
  scheduler_.set_event_observer([&](const Trace& t) {
    current_trace_ = &t;
    // With every access an event, nothing is checked for races: the clocks would go unused.
    // Plain accesses (race-directed scheduling points) do not synchronise: they are checked,
    // not taken as happens-before.
    const OpKind kind = t.events.back().op.kind;
    if (!options_.every_access && kind != OpKind::kRead && kind != OpKind::kWrite &&
        kind != OpKind::kFree)
      races_.on_event(t.events.back());
    // A step in a library (std::thread's constructor creating the thread, libstdc++'s
    // condition_variable::wait): the program's line that called into it, for reports.
    if (log_) {
      std::uint64_t callers[kProgramCallers];
      if (const std::size_t n =
              program_callers(*this, t.events.back().thread, t.sites.back(), callers))
        log_->library_call(t.events.size() - 1, {callers, n});
    }
    // The event's thread ended its segment when it came to the event; the next begins now
    // (a new thread's first begins as it starts, inside the creation).
    if (options_.segments) {
      const ThreadId id = t.events.back().thread;
      end_segment(id);
      thread(id).segment.start(static_cast<std::uint32_t>(t.events.size() - 1));
    }
    // Records lag one event behind: an event's "finished its thread" mark is known only when its
    // thread has run on to the next one.
    if (t.events.size() >= 2) log_until(t, t.events.size() - 1, scheduler_.expressions());
  });
  RunLimits limits;
  limits.max_steps_per_thread = options_.max_steps_per_thread;
  limits.memory_model =
      parse_memory_model(options_.memory_model).value_or(MemoryModel::kSequentialConsistency);
  races_.follow_rc11(limits.memory_model == MemoryModel::kRc11 ? &scheduler_ : nullptr);
  // The process exits or restores its memory right after: destructors must not run.
  limits.unwind_at_end = false;
  limits.stack_bytes = kStackBytes;
  limits.stack_region = kStackRegion;
  limits.adopt_placed_stacks = options_.in_worker;
  if (options_.in_worker) limits.mapped_stack_slots = mapped_stack_slots();
  if (GlibcThreadStorage::instance().available())
    limits.thread_storage = &GlibcThreadStorage::instance();
  if (options_.local_states) limits.local_state = local_state_hash;
  limits.lazy_thread_pointer = lazy_thread_pointer_allowed();
  start_signals(*this);
  Trace trace = scheduler_.run(
      directive,
      [&] {
        int status = 0;
        try {
          if (options_.local_states) clear_dead_stack();
          status = call_program_main(__weft_main, argc, argv, envp, &self().stack_base);
        } catch (const ThreadExit&) {
          self().stack_base = 0;  // unwound past the program's frames
          return;                 // pthread_exit in main: the other threads run on
        }
        scheduler_.end_process(status, Outcome::kComplete);
      },
      limits);
  // The segments of the threads still there (blocked, or cut off at the end).
  if (options_.segments)
    for (ThreadId id = 0; id < registry_.size(); ++id) end_segment(id);
  channels_.end_execution();
  current_trace_ = nullptr;
  explain_blocked_signals(*this, trace);
  explain_outside_waits(*this, trace);
  // Leaks are what is allocated when the program ends normally: also after data races, which
  // stop no thread, but not after a bug that stopped one, nor in an execution cut short.
  const bool ended = !trace.events.empty() && trace.events.back().op.kind == OpKind::kProcessExit &&
                     exit_outcome_ == Outcome::kComplete;
  const bool only_races =
      std::all_of(trace.failures.begin(), trace.failures.end(),
                  [](const Failure& f) { return f.outcome == Outcome::kDataRace; });
  if (options_.leaks && ended && only_races) report_leaks(*this, trace);
  log_until(trace, trace.events.size(), trace.symbolic.expressions);
  trace.runtime_state_read = runtime_state_read_;
  active_ = nullptr;
  return trace;
}

void NativeRuntime::note_input() {
  if (noted_input_ || !log_) return;
  noted_input_ = true;
  RuntimeScope scope(*this);
  log_->text(weft::native::Record::kInputs, "fixed");
}

void NativeRuntime::note_unrestored(const char* what) {
  if (!log_ || !options_.in_worker) return;  // a fresh child per execution starts clean anyway
  for (const char* noted : noted_unrestored_)
    if (noted == what) return;
  RuntimeScope scope(*this);
  noted_unrestored_.push_back(what);
  log_->text(weft::native::Record::kUnrestored, what);
}

void NativeRuntime::note_caveat(weft::CaveatKind kind, const std::string& what) {
  if (!log_) return;
  // A few places of each kind say what happened; more would only lengthen every log.
  constexpr std::size_t kPerKind = 4;
  std::size_t of_kind = 0;
  for (const weft::Caveat& noted : noted_caveats_) {
    if (noted.kind != kind) continue;
    if (noted.what == what || ++of_kind == kPerKind) return;
  }
  // On a program thread, what weft allocates here is its own; before one runs, it is anyway.
  if (scheduler_.self() != kNoThread) {
    RuntimeScope scope(*this);
    noted_caveats_.push_back(weft::Caveat{kind, what});
  } else {
    noted_caveats_.push_back(weft::Caveat{kind, what});
  }
  log_->caveat(kind, what);
}

void NativeRuntime::note_weak_atomic(std::uint64_t site, bool library) {
  if (weak_atomic_sites_noted_ == weak_atomic_sites_.size()) return;
  for (std::size_t i = 0; i < weak_atomic_sites_noted_; ++i)
    if (weak_atomic_sites_[i] == site) return;
  weak_atomic_sites_[weak_atomic_sites_noted_++] = site;
  RuntimeScope scope(*this);  // the text is weft's allocation, not the program's
  note_caveat(library ? weft::CaveatKind::kLibraryAtomics : weft::CaveatKind::kWeakAtomics,
              weft::code_mark(site));
}

void NativeRuntime::log_choice() {
  if (!log_ || !current_trace_) return;
  const Trace& t = *current_trace_;
  for (; logged_weak_steps_ < t.weak_steps.size(); ++logged_weak_steps_)
    log_->weak_step(t.weak_steps[logged_weak_steps_]);
  for (; logged_taken_stores_ < t.taken_stores.size(); ++logged_taken_stores_)
    log_->taken_store(t.taken_stores[logged_taken_stores_]);
  if (t.events.empty()) return;
  const std::size_t step = t.events.size() - 1;
  if (step < t.graph.size() && t.graph[step].kind != Trace::GraphAccess::Kind::kNone)
    log_->graph_access(static_cast<std::uint32_t>(step), t.graph[step]);
  if (step >= t.options.size() || t.options[step] < 2) return;
  const bool older = !t.older_stores.empty() && t.older_stores.back().step == step;
  log_->choice(step, t.choices[step], t.options[step], older ? &t.older_stores.back() : nullptr);
}

void NativeRuntime::flush_log() {
  if (!log_) return;
  // The inputs and branches since the last event too (even before the first): a thread that
  // crashes right after a branch on an input took it, and the explorer needs it to know the
  // crash's path (without it, the test that flipped the branch looks as if it had diverged).
  if (const InputObservations& seen = scheduler_.inputs_observed(); !seen.inputs.empty())
    log_->symbolic(seen, symbolic_logged_, registry_);
  if (!current_trace_) return;
  for (; logged_ < current_trace_->events.size(); ++logged_)
    log_->event(*current_trace_, logged_, registry_, values_of(*current_trace_, logged_, true));
}

void NativeRuntime::begin_segment() {
  if (!options_.segments || !current_trace_ || current_trace_->events.empty()) return;
  self().segment.start(static_cast<std::uint32_t>(current_trace_->events.size() - 1));
}

void NativeRuntime::end_segment(ThreadId id) {
  SegmentRecorder& segment = thread(id).segment;
  if (!options_.segments || !segment.open()) return;
  const auto close = [&] {
    segment_accesses_.clear();
    const bool nothing = segment.said_nothing();
    const Segment s = segment.close(id, segment_accesses_);
    if (!nothing && log_) log_->segment(s, segment_accesses_, registry_);
  };
  // On a program thread, what weft allocates here is its own; in the scheduler, it is anyway.
  if (scheduler_.self() != kNoThread) {
    RuntimeScope scope(*this);
    close();
  } else {
    close();
  }
}

void NativeRuntime::note_value_read(const void* addr, std::uint64_t size) {
  if (!current_trace_ || current_trace_->events.empty() || size > 8) return;
  const std::size_t index = current_trace_->events.size() - 1;
  const Event& e = current_trace_->events[index];
  // Only the event this thread just ran: the value is what its access will see.
  if (e.thread != scheduler_.self() || !reads_value(e.op.kind) ||
      e.op.object != reinterpret_cast<ObjectKey>(addr))
    return;
  std::uint64_t value = 0;
  probe_site_ = current_trace_->sites[index];
  std::memcpy(&value, addr, size);
  probe_site_ = 0;
  note_value_received(value);
}

void NativeRuntime::note_value_received(std::uint64_t value) {
  if (!current_trace_ || current_trace_->events.empty() || !options_.record_values) return;
  const std::size_t index = current_trace_->events.size() - 1;
  if (current_trace_->events[index].thread != scheduler_.self()) return;
  if (values_.size() <= index) values_.resize(index + 1);
  values_[index].read = value;
  values_[index].known |= AccessValues::kRead;
}

AccessValues NativeRuntime::values_of(const Trace& t, std::size_t index, bool dying,
                                      symbolic::ExpressionPool* pool) {
  AccessValues v = index < values_.size() ? values_[index] : AccessValues{};
  if (!options_.record_values || dying) return v;
  const Event& e = t.events[index];
  // The event's thread has run on to its next operation (or its end): its store is done, and
  // no other thread has run since.
  if (writes_value(e.op.kind) && e.op.size <= 8 && e.op.size > 0) {
    std::uint64_t value = 0;
    probe_site_ = t.sites[index];
    std::memcpy(&value, reinterpret_cast<const void*>(e.op.object), e.op.size);
    probe_site_ = 0;
    v.written = value;
    v.known |= AccessValues::kWritten;
    // Input-dependent bytes have shadow expressions (symbolic_hooks.cpp): the value is this
    // execution's only; its expression, byte by byte, little-endian.
    for (std::uint32_t i = 0; i < e.op.size && !shadow_.empty(); ++i)
      if (shadow_.count(e.op.object + i)) {
        v.known |= AccessValues::kWrittenFromInputs;
        break;
      }
    if ((v.known & AccessValues::kWrittenFromInputs) && pool) {
      symbolic::ExprId expression = symbolic::kConcrete;
      for (std::uint32_t i = e.op.size; i-- > 0;) {
        const auto it = shadow_.find(e.op.object + i);
        const symbolic::ExprId byte =
            it != shadow_.end() ? it->second : pool->constant(8, value >> (8 * i) & 0xff);
        expression = expression == symbolic::kConcrete ? byte : pool->concat(expression, byte);
      }
      v.written_expression = expression;
    }
  }
  return v;
}

}  // namespace weft::runtime::native
