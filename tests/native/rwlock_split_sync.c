// SplitSync (Bruening and Chapin, Fig. 1) with a read-write lock taken for writing: weft models
// the lock as a monitor whose state (the writer) the runtime keeps, so ExitBlock-RW must order
// the blocks of its two writers both ways to find the lost increment.
#include <assert.h>
#include <pthread.h>

static pthread_rwlock_t resource = PTHREAD_RWLOCK_INITIALIZER;
static int x;

static void* increment(void* arg) {
  (void)arg;
  pthread_rwlock_wrlock(&resource);
  const int y = x;
  pthread_rwlock_unlock(&resource);
  pthread_rwlock_wrlock(&resource);
  assert(x == y);  // the invariant the split breaks
  x = y + 1;
  pthread_rwlock_unlock(&resource);
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
