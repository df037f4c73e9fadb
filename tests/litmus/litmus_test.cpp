// The classic litmus tests under each memory model weft explores: the set of outcomes weft
// reaches must equal the set the model allows, exactly.
//
// The allowed sets are those of the published models: sequential consistency (Lamport), and
// x86-TSO (Owens, Sarkar and Sewell 2009; the x86-TSO column of herd7's results for these
// shapes, where of the tests below only SB, its release/acquire form, and R are allowed a
// non-SC outcome). Every location starts at 0. A seq_cst store is a store and a fence, as
// compilers map it to x86, so the seq_cst forms behave as SC under TSO.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "weft/weft.hpp"

namespace weft::testing {
namespace {

using Outcome = std::vector<int>;
using Outcomes = std::set<Outcome>;
constexpr auto kRelaxed = std::memory_order_relaxed;
constexpr auto kRelease = std::memory_order_release;
constexpr auto kAcquire = std::memory_order_acquire;
constexpr auto kSeqCst = std::memory_order_seq_cst;

// Locations x and y, registers r[0..3]: a test's threads act on them, and `outcome` says what
// of them an execution ended with.
struct Litmus {
  std::string name;
  std::vector<std::function<void(atomic<int>& x, atomic<int>& y, int* r)>> threads;
  std::function<Outcome(int x, int y, const int* r)> outcome;
  Outcomes sc;   // allowed under sequential consistency
  Outcomes tso;  // allowed under x86-TSO
};

Outcomes explore_outcomes(const Litmus& t, MemoryModel model, StrategyKind strategy) {
  Outcomes seen;
  Options o;
  o.strategy = strategy;
  o.memory_model = model;
  o.stop_on_first_bug = false;
  const Result result = explore(o, [&] {
    atomic<int> x, y;
    int r[4] = {};
    std::vector<thread> threads;
    for (const auto& body : t.threads) threads.emplace_back([&, body] { body(x, y, r); });
    for (auto& th : threads) th.join();
    seen.insert(t.outcome(x.load(), y.load(), r));
  });
  EXPECT_EQ(result.verdict, Verdict::kNoBugFound) << t.name << ": " << result.summary();
  return seen;
}

std::string show(const Outcomes& outcomes) {
  std::string s;
  for (const Outcome& o : outcomes) {
    s += " (";
    for (std::size_t i = 0; i < o.size(); ++i) s += (i ? "," : "") + std::to_string(o[i]);
    s += ")";
  }
  return s;
}

// Outcome: the registers' values r0, r1 (SB, MP, LB and their variants).
Outcome registers2(int, int, const int* r) {
  return {r[0], r[1]};
}

std::vector<Litmus> litmus_tests() {
  std::vector<Litmus> tests;
  // SB (store buffering, Dekker): the store waits in the buffer while the load goes ahead.
  const auto sb = [](std::memory_order store, std::memory_order load, bool fence) {
    return std::vector<std::function<void(atomic<int>&, atomic<int>&, int*)>>{
        [=](atomic<int>& x, atomic<int>& y, int* r) {
          x.store(1, store);
          if (fence) weft::atomic_thread_fence(kSeqCst);
          r[0] = y.load(load);
        },
        [=](atomic<int>& x, atomic<int>& y, int* r) {
          y.store(1, store);
          if (fence) weft::atomic_thread_fence(kSeqCst);
          r[1] = x.load(load);
        }};
  };
  const Outcomes sb_sc = {{0, 1}, {1, 0}, {1, 1}};
  Outcomes sb_tso = sb_sc;
  sb_tso.insert({0, 0});
  tests.push_back({"SB", sb(kRelaxed, kRelaxed, false), registers2, sb_sc, sb_tso});
  tests.push_back({"SB+rel+acq", sb(kRelease, kAcquire, false), registers2, sb_sc, sb_tso});
  tests.push_back({"SB+mfences", sb(kRelaxed, kRelaxed, true), registers2, sb_sc, sb_sc});
  tests.push_back({"SB+sc", sb(kSeqCst, kSeqCst, false), registers2, sb_sc, sb_sc});
  // MP (message passing): stores leave a buffer in order, so the flag is never seen before the
  // data.
  const Outcomes mp = {{0, 0}, {0, 1}, {1, 1}};
  tests.push_back({"MP",
                   {[](atomic<int>& x, atomic<int>& y, int*) {
                      x.store(1, kRelaxed);
                      y.store(1, kRelaxed);
                    },
                    [](atomic<int>& x, atomic<int>& y, int* r) {
                      r[0] = y.load(kRelaxed);
                      r[1] = x.load(kRelaxed);
                    }},
                   registers2,
                   mp,
                   mp});
  // LB (load buffering): loads are not delayed past later stores.
  const Outcomes lb = {{0, 0}, {0, 1}, {1, 0}};
  tests.push_back({"LB",
                   {[](atomic<int>& x, atomic<int>& y, int* r) {
                      r[0] = x.load(kRelaxed);
                      y.store(1, kRelaxed);
                    },
                    [](atomic<int>& x, atomic<int>& y, int* r) {
                      r[1] = y.load(kRelaxed);
                      x.store(1, kRelaxed);
                    }},
                   registers2,
                   lb,
                   lb});
  // IRIW (independent reads of independent writes): x86 is multi-copy atomic, so the readers
  // agree on the order of the two writes.
  Outcomes iriw;
  for (int bits = 0; bits < 16; ++bits)
    if (bits != 0b1010) iriw.insert({bits >> 3 & 1, bits >> 2 & 1, bits >> 1 & 1, bits & 1});
  tests.push_back({"IRIW",
                   {[](atomic<int>& x, atomic<int>&, int*) { x.store(1, kRelaxed); },
                    [](atomic<int>&, atomic<int>& y, int*) { y.store(1, kRelaxed); },
                    [](atomic<int>& x, atomic<int>& y, int* r) {
                      r[0] = x.load(kAcquire);
                      r[1] = y.load(kAcquire);
                    },
                    [](atomic<int>& x, atomic<int>& y, int* r) {
                      r[2] = y.load(kAcquire);
                      r[3] = x.load(kAcquire);
                    }},
                   [](int, int, const int* r) {
                     return Outcome{r[0], r[1], r[2], r[3]};
                   },
                   iriw,
                   iriw});
  // WRC (write-to-read causality): thread 2 sees y set by a thread that had seen x set, so it
  // sees x set too.
  Outcomes wrc;
  for (int bits = 0; bits < 8; ++bits)
    if (bits != 0b110) wrc.insert({bits >> 2 & 1, bits >> 1 & 1, bits & 1});
  tests.push_back({"WRC",
                   {[](atomic<int>& x, atomic<int>&, int*) { x.store(1, kRelaxed); },
                    [](atomic<int>& x, atomic<int>& y, int* r) {
                      r[0] = x.load(kRelaxed);
                      y.store(1, kRelaxed);
                    },
                    [](atomic<int>& x, atomic<int>& y, int* r) {
                      r[1] = y.load(kRelaxed);
                      r[2] = x.load(kRelaxed);
                    }},
                   [](int, int, const int* r) {
                     return Outcome{r[0], r[1], r[2]};
                   },
                   wrc,
                   wrc});
  // 2+2W: the final values of x and y, each written twice in opposite orders.
  const Outcomes w22 = {{1, 2}, {2, 1}, {2, 2}};
  tests.push_back({"2+2W",
                   {[](atomic<int>& x, atomic<int>& y, int*) {
                      x.store(1, kRelaxed);
                      y.store(2, kRelaxed);
                    },
                    [](atomic<int>& x, atomic<int>& y, int*) {
                      y.store(1, kRelaxed);
                      x.store(2, kRelaxed);
                    }},
                   [](int x, int y, const int*) {
                     return Outcome{x, y};
                   },
                   w22,
                   w22});
  // R: thread 1's store to y waits in its buffer while its load of x goes ahead, so y can end
  // at 2 with x read as 0; a fence between them forbids it.
  const auto r_test = [](bool fence) {
    return std::vector<std::function<void(atomic<int>&, atomic<int>&, int*)>>{
        [](atomic<int>& x, atomic<int>& y, int*) {
          x.store(1, kRelaxed);
          y.store(1, kRelaxed);
        },
        [=](atomic<int>& x, atomic<int>& y, int* r) {
          y.store(2, kRelaxed);
          if (fence) weft::atomic_thread_fence(kSeqCst);
          r[0] = x.load(kRelaxed);
        }};
  };
  const auto y_and_r0 = [](int, int y, const int* r) { return Outcome{y, r[0]}; };
  const Outcomes r_sc = {{1, 0}, {1, 1}, {2, 1}};
  Outcomes r_tso = r_sc;
  r_tso.insert({2, 0});
  tests.push_back({"R", r_test(false), y_and_r0, r_sc, r_tso});
  tests.push_back({"R+mfence", r_test(true), y_and_r0, r_sc, r_sc});
  // S: the final x and r0.
  const Outcomes s = {{1, 0}, {1, 1}, {2, 0}};
  tests.push_back({"S",
                   {[](atomic<int>& x, atomic<int>& y, int*) {
                      x.store(2, kRelaxed);
                      y.store(1, kRelaxed);
                    },
                    [](atomic<int>& x, atomic<int>& y, int* r) {
                      r[0] = y.load(kRelaxed);
                      x.store(1, kRelaxed);
                    }},
                   [](int x, int, const int* r) {
                     return Outcome{x, r[0]};
                   },
                   s,
                   s});
  // The coherence shapes: one location, every model agrees with SC on it.
  const Outcomes corr = {{0, 0}, {0, 1}, {1, 1}};
  tests.push_back({"CoRR",
                   {[](atomic<int>& x, atomic<int>&, int*) { x.store(1, kRelaxed); },
                    [](atomic<int>& x, atomic<int>&, int* r) {
                      r[0] = x.load(kRelaxed);
                      r[1] = x.load(kRelaxed);
                    }},
                   registers2,
                   corr,
                   corr});
  // CoWR: r0 and the final x; a load after the thread's own store reads it or a later one.
  const Outcomes cowr = {{1, 1}, {1, 2}, {2, 2}};
  tests.push_back({"CoWR",
                   {[](atomic<int>& x, atomic<int>&, int* r) {
                      x.store(1, kRelaxed);
                      r[0] = x.load(kRelaxed);
                    },
                    [](atomic<int>& x, atomic<int>&, int*) { x.store(2, kRelaxed); }},
                   [](int x, int, const int* r) {
                     return Outcome{r[0], x};
                   },
                   cowr,
                   cowr});
  // CoRW: r0 and the final x; a load does not read a store that comes after the thread's own.
  const Outcomes corw = {{0, 1}, {0, 2}, {2, 1}};
  tests.push_back({"CoRW",
                   {[](atomic<int>& x, atomic<int>&, int* r) {
                      r[0] = x.load(kRelaxed);
                      x.store(1, kRelaxed);
                    },
                    [](atomic<int>& x, atomic<int>&, int*) { x.store(2, kRelaxed); }},
                   [](int x, int, const int* r) {
                     return Outcome{r[0], x};
                   },
                   corw,
                   corw});
  // CoWW: two stores of one thread reach memory in order; the reader sees 0, 1, 2, never 2 then
  // 1, and the last is 2.
  const Outcomes coww = {{0, 0, 2}, {0, 1, 2}, {0, 2, 2}, {1, 1, 2}, {1, 2, 2}, {2, 2, 2}};
  tests.push_back({"CoWW",
                   {[](atomic<int>& x, atomic<int>&, int*) {
                      x.store(1, kRelaxed);
                      x.store(2, kRelaxed);
                    },
                    [](atomic<int>& x, atomic<int>&, int* r) {
                      r[0] = x.load(kRelaxed);
                      r[1] = x.load(kRelaxed);
                    }},
                   [](int x, int, const int* r) {
                     return Outcome{r[0], r[1], x};
                   },
                   coww,
                   coww});
  return tests;
}

class LitmusSuite : public ::testing::TestWithParam<StrategyKind> {};

TEST_P(LitmusSuite, OutcomesAreExactlyWhatEachModelAllows) {
  for (const Litmus& t : litmus_tests()) {
    const Outcomes sc = explore_outcomes(t, MemoryModel::kSequentialConsistency, GetParam());
    EXPECT_EQ(sc, t.sc) << t.name << " under sc: reached" << show(sc) << ", allowed" << show(t.sc);
    if (!explorer::strategy_info(GetParam()).has(explorer::kWeakMemory)) continue;
    const Outcomes tso = explore_outcomes(t, MemoryModel::kTso, GetParam());
    EXPECT_EQ(tso, t.tso) << t.name << " under tso: reached" << show(tso) << ", allowed"
                          << show(t.tso);
  }
}

INSTANTIATE_TEST_SUITE_P(Strategies, LitmusSuite,
                         ::testing::Values(StrategyKind::kDfs, StrategyKind::kOptimalDpor,
                                           StrategyKind::kDpor, StrategyKind::kDporCommutingReads),
                         [](const auto& info) {
                           std::string name(info.param.name());
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace weft::testing
