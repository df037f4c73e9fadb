#include "thread_heap.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <new>

#include "heap_shadow.hpp"

namespace weft::runtime::native {
namespace {

constexpr std::uintptr_t kRegionBytes = kHeapRegionBytes;
constexpr std::uintptr_t kSlots = kHeapSlots;
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
  std::uint8_t kind_and_alignment;  ///< AllocKind in bits 0-1, log2 of the alignment above
  std::uint16_t offset;             ///< from the block start to the pointer handed out
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

bool valid_magic(std::uint32_t magic) {
  return magic == kMagic || magic == kFreedMagic;
}

HeapBlock block_of(const Header& h, std::uintptr_t user) {
  HeapBlock b;
  b.start = user;
  b.requested = h.requested;
  b.alloc_site = h.alloc_site;
  b.alloc_thread = h.alloc_thread;
  b.freed = h.magic == kFreedMagic;
  b.free_site = h.free_site;
  b.free_thread = h.free_thread;
  b.kind = static_cast<AllocKind>(h.kind_and_alignment & 3);
  b.alignment = std::size_t{1} << (h.kind_and_alignment >> 2);
  return b;
}

// Calls f(block start, block end, header of the pointer handed out) for each block carved from
// the region containing `address`, in address order, up to `address` (all of them if it is the
// region's end). Blocks were carved one after another from the region's start; the shadow says
// where the carved part ends, and whether the region is mapped at all.
template <typename F>
void walk_region(std::uintptr_t region, std::uintptr_t until, F&& f) {
  if (!HeapShadow::covers(region)) return;
  for (std::uintptr_t at = region; at < until && at < region + kRegionBytes;) {
    if (HeapShadow::state(at) != kBlockHeader) return;
    const Header* first = reinterpret_cast<const Header*>(at);
    if (!valid_magic(first->magic) || first->size_class >= ThreadHeap::kClasses) return;
    const std::uintptr_t end = at + class_size(first->size_class);
    if (!f(at, end, *(reinterpret_cast<const Header*>(at + first->offset) - 1))) return;
    at = end;
  }
}

std::uintptr_t region_of(std::uintptr_t address) {
  return kHeapRegion + (address - kHeapRegion) / kRegionBytes * kRegionBytes;
}

// (A stray write into a kept region no execution uses now lands in zeroed memory, cleared again
// after the execution, where an unmapped region would have crashed the program; the shadow still
// calls such an access invalid when memory checks are on.)
// What a worker keeps mapped between executions, in a shared mapping of its own (the snapshot
// restores private writable memory only, memory_snapshot.cpp): whether the shadow is mapped, the
// slots whose region is, and how far this execution carved each region.
struct KeptHeap {
  bool shadow = false;
  std::uint32_t count = 0;
  std::uint16_t slots[kSlots];
  std::uintptr_t carved_end[kSlots];  // 0: nothing carved this execution
};
KeptHeap* g_kept = nullptr;  // set before the snapshot, so every restore brings it back

bool is_kept(std::uint32_t slot) {
  return std::find(g_kept->slots, g_kept->slots + g_kept->count, slot) !=
         g_kept->slots + g_kept->count;
}

constexpr std::uintptr_t kPage = 4096;
// Up to this much of what an execution used is cleared in place (the pages stay, and the next
// execution faults none in); more is dropped, to be faulted in as zero pages if used again.
constexpr std::uintptr_t kClearInPlace = 256 * 1024;

// Zeroes [begin, begin + used) and drops [begin + used, begin + bytes): the bytes an execution
// may have written past what it carved (an overflow) too.
void clear(char* begin, std::uintptr_t used, std::uintptr_t bytes) {
  used = std::min((used + kPage - 1) & ~(kPage - 1), bytes);
  if (used <= kClearInPlace)
    std::memset(begin, 0, used);
  else
    madvise(begin, used, MADV_DONTNEED);
  if (used < bytes) madvise(begin + used, bytes - used, MADV_DONTNEED);
}

}  // namespace

void ThreadHeap::keep_mapped_between_executions() {
  if (g_kept) return;
  void* m =
      mmap(nullptr, sizeof(KeptHeap), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return;  // then every execution maps and unmaps, as without a worker
  g_kept = new (m) KeptHeap();
}

void ThreadHeap::reset_all() {
  if (!g_kept) return unmap_all();
  for (std::uint32_t i = 0; i < g_kept->count; ++i) {
    const std::uint32_t slot = g_kept->slots[i];
    const std::uintptr_t base = kHeapRegion + slot * kRegionBytes;
    const std::uintptr_t carved =
        g_kept->carved_end[slot] > base ? g_kept->carved_end[slot] - base : 0;
    g_kept->carved_end[slot] = 0;
    clear(reinterpret_cast<char*>(base), carved, kRegionBytes);
    if (g_kept->shadow)
      clear(reinterpret_cast<char*>(HeapShadow::shadow_begin(base)),
            HeapShadow::shadow_bytes(carved + kShadowGranule - 1),
            HeapShadow::shadow_bytes(kRegionBytes));
  }
}

std::uintptr_t ThreadHeap::range_begin() {
  return kHeapRegion;
}
std::uintptr_t ThreadHeap::range_end() {
  return HeapShadow::range_end();
}

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
  const auto user = reinterpret_cast<std::uintptr_t>(p);
  HeapShadow::mark_resized(user, bytes, user - h->offset + class_size(h->size_class));
}

void ThreadHeap::unmap_all() {
  munmap(reinterpret_cast<void*>(kHeapRegion), kSlots * kRegionBytes);
  HeapShadow::unmap();
}

void* ThreadHeap::allocate(std::size_t bytes, std::size_t alignment, std::uint32_t slot,
                           std::uint64_t site, std::uint32_t thread, AllocKind kind) {
  if (alignment < 16) alignment = 16;
  if (alignment > kMaxAlignment || bytes > UINT32_MAX) {
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
      // Without a shadow (a machine that refuses even a reservation of its size) the heap
      // works unchecked: covers() is false everywhere.
      if (g_kept && g_kept->shadow)
        HeapShadow::adopt();
      else if (HeapShadow::map() && g_kept)
        g_kept->shadow = true;
      const std::uint32_t s = static_cast<std::uint32_t>(slot % kSlots);
      const std::uintptr_t base = kHeapRegion + s * kRegionBytes;
      void* m = reinterpret_cast<void*>(base);
      if (!g_kept || !is_kept(s)) {
        m = mmap(m, kRegionBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
        if (m == MAP_FAILED) {
          errno = ENOMEM;
          return nullptr;
        }
        if (g_kept) g_kept->slots[g_kept->count++] = static_cast<std::uint16_t>(s);
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
    if (g_kept) {
      std::uintptr_t& carved = g_kept->carved_end[static_cast<std::uint32_t>(slot % kSlots)];
      carved = std::max(carved, reinterpret_cast<std::uintptr_t>(next_));
    }
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
  h->kind_and_alignment =
      static_cast<std::uint8_t>(static_cast<unsigned>(kind) | (std::countr_zero(alignment) << 2));
  h->offset = offset;
  h->requested = static_cast<std::uint32_t>(bytes);
  h->alloc_thread = static_cast<std::uint16_t>(thread);
  h->free_thread = 0;
  h->alloc_site = site;
  h->free_site = 0;
  HeapShadow::mark_allocated(reinterpret_cast<std::uintptr_t>(block), user, bytes,
                             reinterpret_cast<std::uintptr_t>(block) + class_size(c));
  return reinterpret_cast<void*>(user);
}

void ThreadHeap::release(void* p, std::uint64_t site, std::uint32_t thread) {
  Header* h = static_cast<Header*>(p) - 1;
  if (h->magic != kMagic) return;  // the caller checked; never free a block twice
  char* block = static_cast<char*>(p) - h->offset;
  const std::uint32_t c = h->size_class;
  h->magic = kFreedMagic;
  h->free_site = site;
  h->free_thread = static_cast<std::uint16_t>(thread);
  reinterpret_cast<Header*>(block)->magic = kFreedMagic;
  HeapShadow::mark_freed(reinterpret_cast<std::uintptr_t>(p),
                         reinterpret_cast<std::uintptr_t>(block) + class_size(c));
  // Into the quarantine, so that a use after free finds the block freed rather than reused;
  // the oldest blocks leave it for the free lists once it holds more than kQuarantineBytes.
  *free_link(block, c) = nullptr;
  if (quarantine_tail_)
    *free_link(quarantine_tail_, reinterpret_cast<Header*>(quarantine_tail_)->size_class) = block;
  else
    quarantine_head_ = block;
  quarantine_tail_ = block;
  quarantined_ += class_size(c);
  while (quarantined_ > kQuarantineBytes && quarantine_head_ != quarantine_tail_) {
    char* oldest = quarantine_head_;
    const std::uint32_t oc = reinterpret_cast<Header*>(oldest)->size_class;
    quarantine_head_ = static_cast<char*>(*free_link(oldest, oc));
    quarantined_ -= class_size(oc);
    *free_link(oldest, oc) = free_[oc];
    free_[oc] = oldest;
  }
}

std::optional<HeapBlock> ThreadHeap::inspect(const void* p) {
  const auto user = reinterpret_cast<std::uintptr_t>(p);
  if (user % kShadowGranule || !HeapShadow::covers(user) || user - kHeapRegion < sizeof(Header))
    return std::nullopt;
  // Only the granules before a block's first byte are a header.
  if (HeapShadow::state(user - kShadowGranule) != kBlockHeader) return std::nullopt;
  const Header* h = static_cast<const Header*>(p) - 1;
  if (!valid_magic(h->magic) || h->size_class >= kClasses || h->offset < sizeof(Header))
    return std::nullopt;
  const Header* first = reinterpret_cast<const Header*>(user - h->offset);
  if (!valid_magic(first->magic) || first->offset != h->offset) return std::nullopt;
  return block_of(*h, user);
}

std::optional<HeapBlock> ThreadHeap::block_containing(std::uintptr_t address) {
  if (!HeapShadow::covers(address)) return std::nullopt;
  std::optional<HeapBlock> found;
  walk_region(region_of(address), address + 1,
              [&](std::uintptr_t at, std::uintptr_t end, const Header& h) {
                if (address >= end) return true;
                const std::uintptr_t user = at + h.offset;
                // Not in a header or the slack after the requested bytes.
                if (address >= user && address < user + std::max<std::uint32_t>(h.requested, 1))
                  found = block_of(h, user);
                return false;
              });
  return found;
}

std::optional<HeapBlock> ThreadHeap::block_nearest(std::uintptr_t address) {
  if (!HeapShadow::covers(address)) return std::nullopt;
  std::optional<HeapBlock> before, after;
  walk_region(region_of(address), kHeapRegion + kHeapBytes,
              [&](std::uintptr_t at, std::uintptr_t, const Header& h) {
                const std::uintptr_t user = at + h.offset;
                if (user <= address) {
                  before = block_of(h, user);
                  return true;
                }
                after = block_of(h, user);
                return false;
              });
  if (!before) return after;
  if (!after) return before;
  const std::uintptr_t past_before = address - (before->start + before->requested);
  return past_before <= after->start - address ? before : after;
}

void ThreadHeap::for_each_live_block(std::uint32_t slot,
                                     const std::function<void(const HeapBlock&)>& f) {
  walk_region(kHeapRegion + (slot % kSlots) * kRegionBytes, kHeapRegion + kHeapBytes,
              [&](std::uintptr_t at, std::uintptr_t, const Header& h) {
                if (h.magic == kMagic) f(block_of(h, at + h.offset));
                return true;
              });
}

}  // namespace weft::runtime::native
