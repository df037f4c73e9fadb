#include "weft/driver/native_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string_view>

#include "weft/explore/lockset.hpp"
#include "weft/runtime/native_protocol.hpp"
#include "weft/trace/one_line.hpp"
#include "weft/trace/wire.hpp"

namespace weft::driver {

std::string library_cache_directory() {
  std::string root;
  if (const char* set = std::getenv("WEFT_LIBRARY_CACHE"); set && *set)
    root = set;
  else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    root = std::string(xdg) + "/weft/libraries";
  else if (const char* home = std::getenv("HOME"); home && *home)
    root = std::string(home) + "/.cache/weft/libraries";
  std::error_code error;
  if (root.empty() || !std::filesystem::is_directory(root + "/lib", error)) return "";
  return std::filesystem::absolute(root + "/lib", error).string();
}

namespace {

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
  for (std::string& setting : o.environment()) env.push_back(std::move(setting));
  // Libraries built by weft-cc (tools/weft-lib) come before the system's.
  if (const std::string cached = o.library_cache ? library_cache_directory() : "";
      !cached.empty()) {
    const auto path = std::find_if(env.begin(), env.end(), [](const std::string& v) {
      return v.starts_with("LD_LIBRARY_PATH=");
    });
    if (path == env.end())
      env.push_back("LD_LIBRARY_PATH=" + cached);
    else
      path->insert(std::string_view("LD_LIBRARY_PATH=").size(), cached + ":");
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

// The memory shared with the program (native_protocol.hpp): a memfd, so that the program maps
// it by its descriptor, and weft's mapping of it.
struct SharedMemory {
  int fd = -1;
  void* memory = nullptr;
  SharedMemory() {
    // Close-on-exec: the program gets only the copy WEFT_CONTROL names, and closes it once mapped.
    fd = memfd_create("weft-shared", MFD_CLOEXEC);
    if (fd < 0) throw DriverError("cannot create shared memory (memfd_create): " + errno_text());
    if (ftruncate(fd, native::kSharedBytes) != 0) {
      close(fd);
      throw DriverError("cannot size the shared memory: " + errno_text());
    }
    memory = mmap(nullptr, native::kSharedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (memory == MAP_FAILED) {
      close(fd);
      throw DriverError("cannot map the shared memory: " + errno_text());
    }
  }
  /// WEFT_CONTROL for a program whose HELLO pipe is `status` and whose copy of fd is `shm`.
  static std::string control(int status, int shm) {
    return std::string(native::kControlEnv) + "=" + std::to_string(status) + "," +
           std::to_string(shm) + "," + std::to_string(native::kSharedBytes);
  }
};

// Writes the directive into the shared memory; the number of threads it carries.
std::size_t put_directive(void* shared, const TestDirective& directive,
                          const ThreadRegistry& threads) {
  const std::size_t bytes = native::encode_directive(
      directive, threads, native::directive_of(shared), native::kDirectiveBytes);
  if (bytes == 0)
    throw DriverError("a directive of " + std::to_string(directive.prefix.size()) +
                      " steps does not fit in weft's shared memory (lower --max-steps)");
  native::channel_of(shared).directive_bytes = static_cast<std::uint32_t>(bytes);
  return threads.size();
}

// Reads "HELLO <version> <load base>" from the program's status pipe, waiting up to `seconds`;
// false if it did not come.
bool read_hello(int fd, double seconds, unsigned& version, unsigned long long& base,
                std::string* rest = nullptr) {
  std::string text;
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (text.find('\n') == std::string::npos) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    char buf[128];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.append(buf, static_cast<std::size_t>(n));
  }
  if (rest) *rest = text.substr(text.find('\n') + 1);
  return std::sscanf(text.c_str(), "HELLO %u %llx", &version, &base) == 2;
}

// Waits until the child exits (it is then reaped by the caller) or `seconds` pass (0: no limit),
// and kills it then.
// The name of an x86-64 system call a process may block in, for the time-out message.
std::string system_call_name(int number) {
  switch (number) {
    case SYS_read:
      return "read";
    case SYS_write:
      return "write";
    case SYS_readv:
      return "readv";
    case SYS_writev:
      return "writev";
    case SYS_open:
      return "open";
    case SYS_openat:
      return "openat";
    case SYS_ioctl:
      return "ioctl";
    case SYS_poll:
      return "poll";
    case SYS_ppoll:
      return "ppoll";
    case SYS_select:
      return "select";
    case SYS_pselect6:
      return "pselect6";
    case SYS_epoll_wait:
      return "epoll_wait";
    case SYS_epoll_pwait:
      return "epoll_pwait";
    case SYS_accept:
      return "accept";
    case SYS_accept4:
      return "accept4";
    case SYS_connect:
      return "connect";
    case SYS_recvfrom:
      return "recvfrom";
    case SYS_recvmsg:
      return "recvmsg";
    case SYS_sendto:
      return "sendto";
    case SYS_sendmsg:
      return "sendmsg";
    case SYS_wait4:
      return "wait4";
    case SYS_waitid:
      return "waitid";
    case SYS_msgrcv:
      return "msgrcv";
    case SYS_msgsnd:
      return "msgsnd";
    case SYS_semop:
      return "semop";
    case SYS_semtimedop:
      return "semtimedop";
    case SYS_mq_timedreceive:
      return "mq_timedreceive";
    case SYS_flock:
      return "flock";
    case SYS_fcntl:
      return "fcntl";
    case SYS_futex:
      return "futex";
    case SYS_nanosleep:
      return "nanosleep";
    case SYS_clock_nanosleep:
      return "clock_nanosleep";
    case SYS_pause:
      return "pause";
    case SYS_rt_sigsuspend:
      return "rt_sigsuspend";
    case SYS_rt_sigtimedwait:
      return "rt_sigtimedwait";
    default:
      return "number " + std::to_string(number);
  }
}

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

void check_address_space() {
  // The program's runtime reserves its threads' stacks and heaps, and the heap's shadow, at fixed
  // places far apart (docs/architecture.md): terabytes of address space, little of it used.
  // Under a limit those reservations fail, and the heap's checks would call ordinary blocks
  // invalid; say so before anything runs.
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    throw DriverError("the address space is limited to " + std::to_string(limit.rlim_cur >> 20) +
                      " MiB (ulimit -v), and weft reserves far more for the program's threads "
                      "and heap checks than it uses: run it with 'ulimit -v unlimited' (its "
                      "own memory limit is --memory-limit)");
}

void check_instrumented(const std::string& path) {
  if (path.empty()) throw DriverError("no program given (an empty path)");
  std::string shown(1, '\'');
  shown.append(one_line(path, 200)).push_back('\'');
  // Look before opening: a directory or a device would be read as a program, or never end.
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw DriverError("cannot run " + shown + ": " + errno_text());
  if (S_ISDIR(st.st_mode)) throw DriverError(shown + " is a directory, not a program");
  if (!S_ISREG(st.st_mode)) throw DriverError(shown + " is not a regular file, not a program");
  if (access(path.c_str(), X_OK) != 0) throw DriverError(shown + " is not executable");
  // Look for the runtime's marker and the protocol's in the mapped file: no copy of it is read.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw DriverError("cannot open " + shown + ": " + errno_text());
  const auto size = static_cast<std::size_t>(st.st_size);
  void* mapped = size ? mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (size && mapped == MAP_FAILED) throw DriverError("cannot read " + shown + ": " + errno_text());
  const auto contains = [&](std::string_view marker) {
    return size && memmem(mapped, size, marker.data(), marker.size()) != nullptr;
  };
  const bool has_runtime = contains(native::kRuntimeMarker);
  const bool has_protocol = contains(native::kProtocolMarker);
  if (size) munmap(mapped, size);
  if (!has_runtime)
    throw DriverError(shown +
                      " was not built by weft-cc: compile it with weft-cc or weft-c++ (or use "
                      "`weft check FILE.c`)");
  if (!has_protocol)
    throw DriverError(shown + " was built by a different version of weft-cc: rebuild it");
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
  check_address_space();
  start();
}

ForkServer::~ForkServer() {
  stop();
}

// The code of the shared libraries in `maps` (the text of a /proc/PID/maps): its executable
// mappings of files other than the program.
static std::vector<MappedCode> libraries_in_maps(std::istream& maps, const std::string& program) {
  std::vector<MappedCode> out;
  std::error_code error;
  const auto own = std::filesystem::canonical(program, error);
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string range, permissions, offset, device, inode, path;
    fields >> range >> permissions >> offset >> device >> inode;
    std::getline(fields >> std::ws, path);
    if (permissions.size() < 3 || permissions[2] != 'x' || !path.starts_with("/")) continue;
    if (!error && path == own.string()) continue;
    MappedCode m;
    m.start = std::strtoull(range.c_str(), nullptr, 16);
    m.end = std::strtoull(range.c_str() + range.find('-') + 1, nullptr, 16);
    m.offset = std::strtoull(offset.c_str(), nullptr, 16);
    m.path = path;
    out.push_back(std::move(m));
  }
  return out;
}

static std::vector<MappedCode> mapped_libraries(pid_t pid, const std::string& program) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  return libraries_in_maps(maps, program);
}

void ForkServer::start() {
  int status[2];
  if (pipe2(status, O_CLOEXEC) != 0) throw DriverError("cannot create a pipe: " + errno_text());
  SharedMemory shm;
  shared_ = shm.memory;
  std::vector<std::string> argv{program_.path};
  argv.insert(argv.end(), program_.args.begin(), program_.args.end());
  auto env = program_environment(program_.options);
  int exec_errors[2];
  make_exec_error_pipe(exec_errors);
  server_ = fork();
  if (server_ < 0) throw DriverError("cannot fork: " + errno_text());
  if (server_ == 0) {
    // The program keeps its end of the pipe and the memory; the numbers go in WEFT_CONTROL.
    env.push_back(SharedMemory::control(dup(status[1]), dup(shm.fd)));
    exec_program(argv, env, exec_errors[1]);
  }
  close(shm.fd);
  close(status[1]);
  const int error = exec_error(exec_errors);
  unsigned version = 0;
  unsigned long long base = 0;
  const bool hello = !error && read_hello(status[0], 30, version, base);
  close(status[0]);
  if (error) {
    waitpid(server_, nullptr, 0);
    server_ = -1;
    throw DriverError("cannot run '" + one_line(program_.path) + "': " + std::strerror(error));
  }
  signal(SIGPIPE, SIG_IGN);
  if (!hello)
    throw DriverError("'" + program_.path +
                      "' did not start as a weft fork server (it exited or crashed before main; "
                      "run it directly to see why)");
  if (version != static_cast<unsigned>(native::kProtocolVersion))
    throw DriverError("'" + program_.path +
                      "' was built by a different version of weft-cc: rebuild it");
  load_base_ = base;
  libraries_ = mapped_libraries(server_, program_.path);
}

void ForkServer::stop() {
  if (server_ > 0) {
    if (shared_) {
      native::Channel& channel = native::channel_of(shared_);
      channel.command = native::Command::kQuit;
      native::publish(channel.request, channel.program_sleeping);
    }
    int st;
    if (waitpid(server_, &st, WNOHANG) == 0) {
      // Give it up to 50 ms to exit on its own, woken by its pidfd as it ends (kernels before
      // 5.3 have none: then by looking every millisecond), then make sure.
      constexpr int kGraceMs = 50;
      const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, server_, 0));
      if (pidfd >= 0) {
        pollfd p{pidfd, POLLIN, 0};
        while (poll(&p, 1, kGraceMs) < 0 && errno == EINTR) {
        }
        close(pidfd);
      } else {
        for (int i = 0; i < kGraceMs && waitpid(server_, &st, WNOHANG) == 0; ++i) usleep(1000);
      }
      if (waitpid(server_, &st, WNOHANG) == 0) {
        kill(server_, SIGKILL);
        waitpid(server_, &st, 0);
      }
    }
    server_ = -1;
  }
  if (shared_) munmap(shared_, native::kSharedBytes), shared_ = nullptr;
}

namespace {
// VmHWM of process `pid` in KiB (0 if it cannot be read).
std::uint64_t peak_rss_of(pid_t pid) {
  if (pid <= 0) return 0;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with("VmHWM:")) return std::strtoull(line.c_str() + 6, nullptr, 10);
  return 0;
}
}  // namespace

std::uint64_t ForkServer::peak_rss_kib() const {
  if (!shared_) return 0;
  const native::Channel& channel = native::channel_of(shared_);
  return std::max({peak_rss_of(server_), peak_rss_of(channel.worker_pid.load()),
                   std::uint64_t{channel.ended_peak_rss_kib.load()}});
}

bool ForkServer::wait_for_reply(std::uint32_t seen) {
  native::Channel& channel = native::channel_of(shared_);
  // The fork server enforces the time limit itself; allow it some slack before giving up on it.
  const double limit = program_.options.execution_seconds;
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(limit > 0 ? limit + 30 : 0);
  // Sleeps are cut into slices, so that a server that died is noticed.
  constexpr int kSliceMs = 100;
  while (!native::wait_for_change(channel.reply, seen, channel.weft_sleeping, kSliceMs)) {
    int st;
    if (waitpid(server_, &st, WNOHANG) == server_) {
      server_ = -1;
      return false;
    }
    if (limit > 0 && Clock::now() > deadline) return false;
    if (run_deadline_ && !stopped_at_deadline_ && Clock::now() >= *run_deadline_) {
      // The server sees its worker die and answers as for a crash; run_once marks the trace.
      const pid_t worker = channel.worker_pid.load();
      if (worker > 0 && kill(worker, SIGKILL) == 0) stopped_at_deadline_ = true;
    }
  }
  return true;
}

Trace ForkServer::run(const TestDirective& directive) {
  if (run_deadline_ && std::chrono::steady_clock::now() >= *run_deadline_) {
    Trace past;
    past.past_time_limit = true;
    return past;
  }
  if (track_inputs_ || directive.track_inputs == false) {
    Trace trace = run_once(directive);
    trace.symbolic.tracked = directive.track_inputs;
    return trace;
  }
  // Inputs are followed (the slower code of every function) only once the program has read
  // one: until then each execution runs the functions' plain copies, and the first execution
  // that reads an input runs again, following it, as will every later one.
  TestDirective plain = directive;
  plain.track_inputs = false;
  Trace trace = run_once(plain);
  trace.symbolic.tracked = false;
  if (!trace.symbolic.untracked || trace.past_time_limit) return trace;
  track_inputs_ = true;
  return run_once(directive);
}

Trace ForkServer::run_once(const TestDirective& directive) {
  native::Channel& channel = native::channel_of(shared_);
  const std::size_t sent = put_directive(shared_, directive, threads_);
  channel.command = native::Command::kRun;
  channel.known_expressions = last_expressions_.size();
  channel.blocked_system_call = -1;
  const std::uint32_t seen = channel.reply.load();
  native::publish(channel.request, channel.program_sleeping);
  stopped_at_deadline_ = false;
  if (!wait_for_reply(seen))
    throw DriverError("the fork server of '" + program_.path + "' stopped answering");
  if (stopped_at_deadline_) {
    Trace past;
    past.past_time_limit = true;
    return past;
  }
  const Killed killed = channel.exit_reason == native::ExitReason::kTimeout  ? Killed::kTimeLimit
                        : channel.exit_reason == native::ExitReason::kMemory ? Killed::kMemoryLimit
                                                                             : Killed::kNo;
  // Should reading fail, the mirror and what weft holds could differ: weft then holds nothing.
  symbolic::ExpressionPool known = std::move(last_expressions_);
  last_expressions_.clear();
  Trace trace = read_log(native::log_of(shared_), sent, directive, channel.exit_status, killed,
                         channel.blocked_system_call, program_.options, threads_, &known);
  last_expressions_ = trace.symbolic.expressions;
  return trace;
}

// ---- the log ------------------------------------------------------------------------------

namespace {
Trace read_log_unchecked(const void* log, std::size_t sent_threads, const TestDirective& directive,
                         int wait_status, Killed killed, int blocked_system_call,
                         const ProgramOptions& options, ThreadRegistry& threads,
                         const symbolic::ExpressionPool* known_expressions) {
  const auto* header = static_cast<const native::LogHeader*>(log);
  native::LoggedExecution logged;
  try {
    logged = native::read_log_records(log, sent_threads, threads, known_expressions);
  } catch (const native::ProtocolError& e) {
    throw DriverError(std::string("the program's trace log is corrupt (") + e.what() + ")");
  }
  // Records that did not fit were dropped: the trace would be missing events, and exploring
  // on from it would be wrong.
  if (header->overflowed) {
    // Say what filled it: a program can read far more inputs than it runs visible operations.
    const std::size_t inputs = logged.symbolic.inputs.size();
    throw DriverError("an execution logged more than " + std::to_string(native::kLogBytes >> 20) +
                      " MiB of events" + (inputs ? " and inputs" : "") + " (" +
                      std::to_string(logged.events.events.size()) + " events" +
                      (inputs ? ", " + std::to_string(inputs) + " inputs" : std::string()) +
                      " fit): lower --max-steps or --max-threads");
  }
  std::optional<Trace>& ending = logged.ending;
  const std::string& sanitizer_report = logged.sanitizer_report;
  Trace& events_only = logged.events;
  Trace trace = ending ? std::move(*ending) : Trace{};
  trace.events = std::move(events_only.events);
  trace.enabled = std::move(events_only.enabled);
  trace.finished_thread = std::move(events_only.finished_thread);
  trace.sites = std::move(events_only.sites);
  trace.values = std::move(events_only.values);
  trace.local_states = std::move(events_only.local_states);
  trace.segments = std::move(events_only.segments);
  trace.options = std::move(events_only.options);
  trace.choices = std::move(events_only.choices);
  trace.older_stores = std::move(events_only.older_stores);
  trace.graph = std::move(events_only.graph);
  trace.taken_stores = std::move(events_only.taken_stores);
  trace.weak_steps = std::move(events_only.weak_steps);
  trace.segment_accesses = std::move(events_only.segment_accesses);
  trace.segments_recorded = options.record_segments;
  trace.read_fixed_inputs = logged.read_inputs;
  trace.symbolic = std::move(logged.symbolic);
  trace.unrestored_state = std::move(logged.unrestored);
  trace.caveats = std::move(logged.caveats);
  trace.library_callers = std::move(logged.library_callers);
  if (ending) {
    // A sanitizer that was told to go on after a report (UBSAN_OPTIONS=halt_on_error=0): the
    // report is still the bug of the thread that ran into it.
    if (!sanitizer_report.empty() && !is_bug(trace.outcome)) {
      const ThreadId who = logged.sanitizer_thread;
      trace.outcome = Outcome::kSanitizerReport;
      trace.message = (who == kNoThread ? std::string() : "thread " + threads.name(who) + ": ") +
                      sanitizer_report;
      trace.failing_thread = who;
      trace.failures.insert(trace.failures.begin(),
                            {trace.outcome, trace.message, who, logged.sanitizer_report_step});
    }
    return trace;
  }

  // The child died before it could say how the execution ended: work it out.
  std::size_t followed = 0;
  while (followed < trace.events.size() && followed < directive.prefix.size() &&
         trace.events[followed].thread == directive.prefix[followed])
    ++followed;
  trace.prefix_followed = followed;
  const ThreadId who = logged.crashed;
  const std::string thread_text =
      who == kNoThread ? std::string("the program") : "thread " + threads.name(who);
  const int sig = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
  if (killed == Killed::kTimeLimit || sig == SIGXCPU) {
    trace.outcome = Outcome::kTimeout;
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", options.execution_seconds);
    trace.message = "an execution ran past the time limit of " + std::string(limit) + " s ";
    if (blocked_system_call >= 0)
      trace.message += "with the process blocked in the system call " +
                       system_call_name(blocked_system_call) +
                       ", which weft does not model (it waits for something no thread of the "
                       "program can be scheduled to do)";
    else
      trace.message +=
          "(a loop with no scheduling point? try --points=all, or raise --execution-timeout)";
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
      const std::string& crash_details = logged.crash_details;
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
}  // namespace

Trace read_log(const void* log, std::size_t sent_threads, const TestDirective& directive,
               int wait_status, Killed killed, int blocked_system_call,
               const ProgramOptions& options, ThreadRegistry& threads,
               const symbolic::ExpressionPool* known_expressions) {
  Trace trace = read_log_unchecked(log, sent_threads, directive, wait_status, killed,
                                   blocked_system_call, options, threads, known_expressions);
  // Every execution the program runs, explored or replayed, is checked the same way.
  if (options.lockset && !trace.past_time_limit)
    explorer::check_locking_discipline(trace, threads, false);
  return trace;
}

// ---- replay -------------------------------------------------------------------------------

Trace replay_execution(const Program& program, const TestDirective& directive,
                       ThreadRegistry& threads, bool under_gdb, std::uint64_t* load_base,
                       bool output_to_stderr, std::vector<MappedCode>* libraries) {
  check_instrumented(program.path);
  check_address_space();
  SharedMemory shm;
  // Unmapped and closed however this ends.
  const std::unique_ptr<void, void (*)(void*)> unmap(
      shm.memory, [](void* m) { munmap(m, native::kSharedBytes); });
  const std::unique_ptr<int, void (*)(int*)> close_fd(&shm.fd, [](int* fd) { close(*fd); });
  const std::size_t sent = put_directive(shm.memory, directive, threads);
  int status[2];
  if (pipe2(status, O_CLOEXEC) != 0) throw DriverError("cannot create a pipe: " + errno_text());
  ProgramOptions options = program.options;
  options.show_output = true;
  auto env = program_environment(options);
  env.push_back(std::string(native::kReplayEnv) + "=1");
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
    env.push_back(SharedMemory::control(dup(status[1]), dup(shm.fd)));
    exec_program(argv, env, exec_errors[1]);
  }
  close(status[1]);
  if (const int error = exec_error(exec_errors)) {
    waitpid(pid, nullptr, 0);
    close(status[0]);
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
  // The program has ended: its HELLO, if it said one, waits in the pipe, and after it the code
  // it mapped (say_mappings in fork_server.cpp).
  unsigned version = 0;
  unsigned long long base = 0;
  std::string rest;
  if (read_hello(status[0], 1, version, base, &rest)) {
    if (load_base) *load_base = base;
    char buf[4096];
    for (ssize_t n; (n = read(status[0], buf, sizeof buf)) > 0;)
      rest.append(buf, static_cast<std::size_t>(n));
    std::istringstream maps(rest);
    if (libraries) *libraries = libraries_in_maps(maps, program.path);
  }
  close(status[0]);
  return read_log(native::log_of(shm.memory), sent, directive, wait_status, killed, -1, options,
                  threads);
}

}  // namespace weft::driver
