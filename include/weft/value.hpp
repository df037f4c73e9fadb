// Inputs in the in-process API: values weft chooses, explored together with the interleavings.
//
//   weft::explore([] {
//     weft::value<int> x = weft::input<int>("x");   // weft picks x, run after run
//     weft::shared<weft::value<int>> s{0};
//     weft::thread t([&] { s = x * 3; });
//     t.join();
//     if (s.load() == 123) WEFT_ASSERT(false);      // found: x = 41
//   });
//
// A weft::value<T> is an integer together with what it is in terms of the inputs (an expression,
// thesis §2.2). Arithmetic on values builds expressions; using a value<bool> as a condition (`if`,
// `while`, `&&`, `!`, WEFT_ASSERT) records a branch, and the strategies then look for inputs that
// take the other side of it in some test (dynamic symbolic execution combined with the
// interleavings, thesis §2.4). Values that do not depend on inputs cost one test of a flag.
// Arithmetic happens in T (no promotion to int), wrapping as the unsigned type of T's width does.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "weft/runtime/scheduler.hpp"

namespace weft {

namespace detail {
runtime::Scheduler& scheduler(const char* what);
}  // namespace detail

/// An integer (or bool) that may depend on inputs. Trivially copyable: it can live in
/// weft::shared and weft::atomic, and flows between threads through them.
template <class T>
class value {
  static_assert(std::is_integral_v<T>, "weft::value holds integers and bool");

 public:
  static constexpr unsigned kWidth = std::is_same_v<T, bool> ? 1 : sizeof(T) * 8;

  value() = default;
  value(T concrete) : concrete_(concrete) {}  // NOLINT: a plain T is a value that is no input
  value(T concrete, symbolic::ExprId expression) : concrete_(concrete), expression_(expression) {}

  /// The value in this execution, without recording anything: branching on it leaves the other
  /// paths unexplored. Use it for output, or use concretize().
  T concrete() const { return concrete_; }
  /// The value in this execution, constrained to stay so in the tests that follow this path (a
  /// concretisation: sound, but values other than this one are not explored from here).
  T concretize() const {
    if (expression_ != symbolic::kConcrete) {
      auto& s = detail::scheduler("weft::value::concretize");
      auto& pool = s.expressions();
      s.record_branch(
          pool.binary(symbolic::ExprKind::kEq, expression_, pool.constant(kWidth, bits(concrete_))),
          true, BranchKind::kConcretisation);
    }
    return concrete_;
  }
  /// Whether the value depends on inputs.
  bool is_symbolic() const { return expression_ != symbolic::kConcrete; }
  symbolic::ExprId expression() const { return expression_; }

  /// As a condition: records the branch (value<bool> only, so that `if (x)` on an int stays C's
  /// `x != 0` spelt out).
  explicit operator bool() const requires std::is_same_v<T, bool> {
    if (expression_ != symbolic::kConcrete)
      detail::scheduler("weft::value as a condition")
          .record_branch(expression_, concrete_, BranchKind::kBranch);
    return concrete_;
  }

  template <class U>
  friend class value;

  static std::uint64_t bits(T v) {
    return static_cast<std::uint64_t>(
        static_cast<
            std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>>>(
            v));
  }

  // The expression of an operand: its own, or a constant when it is concrete.
  symbolic::ExprId as_expression(symbolic::ExpressionPool& pool) const {
    return expression_ != symbolic::kConcrete ? expression_
                                              : pool.constant(kWidth, bits(concrete_));
  }

 private:
  T concrete_{};
  symbolic::ExprId expression_ = symbolic::kConcrete;
};

namespace detail {

template <class T>
constexpr bool kSigned = std::is_signed_v<T> && !std::is_same_v<T, bool>;

// a op b in T, and its expression when either operand has one.
template <class T, class R, class F>
value<R> combine(const value<T>& a, const value<T>& b, symbolic::ExprKind kind, F concrete) {
  const R result = concrete(a.concrete(), b.concrete());
  if (!a.is_symbolic() && !b.is_symbolic()) return value<R>(result);
  auto& pool = scheduler("weft::value arithmetic").expressions();
  return value<R>(result, pool.binary(kind, a.as_expression(pool), b.as_expression(pool)));
}

// A divisor or shift amount that depends on inputs is made concrete (with its constraint), as
// the native runtime does: C leaves division by zero and wide shifts undefined, and a solver
// would happily choose them.
template <class T>
value<T> concrete_operand(const value<T>& v) {
  return value<T>(v.concretize());
}

}  // namespace detail

/// An input named `name` (for reports): a value of T that weft chooses.
template <class T>
value<T> input(const char* name) {
  auto& s = detail::scheduler("weft::input");
  const auto in = s.read_input(value<T>::kWidth, detail::kSigned<T>, name);
  return value<T>(static_cast<T>(in.value), in.expression);
}

/// Only executions in which `condition` holds matter: the others end here, discarded (no bug).
inline void assume(const value<bool>& condition) {
  auto& s = detail::scheduler("weft::assume");
  if (condition.is_symbolic())
    s.record_branch(condition.expression(), condition.concrete(), BranchKind::kAssume);
  if (!condition.concrete()) s.end_process(0, Outcome::kDiscarded);
}

#define WEFT_VALUE_ARITHMETIC(op, kind, signed_kind)                                           \
  template <class T>                                                                           \
  value<T> operator op(const value<T>& a, const value<T>& b) {                                 \
    return detail::combine<T, T>(                                                              \
        a, b, detail::kSigned<T> ? symbolic::ExprKind::signed_kind : symbolic::ExprKind::kind, \
        [](T x, T y) {                                                                         \
          using U = std::make_unsigned_t<T>;                                                   \
          return static_cast<T>(static_cast<U>(x) op static_cast<U>(y));                       \
        });                                                                                    \
  }                                                                                            \
  template <class T>                                                                           \
  value<T> operator op(const value<T>& a, std::type_identity_t<T> b) {                         \
    return a op value<T>(b);                                                                   \
  }                                                                                            \
  template <class T>                                                                           \
  value<T> operator op(std::type_identity_t<T> a, const value<T>& b) {                         \
    return value<T>(a) op b;                                                                   \
  }
WEFT_VALUE_ARITHMETIC(+, kAdd, kAdd)
WEFT_VALUE_ARITHMETIC(-, kSub, kSub)
WEFT_VALUE_ARITHMETIC(*, kMul, kMul)
WEFT_VALUE_ARITHMETIC(&, kAnd, kAnd)
WEFT_VALUE_ARITHMETIC(|, kOr, kOr)
WEFT_VALUE_ARITHMETIC(^, kXor, kXor)
#undef WEFT_VALUE_ARITHMETIC

#define WEFT_VALUE_DIVISION(op, kind, signed_kind)                                       \
  template <class T>                                                                     \
  value<T> operator op(const value<T>& a, const value<T>& b) {                           \
    const value<T> divisor = detail::concrete_operand(b);                                \
    return detail::combine<T, T>(                                                        \
        a, divisor,                                                                      \
        detail::kSigned<T> ? symbolic::ExprKind::signed_kind : symbolic::ExprKind::kind, \
        [](T x, T y) { return static_cast<T>(x op y); });                                \
  }                                                                                      \
  template <class T>                                                                     \
  value<T> operator op(const value<T>& a, std::type_identity_t<T> b) {                   \
    return a op value<T>(b);                                                             \
  }                                                                                      \
  template <class T>                                                                     \
  value<T> operator op(std::type_identity_t<T> a, const value<T>& b) {                   \
    return value<T>(a) op b;                                                             \
  }
WEFT_VALUE_DIVISION(/, kUDiv, kSDiv)
WEFT_VALUE_DIVISION(%, kURem, kSRem)
#undef WEFT_VALUE_DIVISION

#define WEFT_VALUE_SHIFT(op, kind, signed_kind)                                          \
  template <class T>                                                                     \
  value<T> operator op(const value<T>& a, const value<T>& b) {                           \
    const value<T> amount = detail::concrete_operand(b);                                 \
    return detail::combine<T, T>(                                                        \
        a, amount,                                                                       \
        detail::kSigned<T> ? symbolic::ExprKind::signed_kind : symbolic::ExprKind::kind, \
        [](T x, T y) { return static_cast<T>(x op y); });                                \
  }                                                                                      \
  template <class T>                                                                     \
  value<T> operator op(const value<T>& a, std::type_identity_t<T> b) {                   \
    return a op value<T>(b);                                                             \
  }
WEFT_VALUE_SHIFT(<<, kShl, kShl)
WEFT_VALUE_SHIFT(>>, kLShr, kAShr)
#undef WEFT_VALUE_SHIFT

// Comparisons give a value<bool>; `a > b` is `b < a`.
#define WEFT_VALUE_COMPARISON(op, kind, signed_kind, swap)                               \
  template <class T>                                                                     \
  value<bool> operator op(const value<T>& a, const value<T>& b) {                        \
    const symbolic::ExprKind k =                                                         \
        detail::kSigned<T> ? symbolic::ExprKind::signed_kind : symbolic::ExprKind::kind; \
    auto compare = [](T x, T y) { return x op y; };                                      \
    if constexpr (swap) {                                                                \
      const value<bool> r =                                                              \
          detail::combine<T, bool>(b, a, k, [&](T y, T x) { return compare(x, y); });    \
      return r;                                                                          \
    } else {                                                                             \
      return detail::combine<T, bool>(a, b, k, compare);                                 \
    }                                                                                    \
  }                                                                                      \
  template <class T>                                                                     \
  value<bool> operator op(const value<T>& a, std::type_identity_t<T> b) {                \
    return a op value<T>(b);                                                             \
  }                                                                                      \
  template <class T>                                                                     \
  value<bool> operator op(std::type_identity_t<T> a, const value<T>& b) {                \
    return value<T>(a) op b;                                                             \
  }
WEFT_VALUE_COMPARISON(==, kEq, kEq, false)
WEFT_VALUE_COMPARISON(!=, kNe, kNe, false)
WEFT_VALUE_COMPARISON(<, kUlt, kSlt, false)
WEFT_VALUE_COMPARISON(<=, kUle, kSle, false)
WEFT_VALUE_COMPARISON(>, kUlt, kSlt, true)
WEFT_VALUE_COMPARISON(>=, kUle, kSle, true)
#undef WEFT_VALUE_COMPARISON

/// Logical not of a condition (no branch is recorded until it is used as one).
inline value<bool> operator!(const value<bool>& a) {
  if (!a.is_symbolic()) return value<bool>(!a.concrete());
  auto& pool = detail::scheduler("weft::value !").expressions();
  return value<bool>(!a.concrete(), pool.unary(symbolic::ExprKind::kNot, a.expression()));
}

/// Bitwise complement and negation.
template <class T>
value<T> operator~(const value<T>& a) {
  if (!a.is_symbolic()) return value<T>(static_cast<T>(~a.concrete()));
  auto& pool = detail::scheduler("weft::value ~").expressions();
  return value<T>(static_cast<T>(~a.concrete()),
                  pool.unary(symbolic::ExprKind::kNot, a.expression()));
}
template <class T>
value<T> operator-(const value<T>& a) {
  return T{0} - a;
}

/// The value converted to U, as C converts: truncated, or extended by T's signedness.
template <class U, class T>
value<U> value_cast(const value<T>& v) {
  const U result = static_cast<U>(v.concrete());
  if (!v.is_symbolic()) return value<U>(result);
  auto& pool = detail::scheduler("weft::value_cast").expressions();
  const symbolic::ExprId e =
      std::is_same_v<U, bool> ? pool.is_nonzero(v.expression())
                              : pool.resize(v.expression(), value<U>::kWidth, detail::kSigned<T>);
  return value<U>(result, e);
}

}  // namespace weft
