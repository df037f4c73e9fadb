// Bit-vector expressions over a program's inputs: what a value computed from inputs is, in terms
// of them (thesis §2.2, "symbolic value expressions"). Integers of 1 to 64 bits, every operation C
// produces on them, and byte extraction and concatenation for values taken apart and put together
// in memory. A boolean is a 1-bit vector.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace weft::symbolic {

/// An expression of one ExpressionPool; 0 is no expression (the value is concrete).
using ExprId = std::uint32_t;
inline constexpr ExprId kConcrete = 0;

enum class ExprKind : std::uint8_t {
  kConstant,  ///< `value`
  kInput,     ///< input number `value` of the execution (Trace::inputs)
  // One operand.
  kNot,      ///< bitwise complement (logical not on 1 bit)
  kNeg,      ///< two's complement negation
  kZExt,     ///< zero-extension to `width`
  kSExt,     ///< sign-extension to `width`
  kExtract,  ///< bits [value, value + width) of the operand
  // Two operands of one width, result of that width.
  kAdd,
  kSub,
  kMul,
  kUDiv,
  kSDiv,
  kURem,
  kSRem,
  kAnd,
  kOr,
  kXor,
  kShl,
  kLShr,
  kAShr,
  // Two operands, result of the sum of their widths: `a` is the high part.
  kConcat,
  // Comparisons: two operands of one width, a 1-bit result.
  kEq,
  kNe,
  kUlt,
  kUle,
  kSlt,
  kSle,
  // Three operands: `a` (1 bit) ? `b` : `c`.
  kIte,
};

const char* expr_kind_name(ExprKind kind);

/// One node. Operands are earlier nodes of the same pool, so a pool is in topological order.
struct ExprNode {
  ExprKind kind = ExprKind::kConstant;
  std::uint8_t width = 0;  ///< bits, 1..64
  ExprId a = kConcrete, b = kConcrete, c = kConcrete;
  std::uint64_t value = 0;  ///< constant, input number, or extract's low bit
  friend bool operator==(const ExprNode&, const ExprNode&) = default;
};

/// The value of `x` in `width` bits, the rest zero.
std::uint64_t truncate(std::uint64_t x, unsigned width);
/// The value of `x`'s low `width` bits, sign-extended to 64.
std::int64_t sign_extend(std::uint64_t x, unsigned width);

/// What `kind` computes on concrete operands (truncated to the result's width). Division and
/// remainder by zero give the SMT-LIB results (all ones; the dividend) so that folding agrees with
/// the solver; a C program never reaches them, since the runtime concretises divisors first.
std::uint64_t apply(ExprKind kind, unsigned width, std::uint64_t a, std::uint64_t b,
                    std::uint64_t c, unsigned operand_width, std::uint64_t low_bit);

/// The expressions of one execution, hash-consed: building an expression that exists returns it.
/// Builders fold constants and undo byte splitting (extracting what a concatenation put
/// together), so a value stored to memory byte by byte and loaded back is the value again.
class ExpressionPool {
 public:
  ExpressionPool();

  ExprId constant(unsigned width, std::uint64_t value);
  ExprId input(unsigned width, std::uint32_t number);
  ExprId unary(ExprKind kind, ExprId a);
  ExprId binary(ExprKind kind, ExprId a, ExprId b);
  ExprId extend(ExprKind kind, ExprId a, unsigned width);  ///< kZExt or kSExt
  ExprId extract(ExprId a, unsigned low_bit, unsigned width);
  ExprId concat(ExprId high, ExprId low);
  ExprId ite(ExprId condition, ExprId then, ExprId otherwise);
  /// The value of `a` resized to `width` bits: extended (signed or not) or truncated.
  ExprId resize(ExprId a, unsigned width, bool is_signed);
  /// 1-bit `a != 0`.
  ExprId is_nonzero(ExprId a);

  const ExprNode& operator[](ExprId id) const { return nodes_[id]; }
  bool is_constant(ExprId id) const { return nodes_[id].kind == ExprKind::kConstant; }
  /// Nodes, index 0 unused.
  std::span<const ExprNode> nodes() const { return nodes_; }
  std::size_t size() const { return nodes_.size() - 1; }
  void clear();
  /// Keeps the first `size` nodes: for a pool that grows and shrinks with an execution computed
  /// step by step (thread_model.hpp).
  void keep_first(std::size_t size);

  /// Appends a node as is (no folding): to rebuild a pool received over the wire in the same
  /// numbering. Returns false if it is malformed (operands not earlier, widths inconsistent).
  /// Such nodes are left out of the index that shares equal nodes until a node is built here:
  /// a received pool is mostly only read, and copied whole.
  bool append_verbatim(const ExprNode& node);
  /// Appends `other`'s nodes after this pool's last, up to `other`'s node `count`: for a pool
  /// whose nodes so far are `other`'s first ones (an execution that shares a prefix with the one
  /// before). False, changing nothing, if `count` is below size() or beyond `other`'s nodes.
  bool append_prefix_of(const ExpressionPool& other, std::size_t count);

  /// `other`'s expression `id` built in this pool, its input i renumbered input_numbers[i]: to
  /// keep expressions of several executions in one pool with each input's one number.
  ExprId import(const ExpressionPool& other, ExprId id,
                std::span<const std::uint32_t> input_numbers);

  /// The value of `id` when input i has value inputs[i] (missing inputs are 0).
  std::uint64_t evaluate(ExprId id, std::span<const std::uint64_t> inputs) const;
  /// The inputs `id` depends on, ascending.
  std::vector<std::uint32_t> inputs_of(ExprId id) const;
  /// A readable form, for notes and tests: (bvadd in0 #x5:32).
  std::string to_string(ExprId id) const;

 private:
  struct NodeHash {
    std::size_t operator()(const ExprNode& n) const;
  };
  ExprId intern(const ExprNode& node);
  ExprId fold(const ExprNode& node);

  std::vector<ExprNode> nodes_;
  std::unordered_map<ExprNode, ExprId, NodeHash> index_;
  std::size_t indexed_ = 1;  // nodes_[1, indexed_) are in index_
};

}  // namespace weft::symbolic
