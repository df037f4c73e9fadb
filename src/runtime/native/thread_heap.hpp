// Deterministic per-thread allocation (POET §4.3): inside an execution, each program thread
// allocates from its own region, placed by the thread's name, so the addresses a thread gets
// depend only on what that thread did, not on how the threads interleaved. Object keys are
// addresses, so this is what lets a strategy recognise the same heap object across executions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace weft::runtime::native {

/// Where a heap block came from and, once freed, where it went: what a report says about memory
/// in the block (thread ids are dense ThreadIds; sites are return addresses, 0 if unknown).
struct HeapBlock {
  std::uintptr_t start = 0;   ///< the pointer the program was given
  std::size_t requested = 0;  ///< bytes it asked for
  std::uint64_t alloc_site = 0;
  std::uint32_t alloc_thread = 0;
  bool freed = false;
  std::uint64_t free_site = 0;
  std::uint32_t free_thread = 0;
};

/// One program thread's heap: a bump region with free lists per size class. A block freed by
/// another thread goes to the freeing thread's lists, so each thread's addresses stay a function
/// of its own history.
class ThreadHeap {
 public:
  static constexpr std::size_t kClasses = 64;  ///< 32 bytes up to about 70 MB
  /// Maps this heap's region for the thread whose name hashes to `slot`. `site` and `thread`
  /// are kept in the block's header for reports.
  void* allocate(std::size_t bytes, std::size_t alignment, std::uint32_t slot,
                 std::uint64_t site = 0, std::uint32_t thread = 0);
  void release(void* p, std::uint64_t site = 0, std::uint32_t thread = 0);
  /// The block (live or freed, not yet reused) whose bytes, as the program asked for them,
  /// contain `address`; found by walking its region, so for reports only.
  static std::optional<HeapBlock> block_containing(std::uintptr_t address);
  /// A block kept by realloc now holds `bytes` (what reports give as its size).
  static void set_requested(void* p, std::size_t bytes);
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
