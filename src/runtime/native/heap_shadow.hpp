// The state of every 16 bytes of the program's heap (the per-thread regions of ThreadHeap), one
// shadow byte each, as in AddressSanitizer's shadow memory: whether the program may access them,
// and if not, why (a block's header, the slack after its bytes, a freed block, never handed out).
// Every instrumented access to the heap is checked against it (memory_errors.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace weft::runtime::native {

/// Where the per-thread heap regions are, one 1 GiB region per slot: above the thread stacks
/// (native_runtime.cpp), outside AddressSanitizer's shadow and below both its allocator
/// (0x600000000000) and where the program is loaded without address-space randomization
/// (0x555555554000); the heap's own shadow follows, up to 0x544000000000.
inline constexpr std::uintptr_t kHeapRegion = 0x500000000000ULL;
inline constexpr std::uintptr_t kHeapRegionBytes = std::uintptr_t{1} << 30;
inline constexpr std::uintptr_t kHeapSlots = 4096;
inline constexpr std::uintptr_t kHeapBytes = kHeapSlots * kHeapRegionBytes;
/// The shadow of the whole heap range, right after it (a sixteenth of its size, mapped on
/// demand and unmapped with the heap after each execution).
inline constexpr std::uintptr_t kHeapShadow = kHeapRegion + kHeapBytes;
inline constexpr std::uintptr_t kShadowGranule = 16;

/// What a shadow byte says about its 16 bytes. 1 to 16: that many leading bytes are the
/// program's (a block's last granule may be partial); the others name what is there instead.
enum ShadowByte : std::uint8_t {
  kNeverAllocated = 0,  ///< fresh memory (what an unused page reads as)
  kWholeGranule = 16,
  kBlockHeader = 0xfa,  ///< weft's header before a block (and alignment padding)
  kBlockSlack = 0xfb,   ///< after the bytes a block was asked for, up to its size class
  kFreedBlock = 0xfd,   ///< a block freed and not yet handed out again
};

class HeapShadow {
 public:
  /// Whether `address` is in the heap range and the shadow is there to say what it holds
  /// (before the first block of an execution it is not: then the heap is not mapped either).
  static bool covers(std::uintptr_t address) {
    return address - kHeapRegion < kHeapBytes && mapped_;
  }

  /// Whether the program may access [address, address+size), all of it in the heap range.
  /// Inline: this is on the path of every instrumented heap access.
  static bool accessible(std::uintptr_t address, std::size_t size) {
    const std::uint8_t s = *shadow_of(address);
    const std::size_t end = (address & (kShadowGranule - 1)) + size;
    if (end <= kShadowGranule) return s <= kWholeGranule && end <= s;
    return all_accessible(address, size);
  }

  /// The first byte of [address, address+size) the program may not access (one exists).
  static std::uintptr_t first_inaccessible(std::uintptr_t address, std::size_t size);
  /// The shadow byte of `address`'s granule.
  static std::uint8_t state(std::uintptr_t address) { return *shadow_of(address); }

  /// Maps the shadow of the whole heap range if it is not mapped yet (before the first block).
  static bool map();
  /// Takes the shadow a worker kept mapped from an earlier execution (cleared since) as mapped.
  static void adopt() { mapped_ = true; }
  /// Unmaps it (with the heap, after an execution); it then reads as unmapped again.
  static void unmap();
  /// The shadow's bytes of heap addresses [begin, end): where it is and how many.
  static std::uint8_t* shadow_begin(std::uintptr_t begin) { return shadow_of(begin); }
  static constexpr std::uintptr_t shadow_bytes(std::uintptr_t bytes) {
    return bytes / kShadowGranule;
  }
  /// The end of the shadow's address range.
  static constexpr std::uintptr_t range_end() { return kHeapShadow + kHeapBytes / kShadowGranule; }

  /// A block handed out: its header [block, user) and slack [user+bytes, block_end) are not
  /// the program's; [user, user+bytes) is. `user` is 16-aligned.
  static void mark_allocated(std::uintptr_t block, std::uintptr_t user, std::size_t bytes,
                             std::uintptr_t block_end);
  /// A block freed: [user, block_end) is no longer the program's.
  static void mark_freed(std::uintptr_t user, std::uintptr_t block_end);
  /// A block kept by realloc now holds `bytes` of its usable [user, block_end).
  static void mark_resized(std::uintptr_t user, std::size_t bytes, std::uintptr_t block_end);

 private:
  static std::uint8_t* shadow_of(std::uintptr_t address) {
    return reinterpret_cast<std::uint8_t*>(kHeapShadow + (address - kHeapRegion) / kShadowGranule);
  }
  static bool all_accessible(std::uintptr_t address, std::size_t size);
  static inline bool mapped_ = false;
};

}  // namespace weft::runtime::native
