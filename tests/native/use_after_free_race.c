// main frees a block that a thread may still read: a use after free in one interleaving (the
// issue's first example), and a data race between the free and the read.
#include <pthread.h>
#include <stdlib.h>

struct job {
  int id;
  int size;
};

void *worker(void *arg) {
  struct job *j = arg;
  return (void *)(long)j->size;
}

int main(void) {
  struct job *j = malloc(sizeof *j);
  j->id = 1;
  j->size = 10;
  pthread_t t;
  pthread_create(&t, 0, worker, j);
  free(j);
  pthread_join(t, 0);
  return 0;
}
