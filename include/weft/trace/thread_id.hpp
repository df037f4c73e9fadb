// Thread identities that are stable across executions (POET §4.3).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft {

/// Dense index of a thread within one exploration. The main thread is 0. Every other thread is
/// identified by (parent, k): the k-th thread its parent created. The registry interns those pairs,
/// so the same program thread has the same id in every interleaving and schedules can be compared.
using ThreadId = std::uint32_t;

inline constexpr ThreadId kMainThread = 0;
inline constexpr ThreadId kNoThread = 0xffffffffu;

/// Interns (parent, creation index) pairs to ThreadIds and names them "0", "0.0", "0.1.2", ...
class ThreadRegistry {
 public:
  ThreadRegistry();

  /// The id of the `index`-th thread created by `parent` (registered on first use).
  ThreadId child(ThreadId parent, std::uint32_t index);
  /// The creation index that stands for a thread's store buffer (x86-TSO), named "b".
  static constexpr std::uint32_t kStoreBufferIndex = 0xffffffffu;
  /// The thread that flushes `owner`'s store buffer (registered on first use).
  ThreadId store_buffer(ThreadId owner) { return child(owner, kStoreBufferIndex); }
  /// Whether `id` is a store buffer's thread.
  bool is_store_buffer(ThreadId id) const {
    return id < entries_.size() && id != kMainThread && entries_[id].index == kStoreBufferIndex;
  }
  ThreadId parent(ThreadId id) const { return entries_.at(id).parent; }
  std::uint32_t creation_index(ThreadId id) const { return entries_.at(id).index; }
  std::size_t size() const { return entries_.size(); }

  /// Dotted creation path: main is "0", its first child "0.0", that child's second child "0.0.1";
  /// a store buffer's last component is "b".
  std::string name(ThreadId id) const;
  /// Parses a dotted name and interns it; nullopt when the text is not a thread name.
  std::optional<ThreadId> intern(std::string_view name);

 private:
  struct Entry {
    ThreadId parent;
    std::uint32_t index;
  };
  std::vector<Entry> entries_;
  std::map<std::pair<ThreadId, std::uint32_t>, ThreadId> ids_;
};

/// A set of ThreadIds as a bitset: threads 0-63 in one word kept inline, the rest in words on the
/// heap (so a set of the usual few threads costs no allocation: the runtime and the strategies
/// keep one per event).
class ThreadSet {
 public:
  bool contains(ThreadId t) const { return (word(t / 64) >> (t % 64)) & 1u; }
  void insert(ThreadId t) { slot(t / 64) |= std::uint64_t{1} << (t % 64); }
  void erase(ThreadId t) {
    if (t / 64 < word_count()) slot(t / 64) &= ~(std::uint64_t{1} << (t % 64));
  }
  bool empty() const {
    if (first_) return false;
    for (auto w : rest_)
      if (w) return false;
    return true;
  }
  std::size_t size() const {
    std::size_t n = static_cast<std::size_t>(__builtin_popcountll(first_));
    for (auto w : rest_) n += static_cast<std::size_t>(__builtin_popcountll(w));
    return n;
  }
  /// Smallest member, or kNoThread.
  ThreadId first() const { return next_from(0); }
  /// Smallest member >= t, or kNoThread.
  ThreadId next_from(ThreadId t) const {
    for (std::size_t w = t / 64; w < word_count(); ++w) {
      std::uint64_t bits = word(w);
      if (w == t / 64) bits &= ~std::uint64_t{0} << (t % 64);
      if (bits) return static_cast<ThreadId>(w * 64 + __builtin_ctzll(bits));
    }
    return kNoThread;
  }
  std::vector<ThreadId> members() const {
    std::vector<ThreadId> out;
    for (ThreadId t = first(); t != kNoThread; t = next_from(t + 1)) out.push_back(t);
    return out;
  }
  void clear() {
    first_ = 0;
    rest_.clear();
  }
  /// The set as 64-bit words (bit t % 64 of word t / 64), for binary records.
  std::size_t word_count() const { return 1 + rest_.size(); }
  std::uint64_t word(std::size_t i) const {
    return i == 0 ? first_ : i - 1 < rest_.size() ? rest_[i - 1] : 0;
  }
  void set_word(std::size_t i, std::uint64_t bits) { slot(i) = bits; }
  friend bool operator==(const ThreadSet& a, const ThreadSet& b) {
    const std::size_t n = std::max(a.word_count(), b.word_count());
    for (std::size_t i = 0; i < n; ++i)
      if (a.word(i) != b.word(i)) return false;
    return true;
  }

 private:
  std::uint64_t& slot(std::size_t i) {
    if (i == 0) return first_;
    if (i - 1 >= rest_.size()) rest_.resize(i, 0);
    return rest_[i - 1];
  }
  std::uint64_t first_ = 0;
  std::vector<std::uint64_t> rest_;
};

}  // namespace weft
