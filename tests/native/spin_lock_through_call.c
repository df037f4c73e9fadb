// Two threads take a test-and-set lock by calling try_lock() until it succeeds: the busy-wait
// loop calls a function, stores to a local each time round, and the exchange of a held lock
// writes the 1 that was there. Such an iteration still changes nothing, so the thread is stopped
// after it. Correct; with -DBUG the lock is released before the increment, which can be lost.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int lock;
static int counter;

static int try_lock(void) {
  return atomic_exchange(&lock, 1) == 0;
}

static void take(void) {
  int taken;
  for (;;) {
    taken = try_lock();
    if (taken) break;
  }
}

static void* worker(void* arg) {
  (void)arg;
  take();
  const int seen = counter;
#ifdef BUG
  atomic_store(&lock, 0);
  counter = seen + 1;
#else
  counter = seen + 1;
  atomic_store(&lock, 0);
#endif
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(counter == 2);
  return 0;
}
