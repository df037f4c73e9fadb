#include "heap_shadow.hpp"

#include <sys/mman.h>

#include <cstring>

namespace weft::runtime::native {
namespace {

constexpr std::uintptr_t kShadowBytes = kHeapBytes / kShadowGranule;

void fill(std::uintptr_t from, std::uintptr_t to, std::uint8_t value) {
  if (to <= from || !HeapShadow::covers(from)) return;
  const std::uintptr_t first = (from - kHeapRegion) / kShadowGranule;
  const std::uintptr_t last = (to - kHeapRegion + kShadowGranule - 1) / kShadowGranule;
  std::memset(reinterpret_cast<void*>(kHeapShadow + first), value, last - first);
}

// The program's bytes [user, user+bytes), 16-aligned at `user`: whole granules, then a partial.
void fill_accessible(std::uintptr_t user, std::size_t bytes) {
  fill(user, user + (bytes & ~(kShadowGranule - 1)), kWholeGranule);
  const std::size_t rest = bytes & (kShadowGranule - 1);
  if (rest && HeapShadow::covers(user))
    *reinterpret_cast<std::uint8_t*>(kHeapShadow + (user + bytes - kHeapRegion) / kShadowGranule) =
        static_cast<std::uint8_t>(rest);
}

}  // namespace

bool HeapShadow::map() {
  if (mapped_) return true;
  void* m = mmap(reinterpret_cast<void*>(kHeapShadow), kShadowBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (m == MAP_FAILED) return false;
  mapped_ = true;
  return true;
}

void HeapShadow::unmap() {
  if (!mapped_) return;  // most executions of most programs allocate nothing: no system call
  munmap(reinterpret_cast<void*>(kHeapShadow), kShadowBytes);
  mapped_ = false;
}

void HeapShadow::mark_allocated(std::uintptr_t block, std::uintptr_t user, std::size_t bytes,
                                std::uintptr_t block_end) {
  fill(block, user, kBlockHeader);
  fill_accessible(user, bytes);
  // The slack starts at the first granule after the program's last (partial) one.
  fill(user + ((bytes + kShadowGranule - 1) & ~(kShadowGranule - 1)), block_end, kBlockSlack);
}

void HeapShadow::mark_freed(std::uintptr_t user, std::uintptr_t block_end) {
  fill(user, block_end, kFreedBlock);
}

void HeapShadow::mark_resized(std::uintptr_t user, std::size_t bytes, std::uintptr_t block_end) {
  fill_accessible(user, bytes);
  fill(user + ((bytes + kShadowGranule - 1) & ~(kShadowGranule - 1)), block_end, kBlockSlack);
}

bool HeapShadow::all_accessible(std::uintptr_t address, std::size_t size) {
  const std::uintptr_t end = address + size;
  for (std::uintptr_t g = address & ~(kShadowGranule - 1); g < end; g += kShadowGranule) {
    const std::uint8_t s = *shadow_of(g);
    if (s == kWholeGranule) continue;
    // A partial granule is the block's last: the access must end inside its leading bytes.
    if (s == kNeverAllocated || s > kWholeGranule || end > g + s) return false;
  }
  return true;
}

std::uintptr_t HeapShadow::first_inaccessible(std::uintptr_t address, std::size_t size) {
  const std::uintptr_t end = address + size;
  for (std::uintptr_t a = address; a < end;) {
    const std::uintptr_t g = a & ~(kShadowGranule - 1);
    const std::uint8_t s = *shadow_of(g);
    if (s == kNeverAllocated || s > kWholeGranule || a >= g + s) return a;
    if (end > g + s) return g + s;  // past a block's last, partial granule
    a = g + kShadowGranule;
  }
  return address;
}

}  // namespace weft::runtime::native
