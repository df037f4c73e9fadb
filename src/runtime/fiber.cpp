#include "fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if !defined(__x86_64__)
#error "weft's fibers are implemented for x86-64 only so far"
#endif

extern "C" void weft_fiber_switch(void** save_sp, void* load_sp);
extern "C" void weft_fiber_trampoline();

namespace weft::runtime {
namespace {

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

Fiber::~Fiber() {
  if (stack_) munmap(stack_, stack_size_);
}

void Fiber::start(Entry entry, void* arg, std::size_t stack_bytes, std::uintptr_t place_at) {
  if (!stack_) {
    stack_size_ = stack_bytes + page_size();
    const int flags =
        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (place_at ? MAP_FIXED_NOREPLACE : 0);
    stack_ =
        mmap(reinterpret_cast<void*>(place_at), stack_size_, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (stack_ == MAP_FAILED && place_at)
      stack_ =
          mmap(nullptr, stack_size_, PROT_READ | PROT_WRITE, flags & ~MAP_FIXED_NOREPLACE, -1, 0);
    if (stack_ == MAP_FAILED) {
      std::fprintf(stderr, "weft: cannot allocate a %zu-byte fiber stack: %s\n", stack_size_,
                   std::strerror(errno));
      std::abort();
    }
    // Guard page: a stack overflow faults instead of corrupting the next stack.
    mprotect(stack_, page_size(), PROT_NONE);
  }
  // Initial frame, popped by weft_fiber_switch: fp control words, r15..rbp, return address.
  auto top = reinterpret_cast<std::uintptr_t>(stack_) + stack_size_;
  top &= ~std::uintptr_t{15};
  auto* frame = reinterpret_cast<std::uint64_t*>(top) - 11;
  std::uint32_t mxcsr;
  std::uint16_t fpucw;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpucw));
  frame[0] = fpucw;
  frame[1] = mxcsr;
  frame[2] = 0;                                       // r15
  frame[3] = 0;                                       // r14
  frame[4] = reinterpret_cast<std::uint64_t>(arg);    // r13
  frame[5] = reinterpret_cast<std::uint64_t>(entry);  // r12
  frame[6] = 0;                                       // rbx
  frame[7] = 0;                                       // rbp
  frame[8] = reinterpret_cast<std::uint64_t>(&weft_fiber_trampoline);
  frame[9] = 0;  // after `ret` the stack pointer is here (top - 16): aligned for the call
  frame[10] = 0;
  sp_ = frame;
}

void Fiber::switch_to(Fiber& from, Fiber& to) {
  weft_fiber_switch(&from.sp_, to.sp_);
}

}  // namespace weft::runtime
