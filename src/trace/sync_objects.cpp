#include "weft/trace/sync_objects.hpp"

#include <algorithm>

namespace weft {
namespace {

void add(SyncObjects& s, ObjectKey key) {
  if (s.everything) return;
  for (std::size_t i = 0; i < s.count; ++i)
    if (s.keys[i] == key) return;
  if (s.count == SyncObjects::kCapacity) {
    s.everything = true;
    s.count = 0;
    return;
  }
  s.keys[s.count++] = key;
}

}  // namespace

SyncObjects sync_objects(const Operation& op) {
  SyncObjects s;
  if (op.kind == OpKind::kAtomicSection && !op.footprint.known) {
    s.everything = true;
    return s;
  }
  // Memory by granule, as the clock tracker and dependence compare it (a granule is the finest
  // object that two overlapping accesses are sure to share).
  for_each_access(op, [&](ObjectKey granule, ByteMask, ByteMask) {
    add(s, sync_key(Domain::kMemory, granule));
  });
  switch (domain_of(op.kind)) {
    case Domain::kMutex:
    case Domain::kSemaphore:
    case Domain::kFutex:
      add(s, sync_key(domain_of(op.kind), op.object));
      break;
    case Domain::kCond:
      add(s, sync_key(Domain::kCond, op.object));
      if (op.kind == OpKind::kCondWait || op.kind == OpKind::kCondWake)
        add(s, sync_key(Domain::kMutex, op.partner));
      break;
    case Domain::kChannel:
      if (on_every_channel(op))
        s.every_channel = true;
      else
        for_each_channel(op,
                         [&](ObjectKey channel) { add(s, sync_key(Domain::kChannel, channel)); });
      break;
    default:
      break;
  }
  return s;
}

bool touches_any(const Operation& op, std::span<const ObjectKey> keys) {
  const SyncObjects s = sync_objects(op);
  if (s.everything) return true;
  if (s.every_channel && std::any_of(keys.begin(), keys.end(), is_channel_key)) return true;
  for (ObjectKey k : s.list())
    if (std::find(keys.begin(), keys.end(), k) != keys.end()) return true;
  return false;
}

}  // namespace weft
