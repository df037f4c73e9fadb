// Threads that write neighbouring bytes of one 8-byte word are independent: dependence is exact
// to the byte. With every access visible, the only order that matters is t1's read of flags[1]
// against t2's write of it: 2 traces. With -DBUG t1 fails when it reads after that write.
#include <assert.h>
#include <pthread.h>

volatile char flags[8];
int pair[2];
int seen;

static void* t1(void* arg) {
  (void)arg;
  flags[0] = 1;
  pair[0] = 1;
  seen = flags[1];
#ifdef BUG
  assert(seen == 0);
#endif
  return 0;
}

static void* t2(void* arg) {
  (void)arg;
  flags[1] = 1;
  pair[1] = 1;
  flags[2] = 1;
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
