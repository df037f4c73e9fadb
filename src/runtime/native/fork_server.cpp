// The program's real main(). Run by weft, it becomes a fork server: from this single-threaded
// point before the program's own main, it forks one child per execution, which runs the program
// under the scheduler and writes its trace into memory shared with weft. Run on its own, the
// program simply runs.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "execution_worker.hpp"
#include "memory_description.hpp"
#include "native_runtime.hpp"
#include "process_state.hpp"
#include "real_functions.hpp"
#include "thread_storage.hpp"
#include "weft/trace/wire.hpp"

extern "C" int __weft_main(int argc, char** argv, char** envp);
extern "C" char __executable_start;

// weft checks that a binary contains this before running it.
extern "C" __attribute__((used)) const char weft_runtime_marker[] = "weft-runtime-v1";

namespace weft::runtime::native {
namespace {

// The log and the execution a dying child reports through (its signal handler has no other way
// to find them).
TraceLog* g_log = nullptr;

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

NativeOptions options_from_env() {
  NativeOptions o;
  const char* points = std::getenv(weft::native::kPointsEnv);
  o.points = points && std::strcmp(points, "all") == 0 ? Points::kAll : Points::kSync;
  o.max_steps_per_thread =
      static_cast<std::uint32_t>(env_number(weft::native::kMaxStepsEnv, o.max_steps_per_thread));
  o.max_threads =
      static_cast<std::uint32_t>(env_number(weft::native::kMaxThreadsEnv, o.max_threads));
  if (const char* v = std::getenv(weft::native::kNondetEnv))
    o.nondet_value = std::strtoll(v, nullptr, 10);
  const char* keep = std::getenv(weft::native::kKeepSpinningEnv);
  o.stop_spinning = !(keep && *keep == '1');
  const char* checks = std::getenv(weft::native::kMemoryChecksEnv);
  o.memory_checks = !(checks && *checks == '0');
  const char* leaks = std::getenv(weft::native::kLeaksEnv);
  o.leaks = leaks && *leaks == '1';
  for (const char* p = std::getenv(weft::native::kPromotedSitesEnv); p && *p;) {
    char* end = nullptr;
    const std::uint64_t site = std::strtoull(p, &end, 16);
    if (end == p) break;
    o.promoted_sites.push_back(site);
    p = *end == ',' ? end + 1 : end;
  }
  std::sort(o.promoted_sites.begin(), o.promoted_sites.end());
  return o;
}

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "weft runtime: %s: %s\n", what, std::strerror(errno));
  _exit(2);
}

void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) die("cannot write to weft");
    done += static_cast<std::size_t>(n);
  }
}

// Reads one line from weft; false at end of file. Buffered: one read per command, not per byte.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  bool next(std::string& line) {
    while (true) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        line.assign(buffer_, 0, nl);
        buffer_.erase(0, nl + 1);
        return true;
      }
      char chunk[4096];
      const ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  // Best effort: the process is dying anyway. Say where, and who was running.
  std::uint64_t pc = 0, fp = 0, sp = 0;
  if (context) {
    const auto& registers = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
    pc = registers[REG_RIP];
    fp = registers[REG_RBP];
    sp = registers[REG_RSP];
  }
  if (g_log) {
    std::uint64_t address = reinterpret_cast<std::uint64_t>(info ? info->si_addr : nullptr);
    // An illegal instruction: the instruction itself says why (it is mapped: it just ran).
    if (sig == SIGILL && pc) {
      std::uint16_t bytes;
      std::memcpy(&bytes, reinterpret_cast<const void*>(pc), sizeof bytes);
      address = bytes;
    }
    g_log->note_fault(sig, pc, address);
    if (NativeRuntime* rt = NativeRuntime::active()) {
      rt->flush_log();
      g_log->append('C', rt->registry().name(rt->scheduler().self()));
      const std::string where = describe_crash(sig, pc, address, fp, sp);
      if (!where.empty()) g_log->append('W', where);
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_crash_handlers() {
  static char alternate_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alternate_stack;
  ss.ss_size = sizeof alternate_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_signal;
  hide_signal_handler(on_fatal_signal);
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  // Faults, and the signals a program may send itself that end it.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP, SIGTERM, SIGINT,
                  SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE})
    sigaction(sig, &sa, nullptr);
}

// One controlled execution in this process; its trace goes to `log`. The runtime is never
// destroyed: right after it the process exits, or the worker writes its memory snapshot back,
// and tearing down stacks would only cost time.
void run_execution(const std::string& directive_text, TraceLog& log, bool break_on_bug, int argc,
                   char** argv, char** envp, bool in_worker = false) {
  log.reset();
  g_log = &log;
  NativeOptions options = options_from_env();
  options.in_worker = in_worker;
  NativeRuntime& rt = *new NativeRuntime(options, &log);
  rt.break_on_bug = break_on_bug;
  TestDirective directive;
  try {
    directive = decode_directive(directive_text, rt.registry());
  } catch (const WireError& e) {
    std::fprintf(stderr, "weft runtime: bad directive: %s\n", e.what());
    _exit(2);
  }
  Trace trace = rt.run(directive, argc, argv, envp);
  if (break_on_bug && trace.outcome == Outcome::kDeadlock) raise(SIGTRAP);
  trace.events.clear();
  trace.enabled.clear();
  trace.finished_thread.clear();
  trace.sites.clear();
  log.append('T', encode_trace(trace, rt.registry()));
  // What the program wrote through stdio and did not flush, as exit() would: the worker's
  // memory (stdio's buffers with it) is written back next, and a fresh child ends in _exit.
  std::fflush(nullptr);
}

void limit(int resource, std::uint64_t value) {
  if (value == 0) return;
  rlimit r{value, value};
  setrlimit(resource, &r);
}

// What a worker's executions need besides the directive.
struct ExecutionContext {
  TraceLog* log;
  int argc;
  char** argv;
  char** envp;
  const ProgramArguments* arguments;  // as the process received them
};

void run_in_worker(const char* directive, void* context) {
  auto& c = *static_cast<ExecutionContext*>(context);
  c.arguments->restore();  // the last execution may have edited them
  run_execution(directive, *c.log, false, c.argc, c.argv, c.envp, true);
}

[[noreturn]] void serve(const char* control, int argc, char** argv, char** envp) {
  int ctl = -1, status = -1, shm = -1;
  unsigned long long bytes = 0;
  if (std::sscanf(control, "%d,%d,%d,%llu", &ctl, &status, &shm, &bytes) != 4)
    die("malformed WEFT_CONTROL");
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
  if (memory == MAP_FAILED) die("cannot map the trace log");
  TraceLog log(memory, bytes);
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // if weft goes, so do we
  char hello[64];
  std::snprintf(hello, sizeof hello, "HELLO %d %llx\n", weft::native::kProtocolVersion,
                reinterpret_cast<unsigned long long>(&__executable_start));
  write_all(status, hello);

  const std::uint64_t cpu_seconds = env_number(weft::native::kCpuLimitEnv, 0);
  const std::uint64_t memory_mb = env_number(weft::native::kMemoryLimitEnv, 0);
  const std::uint64_t timeout_ms = env_number(weft::native::kTimeoutEnv, 0);
  // What every child needs is set up once here and inherited through fork: signal handlers,
  // and (unless asked otherwise) the program's output going nowhere.
  install_crash_handlers();
  if (std::getenv("WEFT_SHOW_OUTPUT") == nullptr) {
    const int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    close(null);
  }
  // Executions run in one worker process that restores its memory after each, unless asked
  // otherwise or the worker cannot snapshot itself; then each runs in a freshly forked child.
  const char* fresh = std::getenv(weft::native::kFreshProcessEnv);
  if (!(fresh && *fresh == '1')) {
    const ProgramArguments arguments(argc, argv, envp);
    ExecutionContext context{&log, argc, argv, envp, &arguments};
    ExecutionWorker worker(&run_in_worker, &context, {cpu_seconds, timeout_ms, memory_mb << 20},
                           ctl, status);
    if (worker.start()) worker.serve();
  }
  LineReader commands(ctl);
  std::string line;
  while (commands.next(line)) {
    if (line == "QUIT") break;
    if (line.rfind("RUN ", 0) != 0) die("unknown command from weft");
    std::fflush(nullptr);
    const pid_t pid = WEFT_REAL(fork);
    if (pid < 0) die("fork failed");
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      close(ctl);
      close(status);
      limit(RLIMIT_CPU, cpu_seconds);
      limit(RLIMIT_CORE, 0);
      run_execution(line.substr(4), log, false, argc, argv, envp);
      _exit(0);
    }
    // Wait for the child, at most the time limit; then it is killed.
    const ChildEnd end = wait_for_child(pid, timeout_ms, memory_mb << 20);
    if (end != ChildEnd::kExited) kill(pid, SIGKILL);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0) {
      if (errno != EINTR) die("waitpid failed");
    }
    const char* why = end == ChildEnd::kTimedOut      ? " timeout"
                      : end == ChildEnd::kOutOfMemory ? " memory"
                                                      : "";
    write_all(status, "EXIT " + std::to_string(wstatus) + why + "\n");
  }
  _exit(0);
}

// weft replay: one execution, in this process, with the program's output shown.
[[noreturn]] void replay(const char* directive, int argc, char** argv, char** envp) {
  void* memory = nullptr;
  std::size_t bytes = 0;
  if (const char* control = std::getenv(weft::native::kControlEnv)) {
    int ctl, status, shm;
    unsigned long long n = 0;
    if (std::sscanf(control, "%d,%d,%d,%llu", &ctl, &status, &shm, &n) == 4) {
      memory = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
      bytes = n;
      if (memory == MAP_FAILED) die("cannot map the trace log");
      char hello[64];
      std::snprintf(hello, sizeof hello, "HELLO %d %llx\n", weft::native::kProtocolVersion,
                    reinterpret_cast<unsigned long long>(&__executable_start));
      write_all(status, hello);
      close(status);
    }
  }
  if (!memory) {
    bytes = std::size_t{16} << 20;
    memory = std::calloc(1, bytes);
  }
  TraceLog log(memory, bytes);
  install_crash_handlers();
  const char* brk = std::getenv(weft::native::kBreakOnBugEnv);
  run_execution(directive, log, brk && *brk == '1', argc, argv, envp);
  std::fflush(nullptr);
  _exit(0);
}

}  // namespace
}  // namespace weft::runtime::native

int main(int argc, char** argv, char** envp) {
  using namespace weft::runtime::native;
  // Looked up once, here, so that a worker's snapshot holds it.
  GlibcThreadStorage::instance();
  if (const char* directive = std::getenv(weft::native::kReplayEnv))
    replay(directive, argc, argv, envp);
  if (const char* control = std::getenv(weft::native::kControlEnv))
    serve(control, argc, argv, envp);
  return __weft_main(argc, argv, envp);
}
