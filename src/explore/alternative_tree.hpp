// The exploration tree of quasi-optimal partial-order reduction (QPOR: Nguyen, Rodríguez, Sousa,
// Coti, Petrucci, CAV 2018, Alg. 1; POET §3.7, Alg. 2), over the unfolding that the tests build
// (unfolding.hpp, place replication: an ordinary occurrence net).
//
// A node is a configuration C (the first events of an execution, in the order they ran), the event
// e the node adds to it, and the events D it must not add (disabled). Its left subtree explores
// the maximal configurations that contain C and e, its right subtree those that contain C and none
// of D ∪ {e}. Each test runs a leftmost branch: the right child of the deepest node that has one,
// to the end of an execution, taking the alternative's events first. A right child exists when an
// alternative does: events J such that C ∪ J is a configuration that excludes D ∪ {e}, J in
// conflict with them. Deciding that is NP-complete; a k-partial alternative (J in conflict with k
// of them: e and the latest added of the others still enabled at C) is a P-time approximation
// that never misses a right child that exists, but may make one whose test ends sleep-set blocked
// (QPOR §5). With k at least the branching, it is exact: one test per maximal configuration.
//
// The disabled events enabled at C go to the test as its sleep set (thesis §2.4): the runtime
// keeps their threads from taking them until an operation dependent on them runs, after which
// they are no longer enabled in the configuration (an event in conflict with them joined it).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "weft/explore/unfolding.hpp"

namespace weft::explorer {

class AlternativeTree {
 public:
  /// `k`: the events of D ∪ {e} an alternative must be in conflict with (at least 1).
  AlternativeTree(const Unfolding& unfolding, std::uint32_t k)
      : unfolding_(&unfolding), k_(k < 1 ? 1 : k) {}

  /// A possible extension of the unfolding: an alternative may end in it.
  void add_extension(Unfolding::Extension x);
  /// The events the last test fired, in the order it fired them (branches on inputs among
  /// them, as events of their threads).
  void observe(const std::vector<EventIndex>& fired);

  /// A right child: replay the path's first `node` events, then the alternative's, then the
  /// extension (if the alternative ends in an event no test has fired yet), then run on with
  /// the disabled events enabled at that configuration asleep.
  struct Branch {
    std::size_t node = 0;
    std::vector<EventIndex> replay;       ///< the configuration C, in the order it ran
    std::vector<EventIndex> alternative;  ///< J's events not in C, in an order they can fire
    std::optional<Unfolding::Extension> extension;
    std::vector<EventIndex> asleep;  ///< the disabled events enabled at C
  };
  /// The next right child, deepest first, among those `reachable` accepts (the caller solves
  /// for inputs that take the branches of C and J their ways); nullopt once there is none: the
  /// tree is explored.
  std::optional<Branch> next(const std::function<bool(const Branch&)>& reachable);

  /// Forgets the tree and the extensions (the unfolding started over); the next observed test
  /// is its first leftmost branch.
  void reset();

  /// Right children made (tests beyond the first).
  std::uint64_t alternatives() const { return alternatives_; }
  /// Replays that did not fire the node's configuration again (the program did something else
  /// from the same point): their nodes below the difference lost their disabled sets.
  std::uint64_t diverged() const { return diverged_; }

 private:
  struct Node {
    EventIndex event;
    std::vector<EventIndex> disabled;
    bool tried = false;  // its right child was looked for
  };
  // What the path's configurations consume and hold, for the node being backtracked.
  struct PathIndex {
    std::unordered_map<EventIndex, std::uint32_t> position;      // path events
    std::unordered_map<ConditionIndex, std::uint32_t> consumer;  // by condition: node consuming it
  };
  PathIndex index_path() const;
  bool enabled_at(EventIndex d, std::uint32_t node, const PathIndex& path) const;
  // J for one candidate in conflict with a disabled event: the events of the roots' local
  // configurations outside C_node, ascending, or nullopt if C_node ∪ those is no configuration
  // or holds a disabled event.
  std::optional<std::vector<EventIndex>> outside(const std::vector<EventIndex>& roots,
                                                 std::uint32_t node, const PathIndex& path,
                                                 const std::vector<EventIndex>& disabled) const;
  bool compatible_with_path(const std::vector<ConditionIndex>& needs, std::uint32_t node,
                            const PathIndex& path) const;
  // An alternative to `targets` (each must be in conflict with one of its events) after C_node,
  // holding none of `disabled`; the extensions it ends in, if any.
  struct Alternative {
    std::vector<EventIndex> events;  // outside C_node
    std::vector<const Unfolding::Extension*> extensions;
  };
  bool find_alternative(const std::vector<EventIndex>& targets, std::size_t next_target,
                        std::uint32_t node, const PathIndex& path,
                        const std::vector<EventIndex>& disabled, Alternative& chosen,
                        const std::function<bool(const Alternative&)>& accept) const;

  const Unfolding* unfolding_;
  std::uint32_t k_;
  std::vector<Node> path_;
  std::optional<std::size_t> branched_at_;  // the node whose right child the last test ran
  std::vector<EventIndex> branch_disabled_;
  std::vector<Unfolding::Extension> extensions_;
  std::unordered_map<ConditionIndex, std::vector<std::uint32_t>> extensions_by_condition_;
  std::uint64_t alternatives_ = 0, diverged_ = 0;
  // The last search left out a choice for holding two events no test fired yet.
  mutable bool one_new_event_too_few_ = false;
};

}  // namespace weft::explorer
