// The unit the instrumentation pass is built from: one independent rewrite of a module.
//
// Each concern (shared accesses, atomics, atomic regions, ...) is its own Instrumenter in its own
// file, and instrumentation_pass.cpp lists which run before and which after optimisation. Later
// ones, such as concolic execution (shadow expressions, path constraints), plug in as further
// Instrumenters without touching the others. Instrumenters only call hooks declared with
// declare_hook() (hook_calls.hpp) and skip the runtime's own functions (function_filter.hpp).
#pragma once

#include <llvm/IR/Module.h>

#include <memory>

namespace weft::instrument {

class Instrumenter {
 public:
  virtual ~Instrumenter() = default;

  // Rewrites `module`; returns whether anything changed.
  virtual bool run(llvm::Module& module) = 0;
};

// Shadow expressions of values computed from inputs, and path constraints (concolic execution).
std::unique_ptr<Instrumenter> make_symbolic_instrumenter();

// Hooks plain loads and stores, and memcpy/memmove/memset, that may touch shared memory.
std::unique_ptr<Instrumenter> make_shared_access_instrumenter();

// Hooks atomic loads, stores, read-modify-writes, compare-exchanges and fences.
std::unique_ptr<Instrumenter> make_atomic_access_instrumenter();

// Brackets the bodies of __VERIFIER_atomic_* functions (SV-COMP) with atomic begin/end hooks.
std::unique_ptr<Instrumenter> make_atomic_region_instrumenter();

// Marks busy-wait loops (loops that only read) on entry and on each back edge.
std::unique_ptr<Instrumenter> make_spin_loop_instrumenter();

// Makes inline assembly visible: its memory operands as atomic accesses, a statement naming no
// memory as a barrier, any other as an operation dependent with everything.
std::unique_ptr<Instrumenter> make_inline_asm_instrumenter();

// Reports entry to reach_error (SV-COMP's error location).
std::unique_ptr<Instrumenter> make_reach_error_instrumenter();

// Reduces the spinning before libstdc++'s C++20 waits to one test of the predicate.
std::unique_ptr<Instrumenter> make_library_spin_remover();

// Sends the program's calls to the C++ ABI's static-initialisation guards to the runtime's model.
std::unique_ptr<Instrumenter> make_cxx_guard_redirector();

// Asks the runtime for the running thread's thread pointer where the code needs it: before
// calls other than access hooks, and around thread-local accesses.
std::unique_ptr<Instrumenter> make_thread_pointer_instrumenter();

// Renames the program's main so that the runtime's main can run it.
std::unique_ptr<Instrumenter> make_main_renamer();

}  // namespace weft::instrument
