// READERS threads read a variable one thread writes, every access a scheduling point
// (--points=all): 2^READERS traces.
#include <pthread.h>

#ifndef READERS
#define READERS 8
#endif

static int shared_value;

static void* reader(void* arg) {
  (void)arg;
  return (void*)(long)shared_value;
}

static void* writer(void* arg) {
  (void)arg;
  shared_value = 1;
  return 0;
}

int main(void) {
  pthread_t r[READERS], w;
  pthread_create(&w, 0, writer, 0);
  for (int i = 0; i < READERS; ++i) pthread_create(&r[i], 0, reader, 0);
  for (int i = 0; i < READERS; ++i) pthread_join(r[i], 0);
  pthread_join(w, 0);
  return 0;
}
