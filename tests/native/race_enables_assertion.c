// A bug behind a data race: the producer publishes `ready` before `data` with plain writes, so
// a consumer that runs between the two sees ready set and data not yet written. No
// synchronisation separates them, so with --points=sync the two threads never interleave there
// (the race is reported, the assertion is not reachable) until the race's instructions become
// scheduling points (race-directed points): then the assertion failure is found too.
#include <assert.h>
#include <pthread.h>

static int ready, data;

static void* producer(void* arg) {
  (void)arg;
  ready = 1;
  data = 42;
  return 0;
}

static void* consumer(void* arg) {
  (void)arg;
  if (ready) assert(data == 42);
  return 0;
}

int main(void) {
  pthread_t p, c;
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
