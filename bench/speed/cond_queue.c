// PRODUCERS producers and as many consumers pass ITEMS items each through a one-slot buffer
// guarded by a mutex and two condition variables (waits in loops, signals). Most of its events
// are condition-variable operations: the row that measures their cost in optimal DPOR.
#include <assert.h>
#include <pthread.h>

#ifndef PRODUCERS
#define PRODUCERS 2
#endif
#ifndef ITEMS
#define ITEMS 2
#endif

static int slot, full, sum;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;

static void* produce(void* arg) {
  (void)arg;
  for (int i = 1; i <= ITEMS; ++i) {
    pthread_mutex_lock(&lock);
    while (full) pthread_cond_wait(&not_full, &lock);
    slot = i;
    full = 1;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

static void* consume(void* arg) {
  (void)arg;
  for (int i = 0; i < ITEMS; ++i) {
    pthread_mutex_lock(&lock);
    while (!full) pthread_cond_wait(&not_empty, &lock);
    sum += slot;
    full = 0;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

int main(void) {
  pthread_t t[2 * PRODUCERS];
  for (int i = 0; i < PRODUCERS; ++i) {
    pthread_create(&t[2 * i], 0, produce, 0);
    pthread_create(&t[2 * i + 1], 0, consume, 0);
  }
  for (int i = 0; i < 2 * PRODUCERS; ++i) pthread_join(t[i], 0);
  assert(sum == PRODUCERS * ITEMS * (ITEMS + 1) / 2);
  return 0;
}
