// Every execution computes for about 20 ms before its threads take turns on a lock: far more
// interleavings than a few seconds can run. The estimate's random walks may take only a share
// of a time limit; the search gets the rest. COMPUTE_MS sets the computing time (milliseconds).
#include <pthread.h>
#include <time.h>

#ifndef COMPUTE_MS
#define COMPUTE_MS 20
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int turns;

static void* take_turns(void* arg) {
  for (int i = 0; i < 4; ++i) {
    pthread_mutex_lock(&lock);
    ++turns;
    pthread_mutex_unlock(&lock);
  }
  return arg;
}

int main(void) {
  const clock_t start = clock();
  while (clock() - start < (clock_t)CLOCKS_PER_SEC / 1000 * COMPUTE_MS) {
  }
  pthread_t a, b, c;
  pthread_create(&a, 0, take_turns, 0);
  pthread_create(&b, 0, take_turns, 0);
  pthread_create(&c, 0, take_turns, 0);
  take_turns(0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
  return 0;
}
