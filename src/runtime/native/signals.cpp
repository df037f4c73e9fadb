// Signals between the program's threads, all of which run on one OS thread.
//
// Each thread has its own signal mask (inherited from its creator, as pthread_create does); the
// OS thread's mask is that of the thread running, set at each step once masks differ. A signal
// is pending for one thread (pthread_kill, raise while blocked) or for the process (kill or
// sigqueue to the program's own process). Which thread takes a signal sent to the process is a
// choice the exploration tries (POSIX lets any thread that does not block it take it):
//
// - A thread waiting for it (sigwait and friends, sigsuspend, pause) waits on one futex word
//   that every send bumps and wakes; the woken waits are dependent, so each order is tried.
// - Every other thread that does not block it takes it at the end of its next step, with a
//   visible operation on that word: the takes of the threads, and the send, are dependent, so
//   which thread takes it first is tried too. The sender takes it where it sent it (the kernel
//   delivers a signal to the sender before kill returns); a thread asleep (sleep, nanosleep,
//   poll, select) is interrupted, its call failing with EINTR. Another thread runs the handler
//   at the end of the step it was in: the later points in that thread at which the kernel could
//   also run it are not tried, and the verdict says so (CaveatKind::kSignalHandler).
//
// The handler runs in the thread that takes it, with the thread's mask and the handler's
// sa_mask, as the kernel's delivery does. A wait weft does not interrupt (a mutex, a semaphore,
// a condition variable, a join) delays a signal the thread would take until the wait ends; if
// the execution deadlocks with such a signal pending, it stops as not modelled instead of being
// called a deadlock. Not modelled: a thread that takes a signal while it waits in a call other
// than those above would see that call fail with EINTR or restart.
#include "signals.hpp"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "futex.hpp"
#include "native_runtime.hpp"
#include "real_functions.hpp"
#include "weft/trace/wire.hpp"

using weft::Operation;
using weft::OpKind;
using weft::ThreadId;
using weft::runtime::native::key_of;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::NativeThread;
using weft::runtime::native::RuntimeScope;
using weft::runtime::native::SignalState;

std::uint32_t __weft_signal_word = 0;

namespace {

// Set once the process has a signal handler (kept by the worker with the rest of its memory).
bool handlers_installed = false;

// The OS thread's mask now (glibc's sigset_t is larger than the kernel's: the rest is cleared).
sigset_t os_mask_now() {
  sigset_t mask;
  sigemptyset(&mask);
  WEFT_REAL(pthread_sigmask, SIG_BLOCK, nullptr, &mask);
  return mask;
}

// "SIGUSR1".
std::string signal_name(int sig) {
  const char* abbreviation = sigabbrev_np(sig);
  return abbreviation ? "SIG" + std::string(abbreviation) : "signal " + std::to_string(sig);
}

bool same_mask(const sigset_t& a, const sigset_t& b) {
  for (int sig = 1; sig < NSIG; ++sig)
    if (sigismember(&a, sig) != sigismember(&b, sig)) return false;
  return true;
}

void set_os_mask(SignalState& s, const sigset_t& mask) {
  WEFT_REAL(pthread_sigmask, SIG_SETMASK, &mask, nullptr);
  s.os_mask = mask;
}

bool alive(NativeRuntime& rt, ThreadId id) {
  void* stack = nullptr;
  std::size_t bytes = 0;
  bool finished = true;
  return rt.scheduler().thread_info(id, &stack, &bytes, &finished) && !finished;
}

// A signal pending for `t` or for the process that `t` does not block; 0 if none.
int takeable(NativeRuntime& rt, const NativeThread& t) {
  const sigset_t* process = &rt.signals().process_pending;
  for (const sigset_t* pending : {&t.pending_signals, process})
    for (int sig = 1; sig < NSIG; ++sig)
      if (sigismember(pending, sig) == 1 && sigismember(&t.signal_mask, sig) != 1) return sig;
  return 0;
}

void after_step(std::uint64_t site);

// Whether a step must look at signals, and the scheduler's step hook set accordingly (none, the
// usual case, costs nothing per step).
void refresh(NativeRuntime& rt) {
  SignalState& s = rt.signals();
  s.deliverable = false;
  for (ThreadId id = 0; id < rt.registry().size() && !s.deliverable; ++id)
    if (alive(rt, id))
      s.deliverable = rt.thread(id).must_look_for_signals || takeable(rt, rt.thread(id)) != 0;
  rt.scheduler().set_step_hook(s.masks_vary || s.deliverable ? &after_step : nullptr);
}

// Runs `sig`'s handler (or its default action) on the calling thread now, as the kernel's
// delivery does: with the thread's mask, and the handler's sa_mask and the signal itself
// blocked while it runs. The handler is the program's code.
void deliver_here(NativeRuntime& rt, NativeThread& me, int sig) {
  SignalState& s = rt.signals();
  const sigset_t mask = me.signal_mask;
  struct sigaction action {};
  WEFT_REAL(sigaction, sig, nullptr, &action);
  if (action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN) {
    for (int other = 1; other < NSIG; ++other)
      if (sigismember(&action.sa_mask, other) == 1) sigaddset(&me.signal_mask, other);
    if (!(action.sa_flags & SA_NODEFER)) sigaddset(&me.signal_mask, sig);
    s.masks_vary = true;  // the handler's steps run with the mask the kernel gives it
    rt.scheduler().set_step_hook(&after_step);
  }
  set_os_mask(s, mask);
  const int in_runtime = me.in_runtime;
  me.in_runtime = 0;
  WEFT_REAL(raise, sig);
  me.in_runtime = in_runtime;
  me.signal_mask = mask;
  set_os_mask(s, mask);  // as the handler's return gave back
  ++me.signals_handled;
}

// The calling thread takes the signals pending for it or for the process that it does not
// block, one at a time. Each look is a step, dependent with the sends and the other threads'
// looks, after which the signal may already have gone to another thread. A thread that could
// take a signal sent to the process looks once even if another took it first: that look is what
// lets the exploration try the order in which it comes first.
void take_signals(NativeRuntime& rt, NativeThread& me, std::uint64_t site) {
  SignalState& s = rt.signals();
  me.taking_signals = true;
  while (me.must_look_for_signals || takeable(rt, me)) {
    me.must_look_for_signals = false;
    {
      RuntimeScope scope(rt);
      Operation look{OpKind::kFutexWake, 0, 0, key_of(&__weft_signal_word), 0};
      rt.scheduler().perform(look, site);
    }
    const int sig = takeable(rt, me);
    if (sig == 0) continue;
    sigset_t* from =
        sigismember(&me.pending_signals, sig) == 1 ? &me.pending_signals : &s.process_pending;
    sigdelset(from, sig);
    const ThreadId self = rt.scheduler().self();
    if (self != s.sender && !me.sleeping) {
      RuntimeScope scope(rt);
      rt.note_caveat(weft::CaveatKind::kSignalHandler,
                     signal_name(sig) + " sent at " + weft::code_mark(s.send_site) +
                         ", handled by thread " + rt.registry().name(self) +
                         " at the end of its step");
    }
    deliver_here(rt, me, sig);
  }
  me.taking_signals = false;
  refresh(rt);
}

// The scheduler's step hook while signals need looking at: the thread that runs gets its mask,
// and takes what it may.
void after_step(std::uint64_t site) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || rt->scheduler().self() == weft::kNoThread) return;
  NativeThread& me = rt->self();
  SignalState& s = rt->signals();
  if (s.masks_vary && !same_mask(me.signal_mask, s.os_mask)) set_os_mask(s, me.signal_mask);
  if (s.deliverable && !me.taking_signals && !me.in_sigwait) {
    if (me.must_look_for_signals || takeable(*rt, me)) take_signals(*rt, me, site);
  }
}

// A signal pending for `t` or for the process, in `set` (null: any), taken; 0 if none.
int take_pending(NativeRuntime& rt, NativeThread& t, const sigset_t* set) {
  for (sigset_t* pending : {&t.pending_signals, &rt.signals().process_pending})
    for (int sig = 1; sig < NSIG; ++sig)
      if (sigismember(pending, sig) == 1 && (!set || sigismember(set, sig) == 1)) {
        sigdelset(pending, sig);
        refresh(rt);
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
    const std::uint32_t seen = __weft_signal_word;
    if (weft::runtime::native::futex_wait(rt, &__weft_signal_word, seen, timed, site) != 0 &&
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

// sigsuspend and pause: wait for a signal that `mask` does not block and that is not discarded,
// deliver it here with `mask`, and return EINTR.
int suspend(NativeRuntime& rt, const sigset_t& mask, std::uint64_t site) {
  sigset_t wanted;
  sigfillset(&wanted);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sigismember(&mask, sig) == 1) sigdelset(&wanted, sig);
  NativeThread& me = rt.self();
  for (;;) {
    const int sig = wait_for_a_signal(rt, &wanted, false, site);
    if (sig == 0 || discarded(sig)) continue;
    const sigset_t own = me.signal_mask;
    me.signal_mask = mask;
    deliver_here(rt, me, sig);
    me.signal_mask = own;
    set_os_mask(rt.signals(), own);
    errno = EINTR;
    return -1;
  }
}

// Whether some thread waits for `sig` in sigwait, sigsuspend or pause.
bool awaited(NativeRuntime& rt, int sig) {
  for (ThreadId id = 0; id < rt.registry().size(); ++id) {
    const NativeThread& t = rt.thread(id);
    if (t.in_sigwait && sigismember(&t.awaited_signals, sig) == 1) return true;
  }
  return false;
}

// Whether some living thread blocks `sig`.
bool blocked_somewhere(NativeRuntime& rt, int sig) {
  for (ThreadId id = 0; id < rt.registry().size(); ++id)
    if (alive(rt, id) && sigismember(&rt.thread(id).signal_mask, sig) == 1) return true;
  return false;
}

// kill or sigqueue to this process: pending for the process, for a thread that waits for it or
// does not block it to take (`send`: the real call, for what is not a signal to deliver).
template <typename Send>
int send_to_process(NativeRuntime& rt, int sig, std::uint64_t site, Send send) {
  if (sig <= 0 || sig >= NSIG) return send();  // asks whether the process exists, or EINVAL
  SignalState& s = rt.signals();
  {
    RuntimeScope scope(rt);
    // Ignored where no thread blocks it: the kernel drops it at once.
    if (discarded(sig) && !awaited(rt, sig) && !blocked_somewhere(rt, sig)) return 0;
    weft::runtime::native::wake_signal_waiters(rt, site);
    sigaddset(&s.process_pending, sig);
    s.sender = rt.scheduler().self();
    s.send_site = site;
    for (ThreadId id = 0; id < rt.registry().size(); ++id) {
      NativeThread& t = rt.thread(id);
      if (id != s.sender && alive(rt, id) && !t.in_sigwait && sigismember(&t.signal_mask, sig) != 1)
        t.must_look_for_signals = true;
    }
    refresh(rt);
    // The kernel may pick a thread that waits in a call weft does not interrupt (a lock, a
    // semaphore, a condition variable, a join): that choice is not tried.
    for (ThreadId id = 0; id < rt.registry().size(); ++id) {
      const NativeThread& t = rt.thread(id);
      if (id != s.sender && !t.in_sigwait && sigismember(&t.signal_mask, sig) != 1 &&
          rt.scheduler().blocked(id))
        rt.note_caveat(weft::CaveatKind::kSignalHandler,
                       signal_name(sig) + " sent at " + weft::code_mark(site) + " while thread " +
                           rt.registry().name(id) + " waited in a call it would interrupt");
    }
  }
  NativeThread& me = rt.self();
  if (!me.taking_signals && takeable(rt, me)) take_signals(rt, me, site);
  return 0;
}

bool names_this_process(pid_t pid) {
  return pid == 0 || pid == getpid();
}

}  // namespace

namespace weft::runtime::native {

const sigset_t& process_signal_mask() {
  static const sigset_t mask = os_mask_now();
  return mask;
}

void start_signals(NativeRuntime& rt) {
  SignalState& s = rt.signals();
  s = SignalState{};
  sigemptyset(&s.process_pending);
  s.os_mask = process_signal_mask();
  rt.thread(kMainThread).signal_mask = s.os_mask;
}

void wake_signal_waiters(NativeRuntime& rt, std::uint64_t site) {
  // The wake is the visible operation; what it delivers is set by the caller in the same step,
  // before any other thread runs.
  Operation wake{OpKind::kFutexWake, 0, 0, key_of(&__weft_signal_word), UINT32_MAX};
  rt.scheduler().perform(wake, site);
  ++__weft_signal_word;
}

void note_signal_mask_changed(NativeRuntime& rt, std::uint64_t site) {
  SignalState& s = rt.signals();
  NativeThread& me = rt.self();
  s.os_mask = os_mask_now();
  me.signal_mask = s.os_mask;
  s.masks_vary = true;
  refresh(rt);
  // The sender of what is now taken is this thread, where it unblocked it: delivered at once.
  if (!me.taking_signals && takeable(rt, me)) {
    s.sender = rt.scheduler().self();
    s.send_site = site;
    take_signals(rt, me, site);
  }
}

void send_to_thread(NativeRuntime& rt, ThreadId target, int sig, std::uint64_t site) {
  SignalState& s = rt.signals();
  RuntimeScope scope(rt);
  wake_signal_waiters(rt, site);
  sigaddset(&rt.thread(target).pending_signals, sig);
  s.sender = rt.scheduler().self();
  s.send_site = site;
  refresh(rt);
}

void note_signal_handler_installed() {
  handlers_installed = true;
}

bool interruptible_sleep(NativeRuntime& rt, std::uint64_t site) {
  NativeThread& me = rt.self();
  const std::uint64_t handled = me.signals_handled;
  me.sleeping = true;
  // With handlers, the sleep is a look for signals: a send before it is delivered at its end,
  // one after it is not, and the exploration tries both (a plain yield commutes with the send).
  rt.scheduler().perform(handlers_installed
                             ? Operation{OpKind::kFutexWake, 0, 0, key_of(&__weft_signal_word), 0}
                             : Operation{OpKind::kYield},
                         site);
  me.sleeping = false;
  return me.signals_handled != handled;
}

void explain_blocked_signals(NativeRuntime& rt, Trace& trace) {
  if (trace.outcome != Outcome::kDeadlock) return;
  for (const PendingThread& p : trace.pending) {
    if (p.enabled || p.thread >= rt.registry().size()) continue;
    const NativeThread& t = rt.thread(p.thread);
    if (t.in_sigwait) continue;  // its wait is for signals: an ordinary deadlock
    const int sig = takeable(rt, t);
    if (sig == 0) continue;
    trace.outcome = Outcome::kUnsupported;
    trace.message = "the program sent " + signal_name(sig) + " at " +
                    code_mark(rt.signals().send_site) + " while thread " +
                    rt.registry().name(p.thread) +
                    " waited in a call that the signal would interrupt or run its handler "
                    "during; weft does not model that, and every thread is blocked until it "
                    "does";
    trace.failing_thread = p.thread;
    return;
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

// A signal to the calling thread: handled now, or pending for it while it blocks it (the OS
// thread is every weft thread's: left to the kernel, it would reach whichever ran next).
int raise(int sig) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || rt->scheduler().self() == weft::kNoThread || sig <= 0 || sig >= NSIG)
    return WEFT_REAL(raise, sig);
  NativeThread& me = rt->self();
  if (sigismember(&me.signal_mask, sig) == 1) {
    sigaddset(&me.pending_signals, sig);
    refresh(*rt);
    return 0;
  }
  deliver_here(*rt, me, sig);
  return 0;
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
  return suspend(*rt, rt->self().signal_mask, WEFT_CALLER_SITE());
}

}  // extern "C"
