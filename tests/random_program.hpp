// Small random concurrent programs for differential testing of the strategies.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "weft/weft.hpp"

namespace weft::testing {

struct Instr {
  enum Kind {
    kRead,
    kWrite,
    kLock,
    kUnlock,
    kAssertNot,
    kSemWait,     // acquire semaphore `var`
    kSemPost,     // release semaphore `var`
    kCondWait,    // lock(m), wait on the condition variable (no predicate: a lost signal is lost),
                  // unlock(m); m = `mutex`
    kCondSignal,  // notify one waiter
    kCondBroadcast,
    kSend,     // send `value` on channel `var`
    kReceive,  // r = the message received from channel `var` (-1 once it is closed and empty)
    kSelect,   // r = the message of a selective wait over every channel, alternative k open
               // when bit k of `value` is set
    kClose,    // close channel `var`
  } kind;
  int var = 0;    // read, write; the semaphore of kSemWait, kSemPost
  int mutex = 0;  // lock, unlock, kCondWait
  int value = 0;  // write: value written is (last value read by the thread) + value;
                  // assert: the last value read must not equal `value`
};

struct Program {
  std::vector<std::vector<Instr>> threads;
  int vars = 1;
  int mutexes = 0;
  std::vector<int> semaphores;      // their initial counts
  bool condition_variable = false;  // one, used with mutex 0
  std::vector<int> channels;        // their capacities (0: rendezvous)
  /// By thread: its kind (0-5), the code it starts at for thread symmetry; threads of one kind
  /// must have the same code. Empty: each thread its own kind.
  std::vector<int> kinds;
  std::string describe() const;
};

/// A program with 2–4 threads of up to 6 visible operations each over up to 3 shared variables and
/// 2 mutexes; lock/unlock are well nested per thread (a thread may end holding a lock). Programs
/// whose interleavings would exceed `max_interleavings` (an upper bound) are redrawn.
Program generate_program(std::uint64_t seed, double max_interleavings);

/// A lock-heavy program: 3–5 threads, each running 1–3 critical sections over up to 4 mutexes. A
/// section takes one or two mutexes (nested, in either order, so deadlocks are possible) and may
/// read and write a shared variable inside. This is the shape of the thesis' Dining benchmarks,
/// where optimal DPOR once lost traces that smaller random programs never showed.
Program generate_lock_program(std::uint64_t seed);

/// A program that follows a mutual-exclusion locking discipline (ExitBlock's criterion, Bruening
/// and Chapin §4.1): 2–4 threads of 1–3 critical sections over 1–3 mutexes, each of up to 3
/// shared variables guarded by one mutex and accessed only while it is held (reads, writes and
/// assertions on the value read). Mutexes are nested in one global order (`deadlocks` false) or
/// in any order (true: lock-cycle deadlocks are possible).
Program generate_disciplined_program(std::uint64_t seed, bool deadlocks);

/// A program that blocks on semaphores and a condition variable: 2–3 threads of 1–4 operations
/// each (a semaphore wait or post, a wait on the condition variable without a predicate, so that
/// a signal sent before it is lost, a signal or broadcast, a read or write). Many of them can
/// deadlock in some interleavings only.
Program generate_blocking_program(std::uint64_t seed);

/// A program whose threads talk over channels (weft::channel): 2–3 threads of 1–4 operations
/// each over 1–2 channels of capacity 0 (rendezvous), 1 or 2 (a send, a receive, a selective wait
/// with guards, a close, a read or write). Many deadlock in some interleavings only.
Program generate_channel_program(std::uint64_t seed);

/// What exploring a program revealed.
struct Observed {
  std::set<std::vector<int>> final_states;  // variables, then each thread's last value read
  std::set<std::string> bugs;               // assertion failures and deadlocks, by message
  /// Every local state a thread reached: (thread, instructions done, last value read). The
  /// joining thread's last state is the final state above (it reads every variable).
  std::set<std::vector<int>> local_states;
};

/// The program as a weft test closure that records its final state into `out`.
void run_program(const Program& p, Observed& out);

/// What exploring `p` with `options` (every bug kept) observed, and weft's result.
struct ProgramRun {
  Observed observed;
  Result result;
};
ProgramRun explore_program(const Program& p, Options options);

}  // namespace weft::testing
