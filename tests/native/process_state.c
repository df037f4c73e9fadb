// Every execution must start from the state a fresh process has, also when weft runs them all in
// one worker process that restores its memory after each. Five threads take a lock in every order
// (120 executions); each execution also leaves things behind that the next one would notice if
// the worker did not undo them: a global counter, marks in uninitialised stack and heap memory,
// an open file, and a mapping it never unmaps.
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define THREADS 5
#define MARK 0x5eed5eed

static int executions;  // data: 0 at the start of every execution
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* worker(void* arg) {
  (void)arg;
  // Never written before in this execution: whatever is there, it is not this execution's mark.
  volatile int scratch[1024];
  assert(scratch[512] != MARK);
  scratch[512] = MARK;
  int* block = malloc(64 * sizeof(int));
  assert(block[7] != MARK);
  block[7] = MARK;
  pthread_mutex_lock(&lock);
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  executions = executions + 1;
  assert(executions == 1);
  // Not closed: without the worker closing what an execution opened, descriptors would pile up.
  const int fd = open("/dev/null", O_RDONLY);
  assert(fd >= 0 && fd < 64);
  // Not unmapped: the worker notices its address space growing and is replaced.
  void* page = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert(page != MAP_FAILED);
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; ++i) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], 0);
  return 0;
}
