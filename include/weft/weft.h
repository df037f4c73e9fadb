/* weft's C API for programs built by weft-cc: inputs that weft chooses.
 *
 *   #include <weft/weft.h>
 *   uint32_t key = weft_input_uint32("key");   // weft picks the value, run after run
 *   weft_assume(key != 0);                      // only executions where this holds matter
 *
 * weft explores the values of inputs together with the interleavings: it follows how values
 * computed from inputs flow (through registers, memory and other threads), records the branches
 * that depend on them, and asks an SMT solver for values that take the other side of each
 * (dynamic symbolic execution, docs/inputs.md). SV-COMP's __VERIFIER_nondet_* functions are
 * inputs too. Outside weft (a program built by another compiler) these declarations have no
 * definition; built by weft-cc and run without weft, every input is 0. */
#ifndef WEFT_WEFT_H
#define WEFT_WEFT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An input named `name` (shown in reports), of the given type. */
int8_t weft_input_int8(const char* name);
uint8_t weft_input_uint8(const char* name);
int16_t weft_input_int16(const char* name);
uint16_t weft_input_uint16(const char* name);
int32_t weft_input_int32(const char* name);
uint32_t weft_input_uint32(const char* name);
int64_t weft_input_int64(const char* name);
uint64_t weft_input_uint64(const char* name);
_Bool weft_input_bool(const char* name);
/* `size` bytes of input, each its own input named name[0], name[1], ... */
void weft_input_bytes(void* buffer, size_t size, const char* name);
/* Only executions in which `condition` holds matter: the others end here, as no bug. */
void weft_assume(int condition);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_WEFT_H */
