#include "weft/driver/native_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

#include "weft/driver/one_line.hpp"
#include "weft/runtime/native_protocol.hpp"
#include "weft/runtime/pipe_wait.hpp"
#include "weft/trace/wire.hpp"

namespace weft::driver {
namespace {

constexpr std::size_t kLogBytes = std::size_t{64} << 20;  // sparse: only what is written counts

std::string errno_text() {
  return std::strerror(errno);
}

// The bytes of x86-64's ud2 instruction, as a little-endian 16-bit word.
constexpr std::uint64_t kUd2 = 0x0b0f;

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string signal_text(int sig) {
  const char* name = sigabbrev_np(sig);
  const char* what = sigdescr_np(sig);
  return std::string("SIG") + (name ? name : std::to_string(sig).c_str()) +
         (what ? std::string(" (") + what + ")" : std::string());
}

// The environment of the program: ours plus weft's settings.
std::vector<std::string> program_environment(const ProgramOptions& o) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view v(*e);
    if (v.starts_with("WEFT_")) continue;
    env.emplace_back(v);
  }
  env.push_back(std::string(native::kPointsEnv) + "=" + o.points);
  env.push_back(std::string(native::kMaxStepsEnv) + "=" + std::to_string(o.max_steps_per_thread));
  env.push_back(std::string(native::kMaxThreadsEnv) + "=" + std::to_string(o.max_threads));
  env.push_back(std::string(native::kNondetEnv) + "=" + std::to_string(o.nondet_value));
  if (o.execution_seconds > 0)
    env.push_back(std::string(native::kCpuLimitEnv) + "=" +
                  std::to_string(static_cast<std::uint64_t>(o.execution_seconds) + 1));
  env.push_back(std::string(native::kMemoryLimitEnv) + "=" + std::to_string(o.memory_mb));
  env.push_back(std::string(native::kTimeoutEnv) + "=" +
                std::to_string(static_cast<std::uint64_t>(o.execution_seconds * 1000)));
  if (o.show_output) env.push_back("WEFT_SHOW_OUTPUT=1");
  if (o.fresh_process) env.push_back(std::string(native::kFreshProcessEnv) + "=1");
  if (o.keep_spinning) env.push_back(std::string(native::kKeepSpinningEnv) + "=1");
  if (!o.memory_checks) env.push_back(std::string(native::kMemoryChecksEnv) + "=0");
  if (o.leaks) env.push_back(std::string(native::kLeaksEnv) + "=1");
  if (!o.promoted_sites.empty()) {
    std::string sites;
    for (std::uint64_t site : o.promoted_sites) sites += (sites.empty() ? "" : ",") + hex(site);
    env.push_back(std::string(native::kPromotedSitesEnv) + "=" + sites);
  }
  // Resolve every library's symbols once, in the fork server, rather than lazily in each child
  // (measured: about 12 fewer page faults per execution, 10-25% more executions per second).
  if (!std::getenv("LD_BIND_NOW")) env.push_back("LD_BIND_NOW=1");
  return env;
}

// In the child: runs the program, or reports why it could not through `error_fd`, the write end
// of a close-on-exec pipe (nothing arrives there when exec succeeds). The child prints nothing:
// the parent's error is weft's one line.
[[noreturn]] void exec_program(const std::vector<std::string>& argv,
                               const std::vector<std::string>& env, int error_fd) {
  // Addresses must repeat across runs (replay): no address-space randomization.
  personality(ADDR_NO_RANDOMIZE);
  std::vector<char*> a, e;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  for (const auto& s : env) e.push_back(const_cast<char*>(s.c_str()));
  e.push_back(nullptr);
  execvpe(a[0], a.data(), e.data());
  const int error = errno;
  [[maybe_unused]] auto n = write(error_fd, &error, sizeof error);
  _exit(127);
}

// In the parent, after fork: 0 once the child runs the program, or exec's errno. Closes `fds`.
int exec_error(const int fds[2]) {
  close(fds[1]);
  int error = 0;
  ssize_t n;
  while ((n = read(fds[0], &error, sizeof error)) < 0 && errno == EINTR) {
  }
  close(fds[0]);
  return n == static_cast<ssize_t>(sizeof error) ? error : 0;
}

void make_exec_error_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) throw DriverError("cannot create a pipe: " + errno_text());
}

void* map_log(int fd) {
  void* p = mmap(nullptr, kLogBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) throw DriverError("cannot map the trace log: " + errno_text());
  return p;
}

int make_log() {
  const int fd = memfd_create("weft-trace-log", 0);
  if (fd < 0) throw DriverError("cannot create the trace log (memfd_create): " + errno_text());
  if (ftruncate(fd, kLogBytes) != 0)
    throw DriverError("cannot size the trace log: " + errno_text());
  return fd;
}

std::string control_value(int ctl, int status, int shm) {
  return std::to_string(ctl) + "," + std::to_string(status) + "," + std::to_string(shm) + "," +
         std::to_string(kLogBytes);
}

// Waits until the child exits (it is then reaped by the caller) or `seconds` pass (0: no limit),
// and kills it then.
Killed wait_for_replay(pid_t pid, double seconds) {
  if (seconds <= 0) return Killed::kNo;
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < deadline) {
    siginfo_t info{};
    // WNOWAIT: leave the child to be reaped, with its status, by the caller.
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid)
      return Killed::kNo;
    usleep(2000);
  }
  kill(pid, SIGKILL);
  return Killed::kTimeLimit;
}

}  // namespace

void check_instrumented(const std::string& path) {
  if (path.empty()) throw DriverError("no program given (an empty path)");
  const std::string shown = "'" + one_line(path, 200) + "'";
  // Look before opening: a directory or a device would be read as a program, or never end.
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw DriverError("cannot run " + shown + ": " + errno_text());
  if (S_ISDIR(st.st_mode)) throw DriverError(shown + " is a directory, not a program");
  if (!S_ISREG(st.st_mode)) throw DriverError(shown + " is not a regular file, not a program");
  if (access(path.c_str(), X_OK) != 0) throw DriverError(shown + " is not executable");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DriverError("cannot open " + shown + ": " + errno_text());
  // Look for the runtime's marker in chunks (overlapping by the marker's length), so that a
  // large file is never held in memory whole.
  const std::string_view marker = native::kRuntimeMarker;
  std::string window;
  std::vector<char> chunk(std::size_t{1} << 20);
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    window.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (window.find(marker) != std::string::npos) return;
    if (window.size() > marker.size()) window.erase(0, window.size() - marker.size());
  }
  throw DriverError(shown +
                    " was not built by weft-cc: compile it with weft-cc or weft-c++ (or use "
                    "`weft check FILE.c`)");
}

bool is_position_independent(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char header[18] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  return header[16] == 3;  // e_type == ET_DYN (little-endian)
}

// ---- ForkServer --------------------------------------------------------------------------

ForkServer::ForkServer(const Program& program, ThreadRegistry& threads)
    : program_(program), threads_(threads) {
  check_instrumented(program_.path);
  start();
}

ForkServer::~ForkServer() {
  stop();
}

void ForkServer::start() {
  int ctl[2], status[2];
  if (pipe2(ctl, O_CLOEXEC) != 0 || pipe2(status, O_CLOEXEC) != 0)
    throw DriverError("cannot create pipes: " + errno_text());
  shm_ = make_log();
  log_ = map_log(shm_);
  log_bytes_ = kLogBytes;
  std::vector<std::string> argv{program_.path};
  argv.insert(argv.end(), program_.args.begin(), program_.args.end());
  auto env = program_environment(program_.options);
  int exec_errors[2];
  make_exec_error_pipe(exec_errors);
  server_ = fork();
  if (server_ < 0) throw DriverError("cannot fork: " + errno_text());
  if (server_ == 0) {
    // The program keeps its ends of the pipes and the log; the numbers go in WEFT_CONTROL.
    const int c = dup(ctl[0]), s = dup(status[1]), m = dup(shm_);
    env.push_back(std::string(native::kControlEnv) + "=" + control_value(c, s, m));
    exec_program(argv, env, exec_errors[1]);
  }
  if (const int error = exec_error(exec_errors)) {
    waitpid(server_, nullptr, 0);
    server_ = -1;
    throw DriverError("cannot run '" + one_line(program_.path) + "': " + std::strerror(error));
  }
  close(ctl[0]);
  close(status[1]);
  control_ = ctl[1];
  status_ = status[0];
  signal(SIGPIPE, SIG_IGN);
  const std::string hello = read_line(30);
  unsigned version = 0;
  unsigned long long base = 0;
  if (std::sscanf(hello.c_str(), "HELLO %u %llx", &version, &base) != 2)
    throw DriverError("'" + program_.path +
                      "' did not start as a weft fork server (it exited or crashed before main; "
                      "run it directly to see why)");
  if (version != static_cast<unsigned>(native::kProtocolVersion))
    throw DriverError("'" + program_.path +
                      "' was built by a different version of weft-cc: rebuild it");
  load_base_ = base;
}

void ForkServer::stop() {
  if (control_ >= 0) {
    const char quit[] = "QUIT\n";
    [[maybe_unused]] auto n = write(control_, quit, sizeof quit - 1);
    close(control_);
    control_ = -1;
  }
  if (status_ >= 0) close(status_), status_ = -1;
  if (server_ > 0) {
    int st;
    if (waitpid(server_, &st, WNOHANG) == 0) {
      // Give it a moment to exit on its own, then make sure.
      for (int i = 0; i < 50 && waitpid(server_, &st, WNOHANG) == 0; ++i) usleep(1000);
      kill(server_, SIGKILL);
      waitpid(server_, &st, 0);
    }
    server_ = -1;
  }
  if (log_) munmap(log_, log_bytes_), log_ = nullptr;
  if (shm_ >= 0) close(shm_), shm_ = -1;
}

std::string ForkServer::read_line(double timeout_seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  while (true) {
    if (auto nl = pending_.find('\n'); nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    int wait_ms = -1;
    if (timeout_seconds > 0) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return "TIMEOUT";
      wait_ms = static_cast<int>(left.count());
    }
    const int r = waiter_.wait_readable(status_, wait_ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return "TIMEOUT";
    char buf[256];
    const ssize_t n = read(status_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "EOF";
    pending_.append(buf, static_cast<std::size_t>(n));
  }
}

Trace ForkServer::run(const TestDirective& directive) {
  const std::string command = "RUN " + encode_directive(directive, threads_) + "\n";
  if (write(control_, command.data(), command.size()) != static_cast<ssize_t>(command.size()))
    throw DriverError("the fork server of '" + program_.path + "' is gone (" + errno_text() + ")");
  // The fork server enforces the time limit itself; allow it some slack before giving up on it.
  const double limit = program_.options.execution_seconds;
  const std::string exit_line = read_line(limit > 0 ? limit + 30 : 0);
  int wait_status = 0;
  if (std::sscanf(exit_line.c_str(), "EXIT %d", &wait_status) != 1)
    throw DriverError("the fork server of '" + program_.path + "' stopped answering");
  const Killed killed = exit_line.ends_with(" timeout")  ? Killed::kTimeLimit
                        : exit_line.ends_with(" memory") ? Killed::kMemoryLimit
                                                         : Killed::kNo;
  return read_log(log_, directive, wait_status, killed, program_.options, threads_);
}

// ---- the log ------------------------------------------------------------------------------

Trace read_log(const void* log, const TestDirective& directive, int wait_status, Killed killed,
               const ProgramOptions& options, ThreadRegistry& threads) {
  const auto* header = static_cast<const native::LogHeader*>(log);
  const char* records = static_cast<const char*>(log) + sizeof(native::LogHeader);
  const std::string_view text(records, std::min<std::uint64_t>(header->used, header->capacity));

  Trace events_only;
  std::optional<Trace> ending;
  std::string crashed_thread;
  std::string crash_details;
  std::string sanitizer_report;           // "S": the first report of a sanitizer
  std::size_t sanitizer_report_step = 0;  // events logged before it
  std::string sanitizer_thread;           // the "C" record before it
  bool read_inputs = false;
  std::vector<std::string> unrestored;
  std::size_t at = 0;
  try {
    while (at < text.size()) {
      const std::size_t nl = text.find('\n', at);
      if (nl == std::string_view::npos) break;
      const std::string_view line = text.substr(at, nl - at);
      at = nl + 1;
      if (line.size() < 2) continue;
      const std::string_view body = line.substr(2);
      switch (line[0]) {
        case 'E':
          decode_trace_event(body, events_only, threads);
          break;
        case 'T':
          ending = decode_trace(body, threads);
          break;
        case 'C':
          crashed_thread = std::string(body);
          break;
        case 'W':
          crash_details = std::string(body);
          break;
        case 'S':
          if (sanitizer_report.empty()) {
            sanitizer_report = std::string(body);
            sanitizer_report_step = events_only.events.size();
            sanitizer_thread = crashed_thread;
          }
          break;
        case 'I':
          read_inputs = true;
          break;
        case 'U':
          unrestored.emplace_back(body);
          break;
        default:
          break;
      }
    }
  } catch (const WireError& e) {
    throw DriverError(std::string("the program's trace log is corrupt (") + e.what() + ")");
  }

  Trace trace = ending ? std::move(*ending) : Trace{};
  trace.events = std::move(events_only.events);
  trace.enabled = std::move(events_only.enabled);
  trace.finished_thread = std::move(events_only.finished_thread);
  trace.sites = std::move(events_only.sites);
  trace.read_fixed_inputs = read_inputs;
  trace.unrestored_state = std::move(unrestored);
  if (ending) {
    // A sanitizer that was told to go on after a report (UBSAN_OPTIONS=halt_on_error=0): the
    // report is still the bug of the thread that ran into it.
    if (!sanitizer_report.empty() && !is_bug(trace.outcome)) {
      const ThreadId who = threads.intern(sanitizer_thread).value_or(kNoThread);
      trace.outcome = Outcome::kSanitizerReport;
      trace.message = (who == kNoThread ? std::string() : "thread " + threads.name(who) + ": ") +
                      sanitizer_report;
      trace.failing_thread = who;
      trace.failures.insert(trace.failures.begin(),
                            {trace.outcome, trace.message, who, sanitizer_report_step});
    }
    return trace;
  }

  // The child died before it could say how the execution ended: work it out.
  std::size_t followed = 0;
  while (followed < trace.events.size() && followed < directive.prefix.size() &&
         trace.events[followed].thread == directive.prefix[followed])
    ++followed;
  trace.prefix_followed = followed;
  ThreadId who = kNoThread;
  if (!crashed_thread.empty()) who = threads.intern(crashed_thread).value_or(kNoThread);
  const std::string thread_text =
      who == kNoThread ? std::string("the program") : "thread " + threads.name(who);
  const int sig = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
  if (killed == Killed::kTimeLimit || sig == SIGXCPU) {
    trace.outcome = Outcome::kTimeout;
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", options.execution_seconds);
    trace.message = "an execution ran past the time limit of " + std::string(limit) +
                    " s (a loop with no scheduling point? try --points=all, or raise "
                    "--execution-timeout)";
  } else if (killed == Killed::kMemoryLimit) {
    trace.outcome = Outcome::kTimeout;
    trace.message = "an execution used more than the memory limit of " +
                    std::to_string(options.memory_mb) + " MiB (raise --memory-limit)";
  } else if (!sanitizer_report.empty()) {
    trace.outcome = Outcome::kSanitizerReport;
    trace.message = (who == kNoThread ? std::string() : thread_text + ": ") + sanitizer_report;
  } else if (sig != 0) {
    trace.outcome = Outcome::kCrash;
    const bool fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
    trace.message =
        thread_text + (fault ? " crashed: " : " ended the process by ") + signal_text(sig);
    if (header->fault_signal == sig && fault) {
      // crash_details: " in SYMBOL of LIBRARY, called from {pc:}" for a fault outside the
      // program, then "; the address is ..." (describe_crash).
      const auto split = crash_details.find("; ");
      const std::string in_library = crash_details.substr(0, split);
      const std::string address_text =
          split == std::string::npos ? std::string() : crash_details.substr(split);
      if (in_library.empty() && header->fault_pc)
        trace.message += " at " + code_mark(header->fault_pc + 1);
      if (sig == SIGSEGV || sig == SIGBUS)
        trace.message += " accessing address 0x" + hex(header->fault_address);
      trace.message += in_library + address_text;
      if (sig == SIGILL && (header->fault_address & 0xffff) == kUd2)
        trace.message +=
            ": a trap (ud2) the compiler put where the program's behaviour is undefined, such as "
            "the end of a non-void function reached without a return, or __builtin_trap() and "
            "__builtin_unreachable() reached";
    }
  } else if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) != 0) {
    trace.outcome = Outcome::kCrash;
    trace.message = thread_text + " ended the process with status " +
                    std::to_string(WEXITSTATUS(wait_status)) + " outside weft's control";
  } else {
    trace.outcome = Outcome::kComplete;
  }
  if (is_bug(trace.outcome)) {
    trace.failing_thread = who;
    trace.failures.push_back({trace.outcome, trace.message, who, trace.events.size()});
  }
  return trace;
}

// ---- replay -------------------------------------------------------------------------------

Trace replay_execution(const Program& program, const TestDirective& directive,
                       ThreadRegistry& threads, bool under_gdb, std::uint64_t* load_base,
                       bool output_to_stderr) {
  check_instrumented(program.path);
  const int shm = make_log();
  void* log = map_log(shm);
  int status[2];
  if (pipe2(status, O_CLOEXEC) != 0) throw DriverError("cannot create a pipe: " + errno_text());
  ProgramOptions options = program.options;
  options.show_output = true;
  auto env = program_environment(options);
  env.push_back(std::string(native::kReplayEnv) + "=" + encode_directive(directive, threads));
  if (under_gdb) env.push_back(std::string(native::kBreakOnBugEnv) + "=1");
  std::vector<std::string> argv;
  if (under_gdb)
    argv = {"gdb",
            "-q",
            "-ex",
            "run",
            "-ex",
            "echo \\nweft: stopped at the bug. 'bt' shows the stack; 'up' walks to your code.\\n",
            "--args"};
  argv.push_back(program.path);
  argv.insert(argv.end(), program.args.begin(), program.args.end());
  int exec_errors[2];
  make_exec_error_pipe(exec_errors);
  const pid_t pid = fork();
  if (pid < 0) throw DriverError("cannot fork: " + errno_text());
  if (pid == 0) {
    if (output_to_stderr) dup2(2, 1);
    const int s = dup(status[1]), m = dup(shm);
    env.push_back(std::string(native::kControlEnv) + "=-1," + std::to_string(s) + "," +
                  std::to_string(m) + "," + std::to_string(kLogBytes));
    exec_program(argv, env, exec_errors[1]);
  }
  close(status[1]);
  if (const int error = exec_error(exec_errors)) {
    waitpid(pid, nullptr, 0);
    close(status[0]);
    munmap(log, kLogBytes);
    close(shm);
    throw DriverError("cannot run '" + one_line(argv[0]) + "'" +
                      (under_gdb ? " (is gdb installed?)" : "") + ": " + std::strerror(error));
  }
  // Under gdb the user decides when it ends; otherwise an execution that never ends (a replay
  // file whose schedule was edited into a busy-wait) is stopped at the execution time limit.
  const double limit = under_gdb ? 0 : options.execution_seconds;
  const Killed killed = wait_for_replay(pid, limit);
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  char buf[128] = {};
  [[maybe_unused]] auto n = read(status[0], buf, sizeof buf - 1);
  close(status[0]);
  unsigned version = 0;
  unsigned long long base = 0;
  if (load_base && std::sscanf(buf, "HELLO %u %llx", &version, &base) == 2) *load_base = base;
  Trace trace = read_log(log, directive, wait_status, killed, options, threads);
  munmap(log, kLogBytes);
  close(shm);
  return trace;
}

}  // namespace weft::driver
