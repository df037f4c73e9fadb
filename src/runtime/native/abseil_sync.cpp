// Abseil's synchronisation (absl::Mutex with its Conditions, absl::CondVar, absl::Notification,
// absl::BlockingCounter, absl::Barrier, and the waits of absl::call_once), modelled as the
// pthread functions are. Abseil locks with its own atomics and futex calls inside
// libabsl_synchronization, which weft does not see: a counter guarded by an absl::Mutex looked
// like a data race, and a real assertion failure behind such a lock was missed.
//
// The executable defines the classes' member functions under their mangled names, for the inline
// namespaces of Debian 12's build ("debian3") and of upstream's 2022-06-23 release, whose
// interfaces and object layouts are the same; the program's calls and libabsl's own calls through
// its PLT (absl::Barrier, absl's internal users) then come here. Outside an execution each
// forwards to libabsl's own. A program built against another Abseil release reaches libabsl
// directly, and weft names the library among those whose synchronisation it cannot see
// (unseen_libraries.cpp), so the verdict says so.
//
// absl::Mutex is a reader-writer lock (rw_lock_model.hpp) whose holder can wait for a Condition:
// the waiter releases the lock and sleeps on a condition variable keyed one byte into the Mutex,
// which every release that may have changed the guarded state broadcasts (Abseil evaluates its
// waiters' conditions when the lock is released); it then takes the lock again and evaluates
// its condition again. A waiter whose condition is still false goes back to sleep without waking
// the others: nothing has changed for them.
//
// Notification, BlockingCounter and Barrier keep their state in their own fields, read and
// written here under a guard on the object's address (their first member is their Mutex, which
// libabsl's code, not run in an execution, would have used). Their layouts are those of the
// releases named above.
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "futex.hpp"
#include "native_runtime.hpp"
#include "rw_lock_model.hpp"

using weft::Operation;
using weft::OpKind;
using weft::Outcome;
using weft::runtime::native::key_of;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::perform_sync;
using weft::runtime::native::RuntimeScope;
using weft::runtime::native::RwLockState;
namespace model = weft::runtime::native;

// Defines the Abseil function whose mangled name is `prefix`4absl<namespace>`rest`, for each
// inline namespace above, as another name of `function`.
#define WEFT_ABSL_NAME(prefix, ns, rest) prefix "4absl" ns rest
#define WEFT_ABSL_ALIAS_ONE(prefix, ns, rest, function)                           \
  ".globl " WEFT_ABSL_NAME(prefix, ns, rest) "\n.set " WEFT_ABSL_NAME(prefix, ns, \
                                                                      rest) ", " #function "\n"
#define WEFT_ABSL_DEFINE(prefix, rest, function)              \
  asm(WEFT_ABSL_ALIAS_ONE(prefix, "7debian3", rest, function) \
          WEFT_ABSL_ALIAS_ONE(prefix, "12lts_20220623", rest, function))

namespace {

// libabsl's function `prefix`4absl<namespace>`rest`, whichever of the namespaces is loaded.
void* absl_symbol(const char* prefix, const char* rest) {
  for (const char* ns : {"7debian3", "12lts_20220623"}) {
    const std::string name = std::string(prefix) + "4absl" + ns + rest;
    if (void* p = dlsym(RTLD_NEXT, name.c_str())) return p;
  }
  return nullptr;
}

// The same, for a call outside an execution: libabsl must be there, since the program called it.
template <typename Function>
Function absl_real(const char* prefix, const char* rest) {
  void* p = absl_symbol(prefix, rest);
  if (!p) {
    std::fprintf(stderr, "weft runtime: cannot find Abseil's %s4absl...%s\n", prefix, rest);
    std::abort();
  }
  return reinterpret_cast<Function>(p);
}

// Calls libabsl's own function outside an execution; inside one, enters the runtime.
#define WEFT_ABSL_PASS(prefix, rest, type, ...)             \
  NativeRuntime* rt = NativeRuntime::active();              \
  if (!rt) {                                                \
    static const auto real = absl_real<type>(prefix, rest); \
    return real(__VA_ARGS__);                               \
  }                                                         \
  RuntimeScope scope(*rt);                                  \
  [[maybe_unused]] const std::uint64_t site = WEFT_CALLER_SITE()

// absl::Duration and absl::Time, passed by value (trivially copyable: two integer registers).
// An infinite one has the low word all ones.
struct Duration {
  std::int64_t high;
  std::uint32_t low;
};
bool finite(Duration d) {
  return d.low != ~std::uint32_t{0};
}

// ---- absl::Mutex -------------------------------------------------------------------------------

// The condition variable a Mutex's Condition waiters sleep on.
const char* conditions_of(const void* mu) {
  return static_cast<const char*>(mu) + 1;
}

std::string thread_name(NativeRuntime& rt) {
  return "thread " + rt.registry().name(rt.scheduler().self());
}

// Evaluates a Condition: the program's code, with libabsl's Condition::Eval.
bool eval(NativeRuntime& rt, const void* cond) {
  static const auto fn =
      reinterpret_cast<bool (*)(const void*)>(absl_symbol("_ZNK", "9Condition4EvalEv"));
  if (!fn) rt.unsupported("an absl::Condition whose Eval weft cannot find in libabsl");
  --rt.self().in_runtime;
  const bool holds = fn(cond);
  ++rt.self().in_runtime;
  return holds;
}

// The guard held: releases the caller's hold on `mu` after the guarded state may have changed,
// waking threads waiting to take it and threads waiting for a Condition.
void release_changed(NativeRuntime& rt, void* mu, RwLockState& state, std::uint64_t site) {
  if (!model::rw_release(rt, mu, state, site))
    rt.fail(Outcome::kMisuse, thread_name(rt) + " unlocks an absl::Mutex nobody holds");
  if (state.condition_waiters > 0)
    perform_sync(rt, OpKind::kCondBroadcast, conditions_of(mu), site);
}

void lock(NativeRuntime& rt, void* mu, bool write, std::uint64_t site) {
  auto& state = model::rw_state(rt, mu);
  if (state.writer == rt.scheduler().self())
    rt.fail(Outcome::kDeadlock, thread_name(rt) + " locks an absl::Mutex it already holds");
  model::rw_lock(rt, mu, write, false, site);
}

void unlock(NativeRuntime& rt, void* mu, bool write, std::uint64_t site) {
  auto& state = model::rw_state(rt, mu);
  if (write && state.writer != rt.scheduler().self())
    rt.fail(Outcome::kMisuse, thread_name(rt) + " unlocks an absl::Mutex it does not hold");
  model::rw_enter(rt, mu, site);
  release_changed(rt, mu, state, site);
  model::rw_leave(rt, mu, site);
}

// The caller holding `mu`: waits until `cond` holds, releasing `mu` meanwhile and holding it
// again in the same mode when it returns. `timed`: the wait may end first (a scheduling choice).
// Returns the condition's value at the end.
bool await(NativeRuntime& rt, void* mu, const void* cond, bool timed, std::uint64_t site) {
  if (eval(rt, cond)) return true;
  auto& state = model::rw_state(rt, mu);
  const bool write = state.writer == rt.scheduler().self();
  if (!write && state.readers == 0)
    rt.fail(Outcome::kMisuse, thread_name(rt) + " waits on an absl::Mutex it does not hold");
  model::rw_enter(rt, mu, site);
  release_changed(rt, mu, state, site);
  for (;;) {
    ++state.condition_waiters;
    const bool woken = perform_sync(rt, OpKind::kCondWait, conditions_of(mu), site, mu, timed) != 0;
    --state.condition_waiters;
    model::rw_take(rt, mu, state, write, site);
    model::rw_leave(rt, mu, site);
    if (eval(rt, cond)) return true;
    if (timed && !woken) return false;
    // Still false: back to sleep, waking only those waiting to take the lock.
    model::rw_enter(rt, mu, site);
    model::rw_release(rt, mu, state, site);
  }
}

// ---- absl::CondVar -----------------------------------------------------------------------------

// Waits on `cv` releasing `mu` (held in either mode); true when signalled, false when timed out.
bool condvar_wait(NativeRuntime& rt, void* cv, void* mu, bool timed, std::uint64_t site) {
  auto& state = model::rw_state(rt, mu);
  const bool write = state.writer == rt.scheduler().self();
  if (!write && state.readers == 0)
    rt.fail(Outcome::kMisuse,
            thread_name(rt) + " waits on an absl::CondVar without holding its absl::Mutex");
  model::rw_enter(rt, mu, site);
  release_changed(rt, mu, state, site);
  // Releases the guard while it waits and takes it again: no signal is lost in between.
  const bool woken = perform_sync(rt, OpKind::kCondWait, cv, site, mu, timed) != 0;
  model::rw_take(rt, mu, state, write, site);
  model::rw_leave(rt, mu, site);
  return woken;
}

// ---- Notification, BlockingCounter, Barrier: fields after their Mutex -------------------------

template <typename T>
T& field(void* object, std::size_t offset) {
  return *reinterpret_cast<T*>(static_cast<char*>(object) + offset);
}

void guard(NativeRuntime& rt, void* object, std::uint64_t site) {
  perform_sync(rt, OpKind::kMutexLock, object, site);
  rt.note_runtime_state();  // the fields read under the guard are weft's model, not events
}
void unguard(NativeRuntime& rt, void* object, std::uint64_t site) {
  perform_sync(rt, OpKind::kMutexUnlock, object, site);
}
// The guard held: waits for a broadcast on the object. False when `timed` and it timed out.
bool sleep_on(NativeRuntime& rt, void* object, bool timed, std::uint64_t site) {
  return perform_sync(rt, OpKind::kCondWait, object, site, object, timed) != 0;
}

// Notification: std::atomic<bool> notified_yet_ after the Mutex. HasBeenNotified() is inline in
// the program (an atomic load weft sees), so Notify stores it as a visible atomic store.
constexpr std::size_t kNotifiedYet = 8;

bool wait_for_notification(NativeRuntime& rt, void* n, bool timed, std::uint64_t site) {
  guard(rt, n, site);
  auto& notified = field<bool>(n, kNotifiedYet);
  while (!notified)
    if (!sleep_on(rt, n, timed, site) && timed) break;
  const bool result = notified;
  unguard(rt, n, site);
  return result;
}

// BlockingCounter: std::atomic<int> count_, int num_waiting_, bool done_ after the Mutex.
constexpr std::size_t kCount = 8;
constexpr std::size_t kNumWaiting = 12;
constexpr std::size_t kDone = 16;

// Barrier: int num_to_block_, int num_to_exit_ after the Mutex.
constexpr std::size_t kToBlock = 8;
constexpr std::size_t kToExit = 12;

// call_once's wait (absl/base/internal/spinlock_wait.h): one of `n` transitions of the control
// word, each tried when the word holds `from`; a transition that is `done` ends the wait.
struct Transition {
  std::uint32_t from;
  std::uint32_t to;
  bool done;
};

}  // namespace

extern "C" {

// The functions are defined under weft's names with hidden visibility, and exported under
// Abseil's (WEFT_ABSL_DEFINE).
#define WEFT_ABSL_FN __attribute__((visibility("hidden")))

WEFT_ABSL_FN void weft_absl_mutex_lock(void* mu) {
  WEFT_ABSL_PASS("_ZN", "5Mutex4LockEv", void (*)(void*), mu);
  lock(*rt, mu, true, site);
}
WEFT_ABSL_FN void weft_absl_mutex_reader_lock(void* mu) {
  WEFT_ABSL_PASS("_ZN", "5Mutex10ReaderLockEv", void (*)(void*), mu);
  lock(*rt, mu, false, site);
}
WEFT_ABSL_FN bool weft_absl_mutex_try_lock(void* mu) {
  WEFT_ABSL_PASS("_ZN", "5Mutex7TryLockEv", bool (*)(void*), mu);
  return model::rw_lock(*rt, mu, true, true, site) == 0;
}
WEFT_ABSL_FN bool weft_absl_mutex_reader_try_lock(void* mu) {
  WEFT_ABSL_PASS("_ZN", "5Mutex13ReaderTryLockEv", bool (*)(void*), mu);
  return model::rw_lock(*rt, mu, false, true, site) == 0;
}
WEFT_ABSL_FN void weft_absl_mutex_unlock(void* mu) {
  WEFT_ABSL_PASS("_ZN", "5Mutex6UnlockEv", void (*)(void*), mu);
  unlock(*rt, mu, true, site);
}
WEFT_ABSL_FN void weft_absl_mutex_reader_unlock(void* mu) {
  WEFT_ABSL_PASS("_ZN", "5Mutex12ReaderUnlockEv", void (*)(void*), mu);
  unlock(*rt, mu, false, site);
}
WEFT_ABSL_FN void weft_absl_mutex_await(void* mu, const void* cond) {
  WEFT_ABSL_PASS("_ZN", "5Mutex5AwaitERKNS0_9ConditionE", void (*)(void*, const void*), mu, cond);
  await(*rt, mu, cond, false, site);
}
WEFT_ABSL_FN bool weft_absl_mutex_await_with_timeout(void* mu, const void* cond, Duration d) {
  WEFT_ABSL_PASS("_ZN", "5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE",
                 bool (*)(void*, const void*, Duration), mu, cond, d);
  return await(*rt, mu, cond, finite(d), site);
}
WEFT_ABSL_FN bool weft_absl_mutex_await_with_deadline(void* mu, const void* cond, Duration t) {
  WEFT_ABSL_PASS("_ZN", "5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE",
                 bool (*)(void*, const void*, Duration), mu, cond, t);
  return await(*rt, mu, cond, finite(t), site);
}
WEFT_ABSL_FN void weft_absl_mutex_lock_when(void* mu, const void* cond) {
  WEFT_ABSL_PASS("_ZN", "5Mutex8LockWhenERKNS0_9ConditionE", void (*)(void*, const void*), mu,
                 cond);
  lock(*rt, mu, true, site);
  await(*rt, mu, cond, false, site);
}
WEFT_ABSL_FN void weft_absl_mutex_reader_lock_when(void* mu, const void* cond) {
  WEFT_ABSL_PASS("_ZN", "5Mutex14ReaderLockWhenERKNS0_9ConditionE", void (*)(void*, const void*),
                 mu, cond);
  lock(*rt, mu, false, site);
  await(*rt, mu, cond, false, site);
}
WEFT_ABSL_FN bool weft_absl_mutex_lock_when_with_timeout(void* mu, const void* cond, Duration d) {
  WEFT_ABSL_PASS("_ZN", "5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE",
                 bool (*)(void*, const void*, Duration), mu, cond, d);
  lock(*rt, mu, true, site);
  return await(*rt, mu, cond, finite(d), site);
}
WEFT_ABSL_FN bool weft_absl_mutex_lock_when_with_deadline(void* mu, const void* cond, Duration t) {
  WEFT_ABSL_PASS("_ZN", "5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE",
                 bool (*)(void*, const void*, Duration), mu, cond, t);
  lock(*rt, mu, true, site);
  return await(*rt, mu, cond, finite(t), site);
}
WEFT_ABSL_FN bool weft_absl_mutex_reader_lock_when_with_timeout(void* mu, const void* cond,
                                                                Duration d) {
  WEFT_ABSL_PASS("_ZN", "5Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE",
                 bool (*)(void*, const void*, Duration), mu, cond, d);
  lock(*rt, mu, false, site);
  return await(*rt, mu, cond, finite(d), site);
}
WEFT_ABSL_FN bool weft_absl_mutex_reader_lock_when_with_deadline(void* mu, const void* cond,
                                                                 Duration t) {
  WEFT_ABSL_PASS("_ZN", "5Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE",
                 bool (*)(void*, const void*, Duration), mu, cond, t);
  lock(*rt, mu, false, site);
  return await(*rt, mu, cond, finite(t), site);
}
WEFT_ABSL_FN void weft_absl_mutex_assert_held(const void* mu) {
  WEFT_ABSL_PASS("_ZNK", "5Mutex10AssertHeldEv", void (*)(const void*), mu);
  if (model::rw_state(*rt, mu).writer != rt->scheduler().self())
    rt->fail(Outcome::kMisuse, thread_name(*rt) + " does not hold the absl::Mutex it asserts held");
}
WEFT_ABSL_FN void weft_absl_mutex_assert_reader_held(const void* mu) {
  WEFT_ABSL_PASS("_ZNK", "5Mutex16AssertReaderHeldEv", void (*)(const void*), mu);
  const auto& state = model::rw_state(*rt, mu);
  if (state.readers == 0 && state.writer != rt->scheduler().self())
    rt->fail(Outcome::kMisuse, thread_name(*rt) + " does not hold the absl::Mutex it asserts held");
}
// Debugging aids and the destructor: libabsl's keep tables under their own locks; an execution
// needs none of them (the Mutex's state is weft's).
WEFT_ABSL_FN void weft_absl_mutex_assert_not_held(const void* mu) {
  WEFT_ABSL_PASS("_ZNK", "5Mutex13AssertNotHeldEv", void (*)(const void*), mu);
}
WEFT_ABSL_FN void weft_absl_mutex_destroy(void* mu) {
  WEFT_ABSL_PASS("_ZN", "5MutexD2Ev", void (*)(void*), mu);
}
WEFT_ABSL_FN void weft_absl_mutex_forget_deadlock_info(void* mu) {
  WEFT_ABSL_PASS("_ZN", "5Mutex18ForgetDeadlockInfoEv", void (*)(void*), mu);
}
WEFT_ABSL_FN void weft_absl_mutex_enable_debug_log(void* mu, const char* name) {
  WEFT_ABSL_PASS("_ZN", "5Mutex14EnableDebugLogEPKc", void (*)(void*, const char*), mu, name);
}
WEFT_ABSL_FN void weft_absl_mutex_enable_invariant_debugging(void* mu, void (*invariant)(void*),
                                                             void* arg) {
  WEFT_ABSL_PASS("_ZN", "5Mutex24EnableInvariantDebuggingEPFvPvES2_",
                 void (*)(void*, void (*)(void*), void*), mu, invariant, arg);
}

WEFT_ABSL_FN void weft_absl_condvar_wait(void* cv, void* mu) {
  WEFT_ABSL_PASS("_ZN", "7CondVar4WaitEPNS0_5MutexE", void (*)(void*, void*), cv, mu);
  condvar_wait(*rt, cv, mu, false, site);
}
// True when the wait timed out, as Abseil's.
WEFT_ABSL_FN bool weft_absl_condvar_wait_with_timeout(void* cv, void* mu, Duration d) {
  WEFT_ABSL_PASS("_ZN", "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE",
                 bool (*)(void*, void*, Duration), cv, mu, d);
  return !condvar_wait(*rt, cv, mu, finite(d), site);
}
WEFT_ABSL_FN bool weft_absl_condvar_wait_with_deadline(void* cv, void* mu, Duration t) {
  WEFT_ABSL_PASS("_ZN", "7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE",
                 bool (*)(void*, void*, Duration), cv, mu, t);
  return !condvar_wait(*rt, cv, mu, finite(t), site);
}
WEFT_ABSL_FN void weft_absl_condvar_signal(void* cv) {
  WEFT_ABSL_PASS("_ZN", "7CondVar6SignalEv", void (*)(void*), cv);
  perform_sync(*rt, OpKind::kCondSignal, cv, site);
}
WEFT_ABSL_FN void weft_absl_condvar_signal_all(void* cv) {
  WEFT_ABSL_PASS("_ZN", "7CondVar9SignalAllEv", void (*)(void*), cv);
  perform_sync(*rt, OpKind::kCondBroadcast, cv, site);
}
WEFT_ABSL_FN void weft_absl_condvar_destroy(void* cv) {
  WEFT_ABSL_PASS("_ZN", "7CondVarD2Ev", void (*)(void*), cv);
}
WEFT_ABSL_FN void weft_absl_condvar_enable_debug_log(void* cv, const char* name) {
  WEFT_ABSL_PASS("_ZN", "7CondVar14EnableDebugLogEPKc", void (*)(void*, const char*), cv, name);
}

WEFT_ABSL_FN void weft_absl_notification_notify(void* n) {
  WEFT_ABSL_PASS("_ZN", "12Notification6NotifyEv", void (*)(void*), n);
  guard(*rt, n, site);
  auto& notified = field<bool>(n, kNotifiedYet);
  if (notified)
    rt->fail(Outcome::kMisuse, thread_name(*rt) + " notifies an absl::Notification a second time");
  rt->scheduler().perform(Operation{OpKind::kAtomicStore, 0, 1, key_of(&notified), 0}, site);
  const bool before = notified, now = true;
  rt->scheduler().rc11_outside_access(key_of(&notified), 1, &before, &now, false);
  notified = now;
  perform_sync(*rt, OpKind::kCondBroadcast, n, site);
  unguard(*rt, n, site);
}
WEFT_ABSL_FN void weft_absl_notification_wait(void* n) {
  WEFT_ABSL_PASS("_ZNK", "12Notification19WaitForNotificationEv", void (*)(void*), n);
  wait_for_notification(*rt, n, false, site);
}
WEFT_ABSL_FN bool weft_absl_notification_wait_with_timeout(void* n, Duration d) {
  WEFT_ABSL_PASS("_ZNK", "12Notification30WaitForNotificationWithTimeoutENS0_8DurationE",
                 bool (*)(void*, Duration), n, d);
  return wait_for_notification(*rt, n, finite(d), site);
}
WEFT_ABSL_FN bool weft_absl_notification_wait_with_deadline(void* n, Duration t) {
  WEFT_ABSL_PASS("_ZNK", "12Notification31WaitForNotificationWithDeadlineENS0_4TimeE",
                 bool (*)(void*, Duration), n, t);
  return wait_for_notification(*rt, n, finite(t), site);
}
WEFT_ABSL_FN void weft_absl_notification_destroy(void* n) {
  WEFT_ABSL_PASS("_ZN", "12NotificationD2Ev", void (*)(void*), n);
}

WEFT_ABSL_FN bool weft_absl_blocking_counter_decrement(void* counter) {
  WEFT_ABSL_PASS("_ZN", "15BlockingCounter14DecrementCountEv", bool (*)(void*), counter);
  guard(*rt, counter, site);
  auto& count = field<int>(counter, kCount);
  if (count <= 0)
    rt->fail(Outcome::kMisuse,
             thread_name(*rt) + " decrements an absl::BlockingCounter more times than its count");
  const bool zero = --count == 0;
  if (zero) {
    field<bool>(counter, kDone) = true;
    perform_sync(*rt, OpKind::kCondBroadcast, counter, site);
  }
  unguard(*rt, counter, site);
  return zero;
}
WEFT_ABSL_FN void weft_absl_blocking_counter_wait(void* counter) {
  WEFT_ABSL_PASS("_ZN", "15BlockingCounter4WaitEv", void (*)(void*), counter);
  guard(*rt, counter, site);
  if (++field<int>(counter, kNumWaiting) > 1)
    rt->fail(Outcome::kMisuse,
             thread_name(*rt) + " waits on an absl::BlockingCounter another thread waited on");
  while (!field<bool>(counter, kDone)) sleep_on(*rt, counter, false, site);
  unguard(*rt, counter, site);
}

WEFT_ABSL_FN bool weft_absl_barrier_block(void* barrier) {
  WEFT_ABSL_PASS("_ZN", "7Barrier5BlockEv", bool (*)(void*), barrier);
  guard(*rt, barrier, site);
  auto& to_block = field<int>(barrier, kToBlock);
  if (--to_block < 0)
    rt->fail(Outcome::kMisuse,
             thread_name(*rt) + " blocks on an absl::Barrier more times than its count");
  if (to_block == 0) perform_sync(*rt, OpKind::kCondBroadcast, barrier, site);
  while (to_block > 0) sleep_on(*rt, barrier, false, site);
  const bool last = --field<int>(barrier, kToExit) == 0;
  unguard(*rt, barrier, site);
  return last;
}

// call_once's wait for the control word (the inline code around it is the program's, compiled by
// weft-cc: its compare-and-swap and exchange are visible, and its wake is a futex call weft
// models). Each load and compare-and-swap here is a visible operation; where no transition
// applies, the thread sleeps on the word as a futex until it changes.
WEFT_ABSL_FN std::uint32_t weft_absl_spin_lock_wait(std::atomic<std::uint32_t>* word, int n,
                                                    const Transition* transitions, int mode) {
  WEFT_ABSL_PASS("_ZN",
                 "13base_internal12SpinLockWaitEPSt6atomicIjEiPKNS1_22SpinLockWaitTransitionENS1_"
                 "14SchedulingModeE",
                 std::uint32_t(*)(std::atomic<std::uint32_t>*, int, const Transition*, int), word,
                 n, transitions, mode);
  auto& sched = rt->scheduler();
  for (;;) {
    sched.perform(Operation{OpKind::kAtomicLoad, 0, 4, key_of(word), 0}, site);
    std::uint32_t value = word->load();
    sched.rc11_outside_access(key_of(word), 4, &value, nullptr, false);
    int i = 0;
    while (i < n && transitions[i].from != value) ++i;
    if (i == n || (transitions[i].to == value && !transitions[i].done)) {
      model::futex_wait(*rt, reinterpret_cast<std::uint32_t*>(word), value, false, site);
      continue;
    }
    if (transitions[i].to != value) {
      sched.perform(Operation{OpKind::kAtomicCas, 0, 4, key_of(word), 0}, site);
      const std::uint32_t expected = value;
      const bool swapped = word->compare_exchange_strong(value, transitions[i].to);
      sched.rc11_outside_access(key_of(word), 4, swapped ? &expected : &value,
                                swapped ? &transitions[i].to : nullptr, true);
      if (!swapped) continue;
    }
    if (transitions[i].done) return value;
  }
}

}  // extern "C"

WEFT_ABSL_DEFINE("_ZN", "5Mutex4LockEv", weft_absl_mutex_lock);
WEFT_ABSL_DEFINE("_ZN", "5Mutex10ReaderLockEv", weft_absl_mutex_reader_lock);
WEFT_ABSL_DEFINE("_ZN", "5Mutex7TryLockEv", weft_absl_mutex_try_lock);
WEFT_ABSL_DEFINE("_ZN", "5Mutex13ReaderTryLockEv", weft_absl_mutex_reader_try_lock);
WEFT_ABSL_DEFINE("_ZN", "5Mutex6UnlockEv", weft_absl_mutex_unlock);
WEFT_ABSL_DEFINE("_ZN", "5Mutex12ReaderUnlockEv", weft_absl_mutex_reader_unlock);
WEFT_ABSL_DEFINE("_ZN", "5Mutex5AwaitERKNS0_9ConditionE", weft_absl_mutex_await);
WEFT_ABSL_DEFINE("_ZN", "5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE",
                 weft_absl_mutex_await_with_timeout);
WEFT_ABSL_DEFINE("_ZN", "5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE",
                 weft_absl_mutex_await_with_deadline);
WEFT_ABSL_DEFINE("_ZN", "5Mutex8LockWhenERKNS0_9ConditionE", weft_absl_mutex_lock_when);
WEFT_ABSL_DEFINE("_ZN", "5Mutex14ReaderLockWhenERKNS0_9ConditionE",
                 weft_absl_mutex_reader_lock_when);
WEFT_ABSL_DEFINE("_ZN", "5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE",
                 weft_absl_mutex_lock_when_with_timeout);
WEFT_ABSL_DEFINE("_ZN", "5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE",
                 weft_absl_mutex_lock_when_with_deadline);
WEFT_ABSL_DEFINE("_ZN", "5Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE",
                 weft_absl_mutex_reader_lock_when_with_timeout);
WEFT_ABSL_DEFINE("_ZN", "5Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE",
                 weft_absl_mutex_reader_lock_when_with_deadline);
WEFT_ABSL_DEFINE("_ZNK", "5Mutex10AssertHeldEv", weft_absl_mutex_assert_held);
WEFT_ABSL_DEFINE("_ZNK", "5Mutex16AssertReaderHeldEv", weft_absl_mutex_assert_reader_held);
WEFT_ABSL_DEFINE("_ZNK", "5Mutex13AssertNotHeldEv", weft_absl_mutex_assert_not_held);
WEFT_ABSL_DEFINE("_ZN", "5MutexD1Ev", weft_absl_mutex_destroy);
WEFT_ABSL_DEFINE("_ZN", "5MutexD2Ev", weft_absl_mutex_destroy);
WEFT_ABSL_DEFINE("_ZN", "5Mutex18ForgetDeadlockInfoEv", weft_absl_mutex_forget_deadlock_info);
WEFT_ABSL_DEFINE("_ZN", "5Mutex14EnableDebugLogEPKc", weft_absl_mutex_enable_debug_log);
WEFT_ABSL_DEFINE("_ZN", "5Mutex24EnableInvariantDebuggingEPFvPvES2_",
                 weft_absl_mutex_enable_invariant_debugging);
WEFT_ABSL_DEFINE("_ZN", "7CondVar4WaitEPNS0_5MutexE", weft_absl_condvar_wait);
WEFT_ABSL_DEFINE("_ZN", "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE",
                 weft_absl_condvar_wait_with_timeout);
WEFT_ABSL_DEFINE("_ZN", "7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE",
                 weft_absl_condvar_wait_with_deadline);
WEFT_ABSL_DEFINE("_ZN", "7CondVar6SignalEv", weft_absl_condvar_signal);
WEFT_ABSL_DEFINE("_ZN", "7CondVar9SignalAllEv", weft_absl_condvar_signal_all);
WEFT_ABSL_DEFINE("_ZN", "7CondVarD1Ev", weft_absl_condvar_destroy);
WEFT_ABSL_DEFINE("_ZN", "7CondVarD2Ev", weft_absl_condvar_destroy);
WEFT_ABSL_DEFINE("_ZN", "7CondVar14EnableDebugLogEPKc", weft_absl_condvar_enable_debug_log);
WEFT_ABSL_DEFINE("_ZN", "12Notification6NotifyEv", weft_absl_notification_notify);
WEFT_ABSL_DEFINE("_ZNK", "12Notification19WaitForNotificationEv", weft_absl_notification_wait);
WEFT_ABSL_DEFINE("_ZNK", "12Notification30WaitForNotificationWithTimeoutENS0_8DurationE",
                 weft_absl_notification_wait_with_timeout);
WEFT_ABSL_DEFINE("_ZNK", "12Notification31WaitForNotificationWithDeadlineENS0_4TimeE",
                 weft_absl_notification_wait_with_deadline);
WEFT_ABSL_DEFINE("_ZN", "12NotificationD1Ev", weft_absl_notification_destroy);
WEFT_ABSL_DEFINE("_ZN", "12NotificationD2Ev", weft_absl_notification_destroy);
WEFT_ABSL_DEFINE("_ZN", "15BlockingCounter14DecrementCountEv",
                 weft_absl_blocking_counter_decrement);
WEFT_ABSL_DEFINE("_ZN", "15BlockingCounter4WaitEv", weft_absl_blocking_counter_wait);
WEFT_ABSL_DEFINE("_ZN", "7Barrier5BlockEv", weft_absl_barrier_block);
WEFT_ABSL_DEFINE("_ZN",
                 "13base_internal12SpinLockWaitEPSt6atomicIjEiPKNS1_22SpinLockWaitTransitionENS1_"
                 "14SchedulingModeE",
                 weft_absl_spin_lock_wait);
