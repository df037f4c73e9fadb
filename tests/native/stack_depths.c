// A thread's stack reads as a fresh one in every execution, however deep earlier executions
// went on it: the worker clears the pages each execution wrote (Fiber::clear_used_stack). Which
// of two threads takes the lock first decides how deep each goes, so the same stack is used
// deeply in one execution and less deeply, under an unwritten 24 KiB frame, in the next; a
// third thread goes past the 32 pages cleared in place. Every level writes a mark where it
// first checks there is none. Correct: no bug.
#include <assert.h>
#include <pthread.h>

#define MARK 0x5eed5eed

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int arrivals;  // guarded by lock

static void deeper(int levels) {
  volatile int scratch[256];  // 1 KiB a level
  assert(scratch[100] != MARK);
  scratch[100] = MARK;
  if (levels > 0) deeper(levels - 1);
}

static void under_a_gap(void) {
  volatile char gap[24 * 1024];  // never written: six pages that read as zero above the marks
  (void)gap;
  deeper(8);
}

static void* worker(void* arg) {
  const int levels = (int)(long)arg;
  pthread_mutex_lock(&lock);
  const int first = arrivals++ == 0;
  pthread_mutex_unlock(&lock);
  if (first)
    deeper(levels);
  else
    under_a_gap();
  return 0;
}

int main(void) {
  pthread_t t[3];
  pthread_create(&t[0], 0, worker, (void*)40L);
  pthread_create(&t[1], 0, worker, (void*)40L);
  pthread_create(&t[2], 0, worker, (void*)200L);
  for (int i = 0; i < 3; ++i) pthread_join(t[i], 0);
  return 0;
}
