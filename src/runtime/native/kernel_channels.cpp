// Pipes, sockets and eventfds between the program's threads (kernel_channels.hpp). weft does not
// model them yet, and every weft thread runs on one OS thread, so:
//   - a call that would block on one (a read of an empty pipe, an accept with no connection
//     waiting, an epoll_wait with nothing ready) stops the run with exit 2, naming the call and
//     its place: blocking would hang every thread, and a time-out would blame the program;
//   - a thread that reads or waits on a channel another thread wrote to (or the other way
//     round) makes the verdict say that the messages' orders were not explored
//     (CaveatKind::kKernelCommunication), never "explored".
// Only descriptors the execution made are tracked (pipe, pipe2, socketpair, socket, eventfd,
// accept, dup): standard input and output, and files, cost one test per call.
#include "kernel_channels.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <string>
#include <string_view>

#include "native_runtime.hpp"
#include "real_functions.hpp"
#include "weft/trace/wire.hpp"

using weft::runtime::native::ChannelKind;
using weft::runtime::native::KernelChannels;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

namespace weft::runtime::native {

const char* channel_name(ChannelKind kind) {
  switch (kind) {
    case ChannelKind::kPipe:
      return "pipe";
    case ChannelKind::kSocket:
      return "socket";
    case ChannelKind::kEventfd:
      return "eventfd";
    case ChannelKind::kNone:
      break;
  }
  return "descriptor";
}

}  // namespace weft::runtime::native

namespace {

// The runtime when the calling code is the program's, during an execution, and `fd` is a channel
// the execution made; else null.
NativeRuntime* runtime_for(int fd) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || rt->channels().none() || rt->channels().kind(fd) == ChannelKind::kNone) return nullptr;
  return rt;
}

void note_made(int fd, ChannelKind kind) {
  if (NativeRuntime* rt = NativeRuntime::active(); rt && fd >= 0) rt->channels().opened(fd, kind);
}

// `thread` used the channel `fd`; the first time threads have talked through the kernel, the
// log says so.
void note_use(NativeRuntime& rt, int fd, bool writes, const char* call, std::uint64_t site) {
  RuntimeScope scope(rt);
  const weft::ThreadId me = rt.scheduler().self();
  if (!rt.channels().used(me, writes)) return;
  const std::string kind = weft::runtime::native::channel_name(rt.channels().kind(fd));
  const bool vowel =
      !kind.empty() && std::string_view("aeiou").find(kind[0]) != std::string_view::npos;
  rt.note_caveat(weft::CaveatKind::kKernelCommunication,
                 std::string(call) + (vowel ? " on an " : " on a ") + kind + " by thread " +
                     rt.registry().name(me) + " at " + weft::code_mark(site));
}

bool nonblocking(int fd) {
  const int flags = WEFT_REAL(fcntl, fd, F_GETFL);
  return flags != -1 && (flags & O_NONBLOCK) != 0;
}

// Stops the run if `call` on `fd` would block now: waiting for `events` (POLLIN, POLLOUT).
void stop_if_it_would_block(NativeRuntime& rt, int fd, short events, bool dont_wait,
                            const char* call, const char* why, std::uint64_t site) {
  if (dont_wait || nonblocking(fd)) return;
  pollfd p{fd, events, 0};
  if (WEFT_REAL(poll, &p, 1, 0) != 0) return;  // ready (or an error the call itself will give)
  RuntimeScope scope(rt);
  const std::string what = std::string(call) + " on " + why + " " +
                           weft::runtime::native::channel_name(rt.channels().kind(fd)) + " at " +
                           weft::code_mark(site) +
                           " (it would block; communication through the kernel is not modelled "
                           "yet)";
  rt.unsupported(what.c_str());
}

void before_read(int fd, bool dont_wait, const char* call, std::uint64_t site) {
  NativeRuntime* rt = runtime_for(fd);
  if (!rt) return;
  note_use(*rt, fd, false, call, site);
  stop_if_it_would_block(*rt, fd, POLLIN, dont_wait, call, "an empty", site);
}

void before_write(int fd, bool dont_wait, const char* call, std::uint64_t site) {
  NativeRuntime* rt = runtime_for(fd);
  if (!rt) return;
  note_use(*rt, fd, true, call, site);
  stop_if_it_would_block(*rt, fd, POLLOUT, dont_wait, call, "a full", site);
}

}  // namespace

extern "C" {

// ---- descriptors that become channels ---------------------------------------------------------

int pipe(int fds[2]) __THROW {
  const int r = WEFT_REAL(pipe, fds);
  if (r == 0) {
    note_made(fds[0], ChannelKind::kPipe);
    note_made(fds[1], ChannelKind::kPipe);
  }
  return r;
}

int pipe2(int fds[2], int flags) __THROW {
  const int r = WEFT_REAL(pipe2, fds, flags);
  if (r == 0) {
    note_made(fds[0], ChannelKind::kPipe);
    note_made(fds[1], ChannelKind::kPipe);
  }
  return r;
}

int socketpair(int domain, int type, int protocol, int fds[2]) __THROW {
  const int r = WEFT_REAL(socketpair, domain, type, protocol, fds);
  if (r == 0) {
    note_made(fds[0], ChannelKind::kSocket);
    note_made(fds[1], ChannelKind::kSocket);
  }
  return r;
}

int socket(int domain, int type, int protocol) __THROW {
  const int fd = WEFT_REAL(socket, domain, type, protocol);
  note_made(fd, ChannelKind::kSocket);
  return fd;
}

int eventfd(unsigned int count, int flags) __THROW {
  const int fd = WEFT_REAL(eventfd, count, flags);
  note_made(fd, ChannelKind::kEventfd);
  return fd;
}

int accept(int fd, sockaddr* address, socklen_t* length) {
  before_read(fd, false, "accept", WEFT_CALLER_SITE());
  const int made = WEFT_REAL(accept, fd, address, length);
  note_made(made, ChannelKind::kSocket);
  return made;
}

int accept4(int fd, sockaddr* address, socklen_t* length, int flags) {
  before_read(fd, false, "accept4", WEFT_CALLER_SITE());
  const int made = WEFT_REAL(accept4, fd, address, length, flags);
  note_made(made, ChannelKind::kSocket);
  return made;
}

int connect(int fd, const sockaddr* address, socklen_t length) {
  if (NativeRuntime* rt = runtime_for(fd)) note_use(*rt, fd, true, "connect", WEFT_CALLER_SITE());
  return WEFT_REAL(connect, fd, address, length);
}

int dup(int fd) __THROW {
  const int made = WEFT_REAL(dup, fd);
  if (NativeRuntime* rt = runtime_for(fd)) rt->channels().opened(made, rt->channels().kind(fd));
  return made;
}

int dup2(int fd, int to) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  const int made = WEFT_REAL(dup2, fd, to);
  if (rt && made >= 0 && made != fd) {
    rt->channels().closed(made);
    if (runtime_for(fd)) rt->channels().opened(made, rt->channels().kind(fd));
  }
  return made;
}

int dup3(int fd, int to, int flags) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  const int made = WEFT_REAL(dup3, fd, to, flags);
  if (rt && made >= 0) {
    rt->channels().closed(made);
    if (runtime_for(fd)) rt->channels().opened(made, rt->channels().kind(fd));
  }
  return made;
}

int close(int fd) {
  if (NativeRuntime* rt = runtime_for(fd)) rt->channels().closed(fd);
  return WEFT_REAL(close, fd);
}

// ---- reads and writes ---------------------------------------------------------------------------

ssize_t read(int fd, void* buffer, size_t bytes) {
  before_read(fd, false, "read", WEFT_CALLER_SITE());
  return WEFT_REAL(read, fd, buffer, bytes);
}

ssize_t readv(int fd, const iovec* parts, int count) {
  before_read(fd, false, "readv", WEFT_CALLER_SITE());
  return WEFT_REAL(readv, fd, parts, count);
}

ssize_t recv(int fd, void* buffer, size_t bytes, int flags) {
  before_read(fd, (flags & MSG_DONTWAIT) != 0, "recv", WEFT_CALLER_SITE());
  return WEFT_REAL(recv, fd, buffer, bytes, flags);
}

ssize_t recvfrom(int fd, void* buffer, size_t bytes, int flags, sockaddr* from, socklen_t* length) {
  before_read(fd, (flags & MSG_DONTWAIT) != 0, "recvfrom", WEFT_CALLER_SITE());
  return WEFT_REAL(recvfrom, fd, buffer, bytes, flags, from, length);
}

ssize_t recvmsg(int fd, msghdr* message, int flags) {
  before_read(fd, (flags & MSG_DONTWAIT) != 0, "recvmsg", WEFT_CALLER_SITE());
  return WEFT_REAL(recvmsg, fd, message, flags);
}

ssize_t write(int fd, const void* buffer, size_t bytes) {
  before_write(fd, false, "write", WEFT_CALLER_SITE());
  return WEFT_REAL(write, fd, buffer, bytes);
}

ssize_t writev(int fd, const iovec* parts, int count) {
  before_write(fd, false, "writev", WEFT_CALLER_SITE());
  return WEFT_REAL(writev, fd, parts, count);
}

ssize_t send(int fd, const void* buffer, size_t bytes, int flags) {
  before_write(fd, (flags & MSG_DONTWAIT) != 0, "send", WEFT_CALLER_SITE());
  return WEFT_REAL(send, fd, buffer, bytes, flags);
}

ssize_t sendto(int fd, const void* buffer, size_t bytes, int flags, const sockaddr* to,
               socklen_t length) {
  before_write(fd, (flags & MSG_DONTWAIT) != 0, "sendto", WEFT_CALLER_SITE());
  return WEFT_REAL(sendto, fd, buffer, bytes, flags, to, length);
}

ssize_t sendmsg(int fd, const msghdr* message, int flags) {
  before_write(fd, (flags & MSG_DONTWAIT) != 0, "sendmsg", WEFT_CALLER_SITE());
  return WEFT_REAL(sendmsg, fd, message, flags);
}

// ---- waiting for many -----------------------------------------------------------------------

// An epoll instance watches descriptors weft cannot list cheaply; a wait is a read of the
// channels, and one with nothing ready that would block stops the run.
static int epoll_wait_modelled(int epoll, epoll_event* events, int most, int timeout_ms,
                               const char* call, std::uint64_t site) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return -2;
  RuntimeScope scope(*rt);
  const weft::ThreadId me = rt->scheduler().self();
  if (!rt->channels().none() && rt->channels().used(me, false))
    rt->note_caveat(weft::CaveatKind::kKernelCommunication, std::string(call) + " by thread " +
                                                                rt->registry().name(me) + " at " +
                                                                weft::code_mark(site));
  const int ready = WEFT_REAL(epoll_wait, epoll, events, most, 0);
  if (ready != 0 || timeout_ms == 0) return ready;
  const std::string what = std::string(call) + " with nothing ready at " + weft::code_mark(site) +
                           " (it would block; event loops are not modelled yet)";
  rt->unsupported(what.c_str());
}

int epoll_wait(int epoll, epoll_event* events, int most, int timeout_ms) {
  const int r =
      epoll_wait_modelled(epoll, events, most, timeout_ms, "epoll_wait", WEFT_CALLER_SITE());
  return r != -2 ? r : WEFT_REAL(epoll_wait, epoll, events, most, timeout_ms);
}

int epoll_pwait(int epoll, epoll_event* events, int most, int timeout_ms, const sigset_t* mask) {
  const int r =
      epoll_wait_modelled(epoll, events, most, timeout_ms, "epoll_pwait", WEFT_CALLER_SITE());
  return r != -2 ? r : WEFT_REAL(epoll_pwait, epoll, events, most, timeout_ms, mask);
}

}  // extern "C"

namespace weft::runtime::native {

void note_channel_waited(NativeRuntime& rt, int fd, const char* call, std::uint64_t site) {
  if (rt.channels().kind(fd) != ChannelKind::kNone) note_use(rt, fd, false, call, site);
}

}  // namespace weft::runtime::native
