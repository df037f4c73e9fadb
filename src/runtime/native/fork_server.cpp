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
#include "weft/runtime/hooks.h"
#include "weft/runtime/native_protocol.hpp"

extern "C" char __executable_start;

// weft checks that a binary contains this before running it.
extern "C" __attribute__((used)) const char __weft_runtime_marker[] = "weft-runtime-v1";
// And this, which weft checks to refuse a binary built by another version of weft-cc.
extern "C" __attribute__((used)) const char __weft_protocol_marker[] = WEFT_PROTOCOL_MARKER;

namespace weft::runtime::native {
namespace {

// The log a dying child reports through (its signal handler has no other way to find it).
weft::native::LogWriter* g_log = nullptr;

// What the runtime takes from the options weft passed through the environment.
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

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  // Best effort: the process is dying anyway. Say where, and who was running.
  std::uint64_t pc = 0, fp = 0, sp = 0;
  if (context) {
    const auto& registers = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
    pc = registers[REG_RIP];
    // A fault while the runtime read a value the program was about to access (or had just
    // written): the program's access is where it went wrong.
    if (NativeRuntime::value_probe_site()) pc = NativeRuntime::value_probe_site();
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
      if (rt->scheduler().self() != weft::kNoThread)
        g_log->crashed(rt->scheduler().self(), rt->registry());
      const std::string where = describe_crash(sig, pc, address, fp, sp);
      if (!where.empty()) g_log->text(weft::native::Record::kWhere, where);
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_crash_handlers() {
  // Shared, not private: a worker's memory snapshot copies every private writable mapping after
  // each execution, and this one is written only by a crash, which ends the process.
  constexpr std::size_t kAlternateStack = 64 * 1024;
  void* alternate_stack =
      mmap(nullptr, kAlternateStack, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (alternate_stack == MAP_FAILED) die("cannot map the signal stack");
  stack_t ss{};
  ss.ss_sp = alternate_stack;
  ss.ss_size = kAlternateStack;
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

// One controlled execution in this process, of the directive in `shared`; its trace goes to the
// log there. The runtime is never destroyed: right after it the process exits, or the worker
// writes its memory snapshot back, and tearing down stacks would only cost time.
void run_execution(void* shared, weft::native::LogWriter& log, const NativeOptions& options,
                   bool break_on_bug, int argc, char** argv, char** envp) {
  g_log = &log;
  NativeRuntime& rt = *new NativeRuntime(options, &log);
  rt.break_on_bug = break_on_bug;
  TestDirective directive;
  try {
    directive = weft::native::decode_directive(weft::native::directive_of(shared),
                                               weft::native::channel_of(shared).directive_bytes,
                                               rt.registry());
  } catch (const weft::native::ProtocolError& e) {
    std::fprintf(stderr, "weft runtime: bad directive: %s\n", e.what());
    _exit(2);
  }
  log.reset(rt.registry().size(), weft::native::channel_of(shared).known_expressions);
  Trace trace = rt.run(directive, argc, argv, envp);
  if (break_on_bug && trace.outcome == Outcome::kDeadlock) raise(SIGTRAP);
  trace.clear_steps();
  log.end(trace, rt.registry());
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
  void* shared;
  weft::native::LogWriter* log;
  const NativeOptions* options;
  int argc;
  char** argv;
  char** envp;
  const ProgramArguments* arguments;  // as the process received them
};

void run_in_worker(void* context) {
  auto& c = *static_cast<ExecutionContext*>(context);
  c.arguments->restore();  // the last execution may have edited them
  run_execution(c.shared, *c.log, *c.options, false, c.argc, c.argv, c.envp);
}

// The shared memory weft passed: "STATUS,SHM,BYTES" in WEFT_CONTROL, mapped; `status` gets the
// pipe to say HELLO on.
void* map_shared(const char* control, int& status) {
  int shm = -1;
  unsigned long long bytes = 0;
  if (std::sscanf(control, "%d,%d,%llu", &status, &shm, &bytes) != 3 ||
      bytes != weft::native::kSharedBytes)
    die("malformed WEFT_CONTROL (was the program built by another version of weft-cc?)");
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
  if (memory == MAP_FAILED) die("cannot map the memory shared with weft");
  close(shm);
  return memory;
}

void say_hello(int status) {
  char hello[64];
  std::snprintf(hello, sizeof hello, "HELLO %d %llx\n", weft::native::kProtocolVersion,
                reinterpret_cast<unsigned long long>(&__executable_start));
  write_all(status, hello);
}

[[noreturn]] void serve(const char* control, int argc, char** argv, char** envp) {
  int status = -1;
  void* shared = map_shared(control, status);
  weft::native::Channel& channel = weft::native::channel_of(shared);
  weft::native::LogWriter log(weft::native::log_of(shared), weft::native::kLogBytes,
                              weft::native::mirror_of(shared), weft::native::kMirrorNodes);
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // if weft goes, so do we
  say_hello(status);
  close(status);

  const NativeOptions options(weft::native::ProgramOptions::from_environment());
  const weft::native::ProgramOptions& program = options;
  const std::uint64_t cpu_seconds = program.cpu_seconds();
  const std::uint64_t memory_mb = program.memory_mb;
  const auto timeout_ms = static_cast<std::uint64_t>(program.execution_seconds * 1000);
  // What every child needs is set up once here and inherited through fork: signal handlers,
  // and (unless asked otherwise) the program's output going nowhere.
  install_crash_handlers();
  if (!program.show_output) {
    const int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    close(null);
  }
  // Executions run in one worker process that restores its memory after each, unless asked
  // otherwise or the worker cannot snapshot itself; then each runs in a freshly forked child.
  if (!program.fresh_process) {
    const ProgramArguments arguments(argc, argv, envp);
    NativeOptions in_worker = options;
    in_worker.in_worker = true;
    ExecutionContext context{shared, &log, &in_worker, argc, argv, envp, &arguments};
    ExecutionWorker worker(&run_in_worker, &context, {cpu_seconds, timeout_ms, memory_mb << 20},
                           channel);
    if (worker.start()) worker.serve();
  }
  while (true) {
    weft::native::wait_for_change(channel.request, channel.reply.load(), channel.program_sleeping,
                                  -1);
    if (channel.command == weft::native::Command::kQuit) break;
    if (channel.command != weft::native::Command::kRun) die("unknown command from weft");
    std::fflush(nullptr);
    const pid_t pid = WEFT_REAL(fork);
    if (pid < 0) die("fork failed");
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      limit(RLIMIT_CPU, cpu_seconds);
      limit(RLIMIT_CORE, 0);
      run_execution(shared, log, options, false, argc, argv, envp);
      _exit(0);
    }
    // Wait for the child, at most the time limit; then it is killed.
    const ChildEnd end = wait_for_child(pid, timeout_ms, memory_mb << 20);
    if (end == ChildEnd::kTimedOut)
      channel.blocked_system_call = weft::native::blocked_system_call(pid);
    if (end != ChildEnd::kExited) kill(pid, SIGKILL);
    int wstatus = 0;
    rusage usage{};
    while (wait4(pid, &wstatus, 0, &usage) < 0) {
      if (errno != EINTR) die("waitpid failed");
    }
    weft::native::note_ended_peak(channel, usage.ru_maxrss);
    channel.exit_status = wstatus;
    channel.exit_reason = end == ChildEnd::kTimedOut      ? weft::native::ExitReason::kTimeout
                          : end == ChildEnd::kOutOfMemory ? weft::native::ExitReason::kMemory
                                                          : weft::native::ExitReason::kNone;
    weft::native::publish(channel.reply, channel.weft_sleeping);
  }
  _exit(0);
}

// After HELLO, for weft replay: the lines of /proc/self/maps that map code from a file, so that
// the replay names the library a step ran in (the fork server's weft reads itself). At most
// 48 KiB, which the pipe holds until weft reads it once the program has ended.
void say_mappings(int status) {
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  std::string maps;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
    maps.append(buf, static_cast<std::size_t>(n));
  close(fd);
  std::string out;
  for (std::size_t at = 0; at < maps.size();) {
    std::size_t end = maps.find('\n', at);
    if (end == std::string::npos) end = maps.size();
    const std::string line = maps.substr(at, end - at);
    at = end + 1;
    const std::size_t perms = line.find(' ');
    const bool code =
        perms != std::string::npos && perms + 3 < line.size() && line[perms + 3] == 'x';
    if (!code || line.find(" /") == std::string::npos) continue;
    if (out.size() + line.size() + 1 > (48u << 10)) break;
    out += line + "\n";
  }
  write_all(status, out);
}

// weft replay: one execution, in this process, with the program's output shown.
[[noreturn]] void replay(int argc, char** argv, char** envp) {
  const char* control = std::getenv(weft::native::kControlEnv);
  if (!control) die("weft replay did not pass WEFT_CONTROL");
  int status = -1;
  void* shared = map_shared(control, status);
  say_hello(status);
  say_mappings(status);
  close(status);
  weft::native::LogWriter log(weft::native::log_of(shared), weft::native::kLogBytes,
                              weft::native::mirror_of(shared), weft::native::kMirrorNodes);
  install_crash_handlers();
  const char* brk = std::getenv(weft::native::kBreakOnBugEnv);
  const NativeOptions options(weft::native::ProgramOptions::from_environment());
  run_execution(shared, log, options, brk && *brk == '1', argc, argv, envp);
  std::fflush(nullptr);
  _exit(0);
}

}  // namespace
}  // namespace weft::runtime::native

int main(int argc, char** argv, char** envp) {
  using namespace weft::runtime::native;
  // Looked up once, here, so that a worker's snapshot holds it.
  GlibcThreadStorage::instance();
  if (std::getenv(weft::native::kReplayEnv)) replay(argc, argv, envp);
  if (const char* control = std::getenv(weft::native::kControlEnv))
    serve(control, argc, argv, envp);
  return __weft_main(argc, argv, envp);
}
