/* The hook ABI between instrumented code and the weft runtime: every function the weft pass
 * inserts calls to, and the encodings of their arguments. The pass (src/instrument/hook_calls.cpp)
 * declares its calls from WEFT_HOOKS and the runtime (src/runtime/native) defines the functions
 * against the prototypes made from the same list, so a hook whose signature differs between the
 * two does not compile. (SymCC keeps its runtime interface in one header the same way.)
 *
 * A C header: the runtime is C++, the pass is C++, and both include it; so could a C program. */
#ifndef WEFT_RUNTIME_HOOKS_H
#define WEFT_RUNTIME_HOOKS_H

#include <stdint.h>

/* Each hook: X(result type, name, parameter list, signature). The signature spells the result
 * and then each parameter as one character, for the pass: v void, p pointer, i 32-bit unsigned
 * integer, w 64-bit unsigned integer. */
#define WEFT_HOOKS(X)                                                                    \
  /* A plain load or store the pass could not prove thread-local, before it runs. */      \
  X(void, __weft_read, (void* address, uint64_t size), "vpw")                              \
  X(void, __weft_write, (void* address, uint64_t size), "vpw")                             \
  /* memcpy, memmove and memset: the bytes read or written. */                            \
  X(void, __weft_read_range, (void* address, uint64_t size), "vpw")                        \
  X(void, __weft_write_range, (void* address, uint64_t size), "vpw")                       \
  /* An atomic instruction: kind is a weft_atomic_kind, ordering llvm::AtomicOrdering. */ \
  X(void, __weft_atomic, (void* address, uint64_t size, uint32_t kind, uint32_t ordering), "vpwii") \
  /* The body of a __VERIFIER_atomic_* function: one atomic section. */                   \
  X(void, __weft_atomic_begin, (void), "v")                                                \
  X(void, __weft_atomic_end, (void), "v")                                                  \
  /* The entry of the program's own reach_error(). */                                    \
  X(void, __weft_reach_error, (void), "v")                                                 \
  /* A busy-wait candidate loop, numbered within its module: entry, back edge, exit, and  \
   * each store to a local of its function. */                                           \
  X(void, __weft_spin_enter, (uint32_t loop), "vi")                                        \
  X(void, __weft_spin_back_edge, (uint32_t loop), "vi")                                    \
  X(void, __weft_spin_exit, (uint32_t loop), "vi")                                         \
  X(void, __weft_spin_local_write, (void* address, uint64_t size), "vpw")                  \
  /* An inline-assembly statement: kind is a weft_asm_kind. */                            \
  X(void, __weft_asm, (uint32_t kind), "vi")

/* The `kind` argument of __weft_atomic. */
enum weft_atomic_kind {
  WEFT_ATOMIC_LOAD = 0,
  WEFT_ATOMIC_STORE = 1,
  WEFT_ATOMIC_RMW = 2,
  WEFT_ATOMIC_CMPXCHG = 3,
  WEFT_ATOMIC_FENCE = 4
};

/* The `kind` argument of __weft_asm: a statement with no operands (a barrier, such as `pause` or
 * `mfence`), or one that may act on memory weft does not see. */
enum weft_asm_kind { WEFT_ASM_BARRIER = 0, WEFT_ASM_OPAQUE = 1 };

/* Every runtime symbol carries this prefix. Functions carrying it are never instrumented, so that
 * code the runtime itself provides does not report on itself. */
#define WEFT_RUNTIME_PREFIX "__weft_"

/* The program's main is renamed to this; the runtime's main calls it as (argc, argv, envp). */
#define WEFT_PROGRAM_MAIN __weft_main

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_HOOK_PROTOTYPE(result, name, parameters, signature) result name parameters;
WEFT_HOOKS(WEFT_HOOK_PROTOTYPE)
#undef WEFT_HOOK_PROTOTYPE

int WEFT_PROGRAM_MAIN(int argc, char** argv, char** envp);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_RUNTIME_HOOKS_H */
