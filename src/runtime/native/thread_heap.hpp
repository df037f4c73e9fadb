// Deterministic per-thread allocation (POET §4.3): inside an execution, each program thread
// allocates from its own region, placed by the thread's name, so the addresses a thread gets
// depend only on what that thread did, not on how the threads interleaved. Object keys are
// addresses, so this is what lets a strategy recognise the same heap object across executions.
// Every block is kept in the heap shadow (heap_shadow.hpp), so that accesses outside live
// blocks are caught, and freed blocks wait in a quarantine before they are handed out again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

namespace weft::runtime::native {

/// How a block was allocated, so that it is freed the same way (free / delete / delete[]).
enum class AllocKind : std::uint8_t { kMalloc, kNew, kNewArray };

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
  AllocKind kind = AllocKind::kMalloc;
  std::size_t alignment = 16;  ///< what the allocation asked for (at least 16)
};

/// One program thread's heap: a bump region with free lists per size class. A block freed by
/// another thread goes to the freeing thread's quarantine and lists, so each thread's addresses
/// stay a function of its own history.
class ThreadHeap {
 public:
  static constexpr std::size_t kClasses = 64;  ///< 32 bytes up to about 70 MB
  /// Freed bytes a thread keeps out of use before the oldest are handed out again.
  static constexpr std::size_t kQuarantineBytes = std::size_t{16} << 20;

  /// Maps this heap's region for the thread whose name hashes to `slot`. `site`, `thread` and
  /// `kind` are kept in the block's header for reports and checks.
  void* allocate(std::size_t bytes, std::size_t alignment, std::uint32_t slot,
                 std::uint64_t site = 0, std::uint32_t thread = 0,
                 AllocKind kind = AllocKind::kMalloc);
  /// Frees a live block of some thread's heap (inspect() says whether `p` is one).
  void release(void* p, std::uint64_t site = 0, std::uint32_t thread = 0);
  /// The block `p` is the start of, live or freed (not yet reused), or nothing if `p` is not
  /// the pointer some allocation returned: what free checks before it frees.
  static std::optional<HeapBlock> inspect(const void* p);
  /// The block (live or freed, not yet reused) whose bytes, as the program asked for them,
  /// contain `address`; found by walking its region, so for reports only.
  static std::optional<HeapBlock> block_containing(std::uintptr_t address);
  /// For an address in no block's bytes: the block it is nearest to, before or after it in its
  /// region (for "N bytes after the 16-byte block ..."); for reports only.
  static std::optional<HeapBlock> block_nearest(std::uintptr_t address);
  /// Calls `f` for each live block of the region of `slot` (at the end of an execution).
  static void for_each_live_block(std::uint32_t slot,
                                  const std::function<void(const HeapBlock&)>& f);
  /// A block kept by realloc now holds `bytes` (what reports give as its size).
  static void set_requested(void* p, std::size_t bytes);
  /// Usable bytes of a block of this allocator.
  static std::size_t usable_size(const void* p);
  /// Whether `p` is in the range of the threads' heaps (not from the C library's malloc).
  static bool owns(const void* p);
  /// Unmaps every thread's region and the heap's shadow (a worker process, after an execution).
  static void unmap_all();
  /// A worker process keeps the regions and the shadow mapped from one execution to the next,
  /// and clears what an execution used instead of unmapping: mapping them afresh made the kernel
  /// build their page tables and free them again every execution. Called before the memory
  /// snapshot is taken, since the record of what is kept must outlive every restore.
  static void keep_mapped_between_executions();
  /// After an execution: clears the kept regions and their shadow (what the execution carved in
  /// place, the rest dropped), or unmaps them if nothing is kept.
  static void reset_all();
  /// The address range of the regions and their shadow, whose mappings a worker keeps.
  static std::uintptr_t range_begin();
  static std::uintptr_t range_end();

 private:
  char* next_ = nullptr;
  char* end_ = nullptr;
  void* free_[kClasses] = {};
  // Freed blocks, oldest first, linked through their free-list word.
  char* quarantine_head_ = nullptr;
  char* quarantine_tail_ = nullptr;
  std::size_t quarantined_ = 0;
};

}  // namespace weft::runtime::native
