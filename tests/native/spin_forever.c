// A thread busy-waits for a flag that nobody sets: it spins forever (a livelock), while main
// waits to join it. With -DEMPTY its loop does nothing at all.
#include <pthread.h>

static int flag;

static void* waiter(void* arg) {
  (void)arg;
#ifdef EMPTY
  for (;;) {  // nothing to wait for at all
  }
#else
  while (flag == 0) {
  }
#endif
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, waiter, 0);
  pthread_join(t, 0);
  return 0;
}
