// Per-object history of an execution's events, to find the earlier events a new event can be
// in a reversible race with (optimal DPOR, src/explore/optimal_dpor.cpp; a race reversal in any
// strategy built on races). Kept apart so that strategies share it: it knows the dependence of
// every kind of operation (trace/dependence.hpp) as "which earlier event touched this last".
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "weft/trace/byte_classes.hpp"
#include "weft/trace/freed_blocks.hpp"
#include "weft/trace/operation.hpp"
#include "weft/trace/thread_id.hpp"

namespace weft::explorer {

/// The candidates for races with each event, as the execution's events are added in order: for
/// each thing the event touches, the last earlier events that touched it in a conflicting way
/// (the last write, or the reads since it; the last acquisition of a mutex; ...). The caller keeps
/// the candidates of other threads that happens-before does not order before the event: those
/// are its races. Copies by value: a strategy keeps one per point it may resume from.
class RaceCandidates {
 public:
  /// The earlier events that `e` may race with, given the events added so far, into `out` (a
  /// buffer the caller keeps: this runs for every new event), sorted, without duplicates.
  void of(const Event& e, std::vector<std::size_t>& out) const;
  /// Adds `e`, the execution's event number `index` (indices grow).
  void add(std::size_t index, const Event& e);

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  // Whether cond_wake `wake`, woken, had its token before the last signal or broadcast that
  // took effect on its condition variable (so it could have run before it).
  bool wake_had_token_before_last(const Event& wake) const;
  void note_tokens(const Event& e);
  struct Access {
    std::size_t last_write = kNone;
    std::vector<std::size_t> reads_since;
  };
  std::unordered_map<ObjectKey, ByteClasses<Access>> memory_;  // by granule, exact to the byte
  FreedBlocks<std::size_t> freed_;  // frees, for granules without a history when they ran
  std::unordered_map<ObjectKey, std::size_t> last_futex_, last_channel_op_;
  std::size_t last_select_ = kNone;                    // the last selective wait
  std::vector<std::size_t> channel_ops_since_select_;  // channel operations since
  std::unordered_map<ObjectKey, std::size_t> last_acquire_, last_wake_, last_sem_wait_,
      last_failed_trywait_;
  // A condition variable's two parts as the clock tracker orders them (cond_footprint): the
  // last change of its uncovered waiters and the lost notifications since (their readers), and
  // the last change of its signals (a wake or a notification that took effect).
  struct CondParts {
    std::size_t waiters_written = kNone;
    std::vector<std::size_t> lost_since;
    std::size_t signals_written = kNone;
  };
  std::unordered_map<ObjectKey, CondParts> cond_parts_;
  std::vector<std::size_t> last_of_thread_;
  std::size_t last_global_ = kNone;  // the last footprint-less atomic section
  ThreadId last_global_thread_ = kNoThread;
  std::size_t last_exit_ = kNone;
  ThreadId last_exit_thread_ = kNoThread;
  std::unordered_map<ObjectKey, std::vector<std::size_t>> failed_trylocks_;
  std::unordered_map<ObjectKey, std::vector<std::size_t>> posts_since_wait_;
  // A condition variable's signals as the runtime keeps them (runtime/sync_state.hpp): a signal
  // leaves a token if some waiter has none, and a wake takes the oldest token younger than its
  // wait. It tells whether a wake needed the last signal before it (they are then not
  // co-enabled) or had a token already (they race).
  struct CondTokens {
    std::uint64_t epoch = 0;
    std::vector<std::uint64_t> tokens;  // ascending
    std::uint32_t waiters = 0;
    std::vector<std::pair<ThreadId, std::uint64_t>> wait_epochs;  // of the waiting threads
    std::uint64_t last_effect_epoch = 0;  // of the last signal or broadcast that was not lost
  };
  std::unordered_map<ObjectKey, CondTokens> cond_tokens_;
};

}  // namespace weft::explorer
