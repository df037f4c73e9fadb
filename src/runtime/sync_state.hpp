// The state of the synchronisation objects the scheduler models, per execution.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "weft/trace/thread_id.hpp"

namespace weft::runtime {

struct MutexState {
  ThreadId owner = kNoThread;
};

/// A condition variable. A wait is split into kCondWait (release the mutex, start waiting) and
/// kCondWake (take a signal, reacquire). A signal at epoch s can wake any thread that started
/// waiting before it: it leaves a token s if some waiter is not yet covered by a token, and a
/// waiter that began at epoch e may take any token > e. Waiters take the smallest eligible token,
/// which never strands a later waiter (eligibility is a suffix). Which waiter wakes is thus a
/// scheduling choice, and a signal with no uncovered waiter is lost, as in POSIX.
struct CondState {
  std::uint64_t epoch = 0;
  std::vector<std::uint64_t> tokens;  // ascending
  std::uint32_t waiters = 0;          // waiting and not yet woken

  bool has_token_for(std::uint64_t wait_epoch) const {
    return !tokens.empty() && tokens.back() > wait_epoch;
  }
  void take_token_for(std::uint64_t wait_epoch) {
    tokens.erase(std::upper_bound(tokens.begin(), tokens.end(), wait_epoch));
    --waiters;
  }
  /// Ends a wait begun at `wait_epoch`: takes a token if there is one (true), else the wait
  /// timed out (false).
  bool end_wait(std::uint64_t wait_epoch) {
    if (has_token_for(wait_epoch)) {
      take_token_for(wait_epoch);
      return true;
    }
    --waiters;
    return false;
  }
  /// Whether the waiters had all been covered already: the notification is lost.
  bool lost() const { return waiters <= tokens.size(); }
  /// Each returns whether the notification was lost (it left no signal to take).
  bool signal() {
    ++epoch;
    if (lost()) return true;
    tokens.push_back(epoch);
    return false;
  }
  bool broadcast() {
    ++epoch;
    if (lost()) return true;
    while (tokens.size() < waiters) tokens.push_back(epoch);
    return false;
  }
};

struct SemaphoreState {
  std::uint64_t count = 0;
};

}  // namespace weft::runtime
