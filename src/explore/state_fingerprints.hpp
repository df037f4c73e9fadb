// The abstract state of a program after each step of an execution, as a fingerprint, for the
// stateful strategy (thesis ch. 7). The thesis captures a state as a marking of a Petri net built
// from the executions seen (§7.2): a place per thread's local state, per shared variable's value
// and per lock. The same information, hashed:
// - a thread's local state, where the runtime recorded it (Trace::local_states: native programs
//   without inputs), is what the thread holds as it waits at its next operation: the registers a
//   call keeps, its stack, its thread-local storage, and the operation. A thread that loops back
//   to where it was is in the state it was in (POET §4 fingerprints threads so), and a program
//   that cycles through finitely many states is explored completely. Otherwise it is the
//   thread's history: the operations it made and what each returned (a program without inputs is
//   deterministic per thread, thread_model.hpp; with inputs, a value computed from them is its
//   expression and each branch on them is in the history with the side taken, which together
//   fix the thread's path constraint), and loops are unrolled as in the thesis (§7.5);
// - shared memory is its bytes as the events wrote them (the values §7.5 suggests keeping, so
//   that two writes of one value to a variable lead to one state);
// - each mutex is its owner (whether a thread ended, its history says).
// The parts are hashed into one 64-bit sum that each step updates by what it changed (POET §4's
// incremental fingerprints), so two different states share a fingerprint only by a collision.
// A step's change (the difference of the fingerprints after and before it) depends only on the
// parts it touched, whose values its causes fixed: the state of a configuration is the initial
// one plus its events' changes, in any order (POET App. H; complete_prefix.hpp).
//
// This covers only programs whose every shared access is an event with its values (native, with
// --points=all) and that synchronise with mutexes, condition variables, semaphores, thread
// creation and joins: any other operation, or memory that changed between events, leaves a state
// the fingerprint would not hold, and of() gives none and why() says why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "weft/trace/trace.hpp"

namespace weft::explorer {

class StateFingerprints {
 public:
  /// The fingerprint of the state before each event of `trace` and after its last one (events + 1
  /// of them), or an empty vector and why() says what the fingerprint cannot hold. With inputs,
  /// the state before an event includes the branches on inputs taken before it (as changes_of()
  /// holds them), so states with one fingerprint have the same path constraint.
  std::vector<std::uint64_t> of(const Trace& trace);
  /// What each step changes in the fingerprint (the difference of the fingerprints after and
  /// before it), for a program that may read inputs: by event, and by branch on inputs
  /// (InputObservations::branches; a branch is a step of its thread that extends its history by
  /// the side it took). Values computed from inputs are held by their expressions, not by this
  /// execution's values (thesis §7.2). Nothing, and why() says why, where the fingerprint cannot
  /// hold the state.
  struct Changes {
    std::vector<std::uint64_t> events, branches;
  };
  std::optional<Changes> changes_of(const Trace& trace);
  /// Why the last of() or changes_of() gave none.
  const std::string& why() const { return why_; }

 private:
  bool walk(const Trace& trace, std::vector<std::uint64_t>& states,
            std::vector<std::uint64_t>* event_changes, std::vector<std::uint64_t>* branch_changes);
  bool fail(std::string why) {
    why_ = std::move(why);
    return false;
  }
  /// Bytes no event wrote, as executions read them: the same in every execution, or memory
  /// changes behind the events' back.
  bool check_initial(ObjectKey address, std::uint32_t size, std::uint64_t read,
                     const std::unordered_map<ObjectKey, std::uint8_t>& written);
  /// A thread did something else after a history it had before: what it does depends on more
  /// than the values it read (heap addresses, the time, inputs), and its history is no state.
  bool check_next(std::uint64_t history, const Operation& op);
  /// With local states: a thread in one state that got one result went on to one state.
  bool check_went_on(std::uint64_t state_and_result, std::uint64_t after);
  std::unordered_map<ObjectKey, std::uint8_t> initial_;
  std::unordered_map<std::uint64_t, std::uint64_t> went_on_;
  std::unordered_map<std::uint64_t, std::uint64_t> next_;  // history: its next operation
  std::string why_;
};

}  // namespace weft::explorer
