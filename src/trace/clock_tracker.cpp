#include "weft/trace/clock_tracker.hpp"

namespace weft {

ClockTracker::PerThread& ClockTracker::thread(ThreadId t) {
  if (t >= threads_.size()) threads_.resize(t + 1);
  return threads_[t];
}

const VectorClock& ClockTracker::thread_clock(ThreadId t) {
  return thread(t).clock;
}

const VectorClock& ClockTracker::clock_before(const Event& e) {
  const VectorClock& own = thread(e.thread).clock;
  if (e.op.kind != OpKind::kBufferFlush) return own;
  const auto it = buffered_.find(e.op.partner);
  if (it == buffered_.end()) return own;
  scratch_before_ = own;
  scratch_before_.join(it->second);
  return scratch_before_;
}

std::uint32_t ClockTracker::thread_count(ThreadId t) const {
  return t < threads_.size() ? threads_[t].count : 0;
}

const VectorClock& ClockTracker::add(const Event& e) {
  PerThread& self = thread(e.thread);
  VectorClock clock = self.clock;
  std::uint32_t level = self.level;
  clock.join(last_global_);
  level = std::max(level, last_global_level_);

  // The objects this event touches, and whether it touches them as a reader (commuting with
  // other readers) or as a writer (ordered with everything).
  auto& touched = scratch_touched_;
  auto& reads = scratch_reads_;
  touched.clear();
  reads.clear();
  const auto touch = [&](Access& a, bool read) {
    touched.push_back(&a);
    reads.push_back(read);
  };
  const Operation& op = e.op;
  // Memory: first split the byte classes the access covers in part, then touch those inside it
  // (the splits may move classes, so no pointer into them is taken before they are all done).
  auto& granules = scratch_granules_;
  granules.clear();
  if (op.kind == OpKind::kFree) {
    for_each_granule_with_history(memory_, op.object, op.size,
                                  [&](ObjectKey, ByteClasses<Access>& classes, ByteMask bytes) {
                                    classes.split(bytes);
                                    granules.push_back({&classes, 0, bytes});
                                  });
  } else {
    for_each_access(op, [&](ObjectKey g, ByteMask read_only, ByteMask written) {
      auto& classes = memory_[g];
      classes.split(written);
      classes.split(read_only);
      granules.push_back({&classes, read_only, written});
    });
  }
  // Every access to a freed block's bytes comes after the free, read or write.
  if (!freed_.empty())
    FreedBlocks<FreeClock>::for_each_extent(op, [&](ObjectKey start, std::uint64_t size) {
      freed_.for_each_overlapping(start, size, [&](const FreeClock& f) {
        clock.join(f.clock);
        level = std::max(level, f.level);
      });
    });
  for (const GranuleAccess& g : granules) {
    g.classes->for_each(g.written, [&](Access& a) { touch(a, false); });
    g.classes->for_each(g.read_only,
                        [&](Access& a) { touch(a, policy_ == ReadPolicy::kReadsCommute); });
  }
  const bool global = touches_everything(op);
  switch (domain_of(op.kind)) {
    case Domain::kMutex:
      // A failed trylock only observes the mutex; failed trylocks commute with each other.
      touch(mutexes_[op.object], op.kind == OpKind::kMutexTryLock && op.result == 0);
      break;
    case Domain::kCond: {
      // Lost notifications commute with each other and with wakes (cond_footprint).
      const CondFootprint f = cond_footprint(op);
      if (f.waiters != CondFootprint::Waiters::kNone)
        touch(cond_waiters_[op.object], f.waiters == CondFootprint::Waiters::kRead);
      if (f.signals_written) touch(cond_signals_[op.object], false);
      if (op.kind == OpKind::kCondWait || op.kind == OpKind::kCondWake)
        touch(mutexes_[op.partner], false);
      break;
    }
    case Domain::kSemaphore:
      // Posts commute with each other; waits compete for the count.
      touch(sems_[op.object], op.kind == OpKind::kSemPost);
      break;
    case Domain::kFutex:
      // Totally ordered per word: a woken thread comes after the wake that woke it.
      touch(futexes_[op.object], false);
      break;
    case Domain::kChannel:
      // Ordered per channel (a selective wait: on each it watches); and every channel
      // operation reads "all channels", which a selective wait on unknown channels writes
      // (dependence.cpp).
      if (on_every_channel(op)) {
        touch(all_channels_, false);
      } else {
        for_each_channel(op, [&](ObjectKey channel) { touch(channels_[channel], false); });
        touch(all_channels_, true);
      }
      break;
    case Domain::kThread:
      if (op.kind == OpKind::kThreadJoin) {
        const auto joined = static_cast<ThreadId>(op.object);
        PerThread& target = thread(joined);
        clock.join(target.clock);
        level = std::max(level, target.level);
        if (join_covers_end_) clock.set(joined, std::max(clock[joined], target.count + 1));
      }
      break;
    default:
      break;
  }
  if (global) {
    clock.join(all_);
    level = std::max(level, all_level_);
  }
  for (std::size_t i = 0; i < touched.size(); ++i) {
    clock.join(reads[i] ? touched[i]->write : touched[i]->access);
    level = std::max(level, reads[i] ? touched[i]->write_level : touched[i]->access_level);
  }
  PerThread& me = thread(e.thread);  // `self` may have moved if a join resized threads_
  clock.set(e.thread, ++me.count);
  ++level;
  all_.join(clock);
  all_level_ = std::max(all_level_, level);
  if (global) {
    last_global_ = clock;
    last_global_level_ = level;
  }
  if (op.kind == OpKind::kFree) freed_.add(op.object, op.size, FreeClock{clock, level});
  for (std::size_t i = 0; i < touched.size(); ++i) {
    Access& a = *touched[i];
    if (reads[i]) {
      a.access.join(clock);
      a.access_level = std::max(a.access_level, level);
    } else {
      a.write = clock;
      a.access = clock;
      a.write_level = level;
      a.access_level = level;
    }
  }
  if (op.kind == OpKind::kThreadCreate) {
    PerThread& child = thread(static_cast<ThreadId>(op.object));
    PerThread& creator = thread(e.thread);
    child.clock = clock;
    child.level = level;
    creator.clock = std::move(clock);
    creator.level = level;
    last_level_ = level;
    return creator.clock;
  }
  if (op.kind == OpKind::kBufferedStore) buffered_[op.object] = clock;
  PerThread& after = thread(e.thread);
  after.clock = std::move(clock);
  after.level = level;
  last_level_ = level;
  return after.clock;
}

VectorClock ClockTracker::clock_if_executed(const Event& e) {
  // Copying the tracker is the simplest faithful way; it is used only for the few operations
  // still pending when an execution ends.
  ClockTracker copy = *this;
  return copy.add(e);
}

}  // namespace weft
