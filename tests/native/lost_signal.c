// A lost wake-up: the producer sets the flag but never signals. When the consumer checks the
// flag first, it waits for good, and main waits to join it: a deadlock the report describes in
// the program's terms.
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_changed = PTHREAD_COND_INITIALIZER;
static int ready;

static void* consumer(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!ready) pthread_cond_wait(&ready_changed, &lock);
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, consumer, 0);
  pthread_mutex_lock(&lock);
  ready = 1;  // the bug: no pthread_cond_signal(&ready_changed)
  pthread_mutex_unlock(&lock);
  pthread_join(t, 0);
  return 0;
}
