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
 * integer, w 64-bit unsigned integer. The letters are checked against the prototypes when the
 * runtime is compiled (src/runtime/native/hook_signatures.cpp). */
#define WEFT_HOOKS(X)                                                                    \
  /* A plain load or store the pass could not prove thread-local, before it runs. */      \
  X(void, __weft_read, (void* address, uint64_t size), "vpw")                              \
  X(void, __weft_write, (void* address, uint64_t size), "vpw")                             \
  /* memcpy, memmove and memset: the bytes read or written. */                            \
  X(void, __weft_read_range, (void* address, uint64_t size), "vpw")                        \
  X(void, __weft_write_range, (void* address, uint64_t size), "vpw")                       \
  /* An atomic instruction: kind is a weft_atomic_kind, ordering llvm::AtomicOrdering. */ \
  X(void, __weft_atomic, (void* address, uint64_t size, uint32_t kind, uint32_t ordering), "vpwii") \
  /* Right after an atomic load, store, read-modify-write or compare-exchange instruction of \
   * up to 8 bytes (x86-TSO's buffers, RC11's stores). */                                  \
  X(void, __weft_atomic_after, (void), "v")                                               \
  /* Right before __weft_atomic for a compare-exchange of up to 8 bytes: the value it       \
   * expects (zero-extended) and its failure ordering (llvm::AtomicOrdering). */           \
  X(void, __weft_atomic_expect, (uint64_t expected, uint32_t failure_ordering), "vwi")     \
  /* The body of a __VERIFIER_atomic_* function: one atomic section. */                   \
  X(void, __weft_atomic_begin, (void), "v")                                                \
  X(void, __weft_atomic_end, (void), "v")                                                  \
  /* Around a call from a library's internals into <atomic>'s functions that is            \
   * not inlined (libstdc++'s std::barrier calls __atomic_ref's): entering 1 before,        \
   * 0 after; atomics in between are the library's, as if WEFT_ATOMIC_IN_LIBRARY. */       \
  X(void, __weft_library_atomics, (uint32_t entering), "vi")                               \
  /* The entry of the program's own reach_error(). */                                    \
  X(void, __weft_reach_error, (void), "v")                                                 \
  /* A busy-wait candidate loop, numbered within its module: entry, back edge, exit, and  \
   * each store to a local of its function. */                                           \
  X(void, __weft_spin_enter, (uint32_t loop), "vi")                                        \
  X(void, __weft_spin_back_edge, (uint32_t loop), "vi")                                    \
  X(void, __weft_spin_exit, (uint32_t loop), "vi")                                         \
  X(void, __weft_spin_local_write, (void* address, uint64_t size), "vpw")                  \
  /* An inline-assembly statement: kind is a weft_asm_kind. */                            \
  X(void, __weft_asm, (uint32_t kind), "vi")                                              \
  /* Makes the thread pointer name the running thread's storage, if it does not yet        \
   * (thread_pointer_instrumenter.cpp).                                                  \
   */                                                                                    \
  X(void, __weft_sync_thread_pointer, (void), "v")                                         \
  /* The same before a return to `return_address`, unless that is in the executable (code   \
   * weft compiled, or the runtime's, which asks where it needs to).                      \
   */                                                                                    \
  X(void, __weft_sync_thread_pointer_on_return, (void* return_address), "vp")              \
  /* Shadow expressions (symbolic_instrumenter.cpp, symbolic_hooks.cpp): each takes and   \
   * returns expression ids (0: the value is concrete), with the concrete operands, zero- \
   * extended, and their width in bits. kind is a weft::symbolic::ExprKind. */            \
  X(uint32_t, __weft_sym_binary,                                                          \
    (uint32_t kind, uint32_t a, uint32_t b, uint64_t a_value, uint64_t b_value,           \
     uint32_t width), "iiiiwwi")                                                          \
  /* predicate: an LLVM icmp predicate (WEFT_ICMP_*). */                                   \
  X(uint32_t, __weft_sym_compare,                                                         \
    (uint32_t predicate, uint32_t a, uint32_t b, uint64_t a_value, uint64_t b_value,      \
     uint32_t width), "iiiiwwi")                                                          \
  /* kind: a weft_cast_kind; width: the result's. */                                      \
  X(uint32_t, __weft_sym_cast, (uint32_t kind, uint32_t a, uint32_t width), "iiii")       \
  /* A conditional branch or select on condition (1 bit), which was `taken`. */           \
  X(void, __weft_sym_branch, (uint32_t condition, uint32_t taken), "vii")                 \
  /* A switch on `condition` (of `value`) over `count` case values. */                    \
  X(void, __weft_sym_switch,                                                              \
    (uint32_t condition, uint64_t value, const uint64_t* cases, uint32_t count), "viwpi") \
  /* The value of `expression` is used as `value` where weft cannot keep it symbolic. */  \
  X(void, __weft_sym_concretize, (uint32_t expression, uint64_t value), "viw")            \
  /* Shadow memory: the expression of the `size` bytes at `address` (0: all concrete),    \
   * what a store of `expression` there makes of them, and memcpy/memmove. */             \
  X(uint32_t, __weft_sym_load, (const void* address, uint64_t size), "ipw")               \
  X(void, __weft_sym_store, (void* address, uint64_t size, uint32_t expression), "vpwi")  \
  X(void, __weft_sym_copy, (void* to, const void* from, uint64_t size), "vppw")           \
  /* A value of a type without shadow is loaded from `size` bytes at `address`. */         \
  X(void, __weft_sym_lost, (const void* address, uint64_t size), "vpw")                   \
  /* `pointer` is passed to a function weft did not compile and has no model of; the call's \
   * largest integer argument is `length_hint` (symbolic_hooks.cpp says what is checked). */ \
  X(void, __weft_sym_unmodelled, (const void* pointer, uint64_t length_hint), "vpw")      \
  /* The C++ ABI's guards of function-local statics, called instead of __cxa_guard_*      \
   * (cxx_guards.cpp); `guard` is the 64-bit guard. */                                     \
  X(uint32_t, __weft_guard_acquire, (void* guard), "ip")                                  \
  X(void, __weft_guard_release, (void* guard), "vp")                                      \
  X(void, __weft_guard_abort, (void* guard), "vp")                                        \
  /* Models of C library functions, called instead of them where code follows inputs       \
   * (libc_models.cpp): each has its function's parameters and result. */                  \
  X(uint64_t, __weft_model_strlen, (const char* s), "wp")                                 \
  X(uint64_t, __weft_model_strnlen, (const char* s, uint64_t limit), "wpw")               \
  X(uint32_t, __weft_model_strcmp, (const char* a, const char* b), "ipp")                 \
  X(uint32_t, __weft_model_strncmp, (const char* a, const char* b, uint64_t limit), "ippw") \
  X(uint32_t, __weft_model_memcmp, (const void* a, const void* b, uint64_t size), "ippw")  \
  X(uint32_t, __weft_model_bcmp, (const void* a, const void* b, uint64_t size), "ippw")    \
  X(void*, __weft_model_memchr, (const void* s, uint32_t c, uint64_t size), "ppiw")        \
  X(void*, __weft_model_strchr, (const char* s, uint32_t c), "ppi")                       \
  X(uint32_t, __weft_model_atoi, (const char* s), "ip")                                   \
  X(uint64_t, __weft_model_atol, (const char* s), "wp")                                   \
  X(uint64_t, __weft_model_atoll, (const char* s), "wp")                                  \
  X(uint64_t, __weft_model_strtol, (const char* s, char** end, uint32_t base), "wppi")     \
  X(void*, __weft_model_strcpy, (char* to, const char* from), "ppp")                      \
  X(void*, __weft_model_strncpy, (char* to, const char* from, uint64_t size), "pppw")      \
  X(void*, __weft_model_strcat, (char* to, const char* from), "ppp")

/* Globals the instrumented code reads and writes directly (defined in symbolic_hooks.cpp).
 * Only one program thread runs at a time and none can switch between a call and the callee's
 * entry, or between a return and the caller, so plain globals pass expressions along calls.
 * A callee takes the arguments' expressions only if `arguments_for` is itself (and clears it);
 * a caller takes the result's only if `return_for` is the callee. */
#define WEFT_SYM_MEMORY __weft_sym_memory             /* uint8_t: some byte is symbolic */
/* uint8_t: follow inputs in this execution; else every function runs its plain copy */
#define WEFT_SYM_ENABLED __weft_sym_enabled
#define WEFT_SYM_ARGUMENTS __weft_sym_arguments       /* uint32_t[WEFT_SYM_MAX_ARGUMENTS] */
#define WEFT_SYM_ARGUMENTS_FOR __weft_sym_arguments_for /* void*: the callee they are for */
#define WEFT_SYM_RETURN __weft_sym_return             /* uint32_t */
#define WEFT_SYM_RETURN_FOR __weft_sym_return_for     /* void*: the function returning it */
#define WEFT_SYM_MAX_ARGUMENTS 8

/* The `kind` argument of __weft_sym_cast. */
enum weft_cast_kind { WEFT_CAST_ZEXT = 0, WEFT_CAST_SEXT = 1, WEFT_CAST_TRUNC = 2 };

/* The `predicate` argument of __weft_sym_compare: LLVM's integer comparison predicates. */
enum weft_icmp_predicate {
  WEFT_ICMP_EQ = 32,
  WEFT_ICMP_NE = 33,
  WEFT_ICMP_UGT = 34,
  WEFT_ICMP_UGE = 35,
  WEFT_ICMP_ULT = 36,
  WEFT_ICMP_ULE = 37,
  WEFT_ICMP_SGT = 38,
  WEFT_ICMP_SGE = 39,
  WEFT_ICMP_SLT = 40,
  WEFT_ICMP_SLE = 41
};

/* The `kind` argument of __weft_atomic. */
enum weft_atomic_kind {
  WEFT_ATOMIC_LOAD = 0,
  WEFT_ATOMIC_STORE = 1,
  WEFT_ATOMIC_RMW = 2,
  WEFT_ATOMIC_CMPXCHG = 3,
  WEFT_ATOMIC_FENCE = 4,
  /* Or-ed into the kind: the instruction is, or was inlined from, a library's internals
   * (libstdc++'s waits, latches, shared_ptr's counts): under RC11 taken as seq_cst, its order
   * the library's contract with the processor, which weft does not check. */
  WEFT_ATOMIC_IN_LIBRARY = 8
};

/* The `kind` argument of __weft_asm: a statement with no operands (a barrier, such as `pause` or
 * `mfence`), or one that may act on memory weft does not see. */
enum weft_asm_kind { WEFT_ASM_BARRIER = 0, WEFT_ASM_OPAQUE = 1 };

/* Every runtime symbol carries this prefix. Functions carrying it are never instrumented, so that
 * code the runtime itself provides does not report on itself. */
#define WEFT_RUNTIME_PREFIX "__weft_"

/* The program's main is renamed to this; the runtime's main calls it as (argc, argv, envp). */
#define WEFT_PROGRAM_MAIN __weft_main

/* The pass keeps a copy of each function without symbolic tracking, named with this suffix
 * (symbolic_instrumenter.cpp); reports show the name the program gave it. */
#define WEFT_PLAIN_COPY_SUFFIX ".weft_plain"

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_HOOK_PROTOTYPE(result, name, parameters, signature) result name parameters;
WEFT_HOOKS(WEFT_HOOK_PROTOTYPE)
#undef WEFT_HOOK_PROTOTYPE

int WEFT_PROGRAM_MAIN(int argc, char** argv, char** envp);

extern uint8_t WEFT_SYM_MEMORY;
extern uint8_t WEFT_SYM_ENABLED;
extern uint32_t WEFT_SYM_ARGUMENTS[WEFT_SYM_MAX_ARGUMENTS];
extern void* WEFT_SYM_ARGUMENTS_FOR;
extern uint32_t WEFT_SYM_RETURN;
extern void* WEFT_SYM_RETURN_FOR;

#ifdef __cplusplus
}
#endif

#endif /* WEFT_RUNTIME_HOOKS_H */
