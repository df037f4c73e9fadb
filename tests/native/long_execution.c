/* One long execution: eight threads each add to one counter 2,000 times, so that a strategy's
 * analysis of a single execution (an unfolding of 16,000 events) takes long. weft run
 * --time-limit must still end near its limit. */
#include <pthread.h>

#define THREADS 8
#define ROUNDS 2000

static long counter;

static void *add(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
  return 0;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], 0, add, 0);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], 0);
  return 0;
}
