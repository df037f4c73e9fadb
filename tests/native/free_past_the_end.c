// A read just past the end of a block, racing with a free of the block: a heap buffer overflow
// while the block is allocated, a use after free once it is not. The free takes all the block's
// bytes from the program, not only those it asked for, so it conflicts with the read and both
// orders are explored.
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
