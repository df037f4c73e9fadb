// Shared libraries that may synchronise where weft cannot see it (unseen_libraries.hpp).
//
// A lock built from the library's own atomic instructions (absl::Mutex, GLib's GMutex, oneTBB's
// queues) orders the program's accesses without any operation weft sees: weft would report the
// accesses it guards as data races, and explore fewer interleavings than there are. The x86
// instructions such locks are built from are lock-prefixed compare-and-swaps and exchanges-and-
// adds; a library whose code holds one is named, so that the verdict never rests on it silently.
// The C and C++ runtime libraries are not: what of them synchronises threads (pthreads, futexes,
// static guards) is modelled at its interface.
#include "unseen_libraries.hpp"

#include <link.h>

#include <array>
#include <cstring>
#include <string_view>

namespace weft::runtime::native {
namespace {

// Libraries whose synchronisation weft models at their interface, or whose atomics guard only
// the library's own state and are not offered to programs, by the start of their file name.
bool modelled(std::string_view name) {
  static constexpr std::array<std::string_view, 20> kModelled{
      "libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "ld-linux", "libpthread.so", "libdl.so",
      "librt.so", "libresolv.so", "linux-vdso.so", "libmvec.so", "libatomic.so",
      // Abseil's synchronisation, of the release abseil_sync.cpp models...
      "libabsl_synchronization.so.20220623", "libabsl_spinlock_wait.so.20220623",
      // ...and the libraries it pulls in, whose atomics keep their own tables (the deadlock
      // graph, the low-level allocator, the symbolizer, the clock's calibration, base's
      // internal spin locks and thread identities): nothing of the program's is ordered by them.
      "libabsl_graphcycles_internal.so.20220623", "libabsl_malloc_internal.so.20220623",
      "libabsl_symbolize.so.20220623", "libabsl_time.so.20220623", "libabsl_base.so.20220623",
      "libabsl_raw_logging_internal.so.20220623"};
  for (std::string_view m : kModelled)
    if (name.substr(0, m.size()) == m) return true;
  return false;
}

// Whether code[at...] is a lock-prefixed cmpxchg, cmpxchg8b/16b or xadd (with or without a REX
// prefix): the instructions locks and counters are built from. Random bytes match with odds of
// about one in ten million per byte.
bool locked_exchange(const unsigned char* code, std::size_t size, std::size_t at) {
  if (code[at] != 0xf0) return false;
  std::size_t i = at + 1;
  if (i < size && (code[i] & 0xf0) == 0x40) ++i;  // REX
  if (i + 1 >= size || code[i] != 0x0f) return false;
  const unsigned char op = code[i + 1];
  return op == 0xb0 || op == 0xb1 || op == 0xc0 || op == 0xc1 || op == 0xc7;
}

// Whether the object's dynamic string table has `text`.
bool dynamic_strings_have(const dl_phdr_info* info, std::string_view text) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const auto* dynamic =
        reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    const char* strings = nullptr;
    std::size_t size = 0;
    for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
      // The dynamic linker has relocated DT_STRTAB to an address by now.
      // (Not the vDSO's, which the kernel maps unrelocated: an offset from its base.)
      if (d->d_tag == DT_STRTAB)
        strings = reinterpret_cast<const char*>(
            d->d_un.d_ptr < info->dlpi_addr ? info->dlpi_addr + d->d_un.d_ptr : d->d_un.d_ptr);
      if (d->d_tag == DT_STRSZ) size = d->d_un.d_val;
    }
    if (strings && size && std::string_view(strings, size).find(text) != std::string_view::npos)
      return true;
  }
  return false;
}

// Whether the object was built by weft-cc: its dynamic string table names weft's hooks, whose
// calls make its atomics visible.
bool built_by_weft(const dl_phdr_info* info) {
  return dynamic_strings_have(info, "__weft_atomic");
}

struct Scan {
  std::vector<std::string> found;
};

int scan_object(dl_phdr_info* info, std::size_t, void* data) {
  auto& scan = *static_cast<Scan*>(data);
  const char* path = info->dlpi_name;
  if (!path || !*path) return 0;  // the executable itself
  const char* slash = std::strrchr(path, '/');
  const std::string_view name = slash ? slash + 1 : path;
  if (modelled(name) || built_by_weft(info)) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD || !(segment.p_flags & PF_X)) continue;
    const auto* code = reinterpret_cast<const unsigned char*>(info->dlpi_addr + segment.p_vaddr);
    const std::size_t size = segment.p_filesz;
    const void* at = code;
    // memchr finds the rare prefix byte quickly.
    while ((at = std::memchr(at, 0xf0, size - (static_cast<const unsigned char*>(at) - code)))) {
      const std::size_t offset = static_cast<const unsigned char*>(at) - code;
      if (locked_exchange(code, size, offset)) {
        scan.found.emplace_back(name);
        return 0;
      }
      if (offset + 1 >= size) break;
      at = code + offset + 1;
    }
  }
  return 0;
}

}  // namespace

const std::vector<std::string>& libraries_with_unseen_synchronisation() {
  // Computed once before the worker's snapshot (the snapshot keeps it for every execution).
  static const std::vector<std::string> found = [] {
    Scan scan;
    dl_iterate_phdr(scan_object, &scan);
    return scan.found;
  }();
  return found;
}

bool libraries_ask_for_thread_pointer() {
  // Computed once before the worker's snapshot, as above. A library weft-cc built before the
  // pass asked (tools/weft-lib's cache outlives weft's builds) names hooks but not this one.
  static const bool all = [] {
    bool ask = true;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) -> int {
          const char* path = info->dlpi_name;
          if (!path || !*path) return 0;  // the executable, built with this runtime
          if (dynamic_strings_have(info, "__weft_") &&
              !dynamic_strings_have(info, "__weft_sync_thread_pointer"))
            *static_cast<bool*>(data) = false;
          return 0;
        },
        &ask);
    return ask;
  }();
  return all;
}

}  // namespace weft::runtime::native
