// ExitBlock and ExitBlock-RW (Bruening and Chapin, bruening-exitblock.txt §4, §5): for programs
// that follow a mutual-exclusion locking discipline, a depth-first search over the orders of
// atomic blocks — a thread's code from one lock exit to the next — instead of over single events.
//
// The paper's tester takes checkpoints and undoes to them; weft's executions are stateless, so a
// node of the search is a schedule prefix up to a block boundary (the checkpoint, "RetPt") with
// the algorithm's sets there, and each execution follows one path of the tree: the prefix, then
// the node's first block, then each running thread on to its next lock exit and, when it ends or
// waits, the lowest enabled thread (the runtime's sticky policy). The strategy walks every trace
// it gets back and decides, block by block, what the algorithm would have done; the runtime's
// choices are only hints. Where the runtime took another turn (a thread the algorithm still
// delays), the path goes on in a new execution from that boundary (a continuation, not a new
// schedule).
//
// Three points where the paper is silent or its figures are read here:
// - Fig. 3 keeps one delayed thread per branch, which with three threads or more drops a thread
//   from the later branches of a node; weft keeps the set of delayed threads as Fig. 6 does, so
//   ExitBlock is ExitBlock-RW in which every two blocks interact.
// - §5.1's intersection test is printed as w1∩w2, r1∩r2, w1∩r2; weft uses the conflict relation
//   (w1∩w2, r1∩w2, w1∩r2): two reads commute, and a delayed block that read what the running one
//   writes must be woken, or an order of the two would be missed.
// - Lock exits are unlocks and condition waits (§4.3, §4.5). Operations the Java setting has only
//   inside monitors end a block too: a join (Thread.join waits on the thread), semaphore,
//   barrier, futex and channel operations, and atomic accesses (each a monitor of its own).
//   A thread whose next operation cannot run ends its block there when that operation is one of
//   these (it waits); when it is a lock enter, the block is undone (§4.4): the path goes on from
//   the block's start with the thread in the lock's block set.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "strategies.hpp"
#include "weft/trace/sync_objects.hpp"

namespace weft::explorer {
namespace {

// A block's reads and writes (§5.1), byte-exact per granule; `everything` when not known.
class AccessSet {
 public:
  void add(const Operation& op) {
    if (touches_everything(op) || (op.kind == OpKind::kAtomicSection && !op.footprint.known)) {
      everything_ = true;
      return;
    }
    for_each_access(op, [&](ObjectKey granule, ByteMask read, ByteMask written) {
      auto& [r, w] = granules_[granule];
      r |= read;
      w |= written;
    });
  }
  void add_segment(const Trace& t, const Segment& s) {
    if (s.opaque) {
      everything_ = true;
      return;
    }
    for (std::uint32_t i = 0; i < s.read_count; ++i) {
      const PlainAccess& a = t.segment_accesses[s.reads_from + i];
      add(Operation{OpKind::kRead, 0, a.size, a.address});
    }
    for (std::uint32_t i = 0; i < s.write_count; ++i) {
      const PlainAccess& a = t.segment_accesses[s.writes_from + i];
      granules_[a.address / kMemoryGranule].second |= a.mask;
    }
  }
  /// An operation on a synchronisation object other than a mutex (`key`: sync_key): a write of
  /// the object. Mutexes order blocks through the block sets (§4.4); what else a block does to
  /// condition variables, semaphores, channels or futexes decides what other blocks see, as its
  /// memory accesses do.
  void add_sync(ObjectKey key) { sync_.insert(key); }
  void make_everything() { everything_ = true; }
  bool everything() const { return everything_; }
  /// The runtime's keys of the granules (sync_key): a delayed block's sleeper wakes at an
  /// operation on one of them. Sooner than the strategy wakes it (at the end of a conflicting
  /// block, and not for two reads), but a thread that wakes inside another's block only waits
  /// for a boundary; where the two disagree the strategy's walk corrects the runtime.
  std::vector<ObjectKey> keys() const {
    std::vector<ObjectKey> k;
    for (const auto& [granule, rw] : granules_) k.push_back(sync_key(Domain::kMemory, granule));
    k.insert(k.end(), sync_.begin(), sync_.end());
    return k;
  }
  /// Whether an order of the two blocks can matter: one writes a byte the other reads or writes.
  bool conflicts_with(const AccessSet& other) const {
    if (everything_ || other.everything_) return true;
    for (ObjectKey key : sync_)
      if (other.sync_.count(key)) return true;
    for (const auto& [granule, rw] : granules_) {
      const auto it = other.granules_.find(granule);
      if (it == other.granules_.end()) continue;
      const auto [r2, w2] = it->second;
      if ((rw.second & (r2 | w2)) || (rw.first & w2)) return true;
    }
    return false;
  }

 private:
  std::map<ObjectKey, std::pair<ByteMask, ByteMask>> granules_;  // read, written
  std::set<ObjectKey> sync_;
  bool everything_ = false;
};

struct DelayedBlock {
  ThreadId thread;
  AccessSet accesses;
};

// A thread taken out of a path because its block needed a mutex another thread held (§4.4, the
// lock's "block set"): it may run again once that mutex is released.
struct BlockedThread {
  ThreadId thread;
  ObjectKey mutex;
};

// The algorithm's sets at a block boundary.
struct BoundaryState {
  std::vector<DelayedBlock> delayed;
  std::vector<BlockedThread> blocked;
};

// A node to explore: the boundary after `prefix`, and the thread whose block runs first.
struct Node {
  std::vector<ThreadId> prefix;
  BoundaryState state;
  ThreadId first = kNoThread;
  bool continuation = false;  // the path in progress goes on (not a new branch of the tree)
  bool witness = false;       // a run into a deadlock the analysis predicted (§6)
};

class ExitBlock final : public Strategy {
 public:
  ExitBlock(const StrategyConfig& config, bool read_write)
      : read_write_(read_write), deadlocks_(config.search_deadlocks), lockset_(config.lockset) {
    Node root;
    root.prefix = config.initial_prefix;
    stack_.push_back(std::move(root));
  }

  std::optional<TestDirective> next() override {
    while (!stack_.empty()) {
      Node node = std::move(stack_.back());
      stack_.pop_back();
      TestDirective d;
      d.prefix = node.prefix;
      d.sleep_from = node.prefix.size();
      if (node.first != kNoThread) d.prefix.push_back(node.first);
      d.policy = SchedulePolicy::kSticky;
      for (const DelayedBlock& b : node.state.delayed)
        d.sleep.push_back(SleepEntry{b.thread, {}, wake_delayed_on(b)});
      for (const BlockedThread& b : node.state.blocked)
        d.sleep.push_back(SleepEntry{b.thread, {}, {sync_key(Domain::kMutex, b.mutex)}});
      running_ = std::move(node);
      return d;
    }
    return std::nullopt;
  }

  void observe(const Trace& t) override {
    if (!running_) return;
    Node node = std::move(*running_);
    running_.reset();
    discipline_broken_ |= std::any_of(t.failures.begin(), t.failures.end(), [](const Failure& f) {
      return f.outcome == Outcome::kLockDiscipline;
    });
    // A segment too large to record hides its accesses from the lockset as well.
    discipline_unseen_ |= std::any_of(t.segments.begin(), t.segments.end(),
                                      [](const Segment& s) { return s.opaque; });
    if (node.witness) return;  // a deadlock, if it was one, is the trace's outcome
    follow_path(t, node);
  }

  std::string gaps() const override { return gaps_; }
  // Its completeness rests on the locking discipline (§4.1), which nothing checks yet (the
  // lockset of issue 43 is to come), and it runs into few deadlocks (reverse lock chain
  // analysis, §6, is to come too).
  // Its completeness rests on the locking discipline (§4.1): checked on every execution with
  // --lockset (the claim stands if it held on all), assumed without; and without --deadlocks
  // it runs into few deadlocks (§6). ExitBlock-RW with the analysis still misses some (§6.1).
  const char* uncovered() const override {
    if (discipline_broken_)
      return "what the program does where it breaks the locking discipline, as --lockset found "
             "(ExitBlock covers every behaviour only of programs that keep it)";
    if (lockset_ && discipline_unseen_)
      return "what the program does where it may break the locking discipline in code --lockset "
             "could not follow (a stretch between two events that touched more memory than "
             "weft records)";
    if (lockset_) {
      if (deadlocks_ && !read_write_) return nullptr;
      if (deadlocks_)
        return "deadlocks that only orders of blocks it prunes lead to (§6.1, Fig. 10; "
               "exitblock --deadlocks finds them)";
      return "most deadlocks (--deadlocks looks for them)";
    }
    if (deadlocks_ && !read_write_)
      return "what a program that breaks the locking discipline does (ExitBlock assumes every "
             "shared variable is accessed with one of its locks held; --lockset checks it)";
    if (deadlocks_)
      return "what a program that breaks the locking discipline does (ExitBlock assumes every "
             "shared variable is accessed with one of its locks held; --lockset checks it), and "
             "deadlocks that only orders of blocks it prunes lead to (§6.1, Fig. 10)";
    return "what a program that breaks the locking discipline does (ExitBlock assumes every "
           "shared variable is accessed with one of its locks held; --lockset checks it), and "
           "most deadlocks (--deadlocks looks for them)";
  }

 private:
  // Basic ExitBlock wakes its delayed threads at the next lock exit; ExitBlock-RW by their
  // read and write sets (AccessSet::keys).
  std::vector<ObjectKey> wake_delayed_on(const DelayedBlock& b) const {
    if (!read_write_ || b.accesses.everything()) return {kWakeAtBlockExit};
    std::vector<ObjectKey> keys = b.accesses.keys();
    if (keys.empty()) keys.push_back(kNeverWake);
    return keys;
  }

  // As the runtime counts them: the end of the process waits until no other thread can run.
  static ThreadSet enabled_at(const Trace& t, std::size_t k) {
    if (k < t.events.size()) return t.enabled[k];
    ThreadSet others, exiting;
    for (const PendingThread& p : t.pending)
      if (p.enabled) (p.op.kind == OpKind::kProcessExit ? exiting : others).insert(p.thread);
    return others.empty() ? exiting : others;
  }

  static ThreadSet choosable(const Trace& t, std::size_t k, const BoundaryState& s) {
    ThreadSet e = enabled_at(t, k);
    for (const DelayedBlock& b : s.delayed) e.erase(b.thread);
    for (const BlockedThread& b : s.blocked) e.erase(b.thread);
    return e;
  }

  static bool ended_at_bug(const Trace& t) {
    return std::any_of(t.failures.begin(), t.failures.end(),
                       [](const Failure& f) { return f.outcome != Outcome::kDataRace; });
  }

  static std::vector<ThreadId> threads_of(const Trace& t, std::size_t steps) {
    std::vector<ThreadId> p;
    p.reserve(steps);
    for (std::size_t i = 0; i < steps; ++i) p.push_back(t.events[i].thread);
    return p;
  }

  // segments_before[i]: the segments of code events[i]'s thread ran just before it.
  static std::vector<std::vector<std::uint32_t>> segments_by_next_event(const Trace& t) {
    std::vector<std::vector<std::uint32_t>> by_event(t.events.size() + 1);
    for (std::uint32_t s = 0; s < t.segments.size(); ++s) {
      const Segment& seg = t.segments[s];
      std::size_t i = seg.after_step + 1;
      while (i < t.events.size() && t.events[i].thread != seg.thread) ++i;
      by_event[i].push_back(s);
    }
    return by_event;
  }

  // Reverse lock chain analysis (§6.1) where `c` cannot take `wanted` after the first `steps`
  // events: from the mutex's owner to the last mutex it held and released, to that mutex's
  // owner, and so on; a chain back to c is a lock cycle some other order of the same blocks
  // runs into. Then a run into it: the prefix without each chain thread's events from its
  // taking of its last mutex on (which another order of the blocks would not have run yet).
  void look_for_lock_cycle(const Trace& t, std::size_t steps, ThreadId c, ObjectKey wanted) {
    std::map<ObjectKey, ThreadId> owner;
    std::map<ThreadId, ObjectKey> last_released;
    std::map<std::pair<ThreadId, ObjectKey>, std::size_t> taken_at;
    for (std::size_t i = 0; i < steps; ++i) {
      const Event& e = t.events[i];
      if (acquires_mutex(e.op)) {
        owner[mutex_of(e.op)] = e.thread;
        taken_at[{e.thread, mutex_of(e.op)}] = i;
      } else if (releases_mutex(e.op)) {
        owner.erase(mutex_of(e.op));
        last_released[e.thread] = mutex_of(e.op);
      }
    }
    std::map<ThreadId, std::size_t> cut_from;  // chain thread -> its first event left out
    ObjectKey mutex = wanted;
    for (std::size_t hops = 0; hops <= owner.size(); ++hops) {
      const auto held = owner.find(mutex);
      if (held == owner.end() || held->second == c || cut_from.count(held->second)) return;
      const ThreadId u = held->second;
      const auto last = last_released.find(u);
      if (last == last_released.end()) return;
      cut_from[u] = taken_at[{u, last->second}];
      const auto next = owner.find(last->second);
      if (next == owner.end()) return;
      if (next->second == c) {
        Node witness;
        for (std::size_t i = 0; i < steps; ++i) {
          const auto cut = cut_from.find(t.events[i].thread);
          if (cut == cut_from.end() || i < cut->second)
            witness.prefix.push_back(t.events[i].thread);
        }
        witness.first = c;
        witness.witness = true;
        stack_.push_back(std::move(witness));
        return;
      }
      mutex = last->second;
    }
  }

  // §6.2: a path that ends with threads in block sets and none delayed ends in a deadlock once
  // they run: a run into it, the blocked thread going on from the end.
  void look_for_condition_deadlock(const Trace& t, std::size_t end, const BoundaryState& s) {
    if (s.blocked.empty() || !s.delayed.empty()) return;
    Node witness{threads_of(t, end), {}, s.blocked.front().thread, false, true};
    stack_.push_back(std::move(witness));
  }

  // Walks the path the trace took from the node's boundary, block by block (Fig. 3, Fig. 6),
  // pushing the branch of each block that ends in a lock exit.
  void follow_path(const Trace& t, const Node& node) {
    const auto segments = segments_by_next_event(t);
    std::size_t k = node.prefix.size();
    BoundaryState state = node.state;
    ThreadId current = kNoThread;
    bool first_block = true;
    for (;;) {
      const ThreadSet e = choosable(t, k, state);
      if (e.empty()) {  // the path is complete (or every thread left waits on a delay)
        if (deadlocks_) look_for_condition_deadlock(t, k, state);
        return;
      }
      const ThreadId c = first_block && node.first != kNoThread ? node.first
                         : e.contains(current)                  ? current
                                                                : e.first();
      if (c == kNoThread || !e.contains(c)) return;
      // The execution ended at a bug (the runtime goes no further after one): so does the path.
      if (k >= t.events.size() && ended_at_bug(t)) return;
      if (k >= t.events.size() || t.events[k].thread != c) {
        // The runtime went another way here (it does not know the delays and block sets the
        // algorithm keeps): the path goes on from this boundary in another execution.
        if (node.continuation && first_block) {
          gaps_ = "ExitBlock could not follow one of its paths; the exploration may be incomplete";
          return;
        }
        stack_.push_back(Node{threads_of(t, k), state, c, true});
        return;
      }
      const std::size_t start = k;
      const BoundaryState at_start = state;
      AccessSet accesses;
      bool exited = false, died = false;
      while (k < t.events.size() && t.events[k].thread == c) {
        const Operation& op = t.events[k].op;
        for (std::uint32_t s : segments[k]) accesses.add_segment(t, t.segments[s]);
        if (domain_of(op.kind) == Domain::kMemory || op.kind == OpKind::kAtomicSection)
          accesses.add(op);
        else if (domain_of(op.kind) != Domain::kMutex)
          for (ObjectKey key : sync_objects(op).list())
            if (key >> 59 != static_cast<ObjectKey>(Domain::kMutex)) accesses.add_sync(key);
        // A behaviour that depended on state the runtime keeps (a read-write lock's readers, a
        // barrier's arrivals) is not in any read or write set: such blocks conflict with all.
        if (t.runtime_state_read) accesses.make_everything();
        const bool finished = t.finished_thread[k];
        ++k;
        if (ends_atomic_block(op)) {
          exited = true;
          break;
        }
        if (op.kind == OpKind::kProcessExit) return;  // the process ended: so did the path
        if (finished) {
          died = true;
          break;
        }
      }
      if (!exited && !died) {
        const std::optional<Operation> next = t.pending_at(k, c);
        const bool failed = std::any_of(t.failures.begin(), t.failures.end(),
                                        [&](const Failure& f) { return f.thread == c; });
        if (failed) {
          // A bug stopped c inside its block, and may have ended the execution: the others'
          // blocks must still get their turn before this one, as at a lock exit (the paper's
          // tester stops at the first failure; weft goes on to find the rest).
          exited = true;
        } else if (!next) {
          died = true;
        } else if (next->kind == OpKind::kProcessExit) {
          return;  // the end of the process, which runs once no other thread can: the path's
        } else if (next->kind == OpKind::kMutexLock) {
          // §4.4: the block cannot finish; undo it and put c in the mutex's block set.
          if (deadlocks_) look_for_lock_cycle(t, k, c, next->object);
          BoundaryState undone = at_start;
          undone.blocked.push_back(BlockedThread{c, next->object});
          const ThreadSet others = choosable(t, start, undone);
          if (!others.empty())
            stack_.push_back(Node{threads_of(t, start), std::move(undone), others.first(), true});
          return;
        } else {
          exited = true;  // it waits (join, semaphore, ...): a lock exit in a monitor
        }
      }
      if (exited) {
        // The branch in which the others run before this block (c delayed).
        ThreadSet others = choosable(t, start, at_start);
        others.erase(c);
        if (!others.empty()) {
          Node branch{threads_of(t, start), at_start, others.first(), false};
          branch.state.delayed.push_back(DelayedBlock{c, accesses});
          if (!read_write_) branch.state.delayed.back().accesses.make_everything();
          stack_.push_back(std::move(branch));
        }
        if (!read_write_) accesses.make_everything();
        std::erase_if(state.delayed,
                      [&](const DelayedBlock& d) { return d.accesses.conflicts_with(accesses); });
        const Operation& last = t.events[k - 1].op;
        if (gives_mutex(last.kind))
          std::erase_if(state.blocked,
                        [&](const BlockedThread& b) { return b.mutex == mutex_of(last); });
      }
      current = c;
      first_block = false;
    }
  }

  bool read_write_;
  bool deadlocks_;  // ExitBlock-DD and -RWDD (§6)
  bool lockset_;    // the discipline is checked on every execution (--lockset)
  bool discipline_broken_ = false;
  bool discipline_unseen_ = false;  // some accesses were not recorded for the check
  std::vector<Node> stack_;
  std::optional<Node> running_;
  std::string gaps_;
};

}  // namespace

WEFT_STRATEGY_ROWS(exitblock,
                   {"exitblock",
                    "ExitBlock: orders of atomic blocks, for lock-disciplined programs "
                    "(Bruening and Chapin §4)",
                    70, ReadPolicy::kReadsCommute, kSearchesDeadlocks,
                    [](const StrategyConfig& config) {
                      return std::unique_ptr<Strategy>(std::make_unique<ExitBlock>(config, false));
                    }},
                   {"exitblock-rw",
                    "ExitBlock-RW: ExitBlock pruned by the blocks' reads and writes (§5)", 71,
                    ReadPolicy::kReadsCommute, kSearchesDeadlocks,
                    [](const StrategyConfig& config) {
                      return std::unique_ptr<Strategy>(std::make_unique<ExitBlock>(config, true));
                    }})

}  // namespace weft::explorer
