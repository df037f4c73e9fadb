// Thread-local storage and errno across switches made at plain accesses. With --points=all every
// shared write below is a scheduling point in an access hook, after which the runtime may leave
// the thread pointer naming another thread's storage until the thread's code needs its own
// (RunLimits::lazy_thread_pointer). Each thread here reads and writes its thread-locals, keeps
// a pointer to one, reads errno set by a failed call, and calls a function that uses
// thread-locals, with shared writes in between; every check holds only if each access reaches
// the thread's own storage. Correct: no bug in any interleaving.
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static __thread int mine = 7;
static __thread long trail[4];
static int shared_a, shared_b;

// Uses thread-locals, called between accesses: its own reads must name the caller's storage.
static long sum_trail(void) {
  long s = 0;
  for (int i = 0; i < 4; ++i) s += trail[i];
  return s;
}

static void* worker(void* arg) {
  const int id = (int)(intptr_t)arg;
  int* own = &mine;  // taken before the switches, used after them
  mine = id;
  shared_a = id;  // a switch may happen here
  trail[id % 4] = id * 10;
  shared_b = id;
  assert(mine == id && *own == id);
  assert(sum_trail() == id * 10);
  // errno from the C library, then switches, then read back: the thread's own.
  assert(close(-1) == -1);
  shared_a = id + 1;
  shared_b = id + 1;
  assert(errno == EBADF);
  errno = id;
  shared_a = id + 2;
  assert(errno == id && mine == id);
  // strtol's ERANGE comes from the C library too, after another switch.
  shared_b = id + 2;
  (void)strtol("99999999999999999999999", 0, 10);
  assert(errno == ERANGE);
  return (void*)(intptr_t)mine;
}

int main(void) {
  pthread_t t[2];
  mine = 1;
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], 0, worker, (void*)(intptr_t)(i + 2));
  shared_a = 100;  // main's own switches among the workers'
  errno = 0;
  shared_b = 100;
  assert(mine == 1 && errno == 0);
  void* result[2];
  for (int i = 0; i < 2; ++i) pthread_join(t[i], &result[i]);
  assert((intptr_t)result[0] == 2 && (intptr_t)result[1] == 3);
  assert(mine == 1 && trail[0] == 0 && sum_trail() == 0);
  return 0;
}
