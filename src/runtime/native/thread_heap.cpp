#include "thread_heap.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <new>

namespace weft::runtime::native {
namespace {

// Above the thread stacks (native_runtime.cpp), outside AddressSanitizer's shadow and below both
// its allocator (0x600000000000) and where the program is loaded without address-space
// randomization (0x555555554000).
constexpr std::uintptr_t kHeapRegion = 0x500000000000ULL;
constexpr std::uintptr_t kRegionBytes = std::uintptr_t{1} << 30;
constexpr std::uintptr_t kSlots = 4096;
constexpr std::uint32_t kMagic = 0x77656674;

constexpr std::uint32_t kFreedMagic = 0x66726565;
constexpr std::size_t kMaxAlignment = 32768;  // the header's 16-bit offset; larger go to libc

// Every block starts with a header; an aligned block's pointer is further in, with a second
// header right before it (its `offset` says how far). The first eight bytes of the header at
// the block's start (magic, class, offset) stay valid while the block is free, so a region can
// be walked block by block for reports; the free-list link is in the block's last 8 bytes.
struct Header {
  std::uint32_t magic;  ///< kMagic while allocated, kFreedMagic once freed
  std::uint8_t size_class;
  std::uint8_t unused;
  std::uint16_t offset;  ///< from the block start to the pointer handed out
  std::uint32_t requested;
  std::uint16_t alloc_thread;
  std::uint16_t free_thread;
  std::uint64_t alloc_site;
  std::uint64_t free_site;
};
static_assert(sizeof(Header) == 32);

// Size classes: 48, 64, 80, ... each a quarter larger (rounded to 16), so waste stays below 25%.
struct ClassTable {
  std::size_t size[ThreadHeap::kClasses];
  constexpr ClassTable() : size() {
    size[0] = 48;
    for (std::size_t c = 1; c < ThreadHeap::kClasses; ++c)
      size[c] = size[c - 1] + (((size[c - 1] / 4) + 15) & ~std::size_t{15});
  }
};
constexpr ClassTable kTable;

std::size_t class_size(std::size_t c) {
  return kTable.size[c];
}
void** free_link(char* block, std::size_t c) {
  return reinterpret_cast<void**>(block + class_size(c) - sizeof(void*));
}
std::size_t class_for(std::size_t bytes) {
  std::size_t lo = 0, hi = ThreadHeap::kClasses;  // first class that fits, by bisection
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (kTable.size[mid] >= bytes)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

}  // namespace

bool ThreadHeap::owns(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a >= kHeapRegion && a < kHeapRegion + kSlots * kRegionBytes;
}

std::size_t ThreadHeap::usable_size(const void* p) {
  const Header* h = static_cast<const Header*>(p) - 1;
  // The free-list link's 8 bytes at the end are the program's while the block is allocated.
  return class_size(h->size_class) - h->offset;
}

void ThreadHeap::set_requested(void* p, std::size_t bytes) {
  Header* h = static_cast<Header*>(p) - 1;
  h->requested = bytes > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(bytes);
}

void ThreadHeap::unmap_all() {
  munmap(reinterpret_cast<void*>(kHeapRegion), kSlots * kRegionBytes);
}

void* ThreadHeap::allocate(std::size_t bytes, std::size_t alignment, std::uint32_t slot,
                           std::uint64_t site, std::uint32_t thread) {
  if (alignment < 16) alignment = 16;
  if (alignment > kMaxAlignment) {
    errno = ENOMEM;
    return nullptr;
  }
  const std::size_t need = bytes + sizeof(Header) + (alignment > 16 ? alignment : 0);
  const std::size_t c = class_for(need);
  if (c == kClasses) {
    errno = ENOMEM;
    return nullptr;  // larger than the largest class: beyond what tests allocate
  }
  char* block = static_cast<char*>(free_[c]);
  if (block) {
    free_[c] = *free_link(block, c);
  } else {
    if (!next_) {
      const std::uintptr_t base = kHeapRegion + (slot % kSlots) * kRegionBytes;
      void* m = mmap(reinterpret_cast<void*>(base), kRegionBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
      if (m == MAP_FAILED) {
        errno = ENOMEM;
        return nullptr;
      }
      next_ = static_cast<char*>(m);
      end_ = next_ + kRegionBytes;
    }
    if (static_cast<std::size_t>(end_ - next_) < class_size(c)) {
      errno = ENOMEM;
      return nullptr;
    }
    block = next_;
    next_ += class_size(c);
  }
  std::uintptr_t user = reinterpret_cast<std::uintptr_t>(block) + sizeof(Header);
  user = (user + alignment - 1) & ~(alignment - 1);
  const auto offset = static_cast<std::uint16_t>(user - reinterpret_cast<std::uintptr_t>(block));
  Header* first = reinterpret_cast<Header*>(block);
  first->magic = kMagic;
  first->size_class = static_cast<std::uint8_t>(c);
  first->offset = offset;
  Header* h = reinterpret_cast<Header*>(user) - 1;
  h->magic = kMagic;
  h->size_class = static_cast<std::uint8_t>(c);
  h->offset = offset;
  h->requested = bytes > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(bytes);
  h->alloc_thread = static_cast<std::uint16_t>(thread);
  h->free_thread = 0;
  h->alloc_site = site;
  h->free_site = 0;
  return reinterpret_cast<void*>(user);
}

void ThreadHeap::release(void* p, std::uint64_t site, std::uint32_t thread) {
  Header* h = static_cast<Header*>(p) - 1;
  if (h->magic != kMagic) return;  // not a live block of ours (double free): leave it
  char* block = static_cast<char*>(p) - h->offset;
  const std::uint32_t c = h->size_class;
  h->magic = kFreedMagic;
  h->free_site = site;
  h->free_thread = static_cast<std::uint16_t>(thread);
  reinterpret_cast<Header*>(block)->magic = kFreedMagic;
  *free_link(block, c) = free_[c];
  free_[c] = block;
}

std::optional<HeapBlock> ThreadHeap::block_containing(std::uintptr_t address) {
  if (!owns(reinterpret_cast<const void*>(address))) return std::nullopt;
  const std::uintptr_t region = kHeapRegion + (address - kHeapRegion) / kRegionBytes * kRegionBytes;
  // Blocks were carved one after another from the region's start; untouched memory reads as 0.
  for (std::uintptr_t at = region; at <= address;) {
    const Header* first = reinterpret_cast<const Header*>(at);
    if ((first->magic != kMagic && first->magic != kFreedMagic) || first->size_class >= kClasses)
      return std::nullopt;
    const std::uintptr_t end = at + class_size(first->size_class);
    if (address < end) {
      const Header* h = reinterpret_cast<const Header*>(at + first->offset) - 1;
      const std::uintptr_t user = at + first->offset;
      if (address < user || address >= user + std::max<std::uint32_t>(h->requested, 1))
        return std::nullopt;  // in a header or the slack after the requested bytes
      HeapBlock b;
      b.start = user;
      b.requested = h->requested;
      b.alloc_site = h->alloc_site;
      b.alloc_thread = h->alloc_thread;
      b.freed = h->magic == kFreedMagic;
      b.free_site = h->free_site;
      b.free_thread = h->free_thread;
      return b;
    }
    at = end;
  }
  return std::nullopt;
}

}  // namespace weft::runtime::native
