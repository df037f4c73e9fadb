// Descriptors through which threads can talk via the kernel (pipes, sockets, eventfds), which
// weft does not model yet: an execution notes which threads wrote to them and which read or
// waited on them, so that a verdict never calls such a program explored (CaveatKind::
// kKernelCommunication), and a call that would block on one stops the run instead of hanging it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "weft/trace/thread_id.hpp"

namespace weft::runtime::native {

/// The kinds of descriptor that carry messages between threads.
enum class ChannelKind : std::uint8_t { kNone, kPipe, kSocket, kEventfd };

/// Per execution: which descriptors the execution made as channels, and who used them.
class KernelChannels {
 public:
  static constexpr int kTracked = 1024;  ///< descriptors above are not tracked

  /// `fd` was made (pipe, socketpair, socket, eventfd, accept, dup) as a channel of `kind`.
  void opened(int fd, ChannelKind kind) {
    if (fd < 0 || fd >= kTracked) return;
    kind_[fd] = kind;
    any_ = true;
  }
  void closed(int fd) {
    if (fd >= 0 && fd < kTracked) kind_[fd] = ChannelKind::kNone;
  }
  ChannelKind kind(int fd) const {
    return fd >= 0 && fd < kTracked ? kind_[fd] : ChannelKind::kNone;
  }
  /// Whether no channel was made yet: the interposed calls then cost one test.
  bool none() const { return !any_; }

  /// Notes that `thread` wrote to a channel (`writes`) or read or waited on one. Returns true the
  /// first time a thread used a channel another thread wrote to, or wrote to one that another
  /// thread read: the threads then talked through the kernel.
  bool used(ThreadId thread, bool writes) {
    std::vector<ThreadId>& mine = writes ? writers_ : readers_;
    const std::vector<ThreadId>& theirs = writes ? readers_ : writers_;
    bool known = false;
    for (ThreadId t : mine) known |= t == thread;
    if (!known) mine.push_back(thread);
    if (talked_) return false;
    for (ThreadId t : theirs)
      if (t != thread) return talked_ = true;
    return false;
  }

  void reset() {
    if (!any_) return;
    kind_.fill(ChannelKind::kNone);
    readers_.clear();
    writers_.clear();
    any_ = talked_ = false;
  }

 private:
  std::array<ChannelKind, kTracked> kind_{};
  std::vector<ThreadId> readers_, writers_;
  bool any_ = false;
  bool talked_ = false;
};

/// The kind's name for messages ("pipe", "socket", "eventfd").
const char* channel_name(ChannelKind kind);

class NativeRuntime;
/// poll or select (`call`) waited on `fd`: if it is a channel, the thread read from it.
void note_channel_waited(NativeRuntime& rt, int fd, const char* call, std::uint64_t site);

}  // namespace weft::runtime::native
