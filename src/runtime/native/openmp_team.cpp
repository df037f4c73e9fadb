// The pieces the OpenMP entry points are built from: the calling thread's task, the default team
// size, locks that are weft operations in a controlled execution, the team barrier and the
// worksharing constructs' shared state.
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "openmp.hpp"

namespace weft::runtime::native::openmp {
namespace {

// Constant-initialised, so that no thread-local initialiser runs on a program thread. Each weft
// thread has its own thread-local storage; the worker's snapshot restores the first thread's.
thread_local Task* current = nullptr;
thread_local Task initial;

std::uint8_t perform(NativeRuntime& rt, OpKind kind, const volatile void* object,
                     std::uint64_t site, const volatile void* partner = nullptr) {
  return rt.scheduler().perform(Operation{kind, 0, 0, key_of(object), key_of(partner), false},
                                site);
}

// A plain run: one C library mutex per critical name, made on first use.
pthread_mutex_t* critical_mutex(CriticalName* name) {
  static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
  static auto* table = new std::unordered_map<CriticalName*, pthread_mutex_t*>();
  pthread_mutex_lock(&table_lock);
  pthread_mutex_t*& m = (*table)[name];
  if (!m) {
    m = new pthread_mutex_t;
    pthread_mutex_init(m, nullptr);
  }
  pthread_mutex_t* result = m;
  pthread_mutex_unlock(&table_lock);
  return result;
}

}  // namespace

void not_modelled(const char* what) {
  if (NativeRuntime* rt = controlled()) rt->unsupported(what);
  std::fprintf(stderr, "weft: the program called %s, which weft does not model\n", what);
  std::_Exit(2);
}

Task& current_task() {
  if (current) return *current;
  if (!initial.ready) {
    initial.ready = true;
    if (NativeRuntime* rt = controlled())
      initial.gtid = static_cast<std::int32_t>(rt->scheduler().self());
  }
  return initial;
}

void set_current_task(Task* task) {
  current = task;
}

int default_team_size() {
  // OMP_NUM_THREADS is a list, one entry per nesting level; nested regions are serialised, so
  // only the first counts.
  if (const char* v = std::getenv("OMP_NUM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end != v && n > 0 && n <= 1024) return static_cast<int>(n);
  }
  return kDefaultTeamSize;
}

void lock_critical(CriticalName* name, std::uint64_t site) {
  if (NativeRuntime* rt = controlled())
    perform(*rt, OpKind::kMutexLock, name, site);
  else
    pthread_mutex_lock(critical_mutex(name));
}

void unlock_critical(CriticalName* name, std::uint64_t site) {
  if (NativeRuntime* rt = controlled())
    perform(*rt, OpKind::kMutexUnlock, name, site);
  else
    pthread_mutex_unlock(critical_mutex(name));
}

void start_team(Team& team, int size) {
  team.size = size;
  NativeRuntime* rt = controlled();
  if (!rt || size == 1) return;
  for (int i = 0; i < 2 * size * size; ++i) {
    rt->known_semaphores()[key_of(&team.arrival[i])] = true;
    rt->scheduler().init_semaphore(key_of(&team.arrival[i]), 0);
  }
}

void team_barrier(Task& task, std::uint64_t site) {
  Team* team = task.team;
  if (!team || team->size == 1) return;
  if (NativeRuntime* rt = controlled()) {
    const int n = team->size;
    const int me = task.thread_num;
    unsigned char* set = &team->arrival[(task.barriers_met++ % 2) * n * n];
    for (int other = 0; other < n; ++other)
      if (other != me) perform(*rt, OpKind::kSemPost, &set[other * n + me], site);
    for (int other = 0; other < n; ++other)
      if (other != me) perform(*rt, OpKind::kSemWait, &set[me * n + other], site);
    return;
  }
  pthread_mutex_lock(&team->barrier_lock);
  const std::uint64_t generation = team->generation;
  if (++team->arrived == team->size) {
    team->arrived = 0;
    ++team->generation;
    pthread_cond_broadcast(&team->barrier_cond);
  } else {
    while (team->generation == generation)
      pthread_cond_wait(&team->barrier_cond, &team->barrier_lock);
  }
  pthread_mutex_unlock(&team->barrier_lock);
}

WorkShare& next_construct(Task& task) {
  const std::uint64_t index = task.constructs_met++;
  Team* team = task.team;
  if (!team || team->size == 1) {
    task.alone = WorkShare{};
    task.alone.index = index;
    return task.alone;
  }
  const bool plain = !controlled();
  if (plain) pthread_mutex_lock(&team->work_lock);
  WorkShare& construct = team->constructs[index];
  construct.index = index;
  if (plain) pthread_mutex_unlock(&team->work_lock);
  return construct;
}

void leave_construct(Task& task, WorkShare& construct) {
  Team* team = task.team;
  if (!team || team->size == 1) return;
  const bool plain = !controlled();
  if (plain) pthread_mutex_lock(&team->work_lock);
  if (++construct.threads_done == team->size) team->constructs.erase(construct.index);
  if (plain) pthread_mutex_unlock(&team->work_lock);
}

namespace {

const unsigned char* construct_key(const Task& task, const WorkShare& construct) {
  return &task.team->construct_key[construct.index % kConstructKeys];
}

}  // namespace

void lock_construct(Task& task, const WorkShare& construct, std::uint64_t site) {
  if (NativeRuntime* rt = controlled())
    perform(*rt, OpKind::kMutexLock, construct_key(task, construct), site);
  else
    pthread_mutex_lock(&task.team->work_lock);
}

void unlock_construct(Task& task, const WorkShare& construct, std::uint64_t site) {
  if (NativeRuntime* rt = controlled())
    perform(*rt, OpKind::kMutexUnlock, construct_key(task, construct), site);
  else
    pthread_mutex_unlock(&task.team->work_lock);
}

void wait_construct(Task& task, const WorkShare& construct, std::uint64_t site) {
  if (NativeRuntime* rt = controlled()) {
    const unsigned char* key = construct_key(task, construct);
    perform(*rt, OpKind::kCondWait, key, site, key);
  } else {
    pthread_cond_wait(&task.team->work_cond, &task.team->work_lock);
  }
}

void broadcast_construct(Task& task, const WorkShare& construct, std::uint64_t site) {
  if (NativeRuntime* rt = controlled())
    perform(*rt, OpKind::kCondBroadcast, construct_key(task, construct), site);
  else
    pthread_cond_broadcast(&task.team->work_cond);
}

}  // namespace weft::runtime::native::openmp
