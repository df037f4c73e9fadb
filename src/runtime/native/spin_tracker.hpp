// Whether an iteration of a busy-wait loop changed anything (the hooks are in spin_loops.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace weft::runtime::native {

/// A read in an iteration of a busy-wait loop, or a write before it happened, with the bytes
/// that were there.
struct SpinAccess {
  std::uintptr_t address;
  std::uint32_t size;
  std::uint64_t bytes;
};

/// Follows one thread through the busy-wait loops it is in (src/instrument/
/// spin_loop_instrumenter.cpp marks them; they are innermost, so at most one per function call)
/// and says at a back edge whether the iteration just ended left memory as it found it:
///  - every read was a visible event of at most 8 bytes (so the strategies can run another
///    thread's write before it, in another execution), or a plain read in an iteration that
///    also made visible reads: in a program without data races no other thread can change what
///    a plain read read while the thread waits (a write that could would race with the read,
///    which the race detector reports), so only the visible reads need to wake it (a captured
///    pointer, the queue object a lock-free queue's try_push reads); an iteration whose reads
///    were all plain is not stopped, since nothing could wake it;
///  - every write to shared memory stored the bytes that were there (checked at the thread's
///    next hook, before any other thread runs: see RuntimeScope);
///  - every local of the loop's function (or of a caller, on the thread's own stack) written in
///    the iteration holds at its end what it held at its start: no other thread sees a local in
///    between, so `expected = 0` after a compare-exchange that failed and wrote 1 there leaves
///    the iteration without effect.
/// The pass ensures the loop carries nothing else from one iteration to the next, so such an
/// iteration starts the next in the same state: the thread can stop (spin-assume).
class SpinTracker {
 public:
  /// Loop `loop` of the function whose frame begins at `frame` is entered.
  void enter(std::uintptr_t frame, std::uint32_t loop);
  /// Its back edge. True if the iteration changed nothing; `reads` are then its reads.
  bool back_edge(std::uintptr_t frame, std::uint32_t loop, std::vector<SpinAccess>& reads);
  /// An exit edge of the loop.
  void exit(std::uintptr_t frame, std::uint32_t loop);

  bool active() const { return !loops_.empty(); }
  /// The current iteration of the innermost loop has already changed something (and no write
  /// waits to be checked): it is no busy-wait, nor is that of any loop around it (their
  /// iterations began earlier), so what else it reads or writes need not be noted. The hooks
  /// ask first, which makes a computing loop cost little more than one check per iteration.
  bool iteration_changed() const {
    return writes_.empty() && !loops_.empty() && loops_.back().dirt != dirt_;
  }
  /// Notes a read; `visible` says whether it was a visible event.
  void note_read(const void* address, std::uint64_t size, bool visible);
  /// Notes a write about to happen: no other thread runs before the thread's next hook.
  /// `stack_pointer` (0: unknown): the writing thread's stack pointer; a write between it and
  /// the innermost loop's frame is to a local of a function the loop called, which dies when
  /// it returns (its slot holds what the runtime's frames left there between iterations, so
  /// comparing with it would say the iteration changed something).
  void note_write(const void* address, std::uint64_t size, std::uintptr_t stack_pointer = 0);
  /// Notes a write about to happen to a local on the thread's own stack (`stack_pointer` as for
  /// note_write), compared at the back edge with what it held when the iteration began.
  void note_local_write(const void* address, std::uint64_t size, std::uintptr_t stack_pointer = 0);
  /// The iteration changed something the tracker could not compare byte for byte (under RC11, an
  /// atomic write: memory holds the value read during the instruction, the newest after it).
  void note_change();
  /// At the thread's next hook: whether the writes noted since stored what was there.
  void check_writes();

 private:
  struct Loop {
    std::uintptr_t frame;
    std::uint32_t loop;
    std::size_t first_read;   // its current iteration's reads are reads_[first_read...]
    std::uint64_t dirt;       // dirt_ when its current iteration began
    std::uint64_t plain;      // plain_reads_ when its current iteration began
    std::size_t first_local;  // its current iteration's local writes are locals_[first_local...]
  };
  /// Forgets the loops of calls that have returned (frames below `frame`).
  void drop_below(std::uintptr_t frame);
  void pop_loop();
  void begin_iteration(Loop& l);
  /// Whether a write at `at` is to a local of a function the innermost loop called.
  bool in_callee(std::uintptr_t at, std::uintptr_t stack_pointer) const;

  std::vector<Loop> loops_;  // outermost call first
  std::vector<SpinAccess> reads_;
  std::vector<SpinAccess> writes_;  // not yet checked
  std::vector<SpinAccess> locals_;  // each local written, with what it held before (per loop)
  std::uint64_t dirt_ = 0;          // counts what keeps an iteration from being a busy-wait
  std::uint64_t plain_reads_ = 0;   // counts plain (not visible) reads
};

}  // namespace weft::runtime::native
