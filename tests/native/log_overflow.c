// 256 threads that write one shared variable 8,000 times each: with every access a scheduling
// point, one execution has about two million events, more than the log shared with weft holds.
#include <pthread.h>

#define THREADS 256

static volatile int x;

static void* writer(void* arg) {
  for (int i = 0; i < 8000; ++i) x = i;
  return arg;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; ++i) pthread_create(&t[i], 0, writer, 0);
  for (int i = 0; i < THREADS; ++i) pthread_join(t[i], 0);
  return 0;
}
