// A barrier as old HPC codes write it: each thread counts itself in with a lock-prefixed asm
// increment ("+m": a memory operand), then spins on the count with another lock-prefixed asm.
// weft takes an asm statement's memory operands as the atomic accesses they are, so with
// --points=all the waiting loop is a busy-wait loop and the exploration completes. With
// -DOPAQUE the loop's statement gets the address in a register: weft cannot tell what it
// touches, so it is dependent with everything and the loop is not recognised; with -DFOREVER
// the count is never reached, and the thread at --max-steps is named with the place and the
// reason.
#include <pthread.h>

#ifdef FOREVER
#define EXPECTED 3
#else
#define EXPECTED 2
#endif

static volatile int arrived;

static void count_in(void) {
  __asm__ __volatile__("lock; incl %0" : "+m"(arrived) : : "memory");
}

static int count(void) {
  int seen;
  __asm__ __volatile__("movl %1, %0" : "=r"(seen) : "m"(arrived) : "memory");
  return seen;
}

static void* worker(void* arg) {
  (void)arg;
  count_in();
  while (count() < EXPECTED) {
#ifdef OPAQUE
    __asm__ __volatile__("lock; orl $0, (%0)" : : "r"(&arrived) : "memory");
#else
    __asm__ __volatile__("pause" : : : "memory");
#endif
  }
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
