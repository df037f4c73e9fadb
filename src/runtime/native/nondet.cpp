// Program inputs: SV-COMP's __VERIFIER_nondet_* and weft's own weft_input_* (weft/weft.h). Each
// call is the calling thread's next input (InputKey): its value comes from the test, and its
// expression goes back to the caller through the return slot of the hook ABI (hooks.h), so the
// instrumented code follows what is computed from it. With --nondet V inputs are not explored:
// every one returns V.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "native_runtime.hpp"
#include "weft/runtime/hooks.h"

using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

namespace {

struct Read {
  std::uint64_t value = 0;
  weft::symbolic::ExprId expression = weft::symbolic::kConcrete;
};

Read read(unsigned width, bool is_signed, const char* name) {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return {};
  if (!rt->options().explore_inputs) {
    rt->note_input();
    return {static_cast<std::uint64_t>(rt->options().nondet_value), weft::symbolic::kConcrete};
  }
  RuntimeScope scope(*rt);
  const auto in = rt->scheduler().read_input(width, is_signed, name);
  return {in.value, in.expression};
}

// The input's value; its expression is left for the caller, who called `self`.
std::uint64_t input(void* self, unsigned width, bool is_signed, const char* name) {
  const Read in = read(width, is_signed, name);
  WEFT_SYM_RETURN = in.expression;
  WEFT_SYM_RETURN_FOR = in.expression != weft::symbolic::kConcrete ? self : nullptr;
  return in.value;
}

// A value the runtime cannot follow (a pointer, a float): fixed, and counted as a value made
// concrete without a constraint, so the verdict says inputs were not all explored.
void unexplored_input() {
  NativeRuntime* rt = NativeRuntime::for_hook();
  if (!rt) return;
  if (!rt->options().explore_inputs) {
    rt->note_input();
    return;
  }
  RuntimeScope scope(*rt);
  rt->scheduler().note_unconstrained_concretisation();
}

}  // namespace

#define WEFT_INPUT(type, function, width, is_signed, name)                                       \
  type function(void) {                                                                          \
    return static_cast<type>(input(reinterpret_cast<void*>(&function), width, is_signed, name)); \
  }

extern "C" {
WEFT_INPUT(int, __VERIFIER_nondet_int, 32, true, "__VERIFIER_nondet_int")
WEFT_INPUT(unsigned int, __VERIFIER_nondet_uint, 32, false, "__VERIFIER_nondet_uint")
WEFT_INPUT(unsigned int, __VERIFIER_nondet_unsigned, 32, false, "__VERIFIER_nondet_unsigned")
WEFT_INPUT(long, __VERIFIER_nondet_long, 64, true, "__VERIFIER_nondet_long")
WEFT_INPUT(unsigned long, __VERIFIER_nondet_ulong, 64, false, "__VERIFIER_nondet_ulong")
WEFT_INPUT(long long, __VERIFIER_nondet_longlong, 64, true, "__VERIFIER_nondet_longlong")
WEFT_INPUT(unsigned long long, __VERIFIER_nondet_ulonglong, 64, false,
           "__VERIFIER_nondet_ulonglong")
WEFT_INPUT(short, __VERIFIER_nondet_short, 16, true, "__VERIFIER_nondet_short")
WEFT_INPUT(unsigned short, __VERIFIER_nondet_ushort, 16, false, "__VERIFIER_nondet_ushort")
WEFT_INPUT(char, __VERIFIER_nondet_char, 8, true, "__VERIFIER_nondet_char")
WEFT_INPUT(unsigned char, __VERIFIER_nondet_uchar, 8, false, "__VERIFIER_nondet_uchar")
WEFT_INPUT(bool, __VERIFIER_nondet_bool, 1, false, "__VERIFIER_nondet_bool")
WEFT_INPUT(std::size_t, __VERIFIER_nondet_size_t, 64, false, "__VERIFIER_nondet_size_t")
WEFT_INPUT(std::uint32_t, __VERIFIER_nondet_u32, 32, false, "__VERIFIER_nondet_u32")

void* __VERIFIER_nondet_pointer(void) {
  unexplored_input();
  return nullptr;
}
float __VERIFIER_nondet_float(void) {
  unexplored_input();
  return 0;
}
double __VERIFIER_nondet_double(void) {
  unexplored_input();
  return 0;
}
}

#define WEFT_NAMED_INPUT(type, function, width, is_signed)                                     \
  type function(const char* name) {                                                            \
    return static_cast<type>(                                                                  \
        input(reinterpret_cast<void*>(&function), width, is_signed, name ? name : #function)); \
  }

extern "C" {
WEFT_NAMED_INPUT(std::int8_t, weft_input_int8, 8, true)
WEFT_NAMED_INPUT(std::uint8_t, weft_input_uint8, 8, false)
WEFT_NAMED_INPUT(std::int16_t, weft_input_int16, 16, true)
WEFT_NAMED_INPUT(std::uint16_t, weft_input_uint16, 16, false)
WEFT_NAMED_INPUT(std::int32_t, weft_input_int32, 32, true)
WEFT_NAMED_INPUT(std::uint32_t, weft_input_uint32, 32, false)
WEFT_NAMED_INPUT(std::int64_t, weft_input_int64, 64, true)
WEFT_NAMED_INPUT(std::uint64_t, weft_input_uint64, 64, false)
WEFT_NAMED_INPUT(bool, weft_input_bool, 1, false)

void weft_input_bytes(void* buffer, std::size_t size, const char* name) {
  auto* bytes = static_cast<unsigned char*>(buffer);
  const std::string base = name ? name : "bytes";
  for (std::size_t i = 0; i < size; ++i) {
    const std::string each = base + "[" + std::to_string(i) + "]";
    const Read in = read(8, false, each.c_str());
    bytes[i] = static_cast<unsigned char>(in.value);
    __weft_sym_store(bytes + i, 1, in.expression);
  }
}
}
