// Interposed synchronisation: mutexes (normal, recursive, errorcheck), condition variables,
// reader-writer locks, barriers, spinlocks and POSIX semaphores. Each becomes visible operations
// of the scheduler; reader-writer locks and barriers are composed from its mutexes and condition
// variables on the object's address.
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>

#include "native_runtime.hpp"
#include "real_functions.hpp"
#include "rw_lock_model.hpp"
#include "weft/trace/wire.hpp"

using weft::Operation;
using weft::OpKind;
using weft::runtime::native::key_of;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::perform_sync;
using weft::runtime::native::perform_sync_and_return;
using weft::runtime::native::RuntimeScope;
using weft::runtime::native::rw_lock;
using weft::runtime::native::rw_unlock;

namespace {

// glibc keeps a mutex's type in the mutex itself (also for the static initializers).
int mutex_type(const pthread_mutex_t* m) {
  return m->__data.__kind & 3;
}

int lock_mutex(NativeRuntime& rt, pthread_mutex_t* m, OpKind kind, std::uint64_t site) {
  const auto key = key_of(m);
  const weft::ThreadId me = rt.scheduler().self();
  if (rt.scheduler().mutex_owner(key) == me) {
    switch (mutex_type(m)) {
      case PTHREAD_MUTEX_RECURSIVE:
        ++rt.recursion()[key];
        return 0;
      case PTHREAD_MUTEX_ERRORCHECK:
        return EDEADLK;
      default:
        if (kind != OpKind::kMutexLock) return EBUSY;
        break;  // a normal mutex locked twice by its owner deadlocks, as in POSIX
    }
  }
  const std::uint8_t acquired = perform_sync_and_return(rt, kind, m, site);
  if (kind == OpKind::kMutexLock || acquired) return 0;
  return EBUSY;
}

int unlock_mutex(NativeRuntime& rt, pthread_mutex_t* m, std::uint64_t site) {
  const auto key = key_of(m);
  const weft::ThreadId owner = rt.scheduler().mutex_owner(key);
  if (owner == rt.scheduler().self()) {
    auto it = rt.recursion().find(key);
    if (it != rt.recursion().end() && it->second > 0) {
      --it->second;
      return 0;
    }
  } else if (mutex_type(m) != PTHREAD_MUTEX_NORMAL) {
    return EPERM;  // recursive and errorcheck mutexes report it; normal ones are misuse
  }
  perform_sync_and_return(rt, OpKind::kMutexUnlock, m, site);
  return 0;
}

int cond_wait(NativeRuntime& rt, pthread_cond_t* c, pthread_mutex_t* m, bool timed,
              std::uint64_t site) {
  const std::uint8_t signalled = perform_sync_and_return(rt, OpKind::kCondWait, c, site, m, timed);
  return !timed || signalled ? 0 : ETIMEDOUT;
}

// The semaphore's count may have been set before main (by the real sem_init); the model starts
// from the count stored in the object the first time an execution uses it.
void know_semaphore(NativeRuntime& rt, sem_t* s) {
  auto [it, fresh] = rt.known_semaphores().try_emplace(key_of(s), true);
  if (!fresh) {
    it->second = true;
    return;
  }
  int value = 0;
  WEFT_REAL(sem_getvalue, s, &value);
  rt.scheduler().init_semaphore(key_of(s), value > 0 ? value : 0);
}

}  // namespace

extern "C" {

// ---- mutexes -------------------------------------------------------------------------------

int pthread_mutex_init(pthread_mutex_t* m, const pthread_mutexattr_t* attr) __THROW {
  return WEFT_REAL(pthread_mutex_init, m, attr);  // stores the type in the mutex
}

int pthread_mutex_destroy(pthread_mutex_t* m) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_mutex_destroy, m);
  RuntimeScope scope(*rt);
  return rt->scheduler().mutex_owner(key_of(m)) == weft::kNoThread ? 0 : EBUSY;
}

int pthread_mutex_lock(pthread_mutex_t* m) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_mutex_lock, m);
  RuntimeScope scope(*rt);
  return lock_mutex(*rt, m, OpKind::kMutexLock, WEFT_CALLER_SITE());
}

int pthread_mutex_trylock(pthread_mutex_t* m) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_mutex_trylock, m);
  RuntimeScope scope(*rt);
  return lock_mutex(*rt, m, OpKind::kMutexTryLock, WEFT_CALLER_SITE());
}

// A timed lock either gets the mutex or times out; which, is the schedule's choice: it runs as
// a trylock wherever the scheduler puts it.
int pthread_mutex_timedlock(pthread_mutex_t* m, const struct timespec* until) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_mutex_timedlock, m, until);
  RuntimeScope scope(*rt);
  const int r = lock_mutex(*rt, m, OpKind::kMutexTryLock, WEFT_CALLER_SITE());
  return r == EBUSY ? ETIMEDOUT : r;
}

int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t clock,
                            const struct timespec* until) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_mutex_clocklock, m, clock, until);
  RuntimeScope scope(*rt);
  const int r = lock_mutex(*rt, m, OpKind::kMutexTryLock, WEFT_CALLER_SITE());
  return r == EBUSY ? ETIMEDOUT : r;
}

int pthread_mutex_unlock(pthread_mutex_t* m) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_mutex_unlock, m);
  RuntimeScope scope(*rt);
  return unlock_mutex(*rt, m, WEFT_CALLER_SITE());
}

int pthread_mutex_consistent(pthread_mutex_t* m) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_mutex_consistent, m);
  RuntimeScope scope(*rt);
  rt->unsupported("pthread_mutex_consistent (robust mutexes)");
}

// ---- spinlocks: mutexes that never sleep, which makes no difference here -------------------

int pthread_spin_init(pthread_spinlock_t* s, int shared) __THROW {
  return WEFT_REAL(pthread_spin_init, s, shared);
}
int pthread_spin_destroy(pthread_spinlock_t* s) __THROW {
  return WEFT_REAL(pthread_spin_destroy, s);
}
int pthread_spin_lock(pthread_spinlock_t* s) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_spin_lock, s);
  RuntimeScope scope(*rt);
  perform_sync_and_return(*rt, OpKind::kMutexLock, s, WEFT_CALLER_SITE());
  return 0;
}
int pthread_spin_trylock(pthread_spinlock_t* s) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_spin_trylock, s);
  RuntimeScope scope(*rt);
  return perform_sync_and_return(*rt, OpKind::kMutexTryLock, s, WEFT_CALLER_SITE()) ? 0 : EBUSY;
}
int pthread_spin_unlock(pthread_spinlock_t* s) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_spin_unlock, s);
  RuntimeScope scope(*rt);
  perform_sync_and_return(*rt, OpKind::kMutexUnlock, s, WEFT_CALLER_SITE());
  return 0;
}

// ---- condition variables -------------------------------------------------------------------

int pthread_cond_init(pthread_cond_t* c, const pthread_condattr_t* attr) __THROW {
  return WEFT_REAL_V(pthread_cond_init, "GLIBC_2.3.2", c, attr);
}
int pthread_cond_destroy(pthread_cond_t* c) __THROW {
  if (NativeRuntime::active()) return 0;
  return WEFT_REAL_V(pthread_cond_destroy, "GLIBC_2.3.2", c);
}

int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL_V(pthread_cond_wait, "GLIBC_2.3.2", c, m);
  RuntimeScope scope(*rt);
  return cond_wait(*rt, c, m, false, WEFT_CALLER_SITE());
}

// A timed wait may be woken by a signal or time out; the scheduler chooses (see kCondWake).
int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const struct timespec* until) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL_V(pthread_cond_timedwait, "GLIBC_2.3.2", c, m, until);
  RuntimeScope scope(*rt);
  return cond_wait(*rt, c, m, true, WEFT_CALLER_SITE());
}

int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock,
                           const struct timespec* until) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_cond_clockwait, c, m, clock, until);
  RuntimeScope scope(*rt);
  return cond_wait(*rt, c, m, true, WEFT_CALLER_SITE());
}

int pthread_cond_signal(pthread_cond_t* c) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL_V(pthread_cond_signal, "GLIBC_2.3.2", c);
  RuntimeScope scope(*rt);
  perform_sync_and_return(*rt, OpKind::kCondSignal, c, WEFT_CALLER_SITE());
  return 0;
}

int pthread_cond_broadcast(pthread_cond_t* c) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL_V(pthread_cond_broadcast, "GLIBC_2.3.2", c);
  RuntimeScope scope(*rt);
  perform_sync_and_return(*rt, OpKind::kCondBroadcast, c, WEFT_CALLER_SITE());
  return 0;
}

// ---- reader-writer locks -------------------------------------------------------------------

int pthread_rwlock_init(pthread_rwlock_t* l, const pthread_rwlockattr_t* attr) __THROW {
  if (NativeRuntime* rt = NativeRuntime::active()) {
    RuntimeScope scope(*rt);
    rt->rwlocks()[key_of(l)] = {};
    return 0;
  }
  return WEFT_REAL(pthread_rwlock_init, l, attr);
}
int pthread_rwlock_destroy(pthread_rwlock_t* l) __THROW {
  if (NativeRuntime::active()) return 0;
  return WEFT_REAL(pthread_rwlock_destroy, l);
}
int pthread_rwlock_rdlock(pthread_rwlock_t* l) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_rwlock_rdlock, l);
  RuntimeScope scope(*rt);
  return rw_lock(*rt, l, false, false, WEFT_CALLER_SITE());
}
int pthread_rwlock_wrlock(pthread_rwlock_t* l) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_rwlock_wrlock, l);
  RuntimeScope scope(*rt);
  return rw_lock(*rt, l, true, false, WEFT_CALLER_SITE());
}
int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_rwlock_tryrdlock, l);
  RuntimeScope scope(*rt);
  return rw_lock(*rt, l, false, true, WEFT_CALLER_SITE());
}
int pthread_rwlock_trywrlock(pthread_rwlock_t* l) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_rwlock_trywrlock, l);
  RuntimeScope scope(*rt);
  return rw_lock(*rt, l, true, true, WEFT_CALLER_SITE());
}
int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const struct timespec* until) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_rwlock_timedrdlock, l, until);
  RuntimeScope scope(*rt);
  return rw_lock(*rt, l, false, true, WEFT_CALLER_SITE()) == EBUSY ? ETIMEDOUT : 0;
}
int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const struct timespec* until) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_rwlock_timedwrlock, l, until);
  RuntimeScope scope(*rt);
  return rw_lock(*rt, l, true, true, WEFT_CALLER_SITE()) == EBUSY ? ETIMEDOUT : 0;
}
int pthread_rwlock_unlock(pthread_rwlock_t* l) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_rwlock_unlock, l);
  RuntimeScope scope(*rt);
  return rw_unlock(*rt, l, WEFT_CALLER_SITE());
}

// ---- barriers ------------------------------------------------------------------------------

int pthread_barrier_init(pthread_barrier_t* b, const pthread_barrierattr_t* attr,
                         unsigned int count) __THROW {
  if (NativeRuntime* rt = NativeRuntime::active()) {
    RuntimeScope scope(*rt);
    if (count == 0) return EINVAL;
    rt->barriers()[key_of(b)] = {count, 0, 0};
    return 0;
  }
  return WEFT_REAL(pthread_barrier_init, b, attr, count);
}
int pthread_barrier_destroy(pthread_barrier_t* b) __THROW {
  if (NativeRuntime::active()) return 0;
  return WEFT_REAL(pthread_barrier_destroy, b);
}
int pthread_barrier_wait(pthread_barrier_t* b) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pthread_barrier_wait, b);
  RuntimeScope scope(*rt);
  const std::uint64_t site = WEFT_CALLER_SITE();
  rt->note_runtime_state();  // which thread arrives last is weft's count, not an event
  auto it = rt->barriers().find(key_of(b));
  if (it == rt->barriers().end())
    rt->fail(weft::Outcome::kMisuse, "pthread_barrier_wait on a barrier that was not initialised");
  auto& state = it->second;
  perform_sync(*rt, OpKind::kMutexLock, b, site);
  const std::uint64_t generation = state.generation;
  int r = 0;
  if (++state.arrived == state.count) {
    state.arrived = 0;
    ++state.generation;
    perform_sync(*rt, OpKind::kCondBroadcast, b, site);
    r = PTHREAD_BARRIER_SERIAL_THREAD;
  } else {
    while (state.generation == generation) perform_sync(*rt, OpKind::kCondWait, b, site, b);
  }
  perform_sync(*rt, OpKind::kMutexUnlock, b, site);
  return r;
}

// ---- POSIX semaphores ----------------------------------------------------------------------

int sem_init(sem_t* s, int shared, unsigned int value) __THROW {
  const int r = WEFT_REAL(sem_init, s, shared, value);
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || r != 0) return r;
  RuntimeScope scope(*rt);
  auto [it, fresh] = rt->known_semaphores().try_emplace(key_of(s), false);
  // Setting a semaphore that threads used is no event: its orders against their operations on it
  // are not explored, and a state holding its count relative to its start no longer holds it.
  if (!fresh && it->second)
    rt->note_caveat(weft::CaveatKind::kSemaphoreReset,
                    "sem_init at " + weft::code_mark(WEFT_CALLER_SITE()));
  it->second = false;
  rt->scheduler().init_semaphore(key_of(s), value);
  return r;
}

int sem_destroy(sem_t* s) __THROW {
  if (NativeRuntime::active()) return 0;
  return WEFT_REAL(sem_destroy, s);
}

int sem_wait(sem_t* s) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(sem_wait, s);
  RuntimeScope scope(*rt);
  know_semaphore(*rt, s);
  perform_sync_and_return(*rt, OpKind::kSemWait, s, WEFT_CALLER_SITE());
  return 0;
}

int sem_trywait(sem_t* s) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(sem_trywait, s);
  RuntimeScope scope(*rt);
  know_semaphore(*rt, s);
  if (perform_sync(*rt, OpKind::kSemTryWait, s, WEFT_CALLER_SITE())) return 0;
  errno = EAGAIN;
  return -1;
}

int sem_timedwait(sem_t* s, const struct timespec* until) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(sem_timedwait, s, until);
  RuntimeScope scope(*rt);
  know_semaphore(*rt, s);
  if (perform_sync(*rt, OpKind::kSemTryWait, s, WEFT_CALLER_SITE())) return 0;
  errno = ETIMEDOUT;
  return -1;
}

int sem_post(sem_t* s) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(sem_post, s);
  RuntimeScope scope(*rt);
  know_semaphore(*rt, s);
  perform_sync_and_return(*rt, OpKind::kSemPost, s, WEFT_CALLER_SITE());
  return 0;
}

int sem_getvalue(sem_t* s, int* value) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(sem_getvalue, s, value);
  RuntimeScope scope(*rt);
  know_semaphore(*rt, s);
  *value = static_cast<int>(rt->scheduler().semaphore_count(key_of(s)));
  return 0;
}

}  // extern "C"
