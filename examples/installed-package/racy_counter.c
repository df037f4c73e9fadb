// Two threads add to a counter without a lock: an increment can be lost.
#include <assert.h>
#include <pthread.h>

static int hits;

static void *count(void *arg) {
  (void)arg;
  hits = hits + 1;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, count, 0);
  pthread_create(&b, 0, count, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(hits == 2);
  return 0;
}
