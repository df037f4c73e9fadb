#include "atomic_program.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "weft/weft.hpp"

namespace weft::testing {
namespace {

const char* order_name(std::memory_order order) {
  switch (order) {
    case std::memory_order_relaxed:
      return "rlx";
    case std::memory_order_acquire:
      return "acq";
    case std::memory_order_release:
      return "rel";
    case std::memory_order_acq_rel:
      return "acq_rel";
    default:
      return "sc";
  }
}

// Upper bound on interleavings under x86-TSO: the multinomial of the event counts of main (its
// creates and joins), each thread (an instruction, a fence before a fetch-add, the fence at its
// end) and each store buffer (a flush per store).
double interleaving_bound(const AtomicProgram& p) {
  std::vector<int> counts;
  counts.push_back(2 * static_cast<int>(p.threads.size()));
  for (const auto& t : p.threads) {
    int visible = 1, flushes = 0;
    for (const auto& i : t) {
      visible += i.kind == AtomicInstr::kFetchAdd ? 2 : i.kind != AtomicInstr::kAssertNot;
      flushes += i.kind == AtomicInstr::kStore;
    }
    counts.push_back(visible);
    counts.push_back(flushes);
  }
  double log_bound = 0;
  int total = 0;
  for (int c : counts) {
    total += c;
    log_bound += std::lgamma(total + 1) - std::lgamma(total - c + 1) - std::lgamma(c + 1);
  }
  return std::exp(log_bound);
}

// The orders each kind of access is drawn with.
constexpr std::memory_order kLoadOrders[] = {std::memory_order_relaxed, std::memory_order_acquire,
                                             std::memory_order_seq_cst};
constexpr std::memory_order kStoreOrders[] = {std::memory_order_relaxed, std::memory_order_release,
                                              std::memory_order_seq_cst};
constexpr std::memory_order kAnyOrder[] = {std::memory_order_relaxed, std::memory_order_acquire,
                                           std::memory_order_release, std::memory_order_acq_rel,
                                           std::memory_order_seq_cst};

AtomicProgram draw(std::mt19937_64& rng, const AtomicProgramShape& shape) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  AtomicProgram p;
  p.vars = uniform(1, shape.max_vars);
  const int n = uniform(shape.min_threads, shape.max_threads);
  const auto& w = shape.weights;
  for (int t = 0; t < n; ++t) {
    std::vector<AtomicInstr> code;
    const int length = uniform(shape.min_length, shape.max_length);
    while (static_cast<int>(code.size()) < length) {
      int roll = uniform(0, w[0] + w[1] + w[2] + w[3] + w[4] - 1);
      AtomicInstr in{};
      in.var = uniform(0, p.vars - 1);
      // roll picks a kind by its weight: past the loads' share, the stores', and so on.
      if (roll < w[0]) {
        in.kind = AtomicInstr::kLoad;
        in.order = kLoadOrders[uniform(0, 2)];
      } else if ((roll -= w[0]) < w[1]) {
        in.kind = AtomicInstr::kStore;
        in.value = uniform(1, 2);
        in.order = kStoreOrders[uniform(0, 2)];
      } else if ((roll -= w[1]) < w[2]) {
        in.kind = AtomicInstr::kFetchAdd;
        in.value = 1;
        in.order = kAnyOrder[uniform(0, 4)];
      } else if ((roll -= w[2]) < w[3]) {
        in.kind = AtomicInstr::kFence;
        in.order = kAnyOrder[uniform(1, 4)];
      } else {
        in.kind = AtomicInstr::kAssertNot;
        in.value = uniform(0, 2);
      }
      code.push_back(in);
    }
    p.threads.push_back(std::move(code));
  }
  return p;
}

// The classic litmus shapes, as (kind, location) per thread: the skeletons weak programs grow
// from.
struct Skeleton {
  std::vector<std::vector<std::pair<AtomicInstr::Kind, int>>> threads;
};

std::vector<Skeleton> skeletons() {
  constexpr auto L = AtomicInstr::kLoad, S = AtomicInstr::kStore;
  return {
      {{{{S, 0}, {L, 1}}, {{S, 1}, {L, 0}}}},                      // SB
      {{{{S, 0}, {S, 1}}, {{L, 1}, {L, 0}}}},                      // MP
      {{{{L, 0}, {S, 1}}, {{L, 1}, {S, 0}}}},                      // LB
      {{{{S, 0}}, {{S, 1}}, {{L, 0}, {L, 1}}, {{L, 1}, {L, 0}}}},  // IRIW
      {{{{S, 0}}, {{L, 0}, {S, 1}}, {{L, 1}, {L, 0}}}},            // WRC
      {{{{S, 0}, {S, 1}}, {{S, 1}, {S, 0}}}},                      // 2+2W
      {{{{S, 0}, {S, 1}}, {{S, 1}, {L, 0}}}},                      // R
      {{{{S, 0}, {S, 1}}, {{L, 1}, {S, 0}}}},                      // S
      {{{{S, 0}, {S, 1}}, {{L, 1}, {S, 2}}, {{L, 2}, {L, 0}}}},    // ISA2
      {{{{S, 0}, {L, 1}}, {{S, 1}, {L, 2}}, {{S, 2}, {L, 0}}}},    // 3.SB
      {{{{S, 0}}, {{L, 0}, {L, 0}}}},                              // CoRR
      {{{{S, 0}, {S, 0}}, {{L, 0}, {S, 0}}}},                      // coherence of one location
  };
}

}  // namespace

std::string AtomicProgram::describe() const {
  std::string s = std::to_string(vars) + " atomic locations\n";
  for (std::size_t t = 0; t < threads.size(); ++t) {
    s += "thread " + std::to_string(t) + ":";
    for (const auto& i : threads[t]) {
      const std::string x = "x" + std::to_string(i.var);
      switch (i.kind) {
        case AtomicInstr::kLoad:
          s += " r=" + x + "." + order_name(i.order) + ";";
          break;
        case AtomicInstr::kStore:
          s += " " + x + "." + order_name(i.order) + "=r+" + std::to_string(i.value) + ";";
          break;
        case AtomicInstr::kFetchAdd:
          s += " r=" + x + "." + order_name(i.order) + "+=" + std::to_string(i.value) + ";";
          break;
        case AtomicInstr::kFence:
          s += std::string(" fence.") + order_name(i.order) + ";";
          break;
        case AtomicInstr::kAssertNot:
          s += " assert(r!=" + std::to_string(i.value) + ");";
          break;
      }
    }
    s += "\n";
  }
  return s;
}

AtomicProgram generate_atomic_program(std::uint64_t seed, double max_interleavings,
                                      const AtomicProgramShape& shape) {
  std::mt19937_64 rng(seed);
  for (;;) {
    AtomicProgram p = draw(rng, shape);
    if (interleaving_bound(p) <= max_interleavings) return p;
  }
}

static AtomicProgram grow_weak_program(std::mt19937_64& rng) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  static const std::vector<Skeleton> kSkeletons = skeletons();
  const Skeleton& base = kSkeletons[uniform(0, static_cast<int>(kSkeletons.size()) - 1)];
  AtomicProgram p;
  for (const auto& t : base.threads)
    for (const auto& [kind, var] : t) p.vars = std::max(p.vars, var + 1);
  auto random_fence = [&] {
    return AtomicInstr{AtomicInstr::kFence, 0, 0, kAnyOrder[uniform(1, 4)]};
  };
  for (const auto& t : base.threads) {
    std::vector<AtomicInstr> code;
    for (const auto& [kind, var] : t) {
      if (!code.empty() && uniform(0, 4) == 0) code.push_back(random_fence());
      AtomicInstr in{kind, var, 1, std::memory_order_relaxed};
      if (kind == AtomicInstr::kLoad) {
        in.value = 0;
        in.order = kLoadOrders[uniform(0, 2)];
      } else {
        in.order = kStoreOrders[uniform(0, 2)];
      }
      if (uniform(0, 7) == 0) in = {AtomicInstr::kFetchAdd, var, 1, kAnyOrder[uniform(0, 4)]};
      code.push_back(in);
    }
    if (uniform(0, 5) == 0) code.push_back({AtomicInstr::kAssertNot, 0, uniform(0, 2)});
    p.threads.push_back(std::move(code));
  }
  // Now and then a thread more, of one or two random accesses.
  if (uniform(0, 4) == 0) {
    std::vector<AtomicInstr> code;
    for (int k = uniform(1, 2); k > 0; --k) {
      const int var = uniform(0, p.vars - 1);
      if (uniform(0, 1) == 0)
        code.push_back({AtomicInstr::kLoad, var, 0, kLoadOrders[uniform(0, 2)]});
      else
        code.push_back({AtomicInstr::kStore, var, uniform(1, 2), kStoreOrders[uniform(0, 2)]});
    }
    p.threads.push_back(std::move(code));
  }
  return p;
}

AtomicProgram generate_weak_program(std::uint64_t seed, double max_interleavings) {
  std::mt19937_64 rng(seed ^ 0x5eed'0f'11'7e57ULL);
  for (;;) {
    AtomicProgram p = grow_weak_program(rng);
    if (interleaving_bound(p) <= max_interleavings) return p;
  }
}

void run_atomic_program(const AtomicProgram& p, Observed& out) {
  std::vector<std::unique_ptr<atomic<int>>> vars;
  for (int v = 0; v < p.vars; ++v) vars.push_back(std::make_unique<atomic<int>>(0));
  std::vector<std::vector<int>> reads(p.threads.size());
  std::vector<thread> threads;
  for (std::size_t t = 0; t < p.threads.size(); ++t) {
    threads.emplace_back([&, t] {
      int r = 0;
      for (std::size_t k = 0; k < p.threads[t].size(); ++k) {
        const AtomicInstr& in = p.threads[t][k];
        atomic<int>& x = *vars[in.var];
        switch (in.kind) {
          case AtomicInstr::kLoad:
            r = x.load(in.order);
            reads[t].push_back(r);
            break;
          case AtomicInstr::kStore:
            x.store(r + in.value, in.order);
            break;
          case AtomicInstr::kFetchAdd:
            r = x.fetch_add(in.value, in.order);
            reads[t].push_back(r);
            break;
          case AtomicInstr::kFence:
            weft::atomic_thread_fence(in.order);
            break;
          case AtomicInstr::kAssertNot:
            if (r == in.value)
              detail::scheduler("test").fail(
                  Outcome::kAssertionFailure,
                  "assert in thread " + std::to_string(t) + " at " + std::to_string(k));
            break;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<int> state;
  for (auto& v : vars) state.push_back(v->load());
  for (const auto& r : reads) state.insert(state.end(), r.begin(), r.end());
  out.final_states.insert(std::move(state));
}

ProgramRun explore_atomic_program(const AtomicProgram& p, Options options) {
  ProgramRun r;
  options.stop_on_first_bug = false;
  r.result = explore(options, [&] { run_atomic_program(p, r.observed); });
  for (const auto& b : r.result.bugs) r.observed.bugs.insert(b.message);
  return r;
}

}  // namespace weft::testing
