// Optimal DPOR (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014, Algorithm 2; cited in thesis §1.1):
// sleep sets plus wakeup trees, so that every Mazurkiewicz trace is explored by exactly one
// complete execution. After each execution, every reversible race e ⋖ e' yields the sequence
// v = notdep(e, E).e'; unless a thread asleep before e is an initial of v (or a weak initial whose
// next operation cannot block), v goes into the wakeup tree of the node before e. (The paper
// skips v whenever a sleeper is a *weak* initial; with a sleeper that may block, that loses
// traces, see reverse(). The stricter test costs some sleep-set-blocked executions on lock-heavy
// programs: docs/dependence.md.)
#include <algorithm>
#include <map>
#include <unordered_map>
#include <vector>

#include "strategies.hpp"
#include "wakeup_tree.hpp"
#include "weft/trace/byte_classes.hpp"
#include "weft/trace/clock_tracker.hpp"
#include "weft/trace/freed_blocks.hpp"

namespace weft::explorer {
namespace {

constexpr ReadPolicy kPolicy = ReadPolicy::kReadsCommute;

/// Per-object history needed to find the events an event can be in a reversible race with.
class RaceCandidates {
 public:
  /// The earlier events that `e` may race with, given the events added so far, into `out`
  /// (a buffer the caller keeps: this runs for every new event).
  void of(const Event& e, std::vector<std::size_t>& out) const {
    out.clear();
    const Operation& op = e.op;
    // An exit runs only when no other thread can (the scheduler holds it back), so it races
    // only with another thread's exit: with both pending at the end, either may end the process.
    if (op.kind == OpKind::kProcessExit) {
      if (last_exit_ != kNone && last_exit_thread_ != e.thread) out.push_back(last_exit_);
      return;
    }
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
      case Domain::kCond:
        if (op.kind == OpKind::kCondWake) {
          push(last_wake_, op.object);
          push(last_acquire_, op.partner);
        } else {
          push(last_cond_, op.object);
          if (op.kind == OpKind::kCondWait)
            if (auto it = failed_trylocks_.find(op.partner); it != failed_trylocks_.end())
              out.insert(out.end(), it->second.begin(), it->second.end());
        }
        break;
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
      default:
        break;
    }
    // One event can be a candidate for two reasons (an exit is also the last global event);
    // a duplicate would count as "another predecessor" and hide the race.
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }

  void add(std::size_t index, const Event& e) {
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
      case Domain::kCond:
        if (op.kind == OpKind::kCondWake) {
          last_wake_[op.object] = index;
          last_acquire_[op.partner] = index;
          failed_trylocks_[op.partner].clear();
        } else {
          last_cond_[op.object] = index;
        }
        break;
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
      default:
        break;
    }
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  struct Access {
    std::size_t last_write = kNone;
    std::vector<std::size_t> reads_since;
  };
  std::unordered_map<ObjectKey, ByteClasses<Access>> memory_;  // by granule, exact to the byte
  FreedBlocks<std::size_t> freed_;  // frees, for granules without a history when they ran
  std::unordered_map<ObjectKey, std::size_t> last_futex_;
  std::unordered_map<ObjectKey, std::size_t> last_acquire_, last_wake_, last_cond_, last_sem_wait_,
      last_failed_trywait_;
  std::vector<std::size_t> last_of_thread_;
  std::size_t last_global_ = kNone;  // the last footprint-less atomic section
  ThreadId last_global_thread_ = kNoThread;
  std::size_t last_exit_ = kNone;
  ThreadId last_exit_thread_ = kNoThread;
  std::unordered_map<ObjectKey, std::vector<std::size_t>> failed_trylocks_;
  std::unordered_map<ObjectKey, std::vector<std::size_t>> posts_since_wait_;
};

class OptimalDpor final : public Strategy {
 public:
  explicit OptimalDpor(const StrategyConfig& config) : initial_prefix_(config.initial_prefix) {}

  std::optional<TestDirective> next() override {
    TestDirective d;
    d.read_policy = kPolicy;
    if (!started_) {
      started_ = true;
      d.prefix = initial_prefix_;
      return d;
    }
    while (!nodes_.empty()) {
      const std::size_t i = nodes_.size() - 1;
      Node& n = nodes_[i];
      // The other sides of the input branches of this step come first: they are below the
      // current choice (thesis §2.4), and their subtrees have their own races.
      if (auto inputs = inputs_.flip_in_step(i + 1)) {
        for (std::size_t k = 0; k <= i; ++k) d.prefix.push_back(nodes_[k].chosen.thread);
        d.sleep_from = i;
        d.sleep = n.sleep;
        d.inputs = std::move(*inputs);
        branch_ = i;
        return d;
      }
      if (!n.wakeup.empty()) {
        const auto asleep = [&n](ThreadId t) {
          return std::any_of(n.sleep.begin(), n.sleep.end(),
                             [t](const SleepEntry& e) { return e.thread == t; });
        };
        // The branch explored last is done: its thread sleeps for the siblings.
        if (!asleep(n.chosen.thread)) n.sleep.push_back({n.chosen.thread, n.chosen.op});
        taken_ = n.wakeup.take_first();
        // A branch starting with a sleeping thread is covered already. This only happens when
        // a race was over-approximated (condition variables, semaphores: docs/dependence.md).
        if (asleep(taken_->event.thread)) {
          taken_.reset();
          continue;
        }
        for (std::size_t k = 0; k < i; ++k) d.prefix.push_back(nodes_[k].chosen.thread);
        for (const WakeupTree::Node* w = taken_.get(); w;
             w = w->children.empty() ? nullptr : w->children.front().get())
          d.prefix.push_back(w->event.thread);
        d.sleep_from = i;
        d.sleep = n.sleep;
        // The inputs of the execution whose race planned the branch: they take the path on which
        // the sequence reverses the race. Both they and the current inputs follow the current
        // path up to here.
        d.inputs = taken_->inputs ? *taken_->inputs : inputs_.current_inputs();
        if (!taken_->inputs)
          taken_->inputs = std::make_shared<const std::vector<InputValue>>(d.inputs);
        kept_steps_ = i + 1;
        branch_ = i;
        return d;
      }
      nodes_.pop_back();
    }
    // The branches main took before its first operation.
    if (auto inputs = inputs_.flip_in_step(0)) {
      d.inputs = std::move(*inputs);
      return d;
    }
    return std::nullopt;
  }

  const InputStatistics* input_statistics() const override { return &inputs_.statistics(); }

  void observe(const Trace& trace) override {
    const auto& ev = trace.events;
    std::size_t start = 0;
    WakeupTree::Node* path = nullptr;
    std::vector<std::unique_ptr<WakeupTree::Node>> keep_alive;
    if (!nodes_.empty()) {
      nodes_.resize(branch_ + 1);
      // If the planned event could not run (an over-approximated race, see docs/dependence.md),
      // the planned thread still goes to sleep here, so the same branch is never planned again.
      const bool ran = branch_ < ev.size() && taken_ && taken_->event.thread == ev[branch_].thread;
      if (taken_ && !ran) nodes_[branch_].sleep.push_back({taken_->event.thread, taken_->event.op});
      if (branch_ < ev.size()) {
        nodes_[branch_].chosen = ev[branch_];
        start = branch_ + 1;
        if (ran) path = taken_.get();
      } else {
        start = ev.size();
      }
    }
    for (std::size_t k = start; k < ev.size(); ++k) {
      Node n;
      n.enabled = trace.enabled[k];
      n.chosen = ev[k];
      if (k > 0) {
        const Node& parent = nodes_[k - 1];
        for (const auto& s : parent.sleep)
          if (!dependent(parent.chosen, Event{s.thread, s.op}, kPolicy)) n.sleep.push_back(s);
      }
      // Still inside the wakeup-tree branch being followed: its other subtrees are this node's.
      if (path && !path->children.empty() && path->children.front()->event.thread == ev[k].thread) {
        keep_alive.push_back(std::move(path->children.front()));
        path->children.erase(path->children.begin());
        // The branches below keep the inputs they were planned with (those of the branch taken,
        // when they have none of their own).
        for (auto& child : path->children)
          if (!child->inputs) child->inputs = path->inputs;
        if (!keep_alive.back()->inputs) keep_alive.back()->inputs = path->inputs;
        n.wakeup.adopt(std::move(path->children));
        path = keep_alive.back().get();
      } else {
        path = nullptr;
      }
      nodes_.push_back(std::move(n));
    }
    taken_.reset();
    if (!trace.symbolic.branches.empty()) branched_on_inputs_ = true;
    inputs_.observe(trace, kept_steps_);
    kept_steps_ = 0;
    observed_inputs_.reset();
    find_races(trace, nodes_.empty() || start == 0 ? 0 : std::min(branch_, start));
  }

 private:
  struct Node {
    ThreadSet enabled;
    Event chosen;
    std::vector<SleepEntry> sleep;
    WakeupTree wakeup;  // branches still to explore from this node (not the current one)
  };

  // Races are looked for only among the events after `first_new` (those before ran in the
  // execution before too, and their races were scheduled then), but the clocks and race
  // candidates those events are checked against cover every event. They are computed from the
  // latest checkpoint at or before `first_new`: the tracker and candidates as they were before
  // the event at that depth, kept from an earlier execution whose events up to there were the
  // same. One is kept per depth the exploration branched at, so that going on from a branch
  // point costs the events after it, not the whole execution (Locking 4: 24 of 82 events).
  void find_races(const Trace& trace, std::size_t first_new) {
    const auto& ev = trace.events;
    const std::size_t n = ev.size();
    while (live_ > 0 && checkpoints_[live_ - 1].depth > first_new) --live_;
    // Copies by assignment, into structures kept from the last execution: their hash tables
    // reuse the nodes they have instead of allocating (this copy is made once per execution).
    ClockTracker& tracker = tracker_;
    RaceCandidates& candidates = candidates_;
    std::size_t from = 0;
    if (live_ > 0) {
      tracker = checkpoints_[live_ - 1].tracker;
      candidates = checkpoints_[live_ - 1].candidates;
      from = checkpoints_[live_ - 1].depth;
    } else {
      tracker = ClockTracker(kPolicy);
      candidates = RaceCandidates();
    }
    // Events before `from` keep the clocks the last executions gave them.
    auto& clocks = clocks_;
    auto& local = local_;
    clocks.resize(n);
    local.resize(n);
    const auto check = [&](const Event& later, std::size_t later_index, const VectorClock& before) {
      std::vector<std::size_t>& cands = candidates_of_;
      candidates.of(later, cands);
      for (std::size_t c = 0; c < cands.size(); ++c) {
        const std::size_t i = cands[c];
        if (ev[i].thread == later.thread) continue;
        if (before.covers(ev[i].thread, local[i])) continue;
        bool via_other = false;  // e happens before another immediate predecessor of e'
        for (std::size_t o = 0; o < cands.size() && !via_other; ++o)
          via_other = o != c && clocks[cands[o]].covers(ev[i].thread, local[i]);
        if (!via_other) reverse(i, later, later_index, clocks, local, ev);
      }
    };
    for (std::size_t j = from; j < n; ++j) {
      if (j == first_new && first_new > 0 && (live_ == 0 || checkpoints_[live_ - 1].depth < j)) {
        if (live_ == checkpoints_.size()) {
          checkpoints_.push_back({j, tracker, candidates});
        } else {
          Checkpoint& c = checkpoints_[live_];
          c.depth = j;
          c.tracker = tracker;
          c.candidates = candidates;
        }
        ++live_;
      }
      if (j >= first_new) check(ev[j], j, tracker.thread_clock(ev[j].thread));
      candidates.add(j, ev[j]);
      clocks[j] = tracker.add(ev[j]);
      local[j] = tracker.thread_count(ev[j].thread);
    }
    for (const auto& p : trace.pending) {
      const Event e{p.thread, p.op};
      check(e, n, tracker.thread_clock(p.thread));
    }
  }

  /// Schedules the reversal of the race between events[i] and `later` (at `later_index`).
  void reverse(std::size_t i, const Event& later, std::size_t later_index,
               const std::vector<VectorClock>& clocks, const std::vector<std::uint32_t>& local,
               const std::vector<Event>& ev) {
    std::vector<Event> v;
    for (std::size_t k = i + 1; k < later_index; ++k)
      if (!clocks[k].covers(ev[i].thread, local[i])) v.push_back(ev[k]);
    v.push_back(later);
    // A sleeping thread covers v only if it occurs in v as an initial. The paper (Algorithm 2,
    // line 6) also skips when the sleeping thread is merely a weak initial (absent from v, its next
    // event independent of v). With blocking locks that loses traces: the continuations of v in
    // which another thread's dependent event precedes the sleeper's are not covered by its sleep
    // entry, and no other race reaches them (tests/counts_test.cpp, lock chain and Dining 2;
    // Dining 2-4 in bench/thesis missed 6, 183 and 2,082 traces).
    // A sleeper whose next operation can never be disabled (it does not block) is the paper's
    // case: as a weak initial it covers v, since it stays enabled and commutes to the front of
    // every continuation of v (seed 115277 of the differential test ran a sleep-set-blocked
    // execution without this). Not once the program has branched on inputs: the continuations
    // of v then include other input paths, and the inputs differential test loses traces with it
    // (seeds 329 and 689); without it a sleep-set-blocked execution may be run, never a trace
    // twice.
    for (const auto& s : nodes_[i].sleep)
      if (initial(s.thread, v, kPolicy) || (!branched_on_inputs_ && !may_block(s.op.kind) &&
                                            weak_initial(s.thread, s.op, v, kPolicy)))
        return;  // explored already
    // The branch being explored is conceptually the leftmost branch of every wakeup tree on the
    // current path: where its event is a weak initial of v, insertion continues below it.
    std::size_t k = i;
    while (k < nodes_.size() &&
           weak_initial(nodes_[k].chosen.thread, nodes_[k].chosen.op, v, kPolicy)) {
      const ThreadId p = nodes_[k].chosen.thread;
      auto it = std::find_if(v.begin(), v.end(), [p](const Event& e) { return e.thread == p; });
      if (it != v.end()) v.erase(it);
      if (v.empty()) return;
      ++k;
    }
    if (k >= nodes_.size()) return;  // the current execution already covers v
    if (!observed_inputs_)
      observed_inputs_ = std::make_shared<const std::vector<InputValue>>(inputs_.current_inputs());
    nodes_[k].wakeup.insert(std::move(v), kPolicy, observed_inputs_);
  }

  struct Checkpoint {
    std::size_t depth;  ///< the state before the event at this index
    ClockTracker tracker;
    RaceCandidates candidates;
  };
  /// By increasing depth, all on the current path: the first `live_`; the others are kept to be
  /// assigned to (reusing their memory).
  std::vector<Checkpoint> checkpoints_;
  std::size_t live_ = 0;
  ClockTracker tracker_{kPolicy};  ///< find_races' state, kept to reuse its memory
  RaceCandidates candidates_;
  std::vector<std::size_t> candidates_of_;  ///< find_races' buffer for RaceCandidates::of
  std::vector<VectorClock> clocks_;         ///< of each event of the current execution
  std::vector<std::uint32_t> local_;        ///< its number among its thread's events
  std::vector<Node> nodes_;
  std::vector<ThreadId> initial_prefix_;
  std::unique_ptr<WakeupTree::Node> taken_;
  InputPaths inputs_;
  std::size_t kept_steps_ = 0;       // steps the last directive shares with the execution before
  bool branched_on_inputs_ = false;  // some execution so far branched on an input
  // The inputs of the execution being analysed, shared by the branches its races plan.
  std::shared_ptr<const std::vector<InputValue>> observed_inputs_;
  bool started_ = false;
  std::size_t branch_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_optimal_dpor(const StrategyConfig& config) {
  return std::make_unique<OptimalDpor>(config);
}

}  // namespace weft::explorer
