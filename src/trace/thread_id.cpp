#include "weft/trace/thread_id.hpp"

#include <charconv>

namespace weft {

ThreadRegistry::ThreadRegistry() {
  entries_.push_back({kNoThread, 0});
}

ThreadId ThreadRegistry::child(ThreadId parent, std::uint32_t index) {
  const auto key = std::make_pair(parent, index);
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  const auto id = static_cast<ThreadId>(entries_.size());
  entries_.push_back({parent, index});
  ids_.emplace(key, id);
  return id;
}

std::string ThreadRegistry::name(ThreadId id) const {
  if (id >= entries_.size()) {
    std::string unknown = "?";  // appended, not "?" + temporary: GCC 12's -Wrestrict misfires
    unknown += std::to_string(id);
    return unknown;
  }
  // Without recursion (a name parsed from a replay file's schedule can be millions of levels
  // deep), and without allocating beyond the string itself: in the runtime this runs inside
  // malloc's placement of a thread's heap, and short names fit the string's inline buffer.
  // A store buffer's component is "b" (x86-TSO: "0.1.b" is thread 0.1's buffer).
  const auto component = [&](ThreadId t, char* digits) {
    if (entries_[t].index == kStoreBufferIndex) {
      digits[0] = 'b';
      return std::size_t{1};
    }
    return static_cast<std::size_t>(std::to_chars(digits, digits + 16, entries_[t].index).ptr -
                                    digits);
  };
  std::size_t length = 1;
  for (ThreadId t = id; t != kMainThread; t = entries_[t].parent) {
    char digits[16];
    length += 1 + component(t, digits);
  }
  std::string out(length, '0');
  std::size_t end = length;
  for (ThreadId t = id; t != kMainThread; t = entries_[t].parent) {
    char digits[16];
    const std::size_t n = component(t, digits);
    end -= n;
    out.replace(end, n, digits, n);
    out[--end] = '.';
  }
  return out;
}

std::optional<ThreadId> ThreadRegistry::intern(std::string_view text) {
  // The first component is always the main thread, "0".
  if (text.empty() || text.front() != '0') return std::nullopt;
  if (text.size() > 1 && text[1] != '.') return std::nullopt;
  ThreadId id = kMainThread;
  std::size_t pos = 1;
  while (pos < text.size()) {
    if (text[pos] != '.') return std::nullopt;
    ++pos;
    if (pos < text.size() && text[pos] == 'b' && (pos + 1 == text.size() || text[pos + 1] == '.')) {
      ++pos;
      id = child(id, kStoreBufferIndex);
      continue;
    }
    std::uint32_t index = 0;
    const char* begin = text.data() + pos;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(begin, end, index);
    if (ec != std::errc() || ptr == begin) return std::nullopt;
    pos += static_cast<std::size_t>(ptr - begin);
    id = child(id, index);
  }
  return id;
}

}  // namespace weft
