// Cut-off events by state fingerprints, as POET finds them (POET §3.8, §4.2): an event is a
// cut-off when another event of the unfolding reached the same state by a smaller local
// configuration. The search does not go on past a cut-off: no event it causes joins the
// unfolding. Every state the program can reach is still reached by a configuration free of
// cut-offs: take the smallest configuration reaching it; a cut-off in it could be swapped for its
// smaller witness, and the rest shifted after it, giving a smaller one (Esparza, Römer and
// Vogler's argument, thesis §7.1; it holds for any witness in the unfolding and any adequate
// order). POET orders by size (McMillan's order); ties are common (two writers of one value, in
// either order), so here the complete prefix's order breaks them (complete_prefix.hpp): a
// weighted Parikh vector (the sum of a positive weight per label, kept by adding the same events
// to both), then the Foata normal form (ERV's ≺_F), so the order stays adequate.
//
// The state of [e] is the initial state plus the changes of its events (state_fingerprints.hpp;
// POET App. H): computed once, when e joins the unfolding, from its local configuration. An
// event's status is decided then and kept: a smaller witness found later makes no earlier event a
// cut-off (fewer cut-offs than could be, never a wrong one), so the search never has to take back
// what it explored past one.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "weft/explore/unfolding.hpp"

namespace weft::explorer {

/// An event's label: a function of the model's transition (thread and operation), the same for
/// the events that extend two configurations the same way.
std::uint64_t transition_label(ThreadId t, const Operation& op);
/// A label's weight in a weighted Parikh vector: positive, and below 2^40, so that no
/// configuration's sum overflows.
inline std::uint64_t label_weight(std::uint64_t label) {
  return (label >> 24) + 1;
}
/// A configuration's Foata normal form: the labels of each level (its events whose longest chain
/// of causes has that length), each level sorted.
using FoataForm = std::vector<std::vector<std::uint64_t>>;
/// ERV's order on Foata normal forms: level by level, the first whose Parikh vectors differ
/// decides; -1, 0 (equal) or 1.
int compare_foata(const FoataForm& a, const FoataForm& b);

class CutOffEvents {
 public:
  explicit CutOffEvents(const Unfolding& unfolding) : unfolding_(&unfolding) {}

  /// An event that just joined the unfolding, with its change of the fingerprint: whether it is
  /// a cut-off. Its causes must have joined before (they did: they fired first).
  bool add(EventIndex e, std::uint64_t change);
  /// Whether an event seen again changed the state as it did the first time (if not, the state
  /// is more than the fingerprint holds).
  bool same_change(EventIndex e, std::uint64_t change) const {
    return e < change_.size() && change_[e] == change;
  }
  bool is_cut_off(EventIndex e) const { return e < cut_off_.size() && cut_off_[e]; }
  /// Whether a condition was produced by a cut-off: nothing that takes or reads it is explored.
  bool beyond(ConditionIndex c) const {
    const EventIndex p = unfolding_->condition(c).producer;
    return p != kInitialCondition && is_cut_off(p);
  }
  /// Whether an extension takes or reads a condition a cut-off produced.
  bool beyond(const Unfolding::Extension& x) const;

  /// Distinct states the local configurations reach (the initial one included).
  std::uint64_t states() const { return smallest_.size(); }
  std::uint64_t cut_offs() const { return cut_offs_; }

 private:
  const Unfolding* unfolding_;
  std::vector<std::uint64_t> change_;  // by event
  std::vector<bool> cut_off_;          // by event
  // A local configuration's place in the order: its size, then its weighted Parikh vector.
  // A local configuration's place in the order: its size, its weighted Parikh vector, and where
  // both tie, its Foata normal form; its event (kNoEvent for the empty configuration).
  static constexpr EventIndex kNoEvent = ~EventIndex{0};
  struct Rank {
    std::uint32_t size = 0;
    std::uint64_t weight = 0;
    EventIndex event = kNoEvent;
  };
  // -1, 0 or 1.
  int compare(const Rank& a, const Rank& b) const;
  FoataForm foata(EventIndex e) const;
  std::vector<std::uint32_t> depth_;  // by event: its Foata level, from 1
  // By state: the smallest local configuration reaching it (the empty one for the initial state).
  std::unordered_map<std::uint64_t, Rank> smallest_{{0, Rank{}}};
  std::uint64_t cut_offs_ = 0;
};

}  // namespace weft::explorer
