// Unbounded recursion in a thread: the report says that the thread's stack overflowed, rather
// than naming only an address.
#include <pthread.h>

static int depth(volatile char* previous) {
  volatile char frame[256];
  frame[0] = previous ? previous[0] + 1 : 0;
  return depth(frame) + frame[1];
}

static void* recurse(void* arg) {
  (void)arg;
  return (void*)(long)depth(0);
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, recurse, 0);
  pthread_join(t, 0);
  return 0;
}
