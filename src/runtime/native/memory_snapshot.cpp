#include "memory_snapshot.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "../zero_bytes.hpp"
#include "real_functions.hpp"

// AddressSanitizer's, weak: defined only in a program built by weft-cc -fsanitize=address.
extern "C" __attribute__((weak)) void __asan_get_shadow_mapping(std::size_t* scale,
                                                                std::size_t* offset);

namespace weft::runtime::native {
namespace {

// AddressSanitizer's shadow of the whole address space, [begin, end), or an empty range without
// it. Its terabytes are reserved, not used, and cannot be copied; nor need they be: what an
// execution poisons there is on the thread stacks, which are unpoisoned when a stack is taken
// over (Fiber::start), and on the program's globals, whose redzones never change.
struct ShadowRange {
  std::uintptr_t begin = 0, end = 0;
};
// The C library's memcpy: in a program built with -fsanitize=address, `memcpy` is ASan's, which
// checks both ranges and would report the redzones around the program's globals as overflows.
void copy_bytes(void* to, const void* from, std::size_t bytes) {
  WEFT_REAL(memcpy, to, from, bytes);
}

constexpr std::size_t kPage = 4096;

// Anonymous regions this large are copied page by page, only the pages in use: a sanitizer's
// runtime reserves megabytes of tables in its bss that a program never touches, and copying
// them back after every execution would cost more than the execution.
constexpr std::size_t kSparseBytes = std::size_t{1} << 20;

// The /proc/self/pagemap entries of `pages` pages from `start`; false if it cannot be read.
bool read_page_entries(const char* start, std::size_t pages, std::uint64_t* entries) {
  const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const off_t at = static_cast<off_t>(reinterpret_cast<std::uintptr_t>(start) / kPage * 8);
  const std::size_t want = pages * 8;
  std::size_t got = 0;
  while (got < want) {
    const ssize_t n =
        pread(fd, reinterpret_cast<char*>(entries) + got, want - got, at + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fd);
  return got == want;
}

// A page that is present or swapped out has been touched; otherwise it reads as zero.
bool page_in_use(std::uint64_t entry) {
  return (entry >> 62) != 0;
}

ShadowRange sanitizer_shadow() {
  if (!&__asan_get_shadow_mapping) return {};
  std::size_t scale = 0, offset = 0;
  __asan_get_shadow_mapping(&scale, &offset);
  constexpr std::uintptr_t kAddressSpaceEnd = std::uintptr_t{1} << 47;  // x86-64 user space
  return {offset, offset + (kAddressSpaceEnd >> scale)};
}

// /proc/self/maps, read into a mapping of its own: the heap must not change while it is read.
// The mapping is shared, so that it is not itself a private writable mapping in the list.
class MapsText {
 public:
  static constexpr std::size_t kCapacity = std::size_t{1} << 20;
  /// Reads into `*buffer`, mapped on the first read and kept for the next ones: shared, so
  /// that the snapshot leaves it out, and kept, since unmapping written shared memory (every
  /// drift check) cost about as much as an execution on a machine where it flushes the TLB
  /// through the hypervisor.
  explicit MapsText(char** buffer) {
    if (!*buffer) {
      void* m = mmap(nullptr, kCapacity, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED) return;
      *buffer = static_cast<char*>(m);
    }
    text_ = *buffer;
    const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    while (size_ < kCapacity - 1) {
      const ssize_t n = read(fd, text_ + size_, kCapacity - 1 - size_);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      size_ += static_cast<std::size_t>(n);
    }
    close(fd);
    ok_ = size_ > 0 && size_ < kCapacity - 1;
    text_[size_] = '\0';
  }
  MapsText(const MapsText&) = delete;
  MapsText& operator=(const MapsText&) = delete;

  bool ok() const { return ok_; }
  const char* begin() const { return text_; }
  const char* end() const { return text_ + size_; }
  int lines() const {
    int n = 0;
    for (const char* p = begin(); p != end(); ++p) n += *p == '\n';
    return n;
  }

 private:
  char* text_ = nullptr;
  std::size_t size_ = 0;
  bool ok_ = false;
};

std::uintptr_t parse_hex(const char*& p) {
  std::uintptr_t v = 0;
  for (;; ++p) {
    const char c = *p;
    if (c >= '0' && c <= '9')
      v = v * 16 + static_cast<std::uintptr_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v = v * 16 + static_cast<std::uintptr_t>(c - 'a' + 10);
    else
      return v;
  }
}

// One line: "start-end perms offset dev inode   path".
struct Mapping {
  std::uintptr_t start, end;
  bool private_writable;
  const char* name;  // not terminated: up to the end of the line
  std::size_t name_size;
};

const char* parse_line(const char* p, const char* end, Mapping& m) {
  m.start = parse_hex(p);
  ++p;  // '-'
  m.end = parse_hex(p);
  ++p;  // ' '
  m.private_writable = p + 4 <= end && p[1] == 'w' && p[3] == 'p';
  const char* eol =
      static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
  if (!eol) eol = end;
  // The path is the sixth field; anonymous mappings have none.
  int field = 1;
  const char* q = p;
  while (q < eol && field < 5) {
    while (q < eol && *q != ' ') ++q;
    while (q < eol && *q == ' ') ++q;
    ++field;
  }
  m.name = q;
  m.name_size = static_cast<std::size_t>(eol - q);
  return eol < end ? eol + 1 : end;
}

bool is_named(const Mapping& m, const char* name) {
  return m.name_size == std::strlen(name) && std::memcmp(m.name, name, m.name_size) == 0;
}

// Where the C library's top chunk starts: the free memory at the end of the brk heap, whose
// contents do not matter (calloc clears what it takes from an old top chunk). An execution that
// allocates from it leaves bytes there that no allocation relies on once the chunk's header and
// the arena's own state are written back. 0 if unknown (a sanitizer's malloc is in use, and its
// mallinfo2 says nothing).
std::uintptr_t free_heap_start() {
  const std::uintptr_t brk = static_cast<std::uintptr_t>(syscall(SYS_brk, 0));
  const struct mallinfo2 info = mallinfo2();
  if (info.keepcost == 0 || info.keepcost >= brk || info.keepcost > info.arena) return 0;
  return brk - info.keepcost;
}

// Bytes of the brk heap mapping [start, end) to write back, when its free part starts at
// `free_from` (the brk heap may be several mappings).
std::size_t heap_bytes_in_use(std::uintptr_t start, std::uintptr_t end, std::uintptr_t free_from) {
  if (free_from == 0 || free_from >= end) return end - start;
  if (free_from < start) return 0;
  return std::min<std::size_t>(end - start, ((free_from - start) / kPage + 1) * kPage);
}

}  // namespace

MemorySnapshot::~MemorySnapshot() {
  if (storage_) munmap(storage_, storage_bytes_);
  if (maps_text_) munmap(maps_text_, MapsText::kCapacity);
}

bool MemorySnapshot::capture() {
  MapsText maps(&maps_text_);
  if (!maps.ok()) return false;
  count_ = 0;
  bytes_ = 0;
  std::size_t largest_sparse = 0;
  const ShadowRange shadow = sanitizer_shadow();
  const std::uintptr_t free_from = free_heap_start();
  for (const char* p = maps.begin(); p < maps.end();) {
    Mapping m{};
    p = parse_line(p, maps.end(), m);
    // The OS stack is where the caller runs; the kernel's pages are not ours to write.
    if (!m.private_writable || is_named(m, "[stack]") || is_named(m, "[vvar]") ||
        is_named(m, "[vdso]") || is_named(m, "[vsyscall]"))
      continue;
    // Overlapping, not inside: ASan rounds the low shadow's start down a page.
    if (m.start < shadow.end && m.end > shadow.begin) continue;
    if (count_ == kMaxRegions) return false;
    const bool sparse = m.name_size == 0 && m.end - m.start >= kSparseBytes;
    regions_[count_++] = {reinterpret_cast<char*>(m.start), m.end - m.start, nullptr,
                          sparse ? reinterpret_cast<std::uint8_t*>(1) : nullptr, m.end - m.start};
    if (is_named(m, "[heap]"))
      regions_[count_ - 1].restored = heap_bytes_in_use(m.start, m.end, free_from);
    bytes_ += m.end - m.start;
    if (sparse) largest_sparse = std::max(largest_sparse, (m.end - m.start) / kPage);
  }
  mappings_ = maps.lines() + 1;  // with the storage mapped below
  // The copies, then a flag per page (sparse regions: kept; the others: zero), then room for the
  // sparse regions' pagemap entries. Pages of the copies that are never written cost nothing.
  const std::size_t entries_at = (bytes_ + bytes_ / kPage + 7) & ~std::size_t{7};
  storage_bytes_ = entries_at + largest_sparse * sizeof(std::uint64_t) + 1;
  void* s =
      mmap(nullptr, storage_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (s == MAP_FAILED) {
    storage_ = nullptr;
    return false;
  }
  storage_ = static_cast<char*>(s);
  page_entries_ = reinterpret_cast<std::uint64_t*>(storage_ + entries_at);
  brk_ = static_cast<std::uintptr_t>(syscall(SYS_brk, 0));
  char* next = storage_;
  auto* flags = reinterpret_cast<std::uint8_t*>(storage_ + bytes_);
  for (int i = 0; i < count_; ++i) {
    Region& r = regions_[i];
    r.copy = next;
    next += r.size;
    const std::size_t pages = r.size / kPage;
    if (r.kept && read_page_entries(r.start, pages, page_entries_)) {
      r.kept = flags;
      flags += pages;
      for (std::size_t p = 0; p < pages; ++p) {
        r.kept[p] = page_in_use(page_entries_[p]);
        if (r.kept[p]) copy_bytes(r.copy + p * kPage, r.start + p * kPage, kPage);
      }
      continue;
    }
    r.kept = nullptr;
    // A page of zeros is not copied: restore() checks it reads as zero, one stream of loads
    // from memory the execution's own reads mostly keep cached (libstdc++'s 72 KiB emergency
    // exception pool in the brk heap, zeroed bss), where comparing with a copy reads two.
    r.zero = flags;
    flags += pages;
    for (std::size_t p = 0; p * kPage < r.restored; ++p) {
      const std::size_t n = std::min(kPage, r.restored - p * kPage);
      r.zero[p] = reads_as_zero(r.start + p * kPage, n);
      if (!r.zero[p]) copy_bytes(r.copy + p * kPage, r.start + p * kPage, n);
    }
  }
  return true;
}

void MemorySnapshot::restore_sparse(const Region& r) const {
  const std::size_t pages = r.size / kPage;
  const bool known = read_page_entries(r.start, pages, page_entries_);
  // Runs of pages: copied back if kept, dropped (zero again) if touched since.
  for (std::size_t p = 0; p < pages;) {
    const bool kept = r.kept[p];
    std::size_t end = p + 1;
    while (end < pages && r.kept[end] == kept &&
           (kept || !known || page_in_use(page_entries_[end]) == page_in_use(page_entries_[p])))
      ++end;
    if (kept)
      copy_bytes(r.start + p * kPage, r.copy + p * kPage, (end - p) * kPage);
    else if (!known || page_in_use(page_entries_[p]))
      madvise(r.start + p * kPage, (end - p) * kPage, MADV_DONTNEED);
    p = end;
  }
}

void MemorySnapshot::write_back_changed(const Region& r) const {
  // An execution changes few of the pages a worker restores (Writes: 9 of 64), and reading an
  // unchanged page costs less than writing it (docs/performance.md). Finer blocks (512 bytes)
  // gained nothing more.
  for (std::size_t p = 0; p * kPage < r.restored; ++p) {
    char* const live = r.start + p * kPage;
    const std::size_t n = std::min(kPage, r.restored - p * kPage);
    if (r.zero[p]) {
      if (!reads_as_zero(live, n)) WEFT_REAL(memset, live, 0, n);
    } else if (WEFT_REAL(memcmp, live, r.copy + p * kPage, n) != 0) {
      copy_bytes(live, r.copy + p * kPage, n);
    }
  }
}

void MemorySnapshot::restore() const {
  // Back to the captured break, in both directions: glibc's calloc counts on memory it gets from
  // sbrk being zero, which pages left above the break by this execution would not be; and pages
  // it trimmed must be there again before they are written.
  // The C library's record of the break (sbrk(0) asks no system call) is read before the copies
  // write it back; only the allocator moves the break, through sbrk.
  if (reinterpret_cast<std::uintptr_t>(sbrk(0)) != brk_) syscall(SYS_brk, brk_);
  for (int i = 0; i < count_; ++i) {
    if (regions_[i].kept)
      restore_sparse(regions_[i]);
    else
      write_back_changed(regions_[i]);
  }
}

bool MemorySnapshot::mappings_grew(std::initializer_list<Range> ignored) const {
  MapsText maps(&maps_text_);
  if (!maps.ok()) return true;
  int count = 0;
  for (const char* p = maps.begin(); p < maps.end();) {
    Mapping m{};
    p = parse_line(p, maps.end(), m);
    count += std::none_of(ignored.begin(), ignored.end(),
                          [&](const Range& r) { return m.start >= r.begin && m.start < r.end; });
  }
  return count > mappings_;
}

}  // namespace weft::runtime::native
