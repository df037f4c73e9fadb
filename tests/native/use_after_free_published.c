// A use after free that only one interleaving has, and no data race: the thread frees the block
// and then publishes that it is done; main reads the block only if it saw the flag, so only when
// it runs after both. Found by optimal DPOR in its second execution (issue 20).
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

int *data;
atomic_int done;

void *release_it(void *arg) {
  (void)arg;
  free(data);
  atomic_store(&done, 1);
  return 0;
}

int main(void) {
  data = malloc(4 * sizeof *data);
  data[0] = 42;
  pthread_t t;
  pthread_create(&t, 0, release_it, 0);
  int seen = 0;
  if (atomic_load(&done)) seen = data[0];
  pthread_join(t, 0);
  return seen == 42 ? 0 : 1;
}
