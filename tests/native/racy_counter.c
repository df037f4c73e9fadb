// Two threads increment a counter without a lock: a data race on `counter`; with every access
// a scheduling point, the lost update makes the assertion fail.
#include <assert.h>
#include <pthread.h>

int counter;

static void* increment(void* arg) {
  (void)arg;
  int seen = counter;
  counter = seen + 1;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, increment, 0);
  pthread_create(&b, 0, increment, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(counter == 2);
  return 0;
}
