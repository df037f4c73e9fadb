// Creates threads in an endless loop (as 26 of the SV-COMP pthread tasks do). Each thread adds
// one to a counter under a lock; the assertion fails only once four threads have added, so only
// a thread bound of at least 5 (main included) reaches the bug.
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int added;

static void* add(void* arg) {
  pthread_mutex_lock(&lock);
  ++added;
  assert(added < 4);
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(void) {
  while (1) {
    pthread_t t;
    pthread_create(&t, 0, add, 0);
  }
}
