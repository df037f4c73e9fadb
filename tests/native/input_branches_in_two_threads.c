// Inputs: a correct program whose two threads branch on their own inputs (three paths each) and
// then add under a lock: every path of both times both lock orders, 3 * 3 * 2 executions. With
// -DONE_OF_EACH, a bug needs the two threads on different sides (one adds 1, the other 2).
#include <assert.h>
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int total;

void* work(void* arg) {
  (void)arg;
  int v = __VERIFIER_nondet_int();
  int add = 0;
  if (v > 100) add = 1;
  if (v < -100) add = 2;
  pthread_mutex_lock(&m);
  total += add;
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, work, 0);
  pthread_create(&b, 0, work, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(total <= 4);
#ifdef ONE_OF_EACH
  assert(total != 3);
#endif
  return 0;
}
