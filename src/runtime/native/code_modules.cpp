#include "code_modules.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace weft::runtime::native {
namespace {

struct Segment {
  std::uintptr_t begin, end, base;
  bool libstdcxx;
};

std::vector<Segment>& segments() {
  static std::vector<Segment> table;  // filled before the snapshot, read-only after
  return table;
}

}  // namespace

void read_loaded_modules() {
  std::vector<Segment>& table = segments();
  table.clear();
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        auto& t = *static_cast<std::vector<Segment>*>(out);
        const bool libstdcxx = info->dlpi_name && std::strstr(info->dlpi_name, "libstdc++");
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& p = info->dlpi_phdr[i];
          if (p.p_type != PT_LOAD) continue;
          const std::uintptr_t begin = info->dlpi_addr + p.p_vaddr;
          t.push_back({begin, begin + p.p_memsz, info->dlpi_addr, libstdcxx});
        }
        return 0;
      },
      &table);
}

bool in_executable_code(const void* address) {
  struct Range {
    std::uintptr_t begin = 0, end = 0;
  };
  static const Range code = [] {
    Range r;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
          auto& range = *static_cast<Range*>(out);
          for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& p = info->dlpi_phdr[i];
            if (p.p_type != PT_LOAD || !(p.p_flags & PF_X)) continue;
            const std::uintptr_t begin = info->dlpi_addr + p.p_vaddr;
            if (range.begin == 0 || begin < range.begin) range.begin = begin;
            range.end = std::max<std::uintptr_t>(range.end, begin + p.p_memsz);
          }
          return 1;  // the first object is the executable
        },
        &r);
    return r;
  }();
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  return a >= code.begin && a < code.end;
}

ModuleOffset module_offset(const void* address) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  for (const Segment& s : segments())
    if (a >= s.begin && a < s.end) return {a - s.base + 1, s.libstdcxx};
  Dl_info info{};
  if (!dladdr(address, &info) || !info.dli_fbase) return {};
  return {a - reinterpret_cast<std::uintptr_t>(info.dli_fbase) + 1,
          info.dli_fname && std::strstr(info.dli_fname, "libstdc++")};
}

}  // namespace weft::runtime::native
