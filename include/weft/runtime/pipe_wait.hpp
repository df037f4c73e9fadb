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

/// Waits until `fd` is readable, at most `timeout_ms` milliseconds (-1: no limit), like poll():
/// > 0 readable, 0 timed out, < 0 error. It polls first for up to kSpinNanoseconds, yielding the
/// CPU between polls so that a process it waits for on the same CPU can run, then sleeps.
inline int wait_readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  timespec start{}, now{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  while (true) {
    const int r = poll(&p, 1, 0);
    if (r != 0) return r;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const long spun = (now.tv_sec - start.tv_sec) * 1'000'000'000L + (now.tv_nsec - start.tv_nsec);
    if (spun > kSpinNanoseconds || timeout_ms == 0) break;
    sched_yield();
  }
  return poll(&p, 1, timeout_ms);
}

}  // namespace weft::native
