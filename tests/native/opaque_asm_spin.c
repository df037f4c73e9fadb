// A barrier as old HPC codes write it: each thread counts itself in with a lock-prefixed asm
// increment, then waits for the count. weft cannot see what the asm writes, so it treats the
// statement as dependent with everything; the waiter's loop reads a plain variable that only
// the asm writes. With -DFOREVER the count is never reached: the thread reaches --max-steps
// and the verdict names the place and the reason.
#include <pthread.h>

static volatile int arrived;

static void count_in(void) {
  __asm__ __volatile__("lock; incl %0" : "+m"(arrived) : : "memory");
}

static void* worker(void* arg) {
  (void)arg;
  count_in();
#ifdef FOREVER
  while (arrived < 3) __asm__ __volatile__("lock; orl $0, %0" : "+m"(arrived) : : "memory");
#else
  while (arrived < 2) __asm__ __volatile__("lock; orl $0, %0" : "+m"(arrived) : : "memory");
#endif
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
