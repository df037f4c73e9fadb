// Two threads write the block main never frees, without a lock: a data race (with
// --points=sync), which stops no thread, so the program still ends, leaking the block.
#include <pthread.h>
#include <stdlib.h>

int *data;

void *set(void *arg) {
  data[0] = (int)(long)arg;
  return 0;
}

int main(void) {
  data = malloc(2 * sizeof *data);
  pthread_t a, b;
  pthread_create(&a, 0, set, (void *)1);
  pthread_create(&b, 0, set, (void *)2);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
