// The runtime's side of shadow expressions (the pass: src/instrument/symbolic_instrumenter.cpp;
// the ABI: weft/runtime/hooks.h). The pass calls these only when an operand has an expression,
// so a program that reads no input never gets here. Expressions live in the scheduler's pool of
// the execution; memory's are kept per byte (shadow_memory), as SymCC keeps them.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "native_runtime.hpp"
#include "weft/runtime/hooks.h"
#include "weft/symbolic/expression.hpp"

using weft::BranchKind;
using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;
using weft::symbolic::ExpressionPool;
using weft::symbolic::ExprId;
using weft::symbolic::ExprKind;
using weft::symbolic::kConcrete;

extern "C" {
std::uint8_t WEFT_SYM_MEMORY = 0;
std::uint8_t WEFT_SYM_ENABLED = 0;
std::uint32_t WEFT_SYM_ARGUMENTS[WEFT_SYM_MAX_ARGUMENTS] = {};
void* WEFT_SYM_ARGUMENTS_FOR = nullptr;
std::uint32_t WEFT_SYM_RETURN = 0;
void* WEFT_SYM_RETURN_FOR = nullptr;
}

namespace {

ExprId operand(ExpressionPool& pool, ExprId e, std::uint64_t value, unsigned width) {
  return e != kConcrete ? e : pool.constant(width, value);
}

// Division, remainder and shifts whose right operand depends on inputs: C leaves division by
// zero and over-wide shifts undefined, and the solver would happily choose them. The operand is
// pinned to its value, with the constraint recorded.
bool right_operand_is_concretised(ExprKind kind) {
  switch (kind) {
    case ExprKind::kUDiv:
    case ExprKind::kSDiv:
    case ExprKind::kURem:
    case ExprKind::kSRem:
    case ExprKind::kShl:
    case ExprKind::kLShr:
    case ExprKind::kAShr:
      return true;
    default:
      return false;
  }
}

void concretize(NativeRuntime& rt, ExprId e, std::uint64_t value, std::uint64_t site) {
  auto& sched = rt.scheduler();
  ExpressionPool& pool = sched.expressions();
  const unsigned width = pool[e].width;
  sched.record_branch(pool.binary(ExprKind::kEq, e, pool.constant(width, value)), true,
                      BranchKind::kConcretisation, site);
}

// Whether any of the `size` bytes at `at` is symbolic (by the cheaper of the two walks).
bool any_symbolic(const NativeRuntime::ShadowMemory& shadow, std::uintptr_t at,
                  std::uint64_t size) {
  if (size > shadow.size()) {
    for (const auto& entry : shadow)
      if (entry.first - at < size) return true;
    return false;
  }
  for (std::uint64_t i = 0; i < size; ++i)
    if (shadow.contains(at + i)) return true;
  return false;
}

}  // namespace

extern "C" {

std::uint32_t __weft_sym_binary(std::uint32_t kind, std::uint32_t a, std::uint32_t b,
                                std::uint64_t a_value, std::uint64_t b_value, std::uint32_t width) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || kind > static_cast<std::uint32_t>(ExprKind::kAShr)) return kConcrete;
  const std::uint64_t site = WEFT_CALLER_SITE();
  RuntimeScope scope(*rt);
  ExpressionPool& pool = rt->scheduler().expressions();
  const auto k = static_cast<ExprKind>(kind);
  if (b != kConcrete && right_operand_is_concretised(k)) {
    concretize(*rt, b, b_value, site);
    b = kConcrete;
    if (a == kConcrete) return kConcrete;
  }
  return pool.binary(k, operand(pool, a, a_value, width), operand(pool, b, b_value, width));
}

std::uint32_t __weft_sym_compare(std::uint32_t predicate, std::uint32_t a, std::uint32_t b,
                                 std::uint64_t a_value, std::uint64_t b_value,
                                 std::uint32_t width) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return kConcrete;
  RuntimeScope scope(*rt);
  ExpressionPool& pool = rt->scheduler().expressions();
  ExprId x = operand(pool, a, a_value, width), y = operand(pool, b, b_value, width);
  switch (predicate) {
    case WEFT_ICMP_EQ:
      return pool.binary(ExprKind::kEq, x, y);
    case WEFT_ICMP_NE:
      return pool.binary(ExprKind::kNe, x, y);
    case WEFT_ICMP_ULT:
      return pool.binary(ExprKind::kUlt, x, y);
    case WEFT_ICMP_ULE:
      return pool.binary(ExprKind::kUle, x, y);
    case WEFT_ICMP_UGT:
      return pool.binary(ExprKind::kUlt, y, x);
    case WEFT_ICMP_UGE:
      return pool.binary(ExprKind::kUle, y, x);
    case WEFT_ICMP_SLT:
      return pool.binary(ExprKind::kSlt, x, y);
    case WEFT_ICMP_SLE:
      return pool.binary(ExprKind::kSle, x, y);
    case WEFT_ICMP_SGT:
      return pool.binary(ExprKind::kSlt, y, x);
    case WEFT_ICMP_SGE:
      return pool.binary(ExprKind::kSle, y, x);
  }
  return kConcrete;
}

std::uint32_t __weft_sym_cast(std::uint32_t kind, std::uint32_t a, std::uint32_t width) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || a == kConcrete || width == 0 || width > 64) return kConcrete;
  RuntimeScope scope(*rt);
  ExpressionPool& pool = rt->scheduler().expressions();
  switch (kind) {
    case WEFT_CAST_ZEXT:
      return pool.extend(ExprKind::kZExt, a, width);
    case WEFT_CAST_SEXT:
      return pool.extend(ExprKind::kSExt, a, width);
    case WEFT_CAST_TRUNC:
      return pool.extract(a, 0, width);
  }
  return kConcrete;
}

void __weft_sym_branch(std::uint32_t condition, std::uint32_t taken) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || condition == kConcrete) return;
  const std::uint64_t site = WEFT_CALLER_SITE();
  RuntimeScope scope(*rt);
  ExpressionPool& pool = rt->scheduler().expressions();
  rt->scheduler().record_branch(pool.is_nonzero(condition), taken != 0, BranchKind::kBranch, site);
}

// As a chain of equality tests, case by case up to the one taken (or all, for the default), so
// that each case is one side of one branch of the tree.
void __weft_sym_switch(std::uint32_t condition, std::uint64_t value, const std::uint64_t* cases,
                       std::uint32_t count) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || condition == kConcrete) return;
  const std::uint64_t site = WEFT_CALLER_SITE();
  RuntimeScope scope(*rt);
  auto& sched = rt->scheduler();
  ExpressionPool& pool = sched.expressions();
  const unsigned width = pool[condition].width;
  value = weft::symbolic::truncate(value, width);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t c = weft::symbolic::truncate(cases[i], width);
    sched.record_branch(pool.binary(ExprKind::kEq, condition, pool.constant(width, c)), c == value,
                        BranchKind::kBranch, site);
    if (c == value) return;
  }
}

void __weft_sym_concretize(std::uint32_t expression, std::uint64_t value) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || expression == kConcrete) return;
  const std::uint64_t site = WEFT_CALLER_SITE();
  RuntimeScope scope(*rt);
  concretize(*rt, expression,
             weft::symbolic::truncate(value, rt->scheduler().expressions()[expression].width),
             site);
}

std::uint32_t __weft_sym_load(const void* address, std::uint64_t size) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt || size == 0 || size > 8) return kConcrete;
  auto& shadow = rt->shadow_memory();
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  bool any = false;
  for (std::uint64_t i = 0; i < size && !any; ++i) any = shadow.contains(at + i);
  if (!any) return kConcrete;
  RuntimeScope scope(*rt);
  ExpressionPool& pool = rt->scheduler().expressions();
  unsigned char bytes[8];
  std::memcpy(bytes, address, size);
  ExprId value = kConcrete;
  for (std::uint64_t i = size; i-- > 0;) {  // little-endian: the last byte is the highest
    const auto it = shadow.find(at + i);
    const ExprId byte = it != shadow.end() ? it->second : pool.constant(8, bytes[i]);
    value = value == kConcrete ? byte : pool.concat(value, byte);
  }
  return value;
}

void __weft_sym_store(void* address, std::uint64_t size, std::uint32_t expression) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return;
  auto& shadow = rt->shadow_memory();
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  if (expression == kConcrete) {
    if (shadow.empty()) return;
    RuntimeScope scope(*rt);
    if (size > shadow.size() * 4) {
      std::erase_if(shadow, [&](const auto& entry) { return entry.first - at < size; });
    } else {
      for (std::uint64_t i = 0; i < size; ++i) shadow.erase(at + i);
    }
    return;
  }
  RuntimeScope scope(*rt);
  ExpressionPool& pool = rt->scheduler().expressions();
  const unsigned width = pool[expression].width;
  for (std::uint64_t i = 0; i < size && 8 * i < width; ++i)
    shadow[at + i] = pool.extract(expression, static_cast<unsigned>(8 * i),
                                  std::min<unsigned>(8, width - static_cast<unsigned>(8 * i)));
  WEFT_SYM_MEMORY = 1;
}

// A load of a type without shadow: if any of its bytes holds part of a symbolic value, that value
// is used as it is, with no constraint (the verdict then says inputs were not all explored).
void __weft_sym_lost(const void* address, std::uint64_t size) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return;
  auto& shadow = rt->shadow_memory();
  if (shadow.empty()) return;
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  if (!any_symbolic(shadow, at, size)) return;
  RuntimeScope scope(*rt);
  rt->scheduler().note_unconstrained_concretisation();
}

// A function weft did not compile, and has no model of, gets `pointer` while some byte is
// symbolic: it reads what it reads there as plain values (and a copy it makes does not carry
// expressions). Which bytes it reads is not known; these are checked: `length_hint` bytes (the
// call's largest integer argument, usually a size) and the string at `pointer` up to its zero
// within its page (readable, as the callee reads it). Symbolic bytes among them count as values
// used without constraint, so the verdict says inputs were not all explored.
void __weft_sym_unmodelled(const void* pointer, std::uint64_t length_hint) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return;
  auto& shadow = rt->shadow_memory();
  const auto at = reinterpret_cast<std::uintptr_t>(pointer);
  constexpr std::uintptr_t kLowestPointer = 1 << 16, kPage = 4096, kLongestHint = 1 << 20;
  if (shadow.empty() || at < kLowestPointer) return;
  const auto* text = static_cast<const unsigned char*>(pointer);
  std::uint64_t length = 0;
  const std::uint64_t to_page_end = kPage - (at & (kPage - 1));
  while (length < to_page_end && (text[length] != 0 || shadow.contains(at + length))) ++length;
  const std::uint64_t size =
      std::max<std::uint64_t>(length + 1, std::min<std::uint64_t>(length_hint, kLongestHint));
  if (!any_symbolic(shadow, at, size)) return;
  RuntimeScope scope(*rt);
  rt->scheduler().note_unconstrained_concretisation();
}

void __weft_sym_copy(void* to, const void* from, std::uint64_t size) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return;
  auto& shadow = rt->shadow_memory();
  if (shadow.empty()) return;
  RuntimeScope scope(*rt);
  const auto source = reinterpret_cast<std::uintptr_t>(from);
  const auto target = reinterpret_cast<std::uintptr_t>(to);
  std::vector<std::pair<std::uint64_t, ExprId>> moved;  // by offset: memmove may overlap
  if (size > shadow.size() * 4) {
    for (const auto& [byte, e] : shadow)
      if (byte - source < size) moved.emplace_back(byte - source, e);
    std::erase_if(shadow, [&](const auto& entry) { return entry.first - target < size; });
  } else {
    for (std::uint64_t i = 0; i < size; ++i)
      if (auto it = shadow.find(source + i); it != shadow.end()) moved.emplace_back(i, it->second);
    for (std::uint64_t i = 0; i < size; ++i) shadow.erase(target + i);
  }
  for (const auto& [offset, e] : moved) shadow[target + offset] = e;
}

}  // extern "C"
