// What glibc's own pthread_create changes in process-wide state that libraries read, done for
// weft's threads too (docs/process-state.md, "What glibc keeps about threads").
#pragma once

namespace weft::runtime::native {

/// Finds the C library's own copy of `__libc_single_threaded` (a program that names the variable,
/// as weft's runtime does, gets a copy of its own by a copy relocation; the C library reads its
/// own). Called once before the worker's memory snapshot, so that no execution looks it up.
char* libc_single_threaded_flag();

/// Called when a thread is created: the process is multithreaded from now on, as glibc's
/// pthread_create records it (both copies of `__libc_single_threaded`, read by libstdc++ for
/// shared_ptr counts, stop_callback, function-local statics, and by malloc; the creating thread's
/// `header.multiple_threads`). The worker's restore sets them back after the execution.
void mark_process_multithreaded();

/// The TCB field glibc's pthread_create sets in every new thread (x86-64 tcbhead_t).
inline constexpr unsigned kTcbMultipleThreads = 0x18;

}  // namespace weft::runtime::native
