// A trace as the SYN-sequence of reachability testing (Lei and Carver §III-§V): each event is a
// call by its thread (a sending event) that completes on a line (a receiving event: the line's
// next completion), with the paper's vector timestamps (§IV) and race sets (§V-B, Prop. 2).
//
// A line is a synchronisation object: a mutex with its condition variables' waits, a semaphore,
// a channel, a futex word, a memory granule (sync_objects.hpp). Objects that one operation
// touches together (a selective wait over two channels, a condition wait and its mutex) are
// merged into one line, for good: every line is then a totally ordered object as the paper's
// model needs, at the price of ordering some operations that commute (more sequences, never
// fewer behaviours).
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "weft/trace/sync_objects.hpp"
#include "weft/trace/trace.hpp"

namespace weft::explorer::reachability {

/// A vector timestamp: per thread, how many of its events are in the past.
using Clock = std::vector<std::uint32_t>;

/// The lines: objects merged by the operations seen so far (union-find; merges are never
/// undone, so a line of one execution is a line of every later one).
class Lines {
 public:
  /// Merges the objects of every event and pending operation of `trace`.
  void learn(const Trace& trace);
  /// The line `op` completes on (a key of one of its objects), or 0 for none.
  ObjectKey line_of(const Operation& op);
  /// The line `object` (a sync_key) is part of.
  ObjectKey find(ObjectKey object);
  /// Every object of the line of `object`.
  std::vector<ObjectKey> members(ObjectKey object);
  /// How many times two lines that both had objects before were merged into one: sequences
  /// analysed before such a merge saw two lines where there is one.
  std::uint64_t late_merges() const { return late_merges_; }

 private:
  void merge(ObjectKey a, ObjectKey b);
  void learn(const Operation& op);
  std::unordered_map<ObjectKey, ObjectKey> parent_;
  std::unordered_map<ObjectKey, bool> seen_before_;  // by line: had objects before this learn()
  std::uint64_t late_merges_ = 0;
  ObjectKey all_ = 0;       // once an operation touched everything: the one line
  ObjectKey channels_ = 0;  // once a selective wait watched every channel: their line
};

/// A sending event: a thread's i-th call (0-based).
struct Call {
  ThreadId thread = kNoThread;
  std::uint32_t index = 0;
  friend bool operator==(const Call&, const Call&) = default;
};

struct SynEvent {
  Call call;
  ObjectKey line = 0;  // 0: no line (thread creation and joins, yields, the end)
  Clock at_call;       // c-struct of the call: its thread's past when it made it
  Clock on_line;       // c-struct of the completion: the line's previous completion and its past
  Clock done;          // the completion's timestamp
};

struct PendingCall {
  Call call;
  Operation op;
  ObjectKey line = 0;
  Clock at_call;
};

class SynSequence {
 public:
  /// The SYN-sequence of `trace`, whose objects `lines` has learnt.
  SynSequence(const Trace& trace, Lines& lines);

  const std::vector<SynEvent>& events() const { return events_; }
  /// Each thread's next call after the trace (blocked, cut off, or never scheduled).
  const std::vector<PendingCall>& pending() const { return pending_; }

  /// Whether event `e` is in the past described by `clock` (Prop. 1).
  bool in_past(std::size_t e, const Clock& clock) const;
  /// The call's thread's past when it made it: of an event, or of a pending call.
  const Clock* call_clock(const Call& c) const;
  /// The operation of a call of the trace, or nullptr.
  const Operation* call_op(const Call& c) const;
  /// The line of a call of the trace, or 0.
  ObjectKey call_line(const Call& c) const;

  /// race_set(r, Q) of event `e` (Prop. 2), in a fixed order: each other thread's first call on
  /// its line that did not complete before it, that it does not happen before, and that could
  /// complete there (open: Table 2's OpenList, from the object's state). `excluded` drops calls
  /// (old sending events pruned from old receiving events, Fig. 10 lines 1-2; the P/V reduction).
  std::vector<Call> race_set(
      std::size_t e, const std::function<bool(const Call&, const Operation&)>& excluded) const;

 private:
  bool open_at(std::size_t e, const Call& c, const Operation& op) const;
  struct ChannelState {
    std::int64_t messages = 0, taken = 0;
    bool closed = false;
  };
  ChannelState channel_state(ObjectKey channel, std::size_t step) const;
  std::uint32_t events_before(ThreadId t, std::size_t step) const;

  const Trace& trace_;
  std::vector<SynEvent> events_;
  std::vector<PendingCall> pending_;
  std::vector<std::vector<std::size_t>> steps_of_;  // by thread: its events' positions
  std::vector<std::size_t> started_at_;             // by thread: the first step it existed at
};

}  // namespace weft::explorer::reachability
