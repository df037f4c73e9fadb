// A write that races with a free, and is a use after free in every execution in which it comes
// after it: with --points=sync the race must still be reported there, or no later round makes
// the write a scheduling point, and the interleaving in which it comes before the free, which
// ends in a double free, is never explored.
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

int *data;
atomic_int flag;

void *release(void *arg) {
  (void)arg;
  if (atomic_load(&flag) == 0) free(data);
  return 0;
}

void *update(void *arg) {
  (void)arg;
  atomic_store(&flag, 1);
  data[1] = 2;
  return 0;
}

int main(void) {
  data = calloc(2, sizeof *data);
  pthread_t a, b;
  pthread_create(&a, 0, release, 0);
  pthread_create(&b, 0, update, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  free(data);
  return 0;
}
