// Two threads update two counters, each read and written back without a lock: whether the
// counters' sum can exceed 200 while y stays below 100, and whether the threads can be at
// given lines at once, are questions about global states (thesis §6.2). Two ints share one
// 8-byte word: each is a memory place of its own.
#include <pthread.h>

int x = 0, y = 0;

static void* adder(void* arg) {
  (void)arg;
  x = x + 100;
  y = y + 50;
  return 0;
}

static void* taker(void* arg) {
  (void)arg;
  y = y - 70;
  x = x + 120;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, adder, 0);
  pthread_create(&b, 0, taker, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
