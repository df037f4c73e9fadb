// Interposed functions that take a pthread_t or act on the calling thread as the C library sees
// it: names, scheduling parameters, affinity, attributes, CPU clocks, signals to a thread,
// cancellation state, gettid. weft's threads are fibers on one OS thread with handles of weft's
// own, which the C library's versions would read as its thread descriptors (and crash), so weft
// answers each of them from the thread's ThreadIdentity. docs/process-state.md lists what weft
// does for every pthread function glibc exports.
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "native_runtime.hpp"
#include "real_functions.hpp"
#include "signals.hpp"

using weft::Operation;
using weft::OpKind;
using weft::ThreadId;
using weft::runtime::native::key_of;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::NativeThread;
using weft::runtime::native::RuntimeScope;
using weft::runtime::native::ThreadIdentity;

namespace {

// gettid() of a thread other than main: above any real thread id (the kernel's pid_max is at
// most 2^22), so it never names another process's thread.
constexpr pid_t kFirstWeftTid = pid_t{1} << 22;

// The identity of thread `id`, set up on first use: main's from the process as it is, a
// created thread's is copied from its creator in pthread_create (note_created).
ThreadIdentity& identity_of(NativeRuntime& rt, ThreadId id) {
  ThreadIdentity& who = rt.thread(id).identity;
  if (!who.ready) who = weft::runtime::native::process_identity();
  return who;
}

// The thread a handle names in this execution, or kNoThread.
ThreadId thread_named(NativeRuntime& rt, pthread_t handle) {
  const ThreadId id = NativeRuntime::thread_of(handle);
  if (id == weft::kNoThread || !rt.scheduler().thread_info(id, nullptr, nullptr, nullptr))
    return weft::kNoThread;
  return id;
}

bool valid_policy(int policy) {
  return policy == SCHED_OTHER || policy == SCHED_FIFO || policy == SCHED_RR ||
         policy == SCHED_BATCH || policy == SCHED_IDLE;
}

}  // namespace

namespace weft::runtime::native {

const ThreadIdentity& process_identity() {
  static const ThreadIdentity who = [] {
    ThreadIdentity w;
    w.ready = true;
    prctl(PR_GET_NAME, w.name);
    WEFT_REAL(sched_getaffinity, 0, sizeof w.affinity, &w.affinity);
    return w;
  }();
  return who;
}

ThreadIdentity identity_for_child(NativeRuntime& rt, ThreadId creator, const pthread_attr_t* attr) {
  ThreadIdentity child = identity_of(rt, creator);
  child.cancel_state = PTHREAD_CANCEL_ENABLE;
  child.cancel_type = PTHREAD_CANCEL_DEFERRED;
  int inherit = PTHREAD_INHERIT_SCHED;
  if (attr && pthread_attr_getinheritsched(attr, &inherit) == 0 &&
      inherit == PTHREAD_EXPLICIT_SCHED) {
    sched_param param{};
    pthread_attr_getschedpolicy(attr, &child.policy);
    pthread_attr_getschedparam(attr, &param);
    child.priority = param.sched_priority;
  }
  return child;
}

}  // namespace weft::runtime::native

// Each function: outside an execution, the C library's; in one, answered for the weft thread.
#define WEFT_IN_EXECUTION(name, ...)            \
  NativeRuntime* rt = NativeRuntime::active();  \
  if (!rt) return WEFT_REAL(name, __VA_ARGS__); \
  RuntimeScope scope(*rt)

extern "C" {

int pthread_getschedparam(pthread_t thread, int* policy, sched_param* param) __THROW {
  WEFT_IN_EXECUTION(pthread_getschedparam, thread, policy, param);
  const ThreadId id = thread_named(*rt, thread);
  if (id == weft::kNoThread) return ESRCH;
  const ThreadIdentity& who = identity_of(*rt, id);
  *policy = who.policy;
  *param = sched_param{};
  param->sched_priority = who.priority;
  return 0;
}

// Priorities do not constrain weft's exploration (it tries every interleaving anyway), so they
// are only kept, for the program to read back. A real system may refuse SCHED_FIFO and SCHED_RR
// without privileges (EPERM); weft accepts any valid request.
int pthread_setschedparam(pthread_t thread, int policy, const sched_param* param) __THROW {
  WEFT_IN_EXECUTION(pthread_setschedparam, thread, policy, param);
  const ThreadId id = thread_named(*rt, thread);
  if (id == weft::kNoThread) return ESRCH;
  if (!valid_policy(policy) || param->sched_priority < sched_get_priority_min(policy) ||
      param->sched_priority > sched_get_priority_max(policy))
    return EINVAL;
  ThreadIdentity& who = identity_of(*rt, id);
  who.policy = policy;
  who.priority = param->sched_priority;
  return 0;
}

int pthread_setschedprio(pthread_t thread, int priority) __THROW {
  WEFT_IN_EXECUTION(pthread_setschedprio, thread, priority);
  const ThreadId id = thread_named(*rt, thread);
  if (id == weft::kNoThread) return ESRCH;
  ThreadIdentity& who = identity_of(*rt, id);
  if (priority < sched_get_priority_min(who.policy) ||
      priority > sched_get_priority_max(who.policy))
    return EINVAL;
  who.priority = priority;
  return 0;
}

int pthread_setname_np(pthread_t thread, const char* name) __THROW {
  WEFT_IN_EXECUTION(pthread_setname_np, thread, name);
  const ThreadId id = thread_named(*rt, thread);
  if (id == weft::kNoThread) return ESRCH;
  const std::size_t n = strlen(name);
  if (n >= sizeof(ThreadIdentity::name)) return ERANGE;
  ThreadIdentity& who = identity_of(*rt, id);
  memcpy(who.name, name, n + 1);
  return 0;
}

int pthread_getname_np(pthread_t thread, char* buffer, size_t size) __THROW {
  WEFT_IN_EXECUTION(pthread_getname_np, thread, buffer, size);
  const ThreadId id = thread_named(*rt, thread);
  if (id == weft::kNoThread) return ESRCH;
  const ThreadIdentity& who = identity_of(*rt, id);
  const std::size_t n = strlen(who.name);
  if (size < n + 1) return ERANGE;
  memcpy(buffer, who.name, n + 1);
  return 0;
}

int pthread_getaffinity_np(pthread_t thread, size_t size, cpu_set_t* set) __THROW {
  WEFT_IN_EXECUTION(pthread_getaffinity_np, thread, size, set);
  const ThreadId id = thread_named(*rt, thread);
  if (id == weft::kNoThread) return ESRCH;
  const ThreadIdentity& who = identity_of(*rt, id);
  if (size < sizeof who.affinity) {
    // The C library allows a smaller set if no CPU beyond it is in the mask.
    for (std::size_t cpu = size * 8; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &who.affinity)) return EINVAL;
  }
  memset(set, 0, size);
  memcpy(set, &who.affinity, size < sizeof who.affinity ? size : sizeof who.affinity);
  return 0;
}

int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t* set) __THROW {
  WEFT_IN_EXECUTION(pthread_setaffinity_np, thread, size, set);
  const ThreadId id = thread_named(*rt, thread);
  if (id == weft::kNoThread) return ESRCH;
  cpu_set_t online;
  WEFT_REAL(sched_getaffinity, 0, sizeof online, &online);
  cpu_set_t wanted{};
  memcpy(&wanted, set, size < sizeof wanted ? size : sizeof wanted);
  cpu_set_t usable;
  CPU_AND(&usable, &wanted, &online);
  if (CPU_COUNT(&usable) == 0) return EINVAL;  // as the kernel: no CPU it could run on
  identity_of(*rt, id).affinity = wanted;
  return 0;
}

int pthread_getattr_np(pthread_t thread, pthread_attr_t* attr) __THROW {
  WEFT_IN_EXECUTION(pthread_getattr_np, thread, attr);
  const ThreadId id = thread_named(*rt, thread);
  void* stack = nullptr;
  std::size_t bytes = 0;
  if (id == weft::kNoThread || !rt->scheduler().thread_info(id, &stack, &bytes, nullptr))
    return ESRCH;
  const ThreadIdentity& who = identity_of(*rt, id);
  pthread_attr_init(attr);
  pthread_attr_setstack(attr, stack, bytes);
  pthread_attr_setguardsize(attr, static_cast<std::size_t>(sysconf(_SC_PAGESIZE)));
  pthread_attr_setdetachstate(
      attr, rt->thread(id).detached ? PTHREAD_CREATE_DETACHED : PTHREAD_CREATE_JOINABLE);
  pthread_attr_setschedpolicy(attr, who.policy);
  sched_param param{};
  param.sched_priority = who.priority;
  pthread_attr_setschedparam(attr, &param);
  pthread_attr_setaffinity_np(attr, sizeof who.affinity, &who.affinity);
  return 0;
}

// All weft threads run on one OS thread: its CPU-time clock measures them all together.
int pthread_getcpuclockid(pthread_t thread, clockid_t* clock) __THROW {
  WEFT_IN_EXECUTION(pthread_getcpuclockid, thread, clock);
  if (thread_named(*rt, thread) == weft::kNoThread) return ESRCH;
  *clock = CLOCK_THREAD_CPUTIME_ID;
  return 0;
}

// Signal 0 asks whether the thread exists; a signal to the calling thread is raised on it; one
// to another thread is pending for it, for it to take (signals.cpp).
int pthread_kill(pthread_t thread, int sig) __THROW {
  WEFT_IN_EXECUTION(pthread_kill, thread, sig);
  const ThreadId id = thread_named(*rt, thread);
  if (id == weft::kNoThread) return ESRCH;
  if (sig < 0 || sig >= NSIG) return EINVAL;
  if (sig == 0) return 0;
  if (id == rt->scheduler().self()) return raise(sig) == 0 ? 0 : errno;
  weft::runtime::native::send_to_thread(*rt, id, sig, WEFT_CALLER_SITE());
  return 0;
}

int pthread_sigqueue(pthread_t thread, int sig, const union sigval value) __THROW {
  WEFT_IN_EXECUTION(pthread_sigqueue, thread, sig, value);
  const ThreadId id = thread_named(*rt, thread);
  if (id == weft::kNoThread) return ESRCH;
  if (sig < 0 || sig >= NSIG) return EINVAL;
  if (sig == 0) return 0;
  if (id == rt->scheduler().self()) return raise(sig) == 0 ? 0 : errno;
  (void)value;  // sigwaitinfo's siginfo says SI_TKILL, without the value
  weft::runtime::native::send_to_thread(*rt, id, sig, WEFT_CALLER_SITE());
  return 0;
}

// Cancellation itself is not modelled (pthread_cancel stops the run); its state is kept.
int pthread_setcancelstate(int state, int* old) {
  WEFT_IN_EXECUTION(pthread_setcancelstate, state, old);
  if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE) return EINVAL;
  ThreadIdentity& who = identity_of(*rt, rt->scheduler().self());
  if (old) *old = who.cancel_state;
  who.cancel_state = state;
  return 0;
}

int pthread_setcanceltype(int type, int* old) {
  WEFT_IN_EXECUTION(pthread_setcanceltype, type, old);
  if (type != PTHREAD_CANCEL_DEFERRED && type != PTHREAD_CANCEL_ASYNCHRONOUS) return EINVAL;
  ThreadIdentity& who = identity_of(*rt, rt->scheduler().self());
  if (old) *old = who.cancel_type;
  who.cancel_type = type;
  return 0;
}

// Joins that give up (at once or after a time) would need the target's end as a visible
// operation with a result, as trylock has: not modelled yet.
int pthread_tryjoin_np(pthread_t thread, void** result) {
  WEFT_IN_EXECUTION(pthread_tryjoin_np, thread, result);
  rt->unsupported("pthread_tryjoin_np");
}

int pthread_timedjoin_np(pthread_t thread, void** result, const timespec* deadline) {
  WEFT_IN_EXECUTION(pthread_timedjoin_np, thread, result, deadline);
  rt->unsupported("pthread_timedjoin_np");
}

int pthread_clockjoin_np(pthread_t thread, void** result, clockid_t clock,
                         const timespec* deadline) {
  WEFT_IN_EXECUTION(pthread_clockjoin_np, thread, result, clock, deadline);
  rt->unsupported("pthread_clockjoin_np");
}

pid_t gettid(void) __THROW {
  WEFT_IN_EXECUTION(gettid);
  const ThreadId id = rt->scheduler().self();
  return id == weft::kMainThread ? WEFT_REAL(gettid) : kFirstWeftTid + static_cast<pid_t>(id);
}

// The calling thread's affinity (pid 0, or its own gettid) is the weft thread's.
int sched_getaffinity(pid_t pid, size_t size, cpu_set_t* set) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || (pid != 0 && pid != gettid())) return WEFT_REAL(sched_getaffinity, pid, size, set);
  return pthread_getaffinity_np(pthread_self(), size, set) == 0 ? 0 : (errno = EINVAL, -1);
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* set) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || (pid != 0 && pid != gettid())) return WEFT_REAL(sched_setaffinity, pid, size, set);
  return pthread_setaffinity_np(pthread_self(), size, set) == 0 ? 0 : (errno = EINVAL, -1);
}

}  // extern "C"
