// Each increment reads and writes the counter in two separate critical sections: no data race,
// but an update can be lost (the read of one thread between the read and write of the other).
#include <assert.h>
#include <pthread.h>

static int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* increment(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  int seen = counter;
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&lock);
  counter = seen + 1;
  pthread_mutex_unlock(&lock);
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
