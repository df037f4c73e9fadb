// OpenMP synchronisation inside a team: barriers, critical sections, single, master and masked
// regions, reductions, copyprivate and flush. All of it is weft mutexes and condition variables
// (openmp_team.cpp), so a missing one shows up as a race or a failed assertion.
#include "openmp.hpp"

using weft::runtime::native::openmp::CriticalName;
using weft::runtime::native::openmp::current_task;
using weft::runtime::native::openmp::EntryScope;
using weft::runtime::native::openmp::Ident;
using weft::runtime::native::openmp::Task;
using weft::runtime::native::openmp::WorkShare;

namespace {

bool alone(const Task& task) {
  return !task.team || task.team->size == 1;
}

// The reduction lock: clang combines the threads' partial results into the shared variables
// itself when __kmpc_reduce returns 1 (libomp's critical-section method), one thread at a time.
std::int32_t begin_reduce(CriticalName* lock, std::uint64_t site) {
  Task& task = current_task();
  task.holds_reduction = !alone(task);
  if (task.holds_reduction) weft::runtime::native::openmp::lock_critical(lock, site);
  return 1;
}

void end_reduce(CriticalName* lock, std::uint64_t site) {
  Task& task = current_task();
  if (!task.holds_reduction) return;
  task.holds_reduction = false;
  weft::runtime::native::openmp::unlock_critical(lock, site);
}

}  // namespace

extern "C" {

void __kmpc_barrier(Ident*, std::int32_t) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  weft::runtime::native::openmp::team_barrier(current_task(), site);
}

void __kmpc_critical(Ident*, std::int32_t, CriticalName* name) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  weft::runtime::native::openmp::lock_critical(name, site);
}

// A hint (contended, speculative, ...) changes nothing about what a critical section excludes.
void __kmpc_critical_with_hint(Ident*, std::int32_t, CriticalName* name, std::uint32_t) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  weft::runtime::native::openmp::lock_critical(name, site);
}

void __kmpc_end_critical(Ident*, std::int32_t, CriticalName* name) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  weft::runtime::native::openmp::unlock_critical(name, site);
}

// The first thread of the team to arrive runs the single region: which one is a scheduling
// choice, made under the team's work lock.
std::int32_t __kmpc_single(Ident*, std::int32_t) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  Task& task = current_task();
  if (alone(task)) return 1;
  WorkShare& construct = weft::runtime::native::openmp::next_construct(task);
  weft::runtime::native::openmp::lock_construct(task, construct, site);
  const bool mine = !construct.single_taken;
  construct.single_taken = true;
  weft::runtime::native::openmp::unlock_construct(task, construct, site);
  weft::runtime::native::openmp::leave_construct(task, construct);
  return mine;
}

// The barrier after a single region without nowait is a separate __kmpc_barrier call.
void __kmpc_end_single(Ident*, std::int32_t) {}

std::int32_t __kmpc_master(Ident*, std::int32_t) {
  EntryScope scope;
  return current_task().thread_num == 0;
}
void __kmpc_end_master(Ident*, std::int32_t) {}

std::int32_t __kmpc_masked(Ident*, std::int32_t, std::int32_t filter) {
  EntryScope scope;
  return current_task().thread_num == filter;
}
void __kmpc_end_masked(Ident*, std::int32_t) {}

std::int32_t __kmpc_reduce_nowait(Ident*, std::int32_t, std::int32_t, std::size_t, void*,
                                  void (*)(void*, void*), CriticalName* lock) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  return begin_reduce(lock, site);
}

void __kmpc_end_reduce_nowait(Ident*, std::int32_t, CriticalName* lock) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  end_reduce(lock, site);
}

std::int32_t __kmpc_reduce(Ident*, std::int32_t, std::int32_t, std::size_t, void*,
                           void (*)(void*, void*), CriticalName* lock) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  return begin_reduce(lock, site);
}

// The blocking form ends with a barrier (libomp's ABI), after the lock is released.
void __kmpc_end_reduce(Ident*, std::int32_t, CriticalName* lock) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  end_reduce(lock, site);
  weft::runtime::native::openmp::team_barrier(current_task(), site);
}

// single copyprivate(x): the thread that ran the single region publishes its variables' block;
// every other thread copies from it between two barriers.
void __kmpc_copyprivate(Ident*, std::int32_t, std::size_t, void* data,
                        void (*copy)(void* destination, void* source), std::int32_t didit) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  EntryScope scope;
  Task& task = current_task();
  if (alone(task)) return;
  if (didit) task.team->copyprivate_data = data;
  weft::runtime::native::openmp::team_barrier(task, site);
  if (!didit) {
    void* source = task.team->copyprivate_data;
    weft::runtime::native::openmp::ProgramCode program;
    copy(data, source);
  }
  weft::runtime::native::openmp::team_barrier(task, site);
}

// weft runs every execution sequentially consistent: a flush orders nothing more.
void __kmpc_flush(Ident*) {}

}  // extern "C"
