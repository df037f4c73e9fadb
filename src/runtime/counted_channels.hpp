// The channels of the in-process API (weft::channel): the scheduler's own ChannelKeeper, which
// keeps each channel's count of messages, its capacity and whether it is closed. The values
// themselves stay in the weft::channel object; only whether an operation may run is decided here.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "weft/runtime/scheduler.hpp"

namespace weft::runtime {

class CountedChannels final : public ChannelKeeper {
 public:
  /// A receive whose `partner` is not 0 is the second half of a rendezvous send: it waits until
  /// the sender's message, the channel's `partner`-th, has been taken.
  static constexpr std::uint8_t kReceived = 1;

  /// `key` is a channel holding up to `capacity` messages (0: a rendezvous, where a send waits
  /// until its message is taken).
  void add(ObjectKey key, std::uint32_t capacity);
  /// The selective wait `thread` is about to make: the channels of its open alternatives, in
  /// order.
  void will_select(ThreadId thread, std::vector<ObjectKey> open);
  /// The number the last send on `key` gave its message (for the rendezvous' second half).
  std::uint64_t last_ticket(ObjectKey key) const;
  /// The messages `key` holds at most (1 for a rendezvous, whose send puts its message first).
  std::uint32_t room(ObjectKey key) const;

  bool ready(ThreadId thread, const Operation& op) override;
  std::uint8_t apply(ThreadId thread, const Operation& op) override;
  std::string waits_for(ThreadId thread, const Operation& op, const std::string& at) override;

  void reset();

 private:
  struct Channel {
    std::uint32_t capacity = 1;
    std::uint64_t count = 0;  // messages in it
    std::uint64_t sent = 0;   // messages ever put in
    std::uint64_t taken = 0;  // messages ever taken out
    bool closed = false;
  };
  Channel& at(ObjectKey key) { return channels_[key]; }
  // The first open alternative of `thread`'s selective wait with a message (or closed), or -1.
  int first_ready(ThreadId thread);

  std::unordered_map<ObjectKey, Channel> channels_;
  std::vector<std::vector<ObjectKey>> selects_;  // by thread
};

}  // namespace weft::runtime
