// A ticket lock as Concurrency Kit writes it: the waiter spins on a volatile counter with an
// empty asm statement with a memory clobber (ck_pr_stall). weft cannot see into assembly, but a
// statement with no operands names no memory: it is a barrier, and the loop around it is a
// busy-wait loop weft stops after an iteration that changed nothing. With --points=all the
// exploration completes (every thread went round to --max-steps before). Correct.
#include <assert.h>
#include <pthread.h>

static volatile unsigned next_ticket, now_serving;
static int inside;

static void lock(void) {
  const unsigned me = __atomic_fetch_add(&next_ticket, 1, __ATOMIC_ACQ_REL);
  while (now_serving != me) __asm__ __volatile__("" ::: "memory");
}

static void unlock(void) {
  now_serving = now_serving + 1;
}

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < 2; i++) {
    lock();
    assert(++inside == 1);
    inside--;
    unlock();
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
