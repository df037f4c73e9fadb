// Thread-local storage for the program's threads: each weft thread but the first gets a block
// of its own, laid out as glibc lays out a new thread's (docs/process-state.md, "Thread-local
// storage").
#pragma once

#include <cstddef>

#include "weft/runtime/thread_storage.hpp"

namespace weft::runtime::native {

/// ThreadStorage built on the dynamic linker's own allocator (`_dl_allocate_tls`, which
/// pthread_create uses): a thread control block with every module's TLS block initialised from
/// its template and a vector of them for `__tls_get_addr`. The C library's own block is then
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

  void* create(ThreadId id) override;
  void release(void* thread_pointer) override;

 private:
  GlibcThreadStorage();

  void* (*allocate_)(void*) = nullptr;
  void (*deallocate_)(void*, bool) = nullptr;
  char* os_thread_pointer_ = nullptr;
  std::ptrdiff_t libc_block_ = 0;  // the C library's TLS block, relative to a thread pointer
  std::size_t libc_block_size_ = 0;
  std::ptrdiff_t errno_offset_ = -1;  // errno, relative to the C library's block
};

/// Runs the destructors of the calling program thread's `thread_local` objects (registered
/// through `__cxa_thread_atexit_impl` during the execution), newest first, as a thread's exit
/// does before its pthread keys' destructors.
void run_thread_local_destructors();

}  // namespace weft::runtime::native
