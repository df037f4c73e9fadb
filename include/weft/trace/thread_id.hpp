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
  ThreadId parent(ThreadId id) const { return entries_.at(id).parent; }
  std::uint32_t creation_index(ThreadId id) const { return entries_.at(id).index; }
  std::size_t size() const { return entries_.size(); }

  /// Dotted creation path: main is "0", its first child "0.0", that child's second child "0.0.1".
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

/// A set of ThreadIds as a dynamic bitset (cheap to copy for the common case of < 64 threads).
class ThreadSet {
 public:
  bool contains(ThreadId t) const {
    const std::size_t w = t / 64;
    return w < words_.size() && ((words_[w] >> (t % 64)) & 1u);
  }
  void insert(ThreadId t) {
    const std::size_t w = t / 64;
    if (w >= words_.size()) words_.resize(w + 1, 0);
    words_[w] |= std::uint64_t{1} << (t % 64);
  }
  void erase(ThreadId t) {
    const std::size_t w = t / 64;
    if (w < words_.size()) words_[w] &= ~(std::uint64_t{1} << (t % 64));
  }
  bool empty() const {
    for (auto w : words_)
      if (w) return false;
    return true;
  }
  std::size_t size() const {
    std::size_t n = 0;
    for (auto w : words_) n += static_cast<std::size_t>(__builtin_popcountll(w));
    return n;
  }
  /// Smallest member, or kNoThread.
  ThreadId first() const { return next_from(0); }
  /// Smallest member >= t, or kNoThread.
  ThreadId next_from(ThreadId t) const {
    for (std::size_t w = t / 64; w < words_.size(); ++w) {
      std::uint64_t bits = words_[w];
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
  void clear() { words_.clear(); }
  /// The set as 64-bit words (bit t % 64 of word t / 64), for binary records.
  std::size_t word_count() const { return words_.size(); }
  std::uint64_t word(std::size_t i) const { return words_[i]; }
  void set_word(std::size_t i, std::uint64_t bits) {
    if (i >= words_.size()) words_.resize(i + 1, 0);
    words_[i] = bits;
  }
  friend bool operator==(const ThreadSet& a, const ThreadSet& b) {
    const std::size_t n = std::max(a.words_.size(), b.words_.size());
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t x = i < a.words_.size() ? a.words_[i] : 0;
      const std::uint64_t y = i < b.words_.size() ? b.words_[i] : 0;
      if (x != y) return false;
    }
    return true;
  }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace weft
