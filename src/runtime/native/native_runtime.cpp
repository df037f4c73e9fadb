#include "native_runtime.hpp"

#include <csignal>
#include <cstdlib>
#include <functional>

#include "weft/trace/wire.hpp"

extern "C" int __weft_main(int argc, char** argv, char** envp);

namespace weft::runtime::native {
namespace {

// pthread_t values handed to the program: recognisable, never 0, never a real pthread address.
constexpr std::uintptr_t kHandleBase = 0x7ef700000000ULL;
// Program threads get 8 MiB stacks (as pthreads do by default), placed by thread name so that
// addresses of stack variables repeat across executions (POET §4.3).
constexpr std::size_t kStackBytes = std::size_t{8} << 20;
constexpr std::uintptr_t kStackRegion = 0x100000000000ULL;

}  // namespace

NativeRuntime::NativeRuntime(const NativeOptions& options, TraceLog* log)
    : options_(options), log_(log), scheduler_(registry_) {
  // Never reallocated: references to entries stay valid, and creating an entry never calls
  // malloc (which would ask for the running thread's entry).
  threads_.reserve(options.max_threads + 2);
  threads_.resize(1);
}

ThreadHeap* NativeRuntime::program_heap(std::uint32_t& slot) {
  const ThreadId id = scheduler_.self();
  if (id == kNoThread) return nullptr;
  NativeThread& t = thread(id);
  if (t.in_runtime) return nullptr;
  if (!t.has_heap_slot) {
    // By name, probing past regions that other threads of this execution took.
    std::uint32_t s =
        static_cast<std::uint32_t>(std::hash<std::string>{}(registry_.name(id)) % 4096);
    while (heap_slots_used_[s / 64] & (std::uint64_t{1} << (s % 64))) s = (s + 1) % 4096;
    heap_slots_used_[s / 64] |= std::uint64_t{1} << (s % 64);
    t.heap_slot = s;
    t.has_heap_slot = true;
  }
  slot = t.heap_slot;
  return &t.heap;
}

NativeRuntime::~NativeRuntime() {
  if (active_ == this) active_ = nullptr;
}

NativeThread& NativeRuntime::thread(ThreadId id) {
  if (id >= threads_.size()) {
    if (id >= threads_.capacity()) std::abort();  // the thread bound keeps ids below it
    threads_.resize(id + 1);
  }
  return threads_[id];
}

std::unordered_map<pthread_key_t, void (*)(void*)>& NativeRuntime::key_destructors() {
  static std::unordered_map<pthread_key_t, void (*)(void*)> table;
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
  scheduler_.fail(Outcome::kUnsupported, std::string(what) + " is not supported by weft (thread " +
                                             registry_.name(scheduler_.self()) + ")");
}

Trace NativeRuntime::run(const TestDirective& directive, int argc, char** argv, char** envp) {
  active_ = this;
  logged_ = 0;
  const auto log_until = [&](const Trace& t, std::size_t end) {
    for (; log_ && logged_ < end; ++logged_)
      log_->append('E', encode_trace_event(t, logged_, registry_));
  };
  scheduler_.set_event_observer([&](const Trace& t) {
    current_trace_ = &t;
    races_.on_event(t.events.back());
    // Records lag one event behind: an event's "finished its thread" mark is known only when its
    // thread has run on to the next one.
    if (t.events.size() >= 2) log_until(t, t.events.size() - 1);
  });
  RunLimits limits;
  limits.max_steps_per_thread = options_.max_steps_per_thread;
  limits.unwind_at_end = false;  // the child exits right after; destructors must not run
  limits.stack_bytes = kStackBytes;
  limits.stack_region = kStackRegion;
  Trace trace = scheduler_.run(
      directive,
      [&] {
        int status = 0;
        try {
          status = __weft_main(argc, argv, envp);
        } catch (const ThreadExit&) {
          return;  // pthread_exit in main: the other threads run on
        }
        scheduler_.end_process(status, Outcome::kComplete);
      },
      limits);
  current_trace_ = nullptr;
  log_until(trace, trace.events.size());
  active_ = nullptr;
  return trace;
}

void NativeRuntime::note_input() {
  if (noted_input_ || !log_) return;
  noted_input_ = true;
  RuntimeScope scope(*this);
  log_->append('I', "fixed");
}

void NativeRuntime::flush_log() {
  if (!log_ || !current_trace_) return;
  for (; logged_ < current_trace_->events.size(); ++logged_)
    log_->append('E', encode_trace_event(*current_trace_, logged_, registry_));
}

}  // namespace weft::runtime::native
