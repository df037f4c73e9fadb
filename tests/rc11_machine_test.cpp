// The RC11 machine (weft/trace/rc11_machine.hpp) against RC11's axioms: on small atomic programs,
// running every interleaving of the threads and, at each access, every option the machine offers
// reaches exactly the outcomes the axiomatic oracle (memory_model_oracle.hpp) finds among all
// execution graphs. The machine's options never lead to an inconsistent graph (soundness) and
// every consistent graph is reached (completeness).
#include "weft/trace/rc11_machine.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "atomic_program.hpp"
#include "memory_model_oracle.hpp"
#include "weft/weft.hpp"

namespace weft::testing {
namespace {

struct Run {
  rc11::Machine machine;
  std::vector<std::size_t> pc;
  std::vector<int> reg;
  std::vector<std::vector<int>> reads;
};

class Exhaustive {
 public:
  explicit Exhaustive(const AtomicProgram& p) : p_(p) {}

  Observed explore() {
    Run run;
    // Every psc answer is also computed over the whole graph, which must agree.
    run.machine.check_psc_against_whole_graph(true);
    run.machine.add_thread(0, kNoThread);
    for (int v = 0; v < p_.vars; ++v) run.machine.touch(static_cast<rc11::Location>(v), 0);
    for (std::size_t t = 0; t < p_.threads.size(); ++t)
      run.machine.add_thread(static_cast<ThreadId>(t + 1), 0);
    run.pc.assign(p_.threads.size(), 0);
    run.reg.assign(p_.threads.size(), 0);
    run.reads.resize(p_.threads.size());
    step(run);
    return out_;
  }
  std::uint64_t executions() const { return executions_; }

 private:
  void step(Run& run) {
    bool all_done = true;
    for (std::size_t t = 0; t < p_.threads.size(); ++t) {
      if (run.pc[t] == p_.threads[t].size()) continue;
      all_done = false;
      const AtomicInstr& in = p_.threads[t][run.pc[t]];
      const auto thread = static_cast<ThreadId>(t + 1);
      const auto x = static_cast<rc11::Location>(in.var);
      const rc11::Mode m = rc11::mode_of(in.order);
      switch (in.kind) {
        case AtomicInstr::kAssertNot: {
          if (run.reg[t] == in.value) {
            out_.bugs.insert("assert in thread " + std::to_string(t) + " at " +
                             std::to_string(run.pc[t]));
            ++executions_;
            break;
          }
          Run next = run;
          ++next.pc[t];
          step(next);
          break;
        }
        case AtomicInstr::kFence: {
          Run next = run;
          next.machine.fence(thread, m);
          ++next.pc[t];
          step(next);
          break;
        }
        case AtomicInstr::kLoad:
          for (const rc11::EventId from : run.machine.load_options(thread, x, m)) {
            Run next = run;
            const int v = static_cast<int>(next.machine.load(thread, x, m, from));
            next.reg[t] = v;
            next.reads[t].push_back(v);
            ++next.pc[t];
            step(next);
          }
          break;
        case AtomicInstr::kStore:
          for (const rc11::EventId after : run.machine.store_options(thread, x, m)) {
            Run next = run;
            next.machine.store(thread, x, m, after,
                               static_cast<rc11::Value>(next.reg[t] + in.value));
            ++next.pc[t];
            step(next);
          }
          break;
        case AtomicInstr::kFetchAdd:
          for (const rc11::EventId from : run.machine.update_options(thread, x, m)) {
            Run next = run;
            const auto old = static_cast<int>(next.machine.value_of(from));
            next.machine.update(thread, x, m, from, static_cast<rc11::Value>(old + in.value));
            next.reg[t] = old;
            next.reads[t].push_back(old);
            ++next.pc[t];
            step(next);
          }
          break;
      }
    }
    if (!all_done) return;
    ++executions_;
    std::vector<int> state;
    for (int v = 0; v < p_.vars; ++v) {
      const auto x = static_cast<rc11::Location>(v);
      state.push_back(static_cast<int>(run.machine.value_of(run.machine.latest(x))));
    }
    for (const auto& r : run.reads) state.insert(state.end(), r.begin(), r.end());
    out_.final_states.insert(std::move(state));
  }

  const AtomicProgram& p_;
  Observed out_;
  std::uint64_t executions_ = 0;
};

std::string show(const std::set<std::vector<int>>& states) {
  std::string s;
  for (const auto& st : states) {
    s += " (";
    for (std::size_t i = 0; i < st.size(); ++i) s += (i ? "," : "") + std::to_string(st[i]);
    s += ")";
  }
  return s;
}

void expect_machine_equals_axioms(const AtomicProgram& p, const std::string& where) {
  const Observed machine = Exhaustive(p).explore();
  const Observed axioms = allowed_outcomes(p, AxiomaticModel::kRc11);
  EXPECT_EQ(machine.final_states, axioms.final_states)
      << "machine" << show(machine.final_states) << ", axioms" << show(axioms.final_states) << "; "
      << where << ":\n"
      << p.describe();
  EXPECT_EQ(machine.bugs, axioms.bugs) << where << ":\n" << p.describe();
}

// weft's DFS under RC11, in process (the scheduler running the machine, the strategy exploring
// every interleaving with every option), against the axioms.
// `strategy` must be exhaustive without a bound: DFS, a DPOR, or a bounded search with none.
void expect_weft_equals_axioms(const AtomicProgram& p, const std::string& where,
                               StrategyKind strategy = StrategyKind::kDfs) {
  const Observed axioms = allowed_outcomes(p, AxiomaticModel::kRc11);
  Options o;
  o.strategy = strategy;
  o.memory_model = MemoryModel::kRc11;
  const ProgramRun weft = explore_atomic_program(p, o);
  EXPECT_EQ(weft.result.verdict == Verdict::kIncomplete, false) << where;
  EXPECT_EQ(weft.observed.final_states, axioms.final_states)
      << "weft" << show(weft.observed.final_states) << ", axioms" << show(axioms.final_states)
      << "; " << where << ":\n"
      << p.describe();
  EXPECT_EQ(weft.observed.bugs, axioms.bugs) << "weft; " << where << ":\n" << p.describe();
}

int setting(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
const int kFirstSeed = setting("WEFT_RC11_FIRST_SEED", 0);
const int kPrograms = setting("WEFT_RC11_PROGRAMS", 1000);
// Every interleaving of the threads' instructions is run, each with every option: programs are
// kept to a few thousand interleavings, seeds taken in order from each index's own stretch.
constexpr double kMaxInterleavings = 1500;

double interleavings(const AtomicProgram& p) {
  double log_count = 0;
  int total = 0;
  for (const auto& t : p.threads) {
    const int n = static_cast<int>(t.size());
    total += n;
    log_count += std::lgamma(total + 1) - std::lgamma(total - n + 1) - std::lgamma(n + 1);
  }
  return std::exp(log_count);
}

template <typename Generate>
std::pair<std::uint64_t, AtomicProgram> small_program(int index, Generate generate,
                                                      double max = kMaxInterleavings) {
  for (auto seed = static_cast<std::uint64_t>(index) * 1000;; ++seed) {
    AtomicProgram p = generate(seed);
    if (interleavings(p) <= max) return {seed, std::move(p)};
  }
}

class Rc11MachineRandom : public ::testing::TestWithParam<int> {};

TEST_P(Rc11MachineRandom, ReachesExactlyTheConsistentGraphs) {
  const auto [seed, p] =
      small_program(GetParam(), [](std::uint64_t s) { return generate_atomic_program(s, 1e300); });
  expect_machine_equals_axioms(p, "seed " + std::to_string(seed));
}

INSTANTIATE_TEST_SUITE_P(Programs, Rc11MachineRandom,
                         ::testing::Range(kFirstSeed, kFirstSeed + kPrograms));

class Rc11MachineWeak : public ::testing::TestWithParam<int> {};

TEST_P(Rc11MachineWeak, ReachesExactlyTheConsistentGraphs) {
  const auto [seed, p] =
      small_program(GetParam(), [](std::uint64_t s) { return generate_weak_program(s); });
  expect_machine_equals_axioms(p, "weak seed " + std::to_string(seed));
}

INSTANTIATE_TEST_SUITE_P(Programs, Rc11MachineWeak,
                         ::testing::Range(kFirstSeed, kFirstSeed + kPrograms));

// weft runs the whole program (main creating and joining the threads, each fence a step) with
// DFS and no sleep sets: smaller programs.
constexpr double kMaxWeftInterleavings = 200;

class Rc11Weft : public ::testing::TestWithParam<int> {};

TEST_P(Rc11Weft, DfsReachesExactlyTheConsistentGraphs) {
  const bool weak = GetParam() % 2 == 1;
  const auto [seed, p] =
      weak ? small_program(
                 GetParam(), [](std::uint64_t s) { return generate_weak_program(s); },
                 kMaxWeftInterleavings)
           : small_program(
                 GetParam(), [](std::uint64_t s) { return generate_atomic_program(s, 1e300); },
                 kMaxWeftInterleavings);
  const std::string where = (weak ? "weak seed " : "seed ") + std::to_string(seed);
  expect_weft_equals_axioms(p, where);
  // DPOR, with reads commuting or not: the options of the steps it runs are explored as DFS
  // explores them, and its races add the other orders of dependent steps (docs/memory-models.md).
  expect_weft_equals_axioms(p, where + ", optimal", StrategyKind::kOptimalDpor);
  expect_weft_equals_axioms(p, where + ", dpor-cr", StrategyKind::kDporCommutingReads);
  expect_weft_equals_axioms(p, where + ", dpor", StrategyKind::kDpor);
  // Every fifth program: the bounded searches, with no bound, reach the same graphs; random
  // scheduling and partial order sampling reach only graphs RC11 allows.
  if (GetParam() % 5 != 0) return;
  expect_weft_equals_axioms(p, where + ", preemption-bound", StrategyKind::kPreemptionBound);
  expect_weft_equals_axioms(p, where + ", delay-bound", StrategyKind::kDelayBound);
  const Observed axioms = allowed_outcomes(p, AxiomaticModel::kRc11);
  for (const StrategyKind sampler : {StrategyKind::kRandom, StrategyKind{"pos"}}) {
    Options o;
    o.strategy = sampler;
    o.memory_model = MemoryModel::kRc11;
    o.random_executions = 50;
    const ProgramRun sampled = explore_atomic_program(p, o);
    for (const auto& state : sampled.observed.final_states)
      EXPECT_TRUE(axioms.final_states.count(state)) << sampler.name() << "; " << where << ":\n"
                                                    << p.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, Rc11Weft,
                         ::testing::Range(kFirstSeed, kFirstSeed + kPrograms / 2));

// TruSt (strategies/trust.cpp, Kokologiannakis et al., POPL 2022): exactly the axioms'
// outcomes and bugs, and on the program without its assertions (which cut a thread short, so
// that one execution stands for several graphs) exactly one complete execution per consistent
// graph the oracle counts: none run twice, none missed.
AtomicProgram without_assertions(AtomicProgram p) {
  for (auto& thread : p.threads)
    std::erase_if(thread, [](const AtomicInstr& in) { return in.kind == AtomicInstr::kAssertNot; });
  return p;
}

class Rc11Trust : public ::testing::TestWithParam<int> {};

TEST_P(Rc11Trust, RunsOneExecutionPerConsistentGraph) {
  const bool weak = GetParam() % 2 == 1;
  const auto [seed, p] =
      weak ? small_program(GetParam(), [](std::uint64_t s) { return generate_weak_program(s); })
           : small_program(GetParam(),
                           [](std::uint64_t s) { return generate_atomic_program(s, 1e300); });
  const std::string where = (weak ? "weak seed " : "seed ") + std::to_string(seed);
  expect_weft_equals_axioms(p, where + ", trust", StrategyKind{"trust"});
  const AtomicProgram plain = without_assertions(p);
  Options o;
  o.strategy = StrategyKind{"trust"};
  o.memory_model = MemoryModel::kRc11;
  const ProgramRun run = explore_atomic_program(plain, o);
  EXPECT_EQ(run.result.stats.complete, consistent_graphs(plain, AxiomaticModel::kRc11))
      << where << ", " << run.result.stats.executions << " executions, "
      << run.result.stats.sleep_blocked << " abandoned:\n"
      << plain.describe();
}

INSTANTIATE_TEST_SUITE_P(Programs, Rc11Trust,
                         ::testing::Range(kFirstSeed, kFirstSeed + 2 * kPrograms));

// Programs whose atomics are mostly seq_cst: while every event so far is seq_cst the machine
// offers the newest store only (the graphs are those of interleavings, RC11's DRF-SC), and the
// weak events after such a prefix must still reach every consistent graph. With every access
// seq_cst, the outcomes are sequential consistency's, and weft under RC11 runs exactly the
// executions it runs under sequential consistency.
AtomicProgram mostly_seq_cst(AtomicProgram p, std::uint64_t seed, bool all) {
  std::mt19937_64 rng(seed);
  for (auto& thread : p.threads)
    for (AtomicInstr& in : thread)
      if (all || std::uniform_int_distribution<int>(0, 3)(rng) != 0)
        in.order = std::memory_order_seq_cst;
  return p;
}

class Rc11MachineSeqCst : public ::testing::TestWithParam<int> {};

TEST_P(Rc11MachineSeqCst, ReachesExactlyTheConsistentGraphs) {
  const bool all = GetParam() % 2 == 0;
  const auto [seed, p] = small_program(GetParam(), [&](std::uint64_t s) {
    return mostly_seq_cst(generate_atomic_program(s, 1e300), s, all);
  });
  const std::string where = (all ? "seq_cst seed " : "mostly seq_cst seed ") + std::to_string(seed);
  expect_machine_equals_axioms(p, where);
  if (!all) return;
  EXPECT_EQ(Exhaustive(p).explore().final_states,
            allowed_outcomes(p, AxiomaticModel::kSc).final_states)
      << where << ":\n"
      << p.describe();
}

TEST_P(Rc11MachineSeqCst, WeftRunsTheExecutionsOfSequentialConsistency) {
  if (GetParam() % 4 != 0) return;
  const auto [seed, p] = small_program(
      GetParam(),
      [&](std::uint64_t s) { return mostly_seq_cst(generate_atomic_program(s, 1e300), s, true); },
      kMaxWeftInterleavings);
  const std::string where = "seq_cst seed " + std::to_string(seed);
  for (const StrategyKind strategy :
       {StrategyKind::kDfs, StrategyKind::kOptimalDpor, StrategyKind::kDpor}) {
    Options o;
    o.strategy = strategy;
    o.memory_model = MemoryModel::kSequentialConsistency;
    const ProgramRun sc = explore_atomic_program(p, o);
    o.memory_model = MemoryModel::kRc11;
    const ProgramRun rc11 = explore_atomic_program(p, o);
    EXPECT_EQ(rc11.observed.final_states, sc.observed.final_states) << where << ":\n"
                                                                    << p.describe();
    EXPECT_EQ(rc11.result.stats.executions, sc.result.stats.executions)
        << strategy.name() << "; " << where << ":\n"
        << p.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, Rc11MachineSeqCst,
                         ::testing::Range(kFirstSeed, kFirstSeed + kPrograms / 2));

}  // namespace
}  // namespace weft::testing

namespace weft::testing {
namespace {

// Single scenarios, each a rule of RC11's happens-before the random programs may seldom hit.
constexpr rc11::Location kX = 1, kY = 2;
using rc11::Mode;

rc11::Machine with_threads(int count) {
  rc11::Machine m;
  m.add_thread(0, kNoThread);
  m.touch(kX, 0);
  m.touch(kY, 0);
  for (int t = 1; t < count; ++t) m.add_thread(static_cast<ThreadId>(t), 0);
  return m;
}

TEST(Rc11Machine, AThreadSeesWhatHappenedBeforeItWasCreated) {
  rc11::Machine m;
  m.add_thread(0, kNoThread);
  m.touch(kX, 0);
  m.store(0, kX, Mode::kRelaxed, m.latest(kX), 1);
  m.add_thread(1, 0);
  EXPECT_EQ(m.load_options(1, kX, Mode::kRelaxed), std::vector{m.latest(kX)});
}

TEST(Rc11Machine, AJoinShowsTheJoinedThreadsStores) {
  rc11::Machine m = with_threads(2);
  m.store(1, kX, Mode::kRelaxed, m.latest(kX), 1);
  EXPECT_EQ(m.load_options(0, kX, Mode::kRelaxed).size(), 2u);  // the initial value, or 1
  m.join(0, 1);
  EXPECT_EQ(m.load_options(0, kX, Mode::kRelaxed), std::vector{m.latest(kX)});
  // ... and a store after the join goes after it in coherence order.
  EXPECT_EQ(m.store_options(0, kX, Mode::kRelaxed), std::vector{m.latest(kX)});
}

TEST(Rc11Machine, SynchronisationOutsideTheAtomicsOrdersLikeAMutex) {
  rc11::Machine m = with_threads(3);
  m.store(1, kX, Mode::kRelaxed, m.latest(kX), 1);
  EXPECT_EQ(m.load_options(2, kX, Mode::kRelaxed).size(), 2u);
  m.synchronise(1, 2);  // thread 1 unlocks a mutex that thread 2 then locks
  EXPECT_EQ(m.load_options(2, kX, Mode::kRelaxed), std::vector{m.latest(kX)});
}

// Message passing: thread 1 writes x, then the flag y; thread 2 reads the flag with `flag` and
// then x. Returns how many stores thread 2 may read x from.
std::size_t message_passing(Mode flag_store, Mode flag_load, bool relay_through_update,
                            bool second_store) {
  rc11::Machine m = with_threads(4);
  m.store(1, kX, Mode::kRelaxed, m.latest(kX), 1);
  m.store(1, kY, flag_store, m.latest(kY), 1);
  if (second_store) m.store(1, kY, Mode::kRelaxed, m.latest(kY), 2);
  if (relay_through_update) m.update(3, kY, Mode::kRelaxed, m.latest(kY), 5);
  m.load(2, kY, flag_load, m.latest(kY));
  return m.load_options(2, kX, Mode::kRelaxed).size();
}

TEST(Rc11Machine, ReleaseAcquireMakesTheDataVisible) {
  EXPECT_EQ(message_passing(Mode::kRelease, Mode::kAcquire, false, false), 1u);
  EXPECT_EQ(message_passing(Mode::kRelaxed, Mode::kAcquire, false, false), 2u);
  EXPECT_EQ(message_passing(Mode::kRelease, Mode::kRelaxed, false, false), 2u);
}

// RC11 §3: a release sequence goes on through read-modify-writes of other threads (rf; rmw) and
// through the releasing thread's own later stores to the location ([W]; po|loc; [W]).
TEST(Rc11Machine, AReleaseSequenceGoesOnThroughUpdatesAndTheThreadsLaterStores) {
  EXPECT_EQ(message_passing(Mode::kRelease, Mode::kAcquire, true, false), 1u);
  EXPECT_EQ(message_passing(Mode::kRelease, Mode::kAcquire, false, true), 1u);
  EXPECT_EQ(message_passing(Mode::kRelaxed, Mode::kAcquire, true, true), 2u);
}

TEST(Rc11Machine, FencesSynchroniseThroughRelaxedAccesses) {
  rc11::Machine m = with_threads(3);
  m.store(1, kX, Mode::kRelaxed, m.latest(kX), 1);
  m.fence(1, Mode::kRelease);
  m.store(1, kY, Mode::kRelaxed, m.latest(kY), 1);
  m.load(2, kY, Mode::kRelaxed, m.latest(kY));
  EXPECT_EQ(m.load_options(2, kX, Mode::kRelaxed).size(), 2u);  // not yet: no acquire
  m.fence(2, Mode::kAcquire);
  EXPECT_EQ(m.load_options(2, kX, Mode::kRelaxed), std::vector{m.latest(kX)});
}

TEST(Rc11Machine, AnUpdateTakesAStoreNoOtherUpdateTook) {
  rc11::Machine m = with_threads(3);
  const rc11::EventId initial = m.latest(kX);
  m.update(1, kX, Mode::kRelaxed, initial, 1);
  // Thread 2's update cannot also read the initial value, nor a store go between the two.
  EXPECT_EQ(m.update_options(2, kX, Mode::kRelaxed), std::vector{m.latest(kX)});
  EXPECT_EQ(m.store_options(2, kX, Mode::kRelaxed), std::vector{m.latest(kX)});
  EXPECT_EQ(m.load_options(2, kX, Mode::kRelaxed).size(), 2u);
}

}  // namespace
}  // namespace weft::testing

namespace weft::testing {
namespace {

// RC11 in process: the strategies that do not explore options are refused in one line, naming
// those that do; and a relaxed message-passing program shows its weak outcome under rc11 only.
TEST(Rc11InProcess, AStrategyThatDoesNotExploreOptionsIsRefused) {
  Options o;
  o.memory_model = MemoryModel::kRc11;
  o.strategy = StrategyKind::kUnfolding;
  try {
    explore(o, [] {});
    FAIL() << "the unfolding was not refused under rc11";
  } catch (const usage_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("rc11"), std::string::npos) << message;
    EXPECT_NE(message.find("dfs"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(Rc11InProcess, RelaxedMessagePassingLosesTheDataUnderRc11Only) {
  for (const MemoryModel model : {MemoryModel::kSequentialConsistency, MemoryModel::kRc11}) {
    Options o;
    o.memory_model = model;
    o.strategy = StrategyKind::kDfs;
    o.stop_on_first_bug = false;
    const auto test = [] {
      atomic<int> data(0), flag(0);
      thread writer([&] {
        data.store(1, std::memory_order_relaxed);
        flag.store(1, std::memory_order_relaxed);
      });
      if (flag.load(std::memory_order_relaxed) == 1) {
        WEFT_ASSERT(data.load(std::memory_order_relaxed) == 1);
      }
      writer.join();
    };
    const Result r = explore(o, test);
    EXPECT_EQ(r.verdict == Verdict::kBugFound, model == MemoryModel::kRc11) << r.summary();
    if (model == MemoryModel::kRc11) {
      EXPECT_NE(r.summary().find("RC11"), std::string::npos) << r.summary();
      // The bug's schedule carries the options its loads took (";c="): replaying it reproduces
      // the stale read.
      ASSERT_FALSE(r.bugs.empty());
      EXPECT_NE(r.bugs[0].schedule.find(";c="), std::string::npos) << r.bugs[0].schedule;
      const Result again = replay(r.bugs[0].schedule, test, o);
      EXPECT_EQ(again.verdict, Verdict::kBugFound) << r.bugs[0].schedule;
    }
  }
}

// trust adds the events in one fixed order (lowest thread first), so a seq_cst load may read a
// store older than one that joined before it; such a bug's schedule names that option, and
// replay offers it (TestDirective::every_option), though an interleaving strategy, which runs
// the other order instead, would offer only the newest store there.
TEST(Rc11InProcess, ABugTrustFindsThroughAnOlderSeqCstStoreReplays) {
  Options o;
  o.strategy = StrategyKind{"trust"};
  o.stop_on_first_bug = false;
  const auto test = [] {
    atomic<int> x(0);
    thread writer([&] { x.store(1); });
    thread reader([&] { WEFT_ASSERT(x.load() == 1); });
    writer.join();
    reader.join();
  };
  const Result r = explore(o, test);
  ASSERT_EQ(r.verdict, Verdict::kBugFound) << r.summary();
  EXPECT_NE(r.bugs[0].schedule.find(";c="), std::string::npos) << r.bugs[0].schedule;
  const Result again = replay(r.bugs[0].schedule, test, o);
  EXPECT_EQ(again.verdict, Verdict::kBugFound) << r.bugs[0].schedule;
  // One execution per graph: the reader reads 1, or 0.
  EXPECT_EQ(r.stats.executions, 2u) << r.summary();
}

// Under RC11 a mutex synchronises what its unlock saw with the next lock of the same mutex, and
// nothing with another mutex's (C/C++: a mutex's operations are acquires and releases of it). A
// relaxed message passed under one mutex arrives; under two it may not.
TEST(Rc11InProcess, AMutexSynchronisesItsOwnLocksOnly) {
  for (const bool same_mutex : {true, false}) {
    Options o;
    o.memory_model = MemoryModel::kRc11;
    o.strategy = StrategyKind::kDfs;
    const Result r = explore(o, [same_mutex] {
      atomic<int> data(0);
      atomic<int> published(0);
      mutex a, b;
      mutex& reader_mutex = same_mutex ? a : b;
      thread writer([&] {
        data.store(1, std::memory_order_relaxed);
        a.lock();
        published.store(1, std::memory_order_relaxed);
        a.unlock();
      });
      reader_mutex.lock();
      // Seen published: under one mutex, the writer's unlock came before this lock.
      if (published.load(std::memory_order_relaxed) == 1) {
        WEFT_ASSERT(data.load(std::memory_order_relaxed) == 1);
      }
      reader_mutex.unlock();
      writer.join();
    });
    EXPECT_EQ(r.verdict == Verdict::kBugFound, !same_mutex)
        << (same_mutex ? "one mutex: " : "two mutexes: ") << r.summary();
  }
}

// Semaphore posts commute (dependence.cpp), so each only releases: a wait that took one post
// sees what that post's thread did before it, whichever post came first.
TEST(Rc11InProcess, ASemaphoreWaitSeesWhatThePostsReleased) {
  Options o;
  o.memory_model = MemoryModel::kRc11;
  o.strategy = StrategyKind::kDfs;
  const Result r = explore(o, [] {
    atomic<int> x(0), y(0);
    counting_semaphore<> posted(0);
    thread first([&] {
      x.store(1, std::memory_order_relaxed);
      posted.release();
    });
    thread second([&] {
      y.store(1, std::memory_order_relaxed);
      posted.release();
    });
    posted.acquire();
    posted.acquire();
    WEFT_ASSERT(x.load(std::memory_order_relaxed) == 1);
    WEFT_ASSERT(y.load(std::memory_order_relaxed) == 1);
    first.join();
    second.join();
  });
  EXPECT_EQ(r.verdict, Verdict::kNoBugFound) << r.summary();
}

}  // namespace
}  // namespace weft::testing
