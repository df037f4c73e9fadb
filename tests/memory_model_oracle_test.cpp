// The axiomatic oracle (memory_model_oracle.hpp) against the published litmus tables, and weft's
// operational exploration against the oracle.
//
// Litmus: for each classic shape and each model, the outcomes the oracle finds must be the
// sequentially consistent ones plus exactly the weak outcomes that model's published tables
// allow: herd7's x86tso.cat results (Alglave, Maranget, Tautschnig, "Herding cats", TOPLAS 2014,
// and Owens, Sarkar, Sewell 2009) and the RC11 paper (Lahav et al., PLDI 2017: §2 and §3 on
// SB, MP, IRIW with and without SC fences, WRC, LB, 2+2W, R, S and the coherence shapes).
//
// Random programs: on programs of atomics of every order and fences, weft's outcomes under each
// model it explores equal the oracle's exactly.
#include "memory_model_oracle.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "atomic_program.hpp"
#include "weft/weft.hpp"

namespace weft::testing {
namespace {

constexpr auto kRlx = std::memory_order_relaxed;
constexpr auto kAcq = std::memory_order_acquire;
constexpr auto kRel = std::memory_order_release;
constexpr auto kSc = std::memory_order_seq_cst;

AtomicInstr load(int var, std::memory_order o) {
  return {AtomicInstr::kLoad, var, 0, o};
}
// Stores the thread's last value read plus `value` (its first reads 0).
AtomicInstr store(int var, int value, std::memory_order o) {
  return {AtomicInstr::kStore, var, value, o};
}
AtomicInstr fence(std::memory_order o) {
  return {AtomicInstr::kFence, 0, 0, o};
}

using State = std::vector<int>;  // the locations' final values, then each thread's reads

struct LitmusCase {
  std::string name;
  AtomicProgram program;
  std::vector<State> tso_weak;   // the non-SC outcomes x86-TSO allows
  std::vector<State> rc11_weak;  // the non-SC outcomes RC11 allows
};

AtomicProgram program(int vars, std::vector<std::vector<AtomicInstr>> threads) {
  AtomicProgram p;
  p.vars = vars;
  p.threads = std::move(threads);
  return p;
}

constexpr int x = 0, y = 1;

std::vector<LitmusCase> litmus_cases() {
  std::vector<LitmusCase> cases;
  // SB: [x, y, r0, r1]; both loads read 0.
  const State sb_weak = {1, 1, 0, 0};
  auto sb = [](std::memory_order st, std::memory_order ld, bool fenced) {
    std::vector<AtomicInstr> t0 = {store(x, 1, st)}, t1 = {store(y, 1, st)};
    if (fenced) t0.push_back(fence(kSc)), t1.push_back(fence(kSc));
    t0.push_back(load(y, ld));
    t1.push_back(load(x, ld));
    return program(2, {t0, t1});
  };
  cases.push_back({"SB", sb(kRlx, kRlx, false), {sb_weak}, {sb_weak}});
  cases.push_back({"SB+rel+acq", sb(kRel, kAcq, false), {sb_weak}, {sb_weak}});
  cases.push_back({"SB+sc", sb(kSc, kSc, false), {}, {}});
  cases.push_back({"SB+fences.sc", sb(kRlx, kRlx, true), {}, {}});
  cases.push_back({"SB+rel+acq+fences.sc", sb(kRel, kAcq, true), {}, {}});

  // MP: [x, y, r0 = y, r1 = x]; the flag seen, the data not.
  const State mp_weak = {1, 1, 1, 0};
  auto mp = [](std::memory_order data, std::memory_order flag_store, std::memory_order flag_load,
               bool fences) {
    std::vector<AtomicInstr> t0 = {store(x, 1, data)}, t1 = {load(y, flag_load)};
    if (fences) t0.push_back(fence(kRel)), t1.push_back(fence(kAcq));
    t0.push_back(store(y, 1, flag_store));
    t1.push_back(load(x, data));
    return program(2, {t0, t1});
  };
  cases.push_back({"MP", mp(kRlx, kRlx, kRlx, false), {}, {mp_weak}});
  cases.push_back({"MP+rel+acq", mp(kRlx, kRel, kAcq, false), {}, {}});
  cases.push_back({"MP+rel+rlx", mp(kRlx, kRel, kRlx, false), {}, {mp_weak}});
  cases.push_back({"MP+fence.rel+fence.acq", mp(kRlx, kRlx, kRlx, true), {}, {}});
  cases.push_back({"MP+sc", mp(kSc, kSc, kSc, false), {}, {}});

  // LB: each thread stores what it read plus 1: any outcome with both reads non-zero would need
  // a value out of thin air (po ∪ rf cyclic), which RC11 forbids, as x86 does.
  const auto lb = [](std::memory_order o) {
    return program(2, {{load(x, o), store(y, 1, o)}, {load(y, o), store(x, 1, o)}});
  };
  cases.push_back({"LB", lb(kRlx), {}, {}});
  cases.push_back({"LB+acq+rel", lb(kAcq), {}, {}});

  // IRIW: [x, y, r2 = x, r2' = y, r3 = y, r3' = x]; the readers disagree on the stores' order.
  const State iriw_weak = {1, 1, 1, 0, 1, 0};
  auto iriw = [](std::memory_order st, std::memory_order ld, bool fenced) {
    std::vector<AtomicInstr> t2 = {load(x, ld)}, t3 = {load(y, ld)};
    if (fenced) t2.push_back(fence(kSc)), t3.push_back(fence(kSc));
    t2.push_back(load(y, ld));
    t3.push_back(load(x, ld));
    return program(2, {{store(x, 1, st)}, {store(y, 1, st)}, t2, t3});
  };
  cases.push_back({"IRIW", iriw(kRlx, kRlx, false), {}, {iriw_weak}});
  cases.push_back({"IRIW+rel+acq", iriw(kRel, kAcq, false), {}, {iriw_weak}});
  cases.push_back({"IRIW+sc", iriw(kSc, kSc, false), {}, {}});
  cases.push_back({"IRIW+fences.sc", iriw(kRlx, kRlx, true), {}, {}});

  // WRC: [x, y, r1 = x, r2 = y, r2' = x]; thread 1 passes on what it read (y = x + 0).
  const State wrc_weak = {1, 1, 1, 1, 0};
  auto wrc = [](std::memory_order flag_store, std::memory_order flag_load) {
    return program(2, {{store(x, 1, kRlx)},
                       {load(x, kRlx), store(y, 0, flag_store)},
                       {load(y, flag_load), load(x, kRlx)}});
  };
  cases.push_back({"WRC", wrc(kRlx, kRlx), {}, {wrc_weak}});
  cases.push_back({"WRC+rel+acq", wrc(kRel, kAcq), {}, {}});  // read-read coherence along hb

  // 2+2W: [x, y]; each location ends with the value of the thread that wrote it first.
  const State w22_weak = {1, 1};
  auto w22 = [](std::memory_order o) {
    return program(2, {{store(x, 1, o), store(y, 2, o)}, {store(y, 1, o), store(x, 2, o)}});
  };
  cases.push_back({"2+2W", w22(kRlx), {}, {w22_weak}});
  cases.push_back({"2+2W+rel", w22(kRel), {}, {w22_weak}});  // RA allows it, SRA would not
  cases.push_back({"2+2W+sc", w22(kSc), {}, {}});

  // R: [x, y, r1 = x]; y ends 2 (thread 1's store last) and thread 1 read x = 0.
  const State r_weak = {1, 2, 0};
  auto r = [](std::memory_order st, std::memory_order ld, bool fence1) {
    std::vector<AtomicInstr> t1 = {store(y, 2, st)};
    if (fence1) t1.push_back(fence(kSc));
    t1.push_back(load(x, ld));
    return program(2, {{store(x, 1, st), store(y, 1, st)}, t1});
  };
  cases.push_back({"R", r(kRlx, kRlx, false), {r_weak}, {r_weak}});
  cases.push_back({"R+rel+acq", r(kRel, kAcq, false), {r_weak}, {r_weak}});
  cases.push_back({"R+sc", r(kSc, kSc, false), {}, {}});
  cases.push_back({"R+fence.sc", r(kRlx, kRlx, true), {}, {r_weak}});  // one fence: no psc cycle

  // S: [x, y, r1 = y]; thread 1 saw y = 1 and stored x = 2, yet thread 0's x = 3 comes after.
  const State s_weak = {3, 1, 1};
  auto s = [](std::memory_order flag_store, std::memory_order flag_load) {
    return program(
        2, {{store(x, 3, kRlx), store(y, 1, flag_store)}, {load(y, flag_load), store(x, 1, kRlx)}});
  };
  cases.push_back({"S", s(kRlx, kRlx), {}, {s_weak}});
  cases.push_back({"S+rel+acq", s(kRel, kAcq), {}, {}});

  // Coherence of one location: no model allows anything beyond SC.
  cases.push_back(
      {"CoRR", program(1, {{store(x, 1, kRlx)}, {load(x, kRlx), load(x, kRlx)}}), {}, {}});
  cases.push_back(
      {"CoWR", program(1, {{store(x, 1, kRlx), load(x, kRlx)}, {store(x, 2, kRlx)}}), {}, {}});
  cases.push_back(
      {"CoRW", program(1, {{load(x, kRlx), store(x, 3, kRlx)}, {store(x, 2, kRlx)}}), {}, {}});
  cases.push_back(
      {"CoWW", program(1, {{store(x, 1, kRlx), store(x, 2, kRlx)}, {load(x, kRlx)}}), {}, {}});
  return cases;
}

std::string show(const std::set<State>& states) {
  std::string s;
  for (const State& st : states) {
    s += " (";
    for (std::size_t i = 0; i < st.size(); ++i) s += (i ? "," : "") + std::to_string(st[i]);
    s += ")";
  }
  return s;
}

class OracleLitmus : public ::testing::TestWithParam<LitmusCase> {};

TEST_P(OracleLitmus, AllowsExactlyThePublishedOutcomes) {
  const LitmusCase& c = GetParam();
  const Observed sc = allowed_outcomes(c.program, AxiomaticModel::kSc);
  ASSERT_FALSE(sc.final_states.empty()) << c.name;
  for (const auto& [model, weak] : {std::pair{AxiomaticModel::kTso, c.tso_weak},
                                    std::pair{AxiomaticModel::kRc11, c.rc11_weak}}) {
    std::set<State> expected = sc.final_states;
    for (const State& w : weak) {
      EXPECT_EQ(sc.final_states.count(w), 0u) << c.name << ": a weak outcome SC allows";
      expected.insert(w);
    }
    const Observed got = allowed_outcomes(c.program, model);
    EXPECT_EQ(got.final_states, expected)
        << c.name << (model == AxiomaticModel::kTso ? " under tso" : " under rc11") << ": got"
        << show(got.final_states) << ", expected" << show(expected) << "\n"
        << c.program.describe();
  }
}

// weft itself on the same shapes, under the models it explores, with DFS and optimal DPOR.
TEST_P(OracleLitmus, WeftReachesWhatTheOracleAllows) {
  const LitmusCase& c = GetParam();
  for (const auto& [model, axioms] :
       {std::pair{MemoryModel::kSequentialConsistency, AxiomaticModel::kSc},
        std::pair{MemoryModel::kTso, AxiomaticModel::kTso},
        std::pair{MemoryModel::kRc11, AxiomaticModel::kRc11}}) {
    const Observed oracle = allowed_outcomes(c.program, axioms);
    for (const StrategyKind strategy : {StrategyKind::kDfs, StrategyKind::kOptimalDpor}) {
      Options o;
      o.strategy = strategy;
      o.memory_model = model;
      const ProgramRun run = explore_atomic_program(c.program, o);
      EXPECT_EQ(run.observed.final_states, oracle.final_states)
          << c.name << " under " << memory_model_name(model) << " with " << strategy.name()
          << ": weft" << show(run.observed.final_states) << ", oracle" << show(oracle.final_states);
    }
  }
  // The exploration of graphs (TruSt): the same outcomes, one complete execution per graph.
  Options o;
  o.strategy = StrategyKind{"trust"};
  o.memory_model = MemoryModel::kRc11;
  const ProgramRun run = explore_atomic_program(c.program, o);
  EXPECT_EQ(run.observed.final_states,
            allowed_outcomes(c.program, AxiomaticModel::kRc11).final_states)
      << c.name << " with trust: weft" << show(run.observed.final_states);
  EXPECT_EQ(run.result.stats.complete, consistent_graphs(c.program, AxiomaticModel::kRc11))
      << c.name << " with trust";
}

INSTANTIATE_TEST_SUITE_P(Shapes, OracleLitmus, ::testing::ValuesIn(litmus_cases()),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

int setting(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// The programs compared: random programs with enough candidate graphs to be interesting and few
// enough for the oracle to build them in a moment; WEFT_ORACLE_PROGRAMS of them (2,000), from
// the WEFT_ORACLE_FIRST_SEED-th (0).
constexpr double kMinGraphs = 256, kMaxGraphs = 100000;
const int kFirstSeed = setting("WEFT_ORACLE_FIRST_SEED", 0);
const int kPrograms = setting("WEFT_ORACLE_PROGRAMS", 2000);

struct Drawn {
  std::uint64_t seed;
  AtomicProgram program;
};

Drawn draw_program(int index) {
  // Seeds are taken in order, skipping programs with too many graphs; each index has its own
  // stretch of seeds, so a shard computes only its own.
  for (std::uint64_t seed = static_cast<std::uint64_t>(index) * 1000;; ++seed) {
    AtomicProgram p = generate_atomic_program(seed, 2e6);
    const double graphs = candidate_graphs(p);
    if (graphs >= kMinGraphs && graphs <= kMaxGraphs) return {seed, std::move(p)};
  }
}

// The strategy compared (WEFT_ORACLE_STRATEGY, else optimal DPOR, the default).
StrategyKind weft_strategy() {
  const char* v = std::getenv("WEFT_ORACLE_STRATEGY");
  return v && *v ? *explorer::parse_strategy(v) : StrategyKind::kOptimalDpor;
}

void expect_weft_equals_axioms(const AtomicProgram& program, const std::string& where,
                               StrategyKind strategy = weft_strategy()) {
  for (const auto& [model, axioms] :
       {std::pair{MemoryModel::kSequentialConsistency, AxiomaticModel::kSc},
        std::pair{MemoryModel::kTso, AxiomaticModel::kTso}}) {
    Options o;
    o.strategy = strategy;
    o.memory_model = model;
    const ProgramRun run = explore_atomic_program(program, o);
    ASSERT_NE(run.result.verdict, Verdict::kIncomplete) << where;
    const Observed oracle = allowed_outcomes(program, axioms);
    EXPECT_EQ(run.observed.final_states, oracle.final_states)
        << memory_model_name(model) << ": weft" << show(run.observed.final_states) << ", oracle"
        << show(oracle.final_states) << "; " << where;
    EXPECT_EQ(run.observed.bugs, oracle.bugs) << memory_model_name(model) << "; " << where;
  }
}

class OracleRandom : public ::testing::TestWithParam<int> {};

TEST_P(OracleRandom, WeftEqualsTheAxioms) {
  const Drawn d = draw_program(GetParam());
  expect_weft_equals_axioms(
      d.program, "seed " + std::to_string(d.seed) + ", program:\n" + d.program.describe());
}

INSTANTIATE_TEST_SUITE_P(Programs, OracleRandom,
                         ::testing::Range(kFirstSeed, kFirstSeed + kPrograms));

class OracleWeak : public ::testing::TestWithParam<int> {};

TEST_P(OracleWeak, WeftEqualsTheAxioms) {
  const std::uint64_t seed = static_cast<std::uint64_t>(GetParam());
  const AtomicProgram p = generate_weak_program(seed);
  expect_weft_equals_axioms(p, "weak seed " + std::to_string(seed) + ", program:\n" + p.describe());
}

INSTANTIATE_TEST_SUITE_P(Programs, OracleWeak,
                         ::testing::Range(kFirstSeed, kFirstSeed + kPrograms));

// The programs grown from litmus shapes are the ones that tell the models apart: a share of
// them has outcomes x86-TSO allows and SC does not, and a larger share RC11's.
TEST(OracleWeakPrograms, HaveWeakOutcomes) {
  int tso = 0, rc11 = 0;
  constexpr int kCount = 500;
  for (int seed = 0; seed < kCount; ++seed) {
    const AtomicProgram p = generate_weak_program(static_cast<std::uint64_t>(seed));
    const Observed sc = allowed_outcomes(p, AxiomaticModel::kSc);
    tso += allowed_outcomes(p, AxiomaticModel::kTso).final_states != sc.final_states;
    rc11 += allowed_outcomes(p, AxiomaticModel::kRc11).final_states != sc.final_states;
  }
  EXPECT_GE(tso, kCount / 20) << "of " << kCount;
  EXPECT_GE(rc11, kCount / 4) << "of " << kCount;
}

}  // namespace
}  // namespace weft::testing
