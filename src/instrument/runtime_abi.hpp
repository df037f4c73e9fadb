// The C ABI between instrumented code and the weft runtime: hook names and argument encodings.
// The runtime includes it too (memory_hooks.cpp), so the encodings have one home.
#pragma once

#include <cstdint>
#include <string_view>

namespace weft::instrument {

// Every runtime symbol carries this prefix. Functions carrying it are never instrumented, so that
// code the runtime itself provides does not report on itself.
inline constexpr std::string_view kRuntimePrefix = "__weft_";

inline constexpr const char* kReadHook = "__weft_read";               // (void* addr, u64 size)
inline constexpr const char* kWriteHook = "__weft_write";             // (void* addr, u64 size)
inline constexpr const char* kReadRangeHook = "__weft_read_range";    // (void* addr, u64 size)
inline constexpr const char* kWriteRangeHook = "__weft_write_range";  // (void* addr, u64 size)
inline constexpr const char* kAtomicHook = "__weft_atomic";  // (void*, u64 size, u32 kind, u32 ord)
inline constexpr const char* kAtomicBeginHook = "__weft_atomic_begin";         // (void)
inline constexpr const char* kAtomicEndHook = "__weft_atomic_end";             // (void)
inline constexpr const char* kReachErrorHook = "__weft_reach_error";           // (void)
inline constexpr const char* kSpinEnterHook = "__weft_spin_enter";             // (u32 loop)
inline constexpr const char* kSpinBackEdgeHook = "__weft_spin_back_edge";      // (u32 loop)
inline constexpr const char* kSpinExitHook = "__weft_spin_exit";               // (u32 loop)
inline constexpr const char* kSpinLocalWriteHook = "__weft_spin_local_write";  // (void*, u64)
inline constexpr const char* kAsmHook = "__weft_asm";                          // (u32 kind)

// The program's main is renamed to this; the runtime's main calls it as (argc, argv, envp).
inline constexpr const char* kProgramMainName = "__weft_main";

// The `kind` argument of __weft_atomic. Its `ordering` argument is the llvm::AtomicOrdering value.
enum class AtomicKind : std::uint32_t { kLoad = 0, kStore = 1, kRmw = 2, kCmpXchg = 3, kFence = 4 };

// The `kind` argument of __weft_asm: a statement with no operands (a barrier, such as `pause`
// or `mfence`), or one that may act on memory weft does not see.
enum class AsmKind : std::uint32_t { kBarrier = 0, kOpaque = 1 };

}  // namespace weft::instrument
