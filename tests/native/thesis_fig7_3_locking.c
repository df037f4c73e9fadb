// Kähkönen's thesis, Fig. 7.3 (Example 25): two threads each take one lock and write a variable
// of their own under it. The two orders of the critical sections end in the same state, so
// stateful testing (§7.3) explores the second order only up to where it meets the first's
// states. With BOTH_ZERO_ASSUMED the program wrongly expects a write to be missing.
#include <assert.h>
#include <pthread.h>

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int X, Y;

void* thread1(void* unused) {
  pthread_mutex_lock(&lock);
  X = 1;
  pthread_mutex_unlock(&lock);
  return unused;
}

void* thread2(void* unused) {
  pthread_mutex_lock(&lock);
  Y = 1;
  pthread_mutex_unlock(&lock);
  return unused;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, thread1, 0);
  pthread_create(&b, 0, thread2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
#ifdef BOTH_ZERO_ASSUMED
  assert(X + Y != 2);
#endif
  return 0;
}
