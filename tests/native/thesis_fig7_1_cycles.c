// Kähkönen's thesis, Fig. 7.1 (Example 23), as a program. The figure is not in the text we have;
// Example 23 fixes what it needs: t1 leads from s1 to {s2, s3}; the sequence t1 t2 t4 comes back
// to {s2, s3}, and so does another event (e5). So: main creates a thread (t1: main to s2, the
// thread at s3), then main takes and gives back one lock (t2, t4) and the thread another (t3,
// t5), each for ever. Five markings are reachable; the unfolding's prefix has five events, of
// which the two that come back to {s2, s3} are cut-offs (e4 and e5), where the computation tree
// of every interleaving is infinite. With BUG, main fails once it holds its lock while the
// thread holds the other: a marking of the five.
#include <assert.h>
#include <pthread.h>

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, n = PTHREAD_MUTEX_INITIALIZER;
int thread_holds_n;

void* other(void* unused) {
  for (;;) {
    pthread_mutex_lock(&n);  // t3
#ifdef BUG
    thread_holds_n = 1;
    thread_holds_n = 0;
#endif
    pthread_mutex_unlock(&n);  // t5
  }
  return unused;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, other, 0);  // t1
  for (;;) {
    pthread_mutex_lock(&m);  // t2
#ifdef BUG
    assert(!thread_holds_n);
#endif
    pthread_mutex_unlock(&m);  // t4
  }
  return 0;
}
