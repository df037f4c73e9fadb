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

/// A plain write of an iteration, judged by its net effect.
struct NetWrite {
  std::uintptr_t address;
  std::uint32_t size;
  bool writing;          ///< a write to it is about to happen (its bytes are known next hook)
  std::uint64_t before;  ///< what it held when the iteration began
  std::uint64_t left;    ///< what the thread's last write to it left there
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
///  - every atomic write stored the bytes that were there (checked at the thread's next hook,
///    before any other thread runs: see RuntimeScope), since other threads may read it at once
///    (under RC11 judged once the instruction is done: note_change);
///  - every plain write, to a local or to shared memory, left at the end of the iteration what
///    was there at its start, and what it left there stayed until the thread's next write to it
///    (checked at each of its hooks): no other thread can read a plain write in between
///    without a data race, which is reported, nor was it overwritten by another thread. So
///    `expected = 0` after a compare-exchange that failed and wrote 1 there, or a debugging flag
///    set on entry to a function and cleared on exit, leaves the iteration without effect.
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
  /// Notes an atomic write about to happen: no other thread runs before the thread's next hook.
  void note_atomic_write(const void* address, std::uint64_t size);
  /// Notes a plain write about to happen, compared at the back edge with what was there when
  /// the iteration began. `stack_pointer` (0: unknown): the writing thread's stack pointer; a
  /// write between it and the innermost loop's frame is to a local of a function the loop
  /// called, which dies when it returns (its slot holds what the runtime's frames left there
  /// between iterations, so comparing with it would say the iteration changed something).
  void note_plain_write(const void* address, std::uint64_t size, std::uintptr_t stack_pointer = 0);
  /// The iteration changed something the tracker could not compare byte for byte (under RC11, an
  /// atomic write: memory holds the value read during the instruction, the newest after it).
  void note_change();
  /// At each hook of the thread: whether the atomic writes noted since stored what was there,
  /// and whether another thread changed what a plain write left.
  void check_writes() {
    if (!writes_.empty() || !net_.empty()) check_writes_now();
  }

 private:
  struct Loop {
    std::uintptr_t frame;
    std::uint32_t loop;
    std::size_t first_read;  // its current iteration's reads are reads_[first_read...]
    std::uint64_t dirt;      // dirt_ when its current iteration began
    std::uint64_t plain;     // plain_reads_ when its current iteration began
    std::size_t first_net;   // its current iteration's plain writes are net_[first_net...]
  };
  /// Forgets the loops of calls that have returned (frames below `frame`).
  void drop_below(std::uintptr_t frame);
  void pop_loop();
  void check_writes_now();
  void begin_iteration(Loop& l);
  /// Whether a write at `at` is to a local of a function the innermost loop called.
  bool in_callee(std::uintptr_t at, std::uintptr_t stack_pointer) const;

  std::vector<Loop> loops_;  // outermost call first
  std::vector<SpinAccess> reads_;
  std::vector<SpinAccess> writes_;  // not yet checked
  std::vector<NetWrite> net_;       // each place written plainly, by loop
  std::uint64_t dirt_ = 0;          // counts what keeps an iteration from being a busy-wait
  std::uint64_t plain_reads_ = 0;   // counts plain (not visible) reads
};

}  // namespace weft::runtime::native
