#include "weft/trace/directive_follower.hpp"

#include <algorithm>

namespace weft {
namespace {

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

void DirectiveFollower::start_step(std::size_t step, const Event* previous) {
  // The previous event wakes the sleepers it depends on. (In the scheduler it has run on to its
  // thread's next operation by now: an atomic section's footprint is known only when it ended.)
  if (step > d_.sleep_from && !sleep_.empty() && previous)
    std::erase_if(sleep_, [&](const SleepEntry& s) {
      return dependent(*previous, Event{s.thread, s.op}, d_.read_policy);
    });
  if (step == d_.sleep_from) sleep_ = d_.sleep;
}

ThreadId DirectiveFollower::choose(std::size_t step, const ThreadSet& enabled, ThreadId last,
                                   std::size_t& prefix_followed,
                                   std::optional<std::size_t>& diverged_at) {
  if (following_ && step < d_.prefix.size()) {
    if (enabled.contains(d_.prefix[step])) {
      prefix_followed = step + 1;
      return d_.prefix[step];
    }
    following_ = false;
    diverged_at = step;
  }
  const bool sleeping = step >= d_.sleep_from && !sleep_.empty();
  ThreadSet candidates;
  for (ThreadId id = enabled.first(); id != kNoThread; id = enabled.next_from(id + 1))
    if (!sleeping || std::none_of(sleep_.begin(), sleep_.end(),
                                  [id](const SleepEntry& s) { return s.thread == id; }))
      candidates.insert(id);
  if (candidates.empty()) return kNoThread;
  if (d_.policy == SchedulePolicy::kRandom) {
    auto k = splitmix(rng_) % candidates.size();
    ThreadId chosen = candidates.first();
    while (k--) chosen = candidates.next_from(chosen + 1);
    return chosen;
  }
  return candidates.contains(last) ? last : candidates.first();
}

}  // namespace weft
