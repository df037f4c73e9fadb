// A thread ends the whole process with exit(3) while main still waits to check something.
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int stage;

static void* quitter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  stage = 1;
  pthread_mutex_unlock(&lock);
  exit(3);
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, quitter, 0);
  pthread_mutex_lock(&lock);
  int seen = stage;
  pthread_mutex_unlock(&lock);
  pthread_join(t, 0);
  assert(seen == 0 || seen == 1);
  return 0;
}
