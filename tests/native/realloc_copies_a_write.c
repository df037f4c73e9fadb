// realloc is one operation, before it looks at the block: whether the copy it makes has main's
// write depends on which runs first. If it has, the thread frees the new block twice; if not,
// main writes to the block realloc freed.
#include <pthread.h>
#include <stdlib.h>

int *data;

void *grow(void *arg) {
  int *bigger = realloc(arg, 64 * sizeof *bigger);
  if (bigger[2] == 7) free(bigger);
  free(bigger);
  return 0;
}

int main(void) {
  data = calloc(3, sizeof *data);
  pthread_t t;
  pthread_create(&t, 0, grow, data);
  data[2] = 7;
  pthread_join(t, 0);
  return 0;
}
