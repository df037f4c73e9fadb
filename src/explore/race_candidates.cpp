// The races an event can take part in (optimal DPOR's race detection, and any strategy that
// reverses races): which earlier events touched what it touches last.
#include "weft/explore/race_candidates.hpp"

#include <algorithm>

namespace weft::explorer {

void RaceCandidates::of(const Event& e, std::vector<std::size_t>& out) const {
  out.clear();
  const Operation& op = e.op;
  // An exit runs only when no other thread can (the scheduler holds it back), so it races
  // only with another thread's exit: with both pending at the end, either may end the process.
  if (op.kind == OpKind::kProcessExit) {
    if (last_exit_ != kNone && last_exit_thread_ != e.thread) out.push_back(last_exit_);
    return;
  }
  // A fence (x86-TSO) reads only the slot of its thread's last store, which the store and its
  // flush write: the fence cannot come before the flush, which enables it.
  if (op.kind == OpKind::kStoreFence) return;
  // Every event races with the last footprint-less atomic section of another thread.
  if (last_global_ != kNone && last_global_thread_ != e.thread) out.push_back(last_global_);
  const auto push = [&](const auto& map, ObjectKey key) {
    if (auto it = map.find(key); it != map.end()) out.push_back(it->second);
  };
  // A memory operation, or each access of an atomic section with a known footprint.
  const auto against = [&](const ByteClasses<Access>& classes, ByteMask read_only,
                           ByteMask written) {
    classes.for_each(written, [&](const Access& a) {
      if (!a.reads_since.empty()) {
        out.insert(out.end(), a.reads_since.begin(), a.reads_since.end());
      } else if (a.last_write != kNone) {
        out.push_back(a.last_write);
      }
    });
    classes.for_each(read_only, [&](const Access& a) {
      if (a.last_write != kNone) out.push_back(a.last_write);
    });
  };
  if (op.kind == OpKind::kFree) {
    for_each_granule_with_history(memory_, op.object, op.size,
                                  [&](ObjectKey, const ByteClasses<Access>& classes,
                                      ByteMask bytes) { against(classes, 0, bytes); });
  } else {
    for_each_access(op, [&](ObjectKey g, ByteMask read_only, ByteMask written) {
      if (auto it = memory_.find(g); it != memory_.end()) against(it->second, read_only, written);
    });
  }
  // An access to a freed block races with the free, which wrote all of it (freed_blocks.hpp).
  if (!freed_.empty())
    FreedBlocks<std::size_t>::for_each_extent(op, [&](ObjectKey start, std::uint64_t size) {
      freed_.for_each_overlapping(start, size, [&](std::size_t free) { out.push_back(free); });
    });
  if (touches_everything(op)) {
    // A footprint-less section races with the last event of every other thread.
    for (ThreadId t = 0; t < last_of_thread_.size(); ++t)
      if (t != e.thread && last_of_thread_[t] != kNone) out.push_back(last_of_thread_[t]);
  }
  switch (domain_of(op.kind)) {
    case Domain::kMutex:
      if (op.kind == OpKind::kMutexUnlock) {
        if (auto it = failed_trylocks_.find(op.object); it != failed_trylocks_.end())
          out = it->second;
      } else {
        // lock, trylock (either way): it competes with the last acquisition.
        push(last_acquire_, op.object);
      }
      break;
    case Domain::kCond: {
      // As the clock tracker orders the two parts (cond_footprint): a change of the waiters
      // races with the lost notifications since the last change, or with that change; a lost
      // notification with the last change; a change of the signals with the last one.
      const CondFootprint f = cond_footprint(op);
      const auto parts = cond_parts_.find(op.object);
      const CondParts none;
      const CondParts& p = parts == cond_parts_.end() ? none : parts->second;
      using W = CondFootprint::Waiters;
      // (A wake still pending, a blocked waiter's at the end of an execution, counts as one
      // that timed out in cond_footprint; but what could let it run is a signal, below.)
      const bool timed_out = op.kind == OpKind::kCondWake && op.timed && op.result == 0;
      const bool pending = op.kind == OpKind::kCondWake && !op.timed && op.result == 0;
      if (!pending && f.waiters == W::kWritten && !p.lost_since.empty())
        out.insert(out.end(), p.lost_since.begin(), p.lost_since.end());
      else if (!pending && f.waiters != W::kNone && p.waiters_written != kNone)
        out.push_back(p.waiters_written);
      if (op.kind == OpKind::kCondWake) {
        push(last_wake_, op.object);
        push(last_acquire_, op.partner);
        // A woken wake takes a signal: it races with the last signal or broadcast that took
        // effect only if its own was there before it. Without this, a wake after a signal it
        // did not need stayed ordered after it, and optimal DPOR lost traces
        // (tests/differential_test.cpp, BlockingDifferential seed 277). One that timed out
        // needed none; one still pending (a blocked waiter's, at the end of an execution) has
        // none.
        const auto wake = last_wake_.find(op.object);
        const bool last_is_wake = wake != last_wake_.end() && wake->second == p.signals_written;
        if (p.signals_written != kNone && !last_is_wake && !pending &&
            (timed_out || wake_had_token_before_last(e)))
          out.push_back(p.signals_written);
      } else {
        if (f.signals_written && p.signals_written != kNone) out.push_back(p.signals_written);
        if (op.kind == OpKind::kCondWait)
          if (auto it = failed_trylocks_.find(op.partner); it != failed_trylocks_.end())
            out.insert(out.end(), it->second.begin(), it->second.end());
      }
      break;
    }
    case Domain::kSemaphore:
      // Posts are the semaphore's readers and waits its writers (clock_tracker.cpp): which
      // posts a wait comes after decides what happens before it. So a wait races with the
      // posts since the last wait as well as with that wait, and a post with the last wait,
      // as reads and writes do; but a wait can come before a post only if it would still find
      // a unit without it: it found two or more (a trywait's result says only that it found
      // one; it competes anyway).
      if (op.kind == OpKind::kSemWait || op.kind == OpKind::kSemTryWait) {
        push(last_sem_wait_, op.object);
        const bool spare = op.kind == OpKind::kSemTryWait || op.result >= 2;
        if (auto it = posts_since_wait_.find(op.object); spare && it != posts_since_wait_.end())
          out.insert(out.end(), it->second.begin(), it->second.end());
      }
      if (op.kind == OpKind::kSemPost) {
        // And with a trywait that found the count zero (it would succeed after it).
        push(last_failed_trywait_, op.object);
        push(last_sem_wait_, op.object);
      }
      break;
    case Domain::kFutex:
      // The futex operations on one word are totally ordered (dependence.cpp).
      push(last_futex_, op.object);
      break;
    case Domain::kChannel:
      // Each channel's operations are totally ordered, and they all read "all channels", which
      // a selective wait writes (dependence.cpp): a wait races with the channel operations
      // since the last wait (or with that wait), and they with it.
      if (on_every_channel(op)) {
        if (!channel_ops_since_select_.empty())
          out.insert(out.end(), channel_ops_since_select_.begin(), channel_ops_since_select_.end());
        else if (last_select_ != kNone)
          out.push_back(last_select_);
      } else {
        // (Not narrowed as semaphore waits are by the count they found: a receive that took
        // the only message, skipped here, hid races further back: tests/differential_test.cpp,
        // ChannelDifferential seed 155.)
        for_each_channel(op, [&](ObjectKey channel) { push(last_channel_op_, channel); });
        if (last_select_ != kNone) out.push_back(last_select_);
      }
      break;
    default:
      break;
  }
  // One event can be a candidate for two reasons (an exit is also the last global event);
  // a duplicate would count as "another predecessor" and hide the race.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

void RaceCandidates::add(std::size_t index, const Event& e) {
  const Operation& op = e.op;
  if (e.thread >= last_of_thread_.size()) last_of_thread_.resize(e.thread + 1, kNone);
  last_of_thread_[e.thread] = index;
  if (op.kind == OpKind::kProcessExit) {
    last_exit_ = index;
    last_exit_thread_ = e.thread;
  } else if (touches_everything(op)) {
    last_global_ = index;
    last_global_thread_ = e.thread;
  }
  const auto write = [&](Access& a) {
    a.last_write = index;
    a.reads_since.clear();
  };
  if (op.kind == OpKind::kFree) {
    for_each_granule_with_history(memory_, op.object, op.size,
                                  [&](ObjectKey, ByteClasses<Access>& classes, ByteMask bytes) {
                                    classes.split(bytes);
                                    classes.for_each(bytes, write);
                                  });
    freed_.add(op.object, op.size, index);
  } else {
    for_each_access(op, [&](ObjectKey g, ByteMask read_only, ByteMask written) {
      auto& classes = memory_[g];
      classes.split(written);
      classes.split(read_only);
      classes.for_each(written, write);
      classes.for_each(read_only, [&](Access& a) { a.reads_since.push_back(index); });
    });
  }
  switch (domain_of(op.kind)) {
    case Domain::kMutex:
      if (acquires_mutex(op)) {
        last_acquire_[op.object] = index;
        failed_trylocks_[op.object].clear();
      } else if (op.kind == OpKind::kMutexTryLock) {
        failed_trylocks_[op.object].push_back(index);
      }
      break;
    case Domain::kCond: {
      if (op.kind == OpKind::kCondWake) {
        last_wake_[op.object] = index;
        last_acquire_[op.partner] = index;
        failed_trylocks_[op.partner].clear();
      }
      const CondFootprint f = cond_footprint(op);
      CondParts& p = cond_parts_[op.object];
      if (f.waiters == CondFootprint::Waiters::kWritten) {
        p.waiters_written = index;
        p.lost_since.clear();
      } else if (f.waiters == CondFootprint::Waiters::kRead) {
        p.lost_since.push_back(index);
      }
      if (f.signals_written) p.signals_written = index;
      note_tokens(e);
      break;
    }
    case Domain::kSemaphore:
      if (op.kind == OpKind::kSemWait || (op.kind == OpKind::kSemTryWait && op.result)) {
        last_sem_wait_[op.object] = index;
        posts_since_wait_[op.object].clear();
      }
      if (op.kind == OpKind::kSemTryWait && !op.result) last_failed_trywait_[op.object] = index;
      if (op.kind == OpKind::kSemPost) posts_since_wait_[op.object].push_back(index);
      break;
    case Domain::kFutex:
      last_futex_[op.object] = index;
      break;
    case Domain::kChannel:
      if (on_every_channel(op)) {
        last_select_ = index;
        channel_ops_since_select_.clear();
      } else {
        for_each_channel(op, [&](ObjectKey channel) { last_channel_op_[channel] = index; });
        channel_ops_since_select_.push_back(index);
      }
      break;
    default:
      break;
  }
}

bool RaceCandidates::wake_had_token_before_last(const Event& wake) const {
  const auto it = cond_tokens_.find(wake.op.object);
  if (it == cond_tokens_.end()) return false;
  const CondTokens& c = it->second;
  const auto waiting = std::find_if(c.wait_epochs.begin(), c.wait_epochs.end(),
                                    [&](const auto& w) { return w.first == wake.thread; });
  if (waiting == c.wait_epochs.end()) return false;
  // The token it takes, against the last effective notification's epoch.
  const auto token = std::upper_bound(c.tokens.begin(), c.tokens.end(), waiting->second);
  return token != c.tokens.end() && *token < c.last_effect_epoch;
}

void RaceCandidates::note_tokens(const Event& e) {
  CondTokens& c = cond_tokens_[e.op.object];
  switch (e.op.kind) {
    case OpKind::kCondWait:
      ++c.waiters;
      c.wait_epochs.emplace_back(e.thread, c.epoch);
      break;
    case OpKind::kCondSignal:
      ++c.epoch;
      if (c.waiters > c.tokens.size()) {
        c.tokens.push_back(c.epoch);
        c.last_effect_epoch = c.epoch;
      }
      break;
    case OpKind::kCondBroadcast:
      ++c.epoch;
      if (c.tokens.size() < c.waiters) c.last_effect_epoch = c.epoch;
      while (c.tokens.size() < c.waiters) c.tokens.push_back(c.epoch);
      break;
    case OpKind::kCondWake: {
      const auto waiting = std::find_if(c.wait_epochs.begin(), c.wait_epochs.end(),
                                        [&](const auto& w) { return w.first == e.thread; });
      if (waiting == c.wait_epochs.end()) break;
      if (e.op.result) {
        const auto token = std::upper_bound(c.tokens.begin(), c.tokens.end(), waiting->second);
        if (token != c.tokens.end()) c.tokens.erase(token);
      }
      --c.waiters;
      c.wait_epochs.erase(waiting);
      break;
    }
    default:
      break;
  }
}

}  // namespace weft::explorer
