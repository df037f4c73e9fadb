// How a test directive picks the thread of each step: shared by the runtime's scheduler, which
// runs the program, and the thread model, which computes an execution instead (they must agree
// step for step).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "weft/trace/directive.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft {

/// How a follower learns the operation a thread is about to perform (for kSleepSetWalk, whose
/// sleep set takes in the candidates it passes over): `at(context, thread)`.
struct PendingOperations {
  const void* context = nullptr;
  const Operation& (*at)(const void* context, ThreadId thread) = nullptr;
};

/// Follows `directive` (which must outlive it): its prefix while the prefix's threads are
/// enabled, then its policy among the threads not in the sleep set (thesis §2.4), which holds
/// from step `sleep_from` on and loses an entry when a dependent event runs.
class DirectiveFollower {
 public:
  explicit DirectiveFollower(const TestDirective& directive)
      : d_(directive), rng_(directive.seed) {}

  /// Call at the start of step `step`, with the event of the step before (nullptr at step 0):
  /// it wakes the sleepers that event depends on. A follower may start at a later step than 0
  /// only if that step is at most `sleep_from` and every step before followed the prefix.
  void start_step(std::size_t step, const Event* previous);

  /// The thread to run at `step` among `enabled` (not empty), `last` being the one that ran
  /// last: the prefix's thread while it is enabled (then `prefix_followed` becomes step + 1;
  /// else the rest of the prefix is dropped and `diverged_at` says where), else the policy's
  /// among the enabled threads not asleep; kNoThread when every enabled thread is asleep.
  ThreadId choose(std::size_t step, const ThreadSet& enabled, ThreadId last,
                  std::size_t& prefix_followed, std::optional<std::size_t>& diverged_at,
                  PendingOperations pending = {});

  /// The option step `step` takes of `count` (TestDirective::choices): the directive's, else 0,
  /// or under the random policies one drawn from the seed.
  std::uint32_t option(std::size_t step, std::uint32_t count);
  /// TestDirective::every_option.
  bool every_option() const { return d_.every_option; }
  /// The store step `step` must take (TestDirective::sources), or TestDirective::kFree.
  std::uint32_t source(std::size_t step) const {
    return step < d_.sources.size() ? d_.sources[step] : TestDirective::kFree;
  }

  /// kSleepSetWalk: log2 of the product of the numbers of candidates of the steps it chose
  /// (Knuth's weight of the path; 0 for every other policy).
  double walk_log2_weight() const { return walk_log2_weight_; }

 private:
  /// kPriority: the enabled candidate of highest priority (drawing a thread's priority when it
  /// is first a candidate), lowered if `step` is a change point.
  ThreadId highest_priority(std::size_t step, const ThreadSet& candidates);

  /// kPartialOrderSampling: the candidate of highest priority, after fresh priorities for the
  /// events the previous step made pending or raced with.
  ThreadId partial_order_sample(const ThreadSet& candidates, PendingOperations pending);
  /// The candidate of highest priority, drawing the priorities not drawn yet (0).
  ThreadId top_priority(const ThreadSet& candidates);

  /// kSleepSetWalk: the step's thread, its weight and the siblings it puts to sleep.
  ThreadId walk_step(const ThreadSet& candidates, PendingOperations pending);
  /// kStickyInTurns: the last thread unless its turn is over and another candidate can go.
  ThreadId take_turns(const ThreadSet& candidates, ThreadId last);
  void count_locks_held(const Event& e);

  const TestDirective& d_;
  std::vector<SleepEntry> sleep_;
  std::uint64_t rng_;
  bool following_ = true;
  std::vector<std::uint64_t> priority_;    ///< kPriority, kPartialOrderSampling: by thread
  std::optional<Event> previous_;          ///< kPartialOrderSampling: the step before
  double walk_log2_weight_ = 0;            ///< kSleepSetWalk
  std::vector<ThreadId> walk_candidates_;  ///< kSleepSetWalk, reused by each step
  std::vector<double> walk_guesses_;       ///< kSleepSetWalk, reused by each step
  std::vector<int> locks_held_;            ///< kSleepSetWalk: mutexes each thread holds
  ThreadId turn_thread_ = kNoThread;       ///< kStickyInTurns: the thread whose turn it is
  std::uint32_t turn_steps_ = 0;           ///< kStickyInTurns: the steps it took in it
};

}  // namespace weft
