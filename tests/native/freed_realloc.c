// realloc of a block a thread already freed (join orders the free before it).
#include <pthread.h>
#include <stdlib.h>

char *line;

void *drop(void *arg) {
  (void)arg;
  free(line);
  return 0;
}

int main(void) {
  line = malloc(10);
  pthread_t t;
  pthread_create(&t, 0, drop, 0);
  pthread_join(t, 0);
  line = realloc(line, 100);
  free(line);
  return 0;
}
