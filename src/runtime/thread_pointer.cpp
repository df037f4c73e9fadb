// Reading and setting the x86-64 thread pointer (%fs base). With the FSGSBASE instructions
// (Linux 5.9+ enables them for user space, announced in AT_HWCAP2) a switch costs a few cycles;
// otherwise it takes the arch_prctl system call.
#include <asm/prctl.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "weft/runtime/thread_storage.hpp"

#if !defined(__x86_64__)
#error "weft's thread pointer switch is implemented for x86-64 only so far"
#endif

namespace weft::runtime {
namespace {

constexpr unsigned long kHwcap2FsGsBase = 1ul << 1;  // HWCAP2_FSGSBASE

bool has_fsgsbase() {
  static const bool yes = (getauxval(AT_HWCAP2) & kHwcap2FsGsBase) != 0;
  return yes;
}

}  // namespace

void set_thread_pointer(void* tp) noexcept {
  if (has_fsgsbase())
    asm volatile("wrfsbase %0" ::"r"(tp) : "memory");
  else
    syscall(SYS_arch_prctl, ARCH_SET_FS, tp);
}

void* thread_pointer() noexcept {
  // The TCB's first word points to itself (x86-64 TLS ABI), whichever way it was set.
  void* tp;
  asm volatile("mov %%fs:0, %0" : "=r"(tp));
  return tp;
}

}  // namespace weft::runtime
