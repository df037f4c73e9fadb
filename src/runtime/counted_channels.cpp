#include "counted_channels.hpp"

#include <algorithm>

#include "weft/trace/operation.hpp"

namespace weft::runtime {

void CountedChannels::add(ObjectKey key, std::uint32_t capacity) {
  channels_[key] = Channel{capacity, 0, 0, 0, false};
}

void CountedChannels::will_select(ThreadId thread, std::vector<ObjectKey> open) {
  if (thread >= selects_.size()) selects_.resize(thread + 1);
  selects_[thread] = std::move(open);
}

std::uint64_t CountedChannels::last_ticket(ObjectKey key) const {
  const auto it = channels_.find(key);
  return it == channels_.end() ? 0 : it->second.sent;
}

std::uint32_t CountedChannels::room(ObjectKey key) const {
  const auto it = channels_.find(key);
  return it == channels_.end() ? 1 : std::max<std::uint32_t>(it->second.capacity, 1);
}

int CountedChannels::first_ready(ThreadId thread) {
  if (thread >= selects_.size()) return -1;
  const std::vector<ObjectKey>& open = selects_[thread];
  for (std::size_t i = 0; i < open.size(); ++i) {
    if (at(open[i]).count > 0) return static_cast<int>(i);
  }
  return -1;
}

bool CountedChannels::ready(ThreadId thread, const Operation& op) {
  switch (op.kind) {
    case OpKind::kChannelSend: {
      const Channel& c = at(op.object);
      return c.closed || c.count < std::max<std::uint32_t>(c.capacity, 1);
    }
    case OpKind::kChannelReceive: {
      const Channel& c = at(op.object);
      if (op.partner != 0) return c.closed || c.taken >= op.partner;  // a rendezvous' second half
      return c.count > 0 || c.closed;
    }
    case OpKind::kChannelSelect:
      return first_ready(thread) >= 0;
    default:
      return true;
  }
}

std::uint8_t CountedChannels::apply(ThreadId thread, const Operation& op) {
  switch (op.kind) {
    case OpKind::kChannelSend: {
      Channel& c = at(op.object);
      if (c.closed) return 0;
      ++c.count;
      ++c.sent;
      return kReceived;
    }
    case OpKind::kChannelReceive: {
      Channel& c = at(op.object);
      if (op.partner != 0) return kReceived;
      if (c.count == 0) return 0;  // closed and empty (or a try that found nothing)
      --c.count;
      ++c.taken;
      return kReceived;
    }
    case OpKind::kChannelClose:
      at(op.object).closed = true;
      return kReceived;
    case OpKind::kChannelSelect: {
      const int i = first_ready(thread);
      if (i < 0) return 0;  // timed out
      Channel& c = at(selects_[thread][static_cast<std::size_t>(i)]);
      if (c.count > 0) {
        --c.count;
        ++c.taken;
      }
      return static_cast<std::uint8_t>(std::min(i + 1, 255));
    }
    default:
      return 0;
  }
}

std::string CountedChannels::waits_for(ThreadId thread, const Operation& op,
                                       const std::string& at_text) {
  switch (op.kind) {
    case OpKind::kChannelSend:
      return "waits to send on channel " + object_name(op.object) + " (full)" + at_text +
             "; no thread will receive from it";
    case OpKind::kChannelReceive:
      if (op.partner != 0)
        return "waits for its message on channel " + object_name(op.object) + " to be taken" +
               at_text + "; no thread will receive it";
      return "waits to receive on channel " + object_name(op.object) + " (empty)" + at_text +
             "; no thread will send on it";
    case OpKind::kChannelSelect: {
      std::string s = "waits in a selective wait on";
      const std::vector<ObjectKey> none;
      const auto& open = thread < selects_.size() ? selects_[thread] : none;
      if (open.empty()) return s + " no open alternative" + at_text;
      for (std::size_t i = 0; i < open.size(); ++i)
        s += (i ? ", " : " channel ") + object_name(open[i]);
      return s + " (all empty)" + at_text + "; no thread will send on one";
    }
    default:
      return "waits on channel " + object_name(op.object) + at_text;
  }
}

void CountedChannels::reset() {
  channels_.clear();
  for (auto& s : selects_) s.clear();
}

}  // namespace weft::runtime
