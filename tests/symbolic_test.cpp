// The symbolic layer: expressions fold and compute what C computes; the solver finds inputs for
// a path, refutes impossible ones, slices and caches (thesis §2.2, Fig. 2.3).
#include <gtest/gtest.h>

#include <random>

#include "weft/symbolic/expression.hpp"
#include "weft/symbolic/predicate.hpp"
#include "weft/symbolic/solver.hpp"

namespace weft::symbolic {
namespace {

TEST(Expression, FoldsConstantsAndSimpleIdentities) {
  ExpressionPool pool;
  const ExprId x = pool.input(32, 0);
  EXPECT_EQ(pool.binary(ExprKind::kAdd, pool.constant(32, 3), pool.constant(32, 4)),
            pool.constant(32, 7));
  EXPECT_EQ(pool.binary(ExprKind::kAdd, x, pool.constant(32, 0)), x);
  EXPECT_EQ(pool.binary(ExprKind::kMul, pool.constant(32, 1), x), x);
  // Commutative operations put the constant second, so both spellings are one node.
  EXPECT_EQ(pool.binary(ExprKind::kAdd, pool.constant(32, 5), x),
            pool.binary(ExprKind::kAdd, x, pool.constant(32, 5)));
  EXPECT_EQ(pool.unary(ExprKind::kNot, pool.binary(ExprKind::kEq, x, pool.constant(32, 2))),
            pool.binary(ExprKind::kNe, x, pool.constant(32, 2)));
  // (int)(x < 3) != 0 is x < 3.
  const ExprId less = pool.binary(ExprKind::kSlt, x, pool.constant(32, 3));
  EXPECT_EQ(pool.is_nonzero(pool.extend(ExprKind::kZExt, less, 32)), less);
}

TEST(Expression, BytesStoredAndLoadedBackAreTheValueAgain) {
  ExpressionPool pool;
  const ExprId x = pool.input(32, 0);
  ExprId bytes[4];
  for (unsigned i = 0; i < 4; ++i) bytes[i] = pool.extract(x, 8 * i, 8);
  const ExprId loaded =
      pool.concat(pool.concat(bytes[3], bytes[2]), pool.concat(bytes[1], bytes[0]));
  EXPECT_EQ(loaded, x);
  // The low half of it, and a byte of a sign-extended value.
  EXPECT_EQ(pool.concat(bytes[1], bytes[0]), pool.extract(x, 0, 16));
  EXPECT_EQ(pool.extract(pool.extend(ExprKind::kSExt, x, 64), 8, 8), bytes[1]);
}

// Every operation computes what C computes on the same widths (the folding and the evaluator
// share apply(), the solver must agree with both).
// Expressions of several executions in one pool (the unfolding strategies' path constraints):
// an imported expression computes the same with its inputs renumbered, and importing it again
// gives the same node.
TEST(Expression, ImportRenumbersInputsAndComputesTheSame) {
  ExpressionPool from;
  const ExprId sum = from.binary(ExprKind::kAdd, from.input(32, 0), from.input(32, 1));
  const ExprId e = from.binary(ExprKind::kSlt, sum, from.constant(32, 7));
  ExpressionPool into;
  into.input(32, 5);  // something there already
  const std::uint32_t numbers[] = {2, 0};
  const ExprId imported = into.import(from, e, numbers);
  EXPECT_EQ(into.import(from, e, numbers), imported);
  for (std::uint64_t a : {0u, 3u, 9u})
    for (std::uint64_t b : {1u, 4u}) {
      const std::uint64_t original[] = {a, b}, renumbered[] = {b, 0, a};
      EXPECT_EQ(into.evaluate(imported, renumbered), from.evaluate(e, original));
    }
  EXPECT_EQ(into.inputs_of(imported), (std::vector<std::uint32_t>{0, 2}));
}

// A pool cut back to its first nodes builds what it builds afresh: the nodes cut are gone from
// the index that shares equal nodes, and those kept are still shared.
TEST(Expression, KeptFirstNodesAreAPoolAsIfTheRestWasNeverBuilt) {
  ExpressionPool pool;
  const ExprId x = pool.input(32, 0);
  const ExprId kept = pool.binary(ExprKind::kAdd, x, pool.constant(32, 1));
  const std::size_t size = pool.size();
  const ExprId cut = pool.binary(ExprKind::kMul, kept, pool.input(32, 1));
  ASSERT_GT(cut, size);
  pool.keep_first(size);
  EXPECT_EQ(pool.size(), size);
  EXPECT_EQ(pool.binary(ExprKind::kAdd, x, pool.constant(32, 1)), kept);
  const ExprId again = pool.binary(ExprKind::kMul, kept, pool.input(32, 1));
  EXPECT_EQ(pool.size(), size + 2);  // the input and the product, built again
  const std::uint64_t values[] = {4, 5};
  EXPECT_EQ(pool.evaluate(again, values), 25u);
  pool.keep_first(pool.size() + 3);  // more than it has: nothing changes
  EXPECT_EQ(pool.size(), size + 2);
}

TEST(Expression, ComputesWhatCComputes) {
  std::mt19937_64 random(7);
  ExpressionPool pool;
  for (int round = 0; round < 2000; ++round) {
    const std::int32_t a = static_cast<std::int32_t>(random()),
                       b = static_cast<std::int32_t>(random() % 7 == 0 ? 0 : random());
    const auto ua = static_cast<std::uint32_t>(a), ub = static_cast<std::uint32_t>(b);
    const std::uint64_t values[] = {ua, ub};
    const ExprId x = pool.input(32, 0), y = pool.input(32, 1);
    auto eval = [&](ExprKind k) {
      return static_cast<std::uint32_t>(pool.evaluate(pool.binary(k, x, y), values));
    };
    EXPECT_EQ(eval(ExprKind::kAdd), ua + ub);
    EXPECT_EQ(eval(ExprKind::kSub), ua - ub);
    EXPECT_EQ(eval(ExprKind::kMul), ua * ub);
    EXPECT_EQ(eval(ExprKind::kAnd), ua & ub);
    EXPECT_EQ(eval(ExprKind::kXor), ua ^ ub);
    EXPECT_EQ(eval(ExprKind::kSlt), a < b ? 1u : 0u);
    EXPECT_EQ(eval(ExprKind::kUle), ua <= ub ? 1u : 0u);
    if (b != 0) {
      EXPECT_EQ(eval(ExprKind::kUDiv), ua / ub);
      EXPECT_EQ(eval(ExprKind::kURem), ua % ub);
      if (!(a == INT32_MIN && b == -1)) {
        EXPECT_EQ(eval(ExprKind::kSDiv), static_cast<std::uint32_t>(a / b));
        EXPECT_EQ(eval(ExprKind::kSRem), static_cast<std::uint32_t>(a % b));
      }
    }
    const std::uint64_t shift_values[] = {ua, ub % 32};
    auto shift = [&](ExprKind k) {
      return static_cast<std::uint32_t>(pool.evaluate(pool.binary(k, x, y), shift_values));
    };
    EXPECT_EQ(shift(ExprKind::kShl), ua << (ub % 32));
    EXPECT_EQ(shift(ExprKind::kLShr), ua >> (ub % 32));
    EXPECT_EQ(shift(ExprKind::kAShr), static_cast<std::uint32_t>(a >> (ub % 32)));
    EXPECT_EQ(pool.evaluate(pool.extend(ExprKind::kSExt, pool.extract(x, 0, 8), 64), values),
              static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int8_t>(a))));
  }
}

std::vector<InputVariable> two_ints(std::uint64_t x, std::uint64_t y) {
  return {InputVariable{32, x, 1}, InputVariable{32, y, 2}};
}

// Thesis Fig. 2.3, Example 2: x > y && x * y == 1452 && x / 2 == 5 looks unsatisfiable, but
// with 32-bit integers the product overflows (x = 10, y = -858993314 is one answer).
TEST(Solver, FindsTheOverflowingAnswerOfThesisFigure2_3) {
  ExpressionPool pool;
  const ExprId x = pool.input(32, 0), y = pool.input(32, 1);
  const Constraint path[] = {
      {pool.binary(ExprKind::kSlt, y, x), true},
      {pool.binary(ExprKind::kEq, pool.binary(ExprKind::kMul, x, y), pool.constant(32, 1452)),
       true}};
  const Constraint target{
      pool.binary(ExprKind::kEq, pool.binary(ExprKind::kSDiv, x, pool.constant(32, 2)),
                  pool.constant(32, 5)),
      true};
  Solver solver;
  const auto inputs = two_ints(5, 0);
  const Solution s = solver.solve(pool, path, target, inputs);
  ASSERT_EQ(s.answer, Answer::kSatisfiable);
  const auto x_value = static_cast<std::int32_t>(s.values[0]);
  const auto y_value = static_cast<std::int32_t>(s.values[1]);
  EXPECT_GT(x_value, y_value);
  EXPECT_EQ(static_cast<std::int32_t>(static_cast<std::uint32_t>(x_value) *
                                      static_cast<std::uint32_t>(y_value)),
            1452);
  EXPECT_EQ(x_value / 2, 5);
}

TEST(Solver, RefutesAnImpossiblePathAndCachesTheAnswer) {
  ExpressionPool pool;
  const ExprId x = pool.input(32, 0);
  const Constraint path[] = {{pool.binary(ExprKind::kSlt, x, pool.constant(32, 5)), true}};
  const Constraint target{pool.binary(ExprKind::kSlt, pool.constant(32, 10), x), true};
  Solver solver;
  const auto inputs = two_ints(0, 0);
  EXPECT_EQ(solver.solve(pool, path, target, inputs).answer, Answer::kUnsatisfiable);
  // The same query in another execution's numbering (x is input 1 there) hits the cache.
  ExpressionPool other;
  const ExprId unrelated = other.input(32, 0);
  const ExprId x2 = other.input(32, 1);
  (void)unrelated;
  const Constraint path2[] = {{other.binary(ExprKind::kSlt, x2, other.constant(32, 5)), true}};
  const Constraint target2{other.binary(ExprKind::kSlt, other.constant(32, 10), x2), true};
  const std::vector<InputVariable> inputs2 = {InputVariable{32, 0, 9}, InputVariable{32, 0, 1}};
  EXPECT_EQ(solver.solve(other, path2, target2, inputs2).answer, Answer::kUnsatisfiable);
  EXPECT_EQ(solver.statistics().queries, 2u);
  EXPECT_EQ(solver.statistics().cache_hits, 1u);
  EXPECT_EQ(solver.statistics().solver_calls, 1u);
}

// Constraints on inputs the target does not involve are left out of the query, and those inputs
// keep their values (which satisfy them).
TEST(Solver, SlicesAwayIndependentConstraints) {
  ExpressionPool pool;
  const ExprId x = pool.input(32, 0), y = pool.input(32, 1);
  const Constraint path[] = {{pool.binary(ExprKind::kEq, y, pool.constant(32, 77)), true},
                             {pool.binary(ExprKind::kUlt, x, pool.constant(32, 100)), true}};
  const Constraint target{pool.binary(ExprKind::kEq, x, pool.constant(32, 42)), true};
  Solver solver;
  const auto inputs = two_ints(3, 77);
  const Solution s = solver.solve(pool, path, target, inputs);
  ASSERT_EQ(s.answer, Answer::kSatisfiable);
  EXPECT_EQ(s.values[0], 42u);
  EXPECT_EQ(s.values[1], 77u);
  // A target on y alone keeps x as it was.
  const Constraint on_y{pool.binary(ExprKind::kEq, y, pool.constant(32, 77)), false};
  const Constraint only_x[] = {path[1]};
  const Solution t = solver.solve(pool, only_x, on_y, inputs);
  ASSERT_EQ(t.answer, Answer::kSatisfiable);
  EXPECT_EQ(t.values[0], 3u);
  EXPECT_NE(t.values[1], 77u);
}

}  // namespace

// --check-global's predicates: C precedence and conversions, variables extended by their type,
// locations as 1-bit atoms, and errors that name the column.
namespace predicate_test {

std::optional<VariableType> types(const std::string& name) {
  if (name == "x") return VariableType{32, true};
  if (name == "u") return VariableType{8, false};
  if (name == "big") return VariableType{64, true};
  return std::nullopt;
}

bool holds(const Predicate& p, std::vector<std::uint64_t> values) {
  return p.holds(values);
}

TEST(Predicate, FollowsCPrecedenceAndSignedness) {
  const Predicate p = parse_predicate("x + 2 * u > 10 && !(x == 3) || u % 4 == 3", types);
  ASSERT_EQ(p.atoms.size(), 2u);
  EXPECT_EQ(p.atoms[0].name, "x");
  EXPECT_EQ(p.atoms[1].name, "u");
  EXPECT_TRUE(holds(p, {5, 3}));   // 5 + 6 > 10, x != 3
  EXPECT_FALSE(holds(p, {3, 4}));  // x == 3 and 4 % 4 != 3
  EXPECT_TRUE(holds(p, {3, 7}));   // the || side
  EXPECT_FALSE(holds(p, {1, 4}));  // 1 + 8 < 10
  // x is a signed int: 0xFFFFFFFF is -1; u an unsigned char: 0xFF is 255.
  const Predicate q = parse_predicate("x < 0 && u > 200 && -x == 1", types);
  EXPECT_TRUE(holds(q, {0xFFFFFFFFull, 0xFF}));
  EXPECT_FALSE(holds(q, {1, 0xFF}));
  const Predicate r = parse_predicate("big / 0x10 == -2 && x - -3 >= 3L", types);
  EXPECT_TRUE(holds(r, {static_cast<std::uint64_t>(-32), 0}));
}

TEST(Predicate, LocationsAreAtomsOfOneBitAndAnAtomWrittenTwiceIsOne) {
  const Predicate p = parse_predicate("at(0.1, 12) && (at(0.2,7) || x == x + 0)", types);
  ASSERT_EQ(p.atoms.size(), 3u);
  EXPECT_EQ(p.atoms[0].kind, PredicateAtom::Kind::kLocation);
  EXPECT_EQ(p.atoms[0].name, "0.1");
  EXPECT_EQ(p.atoms[0].line, 12u);
  EXPECT_EQ(p.atoms[1].name, "0.2");
  EXPECT_EQ(p.atoms[2].kind, PredicateAtom::Kind::kVariable);
  EXPECT_TRUE(holds(p, {1, 0, 5}));
  EXPECT_FALSE(holds(p, {0, 1, 5}));
}

TEST(Predicate, ErrorsNameWhatAndWhere) {
  const auto error = [](const char* text) {
    try {
      parse_predicate(text, types);
    } catch (const PredicateError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("x +").find("unexpected end at column 4"), std::string::npos) << error("x +");
  EXPECT_NE(error("y > 1").find("'y' is not a global variable"), std::string::npos);
  EXPECT_NE(error("x > 1)").find("unexpected ')' at column 6"), std::string::npos)
      << error("x > 1)");
  EXPECT_NE(error("x < 1 < 2").find("unexpected '<'"), std::string::npos);
  EXPECT_NE(error("at(0.1 12)").find("expected ','"), std::string::npos);
  EXPECT_NE(error("99999999999999999999 > x").find("number too large"), std::string::npos);
  EXPECT_NE(error("x = 1").find("unexpected '='"), std::string::npos) << error("x = 1");
}

}  // namespace predicate_test

}  // namespace weft::symbolic
