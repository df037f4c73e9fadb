// Four workers that share nothing, each counting to three in its own variable. Every order of
// their steps leads to a different combination of counts, so a search that takes every thread
// at every state (the thesis' naive stateful testing, §7.3) runs through all of them; the
// workers' steps are independent, so one execution is every Mazurkiewicz trace. With
// SHARED_COUNTER they all count in one variable, without a lock: updates get lost.
#include <assert.h>
#include <pthread.h>

#define WORKERS 4

int counters[WORKERS];

void* work(void* arg) {
  int* counter = arg;
  for (int i = 0; i < 3; ++i) *counter += 1;
  return 0;
}

int main(void) {
  pthread_t workers[WORKERS];
  for (int i = 0; i < WORKERS; ++i) {
#ifdef SHARED_COUNTER
    pthread_create(&workers[i], 0, work, &counters[0]);
#else
    pthread_create(&workers[i], 0, work, &counters[i]);
#endif
  }
  for (int i = 0; i < WORKERS; ++i) pthread_join(workers[i], 0);
#ifdef SHARED_COUNTER
  assert(counters[0] == 3 * WORKERS);
#else
  for (int i = 0; i < WORKERS; ++i) assert(counters[i] == 3);
#endif
  return 0;
}
