// Two threads take a ticket lock twice each: a waiter spins on the counter of tickets served,
// a cycle in the state space that weft's busy-wait detection already stops; the counter is
// right only if the lock excludes. -DNO_LOCK: each increments without the lock (a lost update).
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int next_ticket, now_serving;
static int counter;

static void lock(void) {
  const int ticket = atomic_fetch_add(&next_ticket, 1);
  while (atomic_load(&now_serving) != ticket) {
  }
}

static void unlock(void) { atomic_fetch_add(&now_serving, 1); }

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < 2; i++) {
#ifndef NO_LOCK
    lock();
#endif
    counter++;
#ifndef NO_LOCK
    unlock();
#endif
  }
  return 0;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  assert(counter == 4);
  return 0;
}
