// System calls that would block the one OS thread every weft thread runs on. poll and select
// over channels between the program's threads (pipes, socket pairs, eventfds) are selective
// waits (kernel_channels.cpp). Otherwise they are used to sleep (no descriptors: a scheduling
// point, as sleep is) or to wait for the outside world: they look without blocking, and while
// nothing is ready the thread yields, so the others can run; a finite timeout may expire at the
// first yield (like a timed wait, a scheduling choice). Signal waits are in signals.cpp.
#include <errno.h>
#include <poll.h>
#include <sys/select.h>
#include <unistd.h>

#include <vector>

#include "kernel_channels.hpp"
#include "native_runtime.hpp"
#include "real_functions.hpp"
#include "signals.hpp"

using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

namespace {

// select over channels: as poll over the same descriptors (kernel_channels.cpp), the sets then
// set from what is ready. -2 when none of them is a channel.
int select_on_channels(NativeRuntime& rt, int count, fd_set* readable, fd_set* writable,
                       fd_set* failed, const timeval* timeout, std::uint64_t site) {
  if (rt.channels().none()) return -2;
  std::vector<pollfd> fds;
  for (int fd = 0; fd < count && fd < FD_SETSIZE; ++fd) {
    short events = 0;
    if (readable && FD_ISSET(fd, readable)) events |= POLLIN;
    if (writable && FD_ISSET(fd, writable)) events |= POLLOUT;
    if (failed && FD_ISSET(fd, failed)) events |= POLLPRI;
    if (events) fds.push_back({fd, events, 0});
  }
  const int timeout_ms =
      timeout ? static_cast<int>(timeout->tv_sec * 1000 + timeout->tv_usec / 1000) : -1;
  const int r = weft::runtime::native::wait_on_channels(rt, fds.data(), fds.size(), timeout_ms,
                                                        "select", site);
  if (r < 0) return r;
  for (fd_set* set : {readable, writable, failed})
    if (set) FD_ZERO(set);
  int ready = 0;
  for (const pollfd& p : fds) {
    // As the kernel counts: each descriptor in each set it is ready in.
    const bool in = p.revents & (POLLIN | POLLHUP | POLLERR);
    const bool out = p.revents & (POLLOUT | POLLERR);
    const bool pri = p.revents & POLLPRI;
    if (readable && (p.events & POLLIN) && in) FD_SET(p.fd, readable), ++ready;
    if (writable && (p.events & POLLOUT) && out) FD_SET(p.fd, writable), ++ready;
    if (failed && (p.events & POLLPRI) && pri) FD_SET(p.fd, failed), ++ready;
  }
  return ready;
}

int poll_at(NativeRuntime* rt, struct pollfd* fds, nfds_t count, int timeout_ms, const char* call,
            std::uint64_t site) {
  RuntimeScope scope(*rt);
  if (const int r =
          weft::runtime::native::wait_on_channels(*rt, fds, count, timeout_ms, call, site);
      r != -2)
    return r;
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

int select_at(NativeRuntime* rt, int count, fd_set* readable, fd_set* writable, fd_set* failed,
              struct timeval* timeout, std::uint64_t site) {
  RuntimeScope scope(*rt);
  const bool sleeps_only = !readable && !writable && !failed;
  const bool forever = timeout == nullptr;
  const bool immediate = timeout && timeout->tv_sec == 0 && timeout->tv_usec == 0;
  if (const int r = select_on_channels(*rt, count, readable, writable, failed, timeout, site);
      r != -2)
    return r;
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

}  // namespace

extern "C" {

int poll(struct pollfd* fds, nfds_t count, int timeout_ms) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(poll, fds, count, timeout_ms);
  return poll_at(rt, fds, count, timeout_ms, "poll", WEFT_CALLER_SITE());
}

int select(int count, fd_set* readable, fd_set* writable, fd_set* failed, struct timeval* timeout) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(select, count, readable, writable, failed, timeout);
  return select_at(rt, count, readable, writable, failed, timeout, WEFT_CALLER_SITE());
}

// ppoll and pselect wait as poll and select do; the signal mask they take for the wait is not
// applied (weft delivers signals at scheduling points, signals.cpp).
int ppoll(struct pollfd* fds, nfds_t count, const struct timespec* timeout, const sigset_t* mask) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(ppoll, fds, count, timeout, mask);
  const int ms =
      timeout ? static_cast<int>(timeout->tv_sec * 1000 + timeout->tv_nsec / 1000000) : -1;
  return poll_at(rt, fds, count, ms, "ppoll", WEFT_CALLER_SITE());
}

int pselect(int count, fd_set* readable, fd_set* writable, fd_set* failed,
            const struct timespec* timeout, const sigset_t* mask) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return WEFT_REAL(pselect, count, readable, writable, failed, timeout, mask);
  timeval t{};
  if (timeout) t = {timeout->tv_sec, timeout->tv_nsec / 1000};
  return select_at(rt, count, readable, writable, failed, timeout ? &t : nullptr,
                   WEFT_CALLER_SITE());
}

}  // extern "C"
