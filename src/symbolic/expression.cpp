#include "weft/symbolic/expression.hpp"

#include <algorithm>
#include <functional>

namespace weft::symbolic {
namespace {

bool is_commutative(ExprKind k) {
  switch (k) {
    case ExprKind::kAdd:
    case ExprKind::kMul:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kXor:
    case ExprKind::kEq:
    case ExprKind::kNe:
      return true;
    default:
      return false;
  }
}

bool is_comparison(ExprKind k) {
  return k >= ExprKind::kEq && k <= ExprKind::kSle;
}

std::uint64_t ones(unsigned width) {
  return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

std::uint64_t udiv(std::uint64_t a, std::uint64_t b, unsigned w) {
  return b == 0 ? ones(w) : a / b;
}
std::uint64_t urem(std::uint64_t a, std::uint64_t b) {
  return b == 0 ? a : a % b;
}

}  // namespace

const char* expr_kind_name(ExprKind kind) {
  static constexpr const char* kNames[] = {
      "const", "in",       "bvnot", "bvneg",  "zext",   "sext",   "extract",
      "bvadd", "bvsub",    "bvmul", "bvudiv", "bvsdiv", "bvurem", "bvsrem",
      "bvand", "bvor",     "bvxor", "bvshl",  "bvlshr", "bvashr", "concat",
      "=",     "distinct", "bvult", "bvule",  "bvslt",  "bvsle",  "ite"};
  return kNames[static_cast<std::size_t>(kind)];
}

std::uint64_t truncate(std::uint64_t x, unsigned width) {
  return x & ones(width);
}

std::int64_t sign_extend(std::uint64_t x, unsigned width) {
  if (width >= 64) return static_cast<std::int64_t>(x);
  const std::uint64_t sign = 1ULL << (width - 1);
  x = truncate(x, width);
  return static_cast<std::int64_t>((x ^ sign) - sign);
}

std::uint64_t apply(ExprKind kind, unsigned width, std::uint64_t a, std::uint64_t b,
                    std::uint64_t c, unsigned operand_width, std::uint64_t low_bit) {
  const unsigned w = operand_width;
  const bool a_negative = sign_extend(a, w) < 0, b_negative = sign_extend(b, w) < 0;
  const std::uint64_t abs_a = a_negative ? truncate(0 - a, w) : truncate(a, w);
  const std::uint64_t abs_b = b_negative ? truncate(0 - b, w) : truncate(b, w);
  std::uint64_t r = 0;
  switch (kind) {
    case ExprKind::kConstant:
    case ExprKind::kInput:
      r = a;
      break;
    case ExprKind::kNot:
      r = ~a;
      break;
    case ExprKind::kNeg:
      r = 0 - a;
      break;
    case ExprKind::kZExt:
      r = truncate(a, w);
      break;
    case ExprKind::kSExt:
      r = static_cast<std::uint64_t>(sign_extend(a, w));
      break;
    case ExprKind::kExtract:
      r = low_bit >= 64 ? 0 : a >> low_bit;
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
      r = udiv(truncate(a, w), truncate(b, w), w);
      break;
    case ExprKind::kURem:
      r = urem(truncate(a, w), truncate(b, w));
      break;
    // SMT-LIB's bvsdiv and bvsrem: on magnitudes, the quotient negative when the signs differ,
    // the remainder with the dividend's sign.
    case ExprKind::kSDiv: {
      const std::uint64_t q = udiv(abs_a, abs_b, w);
      r = a_negative != b_negative ? 0 - q : q;
      break;
    }
    case ExprKind::kSRem: {
      const std::uint64_t m = urem(abs_a, abs_b);
      r = a_negative ? 0 - m : m;
      break;
    }
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
      r = truncate(b, w) >= w ? 0 : a << truncate(b, w);
      break;
    case ExprKind::kLShr:
      r = truncate(b, w) >= w ? 0 : truncate(a, w) >> truncate(b, w);
      break;
    case ExprKind::kAShr: {
      const std::uint64_t s = std::min<std::uint64_t>(truncate(b, w), w - 1);
      r = static_cast<std::uint64_t>(sign_extend(a, w) >> s);
      break;
    }
    case ExprKind::kConcat:
      r = (a << w) | truncate(b, w);
      break;
    case ExprKind::kEq:
      r = truncate(a, w) == truncate(b, w);
      break;
    case ExprKind::kNe:
      r = truncate(a, w) != truncate(b, w);
      break;
    case ExprKind::kUlt:
      r = truncate(a, w) < truncate(b, w);
      break;
    case ExprKind::kUle:
      r = truncate(a, w) <= truncate(b, w);
      break;
    case ExprKind::kSlt:
      r = sign_extend(a, w) < sign_extend(b, w);
      break;
    case ExprKind::kSle:
      r = sign_extend(a, w) <= sign_extend(b, w);
      break;
    case ExprKind::kIte:
      r = (a & 1) ? b : c;
      break;
  }
  return truncate(r, width);
}

std::size_t ExpressionPool::NodeHash::operator()(const ExprNode& n) const {
  std::uint64_t h = static_cast<std::uint64_t>(n.kind) | (std::uint64_t{n.width} << 8);
  for (std::uint64_t part : {std::uint64_t{n.a}, std::uint64_t{n.b}, std::uint64_t{n.c}, n.value})
    h = (h ^ part) * 0x100000001b3ULL + (h >> 29);
  return static_cast<std::size_t>(h);
}

ExpressionPool::ExpressionPool() {
  nodes_.emplace_back();
}

void ExpressionPool::clear() {
  nodes_.resize(1);
  index_.clear();
  indexed_ = 1;
}

void ExpressionPool::keep_first(std::size_t size) {
  if (size >= this->size()) return;
  for (std::size_t id = size + 1; id < indexed_; ++id) {
    const auto it = index_.find(nodes_[id]);
    if (it != index_.end() && it->second == id) index_.erase(it);
  }
  nodes_.resize(size + 1);
  indexed_ = std::min(indexed_, nodes_.size());
}

ExprId ExpressionPool::intern(const ExprNode& node) {
  // Nodes appended verbatim are indexed only when a pool that received them builds on them.
  for (; indexed_ < nodes_.size(); ++indexed_)
    index_.try_emplace(nodes_[indexed_], static_cast<ExprId>(indexed_));
  auto [it, inserted] = index_.try_emplace(node, static_cast<ExprId>(nodes_.size()));
  if (inserted) {
    nodes_.push_back(node);
    indexed_ = nodes_.size();
  }
  return it->second;
}

bool ExpressionPool::append_verbatim(const ExprNode& n) {
  const auto next = static_cast<ExprId>(nodes_.size());
  const unsigned operands = n.kind == ExprKind::kConstant || n.kind == ExprKind::kInput ? 0
                            : n.kind == ExprKind::kIte                                  ? 3
                            : n.kind <= ExprKind::kExtract                              ? 1
                                                                                        : 2;
  const ExprId ids[] = {n.a, n.b, n.c};
  for (unsigned i = 0; i < 3; ++i)
    if ((i < operands) != (ids[i] != kConcrete) || ids[i] >= next) return false;
  if (n.width == 0 || n.width > 64 || n.kind > ExprKind::kIte) return false;
  nodes_.push_back(n);
  return true;
}

bool ExpressionPool::append_prefix_of(const ExpressionPool& other, std::size_t count) {
  if (count < size() || count > other.size()) return false;
  nodes_.insert(nodes_.end(), other.nodes_.begin() + static_cast<std::ptrdiff_t>(nodes_.size()),
                other.nodes_.begin() + static_cast<std::ptrdiff_t>(count + 1));
  return true;
}

// Constant folding and the few rewrites that keep byte-wise memory traffic and C's boolean
// conversions from growing expressions; anything else is interned as it is.
ExprId ExpressionPool::fold(const ExprNode& n) {
  const ExprNode* a = n.a ? &nodes_[n.a] : nullptr;
  const ExprNode* b = n.b ? &nodes_[n.b] : nullptr;
  const ExprNode* c = n.c ? &nodes_[n.c] : nullptr;
  const bool all_constant = (!a || a->kind == ExprKind::kConstant) &&
                            (!b || b->kind == ExprKind::kConstant) &&
                            (!c || c->kind == ExprKind::kConstant);
  if (all_constant && a) {
    const unsigned operand_width = n.kind == ExprKind::kConcat ? b->width : a->width;
    return constant(n.width, apply(n.kind, n.width, a->value, b ? b->value : 0, c ? c->value : 0,
                                   operand_width, n.value));
  }
  auto is_const = [](const ExprNode* x, std::uint64_t v) {
    return x && x->kind == ExprKind::kConstant && x->value == v;
  };
  switch (n.kind) {
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kOr:
    case ExprKind::kXor:
    case ExprKind::kShl:
    case ExprKind::kLShr:
    case ExprKind::kAShr:
      if (is_const(b, 0)) return n.a;
      break;
    case ExprKind::kMul:
      if (is_const(b, 1)) return n.a;
      if (is_const(b, 0)) return n.b;
      break;
    case ExprKind::kAnd:
      if (is_const(b, ones(n.width))) return n.a;
      if (is_const(b, 0)) return n.b;
      break;
    case ExprKind::kEq:
    case ExprKind::kUle:
    case ExprKind::kSle:
      if (n.a == n.b) return constant(1, 1);
      break;
    case ExprKind::kNe:
    case ExprKind::kUlt:
    case ExprKind::kSlt:
      if (n.a == n.b) return constant(1, 0);
      break;
    case ExprKind::kNot:
      if (a->kind == ExprKind::kNot) return a->a;
      if (a->kind == ExprKind::kEq) return binary(ExprKind::kNe, a->a, a->b);
      if (a->kind == ExprKind::kNe) return binary(ExprKind::kEq, a->a, a->b);
      break;
    case ExprKind::kZExt:
    case ExprKind::kSExt:
      if (a->width == n.width) return n.a;
      break;
    case ExprKind::kExtract:
      if (n.value == 0 && n.width == a->width) return n.a;
      if (a->kind == ExprKind::kExtract) return extract(a->a, a->value + n.value, n.width);
      if (a->kind == ExprKind::kConcat) {
        const unsigned low_width = nodes_[a->b].width;
        if (n.value + n.width <= low_width) return extract(a->b, n.value, n.width);
        if (n.value >= low_width) return extract(a->a, n.value - low_width, n.width);
      }
      if ((a->kind == ExprKind::kZExt || a->kind == ExprKind::kSExt) &&
          n.value + n.width <= nodes_[a->a].width)
        return extract(a->a, n.value, n.width);
      break;
    case ExprKind::kConcat:
      // Two adjacent pieces of one value are that piece of it.
      if (a->kind == ExprKind::kExtract && b->kind == ExprKind::kExtract && a->a == b->a &&
          b->value + b->width == a->value)
        return extract(a->a, b->value, n.width);
      break;
    case ExprKind::kIte:
      if (n.b == n.c) return n.b;
      break;
    default:
      break;
  }
  return intern(n);
}

ExprId ExpressionPool::constant(unsigned width, std::uint64_t value) {
  return intern(ExprNode{ExprKind::kConstant, static_cast<std::uint8_t>(width), kConcrete,
                         kConcrete, kConcrete, truncate(value, width)});
}

ExprId ExpressionPool::import(const ExpressionPool& other, ExprId id,
                              std::span<const std::uint32_t> input_numbers) {
  if (id == kConcrete) return kConcrete;
  // Operands are earlier nodes: rebuild id's nodes in index order, each once.
  std::unordered_map<ExprId, ExprId> built;
  std::vector<ExprId> todo{id}, order;
  while (!todo.empty()) {
    const ExprId x = todo.back();
    todo.pop_back();
    if (x == kConcrete || !built.emplace(x, kConcrete).second) continue;
    order.push_back(x);
    for (ExprId operand : {other[x].a, other[x].b, other[x].c}) todo.push_back(operand);
  }
  std::sort(order.begin(), order.end());
  for (ExprId x : order) {
    ExprNode node = other[x];
    if (node.kind == ExprKind::kInput) node.value = input_numbers[node.value];
    for (ExprId* operand : {&node.a, &node.b, &node.c})
      if (*operand != kConcrete) *operand = built.at(*operand);
    built[x] = intern(node);
  }
  return built.at(id);
}

ExprId ExpressionPool::input(unsigned width, std::uint32_t number) {
  return intern(ExprNode{ExprKind::kInput, static_cast<std::uint8_t>(width), kConcrete, kConcrete,
                         kConcrete, number});
}

ExprId ExpressionPool::unary(ExprKind kind, ExprId a) {
  return fold(ExprNode{kind, nodes_[a].width, a, kConcrete, kConcrete, 0});
}

ExprId ExpressionPool::binary(ExprKind kind, ExprId a, ExprId b) {
  // Constants second, so that `5 + x` and `x + 5` are one node.
  if (is_commutative(kind) && is_constant(a) && !is_constant(b)) std::swap(a, b);
  const unsigned width = kind == ExprKind::kConcat ? nodes_[a].width + nodes_[b].width
                         : is_comparison(kind)     ? 1
                                                   : nodes_[a].width;
  return fold(ExprNode{kind, static_cast<std::uint8_t>(width), a, b, kConcrete, 0});
}

ExprId ExpressionPool::extend(ExprKind kind, ExprId a, unsigned width) {
  return fold(ExprNode{kind, static_cast<std::uint8_t>(width), a, kConcrete, kConcrete, 0});
}

ExprId ExpressionPool::extract(ExprId a, unsigned low_bit, unsigned width) {
  return fold(ExprNode{ExprKind::kExtract, static_cast<std::uint8_t>(width), a, kConcrete,
                       kConcrete, low_bit});
}

ExprId ExpressionPool::concat(ExprId high, ExprId low) {
  return binary(ExprKind::kConcat, high, low);
}

ExprId ExpressionPool::ite(ExprId condition, ExprId then, ExprId otherwise) {
  if (is_constant(condition)) return nodes_[condition].value ? then : otherwise;
  return fold(ExprNode{ExprKind::kIte, nodes_[then].width, condition, then, otherwise, 0});
}

ExprId ExpressionPool::resize(ExprId a, unsigned width, bool is_signed) {
  const unsigned from = nodes_[a].width;
  if (width == from) return a;
  if (width < from) return extract(a, 0, width);
  return extend(is_signed ? ExprKind::kSExt : ExprKind::kZExt, a, width);
}

ExprId ExpressionPool::is_nonzero(ExprId a) {
  const ExprNode& n = nodes_[a];
  if (n.width == 1) return a;
  // C turns a comparison into an int and tests it again: (int)(x < y) != 0 is x < y.
  if (n.kind == ExprKind::kZExt && nodes_[n.a].width == 1) return n.a;
  return binary(ExprKind::kNe, a, constant(n.width, 0));
}

std::uint64_t ExpressionPool::evaluate(ExprId id, std::span<const std::uint64_t> inputs) const {
  std::unordered_map<ExprId, std::uint64_t> memo;
  std::function<std::uint64_t(ExprId)> eval = [&](ExprId e) -> std::uint64_t {
    const ExprNode& n = nodes_[e];
    if (n.kind == ExprKind::kConstant) return n.value;
    if (n.kind == ExprKind::kInput)
      return n.value < inputs.size() ? truncate(inputs[n.value], n.width) : 0;
    if (auto it = memo.find(e); it != memo.end()) return it->second;
    const std::uint64_t va = eval(n.a), vb = n.b ? eval(n.b) : 0, vc = n.c ? eval(n.c) : 0;
    const unsigned operand_width =
        n.kind == ExprKind::kConcat ? nodes_[n.b].width : nodes_[n.a].width;
    const std::uint64_t r = apply(n.kind, n.width, va, vb, vc, operand_width, n.value);
    memo.emplace(e, r);
    return r;
  };
  return eval(id);
}

std::vector<std::uint32_t> ExpressionPool::inputs_of(ExprId id) const {
  std::vector<std::uint32_t> found;
  std::vector<ExprId> stack{id};
  std::vector<bool> seen(nodes_.size(), false);
  while (!stack.empty()) {
    const ExprId e = stack.back();
    stack.pop_back();
    if (e == kConcrete || seen[e]) continue;
    seen[e] = true;
    const ExprNode& n = nodes_[e];
    if (n.kind == ExprKind::kInput) found.push_back(static_cast<std::uint32_t>(n.value));
    stack.insert(stack.end(), {n.a, n.b, n.c});
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

std::string ExpressionPool::to_string(ExprId id) const {
  const ExprNode& n = nodes_[id];
  if (n.kind == ExprKind::kConstant) return std::to_string(n.value) + ":" + std::to_string(n.width);
  // Appended piece by piece: "literal" + temporary trips GCC 12's -Wrestrict at -O3.
  std::string s = n.kind == ExprKind::kInput ? "in" : "(";
  if (n.kind == ExprKind::kInput) {
    s += std::to_string(n.value);
    return s;
  }
  s += expr_kind_name(n.kind);
  if (n.kind == ExprKind::kExtract) {
    s += ' ';
    s += std::to_string(n.value);
    s += '+';
    s += std::to_string(n.width);
  }
  if (n.kind == ExprKind::kZExt || n.kind == ExprKind::kSExt) {
    s += ' ';
    s += std::to_string(n.width);
  }
  for (ExprId operand : {n.a, n.b, n.c})
    if (operand != kConcrete) {
      s += ' ';
      s += to_string(operand);
    }
  s += ')';
  return s;
}

}  // namespace weft::symbolic
