// A copy of the process's private writable memory, taken once and written back after every
// execution, so that one worker process runs many executions, each from the same state, as a
// freshly forked child would. Forking costs far more on the machines we measured than copying
// the few hundred KiB a program and its libraries write (docs/architecture.md, fork server).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace weft::runtime::native {

/// The private writable mappings of this process (data and bss of the program and its libraries,
/// the brk heap, anonymous mappings such as the main thread's TLS), without the OS stack, which
/// the caller runs on, and without AddressSanitizer's shadow (docs/sanitizers.md). Nothing of it
/// lives in the memory it restores: the object sits on the OS stack and the copies in a mapping of
/// their own.
class MemorySnapshot {
 public:
  MemorySnapshot() = default;
  MemorySnapshot(const MemorySnapshot&) = delete;
  MemorySnapshot& operator=(const MemorySnapshot&) = delete;
  ~MemorySnapshot();

  /// Copies the memory; false (and nothing kept) if /proc/self/maps cannot be read or lists more
  /// mappings than a snapshot holds.
  bool capture();
  /// Writes the copies back and returns the brk heap to its captured end. Mappings made since
  /// the capture stay: the caller removes the ones it knows of, and `mappings_grew` tells it of
  /// the others.
  void restore() const;
  /// Whether /proc/self/maps now lists more mappings than at the capture, not counting those that
  /// start in the `ignored` ranges (something was mapped and not removed; a worker should then
  /// be replaced, or addresses would drift).
  /// Mappings starting in the ranges [begin, end) of `ignored` are not counted.
  struct Range {
    std::uintptr_t begin, end;
  };
  bool mappings_grew(std::initializer_list<Range> ignored) const;
  /// Bytes the snapshot holds (restore() writes back at most these).
  std::size_t bytes() const { return bytes_; }

 private:
  static constexpr int kMaxRegions = 256;
  struct Region {
    char* start;
    std::size_t size;
    char* copy;
    /// A large anonymous region (a sanitizer runtime's tables): one byte per page, 1 if the page
    /// was in use at the capture and copied. The others were never touched, so zero, and only
    /// those an execution touched are cleared. Null: every page was copied.
    std::uint8_t* kept = nullptr;
    /// Bytes from `start` written back (less than `size` for the brk heap: what lies past the
    /// start of the C library's top chunk is free memory, whose contents do not matter).
    std::size_t restored = 0;
    /// Any other region: one byte per page, 1 if the page was all zero at the capture (and not
    /// copied).
    std::uint8_t* zero = nullptr;
  };
  void restore_sparse(const Region& r) const;
  /// Writes back the pages of `r` that differ from the capture.
  void write_back_changed(const Region& r) const;
  Region regions_[kMaxRegions];
  int count_ = 0;
  int mappings_ = 0;                       // lines of /proc/self/maps at the capture
  std::uint64_t* page_entries_ = nullptr;  // room for a sparse region's /proc/self/pagemap
  char* storage_ = nullptr;
  std::size_t storage_bytes_ = 0;
  std::size_t bytes_ = 0;
  std::uintptr_t brk_ = 0;
  mutable char* maps_text_ = nullptr;  // /proc/self/maps is read into it (MapsText)
};

}  // namespace weft::runtime::native
