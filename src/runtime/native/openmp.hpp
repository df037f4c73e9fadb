// weft's model of LLVM's OpenMP runtime (the __kmpc_* entry points clang's -fopenmp calls, and
// the omp_* library routines), shared by openmp_team.cpp (tasks, barriers, constructs' state),
// openmp_parallel.cpp, openmp_sync.cpp, openmp_loops.cpp, openmp_locks.cpp and
// openmp_unsupported.cpp. A team is a set of weft threads; its barriers are weft semaphores, its
// worksharing constructs, critical sections, reductions and locks weft mutexes and condition
// variables, so every ordering among the team's threads that matters is the scheduler's choice
// (docs/openmp.md). Outside a controlled execution (a plain run of the program) the same code
// runs on the C library's threads and locks.
#pragma once

#include <pthread.h>

#include <cstdint>
#include <map>

#include "native_runtime.hpp"

namespace weft::runtime::native::openmp {

/// The source location clang passes first to most entry points (libomp's ident_t); unused.
struct Ident;
/// The lock word clang allocates for each critical name and reduction (kmp_critical_name).
using CriticalName = std::int32_t[8];
/// An outlined parallel region: (global thread id, thread number, captured variables...).
using Microtask = void (*)(std::int32_t*, std::int32_t*, ...);

/// Shared state of one worksharing construct (loop with a dispatched schedule, or single) of a
/// team, found by the construct's index: every thread of the team meets the constructs in the
/// same order, but may be several constructs ahead of another after a nowait.
struct WorkShare {
  std::uint64_t index = 0;         ///< the construct's place in the team's sequence
  std::uint64_t trip = 0;          ///< iterations of a loop
  std::uint64_t next = 0;          ///< the next iteration to hand out (dynamic, guided)
  std::uint64_t ordered_next = 0;  ///< the iteration whose ordered region may run now
  bool single_taken = false;       ///< a thread has taken the single region
  int threads_done = 0;            ///< threads that have left the construct
};

/// Threads in one team at most; more would be hopeless to explore anyway.
constexpr int kMaxTeamSize = 64;
/// Worksharing constructs whose locks are told apart (construct i uses key i mod this).
constexpr int kConstructKeys = 64;

/// A team of threads running one parallel region. It lives on the stack of the thread that
/// started the region (placed by thread name, so its addresses, the keys of its synchronisation
/// objects, repeat across executions).
struct Team {
  int size = 1;
  /// In a controlled execution: the addresses of arrival[((b % 2) * size + i) * size + j] are
  /// the semaphores by which thread j tells thread i it reached the team's barrier b, and those
  /// of construct_key[c] the mutex and condition variable of construct c. Only the addresses
  /// are used. Successive barriers alternate between two sets of semaphores: weft orders a
  /// semaphore wait after every earlier post, and a post for the next barrier (which may come
  /// before the wait for this one) would order the waiter after what its sender did since.
  unsigned char arrival[2 * kMaxTeamSize * kMaxTeamSize];
  unsigned char construct_key[kConstructKeys];
  /// In a plain run: the barrier, and one lock and condition variable for all constructs.
  pthread_mutex_t barrier_lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t barrier_cond = PTHREAD_COND_INITIALIZER;
  int arrived = 0;
  std::uint64_t generation = 0;
  pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t work_cond = PTHREAD_COND_INITIALIZER;
  /// The worksharing constructs some thread has met and not every thread has left. Weft's own
  /// bookkeeping: in a controlled execution only one thread runs at a time, and it takes no lock
  /// (a plain run takes work_lock).
  std::map<std::uint64_t, WorkShare> constructs;
  void* copyprivate_data = nullptr;  ///< the variables of the thread that ran a single region
};

/// Sets up a team of `size` threads (the barrier's semaphores in a controlled execution).
void start_team(Team& team, int size);

/// The loop a thread is running with a dispatched schedule (__kmpc_dispatch_*).
struct DispatchedLoop {
  WorkShare* shared = nullptr;
  int kind = 0;            ///< kStatic, kDynamic or kGuided (see openmp_loops.cpp)
  bool ordered = false;    ///< an ordered loop: iterations pass ordered regions in order
  std::int64_t lower = 0;  ///< first iteration's value and the increment, as 64-bit patterns
  std::int64_t incr = 1;
  std::uint64_t chunk = 1;
  std::uint64_t static_next = 0;  ///< static: the thread's next chunk's first iteration
  bool static_done = false;       ///< static without chunk: the thread's one block is handed out
  std::uint64_t current = 0;      ///< ordered: the iteration the thread runs now
  std::uint64_t chunk_end = 0;    ///< ordered: one past the last iteration of its chunk
  bool ordered_passed = false;    ///< ordered: the current iteration passed its ordered region
};

/// What one thread knows while it runs a parallel region (its implicit task), or while it runs
/// outside any (its initial task): its team, its number in it and its control variables.
struct Task {
  bool ready = false;                ///< an initial task is set up on its thread's first call
  Team* team = nullptr;              ///< nullptr: not in a parallel region (a team of one)
  int thread_num = 0;                ///< omp_get_thread_num
  std::int32_t gtid = 0;             ///< the global thread id handed to the microtask
  int level = 0;                     ///< enclosing parallel regions (omp_get_level)
  int active_level = 0;              ///< of them, those with more than one thread
  int nthreads_var = 0;              ///< threads for the next region (0: the default, not yet read)
  int pushed_threads = 0;            ///< a num_threads clause for the next region only (0: none)
  std::uint64_t constructs_met = 0;  ///< worksharing constructs met in this region
  std::uint64_t barriers_met = 0;    ///< barriers met in this region
  DispatchedLoop loop;
  WorkShare alone;               ///< the construct state of a thread without others in its team
  bool holds_reduction = false;  ///< __kmpc_reduce took the reduction lock
  Task* outer = nullptr;         ///< the task to go back to when the region ends
};

/// The controlled execution if the caller is one of its program threads, else nullptr (a plain
/// run: the C library's threads and locks do the work).
inline NativeRuntime* controlled() {
  NativeRuntime* rt = NativeRuntime::active();
  return rt && rt->scheduler().self() != kNoThread ? rt : nullptr;
}

/// Held by every entry point while weft's code runs on a program thread (RuntimeScope), but not
/// around the program's own code (the microtask a region runs).
class EntryScope {
 public:
  EntryScope() {
    if (NativeRuntime* rt = controlled()) {
      // A pointer, not an optional RuntimeScope, whose reference member GCC takes for
      // uninitialized at -O3 (-Wmaybe-uninitialized).
      thread_ = &rt->self();
      RuntimeScope::enter(*thread_);
      // Teams, loop chunks and single/master choices live in weft's state, not in events.
      rt->note_runtime_state();
    }
  }
  ~EntryScope() {
    if (thread_) RuntimeScope::leave(*thread_);
  }
  EntryScope(const EntryScope&) = delete;
  EntryScope& operator=(const EntryScope&) = delete;

 private:
  NativeThread* thread_ = nullptr;
};

/// Inside an entry point, runs the program's own code (a copy function clang generated): its
/// accesses are the program's again while this lives.
class ProgramCode {
 public:
  ProgramCode() {
    if (NativeRuntime* rt = controlled()) {
      thread_ = &rt->self();
      --thread_->in_runtime;
    }
  }
  ~ProgramCode() {
    if (thread_) ++thread_->in_runtime;
  }
  ProgramCode(const ProgramCode&) = delete;
  ProgramCode& operator=(const ProgramCode&) = delete;

 private:
  NativeThread* thread_ = nullptr;
};

/// Stops at an OpenMP feature weft does not model: the execution ends as unsupported with a
/// one-line message naming `what` (in a plain run: the message, and exit status 2).
[[noreturn]] void not_modelled(const char* what);

/// The calling thread's task (its initial task if it runs no parallel region).
Task& current_task();
/// Makes `task` the calling thread's task.
void set_current_task(Task* task);
/// The team size a region gets when nothing else says: OMP_NUM_THREADS, else kDefaultTeamSize.
int default_team_size();
/// Two threads: every extra thread multiplies the interleavings weft has to explore.
constexpr int kDefaultTeamSize = 2;

/// The mutex of a critical name (or reduction lock word): in a controlled execution the lock
/// word's address is the mutex; otherwise a mutex made on first use and kept in the word.
void lock_critical(CriticalName* name, std::uint64_t site);
void unlock_critical(CriticalName* name, std::uint64_t site);

/// Waits until every thread of the calling thread's team has arrived (no-op in a team of one).
/// In a controlled execution each thread posts one semaphore per other thread and waits on one
/// from each: posts commute, so the order of arrival is no scheduling choice (it changes
/// nothing), and each thread leaves after every other thread's arrival.
void team_barrier(Task& task, std::uint64_t site);
/// The shared state of the next worksharing construct the calling thread meets.
WorkShare& next_construct(Task& task);
/// The calling thread leaves `construct`; the last one to leave frees it.
void leave_construct(Task& task, WorkShare& construct);
/// The lock of `construct`, for what the team's threads decide by the order they come in
/// (who takes which chunk, who runs a single region); weft explores those orders.
void lock_construct(Task& task, const WorkShare& construct, std::uint64_t site);
void unlock_construct(Task& task, const WorkShare& construct, std::uint64_t site);
/// Waits on `construct`'s condition variable (its lock held), and wakes its waiters.
void wait_construct(Task& task, const WorkShare& construct, std::uint64_t site);
void broadcast_construct(Task& task, const WorkShare& construct, std::uint64_t site);

}  // namespace weft::runtime::native::openmp
