// Thread-local storage for the program's threads: each weft thread but the first gets a block
// of its own, laid out as glibc lays out a new thread's (docs/process-state.md, "Thread-local
// storage").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "weft/runtime/thread_storage.hpp"

namespace weft::runtime::native {

/// ThreadStorage built on the dynamic linker's own allocator (`_dl_allocate_tls`, which
/// pthread_create uses): a thread control block with every module's TLS block initialised from
/// its template and a vector of them for `__tls_get_addr`. The block is mapped at the place the
/// scheduler gives (beside the thread's stack), as pthread_create puts it at the top of a
/// thread's stack, so that a worker reuses it in every execution instead of allocating it anew
/// (which cost 30% of the executions of a 9-thread program). The C library's own block is then
/// copied from the OS thread's, errno cleared: its allocator state (arena, tcache) and locale
/// tables are the process's, and weft's own allocations on a program thread use them. The stack
/// and pointer guards are the OS thread's, since code may run across a switch with either.
class GlibcThreadStorage final : public ThreadStorage {
 public:
  /// The process's one instance; set up on first use (the fork server calls it before the
  /// worker takes its snapshot, so that executions do not repeat the lookup).
  static GlibcThreadStorage& instance();
  /// Whether the C library offers what is needed (else every thread shares the OS thread's
  /// storage, with errno and the C++ exception state swapped on each switch).
  bool available() const { return allocate_ != nullptr; }

  void* create(ThreadId id, std::uintptr_t place, std::size_t bytes, bool mapped,
               bool* placed) override;
  void release(void* thread_pointer) override;
  int* errno_location(void* thread_pointer) override;

 private:
  GlibcThreadStorage();

  void* (*allocate_)(void*) = nullptr;
  void (*deallocate_)(void*, bool) = nullptr;
  char* os_thread_pointer_ = nullptr;
  // For storage in a place the caller gives (beside the thread's stack, kept by a worker between
  // executions): the static TLS area's size and alignment, the thread control block's size.
  std::size_t static_size_ = 0;
  std::size_t static_align_ = 0;
  std::size_t tcb_size_ = 0;
  std::vector<void*> placed_;      // thread pointers in such places: only their vectors are freed
  std::ptrdiff_t libc_block_ = 0;  // the C library's TLS block, relative to a thread pointer
  std::size_t libc_block_size_ = 0;
  std::ptrdiff_t errno_offset_ = -1;  // errno, relative to the C library's block
};

/// Runs the destructors of the calling program thread's `thread_local` objects (registered
/// through `__cxa_thread_atexit_impl` during the execution), newest first, as a thread's exit
/// does before its pthread keys' destructors.
void run_thread_local_destructors();

}  // namespace weft::runtime::native
