// Small random C programs whose threads share heap blocks, for the memory-error differential
// test (memory_differential_test.cpp): native programs built by weft-cc, where a use after
// free, a double free, a heap overflow or a realloc of a freed block happens in some
// interleavings only, in all of them, or in none.
#pragma once

#include <cstdint>
#include <string>

namespace weft::testing {

/// The C definitions of random program `seed`, every name prefixed `p<seed>_`: 1–3 int arrays
/// that main allocates before it creates 2–3 threads (pointers in globals, some of them set to
/// null by whoever frees them), sometimes a block a thread allocates and publishes through an
/// atomic pointer or under the mutex, an atomic int and a mutex. Threads read and write array
/// elements (in bounds, or one past the end when a value read says so), free and realloc the
/// arrays (sometimes only if a value read or the atomic says so, sometimes under the mutex),
/// and use the atomic and the published block (a thread leaves alone a block it surely freed
/// without setting its pointer to null); main may run statements of its own before the joins,
/// and after them frees what may be left (but no block a thread surely freed). `static void
/// p<seed>_main(void)` runs the program. Every program has at most `kMaxInterleavingBound`
/// interleavings of its visible operations (a bound from the operations each thread may perform,
/// not counting blocking).
std::string heap_program_definitions(std::uint64_t seed);

/// The bound on the interleavings of a program's visible operations (see above).
inline constexpr double kMaxInterleavingBound = 1000;

/// A C file holding programs `first` .. `first + count - 1`; the built program runs program
/// `first + i` when its only argument is `i`, and exits with 2 on any other command line.
std::string heap_program_file(std::uint64_t first, int count);

/// Program `seed` alone, as a C file whose main runs it: for reporting a program that failed.
std::string heap_program_standalone(std::uint64_t seed);

}  // namespace weft::testing
