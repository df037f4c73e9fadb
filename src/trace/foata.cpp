#include "weft/trace/foata.hpp"

#include <algorithm>
#include <tuple>

#include "weft/trace/clock_tracker.hpp"

namespace weft {
namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // splitmix64 finaliser over the running hash
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

}  // namespace

std::uint64_t foata_fingerprint(const std::vector<Event>& events, ReadPolicy policy) {
  ClockTracker tracker(policy);
  std::vector<std::tuple<std::uint32_t, ThreadId, std::size_t>> placed;
  placed.reserve(events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    tracker.add(events[i]);
    placed.emplace_back(tracker.last_level(), events[i].thread, i);
  }
  // Within one Foata step all events are of distinct threads, so (level, thread) is a total order.
  std::sort(placed.begin(), placed.end());
  std::uint64_t h = 0x6a09e667f3bcc909ULL;
  for (const auto& [level, thread, index] : placed) {
    const Operation& op = events[index].op;
    h = mix(h, level);
    h = mix(h, thread);
    h = mix(h, static_cast<std::uint64_t>(op.kind) | (std::uint64_t{op.result} << 8) |
                   (std::uint64_t{op.size} << 16));
    h = mix(h, op.object);
    h = mix(h, op.partner);
  }
  return h;
}

}  // namespace weft
