// Eraser's prediction (--lockset): thread 1 writes x holding `a`; thread 2 takes and drops `a`,
// then writes x holding nothing. In the first execution weft runs (thread 1 first), `a` orders
// the two writes, so happens-before sees no race there; the lockset sees that no lock guards x
// and reports it from that one execution. (Other interleavings do race: a full exploration
// finds the data race too.)
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static int x;

static void* guarded(void* arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  x = 1;
  pthread_mutex_unlock(&a);
  return 0;
}

static void* unguarded(void* arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_mutex_unlock(&a);
  x = 2;  // the discipline's violation: no lock held
  return 0;
}

int main(void) {
  pthread_t t1, t2;
  x = 0;  // before the threads: main owns x (Eraser's initialisation)
  pthread_create(&t1, 0, guarded, 0);
  pthread_create(&t2, 0, unguarded, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return x == 0;  // after the joins: main owns x again
}
