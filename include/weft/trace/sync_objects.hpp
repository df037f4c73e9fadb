// The synchronisation objects an operation acts on, as keys of one space over every domain: the
// objects whose completion events reachability testing orders (Lei and Carver §III: each
// semaphore, monitor, port or variable is a line of completions), and what a sleeper of a
// reachability directive waits for (SleepEntry::wake_on).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "weft/trace/operation.hpp"

namespace weft {

/// An object of `domain` as a key of the one space: a mutex and a memory granule at the same
/// address are different objects.
inline ObjectKey sync_key(Domain domain, ObjectKey object) {
  return static_cast<ObjectKey>(domain) << 59 ^ object;
}
/// SleepEntry::wake_on keys that name no object (no operation touches an object of Domain::kNone):
/// a sleeper with kWakeAtBlockExit wakes at the first operation that ends an atomic block
/// (ends_atomic_block: ExitBlock's delayed thread, Bruening and Chapin §4.4); one with only
/// kNeverWake stays asleep (the strategy that put it there decides when it runs again).
inline constexpr ObjectKey kWakeAtBlockExit = 1;
inline constexpr ObjectKey kNeverWake = 2;
/// Whether `key` (from sync_key) is a channel's.
inline bool is_channel_key(ObjectKey key) {
  return key >> 59 == static_cast<ObjectKey>(Domain::kChannel);
}

/// The objects of one operation. Any two dependent operations (dependence.hpp) share one, or one
/// of them touches everything or every channel; thread creation, joins, yields, branches and the
/// end of the process (which runs once no other thread can) touch none.
struct SyncObjects {
  static constexpr std::size_t kCapacity = 8;
  std::array<ObjectKey, kCapacity> keys{};
  std::uint8_t count = 0;
  /// An atomic section whose footprint is not known, or an access over more granules than fit.
  bool everything = false;
  /// A selective wait whose channels are not known.
  bool every_channel = false;

  std::span<const ObjectKey> list() const { return {keys.data(), count}; }
  bool empty() const { return count == 0 && !everything && !every_channel; }
};

SyncObjects sync_objects(const Operation& op);

/// Whether `op` touches one of `keys` (sync_key values).
bool touches_any(const Operation& op, std::span<const ObjectKey> keys);

}  // namespace weft
