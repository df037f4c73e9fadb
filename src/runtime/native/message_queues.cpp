// POSIX message queues (mq_send, mq_receive), which weft does not model yet as channels: threads
// that talk through one make the verdict say that the orders of their messages were not
// explored (CaveatKind::kKernelCommunication), and a call that would block stops the run with
// exit 2 naming it (blocking would hang every thread, and a time-out would blame the program).
// A queue outlives the process, so an execution could also see the messages of an earlier one.
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>

#include <string>

#include "native_runtime.hpp"
#include "real_functions.hpp"
#include "weft/trace/wire.hpp"

using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

namespace {

// The runtime when the caller is the program's code during an execution.
NativeRuntime* runtime_here() {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt || rt->scheduler().self() == weft::kNoThread || rt->self().in_runtime > 0) return nullptr;
  return rt;
}

// `call` on `queue` at `site`: noted, and stopped if it would block (waiting for `events`).
void before(NativeRuntime& rt, mqd_t queue, short events, bool timed, const char* call,
            std::uint64_t site) {
  RuntimeScope scope(rt);
  rt.note_caveat(weft::CaveatKind::kKernelCommunication,
                 std::string(call) + " on a POSIX message queue at " + weft::code_mark(site));
  mq_attr attr{};
  if (WEFT_REAL(mq_getattr, queue, &attr) != 0 || (attr.mq_flags & O_NONBLOCK) || timed) return;
  pollfd p{queue, events, 0};
  if (WEFT_REAL(poll, &p, 1, 0) != 0) return;  // ready, or an error the call gives itself
  const std::string what = std::string(call) + " at " + weft::code_mark(site) +
                           (events == POLLIN ? " on an empty" : " on a full") +
                           " POSIX message queue (it would block; message queues are not "
                           "modelled yet)";
  rt.unsupported(what.c_str());
}

}  // namespace

extern "C" {

int mq_send(mqd_t queue, const char* message, size_t length, unsigned int priority) {
  if (NativeRuntime* rt = runtime_here())
    before(*rt, queue, POLLOUT, false, "mq_send", WEFT_CALLER_SITE());
  return WEFT_REAL(mq_send, queue, message, length, priority);
}

ssize_t mq_receive(mqd_t queue, char* message, size_t length, unsigned int* priority) {
  if (NativeRuntime* rt = runtime_here())
    before(*rt, queue, POLLIN, false, "mq_receive", WEFT_CALLER_SITE());
  return WEFT_REAL(mq_receive, queue, message, length, priority);
}

// With a time-out the kernel may wait that long for real: the stop is for untimed calls only.
int mq_timedsend(mqd_t queue, const char* message, size_t length, unsigned int priority,
                 const struct timespec* deadline) {
  if (NativeRuntime* rt = runtime_here())
    before(*rt, queue, POLLOUT, true, "mq_timedsend", WEFT_CALLER_SITE());
  return WEFT_REAL(mq_timedsend, queue, message, length, priority, deadline);
}

ssize_t mq_timedreceive(mqd_t queue, char* message, size_t length, unsigned int* priority,
                        const struct timespec* deadline) {
  if (NativeRuntime* rt = runtime_here())
    before(*rt, queue, POLLIN, true, "mq_timedreceive", WEFT_CALLER_SITE());
  return WEFT_REAL(mq_timedreceive, queue, message, length, priority, deadline);
}

}  // extern "C"
