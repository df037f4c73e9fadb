// The pthread functions that take a pthread_t or act on the calling thread work on weft's
// threads as on real ones (docs/process-state.md): names, scheduling parameters, attributes
// (the stack holds the thread's locals), affinity, CPU clocks, pthread_kill(t, 0), gettid and
// the cancellation state. GLib names every thread it creates and NSPR reads every thread's
// scheduling parameters: under the C library's versions these crashed. Correct: no bug.
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t tids[2];

static void* worker(void* arg) {
  const int me = (int)(long)arg;
  char name[16];
  // A new thread starts with its creator's name.
  assert(pthread_getname_np(pthread_self(), name, sizeof name) == 0);
  assert(strcmp(name, "creator") == 0);
  assert(pthread_setname_np(pthread_self(), me ? "worker-1" : "worker-0") == 0);
  assert(pthread_setname_np(pthread_self(), "a name much too long") == ERANGE);

  int policy;
  struct sched_param param;
  assert(pthread_getschedparam(pthread_self(), &policy, &param) == 0);
  assert(policy == SCHED_OTHER && param.sched_priority == 0);

  pthread_attr_t attr;
  assert(pthread_getattr_np(pthread_self(), &attr) == 0);
  void* stack;
  size_t size;
  assert(pthread_attr_getstack(&attr, &stack, &size) == 0);
  const char* local = name;
  assert(local >= (char*)stack && local < (char*)stack + size);
  pthread_attr_destroy(&attr);

  cpu_set_t cpus;
  assert(pthread_getaffinity_np(pthread_self(), sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 0);
  clockid_t clock;
  struct timespec used;
  assert(pthread_getcpuclockid(pthread_self(), &clock) == 0);
  assert(clock_gettime(clock, &used) == 0);

  int old;
  assert(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old) == 0 && old == PTHREAD_CANCEL_ENABLE);
  assert(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old) == 0 && old == PTHREAD_CANCEL_DISABLE);

  tids[me] = gettid();
  pthread_mutex_lock(&lock);
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  assert(pthread_setname_np(pthread_self(), "creator") == 0);
  pthread_t t[2];
  for (long i = 0; i < 2; ++i) assert(pthread_create(&t[i], 0, worker, (void*)i) == 0);
  // Another thread's parameters can be set and read back; signal 0 finds it.
  struct sched_param param = {0};
  assert(pthread_setschedparam(t[0], SCHED_OTHER, &param) == 0);
  assert(pthread_setschedparam(t[0], 12345, &param) == EINVAL);
  assert(pthread_kill(t[1], 0) == 0);
  for (int i = 0; i < 2; ++i) assert(pthread_join(t[i], 0) == 0);
  char name[16];
  assert(pthread_getname_np(t[1], name, sizeof name) == 0 && strcmp(name, "worker-1") == 0);
  assert(pthread_getname_np(t[1], name, 4) == ERANGE);
  assert(tids[0] != tids[1] && tids[0] != gettid() && tids[1] != gettid());
  assert(gettid() == getpid());
  return 0;
}
