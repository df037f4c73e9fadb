// Restoring the process state that a worker's memory snapshot does not hold (process_state.hpp).
// The kernel settings are restored precisely, not by resetting everything after every execution:
// the interposed functions record the value a setting had before the execution first changed it,
// and only those are put back (64 sigaction calls per execution would cost more than most
// executions do).
#include "process_state.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <bitset>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "native_runtime.hpp"
#include "real_functions.hpp"
#include "signals.hpp"

extern "C" char** environ;

namespace weft::runtime::native {

// ---- arguments and environment ------------------------------------------------------------

struct ProgramArguments::Saved {
  char** argv = nullptr;
  std::vector<char*> arg_pointers;  // argv[0..argc], the null included
  std::vector<std::string> args;    // the bytes of each argument string
  char** envp = nullptr;
  std::vector<char*> env_pointers;  // the null included
  std::vector<std::string> env;
};

ProgramArguments::ProgramArguments(int argc, char** argv, char** envp) : saved_(new Saved) {
  saved_->argv = argv;
  for (int i = 0; i <= argc; ++i) saved_->arg_pointers.push_back(argv[i]);
  for (int i = 0; i < argc; ++i) saved_->args.emplace_back(argv[i]);
  saved_->envp = envp;
  for (char** e = envp; e && *e; ++e) {
    saved_->env_pointers.push_back(*e);
    saved_->env.emplace_back(*e);
  }
  saved_->env_pointers.push_back(nullptr);
}

ProgramArguments::~ProgramArguments() {
  delete saved_;
}

void ProgramArguments::restore() const {
  // Pointers first, then the bytes they point to, with their terminators, in place: the program
  // may keep a pointer into them (getopt's optarg, a saved argv[0]).
  const Saved& s = *saved_;
  for (std::size_t i = 0; i < s.arg_pointers.size(); ++i) s.argv[i] = s.arg_pointers[i];
  for (std::size_t i = 0; i < s.args.size(); ++i)
    std::memcpy(s.arg_pointers[i], s.args[i].c_str(), s.args[i].size() + 1);
  if (!s.envp) return;
  for (std::size_t i = 0; i < s.env_pointers.size(); ++i) s.envp[i] = s.env_pointers[i];
  for (std::size_t i = 0; i < s.env.size(); ++i)
    std::memcpy(s.env_pointers[i], s.env[i].c_str(), s.env[i].size() + 1);
  environ = s.envp;  // also restored with libc's data; set here so the order does not matter
}

// ---- kernel settings ----------------------------------------------------------------------

namespace {

// What the running execution changed, and the values before its first change. Lives in bss:
// the snapshot restore after the execution clears it again.
struct ChangedSettings {
  int cwd = -1;  // a descriptor of the directory before the first chdir
  bool umask_changed = false;
  mode_t umask = 0;
  bool signal_changed[NSIG] = {};
  struct sigaction signal_action[NSIG];
  bool mask_changed = false;
  sigset_t mask;
  bool limit_changed[RLIM_NLIMITS] = {};
  rlimit limit[RLIM_NLIMITS];
  bool timer_set = false;
  struct ClosedDescriptor {
    int fd, copy, flags;
  };
  static constexpr int kMaxClosed = 16;
  ClosedDescriptor closed[kMaxClosed];
  int closed_count = 0;
};
ChangedSettings g_changed;

// The descriptors open when the worker started (set once, before any execution).
OpenDescriptorSet g_open_at_start;

void (*g_hidden_handler)(int, siginfo_t*, void*) = nullptr;  // set once, before any execution

// Reports weft's own fatal-signal handler as the default disposition.
void hide(struct sigaction* old) {
  if (old && g_hidden_handler && (old->sa_flags & SA_SIGINFO) &&
      old->sa_sigaction == g_hidden_handler) {
    *old = {};
    old->sa_handler = SIG_DFL;
  }
}

sighandler_t hide(sighandler_t old) {
  const bool weft_own =
      g_hidden_handler && reinterpret_cast<void*>(old) == reinterpret_cast<void*>(g_hidden_handler);
  return weft_own ? SIG_DFL : old;
}

bool recording() {
  return NativeRuntime::active() != nullptr;
}

void note_cwd() {
  if (recording() && g_changed.cwd < 0)
    g_changed.cwd = WEFT_REAL(open, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

void note_signal(int sig) {
  if (!recording() || sig <= 0 || sig >= NSIG || g_changed.signal_changed[sig]) return;
  if (WEFT_REAL(sigaction, sig, nullptr, &g_changed.signal_action[sig]) == 0)
    g_changed.signal_changed[sig] = true;
}

void note_mask() {
  if (!recording() || g_changed.mask_changed) return;
  if (WEFT_REAL(sigprocmask, SIG_SETMASK, nullptr, &g_changed.mask) == 0)
    g_changed.mask_changed = true;
}

void note_limit(int resource) {
  if (!recording() || resource < 0 || resource >= RLIM_NLIMITS || g_changed.limit_changed[resource])
    return;
  if (getrlimit(static_cast<__rlimit_resource>(resource), &g_changed.limit[resource]) == 0)
    g_changed.limit_changed[resource] = true;
}

void note_timer() {
  if (recording()) g_changed.timer_set = true;
}

// Where the copies of closed descriptors go: high, so that the program's next descriptor gets
// the number a fresh process would give it.
int copy_floor() {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == RLIM_INFINITY) return 1000;
  return files.rlim_cur > 128 ? static_cast<int>(files.rlim_cur) - 64 : 64;
}

}  // namespace

OpenDescriptorSet open_descriptors() {
  // poll refuses more descriptors than RLIMIT_NOFILE allows: the soft limit is raised for the
  // call (to the hard one at most) and put back; what poll cannot cover is asked one by one.
  rlimit files{};
  const bool limited = getrlimit(RLIMIT_NOFILE, &files) == 0;
  rlimit raised = files;
  if (limited && files.rlim_cur < kDescriptorsFollowed) {
    raised.rlim_cur = files.rlim_max < kDescriptorsFollowed ? files.rlim_max : kDescriptorsFollowed;
    if (setrlimit(RLIMIT_NOFILE, &raised) != 0) raised = files;
  }
  int polled_count = kDescriptorsFollowed;
  if (limited && raised.rlim_cur < kDescriptorsFollowed)
    polled_count = static_cast<int>(raised.rlim_cur);
  // Mapped for the call: 32 KiB is much for a thread's stack, and as a static array it would sit
  // in the memory a worker compares and writes back after every execution.
  const std::size_t bytes = sizeof(pollfd) * kDescriptorsFollowed;
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  auto* polled = m == MAP_FAILED ? nullptr : static_cast<pollfd*>(m);
  if (polled)
    for (int fd = 0; fd < polled_count; ++fd) polled[fd] = {fd, 0, 0};
  const bool polled_all =
      polled && WEFT_REAL(poll, polled, static_cast<nfds_t>(polled_count), 0) >= 0;
  if (raised.rlim_cur != files.rlim_cur) setrlimit(RLIMIT_NOFILE, &files);
  OpenDescriptorSet open;
  for (int fd = 0; fd < kDescriptorsFollowed; ++fd)
    open[static_cast<std::size_t>(fd)] = polled_all && fd < polled_count
                                             ? !(polled[fd].revents & POLLNVAL)
                                             : fcntl(fd, F_GETFD) != -1;
  if (polled) munmap(m, bytes);
  return open;
}

void note_descriptors_open_at_start(const OpenDescriptorSet& open) {
  g_open_at_start = open;
}

void note_close(int fd) {
  if (!recording() || fd < 0 || fd >= kDescriptorsFollowed ||
      !g_open_at_start[static_cast<std::size_t>(fd)])
    return;
  ChangedSettings& c = g_changed;
  for (int i = 0; i < c.closed_count; ++i)
    if (c.closed[i].fd == fd) return;  // the first copy is the one from before the execution
  const int flags = fcntl(fd, F_GETFD);
  if (flags == -1) return;  // not open: the close fails, and nothing changes
  const int copy =
      c.closed_count < ChangedSettings::kMaxClosed ? fcntl(fd, F_DUPFD_CLOEXEC, copy_floor()) : -1;
  if (copy < 0) {
    NativeRuntime::active()->note_unrestored("close of a descriptor open before main");
    return;
  }
  c.closed[c.closed_count++] = {fd, copy, flags};
}

void hide_signal_handler(void (*handler)(int, siginfo_t*, void*)) {
  g_hidden_handler = handler;
}

void restore_process_settings() {
  ChangedSettings& c = g_changed;
  if (c.cwd >= 0) {
    if (fchdir(c.cwd) != 0) std::perror("weft runtime: cannot restore the working directory");
    close(c.cwd);
  }
  if (c.umask_changed) WEFT_REAL(umask, c.umask);
  if (c.timer_set) {
    const itimerval off{};
    for (int which : {ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF})
      WEFT_REAL(setitimer, static_cast<__itimer_which>(which), &off, nullptr);
  }
  for (int sig = 1; sig < NSIG; ++sig)
    if (c.signal_changed[sig]) WEFT_REAL(sigaction, sig, &c.signal_action[sig], nullptr);
  if (c.mask_changed) WEFT_REAL(sigprocmask, SIG_SETMASK, &c.mask, nullptr);
  for (int r = 0; r < RLIM_NLIMITS; ++r)
    if (c.limit_changed[r]) WEFT_REAL(setrlimit, static_cast<__rlimit_resource>(r), &c.limit[r]);
  for (int i = 0; i < c.closed_count; ++i) {
    dup2(c.closed[i].copy, c.closed[i].fd);
    fcntl(c.closed[i].fd, F_SETFD, c.closed[i].flags);
    WEFT_REAL(close, c.closed[i].copy);
  }
  c = ChangedSettings{};
}

}  // namespace weft::runtime::native

using namespace weft::runtime::native;

// The interposed functions only record the value before the change, then do what the C
// library does: the program sees the change within its execution.
extern "C" {

// Closing a descriptor open before main (a stream a constructor opened, stdin): put back after
// the execution (note_close).
int fclose(FILE* stream) {
  if (stream) note_close(fileno(stream));
  return WEFT_REAL(fclose, stream);
}

int chdir(const char* path) __THROW {
  note_cwd();
  return WEFT_REAL(chdir, path);
}

int fchdir(int fd) __THROW {
  note_cwd();
  return WEFT_REAL(fchdir, fd);
}

mode_t umask(mode_t mask) __THROW {
  const mode_t old = WEFT_REAL(umask, mask);
  if (recording() && !g_changed.umask_changed) {
    g_changed.umask_changed = true;
    g_changed.umask = old;
  }
  return old;
}

int sigaction(int sig, const struct sigaction* action, struct sigaction* old) __THROW {
  if (action) note_signal(sig);
  // A handler of the program's (weft's own crash handler, installed through here too, is not).
  const bool weft_own = action && (action->sa_flags & SA_SIGINFO) && g_hidden_handler &&
                        action->sa_sigaction == g_hidden_handler;
  if (action && action->sa_handler != SIG_DFL && action->sa_handler != SIG_IGN && !weft_own)
    weft::runtime::native::note_signal_handler_installed();
  const int r = WEFT_REAL(sigaction, sig, action, old);
  if (r == 0) hide(old);
  return r;
}

sighandler_t signal(int sig, sighandler_t handler) __THROW {
  note_signal(sig);
  if (handler != SIG_DFL && handler != SIG_IGN && handler != SIG_ERR)
    weft::runtime::native::note_signal_handler_installed();
  return hide(WEFT_REAL(signal, sig, handler));
}

sighandler_t sysv_signal(int sig, sighandler_t handler) __THROW {
  note_signal(sig);
  if (handler != SIG_DFL && handler != SIG_IGN && handler != SIG_ERR)
    weft::runtime::native::note_signal_handler_installed();
  return hide(WEFT_REAL(sysv_signal, sig, handler));
}

int sigprocmask(int how, const sigset_t* set, sigset_t* old) __THROW {
  if (set) note_mask();
  const int r = WEFT_REAL(sigprocmask, how, set, old);
  if (NativeRuntime* rt = NativeRuntime::active();
      rt && set && r == 0 && rt->scheduler().self() != weft::kNoThread)
    weft::runtime::native::note_signal_mask_changed(*rt, WEFT_CALLER_SITE());
  return r;
}

int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) __THROW {
  if (set) note_mask();
  const int r = WEFT_REAL(pthread_sigmask, how, set, old);
  if (NativeRuntime* rt = NativeRuntime::active();
      rt && set && r == 0 && rt->scheduler().self() != weft::kNoThread)
    weft::runtime::native::note_signal_mask_changed(*rt, WEFT_CALLER_SITE());
  return r;
}

int setrlimit(__rlimit_resource_t resource, const rlimit* limit) __THROW {
  note_limit(resource);
  return WEFT_REAL(setrlimit, resource, limit);
}

int prlimit(pid_t pid, __rlimit_resource resource, const rlimit* limit, rlimit* old) __THROW {
  if (limit && (pid == 0 || pid == getpid())) note_limit(resource);
  return WEFT_REAL(prlimit, pid, resource, limit, old);
}

unsigned int alarm(unsigned int seconds) __THROW {
  note_timer();
  return WEFT_REAL(alarm, seconds);
}

int setitimer(__itimer_which_t which, const itimerval* value, itimerval* old) __THROW {
  note_timer();
  return WEFT_REAL(setitimer, which, value, old);
}

}  // extern "C"

// ---- detected, not restored ----------------------------------------------------------------
// Changes a worker cannot undo (credentials dropped for good, a priority only root may raise
// again) or that few tests make: the log says the execution made them, and weft's verdict
// suggests --fresh-process (docs/process-state.md).

namespace {

void note_unrestored(const char* what) {
  if (NativeRuntime* rt = NativeRuntime::active()) rt->note_unrestored(what);
}

// prctl options that change the process (the getters and the thread's name do not matter).
bool prctl_changes_process(int option) {
  switch (option) {
    case PR_SET_PDEATHSIG:
    case PR_SET_DUMPABLE:
    case PR_SET_KEEPCAPS:
    case PR_SET_SECCOMP:
    case PR_CAPBSET_DROP:
    case PR_SET_SECUREBITS:
    case PR_SET_TIMERSLACK:
    case PR_SET_NO_NEW_PRIVS:
    case PR_SET_CHILD_SUBREAPER:
    case PR_SET_THP_DISABLE:
    case PR_SET_TSC:
    case PR_SET_UNALIGN:
    case PR_SET_FPEMU:
    case PR_SET_FPEXC:
    case PR_SET_ENDIAN:
    case PR_SET_MM:
    case PR_SET_PTRACER:
    case PR_CAP_AMBIENT:
    case PR_SET_SPECULATION_CTRL:
    case PR_SET_IO_FLUSHER:
      return true;
    default:
      return false;
  }
}

}  // namespace

extern "C" {

int nice(int increment) __THROW {
  note_unrestored("nice");
  return WEFT_REAL(nice, increment);
}

int setpriority(__priority_which_t which, id_t who, int priority) __THROW {
  note_unrestored("setpriority");
  return WEFT_REAL(setpriority, which, who, priority);
}

int prctl(int option, ...) __THROW {
  va_list args;
  va_start(args, option);
  unsigned long a[4];
  for (unsigned long& x : a) x = va_arg(args, unsigned long);
  va_end(args);
  if (prctl_changes_process(option)) note_unrestored("prctl");
  return WEFT_REAL(prctl, option, a[0], a[1], a[2], a[3]);
}

#define WEFT_DETECTED(name, params, args)      \
  int name params __THROW {                    \
    note_unrestored(#name);                    \
    return WEFT_REAL(name, WEFT_UNPAREN args); \
  }
#define WEFT_UNPAREN(...) __VA_ARGS__

WEFT_DETECTED(setuid, (uid_t id), (id))
WEFT_DETECTED(setgid, (gid_t id), (id))
WEFT_DETECTED(seteuid, (uid_t id), (id))
WEFT_DETECTED(setegid, (gid_t id), (id))
WEFT_DETECTED(setreuid, (uid_t r, uid_t e), (r, e))
WEFT_DETECTED(setregid, (gid_t r, gid_t e), (r, e))
WEFT_DETECTED(setresuid, (uid_t r, uid_t e, uid_t s), (r, e, s))
WEFT_DETECTED(setresgid, (gid_t r, gid_t e, gid_t s), (r, e, s))
WEFT_DETECTED(setgroups, (size_t n, const gid_t* groups), (n, groups))
WEFT_DETECTED(unshare, (int flags), (flags))
WEFT_DETECTED(setns, (int fd, int type), (fd, type))
WEFT_DETECTED(chroot, (const char* path), (path))

int personality(unsigned long persona) __THROW {
  if (persona != 0xffffffffUL) note_unrestored("personality");  // 0xffffffff only asks
  return WEFT_REAL(personality, persona);
}

}  // extern "C"
