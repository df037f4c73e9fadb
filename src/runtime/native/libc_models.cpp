// Models of C library functions that read the program's bytes, so that bytes holding inputs stay
// symbolic through them (thesis §2.2: a call weft did not compile would otherwise see only their
// values). The pass sends calls to these instead of the C library's in code that follows inputs
// (symbolic_instrumenter.cpp); while no byte is symbolic they are the C library's functions.
//
// Each model does what the obvious C loop does, byte by byte, and records the branches that loop
// would take on symbolic bytes; so the path constraint decides its result just as it would for
// compiled code, and flipping one of those branches gives the next input path (a string one byte
// shorter, a mismatch one byte earlier). Results that are arithmetic on bytes (strcmp's
// difference, atoi's value) also get an expression. The integer arguments (lengths, the character
// searched for) were concretised by the caller, with a recorded constraint.
#include <cstdint>
#include <cstdlib>
#include <cstring>

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

namespace {

// One call of a model while bytes are symbolic: the shadow of the bytes it reads and the branches
// it records, at the call's site.
class ModelCall {
 public:
  ModelCall(NativeRuntime& rt, std::uint64_t site)
      : rt_(rt), scope_(rt), pool_(rt.scheduler().expressions()), site_(site) {}

  // The expression of the byte at `p`, or kConcrete.
  ExprId byte(const void* p) const {
    const auto& shadow = rt_.shadow_memory();
    const auto it = shadow.find(reinterpret_cast<std::uintptr_t>(p));
    return it == shadow.end() ? kConcrete : it->second;
  }

  // A branch on `left == right` (bytes), taken as the values say; recorded when either is
  // symbolic. Returns whether they are equal.
  bool equal(const unsigned char* left, ExprId left_e, unsigned char right, ExprId right_e) {
    if (left_e != kConcrete || right_e != kConcrete) {
      const ExprId l = left_e != kConcrete ? left_e : pool_.constant(8, *left);
      const ExprId r = right_e != kConcrete ? right_e : pool_.constant(8, right);
      record(pool_.binary(ExprKind::kEq, l, r), *left == right);
    }
    return *left == right;
  }
  bool equal(const unsigned char* p, unsigned char value) {
    return equal(p, byte(p), value, kConcrete);
  }

  // A branch on `condition` (1 bit), which holds or not as `taken` says.
  bool record(ExprId condition, bool taken) {
    rt_.scheduler().record_branch(condition, taken, BranchKind::kBranch, site_);
    return taken;
  }

  ExpressionPool& pool() { return pool_; }

  // The model's result has expression `e` (of the result's width), for the caller to take.
  void returns(ExprId e, void* model) {
    if (e == kConcrete || pool_.is_constant(e)) return;
    WEFT_SYM_RETURN = e;
    WEFT_SYM_RETURN_FOR = model;
  }

 private:
  NativeRuntime& rt_;
  RuntimeScope scope_;
  ExpressionPool& pool_;
  std::uint64_t site_;
};

// The runtime, when a model has to follow bytes: some byte is symbolic and the program is running.
NativeRuntime* following() {
  return WEFT_SYM_MEMORY ? NativeRuntime::for_hook() : nullptr;
}

const unsigned char* bytes(const void* p) {
  return static_cast<const unsigned char*>(p);
}

// The length of the string at `s`, at most `limit`, with the branch on each byte it reads.
std::size_t scan_length(ModelCall& call, const unsigned char* s, std::size_t limit) {
  std::size_t n = 0;
  while (n < limit && !call.equal(s + n, 0)) ++n;
  return n;
}

// The first difference of the `limit` bytes at `a` and `b` as memcmp gives it, with its
// expression; stops at a terminating zero if `strings`.
int compare(ModelCall& call, const unsigned char* a, const unsigned char* b, std::size_t limit,
            bool strings, void* model) {
  ExpressionPool& pool = call.pool();
  for (std::size_t i = 0; i < limit; ++i) {
    const ExprId x = call.byte(a + i), y = call.byte(b + i);
    if (!call.equal(a + i, x, b[i], y)) {
      // The bytes' difference, a result strcmp and memcmp may give.
      auto widen = [&](ExprId e, unsigned char v) {
        return pool.extend(ExprKind::kZExt, e != kConcrete ? e : pool.constant(8, v), 32);
      };
      if (x != kConcrete || y != kConcrete)
        call.returns(pool.binary(ExprKind::kSub, widen(x, a[i]), widen(y, b[i])), model);
      return int{a[i]} - int{b[i]};
    }
    // Equal: if either byte is symbolic, the recorded equality makes one test of a suffice.
    if (strings && call.equal(a + i, x != kConcrete ? x : y, 0, kConcrete)) return 0;
  }
  return 0;
}

// strtol's reading of a decimal number (what atoi does): leading white space, a sign, digits.
// Sets `end` after the last digit read (or to `s` if there is none).
long read_decimal(ModelCall& call, const unsigned char* s, const unsigned char** end, void* model) {
  ExpressionPool& pool = call.pool();
  const unsigned char* p = s;
  auto is_space = [&](const unsigned char* c) {
    const bool space = *c == ' ' || static_cast<unsigned char>(*c - '\t') < 5;
    if (const ExprId e = call.byte(c); e != kConcrete) {
      const ExprId blank = pool.binary(ExprKind::kEq, e, pool.constant(8, ' '));
      const ExprId control =
          pool.binary(ExprKind::kUlt, pool.binary(ExprKind::kSub, e, pool.constant(8, '\t')),
                      pool.constant(8, 5));
      call.record(pool.binary(ExprKind::kOr, blank, control), space);
    }
    return space;
  };
  while (is_space(p)) ++p;
  bool negative = false;
  if (call.equal(p, '-')) {
    negative = true;
    ++p;
  } else if (call.equal(p, '+')) {
    ++p;
  }
  std::uint64_t value = 0;
  ExprId value_e = pool.constant(64, 0);
  const unsigned char* digits = p;
  for (;; ++p) {
    const unsigned digit = static_cast<unsigned char>(*p - '0');
    const ExprId e = call.byte(p);
    if (e != kConcrete) {
      const ExprId offset = pool.binary(ExprKind::kSub, e, pool.constant(8, '0'));
      call.record(pool.binary(ExprKind::kUlt, offset, pool.constant(8, 10)), digit < 10);
    }
    if (digit >= 10) break;
    value = value * 10 + digit;
    const ExprId d =
        pool.extend(ExprKind::kZExt,
                    e != kConcrete ? pool.binary(ExprKind::kSub, e, pool.constant(8, '0'))
                                   : pool.constant(8, digit),
                    64);
    value_e =
        pool.binary(ExprKind::kAdd, pool.binary(ExprKind::kMul, value_e, pool.constant(64, 10)), d);
  }
  *end = p == digits ? s : p;
  call.returns(negative ? pool.unary(ExprKind::kNeg, value_e) : value_e, model);
  return static_cast<long>(negative ? 0 - value : value);
}

// atoi, atol and atoll: the decimal number at `s` as a `width`-bit result of `model`, called
// from `site`. (Out of range, the C library's and the model's values may differ: that is
// undefined behaviour.)
std::uint64_t decimal_model(const char* s, void* model, unsigned width, std::uint64_t site) {
  NativeRuntime* rt = following();
  if (!rt) return static_cast<std::uint64_t>(std::atoll(s));
  ModelCall call(*rt, site);
  const unsigned char* end = nullptr;
  const long value = read_decimal(call, bytes(s), &end, model);
  if (width < 64 && WEFT_SYM_RETURN_FOR == model)
    WEFT_SYM_RETURN = call.pool().extract(WEFT_SYM_RETURN, 0, width);
  return static_cast<std::uint64_t>(value);
}

void* self(auto* function) {
  return reinterpret_cast<void*>(function);
}

}  // namespace

extern "C" {

std::uint64_t __weft_model_strlen(const char* s) {
  NativeRuntime* rt = following();
  if (!rt) return std::strlen(s);
  ModelCall call(*rt, WEFT_CALLER_SITE());
  return scan_length(call, bytes(s), SIZE_MAX);
}

std::uint64_t __weft_model_strnlen(const char* s, std::uint64_t limit) {
  NativeRuntime* rt = following();
  if (!rt) return strnlen(s, limit);
  ModelCall call(*rt, WEFT_CALLER_SITE());
  return scan_length(call, bytes(s), limit);
}

std::uint32_t __weft_model_strcmp(const char* a, const char* b) {
  NativeRuntime* rt = following();
  if (!rt) return static_cast<std::uint32_t>(std::strcmp(a, b));
  ModelCall call(*rt, WEFT_CALLER_SITE());
  return static_cast<std::uint32_t>(
      compare(call, bytes(a), bytes(b), SIZE_MAX, true, self(&__weft_model_strcmp)));
}

std::uint32_t __weft_model_strncmp(const char* a, const char* b, std::uint64_t limit) {
  NativeRuntime* rt = following();
  if (!rt) return static_cast<std::uint32_t>(std::strncmp(a, b, limit));
  ModelCall call(*rt, WEFT_CALLER_SITE());
  return static_cast<std::uint32_t>(
      compare(call, bytes(a), bytes(b), limit, true, self(&__weft_model_strncmp)));
}

std::uint32_t __weft_model_memcmp(const void* a, const void* b, std::uint64_t size) {
  NativeRuntime* rt = following();
  if (!rt) return static_cast<std::uint32_t>(std::memcmp(a, b, size));
  ModelCall call(*rt, WEFT_CALLER_SITE());
  return static_cast<std::uint32_t>(
      compare(call, bytes(a), bytes(b), size, false, self(&__weft_model_memcmp)));
}

std::uint32_t __weft_model_bcmp(const void* a, const void* b, std::uint64_t size) {
  NativeRuntime* rt = following();
  if (!rt) return static_cast<std::uint32_t>(std::memcmp(a, b, size));
  ModelCall call(*rt, WEFT_CALLER_SITE());
  return static_cast<std::uint32_t>(
      compare(call, bytes(a), bytes(b), size, false, self(&__weft_model_bcmp)));
}

void* __weft_model_memchr(const void* s, std::uint32_t c, std::uint64_t size) {
  NativeRuntime* rt = following();
  if (!rt) return const_cast<void*>(std::memchr(s, static_cast<int>(c), size));
  ModelCall call(*rt, WEFT_CALLER_SITE());
  const unsigned char* p = bytes(s);
  for (std::uint64_t i = 0; i < size; ++i)
    if (call.equal(p + i, static_cast<unsigned char>(c))) return const_cast<unsigned char*>(p + i);
  return nullptr;
}

void* __weft_model_strchr(const char* s, std::uint32_t c) {
  NativeRuntime* rt = following();
  if (!rt) return const_cast<char*>(std::strchr(s, static_cast<int>(c)));
  ModelCall call(*rt, WEFT_CALLER_SITE());
  for (const unsigned char* p = bytes(s);; ++p) {
    if (call.equal(p, static_cast<unsigned char>(c))) return const_cast<unsigned char*>(p);
    if (call.equal(p, 0)) return nullptr;
  }
}

std::uint32_t __weft_model_atoi(const char* s) {
  weft::runtime::Scheduler::sync_thread_pointer();  // the C library's may set errno
  return static_cast<std::uint32_t>(
      decimal_model(s, self(&__weft_model_atoi), 32, WEFT_CALLER_SITE()));
}

std::uint64_t __weft_model_atol(const char* s) {
  weft::runtime::Scheduler::sync_thread_pointer();  // the C library's may set errno
  return decimal_model(s, self(&__weft_model_atol), 64, WEFT_CALLER_SITE());
}

std::uint64_t __weft_model_atoll(const char* s) {
  weft::runtime::Scheduler::sync_thread_pointer();  // the C library's may set errno
  return decimal_model(s, self(&__weft_model_atoll), 64, WEFT_CALLER_SITE());
}

// strtol and strtoll in base 10; other bases are the C library's, with symbolic bytes counted as
// used without constraint (they are rare in tests of concurrent code).
std::uint64_t __weft_model_strtol(const char* s, char** end, std::uint32_t base) {
  weft::runtime::Scheduler::sync_thread_pointer();  // the C library's may set errno
  NativeRuntime* rt = following();
  if (!rt || base != 10) {
    if (rt) __weft_sym_unmodelled(s, 0);
    return static_cast<std::uint64_t>(std::strtol(s, end, static_cast<int>(base)));
  }
  ModelCall call(*rt, WEFT_CALLER_SITE());
  const unsigned char* stop = nullptr;
  const long value = read_decimal(call, bytes(s), &stop, self(&__weft_model_strtol));
  if (end) *end = const_cast<char*>(reinterpret_cast<const char*>(stop));
  return static_cast<std::uint64_t>(value);
}

// The copying functions: the scan that decides how much is copied records its branches, and
// the copied bytes take their expressions along (the C library's copy would leave the target's
// old ones behind).
void* __weft_model_strcpy(char* to, const char* from) {
  NativeRuntime* rt = following();
  if (!rt) return std::strcpy(to, from);
  std::size_t length = 0;
  {
    ModelCall call(*rt, WEFT_CALLER_SITE());
    length = scan_length(call, bytes(from), SIZE_MAX);
  }
  std::memmove(to, from, length + 1);
  __weft_sym_copy(to, from, length + 1);
  return to;
}

void* __weft_model_strncpy(char* to, const char* from, std::uint64_t size) {
  NativeRuntime* rt = following();
  if (!rt) return std::strncpy(to, from, size);
  std::size_t length = 0;
  {
    ModelCall call(*rt, WEFT_CALLER_SITE());
    length = scan_length(call, bytes(from), size);
  }
  std::memmove(to, from, length);
  __weft_sym_copy(to, from, length);
  std::memset(to + length, 0, size - length);
  __weft_sym_store(to + length, size - length, kConcrete);
  return to;
}

void* __weft_model_strcat(char* to, const char* from) {
  NativeRuntime* rt = following();
  if (!rt) return std::strcat(to, from);
  std::size_t start = 0, length = 0;
  {
    ModelCall call(*rt, WEFT_CALLER_SITE());
    start = scan_length(call, bytes(to), SIZE_MAX);
    length = scan_length(call, bytes(from), SIZE_MAX);
  }
  std::memmove(to + start, from, length + 1);
  __weft_sym_copy(to + start, from, length + 1);
  return to;
}

}  // extern "C"
