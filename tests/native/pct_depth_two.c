// A bug of depth 2 for PCT (tests/native_e2e_test.cpp): main must load w after the other
// thread's first store and before its second.
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int w, noise;

static void *writer(void *arg) {
  (void)arg;
  for (int i = 0; i < 4; ++i) atomic_store(&noise, i);
  atomic_store(&w, 1);
  atomic_store(&w, 2);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  int seen = atomic_load(&w);
  pthread_join(t, 0);
  assert(seen != 1);
  return 0;
}
