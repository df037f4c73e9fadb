#include "weft/symbolic/solver.hpp"

#include <z3++.h>

#include <algorithm>
#include <numeric>

namespace weft::symbolic {
namespace {

// Union-find over input numbers, for slicing.
class InputPartition {
 public:
  explicit InputPartition(std::size_t n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<std::size_t> parent_;
};

// The nodes under `roots`, operands first, each once; inputs named by their stable id, so the
// text is the same for the same query in every execution.
std::string canonical_text(const ExpressionPool& pool, std::span<const Constraint> constraints,
                           std::span<const InputVariable> inputs) {
  std::unordered_map<ExprId, std::size_t> number;
  std::string text;
  std::vector<std::pair<ExprId, bool>> stack;
  for (const Constraint& c : constraints) {
    stack.push_back({c.condition, false});
    while (!stack.empty()) {
      auto [e, expanded] = stack.back();
      stack.pop_back();
      if (number.contains(e)) continue;
      const ExprNode& n = pool[e];
      if (!expanded) {
        stack.push_back({e, true});
        for (ExprId operand : {n.c, n.b, n.a})
          if (operand != kConcrete && !number.contains(operand)) stack.push_back({operand, false});
        continue;
      }
      const std::uint64_t value = n.kind == ExprKind::kInput && n.value < inputs.size()
                                      ? inputs[n.value].stable_id
                                      : n.value;
      // Appended piece by piece: char + temporary trips GCC 12's -Wrestrict at -O3.
      text += std::to_string(static_cast<int>(n.kind));
      text += ',';
      text += std::to_string(n.width);
      text += ',';
      text += std::to_string(value);
      for (ExprId operand : {n.a, n.b, n.c})
        if (operand != kConcrete) {
          text += ',';
          text += std::to_string(number.at(operand));
        }
      text += ';';
      number.emplace(e, number.size());
    }
    text += c.holds ? 'T' : 'F';
    text += std::to_string(number.at(c.condition));
    text += ';';
  }
  return text;
}

// The expressions of one pool as Z3's, in one context, each translated once.
struct Translation {
  z3::context& ctx;
  const ExpressionPool& pool;
  std::unordered_map<ExprId, z3::expr> memo;
  z3::expr operator()(ExprId e);
};

z3::expr Translation::operator()(ExprId e) {
  auto bool_to_bv = [&](const z3::expr& b) {
    return z3::ite(b, ctx.bv_val(1, 1), ctx.bv_val(0, 1));
  };
  if (auto it = memo.find(e); it != memo.end()) return it->second;
  const ExprNode& n = pool[e];
  z3::expr r(ctx);
  if (n.kind == ExprKind::kConstant) {
    r = ctx.bv_val(static_cast<std::uint64_t>(n.value), n.width);
  } else if (n.kind == ExprKind::kInput) {
    r = ctx.bv_const(("in" + std::to_string(n.value)).c_str(), n.width);
  } else {
    const z3::expr a = (*this)(n.a);
    const z3::expr b = n.b ? (*this)(n.b) : a;
    switch (n.kind) {
      case ExprKind::kNot:
        r = ~a;
        break;
      case ExprKind::kNeg:
        r = -a;
        break;
      case ExprKind::kZExt:
        r = z3::zext(a, n.width - pool[n.a].width);
        break;
      case ExprKind::kSExt:
        r = z3::sext(a, n.width - pool[n.a].width);
        break;
      case ExprKind::kExtract:
        r = a.extract(static_cast<unsigned>(n.value) + n.width - 1, static_cast<unsigned>(n.value));
        break;
      case ExprKind::kAdd:
        r = a + b;
        break;
      case ExprKind::kSub:
        r = a - b;
        break;
      case ExprKind::kMul:
        r = a * b;
        break;
      case ExprKind::kUDiv:
        r = z3::udiv(a, b);
        break;
      case ExprKind::kSDiv:
        r = a / b;
        break;
      case ExprKind::kURem:
        r = z3::urem(a, b);
        break;
      case ExprKind::kSRem:
        r = z3::srem(a, b);
        break;
      case ExprKind::kAnd:
        r = a & b;
        break;
      case ExprKind::kOr:
        r = a | b;
        break;
      case ExprKind::kXor:
        r = a ^ b;
        break;
      case ExprKind::kShl:
        r = z3::shl(a, b);
        break;
      case ExprKind::kLShr:
        r = z3::lshr(a, b);
        break;
      case ExprKind::kAShr:
        r = z3::ashr(a, b);
        break;
      case ExprKind::kConcat:
        r = z3::concat(a, b);
        break;
      case ExprKind::kEq:
        r = bool_to_bv(a == b);
        break;
      case ExprKind::kNe:
        r = bool_to_bv(a != b);
        break;
      case ExprKind::kUlt:
        r = bool_to_bv(z3::ult(a, b));
        break;
      case ExprKind::kUle:
        r = bool_to_bv(z3::ule(a, b));
        break;
      case ExprKind::kSlt:
        r = bool_to_bv(a < b);
        break;
      case ExprKind::kSle:
        r = bool_to_bv(a <= b);
        break;
      case ExprKind::kIte:
        r = z3::ite(a == ctx.bv_val(1, 1), b, (*this)(n.c));
        break;
      case ExprKind::kConstant:
      case ExprKind::kInput:
        break;
    }
  }
  memo.emplace(e, r);
  return r;
}

// Z3's answer to `slice` and, if satisfiable, the values of the `involved` inputs, from a fresh
// `solver` of context `ctx`.
struct Z3Answer {
  z3::check_result result = z3::unknown;
  std::vector<std::uint64_t> values;  // by involved input
};

Z3Answer ask(z3::context& ctx, z3::solver& solver, const ExpressionPool& pool,
             std::span<const Constraint> slice, std::span<const std::uint32_t> involved,
             std::span<const InputVariable> inputs) {
  Translation translate{ctx, pool, {}};
  for (const Constraint& c : slice) {
    const z3::expr e = translate(c.condition);
    const z3::expr zero = ctx.bv_val(0, pool[c.condition].width);
    solver.add(c.holds ? e != zero : e == zero);
  }
  Z3Answer answer;
  answer.result = solver.check();
  if (answer.result == z3::sat) {
    const z3::model model = solver.get_model();
    for (std::uint32_t i : involved) {
      const z3::expr var = ctx.bv_const(("in" + std::to_string(i)).c_str(), inputs[i].width);
      std::uint64_t v = 0;
      if (!model.eval(var, true).is_numeral_u64(v)) answer.result = z3::unknown;
      answer.values.push_back(v);
    }
  }
  return answer;
}

void limit_time(z3::context& ctx, z3::solver& solver, unsigned ms) {
  if (ms == 0) return;
  z3::params params(ctx);
  params.set("timeout", ms);
  solver.set(params);
}

}  // namespace

// How long the SAT solver may try a query before the word-level solver gets it (Solver::solve).
constexpr unsigned kBitBlastLimitMs = 1000;

// One context for every query; each query gets fresh solvers in it.
struct Solver::Z3State {
  z3::context context;
};

// Z3's context is made at the first query: a program that reads no input never pays for it.
Solver::Solver(unsigned timeout_ms) : timeout_ms_(timeout_ms) {}
Solver::~Solver() = default;

Solution Solver::solve(const ExpressionPool& pool, std::span<const Constraint> path,
                       Constraint target, std::span<const InputVariable> inputs) {
  const auto started = std::chrono::steady_clock::now();
  ++stats_.queries;
  Solution solution;
  solution.values.reserve(inputs.size());
  for (const InputVariable& v : inputs) solution.values.push_back(v.value);

  // The slice: constraints connected to the target through shared inputs.
  InputPartition partition(inputs.size());
  std::vector<std::vector<std::uint32_t>> used(path.size() + 1);
  for (std::size_t i = 0; i <= path.size(); ++i) {
    used[i] = pool.inputs_of(i < path.size() ? path[i].condition : target.condition);
    for (std::size_t k = 1; k < used[i].size(); ++k) partition.join(used[i][0], used[i][k]);
  }
  std::vector<Constraint> slice;
  if (!used.back().empty()) {
    const std::size_t root = partition.find(used.back()[0]);
    for (std::size_t i = 0; i < path.size(); ++i)
      if (!used[i].empty() && partition.find(used[i][0]) == root) slice.push_back(path[i]);
  }
  slice.push_back(target);
  std::vector<std::uint32_t> involved;
  for (std::size_t i = 0; i <= path.size(); ++i)
    if (!used[i].empty() && !used.back().empty() &&
        partition.find(used[i][0]) == partition.find(used.back()[0]))
      involved.insert(involved.end(), used[i].begin(), used[i].end());
  std::sort(involved.begin(), involved.end());
  involved.erase(std::unique(involved.begin(), involved.end()), involved.end());

  auto holds_under = [&](const std::vector<std::uint64_t>& values) {
    return std::all_of(slice.begin(), slice.end(), [&](const Constraint& c) {
      return (pool.evaluate(c.condition, values) != 0) == c.holds;
    });
  };
  auto finish = [&](Answer answer) {
    solution.answer = answer;
    if (answer == Answer::kUnsatisfiable) ++stats_.unsatisfiable;
    if (answer == Answer::kUnknown) ++stats_.unknown;
    if (answer != Answer::kSatisfiable) solution.values.clear();
    stats_.time += std::chrono::steady_clock::now() - started;
    return solution;
  };

  const std::string key = canonical_text(pool, slice, inputs);
  if (auto it = cache_.find(key); it != cache_.end()) {
    ++stats_.cache_hits;
    if (it->second.answer != Answer::kSatisfiable) return finish(it->second.answer);
    for (std::uint32_t i : involved)
      for (const auto& [id, value] : it->second.values)
        if (inputs[i].stable_id == id) solution.values[i] = value;
    if (holds_under(solution.values)) return finish(Answer::kSatisfiable);
    // The same text always means the same query, so this cannot happen; if it did, Z3 decides.
  }

  ++stats_.solver_calls;
  if (!z3_) z3_ = std::make_unique<Z3State>();
  // Simplified and bit-blasted to SAT first, with at most a second: on the queries concurrent
  // programs make, mostly linear with some products of inputs, this is fastest (Updater 1 and
  // 2: 15 s of Z3 in all, against 50 s with Z3's default QF_BV solver, which timed out twice,
  // and 20 s with its incremental one; bench/thesis). What it cannot decide then goes to the
  // default QF_BV solver, whose word-level reasoning may, with the full limit.
  z3::context& ctx = z3_->context;
  const unsigned first_limit =
      timeout_ms_ == 0 ? kBitBlastLimitMs : std::min(timeout_ms_, kBitBlastLimitMs);
  z3::solver bit_blasting =
      (z3::tactic(ctx, "simplify") & z3::tactic(ctx, "bit-blast") & z3::tactic(ctx, "sat"))
          .mk_solver();
  limit_time(ctx, bit_blasting, first_limit);
  Z3Answer answer = ask(ctx, bit_blasting, pool, slice, involved, inputs);
  if (answer.result == z3::unknown) {
    z3::solver word_level(ctx, "QF_BV");
    limit_time(ctx, word_level, timeout_ms_);
    answer = ask(ctx, word_level, pool, slice, involved, inputs);
  }
  if (answer.result == z3::unsat) {
    cache_.emplace(key, CachedAnswer{Answer::kUnsatisfiable, {}});
    return finish(Answer::kUnsatisfiable);
  }
  if (answer.result != z3::sat) return finish(Answer::kUnknown);  // not cached: may pass later
  CachedAnswer cached{Answer::kSatisfiable, {}};
  for (std::size_t k = 0; k < involved.size(); ++k) {
    solution.values[involved[k]] = answer.values[k];
    cached.values.emplace_back(inputs[involved[k]].stable_id, answer.values[k]);
  }
  if (!holds_under(solution.values)) return finish(Answer::kUnknown);
  cache_.emplace(key, std::move(cached));
  return finish(Answer::kSatisfiable);
}

}  // namespace weft::symbolic
