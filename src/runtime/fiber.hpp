// Fibers: user-level threads with their own stacks, switched by a few instructions. The
// scheduler runs every program thread as a fiber on the exploring OS thread, because exactly one
// runs at a time anyway and a fiber switch is ~300x cheaper than handing a baton between OS
// threads (12.7 ns vs 4.2 µs, measured by bench/context_switch_bench.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace weft::runtime {

/// A stack plus a saved stack pointer. `entry(arg)` runs on the first switch to it and must never
/// return (it switches away for good instead).
class Fiber {
 public:
  using Entry = void (*)(void*);

  Fiber() = default;  // the fiber of the OS thread itself: no stack of its own
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;
  ~Fiber();

  /// Prepares the fiber to run `entry(arg)` from the start of its (pooled) stack. The stack is
  /// allocated on first use with `stack_bytes`, at address `place_at` if that is not 0 and free
  /// (so that a thread's stack addresses do not depend on the order threads were created in).
  /// With `adopt`, a stack of the same size already mapped at `place_at` (left by an earlier
  /// execution of the same process) is taken over and cleared, which is cheaper than a new one.
  /// With `mapped` as well, the stack is known to be there: it is taken over without asking
  /// the kernel; and with `cleared`, it was cleared since it was last used (clear_stack).
  void start(Entry entry, void* arg, std::size_t stack_bytes, std::uintptr_t place_at = 0,
             bool adopt = false, bool mapped = false, bool cleared = false);
  /// Makes the stack of `stack_bytes` a fiber placed at `place` left behind read as a fresh one
  /// (zero), so that a later execution can take it over at once (a worker does it between
  /// executions, while weft is busy).
  static void clear_stack(std::uintptr_t place, std::size_t stack_bytes);
  /// clear_stack without a system call, for a stack cleared at every execution's end:
  /// `pages_used` (kept by the caller, 0 at first) counts the pages below the top that earlier
  /// executions wrote; the call zeroes them and reads on below them for pages written since.
  static void clear_used_stack(std::uintptr_t place, std::size_t stack_bytes,
                               std::uint8_t& pages_used);
  /// The usable stack (above the guard page): its lowest address and size. Null before start().
  void* stack_low() const;
  std::size_t stack_bytes() const;
  /// Whether its stack (with the guard page) starts at `place`.
  bool placed_at(std::uintptr_t place) const {
    return place && stack_ == reinterpret_cast<void*>(place);
  }
  /// The frame pointer (%rbp) the fiber had when it last switched away, where a walk of its
  /// frames starts (reports name locals by frame); 0 if it never ran or is running.
  std::uintptr_t saved_frame_pointer() const;
  /// Saves the current context into `from` and resumes `to`.
  static void switch_to(Fiber& from, Fiber& to);
  /// Resumes `to` and never comes back: `from`'s entry is done, and `from` may only be start()ed
  /// again. (AddressSanitizer then frees what it kept for `from`'s stack.)
  [[noreturn]] static void exit_to(Fiber& from, Fiber& to);

 private:
  void clear_adopted_stack(bool cleared);
  // When AddressSanitizer's runtime is in the process (weft built with it, or a program built
  // by weft-cc -fsanitize=address), every switch is announced to it (fiber.cpp).
  static void asan_first_entry(void* self);
  void asan_arrived(void* fake_stack);

  // The stack ASan is told about when a switch goes to this fiber. For a fiber without a stack
  // of its own (the OS thread's) only ASan knows it: it tells it when the first switch away
  // from it completes.
  const void* asan_stack_low_ = nullptr;
  std::size_t asan_stack_bytes_ = 0;
  Fiber* asan_switched_from_ = nullptr;  // whose switch to this fiber is completing
  Entry entry_ = nullptr;
  void* arg_ = nullptr;

  void* sp_ = nullptr;
  bool adopted_ = false;  // the stack was mapped by an earlier execution; never unmapped here
  void* stack_ = nullptr;
  std::size_t stack_size_ = 0;
};

/// Stack size of every fiber (with a guard page below it).
inline constexpr std::size_t kFiberStackBytes = 256 * 1024;

}  // namespace weft::runtime
