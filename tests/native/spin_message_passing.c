// A consumer busy-waits for a flag, then reads the data the producer wrote before setting it.
// Correct; with -DBUG the producer sets the flag first, and the consumer can read stale data.
// Two consumers, so that the exploration has several orders to cover.
#include <assert.h>
#include <pthread.h>

static int data, flag;

static void* producer(void* arg) {
  (void)arg;
#ifdef BUG
  flag = 1;
  data = 42;
#else
  data = 42;
  flag = 1;
#endif
  return 0;
}

static void* consumer(void* arg) {
  (void)arg;
  while (flag == 0) {
  }
  assert(data == 42);
  return 0;
}

int main(void) {
  pthread_t p, c1, c2;
  pthread_create(&c1, 0, consumer, 0);
  pthread_create(&c2, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(p, 0);
  pthread_join(c1, 0);
  pthread_join(c2, 0);
  return 0;
}
