// Small random programs over atomics of every memory order and fences, for differential testing
// of the memory models (tests/memory_model_differential_test.cpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "random_program.hpp"

namespace weft::testing {

struct AtomicInstr {
  enum Kind {
    kLoad,       // r = x (the thread's reads are part of the outcome)
    kStore,      // x = r + value
    kFetchAdd,   // r = x, x = x + value, in one step (x86: a locked instruction)
    kFence,      // atomic_thread_fence(order)
    kAssertNot,  // the last value read must not equal `value`
  } kind;
  int var = 0;
  int value = 0;
  std::memory_order order = std::memory_order_seq_cst;
};

struct AtomicProgram {
  std::vector<std::vector<AtomicInstr>> threads;
  int vars = 1;
  std::string describe() const;
};

/// A program of 2–4 threads of 1–5 instructions over 1–3 atomic locations, with loads and
/// stores of every order, fetch-adds and fences of every order; redrawn while a bound on its
/// interleavings under x86-TSO (each store also flushed by its buffer) exceeds
/// `max_interleavings`.
AtomicProgram generate_atomic_program(std::uint64_t seed, double max_interleavings);

/// The program as a weft test closure: its final state (the locations, then every value each
/// thread read, in order) goes into `out`.
void run_atomic_program(const AtomicProgram& p, Observed& out);

/// What exploring `p` with `options` (every bug kept) observed, and weft's result.
ProgramRun explore_atomic_program(const AtomicProgram& p, Options options);

}  // namespace weft::testing
