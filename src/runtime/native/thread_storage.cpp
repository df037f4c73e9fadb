#include "thread_storage.hpp"

#include <link.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "native_runtime.hpp"
#include "real_functions.hpp"

namespace weft::runtime::native {
namespace {

// x86-64 glibc thread control block header (tcbhead_t): the words weft sets or copies.
constexpr std::size_t kTcbSelf = 0;        // tcb: points to itself
constexpr std::size_t kTcbSelfAgain = 16;  // self: the struct pthread, the same address
constexpr std::size_t kTcbGuards = 0x28;   // stack_guard, pointer_guard
constexpr std::size_t kTcbGuardsBytes = 16;
constexpr std::size_t kTcbFeature1 = 0x48;  // feature_1 (CET state)

struct LibcBlock {
  const char* data = nullptr;
  std::size_t size = 0;
};

int find_libc_block(dl_phdr_info* info, std::size_t, void* out) {
  const std::string_view name = info->dlpi_name ? info->dlpi_name : "";
  if (name.find("/libc.so") == std::string_view::npos || !info->dlpi_tls_data) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_TLS) continue;
    auto& block = *static_cast<LibcBlock*>(out);
    block.data = static_cast<const char*>(info->dlpi_tls_data);
    block.size = info->dlpi_phdr[i].p_memsz;
    return 1;
  }
  return 0;
}

}  // namespace

GlibcThreadStorage& GlibcThreadStorage::instance() {
  static GlibcThreadStorage storage;
  return storage;
}

GlibcThreadStorage::GlibcThreadStorage() {
  // GLIBC_PRIVATE, but stable since glibc 2.1 and what every thread library on glibc uses.
  allocate_ = reinterpret_cast<void* (*)(void*)>(dlsym(RTLD_DEFAULT, "_dl_allocate_tls"));
  deallocate_ = reinterpret_cast<void (*)(void*, bool)>(dlsym(RTLD_DEFAULT, "_dl_deallocate_tls"));
  os_thread_pointer_ = static_cast<char*>(thread_pointer());
  LibcBlock libc;
  dl_iterate_phdr(&find_libc_block, &libc);
  if (!allocate_ || !deallocate_ || !libc.data) {
    allocate_ = nullptr;
    return;
  }
  libc_block_ = libc.data - os_thread_pointer_;
  libc_block_size_ = libc.size;
  const char* err = reinterpret_cast<const char*>(&errno);
  if (err >= libc.data && err + sizeof(int) <= libc.data + libc.size)
    errno_offset_ = err - libc.data;
}

void* GlibcThreadStorage::create(ThreadId) {
  if (!allocate_) return nullptr;
  auto* tp = static_cast<char*>(allocate_(nullptr));
  if (!tp) return nullptr;
  std::memcpy(tp + kTcbSelf, &tp, sizeof tp);
  std::memcpy(tp + kTcbSelfAgain, &tp, sizeof tp);
  std::memcpy(tp + kTcbGuards, os_thread_pointer_ + kTcbGuards, kTcbGuardsBytes);
  std::memcpy(tp + kTcbFeature1, os_thread_pointer_ + kTcbFeature1, sizeof(unsigned));
  std::memcpy(tp + libc_block_, os_thread_pointer_ + libc_block_, libc_block_size_);
  if (errno_offset_ >= 0) std::memset(tp + libc_block_ + errno_offset_, 0, sizeof(int));
  return tp;
}

void GlibcThreadStorage::release(void* tp) {
  if (deallocate_) deallocate_(tp, true);
}

void run_thread_local_destructors() {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) return;
  auto& list = rt->self().thread_local_destructors;
  // A destructor may register more (a thread_local first used in another's destructor).
  while (!list.empty()) {
    const auto [destructor, object] = list.back();
    list.pop_back();
    --rt->self().in_runtime;  // the program's code
    destructor(object);
    ++rt->self().in_runtime;
  }
}

}  // namespace weft::runtime::native

using weft::runtime::native::NativeRuntime;
using weft::runtime::native::RuntimeScope;

extern "C" {

// Called by the C++ runtime (__cxa_thread_atexit) for each thread_local object with a
// destructor, when the object is first used in a thread. In an execution the destructor runs
// when the weft thread ends; outside one it is the C library's.
int __cxa_thread_atexit_impl(void (*destructor)(void*), void* object, void* dso) {
  NativeRuntime* rt = NativeRuntime::active();
  if (!rt) {
    using Impl = int (*)(void (*)(void*), void*, void*);
    static const auto real =
        reinterpret_cast<Impl>(weft::runtime::native::real_symbol("__cxa_thread_atexit_impl"));
    return real(destructor, object, dso);
  }
  RuntimeScope scope(*rt);
  rt->self().thread_local_destructors.emplace_back(destructor, object);
  return 0;
}

}  // extern "C"
