// Bruening and Chapin's SplitSync (Fig. 1): two threads increment x in two critical sections,
// one reading it and one writing it back. Every access holds the lock, yet an increment is lost
// when the other thread's sections run between the two: the module-ordering error of §7.
// With -DRWLOCK the lock is a read-write lock taken for writing, which weft models as a monitor
// whose state (the writer) the runtime keeps.
#include <assert.h>
#include <pthread.h>

#ifdef RWLOCK
static pthread_rwlock_t resource = PTHREAD_RWLOCK_INITIALIZER;
#define LOCK() pthread_rwlock_wrlock(&resource)
#define UNLOCK() pthread_rwlock_unlock(&resource)
#else
static pthread_mutex_t resource = PTHREAD_MUTEX_INITIALIZER;
#define LOCK() pthread_mutex_lock(&resource)
#define UNLOCK() pthread_mutex_unlock(&resource)
#endif
static int x;

static void* increment(void* arg) {
  (void)arg;
  LOCK();
  const int y = x;
  UNLOCK();
  LOCK();
  assert(x == y);  // the invariant the split breaks
  x = y + 1;
  UNLOCK();
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
