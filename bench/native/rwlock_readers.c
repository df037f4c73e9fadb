// READERS threads read a counter under a pthread reader-writer lock while one thread writes it
// under the same lock: the reader-writer lock model's path (rw_lock_model.cpp).
#include <assert.h>
#include <pthread.h>

#ifndef READERS
#define READERS 3
#endif

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static int value;

static void* reader(void* arg) {
  for (int i = 0; i < 2; ++i) {
    pthread_rwlock_rdlock(&lock);
    assert(value >= 0);
    pthread_rwlock_unlock(&lock);
  }
  return arg;
}

int main(void) {
  pthread_t readers[READERS];
  for (int i = 0; i < READERS; ++i) pthread_create(&readers[i], 0, reader, 0);
  for (int i = 0; i < 2; ++i) {
    pthread_rwlock_wrlock(&lock);
    ++value;
    pthread_rwlock_unlock(&lock);
  }
  for (int i = 0; i < READERS; ++i) pthread_join(readers[i], 0);
  return 0;
}
