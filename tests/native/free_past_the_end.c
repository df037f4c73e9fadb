// A read just past the end of a block, in the slack its size class leaves after it, racing with
// a free of the block: an overflow before the free and after it, reported the same way in both
// orders.
#include <pthread.h>
#include <stdlib.h>

int *data;

void *release(void *arg) {
  (void)arg;
  free(data);
  return 0;
}

int main(void) {
  data = calloc(3, sizeof *data);
  pthread_t t;
  pthread_create(&t, 0, release, 0);
  int last = data[3];
  pthread_join(t, 0);
  return last;
}
