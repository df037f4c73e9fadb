/* Two threads increment a counter under libspinlock.so's lock (tests/native/spin_library). With
 * the library built by a plain compiler, weft cannot see the lock: it names the library and
 * marks the race it reports as one the library may order. With the library built by weft-lib
 * (the library cache), the lock is seen: explored, no race. */
#include <assert.h>
#include <pthread.h>

#include "spin_library/spin_lock.h"

static int lock;
static int counter;

static void* bump(void* arg) {
  spin_lock(&lock);
  counter++;
  spin_unlock(&lock);
  return arg;
}

int main(void) {
  pthread_t other;
  pthread_create(&other, 0, bump, 0);
  bump(0);
  pthread_join(other, 0);
  assert(counter == 2);
  return 0;
}
