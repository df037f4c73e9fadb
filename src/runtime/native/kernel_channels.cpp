// Pipes, sockets and eventfds between the program's threads (kernel_channels.hpp): each call
// on a channel is a visible operation of the scheduler, done first; the call itself then runs
// in the kernel without ever blocking the one OS thread every weft thread runs on:
//   - a receive (read, recv, accept, an eventfd's read) waits in weft until the kernel has
//     something for it, or the end; a call on a non-blocking end does not wait, and its
//     operation says whether the channel was ready;
//   - a send (write, send, an eventfd's add) waits in weft until there is room, and a blocking
//     write larger than the room goes in pieces, one operation each, as the kernel does it;
//   - a close (or shutdown) is an operation too: a reader may now see the end.
// Only descriptors an execution made are followed (pipe, pipe2, socketpair, socket, eventfd,
// accept, dup, epoll_create): standard input and output, files and sockets to other processes
// stay the outside world, real and not explored.
#include "kernel_channels.hpp"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "native_runtime.hpp"
#include "process_state.hpp"
#include "real_functions.hpp"
#include "weft/trace/wire.hpp"

extern "C" void* __libc_malloc(std::size_t);
extern "C" void __libc_free(void*);

using weft::ObjectKey;
using weft::Operation;
using weft::OpKind;
using weft::runtime::native::channel_step;
using weft::runtime::native::ChannelKind;
using weft::runtime::native::KernelChannels;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::runtime_for;
using weft::runtime::native::RuntimeScope;

namespace weft::runtime::native {

const char* channel_name(ChannelKind kind) {
  switch (kind) {
    case ChannelKind::kPipe:
      return "pipe";
    case ChannelKind::kSocket:
      return "socket";
    case ChannelKind::kListener:
      return "listening socket";
    case ChannelKind::kEventfd:
      return "eventfd";
    case ChannelKind::kEpoll:
      return "epoll instance";
    case ChannelKind::kMessageQueue:
      return "message queue";
    case ChannelKind::kNone:
      break;
  }
  return "descriptor";
}

KernelChannels::~KernelChannels() {
  __libc_free(fds_);
}

KernelChannels::Descriptor* KernelChannels::descriptors() {
  if (!fds_) {
    fds_ = static_cast<Descriptor*>(__libc_malloc(sizeof(Descriptor) * kTracked));
    if (!fds_) std::abort();
    std::uninitialized_value_construct_n(fds_, kTracked);
  }
  return fds_;
}

void KernelChannels::opened(int fd, ChannelKind kind, ObjectKey key) {
  if (!valid(fd)) return;
  descriptors()[fd] = {kind, key};
  any_ = true;
}

void KernelChannels::duplicated(int from, int fd) {
  if (!valid(fd)) return;
  if (!fds_) return;  // nothing followed: `from` is no channel, and neither is `fd`
  fds_[fd] = valid(from) ? fds_[from] : Descriptor{};
}

void KernelChannels::closed(int fd) {
  if (!valid(fd)) return;
  if (fds_) fds_[fd] = {};
  std::erase_if(listeners_, [&](const Listener& l) { return l.fd == fd; });
}

KernelChannels::Listener* KernelChannels::listener(int fd) {
  for (Listener& l : listeners_)
    if (l.fd == fd) return &l;
  return nullptr;
}

void KernelChannels::bound(int fd, const sockaddr_storage& address, socklen_t length) {
  Listener* l = listener(fd);
  if (!l) l = &listeners_.emplace_back();
  l->fd = fd;
  l->address = address;
  l->length = length;
  l->pending.clear();
}

namespace {

// Whether a connect to `to` reaches a socket bound to `bound`: the same UNIX path, or the same
// port with the bound address the same or any.
bool reaches(const sockaddr* to, socklen_t to_length, const sockaddr_storage& bound,
             socklen_t bound_length) {
  if (to->sa_family != bound.ss_family) return false;
  if (to->sa_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(to);
    const auto* b = reinterpret_cast<const sockaddr_in*>(&bound);
    return a->sin_port == b->sin_port &&
           (b->sin_addr.s_addr == a->sin_addr.s_addr || b->sin_addr.s_addr == INADDR_ANY);
  }
  if (to->sa_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(to);
    const auto* b = reinterpret_cast<const sockaddr_in6*>(&bound);
    return a->sin6_port == b->sin6_port &&
           (std::memcmp(&a->sin6_addr, &b->sin6_addr, sizeof a->sin6_addr) == 0 ||
            std::memcmp(&b->sin6_addr, &in6addr_any, sizeof in6addr_any) == 0);
  }
  return to_length == bound_length && std::memcmp(to, &bound, to_length) == 0;
}

}  // namespace

int KernelChannels::listener_at(const sockaddr* address, socklen_t length) const {
  if (!address) return -1;
  for (const Listener& l : listeners_)
    if (kind(l.fd) == ChannelKind::kListener && reaches(address, length, l.address, l.length))
      return l.fd;
  return -1;
}

void KernelChannels::connecting(int listener_fd, ObjectKey key) {
  if (Listener* l = listener(listener_fd)) l->pending.push_back(key);
}

ObjectKey KernelChannels::accepted(int listener_fd) {
  Listener* l = listener(listener_fd);
  if (!l || l->pending.empty()) return 0;
  const ObjectKey key = l->pending.front();
  l->pending.pop_front();
  return key;
}

void KernelChannels::watched(int epoll, int fd) {
  if (kind(epoll) != ChannelKind::kEpoll) return;
  if (kind(fd) == ChannelKind::kNone) {
    set_kind(epoll, ChannelKind::kNone);  // it waits on the outside world too
    return;
  }
  const std::pair<ObjectKey, ObjectKey> watch{key(fd), key(epoll)};
  if (std::find(watchers_.begin(), watchers_.end(), watch) == watchers_.end())
    watchers_.push_back(watch);
}

bool KernelChannels::operation_on(int fd, OpKind kind, bool timed, Operation& op) const {
  op = Operation{kind, 0, 0, key(fd), 0, timed};
  std::array<ObjectKey, Footprint::kCapacity + 1> epolls{};
  std::size_t count = 0;
  for (const auto& [channel, epoll] : watchers_)
    if (channel == op.object) {
      if (count == epolls.size()) return false;
      epolls[count++] = epoll;
    }
  return count == 0 || set_channels(op, std::span<const ObjectKey>(epolls.data(), count));
}

void KernelChannels::will_wait(ThreadId thread, const char* call, int fd, short events) {
  const pollfd one{fd, events, 0};
  will_wait(thread, call, &one, 1);
}

void KernelChannels::will_wait(ThreadId thread, const char* call, const pollfd* fds,
                               std::size_t count) {
  if (thread >= waits_.size()) waits_.resize(thread + 1);
  Wait& w = waits_[thread];
  w.call = call;
  w.fds.assign(fds, fds + count);
}

bool KernelChannels::ready(ThreadId thread, const Operation& op) {
  (void)op;
  if (thread >= waits_.size()) return true;
  Wait& w = waits_[thread];
  for (pollfd& p : w.fds) p.revents = 0;
  // POLLHUP and POLLERR count: the call then returns the end or the error at once.
  return WEFT_REAL(poll, w.fds.data(), w.fds.size(), 0) != 0;
}

std::string KernelChannels::waits_for(ThreadId thread, const Operation& op, const std::string& at) {
  if (thread >= waits_.size() || waits_[thread].fds.empty()) return "waits on a channel" + at;
  const Wait& w = waits_[thread];
  const pollfd& first = w.fds.front();
  const ChannelKind k = kind(first.fd);
  std::string s = "waits in " + std::string(w.call) + " on ";
  if (op.kind == OpKind::kChannelSelect && k != ChannelKind::kEpoll) {
    s += "descriptors";
    for (std::size_t i = 0; i < w.fds.size(); ++i)
      s += (i ? ", " : " ") + std::to_string(w.fds[i].fd);
    return s + " (none ready)" + at + "; no thread will make one ready";
  }
  s += std::string(channel_name(k)) + " descriptor " + std::to_string(first.fd);
  if (op.kind == OpKind::kChannelSelect)
    return s + " (nothing it watches is ready)" + at + "; no thread will make one ready";
  const bool queue = k == ChannelKind::kMessageQueue;
  if (op.kind == OpKind::kChannelSend)
    return s + (k == ChannelKind::kEventfd ? " (its count is at its maximum)" : " (full)") + at +
           (queue ? "; no thread will receive from it" : "; no thread will read from it");
  if (k == ChannelKind::kListener)
    return s + " (no connection)" + at + "; no thread will connect to it";
  if (queue) return s + " (empty)" + at + "; no thread will send to it";
  return s + (k == ChannelKind::kEventfd ? " (count 0)" : " (nothing to read)") + at +
         "; no thread will write to it";
}

std::string KernelChannels::waits_on_outside(ThreadId thread) const {
  if (thread >= waits_.size() || waits_[thread].fds.size() != 1) return {};
  const Wait& w = waits_[thread];
  const int fd = w.fds.front().fd;
  const bool listens = kind(fd) == ChannelKind::kListener;
  const bool datagram = kind(fd) == ChannelKind::kSocket && key(fd) == kInProcessObjectSpacing &&
                        (w.fds.front().events & POLLIN);
  if (!listens && !datagram) return {};
  return std::string(w.call) + " on " + (listens ? "listening" : "datagram") +
         " socket descriptor " + std::to_string(fd);
}

ObjectKey KernelChannels::queue_key(const char* name) const {
  for (const auto& [queue, key] : queues_)
    if (queue == name) return key;
  return 0;
}

void KernelChannels::queue_created(const char* name, ObjectKey key) {
  queues_.emplace_back(name, key);
  any_ = true;
}

void KernelChannels::queue_unlinked(const char* name) {
  std::erase_if(queues_, [&](const auto& q) { return q.first == name; });
}

void KernelChannels::end_execution() {
  for (const auto& q : queues_) WEFT_REAL(mq_unlink, q.first.c_str());
  queues_.clear();
}

void KernelChannels::reset() {
  end_execution();
  if (!any_) return;
  if (fds_) std::fill_n(fds_, kTracked, Descriptor{});
  listeners_.clear();
  watchers_.clear();
  waits_.clear();
  any_ = false;
}

}  // namespace weft::runtime::native

namespace {

// The runtime when a new descriptor of the program's should become a channel.
NativeRuntime* runtime_making() {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || rt->scheduler().self() == weft::kNoThread || rt->self().in_runtime > 0) return nullptr;
  return rt;
}

void make_channel(int fd, ChannelKind kind) {
  if (fd < 0) return;
  if (NativeRuntime* rt = runtime_making())
    rt->channels().opened(fd, kind, rt->scheduler().new_object());
}

void make_pair(const int fds[2], ChannelKind kind) {
  NativeRuntime* rt = runtime_making();
  if (!rt) return;
  // Both ends are one channel: what is done at one end is seen at the other.
  const ObjectKey key = rt->scheduler().new_object();
  rt->channels().opened(fds[0], kind, key);
  rt->channels().opened(fds[1], kind, key);
}

bool nonblocking(int fd) {
  const int flags = WEFT_REAL(fcntl, fd, F_GETFL);
  return flags != -1 && (flags & O_NONBLOCK) != 0;
}

// The operation of `call` on channel `fd`; the run stops if more epoll instances watch the
// channel than an operation can name (its order with their waits would be lost).
Operation channel_operation(NativeRuntime& rt, int fd, OpKind kind, bool timed, const char* call,
                            std::uint64_t site) {
  weft::Operation op;
  if (!rt.channels().operation_on(fd, kind, timed, op)) {
    const std::string what = std::string(call) + " at " + weft::code_mark(site) +
                             " on a descriptor that more than " +
                             std::to_string(weft::Footprint::kCapacity) + " epoll instances watch";
    rt.unsupported(what.c_str());
  }
  return op;
}

}  // namespace

namespace weft::runtime::native {

NativeRuntime* runtime_for(int fd) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || rt->channels().none() || rt->channels().kind(fd) == ChannelKind::kNone ||
      rt->scheduler().self() == weft::kNoThread || rt->self().in_runtime > 0)
    return nullptr;
  return rt;
}

bool channel_step(NativeRuntime& rt, OpKind kind, int fd, const char* call, bool dont_wait,
                  std::uint64_t site) {
  RuntimeScope scope(rt);
  const short events = kind == OpKind::kChannelSend ? POLLOUT : POLLIN;
  rt.channels().will_wait(rt.scheduler().self(), call, fd, events);
  const bool timed = dont_wait || nonblocking(fd);
  return rt.scheduler().perform(channel_operation(rt, fd, kind, timed, call, site), site) != 0;
}

}  // namespace weft::runtime::native

namespace {

void receive_step(NativeRuntime& rt, int fd, const char* call, bool dont_wait, std::uint64_t site) {
  channel_step(rt, OpKind::kChannelReceive, fd, call, dont_wait, site);
}

// Runs `attempt` (a send of what is left, never blocking: it returns bytes sent or -1) after a
// send operation, and again for what is left while the call is a blocking one: a blocking write
// larger than the room goes in pieces, as the kernel does it, each its own operation.
template <class Attempt>
ssize_t send_in_pieces(NativeRuntime& rt, int fd, const char* call, bool dont_wait,
                       std::size_t total, std::uint64_t site, Attempt attempt) {
  const bool waits = !dont_wait && !nonblocking(fd);
  std::size_t done = 0;
  int unready = 0;
  for (;;) {
    channel_step(rt, OpKind::kChannelSend, fd, call, dont_wait, site);
    const ssize_t n = attempt(done);
    if (n < 0) {
      if (!waits || errno != EAGAIN) return done > 0 ? static_cast<ssize_t>(done) : -1;
      // Ready by poll yet no room for this write (the kernel keeps small writes whole): wait
      // for a reader, but not forever if no reader will come.
      if (++unready > 1000) {
        RuntimeScope scope(rt);
        const std::string what = std::string(call) + " at " + weft::code_mark(site) +
                                 " (the kernel says there is room and takes nothing)";
        rt.unsupported(what.c_str());
      }
      continue;
    }
    unready = 0;
    done += static_cast<std::size_t>(n);
    if (!waits || done >= total) return static_cast<ssize_t>(done);
  }
}

// Sends without blocking: MSG_DONTWAIT for sockets; for others O_NONBLOCK for the call.
template <class Call>
ssize_t without_blocking(int fd, Call call) {
  const int flags = WEFT_REAL(fcntl, fd, F_GETFL);
  if (flags == -1 || (flags & O_NONBLOCK)) return call();
  WEFT_REAL(fcntl, fd, F_SETFL, flags | O_NONBLOCK);
  const ssize_t n = call();
  const int saved = errno;
  WEFT_REAL(fcntl, fd, F_SETFL, flags);
  errno = saved;
  return n;
}

std::size_t total_of(const iovec* parts, int count) {
  std::size_t total = 0;
  for (int i = 0; i < count; ++i) total += parts[i].iov_len;
  return total;
}

// The parts of `parts` after the first `skip` bytes, into `out`.
void skip_bytes(const iovec* parts, int count, std::size_t skip, std::vector<iovec>& out) {
  out.clear();
  for (int i = 0; i < count; ++i) {
    if (skip >= parts[i].iov_len) {
      skip -= parts[i].iov_len;
      continue;
    }
    out.push_back({static_cast<char*>(parts[i].iov_base) + skip, parts[i].iov_len - skip});
    skip = 0;
  }
}

void close_step(NativeRuntime& rt, int fd, std::uint64_t site) {
  RuntimeScope scope(rt);
  rt.scheduler().perform(channel_operation(rt, fd, OpKind::kChannelClose, false, "close", site),
                         site);
}

}  // namespace

extern "C" {

// ---- descriptors that become channels ---------------------------------------------------------

int pipe(int fds[2]) __THROW {
  const int r = WEFT_REAL(pipe, fds);
  if (r == 0) make_pair(fds, ChannelKind::kPipe);
  return r;
}

int pipe2(int fds[2], int flags) __THROW {
  const int r = WEFT_REAL(pipe2, fds, flags);
  if (r == 0) make_pair(fds, ChannelKind::kPipe);
  return r;
}

int socketpair(int domain, int type, int protocol, int fds[2]) __THROW {
  const int r = WEFT_REAL(socketpair, domain, type, protocol, fds);
  if (r == 0) make_pair(fds, ChannelKind::kSocket);
  return r;
}

int socket(int domain, int type, int protocol) __THROW {
  const int fd = WEFT_REAL(socket, domain, type, protocol);
  // A stream socket becomes a channel with its connection; datagrams may go to any socket of
  // the program by address: they are all one channel.
  if (fd >= 0 && (domain == AF_UNIX || domain == AF_INET || domain == AF_INET6)) {
    if (NativeRuntime* rt = runtime_making()) {
      const bool stream = (type & 0xf) == SOCK_STREAM || (type & 0xf) == SOCK_SEQPACKET;
      rt->channels().opened(fd, ChannelKind::kSocket,
                            stream ? rt->scheduler().new_object() : weft::kInProcessObjectSpacing);
    }
  }
  return fd;
}

int eventfd(unsigned int count, int flags) __THROW {
  const int fd = WEFT_REAL(eventfd, count, flags);
  make_channel(fd, ChannelKind::kEventfd);
  return fd;
}

int epoll_create(int size) __THROW {
  const int fd = WEFT_REAL(epoll_create, size);
  make_channel(fd, ChannelKind::kEpoll);
  return fd;
}

int epoll_create1(int flags) __THROW {
  const int fd = WEFT_REAL(epoll_create1, flags);
  make_channel(fd, ChannelKind::kEpoll);
  return fd;
}

int epoll_ctl(int epoll, int op, int fd, epoll_event* event) __THROW {
  if (NativeRuntime* rt = runtime_for(epoll);
      rt && rt->channels().kind(epoll) == ChannelKind::kEpoll) {
    // A visible operation on the instance and the descriptor: what a wait on the instance in
    // another thread reports depends on whether it runs before or after the change.
    const std::uint64_t site = WEFT_CALLER_SITE();
    RuntimeScope scope(*rt);
    Operation watch =
        channel_operation(*rt, epoll, OpKind::kChannelWatch, false, "epoll_ctl", site);
    if (const ObjectKey watched = rt->channels().key(fd)) {
      std::vector<ObjectKey> channels(watch.footprint.entries.begin(),
                                      watch.footprint.entries.begin() + watch.footprint.count);
      channels.push_back(watched);
      if (!weft::set_channels(watch, channels)) {
        const std::string what =
            "epoll_ctl at " + weft::code_mark(site) + " on an epoll instance that more than " +
            std::to_string(weft::Footprint::kCapacity - 1) + " other epoll instances watch";
        rt->unsupported(what.c_str());
      }
    }
    rt->scheduler().perform(watch, site);
  }
  const int r = WEFT_REAL(epoll_ctl, epoll, op, fd, event);
  if (r == 0 && op == EPOLL_CTL_ADD)
    if (NativeRuntime* rt = NativeRuntime::active()) {
      RuntimeScope scope(*rt);  // its bookkeeping allocates: not the program's
      rt->channels().watched(epoll, fd);
    }
  return r;
}

int bind(int fd, const sockaddr* address, socklen_t length) __THROW {
  const int r = WEFT_REAL(bind, fd, address, length);
  if (r == 0)
    if (NativeRuntime* rt = runtime_for(fd)) {
      // Where it really is (a port of 0 was given one).
      sockaddr_storage at{};
      socklen_t at_length = sizeof at;
      if (WEFT_REAL(getsockname, fd, reinterpret_cast<sockaddr*>(&at), &at_length) == 0) {
        RuntimeScope scope(*rt);
        rt->channels().bound(fd, at, at_length);
      }
    }
  return r;
}

int listen(int fd, int backlog) __THROW {
  const int r = WEFT_REAL(listen, fd, backlog);
  if (r == 0)
    if (NativeRuntime* rt = runtime_for(fd)) rt->channels().set_kind(fd, ChannelKind::kListener);
  return r;
}

int accept4(int fd, sockaddr* address, socklen_t* length, int flags) {
  NativeRuntime* rt = runtime_for(fd);
  if (!rt || rt->channels().kind(fd) != ChannelKind::kListener)
    return WEFT_REAL(accept4, fd, address, length, flags);
  receive_step(*rt, fd, "accept", false, WEFT_CALLER_SITE());
  const int made = WEFT_REAL(accept4, fd, address, length, flags);
  if (made >= 0) {
    // The connection the kernel queued first is the oldest connect of the program's not yet
    // accepted (none: one from outside, not a channel).
    const ObjectKey key = rt->channels().accepted(fd);
    if (key) rt->channels().opened(made, ChannelKind::kSocket, key);
  }
  return made;
}

int accept(int fd, sockaddr* address, socklen_t* length) {
  return accept4(fd, address, length, 0);
}

int connect(int fd, const sockaddr* address, socklen_t length) {
  NativeRuntime* rt = runtime_for(fd);
  if (!rt) return WEFT_REAL(connect, fd, address, length);
  const int listener = rt->channels().listener_at(address, length);
  if (listener < 0) {
    // To the outside world: the socket is not a channel of the program's.
    rt->channels().closed(fd);
    return WEFT_REAL(connect, fd, address, length);
  }
  // A send to the listening socket. The kernel completes a connect to a listener of this
  // process at once while its backlog has room.
  const std::uint64_t site = WEFT_CALLER_SITE();
  {
    RuntimeScope scope(*rt);
    rt->channels().will_wait(rt->scheduler().self(), "connect", listener, POLLOUT);
    rt->scheduler().perform(
        channel_operation(*rt, listener, OpKind::kChannelSend, true, "connect", site), site);
  }
  const int r = WEFT_REAL(connect, fd, address, length);
  if (r == 0 || errno == EINPROGRESS) {
    RuntimeScope scope(*rt);
    rt->channels().connecting(listener, rt->channels().key(fd));
  }
  return r;
}

int dup(int fd) __THROW {
  const int made = WEFT_REAL(dup, fd);
  if (NativeRuntime* rt = runtime_for(fd); rt && made >= 0) rt->channels().duplicated(fd, made);
  return made;
}

int dup2(int fd, int to) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  const int made = WEFT_REAL(dup2, fd, to);
  if (rt && made >= 0 && made != fd) rt->channels().duplicated(fd, made);
  return made;
}

int dup3(int fd, int to, int flags) __THROW {
  NativeRuntime* rt = NativeRuntime::active();
  const int made = WEFT_REAL(dup3, fd, to, flags);
  if (rt && made >= 0) rt->channels().duplicated(fd, made);
  return made;
}

int close(int fd) {
  weft::runtime::native::note_close(fd);
  if (NativeRuntime* rt = runtime_for(fd)) {
    close_step(*rt, fd, WEFT_CALLER_SITE());
    rt->channels().closed(fd);
  }
  return WEFT_REAL(close, fd);
}

int shutdown(int fd, int how) __THROW {
  if (NativeRuntime* rt = runtime_for(fd)) close_step(*rt, fd, WEFT_CALLER_SITE());
  return WEFT_REAL(shutdown, fd, how);
}

// ---- reads ----------------------------------------------------------------------------------

ssize_t read(int fd, void* buffer, size_t bytes) {
  if (NativeRuntime* rt = runtime_for(fd)) receive_step(*rt, fd, "read", false, WEFT_CALLER_SITE());
  return WEFT_REAL(read, fd, buffer, bytes);
}

ssize_t readv(int fd, const iovec* parts, int count) {
  if (NativeRuntime* rt = runtime_for(fd))
    receive_step(*rt, fd, "readv", false, WEFT_CALLER_SITE());
  return WEFT_REAL(readv, fd, parts, count);
}

ssize_t recvfrom(int fd, void* buffer, size_t bytes, int flags, sockaddr* from, socklen_t* length) {
  NativeRuntime* rt = runtime_for(fd);
  if (!rt) return WEFT_REAL(recvfrom, fd, buffer, bytes, flags, from, length);
  const std::uint64_t site = WEFT_CALLER_SITE();
  const bool dont_wait = (flags & MSG_DONTWAIT) != 0;
  if (!(flags & MSG_WAITALL) || dont_wait) {
    receive_step(*rt, fd, "recv", dont_wait, site);
    return WEFT_REAL(recvfrom, fd, buffer, bytes, flags, from, length);
  }
  // All of it, in as many receives as it takes (or up to the end).
  std::size_t done = 0;
  while (done < bytes) {
    receive_step(*rt, fd, "recv", false, site);
    const ssize_t n = WEFT_REAL(recvfrom, fd, static_cast<char*>(buffer) + done, bytes - done,
                                (flags & ~MSG_WAITALL) | MSG_DONTWAIT, from, length);
    if (n < 0 && errno == EAGAIN) continue;
    if (n <= 0) return done > 0 ? static_cast<ssize_t>(done) : n;
    done += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

ssize_t recv(int fd, void* buffer, size_t bytes, int flags) {
  return recvfrom(fd, buffer, bytes, flags, nullptr, nullptr);
}

ssize_t recvmsg(int fd, msghdr* message, int flags) {
  if (NativeRuntime* rt = runtime_for(fd))
    receive_step(*rt, fd, "recvmsg", (flags & MSG_DONTWAIT) != 0, WEFT_CALLER_SITE());
  return WEFT_REAL(recvmsg, fd, message, flags);
}

// ---- writes ---------------------------------------------------------------------------------

ssize_t write(int fd, const void* buffer, size_t bytes) {
  NativeRuntime* rt = runtime_for(fd);
  if (!rt) return WEFT_REAL(write, fd, buffer, bytes);
  return send_in_pieces(*rt, fd, "write", false, bytes, WEFT_CALLER_SITE(), [&](std::size_t done) {
    return without_blocking(fd, [&] {
      return WEFT_REAL(write, fd, static_cast<const char*>(buffer) + done, bytes - done);
    });
  });
}

ssize_t writev(int fd, const iovec* parts, int count) {
  NativeRuntime* rt = runtime_for(fd);
  if (!rt) return WEFT_REAL(writev, fd, parts, count);
  std::vector<iovec> rest;
  return send_in_pieces(
      *rt, fd, "writev", false, total_of(parts, count), WEFT_CALLER_SITE(), [&](std::size_t done) {
        skip_bytes(parts, count, done, rest);
        return without_blocking(
            fd, [&] { return WEFT_REAL(writev, fd, rest.data(), static_cast<int>(rest.size())); });
      });
}

ssize_t sendto(int fd, const void* buffer, size_t bytes, int flags, const sockaddr* to,
               socklen_t length) {
  NativeRuntime* rt = runtime_for(fd);
  if (!rt) return WEFT_REAL(sendto, fd, buffer, bytes, flags, to, length);
  return send_in_pieces(*rt, fd, "send", (flags & MSG_DONTWAIT) != 0, bytes, WEFT_CALLER_SITE(),
                        [&](std::size_t done) {
                          return WEFT_REAL(sendto, fd, static_cast<const char*>(buffer) + done,
                                           bytes - done, flags | MSG_DONTWAIT, to, length);
                        });
}

ssize_t send(int fd, const void* buffer, size_t bytes, int flags) {
  return sendto(fd, buffer, bytes, flags, nullptr, 0);
}

ssize_t sendmsg(int fd, const msghdr* message, int flags) {
  NativeRuntime* rt = runtime_for(fd);
  if (!rt) return WEFT_REAL(sendmsg, fd, message, flags);
  std::vector<iovec> rest;
  const auto parts = message->msg_iov;
  const int count = static_cast<int>(message->msg_iovlen);
  return send_in_pieces(*rt, fd, "sendmsg", (flags & MSG_DONTWAIT) != 0, total_of(parts, count),
                        WEFT_CALLER_SITE(), [&](std::size_t done) {
                          skip_bytes(parts, count, done, rest);
                          msghdr m = *message;
                          m.msg_iov = rest.data();
                          m.msg_iovlen = rest.size();
                          if (done > 0) {  // the ancillary data went with the first piece
                            m.msg_control = nullptr;
                            m.msg_controllen = 0;
                          }
                          return WEFT_REAL(sendmsg, fd, &m, flags | MSG_DONTWAIT);
                        });
}

}  // extern "C"

namespace weft::runtime::native {

void explain_outside_waits(NativeRuntime& rt, Trace& trace) {
  if (trace.outcome != Outcome::kDeadlock) return;
  for (const PendingThread& p : trace.pending) {
    if (p.enabled) continue;
    const std::string wait = rt.channels().waits_on_outside(p.thread);
    if (wait.empty()) continue;
    trace.outcome = Outcome::kUnsupported;
    trace.message = "the program called " + wait + " (thread " + rt.registry().name(p.thread) +
                    "), and no thread of the program will send to it; a client outside the "
                    "program could, which weft does not model, so this is not called a deadlock";
    trace.failing_thread = p.thread;
    return;
  }
}

int wait_on_channels(NativeRuntime& rt, pollfd* fds, std::size_t count, int timeout_ms,
                     const char* call, std::uint64_t site) {
  RuntimeScope scope(rt);
  // Descriptors outside the program are left to the kernel, as before: a wait for them is not a
  // channel operation.
  bool any_channel = false;
  bool all_channels = true;
  for (std::size_t i = 0; i < count; ++i) {
    if (fds[i].fd < 0) continue;
    const bool channel = rt.channels().kind(fds[i].fd) != ChannelKind::kNone;
    any_channel |= channel;
    all_channels &= channel;
  }
  if (!any_channel) return -2;
  rt.channels().will_wait(rt.scheduler().self(), call, fds, count);
  if (!all_channels) {
    // The kernel may make one of them ready at any time: a look that never waits in weft, and
    // if nothing is ready and the call would wait forever, a stop naming it.
    const int ready = WEFT_REAL(poll, fds, count, 0);
    if (ready != 0 || timeout_ms >= 0) return ready;
    const std::string what = std::string(call) + " at " + weft::code_mark(site) +
                             " (it waits on channels between the program's threads and on "
                             "descriptors outside the program at once, with nothing ready)";
    rt.unsupported(what.c_str());
  }
  // The channels it watches, when few enough to name (set_watched): it then depends on those
  // only.
  Operation select{OpKind::kChannelSelect, 0, 0, 0, 0, timeout_ms >= 0};
  std::vector<ObjectKey> keys;
  for (std::size_t i = 0; i < count; ++i)
    if (fds[i].fd >= 0) keys.push_back(rt.channels().key(fds[i].fd));
  weft::set_watched(select, keys);
  rt.scheduler().perform(select, site);
  return WEFT_REAL(poll, fds, count, 0);
}

}  // namespace weft::runtime::native

extern "C" {

// An epoll instance over channels only is a selective wait over them: whether it has something
// is the kernel's poll of the instance (which takes no event from it). One that also watches
// the outside world is looked at without waiting; if nothing is ready and it would wait
// forever, the run stops naming the call (waiting would block every thread).
static int epoll_wait_modelled(int epoll, epoll_event* events, int most, int timeout_ms,
                               const char* call, std::uint64_t site) {
  NativeRuntime* rt = runtime_making();
  if (!rt) return -2;
  RuntimeScope scope(*rt);
  if (rt->channels().kind(epoll) != ChannelKind::kEpoll) {
    const int ready = WEFT_REAL(epoll_wait, epoll, events, most, 0);
    if (ready != 0 || timeout_ms >= 0) return ready;
    const std::string what = std::string(call) + " with nothing ready at " + weft::code_mark(site) +
                             " (it watches descriptors outside the program, and would block)";
    rt->unsupported(what.c_str());
  }
  rt->channels().will_wait(rt->scheduler().self(), call, epoll, POLLIN);
  rt->scheduler().perform(Operation{OpKind::kChannelSelect, 0, 0, 0, 0, timeout_ms >= 0}, site);
  return WEFT_REAL(epoll_wait, epoll, events, most, 0);
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
