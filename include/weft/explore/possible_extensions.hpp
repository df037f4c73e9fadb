// The possible extensions of a growing unfolding, computed incrementally (thesis Fig. 3.11 line
// 14, ch. 4, §5.6). An event not in the unfolding becomes possible only when one of the
// conditions it needs appears, or when what a thread does from its condition is learned, so each
// update looks only at those:
// - A thread condition t whose next operation was just learned: for each resource (a memory place,
// a
//   mutex, a thread to join...) the operation touches, the resource's conditions concurrent with
//   t are found by a search from one known to be (the one that held when the thread got there),
//   through adjacent conditions only: they are connected (Theorem 4 for shared variables,
//   Theorem 5 for locks; the proof of Theorem 4 holds for every resource whose events consume
//   one condition and produce the next, which here is every resource).
// - A new condition c of a resource: for each thread waiting for the resource, its conditions
//   concurrent with c are connected too (in each tree of the thread's conditions: Theorem 4's
//   proof again, for the thread as the resource), so they are searched from where the thread was
//   when c appeared. A thread with no condition there, another instance of it (a tree started by
//   another creation), or a join waiting for a thread: a thread condition concurrent with c is
//   concurrent with the condition c's producer consumed (the producer is newer than it), so the
//   threads found concurrent with that one are checked (§4.5, §5.6 step 1).
// With place replication (ch. 3-4), a write takes a generation condition of its place and one
// copy per thread: the generations are searched as above, and the copies are then chosen among
// each generation's, each checked for concurrency with the thread's condition. A copy a read
// made also extends the writes waiting for its place.
// Every candidate is checked for concurrency (a co-set, §5.6 "Checking For Concurrency"), but
// for a thread condition already found in conflict with the causes of an event that the new
// condition's producer has among its own (a conflict persists in every larger configuration).
#pragma once

#include <cstddef>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "weft/explore/deadline.hpp"
#include "weft/explore/unfolding.hpp"

namespace weft::explorer {

class PossibleExtensions {
 public:
  explicit PossibleExtensions(const Unfolding& unfolding) : unfolding_(&unfolding) {}

  enum class Learned : std::uint8_t {
    kNew,        ///< first seen
    kSame,       ///< already known, and the same
    kDifferent,  ///< already known as something else: the thread's behaviour is not a function
                 ///< of its condition (inputs, or state the events do not show)
  };
  /// Records what the thread at `thread_condition` does next: `op`, or nullopt if it finishes.
  /// `held` are conditions of what `op` touches that held together with `thread_condition` (the
  /// marking when the thread got to `op`): where the search for the others starts.
  Learned learn(ConditionIndex thread_condition, const std::optional<Operation>& op,
                const std::vector<ConditionIndex>& held = {});
  const Unfolding::NextOperations& next_operations() const { return next_; }
  /// Records that object condition `c` appeared in a marking where each thread t was at
  /// `threads[t]` (kInitialCondition: not started): where the search for the threads that can
  /// use `c` starts. Without it, those are found from the condition before `c`.
  void produced(ConditionIndex c, const std::vector<ConditionIndex>& threads);

  /// The extensions made possible by what was learned and by the conditions added since the
  /// last call: each returned once over all calls, none an event of the unfolding.
  std::vector<Unfolding::Extension> update();

  /// The run's time limit, checked per candidate (update() throws TimeLimitReached past it).
  void set_deadline(Deadline* deadline) { deadline_ = deadline; }

  /// Candidates checked for concurrency so far, for statistics.
  std::uint64_t co_checks() const { return co_checks_; }
  /// Operations touching several resources whose choices of conditions were too many to try
  /// (more than kMaxCombinations): their extensions are missing, and the strategy says so.
  std::uint64_t combinations_skipped() const { return combinations_skipped_; }
  static constexpr std::uint64_t kMaxCombinations = 4096;
  /// The memory it holds, estimated from its containers' sizes.
  std::size_t memory_bytes() const;

 private:
  // The conditions of start's resource concurrent with thread condition t, found by the search
  // from `start` (recorded in the indexes below).
  void search(ConditionIndex t, ConditionIndex start);
  // What a thread condition's next operation may be (operation_variants) and what each touches
  // in the unfolding's model (Unfolding::touches), by thread condition.
  struct Variant {
    Operation op;
    std::vector<Touch> touches;
  };
  std::unordered_map<ConditionIndex, std::vector<Variant>> variants_;
  // Adds the extensions of the thread at `t` doing `variant` with conditions concurrent with t;
  // touch `fixed` (if any) only with `with` (for a touch of every copy: `with`'s generation,
  // and `with` as its holder's copy if it is one).
  void extend(ConditionIndex t, const Variant& variant, std::size_t fixed, ConditionIndex with,
              std::vector<Unfolding::Extension>& out);
  // Whether `touch` may take condition c.
  bool takes(const Touch& touch, ConditionIndex c) const;
  // The (thread condition, copy) pairs recorded concurrent by extend().
  std::unordered_set<std::uint64_t> recorded_;
  void emit(ConditionIndex t, const Operation& op, std::vector<ConditionIndex> preset,
            std::vector<ConditionIndex> context, bool checked,
            std::vector<Unfolding::Extension>& out);
  bool finished(ConditionIndex c) const;
  bool is_concurrent(ConditionIndex t, ConditionIndex c);

  const Unfolding* unfolding_;
  Deadline* deadline_ = nullptr;
  Unfolding::NextOperations next_;
  std::unordered_map<ConditionIndex, std::vector<ConditionIndex>> held_;  // learn()'s, until used
  std::vector<ConditionIndex> learned_ops_;                               // since the last update
  std::vector<ConditionIndex> learned_finished_;                          // since the last update
  // Thread conditions whose known next operation touches a resource, by resource.
  std::unordered_map<std::uint64_t, std::vector<ConditionIndex>> waiting_;
  // The threads that have such conditions, by resource.
  std::unordered_map<std::uint64_t, std::vector<ThreadId>> waiting_threads_;
  // produced()'s, until used.
  std::unordered_map<ConditionIndex, std::vector<ConditionIndex>> threads_when_produced_;
  // The extensions of the waiting threads with new condition c (update(), step 2).
  void extend_with_new(ConditionIndex c, const std::unordered_set<ConditionIndex>& fresh,
                       std::vector<Unfolding::Extension>& out);
  // Whether t's next operation may take condition c.
  bool waits_for(ConditionIndex t, ConditionIndex c) const;
  // The extensions of t's next operation with c at the touches c's object is.
  void extend_with(ConditionIndex t, ConditionIndex c, std::vector<Unfolding::Extension>& out);
  void record_concurrent(ConditionIndex t, ConditionIndex c);
  // Visits the conditions of start's resource connected to it through ones for which
  // `concurrent` holds (it is asked once per condition reached); adjacent(c, visit) calls
  // visit on the conditions next to c worth trying (Unfolding::for_each_adjacent and its
  // variants).
  template <typename Concurrent, typename Adjacent>
  void walk_concurrent(ConditionIndex start, Concurrent&& concurrent, Adjacent&& adjacent);
  // Found concurrent: the waiting thread conditions with each condition, and the conditions
  // with each waiting thread condition.
  std::unordered_map<ConditionIndex, std::vector<ConditionIndex>> threads_concurrent_with_;
  std::unordered_map<ConditionIndex, std::vector<ConditionIndex>> conditions_concurrent_with_;
  std::size_t conditions_seen_ = 0;
  struct KeyHash {
    std::size_t operator()(const std::vector<ConditionIndex>& k) const;
  };
  std::unordered_set<std::vector<ConditionIndex>, KeyHash> found_;  // preset, ~0, context
  std::uint64_t co_checks_ = 0;
  std::uint64_t combinations_skipped_ = 0;
  // The searches' visited marks, by condition, valid when equal to seen_stamp_.
  std::vector<std::uint32_t> seen_;
  std::uint32_t seen_stamp_ = 0;
  // extend_with_new's co-check results, by condition, valid when checked_ equals check_stamp_.
  std::vector<std::uint32_t> checked_;
  std::vector<std::uint8_t> concurrent_;
  std::uint32_t check_stamp_ = 0;
  // By thread condition t: an event p such that [p] uses t up or conflicts with the causes of
  // t's producer (kInitialCondition: none known). t is then concurrent with no condition whose
  // producer has p among its causes: both stay so in every larger configuration. extend_with_new's
  // searches meet the same thread conditions next to the concurrent ones for each condition of
  // a test, and a test's conditions mostly have the earlier ones' producers among their causes.
  std::vector<EventIndex> conflicts_with_;
  // Whether some event that consumes c is in [t's producer] (c is used up before t).
  bool used_up_before(ConditionIndex c, ConditionIndex t) const;
  std::uint32_t next_check_stamp();
  std::uint32_t next_seen_stamp();
};

}  // namespace weft::explorer
