// Uses pthread_cancel, which weft does not model: the run must stop and say so.
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  pthread_mutex_unlock(&lock);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_cancel(t);
  pthread_join(t, 0);
  return 0;
}
