// The finite complete prefix that stateful unfolding-based testing builds (thesis §7.4, Fig.
// 7.6): events join the prefix in an adequate order, and an event that reaches a state another
// event reached by a smaller configuration is a cut-off (thesis §7.1), whose continuations the
// prefix leaves out. Every state the program can reach is reached by a configuration of the
// prefix free of cut-offs (Esparza, Römer and Vogler's theorem, thesis §7.1): no local state, and
// so no assertion failure, is lost below a cut-off.
//
// The unfolding it prunes is the one tests build (unfolding.hpp, with place replication as §7.4
// asks, so that it is an ordinary net's); the prefix is a part of it. Candidates are the
// unfolding's events and its possible extensions; one is ready when every condition it needs was
// produced by an event of the prefix that is no cut-off (or holds initially). Ready events join
// the prefix smallest first; a ready possible extension no test has reached yet needs one: next()
// hands it out.
//
// The state of a configuration is its marking in the thesis' model (§7.2), as a fingerprint
// (state_fingerprints.hpp): the initial state plus each event's change, which depends only on
// the event's causes (POET App. H). So the state of [e] is a sum over [e], with no execution run.
//
// The adequate order (§7.1): by size, then by a weighted Parikh vector (the sum of a random
// positive weight per label: an order on Parikh vectors kept by adding the same events to both,
// which is what adequacy asks of the thesis' lexicographic one), then by Foata normal form,
// level by level (ERV's ≺_F). A label is a function of the model's transition: thread and
// operation. Two configurations equal in all three are not ordered; neither cuts the other off.
// The order only decides which event is a cut-off; completeness does not depend on the order
// events join in (a cut-off needs a witness smaller in the adequate order, wherever it is), only
// the prefix's size does.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cut_off_events.hpp"
#include "weft/explore/unfolding.hpp"

namespace weft::explorer {

class CompletePrefix {
 public:
  explicit CompletePrefix(const Unfolding& unfolding) : unfolding_(&unfolding) {}

  /// An event the unfolding just added, with its change of the state fingerprint. `cut_off`: it
  /// is known to be one already (cut_off_events.hpp found a smaller witness; fewer events is
  /// an order the adequate one refines, so the prefix would find it one too).
  void add_event(EventIndex e, std::uint64_t change, bool cut_off = false);
  /// A possible extension of the unfolding.
  void add_target(Unfolding::Extension x);
  /// Adds the ready events to the prefix in the adequate order, up to the first ready possible
  /// extension no event of the unfolding is yet, which it returns (a test must reach it); nullopt
  /// once nothing is ready: the prefix is complete.
  std::optional<Unfolding::Extension> next();
  /// Up to `at_most` possible extensions no test has reached yet, besides the ones next() handed
  /// out, the latest found first: a test aimed at next()'s may aim at some of these too (running
  /// an event early costs no test, and its place in the prefix is still decided by the order).
  std::vector<Unfolding::Extension> open_targets(std::size_t at_most);

  /// Distinct states the prefix's configurations reach (the initial one included).
  std::uint64_t states() const { return states_; }
  /// Events of the prefix that are cut-offs.
  std::uint64_t cut_offs() const { return cut_offs_; }
  /// Events of the prefix, cut-offs included.
  std::uint64_t events() const { return admitted_; }

 private:
  struct Candidate {
    bool is_event = true;
    EventIndex event = kInitialCondition;
    Unfolding::Extension target{};  // unless is_event
    std::uint32_t missing = 0;      // needed conditions not yet produced by the prefix
    std::uint32_t size = 0;         // of its local configuration, itself included
    std::uint64_t weight = 0;       // the weighted Parikh vector of the same
    std::uint32_t depth = 0;        // its Foata level
    std::uint64_t state = 0;        // an event's: the state its local configuration reaches
    bool handed_out = false;        // a possible extension next() returned
    bool known_cut_off = false;     // an event add_event was told is a cut-off
  };
  enum class Status : std::uint8_t { kOutside, kInPrefix, kCutOff };

  std::uint32_t add_candidate(Candidate c);
  // Whether c holds initially or was produced by an event of the prefix that is no cut-off.
  bool produced(ConditionIndex c) const;
  std::vector<ConditionIndex> needed(const Candidate& c) const;
  // Its local configuration, without itself for a possible extension.
  std::vector<EventIndex> past(const Candidate& c) const;
  void make_ready(std::uint32_t index);
  void admit(std::uint32_t index);
  // The adequate order (see the file comment): -1, 0 (not ordered) or 1.
  int compare(std::uint32_t a, std::uint32_t b) const;
  // The heap's order: the adequate one, then the order candidates came in.
  bool later(std::uint32_t a, std::uint32_t b) const {
    const int order = compare(a, b);
    return order > 0 || (order == 0 && a > b);
  }
  // Its Foata normal form: the labels of each level, each level sorted.
  const FoataForm& foata(std::uint32_t index) const;

  const Unfolding* unfolding_;
  std::vector<Candidate> candidates_;
  std::vector<std::uint32_t> ready_;  // a heap, smallest first
  std::unordered_map<ConditionIndex, std::vector<std::uint32_t>> waiting_;
  std::vector<std::uint64_t> change_;  // by event
  std::vector<std::uint32_t> depth_;   // by event
  std::vector<Status> status_;         // by event
  // By state: the candidate (in the prefix) that reached it first; the initial state has none.
  static constexpr std::uint32_t kInitialState = ~std::uint32_t{0};
  std::unordered_map<std::uint64_t, std::uint32_t> reached_{{0, kInitialState}};
  std::unordered_set<std::uint64_t> targets_seen_;  // possible extensions made candidates
  std::vector<std::uint32_t> open_;                 // those, unless reached or handed out
  // Foata normal forms, computed where size and weight tie.
  mutable std::unordered_map<std::uint32_t, FoataForm> foata_;
  std::uint64_t states_ = 1, cut_offs_ = 0, admitted_ = 0;
};

}  // namespace weft::explorer
