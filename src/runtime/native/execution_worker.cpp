#include "execution_worker.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <new>
#include <string>

#include "code_modules.hpp"
#include "glibc_thread_state.hpp"
#include "memory_snapshot.hpp"
#include "native_runtime.hpp"
#include "process_state.hpp"
#include "real_functions.hpp"
#include "signals.hpp"
#include "unseen_libraries.hpp"
#include "weft/runtime/scheduler.hpp"

namespace weft::runtime::native {
namespace {

// Resident memory of process `pid` in bytes (0 if unknown).
std::uint64_t resident_bytes(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/statm", static_cast<int>(pid));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128] = {};
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  unsigned long long size = 0, resident = 0;
  if (n <= 0 || std::sscanf(buf, "%llu %llu", &size, &resident) != 2) return 0;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

// Whether process `pid` has ended (it is not reaped).
bool has_ended(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

// Waits up to `ms` milliseconds for process `pid` to end: on its pidfd, or (kernels before 5.3
// have none: `pidfd` is -1) by looking every millisecond.
bool ends_within(pid_t pid, int pidfd, int ms) {
  if (pidfd >= 0) {
    pollfd p{pidfd, POLLIN, 0};
    int r;
    while ((r = poll(&p, 1, ms)) < 0 && errno == EINTR) {
    }
    return r > 0;
  }
  for (int waited = 0; waited < ms; ++waited) {
    if (has_ended(pid)) return true;
    usleep(1000);
  }
  return false;
}

// ---- the worker's side ----------------------------------------------------------------------

// Each execution gets at least `seconds` of CPU time from now (RLIMIT_CPU counts the whole
// process). Setting the limit takes three system calls, so it is set one second further out than
// needed and set again only once half a second has passed since: this single-threaded process
// cannot have used more CPU time than that meanwhile.
class CpuLimit {
 public:
  explicit CpuLimit(std::uint64_t seconds) : seconds_(seconds) {}
  void renew(std::int64_t now_ns) {
    if (seconds_ == 0 || (set_ns_ != 0 && now_ns - set_ns_ < 500'000'000)) return;
    set_ns_ = now_ns;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    rlimit r{};
    getrlimit(RLIMIT_CPU, &r);
    rlim_t soft = static_cast<rlim_t>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 2 + seconds_);
    if (r.rlim_max != RLIM_INFINITY && soft > r.rlim_max) soft = r.rlim_max;
    r.rlim_cur = soft;
    setrlimit(RLIMIT_CPU, &r);
  }

 private:
  std::uint64_t seconds_;
  std::int64_t set_ns_ = 0;
};

// The file descriptors open when the worker started; the ones an execution opens are closed
// after it (weft's pipes may sit at high numbers, so the free ranges are kept, not a maximum).
class OpenDescriptors {
 public:
  static constexpr int kScan = kDescriptorsFollowed;  // descriptors above are not followed
  explicit OpenDescriptors(const OpenDescriptorSet& at_start) {
    int start = -1;  // of the free range being scanned
    for (int fd = 0; fd <= kScan; ++fd) {
      const bool open = fd < kScan && at_start[static_cast<std::size_t>(fd)];
      if (!open && start < 0) start = fd;
      if ((open || fd == kScan) && start >= 0) {
        if (count_ == kMaxRanges) {  // too fragmented to track: close nothing below
          count_ = 0;
        }
        free_[count_++] = {start, fd == kScan ? -1 : fd - 1};
        start = -1;
      }
      // A regular file open before main for reading only (a redirected stdin, a file a
      // constructor opened): where the next read starts is put back after each execution. Not
      // a file open for writing: weft's own stdout with --show-output shares its offset, and
      // output appended by one execution should stay, as when a program is run twice.
      struct stat st;
      if (open && files_ < kMaxFiles && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY &&
          fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        const off_t at = lseek(fd, 0, SEEK_CUR);
        if (at >= 0) file_[files_++] = {fd, at};
      }
    }
  }
  void restore_offsets() const {
    for (int i = 0; i < files_; ++i) lseek(file_[i].fd, file_[i].offset, SEEK_SET);
  }
  void close_new() const {
    for (int i = 0; i < count_; ++i)
      syscall(SYS_close_range, static_cast<unsigned>(free_[i].first),
              free_[i].last < 0 ? ~0U : static_cast<unsigned>(free_[i].last), 0U);
  }

 private:
  static constexpr int kMaxRanges = 32;
  struct Range {
    int first, last;  // last -1: to the end
  };
  Range free_[kMaxRanges];
  int count_ = 0;
  static constexpr int kMaxFiles = 16;
  struct FileOffset {
    int fd;
    off_t offset;
  };
  FileOffset file_[kMaxFiles];
  int files_ = 0;
};

// Bytes of free brk heap a worker keeps for its executions.
constexpr std::size_t kHeapRoom = std::size_t{8} << 20;

// How often a worker checks that its address space has not drifted: reading /proc/self/maps
// costs about as much as an execution.
constexpr std::uint64_t kDriftCheckEvery = 64;

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The answer for the execution in progress: `status` is a raw wait status (0 for a worker that
// runs on).
void answer(weft::native::Channel& channel, int status, weft::native::ExitReason reason) {
  channel.exit_status = status;
  channel.exit_reason = reason;
  weft::native::publish(channel.reply, channel.weft_sleeping);
}

// Who ends the execution in progress: the worker (kRunning -> kIdle, then it answers) or the
// server (kRunning -> kClaimed, then it kills the worker if alive and answers).
enum State : std::uint32_t { kStarting, kIdle, kRunning, kClaimed, kQuit, kUnavailable };

}  // namespace

struct ExecutionWorker::Shared {
  std::atomic<std::uint32_t> state;
  std::atomic<std::int64_t> started_ns;
};

namespace {

[[noreturn]] void worker_main(ExecutionWorker::Shared& shared, weft::native::Channel& channel,
                              RunExecution run, void* context, std::uint64_t cpu_seconds) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  // Blocks glibc would map on their own would outlive the restore, forgotten by malloc; from the
  // brk heap they are taken back with it. (Beyond 32 MiB glibc maps them anyway; the drift
  // check below then retires the worker.)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  // Room in the brk heap for what executions allocate (weft's own scheduler and trace), made
  // before the snapshot and never given back: otherwise each execution would grow the heap
  // (a system call and page faults) and each restore shrink it again. The snapshot writes back
  // only what lies below this free space (MemorySnapshot, heap_in_use).
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  void* volatile room = malloc(kHeapRoom);  // volatile: the pair must not be optimised away
  free(room);
  // Everything the loop keeps lives on this OS stack or in mappings of its own, which restore()
  // leaves alone.
  MemorySnapshot snapshot;
  const OpenDescriptorSet open_at_start = open_descriptors();
  const OpenDescriptors descriptors(open_at_start);
  note_descriptors_open_at_start(open_at_start);
  CpuLimit cpu_limit(cpu_seconds);
  NativeRuntime::mapped_stack_slots();  // before the snapshot: it must outlive every restore
  ThreadHeap::keep_mapped_between_executions();        // the same
  weft::runtime::native::libc_single_threaded_flag();  // looked up once, kept by the snapshot
  weft::runtime::native::libraries_with_unseen_synchronisation();  // scanned once, kept too
  weft::runtime::native::libraries_ask_for_thread_pointer();       // the same
  weft::runtime::native::read_loaded_modules();                    // the same
  weft::runtime::native::in_executable_code(nullptr);              // the same
  process_identity();     // main's name and CPU set in every execution: read once
  process_signal_mask();  // its signal mask, the same
  const bool ok = snapshot.capture();
  shared.state.store(ok ? kIdle : kUnavailable);
  if (!ok) _exit(0);
  for (std::uint64_t runs = 1;; ++runs) {
    // A request is outstanding while it has no reply (weft sends one at a time); one may be
    // waiting already for a worker that replaces one that crashed.
    weft::native::wait_for_change(channel.request, channel.reply.load(), channel.program_sleeping,
                                  -1);
    if (channel.command == weft::native::Command::kQuit) {
      shared.state.store(kQuit);
      _exit(0);
    }
    if (channel.command != weft::native::Command::kRun) {
      std::fprintf(stderr, "weft runtime: unknown command from weft\n");
      shared.state.store(kQuit);
      _exit(2);
    }
    const std::int64_t now = monotonic_ns();
    shared.started_ns.store(now);
    shared.state.store(kRunning);
    cpu_limit.renew(now);
    weft::runtime::Scheduler::forget_thread_pointer_requests();
    run(context);
    // Only code weft did not compile (the C library's, a library's, inline assembly) opens
    // descriptors, and it runs only after a request for the thread pointer (scheduler.hpp).
    const bool may_have_opened = weft::runtime::Scheduler::thread_pointer_asked();
    std::uint32_t expected = kRunning;
    if (!shared.state.compare_exchange_strong(expected, kIdle))
      for (;;) pause();  // the server has claimed this execution (a limit) and kills us
    answer(channel, 0, weft::native::ExitReason::kNone);
    // The rest is done while weft reads the trace and picks the next directive.
    ThreadHeap::reset_all();  // cleared, not unmapped; stacks stay, for the next execution too
    NativeRuntime::clear_used_stacks();
    // Before the descriptors the execution opened are closed (it keeps one of the working
    // directory) and before the snapshot restore, which clears its record.
    restore_process_settings();
    if (may_have_opened) descriptors.close_new();
    descriptors.restore_offsets();
    snapshot.restore();
    // After the restore, which takes back what the execution grew the brk heap by.
    // The stacks and the kept heap regions are mapped at places of their own.
    if (runs % kDriftCheckEvery == 0 &&
        snapshot.mappings_grew(
            {{NativeRuntime::stack_region_begin(), NativeRuntime::stack_region_end()},
             {ThreadHeap::range_begin(), ThreadHeap::range_end()}}))
      _exit(0);  // retire: the server starts another worker, which takes the next request
  }
}

}  // namespace

ChildEnd wait_for_child(pid_t pid, std::uint64_t ms, std::uint64_t memory) {
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  ChildEnd result = ChildEnd::kTimedOut;
  for (std::uint64_t waited = 0; ms == 0 || waited < ms; waited += 20) {
    if (ends_within(pid, pidfd, 20)) {
      result = ChildEnd::kExited;
      break;
    }
    if (memory && resident_bytes(pid) > memory) {
      result = ChildEnd::kOutOfMemory;
      break;
    }
  }
  if (pidfd >= 0) close(pidfd);
  return result;
}

ExecutionWorker::ExecutionWorker(RunExecution run, void* context, const ExecutionLimits& limits,
                                 weft::native::Channel& channel)
    : run_(run), context_(context), limits_(limits), channel_(channel) {
  void* m =
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m != MAP_FAILED) shared_ = new (m) Shared{};
}

ExecutionWorker::~ExecutionWorker() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (pidfd_ >= 0) close(pidfd_);
  if (shared_) munmap(shared_, sizeof(Shared));
}

bool ExecutionWorker::start() {
  if (!shared_) return false;
  shared_->state.store(kStarting);
  std::fflush(nullptr);
  const pid_t pid = WEFT_REAL(fork);
  if (pid < 0) return false;
  if (pid == 0) worker_main(*shared_, channel_, run_, context_, limits_.cpu_seconds);
  pid_ = pid;
  channel_.worker_pid.store(pid);
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  // Until it has captured its memory (or found it cannot).
  while (shared_->state.load() == kStarting && !has_ended(pid)) usleep(100);
  // Ready; it may already be running weft's next command.
  const std::uint32_t state = shared_->state.load();
  if (state != kStarting && state != kUnavailable) return true;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  if (pidfd_ >= 0) close(pidfd_);
  pidfd_ = -1;
  pid_ = -1;
  return false;
}

void ExecutionWorker::serve() {
  while (true) {
    if (pid_ < 0 && !start()) {
      // It worked before; a worker that cannot start now is out of resources.
      std::fprintf(stderr, "weft runtime: cannot start a worker process\n");
      _exit(2);
    }
    const bool died = ends_within(pid_, pidfd_, 20);
    auto why = weft::native::ExitReason::kNone;
    if (!died && shared_->state.load() == kRunning) {
      const std::int64_t elapsed_ms = (monotonic_ns() - shared_->started_ns.load()) / 1000000;
      if (limits_.wall_ms && static_cast<std::uint64_t>(elapsed_ms) > limits_.wall_ms)
        why = weft::native::ExitReason::kTimeout;
      else if (limits_.memory_bytes && resident_bytes(pid_) > limits_.memory_bytes)
        why = weft::native::ExitReason::kMemory;
    }
    if (!died && why == weft::native::ExitReason::kNone) continue;
    std::uint32_t expected = kRunning;
    const bool claimed = shared_->state.compare_exchange_strong(expected, kClaimed);
    if (!died && !claimed) continue;  // it finished just now
    if (why == weft::native::ExitReason::kTimeout)
      channel_.blocked_system_call = weft::native::blocked_system_call(pid_);
    if (!died) kill(pid_, SIGKILL);
    int status = 0;
    rusage usage{};
    while (wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    weft::native::note_ended_peak(channel_, usage.ru_maxrss);
    channel_.worker_pid.store(0);
    if (pidfd_ >= 0) close(pidfd_);
    pidfd_ = -1;
    pid_ = -1;
    if (claimed)
      answer(channel_, status, why);
    else if (expected == kQuit)
      _exit(0);
    // Otherwise it retired (or died while idle): the next one takes over.
  }
}

}  // namespace weft::runtime::native
