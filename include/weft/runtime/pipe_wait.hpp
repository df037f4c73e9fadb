// Waiting for the other end of a pipe, as weft and the worker process do once per execution.
#pragma once

#include <poll.h>
#include <sched.h>
#include <time.h>

namespace weft::native {

/// How long a waiter polls before it sleeps. An answer usually comes within a few tens of
/// microseconds; waking a sleeping process costs more than that on the virtual machines we
/// measured (bench/fork_server_bench.cpp: an empty execution 54 µs sleeping, 18 µs polling).
inline constexpr long kSpinNanoseconds = 200'000;

inline long nanoseconds_since(const timespec& start, clockid_t clock = CLOCK_MONOTONIC) {
  timespec now{};
  clock_gettime(clock, &now);
  return (now.tv_sec - start.tv_sec) * 1'000'000'000L + (now.tv_nsec - start.tv_nsec);
}

/// Waits until `fd` is readable, at most `timeout_ms` milliseconds (-1: no limit), like poll():
/// > 0 readable, 0 timed out, < 0 error. It polls first for up to `spin_ns`, yielding the CPU
/// between polls so that a process it waits for on the same CPU can run, then sleeps. If
/// `polled_ns` is given, it receives how long the polling lasted.
inline int wait_readable(int fd, int timeout_ms, long spin_ns = kSpinNanoseconds,
                         long* polled_ns = nullptr) {
  pollfd p{fd, POLLIN, 0};
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  while (true) {
    const int r = poll(&p, 1, 0);
    const long spun = nanoseconds_since(start);
    if (polled_ns) *polled_ns = spun;
    if (r != 0) return r;
    if (spun > spin_ns || timeout_ms == 0) break;
    sched_yield();
  }
  return poll(&p, 1, timeout_ms);
}

/// A waiter that polls only where that pays. Polling answers a short wait without the cost of
/// waking up, and costs nothing while a CPU is to spare. But when the answers take longer than
/// the polling (long executions) and the CPUs are shared (a second exploration running beside
/// this one), polling first only takes CPU time from the process being waited for: then it
/// sleeps at once. Whether a CPU is to spare is measured while polling: how much CPU time the
/// polling got of the time it lasted (re-measured every kProbeEvery waits while sleeping).
class AdaptiveWait {
 public:
  int wait_readable(int fd, int timeout_ms) {
    timespec start{}, cpu_start{};
    clock_gettime(CLOCK_MONOTONIC, &start);
    const bool poll_first =
        typical_ns_ < kSpinNanoseconds / 2 || cpu_to_spare_ || ++since_probe_ % kProbeEvery == 0;
    int r = 0;
    if (poll_first) {
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_start);
      long polled = 0;
      r = native::wait_readable(fd, timeout_ms, kSpinNanoseconds, &polled);
      const long cpu = nanoseconds_since(cpu_start, CLOCK_THREAD_CPUTIME_ID);
      // Only a long polling says much (a short one may be all system-call overhead).
      if (polled > kSpinNanoseconds / 4) cpu_to_spare_ = cpu * 3 > polled * 2;
    } else {
      r = native::wait_readable(fd, timeout_ms, 0);
    }
    typical_ns_ += (nanoseconds_since(start) - typical_ns_) / 8;
    return r;
  }

 private:
  static constexpr unsigned kProbeEvery = 32;
  long typical_ns_ = 0;  // a moving average of the last waits
  bool cpu_to_spare_ = true;
  unsigned since_probe_ = 0;
};

}  // namespace weft::native
