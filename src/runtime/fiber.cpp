#include "fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "zero_bytes.hpp"

#if !defined(__x86_64__)
#error "weft's fibers are implemented for x86-64 only so far"
#endif

extern "C" void weft_fiber_switch(void** save_sp, void* load_sp);
extern "C" void weft_fiber_trampoline();

// AddressSanitizer's fiber interface, weak: defined only when its runtime is linked into the
// process, which is decided at link time (weft built with the asan preset) or by the program
// (weft-cc -fsanitize=address links it into a program with weft's runtime, built without it).
extern "C" {
__attribute__((weak)) void __sanitizer_start_switch_fiber(void** fake_stack_save,
                                                          const void* bottom, std::size_t size);
__attribute__((weak)) void __sanitizer_finish_switch_fiber(void* fake_stack_save,
                                                           const void** bottom_old,
                                                           std::size_t* size_old);
__attribute__((weak)) void __asan_unpoison_memory_region(const volatile void* address,
                                                         std::size_t size);
}

namespace weft::runtime {
namespace {

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

bool asan_present() {
  return &__sanitizer_start_switch_fiber != nullptr &&
         &__sanitizer_finish_switch_fiber != nullptr && &__asan_unpoison_memory_region != nullptr;
}

}  // namespace

Fiber::~Fiber() {
  // Frames still poisoned there must not poison whatever is mapped at these addresses next.
  if (stack_ && asan_present()) __asan_unpoison_memory_region(stack_low(), stack_bytes());
  if (stack_ && !adopted_) munmap(stack_, stack_size_);
}

void Fiber::clear_adopted_stack(bool cleared) {
  adopted_ = true;
  // Frames of the stack's last run left their redzones poisoned.
  if (asan_present()) __asan_unpoison_memory_region(stack_low(), stack_bytes());
  if (!cleared) clear_stack(reinterpret_cast<std::uintptr_t>(stack_), stack_bytes());
}

void Fiber::clear_stack(std::uintptr_t place, std::size_t stack_bytes) {
  // The stack must read as a fresh one would (zero), or a program that reads memory it never
  // wrote would see the last execution's values. Only pages the earlier executions touched are
  // resident; a few are cleared in place (kept, so no page faults), many are dropped.
  // Stacks are used from the top down, so the top pages are looked at first: if the lowest of
  // them was never touched, neither was anything below it.
  constexpr std::size_t kClearInPlace = 32;
  const std::size_t stack_size = stack_bytes + page_size();
  const std::size_t pages = stack_size / page_size();  // the guard page is page 0
  char* const base = reinterpret_cast<char*>(place);
  // Under ASan, memset checks that the memory it writes is not poisoned.
  if (asan_present()) __asan_unpoison_memory_region(base + page_size(), stack_bytes);
  const auto drop_all = [&] {
    madvise(base + page_size(), stack_size - page_size(), MADV_DONTNEED);
  };
  if (pages <= kClearInPlace + 1) {
    drop_all();
    return;
  }
  unsigned char resident[kClearInPlace];
  const std::size_t first = pages - kClearInPlace;
  if (mincore(base + first * page_size(), kClearInPlace * page_size(), resident) != 0 ||
      (resident[0] & 1)) {
    drop_all();  // deeper than the pages cleared in place
    return;
  }
  for (std::size_t p = 0; p < kClearInPlace; ++p)
    if (resident[p] & 1) std::memset(base + (first + p) * page_size(), 0, page_size());
}

void Fiber::clear_used_stack(std::uintptr_t place, std::size_t stack_bytes,
                             std::uint8_t& pages_used) {
  // mincore (clear_stack) costs a system call per stack and execution, 2 us on a machine
  // without fast system calls, more than the rest of a small execution. What an execution
  // wrote lies in the top pages, which stay resident and are zeroed in place; below those the
  // pages are read (one never touched maps the kernel's zero page, once) until kZeroRun in a
  // row read as zero. A page under such a run is taken as untouched, as clear_stack takes
  // everything under the lowest page it asks about: missed only under a frame that leaves
  // over 32 KiB of its own unwritten while deeper frames write, and then only what the program
  // reads before it writes.
  constexpr std::size_t kClearInPlace = 32;
  constexpr std::size_t kZeroRun = 8;
  const std::size_t page = page_size();
  const std::size_t pages = stack_bytes / page;
  char* const top = reinterpret_cast<char*>(place) + page + stack_bytes;  // above the guard
  if (asan_present() || pages <= kClearInPlace + kZeroRun) {
    clear_stack(place, stack_bytes);
    return;
  }
  std::size_t used = pages_used;
  for (std::size_t p = 0; p < used; ++p) std::memset(top - (p + 1) * page, 0, page);
  for (std::size_t p = used, zeros = 0; zeros < kZeroRun && p < pages; ++p) {
    char* const at = top - (p + 1) * page;
    if (reads_as_zero(at, page)) {
      ++zeros;
      continue;
    }
    std::memset(at, 0, page);
    used = p + 1;
    zeros = 0;
  }
  if (used > kClearInPlace) {
    // A deep stack: dropped, as clear_stack drops it, and looked at afresh next time.
    madvise(top - stack_bytes, stack_bytes, MADV_DONTNEED);
    used = 0;
  }
  pages_used = static_cast<std::uint8_t>(used);
}

void Fiber::start(Entry entry, void* arg, std::size_t stack_bytes, std::uintptr_t place_at,
                  bool adopt, bool mapped, bool cleared) {
  if (!stack_) {
    stack_size_ = stack_bytes + page_size();
    const int flags =
        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (place_at ? MAP_FIXED_NOREPLACE : 0);
    const bool known = place_at && adopt && mapped;
    if (!known)
      stack_ = mmap(reinterpret_cast<void*>(place_at), stack_size_, PROT_READ | PROT_WRITE, flags,
                    -1, 0);
    if (known || (stack_ == MAP_FAILED && place_at && adopt && errno == EEXIST)) {
      stack_ = reinterpret_cast<void*>(place_at);
      clear_adopted_stack(known && cleared);
    } else if (stack_ == MAP_FAILED && place_at)
      stack_ =
          mmap(nullptr, stack_size_, PROT_READ | PROT_WRITE, flags & ~MAP_FIXED_NOREPLACE, -1, 0);
    if (stack_ == MAP_FAILED) {
      std::fprintf(stderr, "weft: cannot allocate a %zu-byte fiber stack: %s\n", stack_size_,
                   std::strerror(errno));
      std::abort();
    }
    // Guard page: a stack overflow faults instead of corrupting the next stack.
    if (!adopted_) mprotect(stack_, page_size(), PROT_NONE);
  }
  Entry first = entry;
  void* first_arg = arg;
  if (asan_present()) {
    // The frames of the stack's last run that never returned (the entry's, those suspended in
    // a switch) left their redzones poisoned; the new run's frames must not trip over them.
    __asan_unpoison_memory_region(stack_low(), this->stack_bytes());
    asan_stack_low_ = stack_low();
    asan_stack_bytes_ = this->stack_bytes();
    entry_ = entry;
    arg_ = arg;
    first = &Fiber::asan_first_entry;
    first_arg = this;
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
  frame[2] = 0;                                           // r15
  frame[3] = 0;                                           // r14
  frame[4] = reinterpret_cast<std::uint64_t>(first_arg);  // r13
  frame[5] = reinterpret_cast<std::uint64_t>(first);      // r12
  frame[6] = 0;                                           // rbx
  frame[7] = 0;                                           // rbp
  frame[8] = reinterpret_cast<std::uint64_t>(&weft_fiber_trampoline);
  frame[9] = 0;  // after `ret` the stack pointer is here (top - 16): aligned for the call
  frame[10] = 0;
  sp_ = frame;
}

void* Fiber::stack_low() const {
  return stack_ ? static_cast<char*>(stack_) + page_size() : nullptr;
}

std::uintptr_t Fiber::saved_frame_pointer() const {
  // weft_fiber_switch leaves, from the saved stack pointer up: the two control words (16
  // bytes), r15, r14, r13, r12, rbx, rbp.
  return sp_ ? static_cast<const std::uintptr_t*>(sp_)[7] : 0;
}

std::size_t Fiber::stack_bytes() const {
  return stack_ ? stack_size_ - page_size() : 0;
}

// Under ASan (its runtime in the process), a switch is announced before it (the destination's
// stack) and completed after it, on the destination; so ASan checks, and unpoisons on a throw
// (__asan_handle_no_return), the stack that is really in use. ASan's fake stack of the fiber left
// (stack-use-after-return checks) is kept in `fake_stack` while the switch is suspended, and given
// back on its return.
void Fiber::switch_to(Fiber& from, Fiber& to) {
  if (!asan_present()) return weft_fiber_switch(&from.sp_, to.sp_);
  void* fake_stack = nullptr;
  to.asan_switched_from_ = &from;
  __sanitizer_start_switch_fiber(&fake_stack, to.asan_stack_low_, to.asan_stack_bytes_);
  weft_fiber_switch(&from.sp_, to.sp_);
  from.asan_arrived(fake_stack);
}

void Fiber::exit_to(Fiber& from, Fiber& to) {
  if (asan_present()) {
    to.asan_switched_from_ = &from;
    // No place to keep the fake stack: ASan frees it, as `from` is never resumed.
    __sanitizer_start_switch_fiber(nullptr, to.asan_stack_low_, to.asan_stack_bytes_);
  }
  weft_fiber_switch(&from.sp_, to.sp_);
  __builtin_unreachable();
}

// The first code on a started fiber's stack: a switch that began elsewhere completes here, with
// no fake stack of this fiber to restore yet.
void Fiber::asan_first_entry(void* self) {
  auto& fiber = *static_cast<Fiber*>(self);
  fiber.asan_arrived(nullptr);
  fiber.entry_(fiber.arg_);
}

// Completes a switch to this fiber. ASan answers with the stack that was left, which is how a
// fiber without a stack of its own learns its bounds for the switches back to it.
void Fiber::asan_arrived(void* fake_stack) {
  Fiber& left = *asan_switched_from_;
  __sanitizer_finish_switch_fiber(fake_stack, &left.asan_stack_low_, &left.asan_stack_bytes_);
}

}  // namespace weft::runtime
