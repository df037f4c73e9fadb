// SV-COMP's __VERIFIER_nondet_* inputs. For now each returns one concrete value, weft's
// --nondet option (0 by default); the concolic issue makes them symbolic inputs.
#include <cstddef>
#include <cstdint>

#include "native_runtime.hpp"

using weft::runtime::native::NativeRuntime;

namespace {
std::int64_t nondet() {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return 0;
  rt->note_input();
  return rt->options().nondet_value;
}
}  // namespace

extern "C" {
int __VERIFIER_nondet_int(void) {
  return static_cast<int>(nondet());
}
unsigned int __VERIFIER_nondet_uint(void) {
  return static_cast<unsigned int>(nondet());
}
unsigned int __VERIFIER_nondet_unsigned(void) {
  return static_cast<unsigned int>(nondet());
}
long __VERIFIER_nondet_long(void) {
  return static_cast<long>(nondet());
}
unsigned long __VERIFIER_nondet_ulong(void) {
  return static_cast<unsigned long>(nondet());
}
long long __VERIFIER_nondet_longlong(void) {
  return static_cast<long long>(nondet());
}
unsigned long long __VERIFIER_nondet_ulonglong(void) {
  return static_cast<unsigned long long>(nondet());
}
short __VERIFIER_nondet_short(void) {
  return static_cast<short>(nondet());
}
unsigned short __VERIFIER_nondet_ushort(void) {
  return static_cast<unsigned short>(nondet());
}
char __VERIFIER_nondet_char(void) {
  return static_cast<char>(nondet());
}
unsigned char __VERIFIER_nondet_uchar(void) {
  return static_cast<unsigned char>(nondet());
}
bool __VERIFIER_nondet_bool(void) {
  return nondet() != 0;
}
std::size_t __VERIFIER_nondet_size_t(void) {
  return static_cast<std::size_t>(nondet());
}
std::uint32_t __VERIFIER_nondet_u32(void) {
  return static_cast<std::uint32_t>(nondet());
}
void* __VERIFIER_nondet_pointer(void) {
  return nullptr;
}
float __VERIFIER_nondet_float(void) {
  return static_cast<float>(nondet());
}
double __VERIFIER_nondet_double(void) {
  return static_cast<double>(nondet());
}
}
