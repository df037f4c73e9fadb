#include "memory_snapshot.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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
  MapsText() {
    void* m = mmap(nullptr, kCapacity, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return;
    text_ = static_cast<char*>(m);
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
  ~MapsText() {
    if (text_) munmap(text_, kCapacity);
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
  static constexpr std::size_t kCapacity = std::size_t{1} << 20;
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

}  // namespace

MemorySnapshot::~MemorySnapshot() {
  if (storage_) munmap(storage_, storage_bytes_);
}

bool MemorySnapshot::capture() {
  MapsText maps;
  if (!maps.ok()) return false;
  count_ = 0;
  bytes_ = 0;
  const ShadowRange shadow = sanitizer_shadow();
  for (const char* p = maps.begin(); p < maps.end();) {
    Mapping m{};
    p = parse_line(p, maps.end(), m);
    // The OS stack is where the caller runs; the kernel's pages are not ours to write.
    if (!m.private_writable || is_named(m, "[stack]") || is_named(m, "[vvar]") ||
        is_named(m, "[vdso]") || is_named(m, "[vsyscall]"))
      continue;
    if (m.start >= shadow.begin && m.end <= shadow.end) continue;
    if (count_ == kMaxRegions) return false;
    regions_[count_++] = {reinterpret_cast<char*>(m.start), m.end - m.start, nullptr};
    bytes_ += m.end - m.start;
  }
  mappings_ = maps.lines() + 1;  // with the storage mapped below
  storage_bytes_ = bytes_ ? bytes_ : 1;
  void* s =
      mmap(nullptr, storage_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (s == MAP_FAILED) {
    storage_ = nullptr;
    return false;
  }
  storage_ = static_cast<char*>(s);
  brk_ = static_cast<std::uintptr_t>(syscall(SYS_brk, 0));
  char* next = storage_;
  for (int i = 0; i < count_; ++i) {
    regions_[i].copy = next;
    std::memcpy(next, regions_[i].start, regions_[i].size);
    next += regions_[i].size;
  }
  return true;
}

void MemorySnapshot::restore() const {
  // Back to the captured break, in both directions: glibc's calloc counts on memory it gets from
  // sbrk being zero, which pages left above the break by this execution would not be; and pages
  // it trimmed must be there again before they are written.
  if (static_cast<std::uintptr_t>(syscall(SYS_brk, 0)) != brk_) syscall(SYS_brk, brk_);
  for (int i = 0; i < count_; ++i)
    std::memcpy(regions_[i].start, regions_[i].copy, regions_[i].size);
}

bool MemorySnapshot::mappings_grew(std::uintptr_t ignore_begin, std::uintptr_t ignore_end) const {
  MapsText maps;
  if (!maps.ok()) return true;
  int count = 0;
  for (const char* p = maps.begin(); p < maps.end();) {
    Mapping m{};
    p = parse_line(p, maps.end(), m);
    count += m.start < ignore_begin || m.start >= ignore_end;
  }
  return count > mappings_;
}

}  // namespace weft::runtime::native
