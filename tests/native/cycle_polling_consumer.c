// A consumer polls a flag under a mutex until a producer sets it: a correct program whose state
// space has a cycle (the consumer's unsuccessful poll returns it to where it was). Stateless
// exploration unrolls the cycle up to the step bound; the stateful strategies close it.
// -DREADY_BEFORE_DATA: the producer sets the flag before the data, and the consumer can see the
// flag without the data (an assertion failure).
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int ready, data;

static void* producer(void* arg) {
  (void)arg;
#ifdef READY_BEFORE_DATA
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_mutex_unlock(&m);
  data = 42;
#else
  data = 42;
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_mutex_unlock(&m);
#endif
  return 0;
}

static void* consumer(void* arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&m);
    const int r = ready;
    pthread_mutex_unlock(&m);
    if (r) break;
  }
  assert(data == 42);
  return 0;
}

int main(void) {
  pthread_t p, c;
  pthread_create(&c, 0, consumer, 0);
  pthread_create(&p, 0, producer, 0);
  pthread_join(p, 0);
  pthread_join(c, 0);
  return 0;
}
