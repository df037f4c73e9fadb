// How a program ends or gives up: exit, abort, assertions, SV-COMP's reach_error and assume,
// and the operations weft does not model.
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

#include "native_runtime.hpp"
#include "real_functions.hpp"
#include "weft/runtime/hooks.h"

using weft::Outcome;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

namespace {

std::string thread_name(NativeRuntime& rt) {
  return "thread " + rt.registry().name(rt.scheduler().self());
}

// The atomic section the calling thread is in (with every access visible) has ended, or ends
// the process: its event records what it read and wrote.
void record_section_footprint(NativeRuntime& rt) {
  if (rt.self().section.known) rt.scheduler().record_footprint(rt.self().section);
}

// Ends the process. Inside an atomic section (a failed assume in a __VERIFIER_atomic_*
// function, say) the section's event first records what it read to decide so.
[[noreturn]] void end_process(NativeRuntime& rt, int status, Outcome outcome, std::uint64_t site) {
  if (rt.self().atomic_depth > 0) record_section_footprint(rt);
  rt.note_exit(outcome);
  rt.scheduler().end_process(status, outcome, site);
}

}  // namespace

extern "C" {

// exit() from any thread ends the process: a visible operation that cuts off every thread (the
// scheduler runs it once no other thread can run).
void exit(int status) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) {
    WEFT_REAL(exit, status);
    __builtin_unreachable();
  }
  end_process(*rt, status, Outcome::kComplete, WEFT_CALLER_SITE());
}

void _exit(int status) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) {
    WEFT_REAL(_exit, status);
    __builtin_unreachable();
  }
  end_process(*rt, status, Outcome::kComplete, WEFT_CALLER_SITE());
}

void _Exit(int status) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) {
    WEFT_REAL(_Exit, status);
    __builtin_unreachable();
  }
  end_process(*rt, status, Outcome::kComplete, WEFT_CALLER_SITE());
}

// abort() on its own discards the execution (SV-COMP: a path the program rules out); a failed
// assert is reported by __assert_fail before it would abort.
void abort(void) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) {
    WEFT_REAL(abort);
    __builtin_unreachable();
  }
  end_process(*rt, 134, Outcome::kDiscarded, WEFT_CALLER_SITE());
}

void __assert_fail(const char* assertion, const char* file, unsigned int line,
                   const char* function) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) {
    WEFT_REAL(__assert_fail, assertion, file, line, function);
    __builtin_unreachable();
  }
  // The message's strings are weft's: neither the program's heap nor its frees (operations).
  RuntimeScope scope(*rt);
  rt->fail(Outcome::kAssertionFailure, thread_name(*rt) + ": assertion `" + assertion +
                                           "' failed at " + file + ":" + std::to_string(line) +
                                           " in " + function);
}

// The pass calls this at the entry of a program's own reach_error().
void __weft_reach_error(void) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return;
  RuntimeScope scope(*rt);
  rt->fail(Outcome::kAssertionFailure, thread_name(*rt) + ": reach_error() was called");
}

// For programs that only declare reach_error (weak: the program's own definition wins).
__attribute__((weak)) void reach_error(void) {
  __weft_reach_error();
  WEFT_REAL(abort);
  __builtin_unreachable();
}

void __VERIFIER_error(void) {
  reach_error();
}

// An assumption on a value computed from inputs is a path constraint (BranchKind::kAssume): the
// side where it holds is what the strategies look for when it fails.
static void assume(void* self, int condition, std::uint64_t site) {
  const weft::symbolic::ExprId e =
      WEFT_SYM_ARGUMENTS_FOR == self ? WEFT_SYM_ARGUMENTS[0] : weft::symbolic::kConcrete;
  WEFT_SYM_ARGUMENTS_FOR = nullptr;
  if (e != weft::symbolic::kConcrete) {
    if (NativeRuntime* rt = NativeRuntime::for_hook()) {
      RuntimeScope scope(*rt);
      auto& pool = rt->scheduler().expressions();
      rt->scheduler().record_branch(pool.is_nonzero(e), condition != 0, weft::BranchKind::kAssume,
                                    site);
    }
  }
  if (condition) return;
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) WEFT_REAL(exit, 0);
  end_process(*rt, 0, Outcome::kDiscarded, site);
}

void __VERIFIER_assume(int condition) {
  assume(reinterpret_cast<void*>(&__VERIFIER_assume), condition, WEFT_CALLER_SITE());
}

void weft_assume(int condition) {
  assume(reinterpret_cast<void*>(&weft_assume), condition, WEFT_CALLER_SITE());
}

// ---- atomic sections: __VERIFIER_atomic_* functions and begin/end blocks ---------------------

// With every access a scheduling point, a section is one visible operation, and the accesses
// inside it are not scheduling points: no other thread can run in between. They are collected
// into the section's footprint, recorded when it ends, so that it depends on what touches the
// same memory; a section that fails or ends the process inside keeps depending on everything. With
// synchronisation points only, it is a global lock: sections exclude each other, and order the
// race detector's happens-before like a mutex.
void __weft_atomic_begin(void) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return;
  RuntimeScope scope(*rt);
  if (rt->self().atomic_depth++ > 0) return;
  const bool every_access = rt->options().every_access;
  rt->scheduler().perform(
      weft::Operation{every_access ? weft::OpKind::kAtomicSection : weft::OpKind::kMutexLock, 0, 0,
                      every_access ? 0 : weft::runtime::native::kAtomicSectionKey, 0},
      WEFT_CALLER_SITE());
  rt->self().section = weft::Footprint{};
  rt->self().section.known = every_access;
}

void __weft_atomic_end(void) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return;
  RuntimeScope scope(*rt);
  if (--rt->self().atomic_depth > 0) return;
  if (rt->options().every_access) {
    record_section_footprint(*rt);
    return;
  }
  rt->scheduler().perform(weft::Operation{weft::OpKind::kMutexUnlock, 0, 0,
                                          weft::runtime::native::kAtomicSectionKey, 0},
                          WEFT_CALLER_SITE());
}

void __VERIFIER_atomic_begin(void) {
  __weft_atomic_begin();
}
void __VERIFIER_atomic_end(void) {
  __weft_atomic_end();
}

// ---- what weft does not model: the run stops with an error that names it --------------------

int pthread_cancel(pthread_t thread) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_cancel, thread);
  RuntimeScope scope(*rt);
  rt->unsupported("pthread_cancel");
}

pid_t fork(void) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(fork);
  RuntimeScope scope(*rt);
  rt->unsupported("fork");
}

sem_t* sem_open(const char* name, int flags, ...) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) {
    // Named semaphores take (mode, value) when created; pass them through.
    va_list args;
    va_start(args, flags);
    const mode_t mode = va_arg(args, mode_t);
    const unsigned int value = va_arg(args, unsigned int);
    va_end(args);
    return WEFT_REAL(sem_open, name, flags, mode, value);
  }
  rt->unsupported("sem_open (named semaphores)");
}

}  // extern "C"
