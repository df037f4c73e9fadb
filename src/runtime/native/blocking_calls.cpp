// System calls that would block the one OS thread every weft thread runs on. poll and select
// are used to sleep (no descriptors: a scheduling point, as sleep is) and to wait for
// descriptors another thread of the program may make ready (a pipe): they look without
// blocking, and while nothing is ready the thread yields, so the others can run; a finite
// timeout may expire at the first yield (like a timed wait, a scheduling choice). The channels
// they wait on are noted (kernel_channels.cpp). Signal waits are in signals.cpp.
#include <errno.h>
#include <poll.h>
#include <sys/select.h>
#include <unistd.h>

#include "kernel_channels.hpp"
#include "native_runtime.hpp"
#include "real_functions.hpp"
#include "signals.hpp"

using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

extern "C" {

int poll(struct pollfd* fds, nfds_t count, int timeout_ms) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(poll, fds, count, timeout_ms);
  RuntimeScope scope(*rt);
  const std::uint64_t site = WEFT_CALLER_SITE();
  for (nfds_t i = 0; i < count; ++i)
    weft::runtime::native::note_channel_waited(*rt, fds[i].fd, "poll", site);
  for (;;) {
    const int ready = count == 0 ? 0 : WEFT_REAL(poll, fds, count, 0);
    if (ready != 0 || timeout_ms == 0) return ready;
    if (weft::runtime::native::interruptible_sleep(*rt, site)) {
      errno = EINTR;
      return -1;
    }
    if (timeout_ms > 0 || count == 0) return count == 0 ? 0 : WEFT_REAL(poll, fds, count, 0);
  }
}

int select(int count, fd_set* readable, fd_set* writable, fd_set* failed, struct timeval* timeout) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(select, count, readable, writable, failed, timeout);
  RuntimeScope scope(*rt);
  const std::uint64_t site = WEFT_CALLER_SITE();
  const bool sleeps_only = !readable && !writable && !failed;
  const bool forever = timeout == nullptr;
  const bool immediate = timeout && timeout->tv_sec == 0 && timeout->tv_usec == 0;
  for (int fd = 0; fd < count && fd < FD_SETSIZE; ++fd)
    if ((readable && FD_ISSET(fd, readable)) || (writable && FD_ISSET(fd, writable)))
      weft::runtime::native::note_channel_waited(*rt, fd, "select", site);
  // select changes the sets it is given; each look starts from the caller's.
  fd_set want_read, want_write, want_failed;
  if (readable) want_read = *readable;
  if (writable) want_write = *writable;
  if (failed) want_failed = *failed;
  for (;;) {
    int ready = 0;
    if (!sleeps_only) {
      if (readable) *readable = want_read;
      if (writable) *writable = want_write;
      if (failed) *failed = want_failed;
      timeval now{0, 0};
      ready = WEFT_REAL(select, count, readable, writable, failed, &now);
    }
    if (ready != 0 || immediate) return ready;
    if (weft::runtime::native::interruptible_sleep(*rt, site)) {
      errno = EINTR;
      return -1;
    }
    if (!forever || sleeps_only) {
      if (timeout) *timeout = timeval{0, 0};
      if (sleeps_only) return 0;
      if (readable) *readable = want_read;
      if (writable) *writable = want_write;
      if (failed) *failed = want_failed;
      timeval now{0, 0};
      return WEFT_REAL(select, count, readable, writable, failed, &now);
    }
  }
}

}  // extern "C"
