// A 16-byte atomic store (cmpxchg16b with -mcx16), read by another thread's 16-byte atomic load,
// which then writes one of the two words plainly: the load orders the write after the store,
// under sequential consistency and under RC11 (where an atomic over 8 bytes is taken as
// seq_cst). Correct: no data race.
#include <pthread.h>
#include <stdint.h>

typedef struct {
  uint64_t a, b;
} pair;
static _Alignas(16) pair shared;

static void* writer(void* arg) {
  (void)arg;
  pair p = {1, 2};
  __atomic_store(&shared, &p, __ATOMIC_SEQ_CST);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  pair seen;
  __atomic_load(&shared, &seen, __ATOMIC_SEQ_CST);
  if (seen.a == 1) shared.b = 7;  // ordered after the writer's store by the atomic load
  pthread_join(t, 0);
  return 0;
}
