// Kähkönen's thesis, Fig. 7.7 (Example 27): two threads take a lock and read a shared variable x
// under it; the first then branches on an input (input > 5, transition t7, or not). The two
// orders of the critical sections meet in one marking, so the second one's last event is a
// cut-off (event 12 against event 11), and the side of the branch the first test did not take
// needs one more test, with an input the solver gives for its constraint. With BUG the second
// thread writes x, and the first fails where it read the write and its input is above 5.
#include <assert.h>
#include <pthread.h>

extern int __VERIFIER_nondet_int(void);

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int x;

void* first(void* unused) {
  pthread_mutex_lock(&lock);
  int seen = x;
  pthread_mutex_unlock(&lock);
  if (__VERIFIER_nondet_int() > 5) {  // t7: to s9
#ifdef BUG
    assert(seen == 0);
#endif
  }
  (void)seen;
  return unused;
}

void* second(void* unused) {
  pthread_mutex_lock(&lock);
#ifdef BUG
  x = 1;
#else
  (void)x;
#endif
  pthread_mutex_unlock(&lock);
  return unused;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, first, 0);
  pthread_create(&b, 0, second, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
