// POSIX message queues. A queue the execution creates (mq_open with O_CREAT) is a channel of the
// scheduler like a pipe (kernel_channels.hpp): mq_send and mq_receive are send and receive
// operations that wait in weft until the kernel has room or a message, and the kernel keeps the
// messages (and orders them by priority). A queue outlives the process, so the runtime unlinks
// the queues an execution created when it ends, and each execution starts without them.
//
// A queue that existed before the execution belongs to the outside world too (its messages may
// come from another process, or from an earlier run): threads that talk through one make the
// verdict say that the orders of their messages were not explored
// (CaveatKind::kKernelCommunication), and a call on it that would block stops the run with exit
// 2 naming it.
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <stdarg.h>

#include <string>

#include "kernel_channels.hpp"
#include "native_runtime.hpp"
#include "process_state.hpp"
#include "real_functions.hpp"
#include "weft/trace/wire.hpp"

using weft::OpKind;
using weft::runtime::native::ChannelKind;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

namespace {

// The runtime when the caller is the program's code during an execution.
NativeRuntime* runtime_here() {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || rt->scheduler().self() == weft::kNoThread || rt->self().in_runtime > 0) return nullptr;
  return rt;
}

// The runtime if `queue` is a channel (a queue the execution created).
NativeRuntime* queue_channel(mqd_t queue) {
  NativeRuntime* rt = weft::runtime::native::runtime_for(queue);
  return rt && rt->channels().kind(queue) == ChannelKind::kMessageQueue ? rt : nullptr;
}

// `call` on a queue from outside the execution at `site`: noted, and stopped if it would block
// (waiting for `events`).
void outside_queue(NativeRuntime& rt, mqd_t queue, short events, bool timed, const char* call,
                   std::uint64_t site) {
  RuntimeScope scope(rt);
  rt.note_caveat(weft::CaveatKind::kKernelCommunication,
                 std::string(call) + " on a POSIX message queue at " + weft::code_mark(site) +
                     " that existed before the execution");
  mq_attr attr{};
  if (WEFT_REAL(mq_getattr, queue, &attr) != 0 || (attr.mq_flags & O_NONBLOCK) || timed) return;
  pollfd p{queue, events, 0};
  if (WEFT_REAL(poll, &p, 1, 0) != 0) return;  // ready, or an error the call gives itself
  const std::string what = std::string(call) + " at " + weft::code_mark(site) +
                           (events == POLLIN ? " on an empty" : " on a full") +
                           " POSIX message queue that existed before the execution (it would "
                           "block, and only another process could end the wait)";
  rt.unsupported(what.c_str());
}

// Before `call` on `queue` (a send or receive of `kind`): the channel operation, or the note for
// a queue from outside. False when a timed call timed out in weft (a scheduling choice): the
// caller returns ETIMEDOUT without asking the kernel, which would wait for real.
bool before(mqd_t queue, OpKind kind, bool timed, const char* call, std::uint64_t site) {
  if (NativeRuntime* rt = queue_channel(queue))
    return weft::runtime::native::channel_step(*rt, kind, queue, call, timed, site) || !timed;
  if (NativeRuntime* rt = runtime_here())
    outside_queue(*rt, queue, kind == OpKind::kChannelSend ? POLLOUT : POLLIN, timed, call, site);
  return true;
}

// A queue the execution made or opened again: a channel with the name's key.
void opened(NativeRuntime& rt, mqd_t queue, weft::ObjectKey key) {
  rt.channels().opened(queue, ChannelKind::kMessageQueue, key);
}

mqd_t open_queue(const char* name, int flags, mode_t mode, mq_attr* attr) {
  NativeRuntime* rt = runtime_here();
  if (!rt) return WEFT_REAL(mq_open, name, flags, mode, attr);
  RuntimeScope scope(*rt);
  if (const weft::ObjectKey key = rt->channels().queue_key(name)) {
    const mqd_t queue = WEFT_REAL(mq_open, name, flags, mode, attr);
    if (queue != -1) opened(*rt, queue, key);
    return queue;
  }
  // Whether this call creates the queue: only then is it the execution's own.
  mqd_t queue = -1;
  bool created = false;
  if ((flags & O_CREAT) && !(flags & O_EXCL)) {
    queue = WEFT_REAL(mq_open, name, flags & ~O_CREAT);
    if (queue == -1 && errno == ENOENT) {
      queue = WEFT_REAL(mq_open, name, flags | O_EXCL, mode, attr);
      created = queue != -1;
      if (queue == -1 && errno == EEXIST) queue = WEFT_REAL(mq_open, name, flags & ~O_CREAT);
    }
  } else {
    queue = WEFT_REAL(mq_open, name, flags, mode, attr);
    created = queue != -1 && (flags & O_CREAT);
  }
  if (created) {
    const weft::ObjectKey key = rt->scheduler().new_object();
    rt->channels().queue_created(name, key);
    opened(*rt, queue, key);
  }
  return queue;
}

ssize_t timed_out() {
  errno = ETIMEDOUT;
  return -1;
}

}  // namespace

extern "C" {

mqd_t mq_open(const char* name, int flags, ...) {
  mode_t mode = 0;
  mq_attr* attr = nullptr;
  if (flags & O_CREAT) {
    va_list rest;
    va_start(rest, flags);
    mode = va_arg(rest, mode_t);
    attr = va_arg(rest, mq_attr*);
    va_end(rest);
  }
  return open_queue(name, flags, mode, attr);
}

// The _FORTIFY_SOURCE entry for a call with two arguments.
mqd_t __mq_open_2(const char* name, int flags) {
  return open_queue(name, flags, 0, nullptr);
}

int mq_unlink(const char* name) {
  if (NativeRuntime* rt = runtime_here()) {
    RuntimeScope scope(*rt);
    rt->channels().queue_unlinked(name);
  }
  return WEFT_REAL(mq_unlink, name);
}

int mq_close(mqd_t queue) {
  weft::runtime::native::note_close(queue);
  if (NativeRuntime* rt = queue_channel(queue)) {
    RuntimeScope scope(*rt);
    rt->channels().closed(queue);
  }
  return WEFT_REAL(mq_close, queue);
}

// A notification is a signal or a new thread that the kernel starts when a message arrives:
// neither is under weft's control.
int mq_notify(mqd_t queue, const struct sigevent* notification) {
  if (NativeRuntime* rt = queue_channel(queue)) {
    RuntimeScope scope(*rt);
    const std::string what = "mq_notify at " + weft::code_mark(WEFT_CALLER_SITE()) +
                             " (a message queue's notification is not modelled)";
    rt->unsupported(what.c_str());
  }
  return WEFT_REAL(mq_notify, queue, notification);
}

int mq_send(mqd_t queue, const char* message, size_t length, unsigned int priority) {
  before(queue, OpKind::kChannelSend, false, "mq_send", WEFT_CALLER_SITE());
  return WEFT_REAL(mq_send, queue, message, length, priority);
}

ssize_t mq_receive(mqd_t queue, char* message, size_t length, unsigned int* priority) {
  before(queue, OpKind::kChannelReceive, false, "mq_receive", WEFT_CALLER_SITE());
  return WEFT_REAL(mq_receive, queue, message, length, priority);
}

int mq_timedsend(mqd_t queue, const char* message, size_t length, unsigned int priority,
                 const struct timespec* deadline) {
  if (!before(queue, OpKind::kChannelSend, true, "mq_timedsend", WEFT_CALLER_SITE()))
    return static_cast<int>(timed_out());
  return WEFT_REAL(mq_timedsend, queue, message, length, priority, deadline);
}

ssize_t mq_timedreceive(mqd_t queue, char* message, size_t length, unsigned int* priority,
                        const struct timespec* deadline) {
  if (!before(queue, OpKind::kChannelReceive, true, "mq_timedreceive", WEFT_CALLER_SITE()))
    return timed_out();
  return WEFT_REAL(mq_timedreceive, queue, message, length, priority, deadline);
}

}  // extern "C"
