// A thread with no synchronisation of its own writes a variable; main joins it and reads the
// variable. The join orders the two accesses: no data race (the thread's whole run, after its
// last visible operation too, happens before the join).
#include <pthread.h>

static int result;

static void* compute(void* arg) {
  (void)arg;
  result = 42;
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, compute, 0);
  pthread_join(t, 0);
  return result == 42 ? 0 : 1;
}
