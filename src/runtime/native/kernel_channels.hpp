// Descriptors through which the program's threads talk via the kernel: pipes, socket pairs,
// sockets connected to a listening socket of the program, eventfds, and epoll instances over
// them. Each is a channel of the scheduler (Domain::kChannel): a read, write, accept, connect or
// close on it is a visible operation, and poll, select and epoll_wait over channels are selective
// waits. The data stays in the kernel: since only one thread runs at a time and it does its call
// right after its operation is scheduled, the kernel's state is the execution's, and whether an
// operation may run is the kernel's own answer (a poll that does not wait).
#pragma once

#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "weft/runtime/scheduler.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft::runtime::native {

/// The kinds of descriptor that carry messages between threads.
enum class ChannelKind : std::uint8_t {
  kNone,      ///< not a channel: the outside world (files, terminals, other processes)
  kPipe,      ///< either end of a pipe
  kSocket,    ///< a socket pair's end, a connected socket, or one not yet connected
  kListener,  ///< a listening socket: connects send to it, accepts receive from it
  kEventfd,
  kEpoll,         ///< an epoll instance whose interest list holds only channels
  kMessageQueue,  ///< a POSIX message queue the execution created (message_queues.cpp)
};

/// The kind's name for messages ("pipe", "socket", "eventfd", ...).
const char* channel_name(ChannelKind kind);

/// Per execution: which descriptors are channels, each channel's key, and what each thread's
/// pending channel operation waits for (the scheduler's ChannelKeeper).
class KernelChannels final : public ChannelKeeper {
 public:
  static constexpr int kTracked = 1024;  ///< descriptors above are not followed

  KernelChannels() = default;
  ~KernelChannels();
  KernelChannels(const KernelChannels&) = delete;
  KernelChannels& operator=(const KernelChannels&) = delete;

  /// `fd` is a new channel of `kind` with the given key.
  void opened(int fd, ChannelKind kind, ObjectKey key);
  /// `fd` now refers to what `from` refers to (dup).
  void duplicated(int from, int fd);
  /// `fd` is closed: not a channel any more.
  void closed(int fd);
  ChannelKind kind(int fd) const { return valid(fd) && fds_ ? fds_[fd].kind : ChannelKind::kNone; }
  ObjectKey key(int fd) const { return valid(fd) && fds_ ? fds_[fd].key : 0; }
  void set_kind(int fd, ChannelKind kind) {
    if (valid(fd) && fds_) fds_[fd].kind = kind;
  }
  /// Whether no channel was made yet: the interposed calls then cost one test.
  bool none() const { return !any_; }

  /// A socket of the program bound `fd` to `address`: a connect to it is the program's own.
  void bound(int fd, const sockaddr_storage& address, socklen_t length);
  /// The listening socket of the program bound to `address`, or -1.
  int listener_at(const sockaddr* address, socklen_t length) const;
  /// A socket with key `key` connected to `listener`: the accept that takes it gets its key.
  void connecting(int listener, ObjectKey key);
  /// The key of the connection the next accept on `listener` takes, or 0 (one from outside).
  ObjectKey accepted(int listener);

  /// An epoll instance watches `fd` from now on: if it is not a channel, the instance's waits
  /// depend on the outside world; if it is, the operations on `fd` act on the instance too.
  void watched(int epoll, int fd);
  /// A channel operation of `kind` on `fd`, naming the epoll instances that watch it (see
  /// for_each_channel); false when more watch it than an operation can name.
  bool operation_on(int fd, OpKind kind, bool timed, Operation& op) const;

  /// The key of the POSIX message queue named `name` if this execution created it (and has not
  /// unlinked it since), else 0.
  ObjectKey queue_key(const char* name) const;
  /// This execution created the queue `name`, a channel with key `key`.
  void queue_created(const char* name, ObjectKey key);
  /// The queue `name` was unlinked: a queue opened by that name later is another.
  void queue_unlinked(const char* name);
  /// Unlinks the queues the execution created and left linked: a queue outlives the process,
  /// and the next execution must start without it (and without its messages).
  void end_execution();

  /// What `thread` is about to wait for: `call` on `fd` until `events` (POLLIN, POLLOUT).
  void will_wait(ThreadId thread, const char* call, int fd, short events);
  /// ... or a selective wait on `fds`.
  void will_wait(ThreadId thread, const char* call, const pollfd* fds, std::size_t count);

  /// If `thread` waits for what only the outside world may send (an accept on a listening
  /// socket, a receive on a datagram socket): the wait, in words ("accept on listening socket
  /// descriptor 4"); else "".
  std::string waits_on_outside(ThreadId thread) const;
  bool ready(ThreadId thread, const Operation& op) override;
  /// The kernel does the effect: says whether an operation that may run unready was ready.
  std::uint8_t apply(ThreadId thread, const Operation& op) override {
    return op.kind == OpKind::kChannelClose || !op.timed || ready(thread, op);
  }
  std::string waits_for(ThreadId thread, const Operation& op, const std::string& at) override;

  void reset();

 private:
  struct Descriptor {
    ChannelKind kind = ChannelKind::kNone;
    ObjectKey key = 0;
  };
  struct Listener {
    int fd = -1;
    sockaddr_storage address{};
    socklen_t length = 0;
    std::deque<ObjectKey> pending;  // keys of the connects not yet accepted, oldest first
  };
  struct Wait {
    const char* call = "";
    std::vector<pollfd> fds;
  };
  static bool valid(int fd) { return fd >= 0 && fd < kTracked; }
  Listener* listener(int fd);
  // The table, made at the first descriptor followed.
  Descriptor* descriptors();

  // kTracked entries, or none until a descriptor is followed: most executions open none, and
  // clearing 16 KiB in each (the runtime is made afresh per execution) was a cost of its own.
  // From the C library, as the runtime's thread entries are: a hook may note a descriptor
  // outside the runtime's scope, where the interposed malloc would serve the program.
  Descriptor* fds_ = nullptr;
  std::vector<Listener> listeners_;
  std::vector<std::pair<ObjectKey, ObjectKey>> watchers_;  // (channel, epoll instance watching it)
  std::vector<std::pair<std::string, ObjectKey>> queues_;  // created by the execution, by name
  std::vector<Wait> waits_;                                // by thread
  bool any_ = false;
};

class NativeRuntime;
/// The runtime when the calling code is the program's, during an execution, and `fd` is a
/// channel the execution made; else null.
NativeRuntime* runtime_for(int fd);
/// The visible operation before `call` (a send or receive of `kind`) on channel `fd`: it waits
/// in weft until the kernel has room or something for it (POLLOUT, POLLIN), unless the call
/// may not wait (`dont_wait`, or a non-blocking descriptor). Returns whether it was ready.
bool channel_step(NativeRuntime& rt, OpKind kind, int fd, const char* call, bool dont_wait,
                  std::uint64_t site);
/// poll (or select, ppoll, pselect: `call`) on `fds` with a timeout of `timeout_ms` (negative:
/// none), when some of them are channels: a selective wait, then the kernel's answer without
/// waiting. Returns -2 when none is a channel (the caller goes on as for the outside world).
/// A deadlock in which a thread waits for what a client outside the program could send is not
/// the program's: the execution stops as unsupported, naming the wait.
void explain_outside_waits(NativeRuntime& rt, Trace& trace);
int wait_on_channels(NativeRuntime& rt, pollfd* fds, std::size_t count, int timeout_ms,
                     const char* call, std::uint64_t site);

}  // namespace weft::runtime::native
