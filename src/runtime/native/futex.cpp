// The futex system call, as visible operations. libstdc++'s C++20 waits (std::atomic<T>::wait
// and notify, counting_semaphore, latch, barrier) and its futures (std::promise, std::async)
// call syscall(SYS_futex, ...) directly; run for real, a wait on one of weft's fibers would
// block the one OS thread all of them run on. Here a wait is OpKind::kFutexWait (compare and
// start waiting, one step) and kFutexWoken (blocks until a wake), a wake is kFutexWake, so the
// strategies explore them like condition variables, and a wait no thread will end is reported
// in a deadlock.
#include "futex.hpp"

#include <errno.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <string>

#include "native_runtime.hpp"
#include "real_functions.hpp"

using weft::Operation;
using weft::OpKind;
using weft::runtime::native::key_of;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

namespace {

long fail_with(int error) {
  errno = error;
  return -1;
}

long futex_wake(NativeRuntime& rt, std::uint32_t* word, long count, std::uint64_t site) {
  const std::uint64_t n = count < 0 ? 0 : static_cast<std::uint64_t>(count);
  Operation op{OpKind::kFutexWake, 0, 0, key_of(word), n == INT_MAX ? UINT32_MAX : n};
  return rt.scheduler().perform(op, site);
}

}  // namespace

namespace weft::runtime::native {

long futex_wait(NativeRuntime& rt, std::uint32_t* word, std::uint32_t expected, bool timed,
                std::uint64_t site) {
  Operation op{OpKind::kFutexWait, 0, 4, key_of(word), expected, timed};
  switch (rt.scheduler().perform(op, site)) {
    case weft::runtime::kFutexValueDiffered:
      return fail_with(EAGAIN);
    case weft::runtime::kFutexTimedOut:
      return fail_with(ETIMEDOUT);
    default:
      return 0;
  }
}

}  // namespace weft::runtime::native

using weft::runtime::native::futex_wait;

extern "C" {

long syscall(long number, ...) __THROW {
  va_list args;
  va_start(args, number);
  long a[6];
  for (long& v : a) v = va_arg(args, long);
  va_end(args);
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || number != SYS_futex)
    return WEFT_REAL(syscall, number, a[0], a[1], a[2], a[3], a[4], a[5]);
  RuntimeScope scope(*rt);
  auto* word = reinterpret_cast<std::uint32_t*>(a[0]);
  const int command = static_cast<int>(a[1]) & FUTEX_CMD_MASK;
  const std::uint64_t site = WEFT_CALLER_SITE();
  switch (command) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
      return futex_wait(*rt, word, static_cast<std::uint32_t>(a[2]), a[3] != 0, site);
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET:
      return futex_wake(*rt, word, a[2], site);
    default:
      // Requeues, wake-op and priority-inheritance futexes are not modelled yet.
      rt->unsupported(("the futex system call with command " + std::to_string(command) +
                       " (only wait and wake are modelled)")
                          .c_str());
  }
}

}  // extern "C"
