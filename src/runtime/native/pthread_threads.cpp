// Interposed thread functions: create, join, detach, exit, self, once, keys, yields.
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/single_threaded.h>
#include <time.h>
#include <unistd.h>

#include <mutex>

#include "code_modules.hpp"
#include "glibc_thread_state.hpp"
#include "local_state.hpp"
#include "native_runtime.hpp"
#include "real_functions.hpp"
#include "sanitizer_key.hpp"
#include "thread_storage.hpp"

using weft::Operation;
using weft::OpKind;
using weft::runtime::native::is_sanitizer_key;
using weft::runtime::native::key_of;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::returns_to_weft_code;
using weft::runtime::native::RuntimeScope;
using weft::runtime::native::sanitizer_key_value;
using weft::runtime::native::ThreadExit;

namespace {

void yield_point(NativeRuntime& rt, std::uint64_t site) {
  rt.scheduler().perform(Operation{OpKind::kYield}, site);
}

// Runs the destructors of a finishing thread's keys (POSIX: repeatedly while values remain).
void run_key_destructors(NativeRuntime& rt);

// The code a new thread starts at, for thread symmetry. std::thread starts every thread at one
// routine of libstdc++'s, whose argument is the callable's state object: its dynamic type (its
// first word, the vtable) tells the kinds of thread apart.
std::uint64_t start_routine_key(void* (*start)(void*), void* arg) {
  using weft::runtime::native::module_offset;
  const auto code = module_offset(reinterpret_cast<const void*>(start));
  if (!code.offset || !code.libstdcxx || !arg) return code.offset;
  return code.offset * 0x9e3779b97f4a7c15u ^ module_offset(*static_cast<void* const*>(arg)).offset;
}

}  // namespace

namespace weft::runtime::native {

ThreadId create_thread(NativeRuntime& rt, const pthread_attr_t* attr, void* (*start)(void*),
                       void* arg, std::uint64_t site, bool lazily) {
  if (rt.threads_created() >= rt.options().max_threads) {
    rt.scheduler().fail(weft::Outcome::kBoundReached, "the execution reached the bound of " +
                                                          std::to_string(rt.options().max_threads) +
                                                          " threads (--max-threads)");
  }
  rt.count_thread();
  // It marks the thread control block %fs names: the creator's own, which code weft compiled
  // does not ask for before it calls pthread_create (lazy_thread_pointer_calls.hpp).
  if (__libc_single_threaded) weft::runtime::Scheduler::sync_thread_pointer(false);
  mark_process_multithreaded();
  int detach = PTHREAD_CREATE_JOINABLE;
  if (attr) pthread_attr_getdetachstate(attr, &detach);
  // The new thread's identity (name, scheduling, affinity) is its creator's, set up here: the
  // new thread runs at once and sets it before its own code runs, with no call that would
  // leave anything on its stack.
  const ThreadIdentity identity = identity_for_child(rt, rt.scheduler().self(), attr);
  NativeRuntime* runtime = &rt;
  const sigset_t signal_mask = rt.self().signal_mask;  // as pthread_create gives it
  rt.self().creating_argument = reinterpret_cast<std::uintptr_t>(arg);
  const ThreadId id = rt.scheduler().spawn(
      [runtime, start, arg, identity, signal_mask, lazily] {
        runtime->begin_segment();
        runtime->self().identity = identity;
        runtime->self().signal_mask = signal_mask;
        void* result = nullptr;
        try {
          if (runtime->options().local_states) clear_dead_stack();
          // The new thread ran only weft's code so far; code weft did not compile does not ask
          // for its storage.
          if (lazily && !in_executable_code(reinterpret_cast<const void*>(start)))
            weft::runtime::Scheduler::sync_thread_pointer();
          result = call_start_routine(start, arg, &runtime->self().stack_base);
        } catch (const ThreadExit& e) {
          result = e.result;
          runtime->self().stack_base = 0;  // unwound past the program's frames
        }
        runtime->self().result = result;
        // As glibc's thread exit does: thread_local objects first, then pthread keys.
        run_thread_local_destructors();
        run_key_destructors(*runtime);
        runtime->end_segment(runtime->scheduler().self());
      },
      site, start_routine_key(start, arg), lazily);
  rt.thread(id).detached = detach == PTHREAD_CREATE_DETACHED;
  return id;
}

}  // namespace weft::runtime::native

extern "C" {

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                   void* arg) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_create, thread, attr, start, arg);
  RuntimeScope scope(*rt);
  const std::uint64_t site = WEFT_CALLER_SITE();
  const weft::ThreadId id = weft::runtime::native::create_thread(*rt, attr, start, arg, site,
                                                                 returns_to_weft_code(*rt, site));
  *thread = NativeRuntime::handle_of(id);
  return 0;
}

int pthread_join(pthread_t thread, void** result) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_join, thread, result);
  RuntimeScope scope(*rt);
  const weft::ThreadId id = NativeRuntime::thread_of(thread);
  if (id == weft::kNoThread || id >= rt->registry().size()) return ESRCH;
  if (id == rt->scheduler().self()) return EDEADLK;
  if (rt->thread(id).detached) return EINVAL;
  const std::uint64_t site = WEFT_CALLER_SITE();
  rt->scheduler().perform(Operation{OpKind::kThreadJoin, 0, 0, id, 0}, site,
                          returns_to_weft_code(*rt, site));
  if (result) {
    *result = rt->thread(id).result;
    // What the joining thread learns from the joined one (without `result`, only its end).
    rt->note_value_received(reinterpret_cast<std::uint64_t>(*result));
  }
  return 0;
}

int pthread_detach(pthread_t thread) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_detach, thread);
  RuntimeScope scope(*rt);
  const weft::ThreadId id = NativeRuntime::thread_of(thread);
  if (id == weft::kNoThread || id >= rt->registry().size()) return ESRCH;
  rt->thread(id).detached = true;
  rt->note_runtime_state();  // a later join's answer depends on whether this ran before it
  return 0;
}

void pthread_exit(void* result) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) {
    WEFT_REAL(pthread_exit, result);
    __builtin_unreachable();
  }
  throw ThreadExit{result};
}

pthread_t pthread_self(void) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_self);
  RuntimeScope scope(*rt);
  return NativeRuntime::handle_of(rt->scheduler().self());
}

int pthread_equal(pthread_t a, pthread_t b) __THROW {
  return a == b;
}

int pthread_once(pthread_once_t* once, void (*init)(void)) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_once, once, init);
  RuntimeScope scope(*rt);
  // The first caller runs init while the others wait: a lock on the once object orders them.
  const std::uint64_t site = WEFT_CALLER_SITE();
  auto& sched = rt->scheduler();
  sched.perform(Operation{OpKind::kMutexLock, 0, 0, key_of(once), 0}, site);
  rt->note_runtime_state();  // which thread runs the routine: weft's flag, not an event
  bool& done = rt->once_done()[key_of(once)];
  if (!done && *once == PTHREAD_ONCE_INIT) {
    --rt->self().in_runtime;  // init is the program's code
    init();
    ++rt->self().in_runtime;
    done = true;
  }
  sched.perform(Operation{OpKind::kMutexUnlock, 0, 0, key_of(once), 0}, site);
  return 0;
}

// ---- thread-specific data: kept per program thread, since every thread runs on one OS thread --

int pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) __THROW {
  // Keys themselves are the C library's (so that they stay unique across executions); only
  // their values are kept per program thread.
  const int r = WEFT_REAL(pthread_key_create, key, destructor);
  if (r != 0) return r;
  weft::runtime::native::note_key_created(*key);
  if (is_sanitizer_key(*key)) return r;  // no destructor runs for it at a thread's end
  if (NativeRuntime* rt = NativeRuntime::active()) {
    RuntimeScope scope(*rt);
    NativeRuntime::key_destructors()[*key] = destructor;
  } else {
    static std::mutex guard;  // an uncontrolled run may create keys from several threads
    std::lock_guard lock(guard);
    NativeRuntime::key_destructors()[*key] = destructor;
  }
  return r;
}

void* pthread_getspecific(pthread_key_t key) __THROW {
  if (is_sanitizer_key(key)) return sanitizer_key_value();
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_getspecific, key);
  RuntimeScope scope(*rt);
  auto& values = rt->self().specific;
  auto it = values.find(key);
  return it == values.end() ? nullptr : it->second;
}

int pthread_setspecific(pthread_key_t key, const void* value) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (is_sanitizer_key(key)) {
    sanitizer_key_value() = const_cast<void*>(value);
    if (rt) return 0;
  }
  if (!rt) return WEFT_REAL(pthread_setspecific, key, value);
  RuntimeScope scope(*rt);
  rt->self().specific[key] = const_cast<void*>(value);
  return 0;
}

// ---- yields: sleeping is a scheduling point that touches nothing --------------------------

int sched_yield(void) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(sched_yield);
  RuntimeScope scope(*rt);
  yield_point(*rt, WEFT_CALLER_SITE());
  return 0;
}

// A signal whose handler runs meanwhile interrupts them (signals.cpp); they return as the
// kernel's do then, with nothing slept.
unsigned int sleep(unsigned int seconds) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(sleep, seconds);
  RuntimeScope scope(*rt);
  return weft::runtime::native::interruptible_sleep(*rt, WEFT_CALLER_SITE()) ? seconds : 0;
}

int usleep(useconds_t micros) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(usleep, micros);
  RuntimeScope scope(*rt);
  if (weft::runtime::native::interruptible_sleep(*rt, WEFT_CALLER_SITE())) {
    errno = EINTR;
    return -1;
  }
  return 0;
}

int nanosleep(const struct timespec* duration, struct timespec* remaining) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(nanosleep, duration, remaining);
  RuntimeScope scope(*rt);
  if (weft::runtime::native::interruptible_sleep(*rt, WEFT_CALLER_SITE())) {
    if (remaining) *remaining = *duration;
    errno = EINTR;
    return -1;
  }
  if (remaining) *remaining = timespec{0, 0};
  return 0;
}

int clock_nanosleep(clockid_t clock, int flags, const struct timespec* duration,
                    struct timespec* remaining) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(clock_nanosleep, clock, flags, duration, remaining);
  RuntimeScope scope(*rt);
  if (weft::runtime::native::interruptible_sleep(*rt, WEFT_CALLER_SITE())) {
    if (remaining && !(flags & TIMER_ABSTIME)) *remaining = *duration;
    return EINTR;
  }
  return 0;
}

}  // extern "C"

namespace {

void run_key_destructors(NativeRuntime& rt) {
  auto& values = rt.self().specific;
  for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; ++round) {
    bool any = false;
    for (auto& [key, value] : values) {
      if (!value) continue;
      auto it = rt.key_destructors().find(key);
      if (it == rt.key_destructors().end() || !it->second) continue;
      void* v = value;
      value = nullptr;
      // Maybe code weft did not compile: with the thread's own storage, which the thread's last
      // access hook may have left unset (RunLimits::lazy_thread_pointer).
      weft::runtime::Scheduler::sync_thread_pointer();
      it->second(v);
      any = true;
    }
    if (!any) break;
  }
}

}  // namespace
