// A compare-exchange lock whose waiting loop resets the expected value after each failed try:
// the failure wrote the lock's 1 there, the reset writes 0 back, so an iteration that fails
// leaves everything as it found it and is a busy wait (the thread is stopped after it). With
// -DTHROUGH_CALL the compare-exchange is in a function that gets the expected value's address
// (its write is a plain one to the waiting thread's stack); with -DGUARDED it also sets a shared
// flag while it tries and clears it after (as a queue's debugging guard against reentry does: a
// plain write whose net effect is nil). The lock's orders are acquire and
// release; with -DRELAXED both are relaxed, which under RC11 (not under SC) lets the two
// critical sections race.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifdef RELAXED
#define TAKING memory_order_relaxed
#define GIVING memory_order_relaxed
#else
#define TAKING memory_order_acquire
#define GIVING memory_order_release
#endif

static atomic_int lock;
static int counter;

#ifdef THROUGH_CALL
#ifdef GUARDED
static int trying[2];
#endif
static int try_lock(int* expected, int who) {
#ifdef GUARDED
  trying[who] = 1;
#endif
  const int taken =
      atomic_compare_exchange_weak_explicit(&lock, expected, 1, TAKING, memory_order_relaxed);
#ifdef GUARDED
  trying[who] = 0;
#endif
  (void)who;
  return taken;
}
#endif

static void* worker(void* arg) {
  const int who = arg != 0;
  int expected = 0;
#ifdef THROUGH_CALL
  while (!try_lock(&expected, who)) expected = 0;
#else
  while (!atomic_compare_exchange_weak_explicit(&lock, &expected, 1, TAKING, memory_order_relaxed))
    expected = 0;
#endif
  (void)who;
  counter = counter + 1;
  atomic_store_explicit(&lock, 0, GIVING);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, &b);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(counter == 2);
  return 0;
}
