// Per-thread storage for program threads that run as fibers on one OS thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "weft/trace/thread_id.hpp"

namespace weft::runtime {

/// Gives each program thread but the first its own thread-local storage (`thread_local`,
/// `__thread`, errno, the C++ runtime's exception state), as a new OS thread would have. The
/// scheduler switches the thread pointer (x86-64: the %fs base) with the fiber, so every access
/// to thread-local storage, compiled code's and the C library's alike, reaches the running
/// thread's own. The first thread keeps the OS thread's storage, as a process's main thread
/// does. Implemented by the native runtime (thread_storage.cpp), which knows the C library.
class ThreadStorage {
 public:
  virtual ~ThreadStorage() = default;
  /// The thread pointer of a new thread's storage, initialised as a new thread's would be.
  /// [`place`, `place` + `bytes`) is address space the thread may keep its storage in, free or
  /// left there by an earlier execution of this process for the same thread (0: none);
  /// `mapped`: it is known to be left there. Sets `*placed` to whether the storage is there.
  virtual void* create(ThreadId id, std::uintptr_t place, std::size_t bytes, bool mapped,
                       bool* placed) = 0;
  /// Frees what `create` returned (the thread's fiber will not run again).
  virtual void release(void* thread_pointer) = 0;
  /// Where errno lies in the storage of `thread_pointer` (the OS thread's included), or nullptr
  /// if unknown: the scheduler keeps a thread's errno by address when it does not switch the
  /// thread pointer with the thread (RunLimits::lazy_thread_pointer).
  virtual int* errno_location(void* /*thread_pointer*/) { return nullptr; }
};

/// Sets the calling OS thread's thread pointer (x86-64: %fs base).
void set_thread_pointer(void* thread_pointer) noexcept;
/// The calling OS thread's thread pointer.
void* thread_pointer() noexcept;

}  // namespace weft::runtime
