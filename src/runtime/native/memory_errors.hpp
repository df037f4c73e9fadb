// Memory errors on the program's heap, each a bug of its own kind (docs/memory-errors.md): an
// access to a freed block or outside every block, found through the heap shadow; a free of
// something that is not a live block, or freed the wrong way; and, with --leaks, blocks still
// allocated when the program exits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "thread_heap.hpp"
#include "weft/trace/trace.hpp"

namespace weft::runtime::native {

class NativeRuntime;

/// How the program gave a block back.
enum class FreeCall : std::uint8_t { kFree, kDelete, kDeleteArray, kRealloc };

/// The access [address, address+size) at `site` touches heap memory that is not a live
/// block's (HeapShadow::accessible said so): stops the thread with a use after free or a heap
/// buffer overflow. Does not return.
[[noreturn]] void heap_access_error(NativeRuntime& rt, std::uintptr_t address, std::size_t size,
                                    bool write, std::uint64_t site);

/// What a deallocation call passed besides the pointer (sized and aligned operator delete).
struct FreeDetails {
  FreeCall call = FreeCall::kFree;
  std::optional<std::size_t> size;       ///< operator delete(p, size)
  std::optional<std::size_t> alignment;  ///< operator delete(p, align_val_t)
};

/// Checks a deallocation of `p` by the running program thread at `site`: a double free, a
/// free of something that is no block's start, a realloc of a freed block, or a block freed
/// the wrong way stops the thread with that bug (does not return then). Returns the block,
/// live, when the deallocation may go ahead; nothing when `p` is not in the threads' heaps and
/// not known to be wrong (a block of the C library's malloc from before the execution).
std::optional<HeapBlock> check_free(NativeRuntime& rt, const void* p, const FreeDetails& how,
                                    std::uint64_t site);

/// With --leaks, at the end of an execution that completed: a kMemoryLeak failure for the first
/// live block of each allocation site, added to `trace` (whose outcome it becomes).
void report_leaks(NativeRuntime& rt, Trace& trace);

}  // namespace weft::runtime::native
