// One interleaving dereferences a null pointer (the reader runs before the writer published).
#include <pthread.h>
#include <stddef.h>

static int value = 42;
static int* published;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* reader(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  int* p = published;
  pthread_mutex_unlock(&lock);
  return (void*)(size_t)*p;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, reader, 0);
  pthread_mutex_lock(&lock);
  published = &value;
  pthread_mutex_unlock(&lock);
  pthread_join(t, 0);
  return 0;
}
