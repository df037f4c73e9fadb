// System calls that would block the one OS thread every weft thread runs on. poll and select
// are used to sleep (no descriptors: a scheduling point, as sleep is) and to wait for
// descriptors another thread of the program may make ready (a pipe): they look without
// blocking, and while nothing is ready the thread yields, so the others can run; a finite
// timeout may expire at the first yield (like a timed wait, a scheduling choice). A wait for a
// signal (sigwait and friends, pause, sigsuspend) ends when another thread of the program sends
// it one with pthread_kill (pthread_identity.cpp), as in a run nobody signals from outside: a
// futex wait on one word that every such signal bumps and wakes. A wait no thread ends is a
// deadlock if the others wait for this thread, nothing if the process ends first; a timed wait
// (sigtimedwait) may time out.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/select.h>
#include <unistd.h>

#include "futex.hpp"
#include "native_runtime.hpp"
#include "real_functions.hpp"

using weft::Operation;
using weft::OpKind;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

namespace {

void yield_point(NativeRuntime& rt, std::uint64_t site) {
  rt.scheduler().perform(Operation{OpKind::kYield}, site);
}

}  // namespace

std::uint32_t a_signal_sent_by_another_thread = 0;

namespace {

int take_pending(weft::runtime::native::NativeThread& t, const sigset_t* set) {
  for (int sig = 1; sig < NSIG; ++sig)
    if (sigismember(&t.pending_signals, sig) == 1 && (!set || sigismember(set, sig) == 1)) {
      sigdelset(&t.pending_signals, sig);
      return sig;
    }
  return 0;
}

// The signal taken, or 0 if the (timed) wait timed out. `set` null: any signal.
int wait_for_a_signal(NativeRuntime& rt, const sigset_t* set, bool timed, std::uint64_t site) {
  RuntimeScope scope(rt);
  weft::runtime::native::NativeThread& me = rt.self();
  sigset_t any;
  sigfillset(&any);
  me.awaited_signals = set ? *set : any;
  me.in_sigwait = true;
  int sig = 0;
  while ((sig = take_pending(me, set)) == 0) {
    const std::uint32_t seen = a_signal_sent_by_another_thread;
    if (weft::runtime::native::futex_wait(rt, &a_signal_sent_by_another_thread, seen, timed,
                                          site) != 0 &&
        errno == ETIMEDOUT)
      break;
  }
  me.in_sigwait = false;
  return sig;
}

}  // namespace

extern "C" {

int poll(struct pollfd* fds, nfds_t count, int timeout_ms) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(poll, fds, count, timeout_ms);
  RuntimeScope scope(*rt);
  const std::uint64_t site = WEFT_CALLER_SITE();
  for (;;) {
    const int ready = count == 0 ? 0 : WEFT_REAL(poll, fds, count, 0);
    if (ready != 0 || timeout_ms == 0) return ready;
    yield_point(*rt, site);
    if (timeout_ms > 0 || count == 0) return count == 0 ? 0 : WEFT_REAL(poll, fds, count, 0);
  }
}

int select(int count, fd_set* readable, fd_set* writable, fd_set* failed, struct timeval* timeout) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(select, count, readable, writable, failed, timeout);
  RuntimeScope scope(*rt);
  const std::uint64_t site = WEFT_CALLER_SITE();
  const bool sleeps_only = !readable && !writable && !failed;
  const bool forever = timeout == nullptr;
  const bool immediate = timeout && timeout->tv_sec == 0 && timeout->tv_usec == 0;
  // select changes the sets it is given; each look starts from the caller's.
  fd_set want_read, want_write, want_failed;
  if (readable) want_read = *readable;
  if (writable) want_write = *writable;
  if (failed) want_failed = *failed;
  for (;;) {
    int ready = 0;
    if (!sleeps_only) {
      if (readable) *readable = want_read;
      if (writable) *writable = want_write;
      if (failed) *failed = want_failed;
      timeval now{0, 0};
      ready = WEFT_REAL(select, count, readable, writable, failed, &now);
    }
    if (ready != 0 || immediate) return ready;
    yield_point(*rt, site);
    if (!forever || sleeps_only) {
      if (timeout) *timeout = timeval{0, 0};
      if (sleeps_only) return 0;
      if (readable) *readable = want_read;
      if (writable) *writable = want_write;
      if (failed) *failed = want_failed;
      timeval now{0, 0};
      return WEFT_REAL(select, count, readable, writable, failed, &now);
    }
  }
}

int sigwait(const sigset_t* set, int* signal) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(sigwait, set, signal);
  const int sig = wait_for_a_signal(*rt, set, false, WEFT_CALLER_SITE());
  *signal = sig;
  return 0;
}

int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(sigwaitinfo, set, info);
  const int sig = wait_for_a_signal(*rt, set, false, WEFT_CALLER_SITE());
  if (info) {
    *info = siginfo_t{};
    info->si_signo = sig;
    info->si_code = SI_TKILL;
  }
  return sig;
}

int sigtimedwait(const sigset_t* set, siginfo_t* info, const struct timespec* timeout) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(sigtimedwait, set, info, timeout);
  const int sig = wait_for_a_signal(*rt, set, true, WEFT_CALLER_SITE());
  if (sig == 0) {
    errno = EAGAIN;
    return -1;
  }
  if (info) {
    *info = siginfo_t{};
    info->si_signo = sig;
    info->si_code = SI_TKILL;
  }
  return sig;
}

int sigsuspend(const sigset_t* mask) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(sigsuspend, mask);
  // A signal handler would run here; weft does not run handlers for signals between threads,
  // so only a wait that never ends is modelled (pthread_kill stops the run when it would not
  // be taken by a sigwait).
  wait_for_a_signal(*rt, nullptr, false, WEFT_CALLER_SITE());
  errno = EINTR;
  return -1;
}

int pause(void) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pause);
  wait_for_a_signal(*rt, nullptr, false, WEFT_CALLER_SITE());
  errno = EINTR;
  return -1;
}

}  // extern "C"
