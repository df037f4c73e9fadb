// Small random C programs with data races, for the race differential test
// (race_differential_test.cpp): native programs built by weft-cc, explored with every shared
// access a scheduling point and with synchronisation only (plus race-directed points).
#pragma once

#include <cstdint>
#include <string>

namespace weft::testing {

/// The C definitions of random program `seed`, every name prefixed `p<seed>_`: 2–3 plain shared
/// ints, an int used atomically (sometimes read plainly too), a mutex, and 2–3 threads of 2–4
/// statements each (plain reads into locals and writes, short critical sections, atomic loads,
/// stores and increments, `if` on a value read, and `assert` on values read). The main thread
/// may run statements of its own between creating and joining them, and assert on the final
/// state. `static void p<seed>_main(void)` runs the program; it returns after the joins. With
/// `loops`, a thread's statements may also be loops of 2–3 rounds, or loops that wait a few
/// rounds at most for a shared variable to change. With `inputs`, a thread's local may start as an
/// input of 2 bits (`__VERIFIER_nondet_int() & 3`), which flows into its writes and conditions.
/// With `locked`, the program (mostly) follows the locking discipline: every statement that
/// touches a plain global runs under the mutex, but for one in twenty, and plain accesses never
/// touch the atomic int.
std::string racy_program_definitions(std::uint64_t seed, bool loops = false, bool inputs = false,
                                     bool locked = false);

/// A C file holding programs `first` .. `first + count - 1`; the built program runs program
/// `first + i` when its only argument is `i`, and exits with 2 on any other command line.
std::string racy_program_file(std::uint64_t first, int count, bool loops = false,
                              bool inputs = false, bool locked = false);

/// Program `seed` alone, as a C file whose main runs it: for reporting a program that failed.
std::string racy_program_standalone(std::uint64_t seed, bool loops = false, bool inputs = false,
                                    bool locked = false);

}  // namespace weft::testing
