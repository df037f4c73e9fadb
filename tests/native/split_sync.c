// Bruening and Chapin's SplitSync (Fig. 1): two threads increment x in two critical sections,
// one reading it and one writing it back. Every access holds the lock, yet an increment is lost
// when the other thread's sections run between the two: the module-ordering error of §7.
#include <assert.h>
#include <pthread.h>

static pthread_mutex_t resource = PTHREAD_MUTEX_INITIALIZER;
static int x;

static void* increment(void* arg) {
  (void)arg;
  pthread_mutex_lock(&resource);
  const int y = x;
  pthread_mutex_unlock(&resource);
  pthread_mutex_lock(&resource);
  assert(x == y);  // the invariant the split breaks
  x = y + 1;
  pthread_mutex_unlock(&resource);
  return 0;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, increment, 0);
  pthread_create(&b, 0, increment, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
