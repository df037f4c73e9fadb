// OpenMP's lock routines (omp_lock_t, omp_nest_lock_t). In a controlled execution a lock is the
// weft mutex keyed by the lock's address, a nestable one counts its re-acquisitions as recursive
// pthread mutexes do; in a plain run the lock holds a C library mutex made by omp_init_*lock.
#include "openmp.hpp"

using weft::Operation;
using weft::OpKind;
using weft::runtime::native::key_of;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;
using weft::runtime::native::openmp::controlled;

namespace {

// omp.h's omp_lock_t and omp_nest_lock_t: one pointer, which libomp points at its lock.
struct OmpLock {
  void* impl;
};

// A plain run's nestable lock: a recursive mutex and how often its owner holds it.
struct PlainNestLock {
  pthread_mutex_t mutex;
  int depth = 0;
};

std::uint8_t perform(NativeRuntime& rt, OpKind kind, OmpLock* lock, std::uint64_t site) {
  return rt.scheduler().perform(Operation{kind, 0, 0, key_of(lock), 0}, site);
}

[[noreturn]] void missing(NativeRuntime& rt, const char* routine) {
  RuntimeScope scope(rt);  // the message is weft's, not the program's heap
  rt.fail(weft::Outcome::kMisuse,
          std::string(routine) + " on a lock the thread does not hold (OpenMP: undefined)");
}

}  // namespace

extern "C" {

void omp_init_lock(OmpLock* lock) {
  if (controlled()) {
    lock->impl = nullptr;
    return;
  }
  auto* m = new pthread_mutex_t;
  pthread_mutex_init(m, nullptr);
  lock->impl = m;
}

void omp_init_lock_with_hint(OmpLock* lock, int) {
  omp_init_lock(lock);
}

void omp_destroy_lock(OmpLock* lock) {
  if (controlled()) return;
  delete static_cast<pthread_mutex_t*>(lock->impl);
  lock->impl = nullptr;
}

void omp_set_lock(OmpLock* lock) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  if (NativeRuntime* rt = controlled()) {
    RuntimeScope scope(*rt);
    perform(*rt, OpKind::kMutexLock, lock, site);  // by its owner: a deadlock, as OpenMP says
    return;
  }
  pthread_mutex_lock(static_cast<pthread_mutex_t*>(lock->impl));
}

void omp_unset_lock(OmpLock* lock) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  if (NativeRuntime* rt = controlled()) {
    RuntimeScope scope(*rt);
    if (rt->scheduler().mutex_owner(key_of(lock)) != rt->scheduler().self())
      missing(*rt, "omp_unset_lock");
    perform(*rt, OpKind::kMutexUnlock, lock, site);
    return;
  }
  pthread_mutex_unlock(static_cast<pthread_mutex_t*>(lock->impl));
}

int omp_test_lock(OmpLock* lock) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  if (NativeRuntime* rt = controlled()) {
    RuntimeScope scope(*rt);
    if (rt->scheduler().mutex_owner(key_of(lock)) == rt->scheduler().self()) return 0;
    return perform(*rt, OpKind::kMutexTryLock, lock, site);
  }
  return pthread_mutex_trylock(static_cast<pthread_mutex_t*>(lock->impl)) == 0;
}

void omp_init_nest_lock(OmpLock* lock) {
  if (controlled()) {
    lock->impl = nullptr;
    return;
  }
  auto* l = new PlainNestLock;
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&l->mutex, &attr);
  pthread_mutexattr_destroy(&attr);
  lock->impl = l;
}

void omp_init_nest_lock_with_hint(OmpLock* lock, int) {
  omp_init_nest_lock(lock);
}

void omp_destroy_nest_lock(OmpLock* lock) {
  if (controlled()) return;
  delete static_cast<PlainNestLock*>(lock->impl);
  lock->impl = nullptr;
}

void omp_set_nest_lock(OmpLock* lock) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  if (NativeRuntime* rt = controlled()) {
    RuntimeScope scope(*rt);
    if (rt->scheduler().mutex_owner(key_of(lock)) == rt->scheduler().self())
      ++rt->recursion()[key_of(lock)];
    else
      perform(*rt, OpKind::kMutexLock, lock, site);
    return;
  }
  auto* l = static_cast<PlainNestLock*>(lock->impl);
  pthread_mutex_lock(&l->mutex);
  ++l->depth;
}

void omp_unset_nest_lock(OmpLock* lock) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  if (NativeRuntime* rt = controlled()) {
    RuntimeScope scope(*rt);
    if (rt->scheduler().mutex_owner(key_of(lock)) != rt->scheduler().self())
      missing(*rt, "omp_unset_nest_lock");
    auto& depth = rt->recursion()[key_of(lock)];
    if (depth > 0)
      --depth;
    else
      perform(*rt, OpKind::kMutexUnlock, lock, site);
    return;
  }
  auto* l = static_cast<PlainNestLock*>(lock->impl);
  --l->depth;
  pthread_mutex_unlock(&l->mutex);
}

// Returns how often the thread now holds the lock, 0 if another thread holds it.
int omp_test_nest_lock(OmpLock* lock) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  if (NativeRuntime* rt = controlled()) {
    RuntimeScope scope(*rt);
    if (rt->scheduler().mutex_owner(key_of(lock)) == rt->scheduler().self())
      return static_cast<int>(++rt->recursion()[key_of(lock)]) + 1;
    return perform(*rt, OpKind::kMutexTryLock, lock, site) ? 1 : 0;
  }
  auto* l = static_cast<PlainNestLock*>(lock->impl);
  if (pthread_mutex_trylock(&l->mutex) != 0) return 0;
  return ++l->depth;
}

}  // extern "C"
