// GLib's synchronisation API (GMutex, GRecMutex, GRWLock, GCond, g_once_init_enter/leave),
// modelled as the pthread functions are: GLib locks with its own atomics and futex calls inside
// libglib, which weft does not see, so a counter guarded by a GMutex looked like a data race.
// The program's calls come here (the executable's definitions come first); GLib's calls to its
// own functions inside libglib do not, which is why libglib stays named among the libraries
// whose synchronisation weft cannot see (unseen_libraries.cpp). Threads (g_thread_new, join,
// yield) need nothing here: libglib makes them with pthread_create, which weft interposes.
// Each object is known by its address; its bytes are not used during an execution.
#include <pthread.h>

#include <cstdint>

#include "native_runtime.hpp"
#include "real_functions.hpp"

using weft::Operation;
using weft::OpKind;
using weft::runtime::native::key_of;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::perform_sync;
using weft::runtime::native::RuntimeScope;

namespace {

using gboolean = int;

// libglib's own function `name`, of type `Function`, for calls outside an execution.
template <typename Function>
Function glib(const char* name) {
  return reinterpret_cast<Function>(weft::runtime::native::real_symbol(name));
}
#define WEFT_GLIB(name, type, ...)            \
  ([]() {                                     \
    static const auto fn = glib<type>(#name); \
    return fn;                                \
  }())(__VA_ARGS__)

// A recursive mutex: its owner takes it again by counting.
gboolean rec_lock(NativeRuntime& rt, void* mutex, OpKind kind, std::uint64_t site) {
  const auto key = key_of(mutex);
  if (rt.scheduler().mutex_owner(key) == rt.scheduler().self()) {
    ++rt.recursion()[key];
    return 1;
  }
  return perform_sync(rt, kind, mutex, site) != 0 || kind == OpKind::kMutexLock;
}

void rec_unlock(NativeRuntime& rt, void* mutex, std::uint64_t site) {
  auto it = rt.recursion().find(key_of(mutex));
  if (it != rt.recursion().end() && it->second > 0 &&
      rt.scheduler().mutex_owner(key_of(mutex)) == rt.scheduler().self()) {
    --it->second;
    return;
  }
  perform_sync(rt, OpKind::kMutexUnlock, mutex, site);
}

}  // namespace

// Outside an execution each function is libglib's; inside, the model's. Init and clear need
// nothing in an execution.
#define WEFT_GLIB_PASS(name, ...)                                \
  NativeRuntime* rt = NativeRuntime::active();                   \
  if (!rt) return WEFT_GLIB(name, decltype(&name), __VA_ARGS__); \
  RuntimeScope scope(*rt)

extern "C" {

void g_mutex_init(void* mutex);
void g_mutex_clear(void* mutex);
void g_mutex_lock(void* mutex);
gboolean g_mutex_trylock(void* mutex);
void g_mutex_unlock(void* mutex);
void g_rec_mutex_init(void* mutex);
void g_rec_mutex_clear(void* mutex);
void g_rec_mutex_lock(void* mutex);
gboolean g_rec_mutex_trylock(void* mutex);
void g_rec_mutex_unlock(void* mutex);
void g_rw_lock_init(void* lock);
void g_rw_lock_clear(void* lock);
void g_rw_lock_writer_lock(void* lock);
gboolean g_rw_lock_writer_trylock(void* lock);
void g_rw_lock_writer_unlock(void* lock);
void g_rw_lock_reader_lock(void* lock);
gboolean g_rw_lock_reader_trylock(void* lock);
void g_rw_lock_reader_unlock(void* lock);
void g_cond_init(void* cond);
void g_cond_clear(void* cond);
void g_cond_wait(void* cond, void* mutex);
gboolean g_cond_wait_until(void* cond, void* mutex, std::int64_t end_time);
void g_cond_signal(void* cond);
void g_cond_broadcast(void* cond);
gboolean g_once_init_enter(volatile void* location);
void g_once_init_leave(volatile void* location, std::uintptr_t result);

void g_mutex_init(void* mutex) {
  if (!NativeRuntime::active()) WEFT_GLIB(g_mutex_init, decltype(&g_mutex_init), mutex);
}
void g_mutex_clear(void* mutex) {
  if (!NativeRuntime::active()) WEFT_GLIB(g_mutex_clear, decltype(&g_mutex_clear), mutex);
}
void g_mutex_lock(void* mutex) {
  WEFT_GLIB_PASS(g_mutex_lock, mutex);
  perform_sync(*rt, OpKind::kMutexLock, mutex, WEFT_CALLER_SITE());
}
gboolean g_mutex_trylock(void* mutex) {
  WEFT_GLIB_PASS(g_mutex_trylock, mutex);
  return perform_sync(*rt, OpKind::kMutexTryLock, mutex, WEFT_CALLER_SITE()) != 0;
}
void g_mutex_unlock(void* mutex) {
  WEFT_GLIB_PASS(g_mutex_unlock, mutex);
  perform_sync(*rt, OpKind::kMutexUnlock, mutex, WEFT_CALLER_SITE());
}

void g_rec_mutex_init(void* mutex) {
  if (!NativeRuntime::active()) WEFT_GLIB(g_rec_mutex_init, decltype(&g_rec_mutex_init), mutex);
}
void g_rec_mutex_clear(void* mutex) {
  if (!NativeRuntime::active()) WEFT_GLIB(g_rec_mutex_clear, decltype(&g_rec_mutex_clear), mutex);
}
void g_rec_mutex_lock(void* mutex) {
  WEFT_GLIB_PASS(g_rec_mutex_lock, mutex);
  rec_lock(*rt, mutex, OpKind::kMutexLock, WEFT_CALLER_SITE());
}
gboolean g_rec_mutex_trylock(void* mutex) {
  WEFT_GLIB_PASS(g_rec_mutex_trylock, mutex);
  return rec_lock(*rt, mutex, OpKind::kMutexTryLock, WEFT_CALLER_SITE());
}
void g_rec_mutex_unlock(void* mutex) {
  WEFT_GLIB_PASS(g_rec_mutex_unlock, mutex);
  rec_unlock(*rt, mutex, WEFT_CALLER_SITE());
}

// Reader-writer locks: weft's model of pthread's, which keeps its state by the lock's address.
void g_rw_lock_init(void* lock) {
  if (!NativeRuntime::active()) WEFT_GLIB(g_rw_lock_init, decltype(&g_rw_lock_init), lock);
}
void g_rw_lock_clear(void* lock) {
  if (!NativeRuntime::active()) WEFT_GLIB(g_rw_lock_clear, decltype(&g_rw_lock_clear), lock);
}
void g_rw_lock_writer_lock(void* lock) {
  WEFT_GLIB_PASS(g_rw_lock_writer_lock, lock);
  pthread_rwlock_wrlock(static_cast<pthread_rwlock_t*>(lock));
}
gboolean g_rw_lock_writer_trylock(void* lock) {
  WEFT_GLIB_PASS(g_rw_lock_writer_trylock, lock);
  return pthread_rwlock_trywrlock(static_cast<pthread_rwlock_t*>(lock)) == 0;
}
void g_rw_lock_writer_unlock(void* lock) {
  WEFT_GLIB_PASS(g_rw_lock_writer_unlock, lock);
  pthread_rwlock_unlock(static_cast<pthread_rwlock_t*>(lock));
}
void g_rw_lock_reader_lock(void* lock) {
  WEFT_GLIB_PASS(g_rw_lock_reader_lock, lock);
  pthread_rwlock_rdlock(static_cast<pthread_rwlock_t*>(lock));
}
gboolean g_rw_lock_reader_trylock(void* lock) {
  WEFT_GLIB_PASS(g_rw_lock_reader_trylock, lock);
  return pthread_rwlock_tryrdlock(static_cast<pthread_rwlock_t*>(lock)) == 0;
}
void g_rw_lock_reader_unlock(void* lock) {
  WEFT_GLIB_PASS(g_rw_lock_reader_unlock, lock);
  pthread_rwlock_unlock(static_cast<pthread_rwlock_t*>(lock));
}

void g_cond_init(void* cond) {
  if (!NativeRuntime::active()) WEFT_GLIB(g_cond_init, decltype(&g_cond_init), cond);
}
void g_cond_clear(void* cond) {
  if (!NativeRuntime::active()) WEFT_GLIB(g_cond_clear, decltype(&g_cond_clear), cond);
}
void g_cond_wait(void* cond, void* mutex) {
  WEFT_GLIB_PASS(g_cond_wait, cond, mutex);
  perform_sync(*rt, OpKind::kCondWait, cond, WEFT_CALLER_SITE(), mutex);
}
// Signalled or timed out: the scheduler chooses, as for pthread_cond_timedwait.
gboolean g_cond_wait_until(void* cond, void* mutex, std::int64_t end_time) {
  WEFT_GLIB_PASS(g_cond_wait_until, cond, mutex, end_time);
  return perform_sync(*rt, OpKind::kCondWait, cond, WEFT_CALLER_SITE(), mutex, true) != 0;
}
void g_cond_signal(void* cond) {
  WEFT_GLIB_PASS(g_cond_signal, cond);
  perform_sync(*rt, OpKind::kCondSignal, cond, WEFT_CALLER_SITE());
}
void g_cond_broadcast(void* cond) {
  WEFT_GLIB_PASS(g_cond_broadcast, cond);
  perform_sync(*rt, OpKind::kCondBroadcast, cond, WEFT_CALLER_SITE());
}

// g_once_init_enter/leave, as the C++ static guards (cxx_guards.cpp): the first thread holds the
// location while it initialises; leave publishes the value with an atomic store, which the
// macro's inline atomic read of the location is ordered after.
gboolean g_once_init_enter(volatile void* location) {
  WEFT_GLIB_PASS(g_once_init_enter, location);
  const std::uint64_t site = WEFT_CALLER_SITE();
  perform_sync(*rt, OpKind::kMutexLock, location, site);
  rt->note_runtime_state();  // the location is read here, not by an event
  if (*static_cast<volatile std::uintptr_t*>(location) == 0) return 1;
  perform_sync(*rt, OpKind::kMutexUnlock, location, site);
  return 0;
}
void g_once_init_leave(volatile void* location, std::uintptr_t result) {
  WEFT_GLIB_PASS(g_once_init_leave, location, result);
  const std::uint64_t site = WEFT_CALLER_SITE();
  rt->scheduler().perform(Operation{OpKind::kAtomicStore, 0, sizeof result, key_of(location), 0},
                          site);
  const std::uintptr_t before = *static_cast<volatile std::uintptr_t*>(location);
  rt->scheduler().rc11_outside_access(key_of(location), sizeof result, &before, &result, false);
  *static_cast<volatile std::uintptr_t*>(location) = result;
  perform_sync(*rt, OpKind::kMutexUnlock, location, site);
}

}  // extern "C"
