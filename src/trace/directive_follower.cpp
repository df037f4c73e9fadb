#include "weft/trace/directive_follower.hpp"

#include <algorithm>
#include <cmath>

#include "weft/trace/sync_objects.hpp"

namespace weft {
namespace {

// kSleepSetWalk's guesses: the factor by which a sleeper the child does not wake at once makes
// the child's subtree smaller, one that never wakes, and one earlier walks never saw woken.
constexpr double kWalkSleeper = 0.25;
constexpr double kWalkDeadSleeper = 1e-4;
constexpr double kWalkQuietSleeper = 1e-3;  // guessed from earlier walks: less sure
// A thread that holds a mutex, asleep at a memory access: what it accesses is likely guarded by
// that mutex, which no other thread can take while it sleeps.
constexpr double kWalkGuardedSleeper = 0.01;

// A candidate thread put to sleep about to do this is never woken: only the child's events
// depend on a creation, a join that can run joins a thread that has ended, a yield depends on
// nothing, and while a thread holds a mutex (so that it can unlock it) no other thread can lock
// or unlock it.
bool never_wakes(const Operation& op) {
  return op.kind == OpKind::kThreadCreate || op.kind == OpKind::kThreadJoin ||
         op.kind == OpKind::kMutexUnlock || (op.kind == OpKind::kYield && op.object == 0);
}

// Whether earlier walks never saw another thread's operation depend on one like `op` after it
// (TestDirective::quiet_accesses).
bool quiet(const Operation& op, const std::vector<std::uint64_t>& quiet_accesses) {
  const auto key = quiet_access_key(op);
  return key && std::binary_search(quiet_accesses.begin(), quiet_accesses.end(), *key);
}

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

void DirectiveFollower::start_step(std::size_t step, const Event* previous) {
  if (d_.policy == SchedulePolicy::kSleepSetWalk && previous) count_locks_held(*previous);
  if (d_.policy == SchedulePolicy::kPartialOrderSampling && previous) previous_ = *previous;
  // The previous event wakes the sleepers it depends on. (In the scheduler it has run on to its
  // thread's next operation by now: an atomic section's footprint is known only when it ended.)
  if (step > d_.sleep_from && !sleep_.empty() && previous)
    std::erase_if(sleep_, [&](const SleepEntry& s) {
      if (s.wake_on.empty()) return dependent(*previous, Event{s.thread, s.op}, d_.read_policy);
      if (std::find(s.wake_on.begin(), s.wake_on.end(), kWakeAtBlockExit) != s.wake_on.end() &&
          ends_atomic_block(previous->op))
        return true;
      return touches_any(previous->op, s.wake_on);
    });
  if (step == d_.sleep_from) sleep_ = d_.sleep;
}

ThreadId DirectiveFollower::choose(std::size_t step, const ThreadSet& enabled, ThreadId last,
                                   std::size_t& prefix_followed,
                                   std::optional<std::size_t>& diverged_at,
                                   PendingOperations pending) {
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
  if (d_.policy == SchedulePolicy::kPriority) return highest_priority(step, candidates);
  if (d_.policy == SchedulePolicy::kSleepSetWalk) return walk_step(candidates, pending);
  if (d_.policy == SchedulePolicy::kPartialOrderSampling)
    return partial_order_sample(candidates, pending);
  if (d_.policy == SchedulePolicy::kRandom) {
    auto k = splitmix(rng_) % candidates.size();
    ThreadId chosen = candidates.first();
    while (k--) chosen = candidates.next_from(chosen + 1);
    return chosen;
  }
  if (d_.policy == SchedulePolicy::kStickyInTurns) return take_turns(candidates, last);
  if (d_.policy == SchedulePolicy::kLowest) return candidates.first();
  return candidates.contains(last) ? last : candidates.first();
}

ThreadId DirectiveFollower::take_turns(const ThreadSet& candidates, ThreadId last) {
  ThreadId chosen = candidates.contains(last) ? last : candidates.first();
  // Counted from the first step after the prefix, so that the thread model, which may start
  // following at a later step of the prefix, agrees with the runtime.
  if (chosen == turn_thread_ && turn_steps_ >= kTurnSteps && candidates.size() > 1) {
    chosen = candidates.next_from(chosen + 1);
    if (chosen == kNoThread) chosen = candidates.first();
  }
  if (chosen != turn_thread_) turn_thread_ = chosen, turn_steps_ = 0;
  ++turn_steps_;
  return chosen;
}

void DirectiveFollower::count_locks_held(const Event& e) {
  const int change = acquires_mutex(e.op) ? 1 : releases_mutex(e.op) ? -1 : 0;
  if (change == 0) return;
  if (e.thread >= locks_held_.size()) locks_held_.resize(e.thread + 1, 0);
  locks_held_[e.thread] += change;
}

ThreadId DirectiveFollower::walk_step(const ThreadSet& candidates, PendingOperations pending) {
  // The node's children in an order drawn at random (any order per node gives a tree of the
  // sleep-set search with one unblocked leaf per trace, so the estimate stays unbiased). The
  // children before the one taken sleep below it, so the walk takes the child at position j with
  // a probability q(j) that guesses how large its subtree is, and weighs it 1/q(j) (importance
  // sampling: unbiased whatever the guess, as long as no q(j) is 0). A sleeper the child's
  // operation depends on wakes at once and costs nothing; one it does not may never wake (the
  // subtree then ends sleep-set blocked), some never do (never_wakes), and some did not in any
  // earlier walk (quiet).
  const std::size_t n = candidates.size();
  std::vector<ThreadId>& ids = walk_candidates_;
  ids.clear();
  for (ThreadId id = candidates.first(); id != kNoThread; id = candidates.next_from(id + 1))
    ids.push_back(id);
  for (std::size_t i = 0; i + 1 < n; ++i) std::swap(ids[i], ids[i + splitmix(rng_) % (n - i)]);
  std::vector<double>& h = walk_guesses_;
  h.assign(n, 1.0);
  double total = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const Event child{ids[j], pending.at(pending.context, ids[j])};
    for (std::size_t i = 0; i < j && h[j] > 0; ++i) {
      const Operation& sleeper = pending.at(pending.context, ids[i]);
      if (dependent(child, Event{ids[i], sleeper}, d_.read_policy)) continue;
      const bool guarded = ids[i] < locks_held_.size() && locks_held_[ids[i]] > 0 &&
                           domain_of(sleeper.kind) == Domain::kMemory;
      h[j] *= never_wakes(sleeper)                ? kWalkDeadSleeper
              : quiet(sleeper, d_.quiet_accesses) ? kWalkQuietSleeper
              : guarded                           ? kWalkGuardedSleeper
                                                  : kWalkSleeper;
    }
    total += h[j];
  }
  double coin = static_cast<double>(splitmix(rng_) >> 11) * 0x1.0p-53 * total;
  std::size_t j = 0;
  while (j + 1 < n && coin >= h[j]) coin -= h[j++];
  walk_log2_weight_ += std::log2(total / h[j]);
  for (std::size_t i = 0; i < j; ++i)
    sleep_.push_back({ids[i], pending.at(pending.context, ids[i])});
  return ids[j];
}

ThreadId DirectiveFollower::partial_order_sample(const ThreadSet& candidates,
                                                 PendingOperations pending) {
  // POS (Yuan et al. §4): a priority belongs to an event, not to a thread. The event the last
  // step's thread does next is a new one; an enabled event that races with the last one is
  // redrawn too, so that the order of two racing events is a fresh coin each time, whatever
  // independent events ran before (which uniform random scheduling would count against it).
  const auto redraw = [this](ThreadId id) {
    if (id >= priority_.size()) priority_.resize(id + 1, 0);
    priority_[id] = 0;  // drawn anew by top_priority
  };
  if (previous_) {
    redraw(previous_->thread);
    if (pending.at)
      for (ThreadId id = candidates.first(); id != kNoThread; id = candidates.next_from(id + 1))
        if (id != previous_->thread &&
            dependent(*previous_, Event{id, pending.at(pending.context, id)}, d_.read_policy))
          redraw(id);
    previous_.reset();
  }
  return top_priority(candidates);
}

ThreadId DirectiveFollower::top_priority(const ThreadSet& candidates) {
  // Drawn priorities have the top bit set, so that every one PCT lowers (to the change point's
  // number, from 1) is below them all, as PCT's d-1 lowest priorities are (Burckhardt et al.
  // §3). Ties, which are unlikely, go to the lower thread id.
  ThreadId best = kNoThread;
  for (ThreadId id = candidates.first(); id != kNoThread; id = candidates.next_from(id + 1)) {
    if (id >= priority_.size()) priority_.resize(id + 1, 0);
    if (priority_[id] == 0) priority_[id] = splitmix(rng_) | (std::uint64_t{1} << 63);
    if (best == kNoThread || priority_[id] > priority_[best]) best = id;
  }
  return best;
}

ThreadId DirectiveFollower::highest_priority(std::size_t step, const ThreadSet& candidates) {
  const ThreadId best = top_priority(candidates);
  const auto& changes = d_.priority_changes;
  // The i-th change point drawn lowers to priority i, whatever its step: the order in which
  // the lowered threads rank is random (Burckhardt et al. §3). d-1 is small: a scan will do.
  const auto at = std::find(changes.begin(), changes.end(), static_cast<std::uint32_t>(step));
  if (at != changes.end()) priority_[best] = static_cast<std::uint64_t>(at - changes.begin()) + 1;
  return best;
}

std::uint32_t DirectiveFollower::option(std::size_t step, std::uint32_t count) {
  if (count <= 1) return 0;
  if (step < d_.choices.size()) return std::min(d_.choices[step], count - 1);
  switch (d_.policy) {
    case SchedulePolicy::kRandom:
    case SchedulePolicy::kPriority:
    case SchedulePolicy::kPartialOrderSampling:
      return static_cast<std::uint32_t>(splitmix(rng_) % count);
    default:
      return 0;
  }
}

}  // namespace weft
