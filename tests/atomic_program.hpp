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

/// What generate_atomic_program draws from: how many locations, threads and instructions, and
/// the weights of loads, stores, fetch-adds, fences and assertions.
struct AtomicProgramShape {
  int max_vars = 3;
  int min_threads = 2, max_threads = 4;
  int min_length = 1, max_length = 5;
  int weights[5] = {4, 3, 1, 1, 1};
};

/// A program of the shape's threads of its instructions over 1 to max_vars atomic locations,
/// with loads and stores of every order, fetch-adds and fences of every order; redrawn while a
/// bound on its interleavings under x86-TSO (each store also flushed by its buffer) exceeds
/// `max_interleavings`.
AtomicProgram generate_atomic_program(std::uint64_t seed, double max_interleavings,
                                      const AtomicProgramShape& shape = {});

/// A program grown from one of the classic litmus shapes (SB, MP, LB, IRIW, WRC, 2+2W, R, S,
/// ISA2, 3.SB, CoRR, coherence of one location): its accesses get random orders, some become
/// fetch-adds, fences of random orders come between some, a thread may end in an assertion,
/// and now and then a thread more joins. Many such programs have outcomes only a weak model
/// allows, which random programs seldom have. Redrawn while the bound on its interleavings
/// under x86-TSO exceeds `max_interleavings`.
AtomicProgram generate_weak_program(std::uint64_t seed, double max_interleavings = 1e300);

/// The program as a weft test closure: its final state (the locations, then every value each
/// thread read, in order) goes into `out`.
void run_atomic_program(const AtomicProgram& p, Observed& out);

/// What exploring `p` with `options` (every bug kept) observed, and weft's result.
ProgramRun explore_atomic_program(const AtomicProgram& p, Options options);

}  // namespace weft::testing
