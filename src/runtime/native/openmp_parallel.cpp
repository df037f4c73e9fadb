// OpenMP parallel regions (__kmpc_fork_call and its serialised forms) and the library routines
// that ask about them (omp_get_thread_num, ...). A region with n threads creates n-1 weft
// threads, runs the outlined region on each and on the calling thread, and joins them: the join
// is the region's closing barrier. Regions inside an active region run with one thread.
#include <time.h>

#include <array>
#include <atomic>
#include <cstdarg>
#include <utility>

#include "openmp.hpp"

using weft::runtime::native::openmp::current_task;
using weft::runtime::native::openmp::EntryScope;
using weft::runtime::native::openmp::Ident;
using weft::runtime::native::openmp::Microtask;
using weft::runtime::native::openmp::Task;
using weft::runtime::native::openmp::Team;

namespace weft::runtime::native::openmp {
namespace {

// Captured variables a region may pass; libomp's own limit is similar in spirit (it switches on
// the count up to a fixed number).
constexpr std::size_t kMaxArguments = 64;

// Calling the outlined region with `count` pointers, one function per count: the microtask is
// declared variadic but defined with exactly its captured variables.
template <std::size_t>
using Pointer = void*;
template <std::size_t... I>
void call_with(Microtask task, std::int32_t* gtid, std::int32_t* tid, void** args,
               std::index_sequence<I...>) {
  using Exact = void (*)(std::int32_t*, std::int32_t*, Pointer<I>...);
  reinterpret_cast<Exact>(reinterpret_cast<void (*)()>(task))(gtid, tid, args[I]...);
}
template <std::size_t N>
void call_microtask(Microtask task, std::int32_t* gtid, std::int32_t* tid, void** args) {
  call_with(task, gtid, tid, args, std::make_index_sequence<N>{});
  // The team's code below keeps its task in thread-local storage, which the region's last
  // access hook may have left naming another thread's (RunLimits::lazy_thread_pointer). It is
  // weft's own code (openmp_team.cpp).
  weft::runtime::Scheduler::sync_thread_pointer(false);
}
using Caller = void (*)(Microtask, std::int32_t*, std::int32_t*, void**);
template <std::size_t... N>
constexpr std::array<Caller, sizeof...(N)> callers(std::index_sequence<N...>) {
  return {&call_microtask<N>...};
}
constexpr auto kCallers = callers(std::make_index_sequence<kMaxArguments + 1>{});

// Global thread ids in a plain run (in a controlled execution: the weft thread id).
std::atomic<std::int32_t> next_gtid{1};

std::int32_t new_gtid() {
  if (NativeRuntime* rt = controlled()) return static_cast<std::int32_t>(rt->scheduler().self());
  return next_gtid.fetch_add(1);
}

// The outlined region, the team it runs in and what each of its threads needs to start.
struct Region {
  Team* team;
  Microtask task;
  std::int32_t argc;
  void** args;
  const Task* parent;
};
struct WorkerStart {
  const Region* region;
  int thread_num;
};

// The task a thread of `region` runs: control variables inherited from the task that started it.
Task task_in(const Region& region, int thread_num, std::int32_t gtid) {
  Task task;
  task.ready = true;
  task.team = region.team;
  task.thread_num = thread_num;
  task.gtid = gtid;
  task.level = region.parent->level + 1;
  task.active_level = region.parent->active_level + (region.team->size > 1 ? 1 : 0);
  task.nthreads_var = region.parent->nthreads_var;
  return task;
}

void run_region(const Region& region, Task& task) {
  Task* outer = &current_task();
  set_current_task(&task);
  std::int32_t gtid = task.gtid;
  std::int32_t tid = task.thread_num;
  kCallers[static_cast<std::size_t>(region.argc)](region.task, &gtid, &tid, region.args);
  set_current_task(outer);
}

void* worker_main(void* arg) {
  const auto& start = *static_cast<const WorkerStart*>(arg);
  std::int32_t gtid = 0;
  {
    EntryScope scope;
    gtid = new_gtid();
  }
  Task task = task_in(*start.region, start.thread_num, gtid);
  run_region(*start.region, task);
  return nullptr;
}

int team_size_for(Task& parent) {
  if (parent.nthreads_var == 0) parent.nthreads_var = default_team_size();
  int size = parent.pushed_threads > 0 ? parent.pushed_threads : parent.nthreads_var;
  parent.pushed_threads = 0;
  if (parent.active_level > 0) size = 1;  // nested parallelism is serialised
  return size;
}

void fork_team(std::int32_t argc, Microtask microtask, void** args, std::uint64_t site) {
  Task* parent = nullptr;
  Team team;
  {
    EntryScope scope;
    parent = &current_task();
    const int size = team_size_for(*parent);
    if (size > kMaxTeamSize) not_modelled("__kmpc_fork_call with more than 64 threads");
    start_team(team, size);
  }
  const Region region{&team, microtask, argc, args, parent};
  std::array<WorkerStart, kMaxTeamSize> starts;
  std::array<pthread_t, kMaxTeamSize> workers;
  std::array<ThreadId, kMaxTeamSize> worker_ids;
  {
    EntryScope scope;
    for (int i = 1; i < team.size; ++i) {
      starts[i] = WorkerStart{&region, i};
      if (NativeRuntime* rt = controlled())
        worker_ids[i] = create_thread(*rt, nullptr, worker_main, &starts[i], site);
      else if (pthread_create(&workers[i], nullptr, worker_main, &starts[i]) != 0)
        not_modelled("__kmpc_fork_call when no thread could be created");
    }
  }
  Task master = task_in(region, 0, parent->gtid);
  run_region(region, master);
  EntryScope scope;
  for (int i = 1; i < team.size; ++i) {
    if (NativeRuntime* rt = controlled())
      rt->scheduler().perform(Operation{OpKind::kThreadJoin, 0, 0, worker_ids[i], 0}, site);
    else
      pthread_join(workers[i], nullptr);
  }
}

}  // namespace
}  // namespace weft::runtime::native::openmp

using weft::runtime::native::openmp::fork_team;

extern "C" {

void __kmpc_fork_call(Ident*, std::int32_t argc, Microtask microtask, ...) {
  const std::uint64_t site = WEFT_CALLER_SITE();
  if (argc < 0 || static_cast<std::size_t>(argc) > weft::runtime::native::openmp::kMaxArguments)
    weft::runtime::native::openmp::not_modelled(
        "__kmpc_fork_call with more than 64 captured variables");
  void* args[weft::runtime::native::openmp::kMaxArguments];
  va_list list;
  va_start(list, microtask);
  for (std::int32_t i = 0; i < argc; ++i) args[i] = va_arg(list, void*);
  va_end(list);
  fork_team(argc, microtask, args, site);
}

void __kmpc_push_num_threads(Ident*, std::int32_t, std::int32_t num_threads) {
  EntryScope scope;
  current_task().pushed_threads = num_threads;
}

// A region with an if clause that is false: its code follows inline, on this thread alone,
// until __kmpc_end_serialized_parallel; its team of one and its task live until then.
void __kmpc_serialized_parallel(Ident*, std::int32_t) {
  EntryScope scope;
  Task& parent = current_task();
  parent.pushed_threads = 0;
  auto* task = new Task;
  task->ready = true;
  task->team = new Team;
  task->gtid = parent.gtid;
  task->level = parent.level + 1;
  task->active_level = parent.active_level;
  task->nthreads_var = parent.nthreads_var;
  task->outer = &parent;
  weft::runtime::native::openmp::set_current_task(task);
}

void __kmpc_end_serialized_parallel(Ident*, std::int32_t) {
  EntryScope scope;
  Task* task = &current_task();
  if (!task->outer)
    weft::runtime::native::openmp::not_modelled(
        "__kmpc_end_serialized_parallel outside a serialised region");
  weft::runtime::native::openmp::set_current_task(task->outer);
  delete task->team;
  delete task;
}

std::int32_t __kmpc_global_thread_num(Ident*) {
  EntryScope scope;
  return current_task().gtid;
}

std::int32_t __kmpc_bound_thread_num(Ident*) {
  EntryScope scope;
  return current_task().thread_num;
}

std::int32_t __kmpc_in_parallel(Ident*) {
  EntryScope scope;
  return current_task().active_level > 0;
}

int omp_get_thread_num(void) {
  EntryScope scope;
  return current_task().thread_num;
}

int omp_get_num_threads(void) {
  EntryScope scope;
  const Task& task = current_task();
  return task.team ? task.team->size : 1;
}

int omp_get_max_threads(void) {
  EntryScope scope;
  Task& task = current_task();
  if (task.nthreads_var == 0)
    task.nthreads_var = weft::runtime::native::openmp::default_team_size();
  return task.active_level > 0 ? 1 : task.nthreads_var;
}

void omp_set_num_threads(int n) {
  EntryScope scope;
  if (n > 0) current_task().nthreads_var = n;
}

// The processors weft's team is sized for: programs that size their teams by it get the
// default team size rather than the machine's.
int omp_get_num_procs(void) {
  return weft::runtime::native::openmp::default_team_size();
}

int omp_get_thread_limit(void) {
  return 64;
}

int omp_in_parallel(void) {
  EntryScope scope;
  return current_task().active_level > 0;
}

int omp_get_level(void) {
  EntryScope scope;
  return current_task().level;
}

int omp_get_active_level(void) {
  EntryScope scope;
  return current_task().active_level;
}

// Nested regions always run with one thread: at most one active level.
int omp_get_max_active_levels(void) {
  return 1;
}
void omp_set_max_active_levels(int) {}
int omp_get_nested(void) {
  return 0;
}
void omp_set_nested(int) {}

// Teams are never shrunk.
int omp_get_dynamic(void) {
  return 0;
}
void omp_set_dynamic(int) {}

int omp_in_final(void) {
  return 0;
}

int omp_get_cancellation(void) {
  return 0;
}

double omp_get_wtime(void) {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

double omp_get_wtick(void) {
  return 1e-9;
}

}  // extern "C"
