#include "thread_storage.hpp"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "glibc_thread_state.hpp"
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
  using StaticInfo = void (*)(std::size_t*, std::size_t*);
  const auto static_info =
      reinterpret_cast<StaticInfo>(dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info"));
  const auto* tcb_size =
      static_cast<const std::uint32_t*>(dlsym(RTLD_DEFAULT, "_thread_db_sizeof_pthread"));
  if (static_info && tcb_size) {
    static_info(&static_size_, &static_align_);
    tcb_size_ = *tcb_size;
    if (static_align_ == 0 || (static_align_ & (static_align_ - 1)) != 0) tcb_size_ = 0;
  }
  libc_block_ = libc.data - os_thread_pointer_;
  libc_block_size_ = libc.size;
  const char* err = reinterpret_cast<const char*>(&errno);
  if (err >= libc.data && err + sizeof(int) <= libc.data + libc.size)
    errno_offset_ = err - libc.data;
}

void* GlibcThreadStorage::create(ThreadId, std::uintptr_t place, std::size_t bytes, bool mapped,
                                 bool* placed) {
  *placed = false;
  if (!allocate_) return nullptr;
  char* tp = nullptr;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t need = (static_size_ + static_align_ + page - 1) / page * page;
  if (place && tcb_size_ && need <= bytes) {
    void* block = mapped ? reinterpret_cast<void*>(place)
                         : mmap(reinterpret_cast<void*>(place), need, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    // Already there: left by an earlier execution for this thread's place, and reused.
    if (block == MAP_FAILED && errno == EEXIST) block = reinterpret_cast<void*>(place);
    if (block == reinterpret_cast<void*>(place)) {
      // x86-64 puts the thread control block above the static TLS blocks (TLS_TCB_AT_TP).
      const std::uintptr_t tcb = (place + need - tcb_size_) & ~(static_align_ - 1);
      std::memset(reinterpret_cast<void*>(tcb), 0, tcb_size_);
      tp = static_cast<char*>(allocate_(reinterpret_cast<void*>(tcb)));
      if (tp) placed_.push_back(tp);
      *placed = tp != nullptr;
    }
  }
  if (!tp) tp = static_cast<char*>(allocate_(nullptr));
  if (!tp) return nullptr;
  std::memcpy(tp + kTcbSelf, &tp, sizeof tp);
  std::memcpy(tp + kTcbSelfAgain, &tp, sizeof tp);
  std::memcpy(tp + kTcbGuards, os_thread_pointer_ + kTcbGuards, kTcbGuardsBytes);
  std::memcpy(tp + kTcbFeature1, os_thread_pointer_ + kTcbFeature1, sizeof(unsigned));
  const int multiple_threads = 1;  // as glibc sets it in every thread it creates
  std::memcpy(tp + kTcbMultipleThreads, &multiple_threads, sizeof multiple_threads);
  std::memcpy(tp + libc_block_, os_thread_pointer_ + libc_block_, libc_block_size_);
  if (errno_offset_ >= 0) std::memset(tp + libc_block_ + errno_offset_, 0, sizeof(int));
  return tp;
}

void GlibcThreadStorage::release(void* tp) {
  if (!deallocate_) return;
  const auto it = std::find(placed_.begin(), placed_.end(), tp);
  const bool placed = it != placed_.end();
  if (placed) placed_.erase(it);
  deallocate_(tp, !placed);  // a placed block stays mapped for the next execution
}

int* GlibcThreadStorage::errno_location(void* tp) {
  if (errno_offset_ < 0) return nullptr;
  return reinterpret_cast<int*>(static_cast<char*>(tp) + libc_block_ + errno_offset_);
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
    // Maybe code weft did not compile (libstdc++'s): with the thread's own storage, which its
    // last access hook may have left unset (RunLimits::lazy_thread_pointer).
    Scheduler::sync_thread_pointer();
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
