// The contextual unfolding built from executions (explorer/unfolding.hpp): the thesis' example
// of §5.3, and against the exploration's happens-before (vector clocks, reads commute) on random
// executions: the order the unfolding puts on an execution's events is happens-before, two
// interleavings of one Mazurkiewicz trace model the same events.
#include "weft/explore/unfolding.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "weft/explore/blocked_markings.hpp"
#include "weft/explore/deadlock_search.hpp"
#include "weft/explore/possible_extensions.hpp"
#include "weft/trace/clock_tracker.hpp"
#include "weft/trace/foata.hpp"

namespace weft::explorer {
namespace {

Event op(ThreadId thread, OpKind kind, ObjectKey object) {
  Event e;
  e.thread = thread;
  e.op.kind = kind;
  e.op.object = object;
  e.op.size = domain_of(kind) == Domain::kMemory ? kMemoryGranule : 0;  // whole granules
  return e;
}

std::vector<Unfolding::Fired> model(Unfolding& u, const std::vector<Event>& execution) {
  Unfolding::Marking m;
  std::vector<Unfolding::Fired> fired;
  for (const Event& e : execution) fired.push_back(u.fire(m, e));
  return fired;
}

std::size_t added(const std::vector<Unfolding::Fired>& fired) {
  std::size_t n = 0;
  for (const auto& f : fired) n += f.added;
  return n;
}

// Two 4-byte variables in one 8-byte granule are two memory places once their accesses are
// learned: the writes of two threads to them are concurrent (one event each, whatever the
// order), as the exploration's byte-exact dependence has them. A later 8-byte access of the
// granule splits nothing; a 2-byte one splits a place that has conditions, which learn_places
// reports (the strategy starts over).
TEST(Unfolding, NeighbouringVariablesOfAGranuleAreSeparatePlaces) {
  constexpr ObjectKey kX = 0x1000, kY = 0x1004;
  Event wx = op(1, OpKind::kWrite, kX), wy = op(2, OpKind::kWrite, kY);
  wx.op.size = wy.op.size = 4;
  Unfolding u;
  EXPECT_FALSE(u.learn_places(wx.op));
  EXPECT_FALSE(u.learn_places(wy.op));
  const auto places = u.places_in(kX / kMemoryGranule);
  ASSERT_EQ(places.size(), 2u);
  EXPECT_EQ(places[0], (std::pair<ObjectKey, unsigned>{kX, 4}));
  EXPECT_EQ(places[1], (std::pair<ObjectKey, unsigned>{kY, 4}));
  EXPECT_EQ(added(model(u, {wx, wy})), 2u);
  EXPECT_EQ(added(model(u, {wy, wx})), 0u);  // the same two events
  EXPECT_TRUE(u.concurrent({u.event(0).postset[1], u.event(1).postset[1]}));
  EXPECT_TRUE(u.naive_possible_extensions().empty());
  Event whole = op(1, OpKind::kRead, kX);  // 8 bytes: both places
  EXPECT_FALSE(u.learn_places(whole.op));
  EXPECT_EQ(u.touches(1, whole.op).size(), 2u);
  Event half = wx;
  half.op.size = 2;
  EXPECT_TRUE(u.learn_places(half.op));
  EXPECT_EQ(u.places_in(kX / kMemoryGranule).size(), 3u);
  // The same accesses in one granule-sized place would have ordered the writes.
  Unfolding coarse;
  EXPECT_EQ(added(model(coarse, {wx, wy})), 2u);
  EXPECT_EQ(added(model(coarse, {wy, wx})), 2u);
}

// Thesis Fig. 5.1 and 5.4: thread 1 and thread 3 read X, thread 2 writes it. The executions 1, 2,
// 3 and 3, 2, 1 cover the contextual unfolding: one write event, and each read before and after
// it, 5 events; no other interleaving adds one (the place-replicated unfolding of Fig. 5.1 needs
// more events and four tests).
TEST(Unfolding, ThesisFigure5_4_TwoTestsCoverItWithOneWriteEvent) {
  constexpr ObjectKey kX = 0x1000;
  Unfolding u;
  const Event r1 = op(1, OpKind::kRead, kX), w2 = op(2, OpKind::kWrite, kX),
              r3 = op(3, OpKind::kRead, kX);
  EXPECT_EQ(added(model(u, {r1, w2, r3})), 3u);
  // What is left: thread 3 reading X before the write, thread 1 after it (§5.4).
  const auto extensions = u.naive_possible_extensions();
  ASSERT_EQ(extensions.size(), 2u);
  for (const auto& x : extensions) EXPECT_TRUE(x.thread == 1 || x.thread == 3);
  EXPECT_NE(extensions[0].thread, extensions[1].thread);
  const auto second = model(u, {r3, w2, r1});
  EXPECT_TRUE(u.naive_possible_extensions().empty());
  EXPECT_EQ(added(second), 2u);
  EXPECT_FALSE(second[1].added);  // the write: the same event, its reads before it do not matter
  EXPECT_EQ(u.events(), 5u);
  for (const auto& order : std::vector<std::vector<Event>>{
           {r1, r3, w2}, {r3, r1, w2}, {w2, r1, r3}, {w2, r3, r1}, {r1, w2, r3}})
    EXPECT_EQ(added(model(u, order)), 0u);
  // The read before the write observes the condition the write consumes: r ↗ w, no causality.
  const EventIndex read_before = second[0].event, write = second[1].event,
                   read_after = second[2].event;
  EXPECT_TRUE(u.asymmetric_conflict(read_before, write));
  EXPECT_FALSE(u.causes(read_before, write));
  EXPECT_TRUE(u.causes(write, read_after));
  EXPECT_EQ(u.local_configuration(read_after), (std::vector<EventIndex>{write, read_after}));
  // A test reaching thread 3's read before the write and thread 1's after it: the read before
  // goes first, although it was added after the write.
  EXPECT_GT(read_before, write);
  EXPECT_EQ(u.schedule_of({write, read_after, read_before}),
            (std::vector<EventIndex>{read_before, write, read_after}));
}

// Thesis Fig. 5.1 with place replication (§3.2, §5.1): the same program, each thread with its
// own copy of X. A read takes its thread's copy only; the write takes all three, so it is a
// different event for each set of reads before it (none, thread 1's, thread 3's, both: 4), and
// each read comes before the write (1) or after one of the two writes it did not precede (2):
// 10 events where the contextual unfolding has 5, and one write event per test (four tests).
TEST(Unfolding, ThesisFigure5_1_PlaceReplicationHasAWriteEventPerSetOfReadsBeforeIt) {
  constexpr ObjectKey kX = 0x1000;
  Unfolding u(UnfoldingModel::kPlaceReplication);
  u.set_copy_holders({1, 2, 3});
  const Event r1 = op(1, OpKind::kRead, kX), w2 = op(2, OpKind::kWrite, kX),
              r3 = op(3, OpKind::kRead, kX);
  std::vector<Event> order{r1, w2, r3};
  std::sort(order.begin(), order.end(),
            [](const Event& a, const Event& b) { return a.thread < b.thread; });
  std::set<EventIndex> writes;
  do {
    const auto fired = model(u, order);
    for (std::size_t i = 0; i < order.size(); ++i)
      if (order[i].thread == 2) writes.insert(fired[i].event);
  } while (std::next_permutation(order.begin(), order.end(), [](const Event& a, const Event& b) {
    return a.thread < b.thread;
  }));
  EXPECT_EQ(writes.size(), 4u);
  EXPECT_EQ(u.events(), 10u);
  EXPECT_TRUE(u.naive_possible_extensions().empty());
  // Reads of different threads take different copies: they are concurrent (Fig. 3.8), whatever
  // order a test ran them in.
  Unfolding v(UnfoldingModel::kPlaceReplication);
  v.set_copy_holders({1, 3});
  const auto both = model(v, {r1, r3});
  EXPECT_FALSE(v.causes(both[0].event, both[1].event));
  EXPECT_FALSE(v.asymmetric_conflict(both[0].event, both[1].event));
  EXPECT_EQ(added(model(v, {r3, r1})), 0u);
}

// Thesis Example 9 (Fig. 3.1, 3.10): n pairs of threads, the first of each reading its own
// variable and the second writing it. The execution with every read first and the one with every
// write first model every event: each of the 2^n traces then adds none. (Pairs of 20 threads:
// 2 tests for about a million traces; here every trace is checked for n up to 6, and the two
// tests for n = 20.)
TEST(Unfolding, ThesisExample9_PairsNeedTwoTestsForEveryN) {
  for (unsigned n : {1u, 2u, 4u, 6u, 20u}) {
    const auto read = [](unsigned pair) {
      return op(2 * pair, OpKind::kRead, 0x1000 + kMemoryGranule * pair);
    };
    const auto write = [](unsigned pair) {
      return op(2 * pair + 1, OpKind::kWrite, 0x1000 + kMemoryGranule * pair);
    };
    Unfolding u;
    std::vector<Event> reads_first, writes_first;
    for (unsigned i = 0; i < n; ++i) {
      reads_first.push_back(read(i));
      reads_first.push_back(write(i));
      writes_first.push_back(write(i));
      writes_first.push_back(read(i));
    }
    EXPECT_EQ(added(model(u, reads_first)), 2 * n);
    if (n <= 6) {
      EXPECT_EQ(u.naive_possible_extensions().size(), n);  // each read after its write
    }
    EXPECT_EQ(added(model(u, writes_first)), n);  // those reads; the writes are known
    if (n <= 6) {
      EXPECT_TRUE(u.naive_possible_extensions().empty());
    }
    EXPECT_EQ(u.events(), 3 * n);
    if (n > 6) continue;
    for (unsigned trace = 0; trace < (1u << n); ++trace) {
      std::vector<Event> execution;
      for (unsigned i = 0; i < n; ++i) {
        const bool read_first = (trace >> i) & 1;
        execution.push_back(read_first ? read(i) : write(i));
        execution.push_back(read_first ? write(i) : read(i));
      }
      EXPECT_EQ(added(model(u, execution)), 0u) << "n " << n << ", trace " << trace;
    }
  }
}

TEST(Unfolding, ACreatedThreadStartsFromItsCreationAndAJoinObservesTheJoinedThread) {
  Unfolding u;
  Event create = op(0, OpKind::kThreadCreate, 0);
  create.op.object = 1;
  Event join = op(0, OpKind::kThreadJoin, 0);
  join.op.object = 1;
  const auto fired =
      model(u, {create, op(1, OpKind::kWrite, 0x10), join, op(0, OpKind::kRead, 0x10)});
  EXPECT_TRUE(u.causes(fired[0].event, fired[1].event));  // the child's write after its creation
  EXPECT_TRUE(u.causes(fired[1].event, fired[2].event));  // the join after the child's last event
  EXPECT_EQ(u.local_configuration(fired[3].event).size(), 4u);
}

// Thesis §6.3 with joins: main creates a thread, takes mutex m and joins the thread, which
// wants m. Each waits for the other (main for the thread's end, the thread for m): a cycle the
// search finds, though no mutex cycle is in it. Without m held, the join is no deadlock.
TEST(Unfolding, ThesisSection6_3_AJoinOfAThreadWaitingForAHeldMutexIsADeadlock) {
  constexpr ObjectKey kM = 0x40;
  for (const bool held : {true, false}) {
    Unfolding u;
    Event create = op(0, OpKind::kThreadCreate, 0);
    create.op.object = 1;
    std::vector<Event> execution{create};
    if (held) execution.push_back(op(0, OpKind::kMutexLock, kM));
    const auto fired = model(u, execution);
    const ConditionIndex main_at = u.event(fired.back().event).postset.front();
    const ConditionIndex child_at = u.event(fired.front().event).postset.back();
    Event join = op(0, OpKind::kThreadJoin, 0);
    join.op.object = 1;
    const Unfolding::NextOperations next{{main_at, join.op},
                                         {child_at, op(1, OpKind::kMutexLock, kM).op}};
    std::unordered_map<ConditionIndex, std::vector<ObjectKey>> holding;
    if (held) holding[main_at] = {kM};
    const DeadlockCandidates found = find_deadlocks(u, {&holding, &next});
    if (held) {
      ASSERT_EQ(found.sets.size(), 1u);
      EXPECT_EQ(found.sets[0], (std::vector<ConditionIndex>{std::min(main_at, child_at),
                                                            std::max(main_at, child_at)}));
    } else {
      EXPECT_TRUE(found.sets.empty());
    }
  }
}

// What find_blocked_markings reads besides the unfolding: nothing recorded (no inputs).
struct EmptyRecord {
  std::vector<std::uint64_t> sites;
  std::unordered_map<EventIndex, AccessValues> written;
  std::unordered_map<EventIndex, symbolic::ExprId> written_expressions;
  symbolic::ExpressionPool pool;
  std::unordered_map<EventIndex, symbolic::Constraint> branch_constraints;
  UnfoldingRecord of(const Unfolding& u) const {
    UnfoldingRecord r;
    r.unfolding = &u;
    r.sites = &sites;
    r.written = &written;
    r.written_expressions = &written_expressions;
    r.pool = &pool;
    r.branch_constraints = &branch_constraints;
    return r;
  }
};

// Thesis §6.2 (D1-D4) with semaphores: threads 1 and 2 wait on s, thread 3 posts it once. The
// unfolding of the execution in which 3 posts and 1 waits: thread 2, blocked at its wait, has no
// event. The marking with 1 and 3 ended and 2 at its wait is a deadlock (nothing can fire); the
// one with 1 and 2 at their waits and 3 ended is not (1's wait is enabled), nor any with 3 before
// its post (it can run). Known, the deadlock is not found again.
TEST(Unfolding, ThesisSection6_2_AThreadWaitingOnASemaphoreNoOneWillPostIsADeadlock) {
  constexpr ObjectKey kS = 0x50;
  Unfolding u;
  const auto fired = model(u, {op(3, OpKind::kSemPost, kS), op(1, OpKind::kSemWait, kS)});
  const ConditionIndex three_end = u.event(fired[0].event).postset.front();
  const ConditionIndex one_end = u.event(fired[1].event).postset.front();
  const ConditionIndex one_start = u.event(fired[1].event).preset.front();
  const ConditionIndex three_start = u.event(fired[0].event).preset.front();
  const Operation wait = op(1, OpKind::kSemWait, kS).op;
  // Thread 2's first condition, as the blocked test showed it.
  Unfolding::Marking m;
  const ConditionIndex two_start = u.marked(m, ConditionKind::kThread, 2);
  const Unfolding::NextOperations next{{three_start, op(3, OpKind::kSemPost, kS).op},
                                       {three_end, std::nullopt},
                                       {one_start, wait},
                                       {one_end, std::nullopt},
                                       {two_start, wait}};
  const EmptyRecord record;
  symbolic::Solver solver;
  const BlockedMarkings found = find_blocked_markings(record.of(u), next, {}, solver, 10);
  ASSERT_EQ(found.sets.size(), 1u);
  std::vector<ConditionIndex> expected{one_end, two_start, three_end};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(found.sets[0], expected);
  EXPECT_TRUE(found.complete);
  EXPECT_FALSE(found.more);
  EXPECT_TRUE(find_blocked_markings(record.of(u), next, {expected}, solver, 10).sets.empty());
}

// With a condition variable: thread 2 signals before thread 1 waits, so the signal is lost and
// 1 waits for good (the execution ends there, 1's wake pending). Where 1 waits first and 2's
// signal wakes it (a second execution), the wake is enabled: no deadlock. A timed wait is none.
TEST(Unfolding, ThesisSection6_2_AWaitAfterTheOnlySignalIsADeadlockATimedOneIsNot) {
  constexpr ObjectKey kM = 0x60, kC = 0x70;
  for (const bool timed : {false, true}) {
    Unfolding u;
    Event cond_wait = op(1, OpKind::kCondWait, kC);
    cond_wait.op.partner = kM;
    cond_wait.op.timed = timed;
    Event wake = op(1, OpKind::kCondWake, kC);
    wake.op.partner = kM;
    wake.op.timed = timed;
    wake.op.result = 1;
    const Event lock = op(1, OpKind::kMutexLock, kM), signal = op(2, OpKind::kCondSignal, kC);
    const auto lost = model(u, {signal, lock, cond_wait});
    const auto woken = model(u, {lock, cond_wait, signal, wake});
    const ConditionIndex waiting = u.event(lost[2].event).postset.front();
    const ConditionIndex waiting_first = u.event(woken[1].event).postset.front();
    Unfolding::NextOperations next;
    Operation pending = wake.op;
    pending.result = 0;
    for (const auto* execution : {&lost, &woken})
      for (const auto& f : *execution) {
        const UnfoldingEvent& ev = u.event(f.event);
        next[ev.preset.front()] = ev.op;
        if (!next.count(ev.postset.front())) next[ev.postset.front()] = std::nullopt;
      }
    next[waiting] = pending;
    next[waiting_first] = pending;
    const EmptyRecord record;
    symbolic::Solver solver;
    const BlockedMarkings found = find_blocked_markings(record.of(u), next, {}, solver, 10);
    if (timed) {
      EXPECT_TRUE(found.sets.empty());
      continue;
    }
    ASSERT_EQ(found.sets.size(), 1u);
    const ConditionIndex signalled = u.event(lost[0].event).postset.front();
    EXPECT_EQ(found.sets[0], (std::vector<ConditionIndex>{std::min(waiting, signalled),
                                                          std::max(waiting, signalled)}));
  }
}

// A random program: 2-3 threads, each a few reads and writes of 3 variables and blocks of them
// under one of 2 mutexes; with `conds`, also signals and broadcasts of a condition variable and
// waits on it under the first mutex. And a random execution of it (a thread runs when its next
// operation is enabled).
struct RandomProgram {
  std::vector<std::vector<Event>> threads;
};

constexpr ObjectKey kCondVar = 0x20, kCondMutex = 0x10;

RandomProgram random_program(std::mt19937& rng, bool conds = false) {
  RandomProgram p;
  const int threads = 2 + static_cast<int>(rng() % 2);
  for (int t = 0; t < threads; ++t) {
    const auto thread = static_cast<ThreadId>(t);
    std::vector<Event> ops;
    const int n = 2 + static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      const auto access = [&] {
        return op(thread, rng() % 2 ? OpKind::kRead : OpKind::kWrite,
                  0x1000 + kMemoryGranule * (rng() % 3));
      };
      const unsigned pick = rng() % (conds ? 6 : 3);
      if (pick == 0) {
        const ObjectKey mutex = 0x10 + rng() % 2;
        ops.push_back(op(thread, OpKind::kMutexLock, mutex));
        ops.push_back(access());
        ops.push_back(op(thread, OpKind::kMutexUnlock, mutex));
      } else if (pick == 3 || pick == 4) {
        ops.push_back(
            op(thread, rng() % 4 ? OpKind::kCondSignal : OpKind::kCondBroadcast, kCondVar));
      } else if (pick == 5) {
        ops.push_back(op(thread, OpKind::kMutexLock, kCondMutex));
        for (const OpKind kind : {OpKind::kCondWait, OpKind::kCondWake}) {
          ops.push_back(op(thread, kind, kCondVar));
          ops.back().op.partner = kCondMutex;
        }
        ops.push_back(op(thread, OpKind::kMutexUnlock, kCondMutex));
      } else {
        ops.push_back(access());
      }
    }
    p.threads.push_back(std::move(ops));
  }
  return p;
}

// The scheduler's rules for these operations (runtime/sync_state.hpp, written again here as
// the oracle): mutexes, and a condition variable whose signals wait as tokens for the waiters
// that began before them; a notification with every waiter covered is lost (result 1).
struct SyncSimulation {
  std::set<ObjectKey> held;
  std::uint64_t epoch = 0;
  std::vector<std::uint64_t> tokens;
  std::uint32_t waiters = 0;
  std::map<ThreadId, std::uint64_t> wait_epoch;

  bool enabled(const Event& e) const {
    if (e.op.kind == OpKind::kMutexLock) return !held.count(e.op.object);
    if (e.op.kind == OpKind::kCondWake)
      return !held.count(e.op.partner) && !tokens.empty() &&
             tokens.back() > wait_epoch.at(e.thread);
    return true;
  }
  // `e` as it runs (with its result).
  Event apply(Event e) {
    switch (e.op.kind) {
      case OpKind::kMutexLock:
        held.insert(e.op.object);
        break;
      case OpKind::kMutexUnlock:
        held.erase(e.op.object);
        break;
      case OpKind::kCondWait:
        held.erase(e.op.partner);
        ++waiters;
        wait_epoch[e.thread] = epoch;
        break;
      case OpKind::kCondWake:
        tokens.erase(std::upper_bound(tokens.begin(), tokens.end(), wait_epoch.at(e.thread)));
        --waiters;
        held.insert(e.op.partner);
        e.op.result = 1;
        break;
      case OpKind::kCondSignal:
      case OpKind::kCondBroadcast:
        ++epoch;
        e.op.result = waiters <= tokens.size();
        while (tokens.size() < waiters) {
          tokens.push_back(epoch);
          if (e.op.kind == OpKind::kCondSignal) break;
        }
        break;
      default:
        break;
    }
    return e;
  }
};

std::vector<Event> random_execution(const RandomProgram& p, std::mt19937& rng) {
  std::vector<std::size_t> next(p.threads.size(), 0);
  SyncSimulation sync;
  std::vector<Event> out;
  while (true) {
    std::vector<std::size_t> enabled;
    for (std::size_t t = 0; t < p.threads.size(); ++t)
      if (next[t] < p.threads[t].size() && sync.enabled(p.threads[t][next[t]]))
        enabled.push_back(t);
    if (enabled.empty()) return out;
    const std::size_t t = enabled[rng() % enabled.size()];
    out.push_back(sync.apply(p.threads[t][next[t]++]));
  }
}

// happens_before[i][j] for i < j, from the exploration's vector clocks (reads commute).
std::vector<std::vector<bool>> happens_before(const std::vector<Event>& execution) {
  ClockTracker tracker(ReadPolicy::kReadsCommute);
  std::vector<VectorClock> clocks;
  for (const Event& e : execution) clocks.push_back(tracker.add(e));
  const std::size_t n = execution.size();
  std::vector<std::vector<bool>> hb(n, std::vector<bool>(n, false));
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < j; ++i)
      hb[i][j] = clocks[j][execution[i].thread] >= clocks[i][execution[i].thread];
  return hb;
}

// Another interleaving of the same trace: a random order of the events that keeps
// happens-before.
std::vector<Event> relinearise(const std::vector<Event>& execution, std::mt19937& rng) {
  const auto hb = happens_before(execution);
  const std::size_t n = execution.size();
  std::vector<bool> done(n, false);
  std::vector<Event> out;
  while (out.size() < n) {
    std::vector<std::size_t> ready;
    for (std::size_t j = 0; j < n; ++j) {
      if (done[j]) continue;
      bool free = true;
      for (std::size_t i = 0; i < j && free; ++i) free = done[i] || !hb[i][j];
      if (free) ready.push_back(j);
    }
    const std::size_t pick = ready[rng() % ready.size()];
    done[pick] = true;
    out.push_back(execution[pick]);
  }
  return out;
}

void check_order_and_traces(bool conds, UnfoldingModel net = UnfoldingModel::kContextual) {
  constexpr int kPrograms = 400;
  for (int seed = 0; seed < kPrograms; ++seed) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    const RandomProgram p = random_program(rng, conds);
    Unfolding u(net);
    std::vector<ThreadId> threads(p.threads.size());
    std::iota(threads.begin(), threads.end(), ThreadId{0});
    u.set_copy_holders(threads);
    std::set<std::uint64_t> traces;
    for (int run = 0; run < 6; ++run) {
      const std::vector<Event> execution = random_execution(p, rng);
      const std::size_t before = u.events();
      const auto fired = model(u, execution);
      const bool new_trace =
          traces.insert(foata_fingerprint(execution, ReadPolicy::kReadsCommute)).second;
      // The same trace adds no event. (Another trace need not add one either: its events may
      // all be known from earlier executions, which is how an unfolding needs fewer tests.)
      EXPECT_TRUE(new_trace || u.events() == before) << "seed " << seed << ", run " << run;

      // Happens-before is the transitive closure of causality and of "observes what the later
      // one consumes" among the execution's events.
      const std::size_t n = execution.size();
      std::vector<std::vector<bool>> order(n, std::vector<bool>(n, false));
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = 0; i < j; ++i)
          order[i][j] = u.asymmetric_conflict(fired[i].event, fired[j].event);
      for (std::size_t k = 0; k < n; ++k)
        for (std::size_t i = 0; i < k; ++i)
          if (order[i][k])
            for (std::size_t j = k + 1; j < n; ++j)
              if (order[k][j]) order[i][j] = true;
      EXPECT_EQ(order, happens_before(execution)) << "seed " << seed << ", run " << run;

      // The schedule computed from the configuration reaches the same events.
      std::vector<EventIndex> configuration;
      for (const auto& f : fired) configuration.push_back(f.event);
      std::vector<Event> scheduled;
      for (EventIndex e : u.schedule_of(configuration))
        scheduled.push_back({u.event(e).thread, u.event(e).op});
      ASSERT_EQ(scheduled.size(), execution.size());
      const auto replayed = model(u, scheduled);
      for (std::size_t i = 0; i < replayed.size(); ++i)
        EXPECT_EQ(replayed[i].event, u.schedule_of(configuration)[i]) << "seed " << seed;

      // The same trace interleaved otherwise fires the same events.
      const auto again = model(u, relinearise(execution, rng));
      EXPECT_EQ(added(again), 0u) << "seed " << seed << ", run " << run;
      std::multiset<EventIndex> first, second;
      for (const auto& f : fired) first.insert(f.event);
      for (const auto& f : again) second.insert(f.event);
      EXPECT_EQ(first, second) << "seed " << seed << ", run " << run;
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(Unfolding, OrdersAnExecutionAsHappensBeforeAndModelsEachTraceOnce) {
  check_order_and_traces(false);
}

// The same with a condition variable, modelled in two parts (cond_footprint, POET's Table 3):
// its uncovered waiters, which a lost notification only observes, and its signals. So lost
// notifications commute with each other and with wakes, in the unfolding as in the clock
// tracker, and whether a notification is lost is read from the marking.
TEST(Unfolding, ConditionVariablesOrderAsHappensBeforeAndModelEachTraceOnce) {
  check_order_and_traces(true);
}

// With place replication (QPOR's model) too, where there are no read arcs: reads and lost
// notifications take their thread's copy of what they observe (POET's Table 3 has lost
// notifications commute with each other), so the order is still happens-before.
TEST(Unfolding, PlaceReplicationOrdersAsHappensBeforeAndModelsEachTraceOnce) {
  check_order_and_traces(false, UnfoldingModel::kPlaceReplication);
  check_order_and_traces(true, UnfoldingModel::kPlaceReplication);
}

// Every execution of a small program, by trying every enabled thread at every step.
void all_executions(const RandomProgram& p, std::vector<std::size_t>& next,
                    const SyncSimulation& sync, std::vector<Event>& prefix,
                    std::vector<std::vector<Event>>& out, std::size_t limit) {
  bool any = false;
  for (std::size_t t = 0; t < p.threads.size() && out.size() < limit; ++t) {
    if (next[t] >= p.threads[t].size() || !sync.enabled(p.threads[t][next[t]])) continue;
    any = true;
    SyncSimulation after = sync;
    prefix.push_back(after.apply(p.threads[t][next[t]]));
    ++next[t];
    all_executions(p, next, after, prefix, out, limit);
    prefix.pop_back();
    --next[t];
  }
  if (!any) out.push_back(prefix);
}

// Every execution of `p`, or nothing if it has more than 3,000 (too many for these tests).
std::vector<std::vector<Event>> every_execution(const RandomProgram& p) {
  std::vector<std::vector<Event>> executions;
  std::vector<std::size_t> next(p.threads.size(), 0);
  std::vector<Event> prefix;
  constexpr std::size_t kLimit = 3000;
  all_executions(p, next, SyncSimulation{}, prefix, executions, kLimit);
  if (executions.size() >= kLimit) executions.clear();
  return executions;
}

// The possible extensions (from the definition) of an unfolding built from some executions are
// events of the program's full unfolding, and there is one whenever an event is missing; the
// full unfolding has none.
void check_extensions_are_real_events(bool conds) {
  int checked = 0;
  for (int seed = 0; seed < 500; ++seed) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    const RandomProgram p = random_program(rng, conds);
    std::vector<std::vector<Event>> executions = every_execution(p);
    if (executions.empty()) continue;
    ++checked;
    Unfolding full;
    for (const auto& execution : executions) model(full, execution);
    EXPECT_TRUE(full.naive_possible_extensions().empty()) << "seed " << seed;

    Unfolding partial;
    std::shuffle(executions.begin(), executions.end(), rng);
    // What the threads were about to do where an execution left them (a thread blocked for good
    // at a wake did not do it), as the search learns it from the pending operations; and, as
    // the search does (held_before), the conditions every variant of an operation may take
    // (the signals a lost notification does not touch, one taking effect would).
    Unfolding::NextOperations pending;
    for (std::size_t k = 0; k < executions.size() && k < 8; ++k) {
      Unfolding::Marking m;
      std::map<ThreadId, std::pair<ConditionIndex, std::size_t>> last;  // condition, steps
      for (const Event& e : executions[k]) {
        partial.held_before(m, e.thread, e.op);
        const UnfoldingEvent& ev = partial.event(partial.fire(m, e).event);
        last[ev.thread] = {ev.postset.front(), last[ev.thread].second + 1};
      }
      for (const auto& [thread, at] : last)
        if (at.second < p.threads[thread].size()) {
          const Operation& op = p.threads[thread][at.second].op;
          partial.held_before(m, thread, op);
          pending.emplace(at.first, op);
        }
      Unfolding::NextOperations next = partial.next_operations_from_events();
      next.insert(pending.begin(), pending.end());
      const auto extensions = partial.naive_possible_extensions(next);
      EXPECT_TRUE(partial.events() == full.events() || !extensions.empty())
          << "seed " << seed << ", after " << k + 1;
      for (const auto& x : extensions) {
        // Reach it: the configuration that produces its conditions, then the event itself.
        std::vector<EventIndex> configuration;
        for (const auto* conditions : {&x.preset, &x.context})
          for (ConditionIndex c : *conditions)
            if (const EventIndex producer = partial.condition(c).producer;
                producer != kInitialCondition)
              for (EventIndex e : partial.local_configuration(producer)) configuration.push_back(e);
        std::sort(configuration.begin(), configuration.end());
        configuration.erase(std::unique(configuration.begin(), configuration.end()),
                            configuration.end());
        std::vector<Event> run;
        for (EventIndex e : partial.schedule_of(configuration))
          run.push_back({partial.event(e).thread, partial.event(e).op});
        run.push_back({x.thread, x.op});
        EXPECT_EQ(added(model(full, run)), 0u) << "seed " << seed << ": not a real event";
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
  EXPECT_GT(checked, 200);  // programs with at most 3,000 executions
}

TEST(Unfolding, PossibleExtensionsAreTheMissingEventsThatCanFireNext) {
  check_extensions_are_real_events(false);
}

// With condition variables: a wake is offered only where a signal given since its wait began is
// left for it to take (the signals condition holds them as the runtime holds its tokens; with a
// count alone, seed 8 offered a wake whose only signal was another waiter's), a notification's
// outcome where the waiters say so.
TEST(Unfolding, ConditionVariablePossibleExtensionsAreEventsThatCanFireNext) {
  check_extensions_are_real_events(true);
}

// The incremental computation (possible_extensions.hpp: searches through adjacent conditions,
// Theorems 4 and 5, and only from what is new) finds exactly what the definition does, after
// every execution, on the random programs: the extensions it has found so far, less those that
// became events, are the naive ones.
void check_incremental_against_the_definition(UnfoldingModel model, bool conds = false) {
  int checked = 0;
  std::size_t extensions_seen = 0;
  for (int seed = 0; seed < 300; ++seed) {
    std::mt19937 rng(static_cast<unsigned>(seed) + 7000);
    const RandomProgram p = random_program(rng, conds);
    std::vector<std::vector<Event>> executions = every_execution(p);
    if (executions.empty()) continue;
    ++checked;
    std::shuffle(executions.begin(), executions.end(), rng);
    Unfolding u(model);
    std::vector<ThreadId> threads(p.threads.size());
    std::iota(threads.begin(), threads.end(), ThreadId{0});
    u.set_copy_holders(threads);
    PossibleExtensions incremental(u);
    std::set<std::pair<std::vector<ConditionIndex>, std::vector<ConditionIndex>>> found;
    for (std::size_t k = 0; k < executions.size() && k < 12; ++k) {
      Unfolding::Marking m;
      std::map<ThreadId, ConditionIndex> at;
      std::vector<ConditionIndex> where(p.threads.size(), kInitialCondition);
      for (const Event& e : executions[k]) {
        std::vector<ConditionIndex> before = u.held_before(m, e.thread, e.op);
        const Unfolding::Fired fired = u.fire(m, e);
        const UnfoldingEvent& ev = u.event(fired.event);
        const std::vector<ConditionIndex> held_there = u.held_after(ev, std::move(before));
        // Where each thread was when a new event's conditions appeared, as the search tells
        // (its walks start there).
        where[e.thread] = ev.postset.front();
        if (fired.added)
          for (ConditionIndex c : ev.postset)
            if (u.condition(c).kind != ConditionKind::kThread) incremental.produced(c, where);
        // As the search learns it: the outcome is the variants' (unfolding_search.cpp).
        Operation next = e.op;
        next.result = 0;
        incremental.learn(ev.preset.front(), next, held_there);
        at[e.thread] = ev.postset.front();
      }
      for (const auto& [thread, c] : at) {  // a thread that ran to its end finished there
        std::size_t done = 0;
        for (const Event& e : executions[k]) done += e.thread == thread;
        if (done == p.threads[thread].size()) incremental.learn(c, std::nullopt);
      }
      for (const auto& x : incremental.update()) found.insert({x.preset, x.context});
      std::erase_if(found, [&](const auto& x) {
        return u.find_event(x.first, x.second) != kInitialCondition;
      });
      std::set<std::pair<std::vector<ConditionIndex>, std::vector<ConditionIndex>>> naive;
      for (const auto& x : u.naive_possible_extensions(incremental.next_operations()))
        naive.insert({x.preset, x.context});
      EXPECT_EQ(found, naive) << "seed " << seed << ", after " << k + 1 << " executions";
      extensions_seen += naive.size();
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(extensions_seen, 1000u);  // not vacuous
}

TEST(Unfolding, IncrementalPossibleExtensionsEqualTheDefinition) {
  check_incremental_against_the_definition(UnfoldingModel::kContextual);
}

// The same with place replication (thesis ch. 3-4): a write takes every copy, so its extensions
// are a choice of generation and then of one copy per holder.
TEST(Unfolding, PlaceReplicationIncrementalPossibleExtensionsEqualTheDefinition) {
  check_incremental_against_the_definition(UnfoldingModel::kPlaceReplication);
}

// And with a condition variable: a notification's two variants (lost where no waiter is
// uncovered, taking effect where one is) and a wait's two (from either state) are each found
// where the definition has them.
TEST(Unfolding, ConditionVariableIncrementalPossibleExtensionsEqualTheDefinition) {
  for (const UnfoldingModel model :
       {UnfoldingModel::kContextual, UnfoldingModel::kPlaceReplication})
    check_incremental_against_the_definition(model, true);
}

}  // namespace
}  // namespace weft::explorer
