// Signals between the program's threads, all of which run on one OS thread.
//
// A signal is pending for one thread (pthread_kill, pthread_identity.cpp) or for the process
// (kill or sigqueue to the program's own process while the signal is blocked, or while a thread
// waits for it). A wait for a signal (sigwait and friends, sigsuspend, pause) takes one of its
// signals pending for itself or for the process; while there is none it is a futex wait on one
// word that every send bumps and wakes. Every waiter wakes, and the first to run takes a
// process-directed signal, so which thread takes it is a scheduling choice the exploration tries
// (the woken waits on the word are dependent). sigsuspend and pause run the signal's handler in
// their own thread, with sigsuspend's mask, and return EINTR, as the kernel does; unblocking a
// signal pending for the process (sigprocmask) runs its handler in the thread that unblocked
// it. A signal that is not blocked and that no thread waits for is delivered to the sender
// itself, which Linux prefers for a process-directed signal when the sender does not block it.
// A wait no thread ends is a deadlock if other threads wait for this one, nothing if the process
// ends first; a timed wait (sigtimedwait) may time out. What is not modelled (a handler run in
// another thread at an arbitrary point, a signal interrupting a blocking call other than these
// waits) stops the run or is listed in docs/process-state.md.
#include "signals.hpp"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "futex.hpp"
#include "native_runtime.hpp"
#include "real_functions.hpp"

using weft::Operation;
using weft::OpKind;
using weft::runtime::native::key_of;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::NativeThread;
using weft::runtime::native::RuntimeScope;

std::uint32_t a_signal_sent_by_another_thread = 0;

namespace weft::runtime::native {

void wake_signal_waiters(NativeRuntime& rt, std::uint64_t site) {
  // The wake is the visible operation; what it delivers is set by the caller in the same step,
  // before any other thread runs.
  Operation wake{OpKind::kFutexWake, 0, 0, key_of(&a_signal_sent_by_another_thread), UINT32_MAX};
  rt.scheduler().perform(wake, site);
  ++a_signal_sent_by_another_thread;
}

}  // namespace weft::runtime::native

namespace {

// A signal pending for `t` or for the process, in `set` (null: any), taken; 0 if none.
int take_pending(NativeRuntime& rt, NativeThread& t, const sigset_t* set) {
  for (sigset_t* pending : {&t.pending_signals, &rt.process_pending_signals()})
    for (int sig = 1; sig < NSIG; ++sig)
      if (sigismember(pending, sig) == 1 && (!set || sigismember(set, sig) == 1)) {
        sigdelset(pending, sig);
        return sig;
      }
  return 0;
}

// The signal taken, or 0 if the (timed) wait timed out. `set` null: any signal.
int wait_for_a_signal(NativeRuntime& rt, const sigset_t* set, bool timed, std::uint64_t site) {
  RuntimeScope scope(rt);
  NativeThread& me = rt.self();
  sigset_t any;
  sigfillset(&any);
  me.awaited_signals = set ? *set : any;
  me.in_sigwait = true;
  int sig = 0;
  while ((sig = take_pending(rt, me, set)) == 0) {
    const std::uint32_t seen = a_signal_sent_by_another_thread;
    if (weft::runtime::native::futex_wait(rt, &a_signal_sent_by_another_thread, seen, timed,
                                          site) != 0 &&
        errno == ETIMEDOUT)
      break;
  }
  me.in_sigwait = false;
  return sig;
}

// Whether delivering `sig` does nothing: ignored, or a default action of ignoring it.
bool discarded(int sig) {
  struct sigaction action {};
  if (WEFT_REAL(sigaction, sig, nullptr, &action) != 0) return false;
  if (action.sa_handler == SIG_IGN) return true;
  return action.sa_handler == SIG_DFL &&
         (sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT);
}

// Delivers `sig` on this thread now, with `mask` as the signal mask while it is delivered (its
// handler runs, or its default action ends the process).
void deliver_here(int sig, const sigset_t& mask) {
  sigset_t old;
  WEFT_REAL(pthread_sigmask, SIG_SETMASK, &mask, &old);
  raise(sig);
  WEFT_REAL(pthread_sigmask, SIG_SETMASK, &old, nullptr);
}

// sigsuspend and pause: wait for a signal that `mask` does not block and that is not discarded,
// deliver it here, and return EINTR.
int suspend(NativeRuntime& rt, const sigset_t& mask, std::uint64_t site) {
  sigset_t wanted;
  sigfillset(&wanted);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sigismember(&mask, sig) == 1) sigdelset(&wanted, sig);
  for (;;) {
    const int sig = wait_for_a_signal(rt, &wanted, false, site);
    if (sig == 0 || discarded(sig)) continue;
    deliver_here(sig, mask);
    errno = EINTR;
    return -1;
  }
}

// Whether some thread waits for `sig` in sigwait, sigsuspend or pause.
bool awaited(NativeRuntime& rt, int sig) {
  for (weft::ThreadId id = 0; id < rt.registry().size(); ++id) {
    const NativeThread& t = rt.thread(id);
    if (t.in_sigwait && sigismember(&t.awaited_signals, sig) == 1) return true;
  }
  return false;
}

// kill or sigqueue to this process: pending for the process when blocked or awaited, else
// delivered to the sender by `send`.
template <typename Send>
int send_to_process(NativeRuntime& rt, int sig, std::uint64_t site, Send send) {
  if (sig <= 0 || sig >= NSIG) return send();  // asks whether the process exists, or EINVAL
  {
    RuntimeScope scope(rt);
    sigset_t blocked;
    WEFT_REAL(pthread_sigmask, SIG_BLOCK, nullptr, &blocked);
    if (sigismember(&blocked, sig) == 1 || awaited(rt, sig)) {
      weft::runtime::native::wake_signal_waiters(rt, site);
      sigaddset(&rt.process_pending_signals(), sig);
      return 0;
    }
  }
  return send();  // its handler, the program's code, runs now on this thread
}

bool names_this_process(pid_t pid) {
  return pid == 0 || pid == getpid();
}

}  // namespace

namespace weft::runtime::native {

void deliver_unblocked_process_signals(NativeRuntime& rt) {
  sigset_t blocked;
  WEFT_REAL(pthread_sigmask, SIG_BLOCK, nullptr, &blocked);
  sigset_t& pending = rt.process_pending_signals();
  for (int sig = 1; sig < NSIG; ++sig)
    if (sigismember(&pending, sig) == 1 && sigismember(&blocked, sig) != 1) {
      sigdelset(&pending, sig);
      raise(sig);  // with the caller's own mask, which no longer blocks it
    }
}

}  // namespace weft::runtime::native

extern "C" {

int kill(pid_t pid, int sig) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || !names_this_process(pid)) return WEFT_REAL(kill, pid, sig);
  return send_to_process(*rt, sig, WEFT_CALLER_SITE(), [&] { return WEFT_REAL(kill, pid, sig); });
}

int sigqueue(pid_t pid, int sig, const union sigval value) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || !names_this_process(pid)) return WEFT_REAL(sigqueue, pid, sig, value);
  return send_to_process(*rt, sig, WEFT_CALLER_SITE(),
                         [&] { return WEFT_REAL(sigqueue, pid, sig, value); });
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
  return suspend(*rt, *mask, WEFT_CALLER_SITE());
}

int pause(void) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pause);
  sigset_t mask;
  WEFT_REAL(pthread_sigmask, SIG_BLOCK, nullptr, &mask);
  return suspend(*rt, mask, WEFT_CALLER_SITE());
}

}  // extern "C"
