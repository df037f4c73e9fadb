// A thread spins on a flag that is set only under a lock it never lets the other thread take:
// with synchronisation as the only scheduling points, the spin never ends.
#include <pthread.h>

static volatile int flag;

static void* spin(void* arg) {
  (void)arg;
  while (!flag) {
  }
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, spin, 0);
  flag = 1;
  pthread_join(t, 0);
  return 0;
}
