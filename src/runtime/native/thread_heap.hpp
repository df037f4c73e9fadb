// Deterministic per-thread allocation (POET §4.3): inside an execution, each program thread
// allocates from its own region, placed by the thread's name, so the addresses a thread gets
// depend only on what that thread did, not on how the threads interleaved. Object keys are
// addresses, so this is what lets a strategy recognise the same heap object across executions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace weft::runtime::native {

/// One program thread's heap: a bump region with free lists per size class. A block freed by
/// another thread goes to the freeing thread's lists, so each thread's addresses stay a function
/// of its own history.
class ThreadHeap {
 public:
  static constexpr std::size_t kClasses = 64;  ///< 32 bytes up to about 70 MB
  /// Maps this heap's region for the thread whose name hashes to `slot`.
  void* allocate(std::size_t bytes, std::size_t alignment, std::uint32_t slot);
  void release(void* p);
  /// Usable bytes of a block of this allocator.
  static std::size_t usable_size(const void* p);
  /// Whether `p` came from some thread's heap (not from the C library's malloc).
  static bool owns(const void* p);
  /// Unmaps every thread's region (a worker process, after an execution).
  static void unmap_all();

 private:
  char* next_ = nullptr;
  char* end_ = nullptr;
  void* free_[kClasses] = {};
};

}  // namespace weft::runtime::native
