// The same counter, with each increment under a mutex: correct in every interleaving.
#include <assert.h>
#include <pthread.h>

static int hits;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *count(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  hits = hits + 1;
  pthread_mutex_unlock(&lock);
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
