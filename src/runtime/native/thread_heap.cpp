#include "thread_heap.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace weft::runtime::native {
namespace {

constexpr std::uintptr_t kHeapRegion = 0x200000000000ULL;  // above the thread stacks
constexpr std::uintptr_t kRegionBytes = std::uintptr_t{1} << 30;
constexpr std::uintptr_t kSlots = 4096;
constexpr std::uint32_t kMagic = 0x77656674;

// Every block starts 16 bytes after its header; aligned blocks keep the distance to the start of
// their block in the header before the pointer handed out.
struct Header {
  std::uint32_t magic;
  std::uint32_t size_class;
  std::uint64_t offset;  ///< from the block start to the pointer handed out
};
static_assert(sizeof(Header) == 16);

// Size classes: 32, 48, 64, ... each a quarter larger (rounded to 16), so waste stays below 25%.
struct ClassTable {
  std::size_t size[ThreadHeap::kClasses];
  constexpr ClassTable() : size() {
    size[0] = 32;
    for (std::size_t c = 1; c < ThreadHeap::kClasses; ++c)
      size[c] = size[c - 1] + (((size[c - 1] / 4) + 15) & ~std::size_t{15});
  }
};
constexpr ClassTable kTable;

std::size_t class_size(std::size_t c) {
  return kTable.size[c];
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
  return class_size(h->size_class) - sizeof(Header) - (h->offset - sizeof(Header));
}

void ThreadHeap::unmap_all() {
  munmap(reinterpret_cast<void*>(kHeapRegion), kSlots * kRegionBytes);
}

void* ThreadHeap::allocate(std::size_t bytes, std::size_t alignment, std::uint32_t slot) {
  if (alignment < 16) alignment = 16;
  const std::size_t need = bytes + sizeof(Header) + (alignment > 16 ? alignment : 0);
  const std::size_t c = class_for(need);
  if (c == kClasses) {
    errno = ENOMEM;
    return nullptr;  // larger than the largest class: beyond what tests allocate
  }
  char* block = static_cast<char*>(free_[c]);
  if (block) {
    free_[c] = *reinterpret_cast<void**>(block + sizeof(Header));
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
  Header* h = reinterpret_cast<Header*>(user) - 1;
  h->magic = kMagic;
  h->size_class = static_cast<std::uint32_t>(c);
  h->offset = user - reinterpret_cast<std::uintptr_t>(block);
  return reinterpret_cast<void*>(user);
}

void ThreadHeap::release(void* p) {
  Header* h = static_cast<Header*>(p) - 1;
  if (h->magic != kMagic) return;  // not a live block of ours (double free): leave it
  char* block = static_cast<char*>(p) - h->offset;
  const std::uint32_t c = h->size_class;
  h->magic = 0;
  // The free-list link lives where the first header sits; the block is re-headed on reuse.
  reinterpret_cast<Header*>(block)->size_class = c;
  *reinterpret_cast<void**>(block + sizeof(Header)) = free_[c];
  free_[c] = block;
}

}  // namespace weft::runtime::native
