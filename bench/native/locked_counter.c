// THREADS threads each increment a counter in one critical section (THREADS! traces).
#include <assert.h>
#include <pthread.h>

#ifndef THREADS
#define THREADS 5
#endif

static int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* increment(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  counter = counter + 1;
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; ++i) pthread_create(&t[i], 0, increment, 0);
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], 0);
  assert(counter == THREADS);
  return 0;
}
